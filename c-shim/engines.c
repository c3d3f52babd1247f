// SPDX-License-Identifier: GPL-2.0
/*
 * engines.c - the send engines' state (struct shim_engines): the entries
 * off their default written into the world's send contexts and SDMA
 * engines before a call, and found again in every one of them after it
 * (as the QP is read back), each put back to its default as it is read,
 * so the next call starts from a clean world.  Each field holds at most
 * SHIM_PER_INDEX_SLOTS entries, by increasing index; more than that reads
 * back as n past the room (a value with no name).
 *
 * The fields come from the schema (SHIM_ENGINES_FIELDS, schema.h, with the
 * object each is of); below, each says where it lives in its object and
 * how its value converts, and a field the schema adds without them does
 * not compile.
 */
#include "state.h"

#define SHIM_PER_INDEX_SLOTS ARRAY_SIZE(((struct shim_engines *)0)->sc_flags.idx)

/* A flag no name has reads back as a bit past the names. */
static u32 sc_flags_symbolic(u32 tree)
{
	u32 unknown, f = symbolic_bits(tree, &shim_sc_flags, &unknown);

	return unknown ? f | 1u << SHIM_SC_FLAG_COUNT : f;
}

/* Each field: its place in its object, its value there, and back. */
#define SHIM_AT_sc_flags(o)			((o)->flags)
#define SHIM_TREE_sc_flags(v)			tree_bits((v), &shim_sc_flags)
#define SHIM_SYM_sc_flags(t)			sc_flags_symbolic(t)
#define SHIM_AT_sc_credit_intr_count(o)		((o)->credit_intr_count)
#define SHIM_TREE_sc_credit_intr_count(v)	(v)
#define SHIM_SYM_sc_credit_intr_count(t)	(t)
#define SHIM_AT_sc_credit_ctrl(o)		((o)->credit_ctrl)
#define SHIM_TREE_sc_credit_ctrl(v)		(v)
#define SHIM_SYM_sc_credit_ctrl(t)		(t)
#define SHIM_AT_sde_cpu_mask(o)			((o)->cpu_mask.bits[0])
#define SHIM_TREE_sde_cpu_mask(v)		(v)
#define SHIM_SYM_sde_cpu_mask(t)		(t)
#define SHIM_AT_sde_ahg_bits(o)			((o)->ahg_bits)
#define SHIM_TREE_sde_ahg_bits(v)		(v)
#define SHIM_SYM_sde_ahg_bits(t)		(t)

/*
 * A value of the tree's enumeration back to its index in the shim's list
 * (the list's count for a value no name has: no name either).
 */
#define SHIM_SYMBOLIC_OF(values, count, tree) ({			\
	u32 __i;							\
	for (__i = 0; __i < (count); __i++)				\
		if ((u32)(values)[__i] == (tree))			\
			break;						\
	__i;								\
})

static u32 sdma_state_symbolic(u32 tree)
{
	return SHIM_SYMBOLIC_OF(sdma_state_values, SHIM_SDMA_STATE_COUNT, tree);
}

static u32 sdma_event_symbolic(u32 tree)
{
	return SHIM_SYMBOLIC_OF(sdma_event_values, SHIM_SDMA_EVENT_COUNT, tree);
}

#define SHIM_AT_sde_state(o)			((o)->state.current_state)
#define SHIM_TREE_sde_state(v)			sdma_state_values[v]
#define SHIM_SYM_sde_state(t)			sdma_state_symbolic(t)
#define SHIM_AT_sde_previous_state(o)		((o)->state.previous_state)
#define SHIM_TREE_sde_previous_state(v)		sdma_state_values[v]
#define SHIM_SYM_sde_previous_state(t)		sdma_state_symbolic(t)
#define SHIM_AT_sde_current_op(o)		((o)->state.current_op)
#define SHIM_TREE_sde_current_op(v)		(v)
#define SHIM_SYM_sde_current_op(t)		(t)
#define SHIM_AT_sde_previous_op(o)		((o)->state.previous_op)
#define SHIM_TREE_sde_previous_op(v)		(v)
#define SHIM_SYM_sde_previous_op(t)		(t)
#define SHIM_AT_sde_go_s99_running(o)		((o)->state.go_s99_running)
#define SHIM_TREE_sde_go_s99_running(v)		(v)
#define SHIM_SYM_sde_go_s99_running(t)		(t)
#define SHIM_AT_sde_last_event(o)		((o)->state.last_event)
#define SHIM_TREE_sde_last_event(v)		sdma_event_values[v]
#define SHIM_SYM_sde_last_event(t)		sdma_event_symbolic(t)
/* kcompat's refcount_t is an atomic_t: its counter, as an lvalue. */
#define SHIM_AT_sde_kref(o)			((o)->state.kref.refcount.refs.counter)
#define SHIM_TREE_sde_kref(v)			(v)
#define SHIM_SYM_sde_kref(t)			(t)
#define SHIM_AT_sde_comp_done(o)		((o)->state.comp.done)
#define SHIM_TREE_sde_comp_done(v)		(v)
#define SHIM_SYM_sde_comp_done(t)		(t)
#define SHIM_AT_sde_p_senddmactrl(o)		((o)->p_senddmactrl)
#define SHIM_TREE_sde_p_senddmactrl(v)		(v)
#define SHIM_SYM_sde_p_senddmactrl(t)		(t)
#define SHIM_AT_sde_progress_check_head(o)	((o)->progress_check_head)
#define SHIM_TREE_sde_progress_check_head(v)	(v)
#define SHIM_SYM_sde_progress_check_head(t)	(t)
#define SHIM_AT_sde_idle_int_cnt(o)		((o)->idle_int_cnt)
#define SHIM_TREE_sde_idle_int_cnt(v)		(v)
#define SHIM_SYM_sde_idle_int_cnt(t)		(t)
#define SHIM_AT_sde_progress_int_cnt(o)		((o)->progress_int_cnt)
#define SHIM_TREE_sde_progress_int_cnt(v)	(v)
#define SHIM_SYM_sde_progress_int_cnt(t)	(t)
#define SHIM_AT_sde_sdma_int_cnt(o)		((o)->sdma_int_cnt)
#define SHIM_TREE_sde_sdma_int_cnt(v)		(v)
#define SHIM_SYM_sde_sdma_int_cnt(t)		(t)
#define SHIM_AT_sde_last_status(o)		((o)->last_status)
#define SHIM_TREE_sde_last_status(v)		(v)
#define SHIM_SYM_sde_last_status(t)		(t)

#define SHIM_NONE_OF(f)

/* Entries name contexts and engines of the world (corpus::invariants). */
bool shim_check_engines(const struct shim_engines *e, const struct shim_world *sw)
{
	unsigned int k;

#define SHIM_CHECK(f, max) do {						\
	if (e->f.n > SHIM_PER_INDEX_SLOTS)				\
		return false;						\
	for (k = 0; k < e->f.n; k++)					\
		if (e->f.idx[k] >= (max))				\
			return false;					\
} while (0);
#define SHIM_CHECK_SC(f) SHIM_CHECK(f, sw->num_send_contexts)
#define SHIM_CHECK_SDE(f) SHIM_CHECK(f, sw->sdma_cpus.n)
	SHIM_ENGINES_FIELDS(SHIM_CHECK_SC, SHIM_CHECK_SDE)
#undef SHIM_CHECK_SDE
#undef SHIM_CHECK_SC
#undef SHIM_CHECK
	for (k = 0; k < e->sde_state.n; k++)
		if (e->sde_state.val[k] >= SHIM_SDMA_STATE_COUNT)
			return false;
	for (k = 0; k < e->sde_previous_state.n; k++)
		if (e->sde_previous_state.val[k] >= SHIM_SDMA_STATE_COUNT)
			return false;
	for (k = 0; k < e->sde_last_event.n; k++)
		if (e->sde_last_event.val[k] >= SHIM_SDMA_EVENT_COUNT)
			return false;
	return true;
}

/* On the world shim_build_world() built: every entry at its default. */
void shim_build_engines(const struct shim_engines *e)
{
	unsigned int k;

#define SHIM_APPLY(f, objs)						\
	for (k = 0; k < e->f.n; k++)					\
		SHIM_AT_##f(&(objs)[e->f.idx[k]]) = SHIM_TREE_##f(e->f.val[k]);
#define SHIM_APPLY_SC(f) SHIM_APPLY(f, shim_w.sc)
#define SHIM_APPLY_SDE(f) SHIM_APPLY(f, shim_w.per_sdma)
	SHIM_ENGINES_FIELDS(SHIM_APPLY_SC, SHIM_APPLY_SDE)
#undef SHIM_APPLY_SDE
#undef SHIM_APPLY_SC
#undef SHIM_APPLY
}

/* Appends (i, v) to a field being read back, or marks it over full. */
#define SHIM_PUT(field, i, v) do {					\
	if ((field).n < SHIM_PER_INDEX_SLOTS) {				\
		(field).idx[(field).n] = (i);				\
		(field).val[(field).n] = (v);				\
	}								\
	if ((field).n <= SHIM_PER_INDEX_SLOTS)				\
		(field).n++;						\
} while (0)

/*
 * Every context and engine of the world is looked at (a call may change
 * one it was not given; past the world's counts --sanitize makes an
 * access a crash) and put back to its default.  With no `e` (a refused
 * call), only put back.
 */
void shim_read_engines(struct shim_engines *e)
{
	struct shim_engines none;
	unsigned int i;

	if (!e)
		e = &none;
	memset(e, 0, sizeof(*e));
#define SHIM_TAKE(f, o)							\
	if (SHIM_AT_##f(o)) {						\
		SHIM_PUT(e->f, i, SHIM_SYM_##f(SHIM_AT_##f(o)));	\
		SHIM_AT_##f(o) = 0;					\
	}
#define SHIM_TAKE_SC(f) SHIM_TAKE(f, &shim_w.sc[i])
#define SHIM_TAKE_SDE(f) SHIM_TAKE(f, &shim_w.per_sdma[i])
	for (i = 0; i < shim_w.nsc; i++) {
		SHIM_ENGINES_FIELDS(SHIM_TAKE_SC, SHIM_NONE_OF)
	}
	for (i = 0; i < shim_w.nsde; i++) {
		SHIM_ENGINES_FIELDS(SHIM_NONE_OF, SHIM_TAKE_SDE)
	}
#undef SHIM_TAKE_SDE
#undef SHIM_TAKE_SC
#undef SHIM_TAKE
}
