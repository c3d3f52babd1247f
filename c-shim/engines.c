// SPDX-License-Identifier: GPL-2.0
/*
 * engines.c - the send engines' state (struct shim_engines): the entries
 * off their default written into the world's send contexts and SDMA
 * engines before a call, and found again in every one of them after it
 * (as the QP is read back), each put back to its default as it is read,
 * so the next call starts from a clean world.  Each field holds at most
 * SHIM_PER_INDEX_SLOTS entries, by increasing index; more than that reads
 * back as n past the room (a value with no name).
 */
#include "state.h"

#define SHIM_PER_INDEX_SLOTS ARRAY_SIZE(((struct shim_engines *)0)->sc_flags.idx)

/* Appends (i, v) to a field being read back, or marks it over full. */
#define SHIM_PUT(field, i, v) do {					\
	if ((field).n < SHIM_PER_INDEX_SLOTS) {				\
		(field).idx[(field).n] = (i);				\
		(field).val[(field).n] = (v);				\
	}								\
	if ((field).n <= SHIM_PER_INDEX_SLOTS)				\
		(field).n++;						\
} while (0)

/* Entries name contexts and engines of the world (corpus::invariants). */
bool shim_check_engines(const struct shim_engines *e, const struct shim_world *sw)
{
	unsigned int k;

#define SHIM_CHECK(field, max) do {					\
	if (e->field.n > SHIM_PER_INDEX_SLOTS)				\
		return false;						\
	for (k = 0; k < e->field.n; k++)				\
		if (e->field.idx[k] >= (max))				\
			return false;					\
} while (0)
	SHIM_CHECK(sc_flags, sw->num_send_contexts);
	SHIM_CHECK(sc_credit_intr_count, sw->num_send_contexts);
	SHIM_CHECK(sc_credit_ctrl, sw->num_send_contexts);
	SHIM_CHECK(sde_ahg_bits, sw->sdma_cpus.n);
#undef SHIM_CHECK
	return true;
}

/* On the world shim_build_world() built: every entry at its default. */
void shim_build_engines(const struct shim_engines *e)
{
	unsigned int k;

	for (k = 0; k < e->sc_flags.n; k++)
		shim_w.sc[e->sc_flags.idx[k]].flags =
			tree_bits(e->sc_flags.val[k], &shim_sc_flags);
	for (k = 0; k < e->sc_credit_intr_count.n; k++)
		shim_w.sc[e->sc_credit_intr_count.idx[k]].credit_intr_count =
			e->sc_credit_intr_count.val[k];
	for (k = 0; k < e->sc_credit_ctrl.n; k++)
		shim_w.sc[e->sc_credit_ctrl.idx[k]].credit_ctrl = e->sc_credit_ctrl.val[k];
	for (k = 0; k < e->sde_ahg_bits.n; k++)
		shim_w.per_sdma[e->sde_ahg_bits.idx[k]].ahg_bits = e->sde_ahg_bits.val[k];
}

/*
 * Every context and engine of the world is looked at (a call may change
 * one it was not given; past the world's counts --sanitize makes an
 * access a crash) and put back to its default.  A flag of sc->flags no
 * name has reads back as a bit past the names.  With no `e` (a refused
 * call), only put back.
 */
void shim_read_engines(struct shim_engines *e)
{
	struct shim_engines none;
	unsigned int i;

	if (!e)
		e = &none;
	memset(e, 0, sizeof(*e));
	for (i = 0; i < shim_w.nsc; i++) {
		struct send_context *sc = &shim_w.sc[i];

		if (sc->flags) {
			u32 unknown, f;

			f = symbolic_bits(sc->flags, &shim_sc_flags, &unknown);
			if (unknown)
				f |= 1u << SHIM_SC_FLAG_COUNT;
			SHIM_PUT(e->sc_flags, i, f);
			sc->flags = 0;
		}
		if (sc->credit_intr_count) {
			SHIM_PUT(e->sc_credit_intr_count, i, sc->credit_intr_count);
			sc->credit_intr_count = 0;
		}
		if (sc->credit_ctrl) {
			SHIM_PUT(e->sc_credit_ctrl, i, sc->credit_ctrl);
			sc->credit_ctrl = 0;
		}
	}
	for (i = 0; i < shim_w.dd.num_sdma; i++) {
		if (shim_w.per_sdma[i].ahg_bits) {
			SHIM_PUT(e->sde_ahg_bits, i, shim_w.per_sdma[i].ahg_bits);
			shim_w.per_sdma[i].ahg_bits = 0;
		}
	}
}
