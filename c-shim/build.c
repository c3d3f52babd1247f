// SPDX-License-Identifier: GPL-2.0
/*
 * build.c - checks a flat struct shim_call and builds a kernel-shaped world
 * from it: the device, its ports, engines, send contexts and maps, the QP
 * and its private data, the swqe, the QPs rvt_qp_iter() walks.
 */
#include "state.h"

/* The world: zero until the first call builds it. */
struct shim_state shim_w;
/* The CPU the world's task runs on (kcompat linux/smp.h), the CPUs online (cpumask.h). */
int shim_this_cpu;
struct cpumask shim_cpu_online;

/* A stand-in workqueue: only its address matters (journal: "wq:hfi1"). */
static char hfi1_wq_token;
static char link_wq_token;

/* Sixteen entries of an element at once (GCC/Clang vector extensions). */
typedef u8 shim_v16u8 __attribute__((vector_size(SHIM_ELEM_MAX_ENTRIES)));

/*
 * The allocated elements, each whole (shim.h): an entry is valid when it
 * is SHIM_NONE or below n, i.e. when entry + 1 <= n as a byte.
 */
static bool shim_check_map(const struct shim_map *m, u8 n)
{
	shim_v16u8 bad = { 0 };
	bool too_many = false;
	u64 lanes[2];
	unsigned int i;

	if (m->nelems > SHIM_MAP_MAX_ELEMS)
		return false;
	for (i = 0; i < m->nelems; i++) {
		const struct shim_map_elem *e = &m->elems[i];
		shim_v16u8 v;

		memcpy(&v, e->entries, sizeof(v));
		bad |= (shim_v16u8)(v + 1 > n);
		too_many |= e->nentries > SHIM_ELEM_MAX_ENTRIES;
	}
	memcpy(lanes, &bad, sizeof(lanes));
	return !too_many && !(lanes[0] | lanes[1]);
}

/*
 * dd->send_contexts, each context's type.  The pointer follows dd->vld[]
 * in struct hfi1_devdata, so a read one past vld[] (the off-by-one of a
 * patch or a mutant: vld[PER_VL_SEND_CONTEXTS].mtu) reads its low bytes;
 * at a 64 KiB boundary they read 0, as a NULL pointer did, whatever the
 * linker's layout, and such a read shows in the outcome.  The kernel's
 * table has num_send_contexts entries; the world's has its 64 contexts
 * (those past num_send_contexts name contexts no vector gives, sc#i),
 * and past them, up to what a u8 index reaches (hw_to_sw's INVALID_SCI,
 * 255), entries whose context is shim_w.past_sc, which no world has:
 * only a bug reads there (KASAN's out-of-bounds in the kernel), and what
 * it does with it is journalled under that context's name.
 */
#define SHIM_SCI_ENTRIES 256
static struct send_context_info shim_sci[SHIM_SCI_ENTRIES] __aligned(65536);

/*
 * The context past the table, afresh for each world (what a bug did to it
 * in one is no part of the next): a group of 8, so what a bug walks from
 * it reaches the world's contexts.
 */
static void shim_build_past_sc(void)
{
	struct send_context *sc = &shim_w.past_sc;

	memset(sc, 0, sizeof(*sc));
	sc->dd = &shim_w.dd;
	sc->sw_index = SHIM_SCI_ENTRIES - 1;
	sc->hw_free = &shim_w.hw_free_none;
	sc->group = 3;
	seqlock_init(&sc->waitlock);
	init_waitqueue_head(&sc->halt_wait);
	INIT_LIST_HEAD(&sc->piowait);
}

/* An argument naming a send context or an engine of the world, or NULL. */
static bool shim_check_sc(int sc, const struct shim_world *sw)
{
	return sc >= SHIM_NONE && sc < sw->num_send_contexts;
}

static bool shim_check_sde(int sde, const struct shim_world *sw)
{
	return sde >= SHIM_NONE && sde < sw->sdma_cpus.n;
}

bool shim_check_call(const struct shim_call *c)
{
	const struct shim_world *sw = &c->world;
	unsigned int i;

	if (!shim_static_data_kept())
		return false;
	if (c->fn >= SHIM_FN_COUNT || c->qp.qp_type >= SHIM_QP_TYPE_COUNT ||
	    c->qp.state >= SHIM_QP_STATE_COUNT ||
	    c->wqe.opcode >= SHIM_WR_OPCODE_COUNT ||
	    c->qp.ib_tx_more > SHIM_MAX_TX_MORE || c->qp.tid_tx_more > SHIM_MAX_TX_MORE)
		return false;
	if (sw->sdma_cpus.n > SHIM_MAX_SDMA ||
	    sw->num_send_contexts > SHIM_MAX_SEND_CONTEXTS ||
	    sw->sl_to_sc.n > SHIM_MAX_PORTS)
		return false;
	if (sw->sc_type.n > ARRAY_SIZE(sw->sc_type.idx))
		return false;
	for (i = 0; i < sw->sc_type.n; i++)
		if (sw->sc_type.idx[i] >= sw->num_send_contexts ||
		    sw->sc_type.val[i] >= SHIM_SC_TYPE_COUNT)
			return false;
#define SHIM_CHECK_PER_SC(f) do {					\
	if (sw->f.n > ARRAY_SIZE(sw->f.idx))				\
		return false;						\
	for (i = 0; i < sw->f.n; i++)					\
		if (sw->f.idx[i] >= sw->num_send_contexts)		\
			return false;					\
} while (0)
	SHIM_CHECK_PER_SC(sc_hw_context);
	SHIM_CHECK_PER_SC(sc_group);
	for (i = 0; i < sw->sc_group.n; i++)
		if (sw->sc_group.val[i] > 3)
			return false;
	SHIM_CHECK_PER_SC(sc_ctrl_csr);
	SHIM_CHECK_PER_SC(sc_status_csr);
	SHIM_CHECK_PER_SC(sc_err_csr);
	SHIM_CHECK_PER_SC(sc_egress_csr);
	SHIM_CHECK_PER_SC(sc_credit_status_csr);
	SHIM_CHECK_PER_SC(sc_freed);
	SHIM_CHECK_PER_SC(sci_credits);
	SHIM_CHECK_PER_SC(sci_base);
#undef SHIM_CHECK_PER_SC
	if (!shim_check_map(&sw->sdma_map, sw->sdma_cpus.n) ||
	    !shim_check_map(&sw->pio_map, sw->num_send_contexts) ||
	    !shim_check_user_sde(c))
		return false;
	/* Indices are SHIM_NONE or in range (shim_sde(), shim_sc()). */
	for (i = 0; i < SHIM_NUM_VLD; i++)
		if (sw->vl_sc[i] < SHIM_NONE ||
		    sw->vl_sc[i] >= sw->num_send_contexts)
			return false;
	if (c->qp.s_sde < SHIM_NONE || c->qp.s_sde >= sw->sdma_cpus.n ||
	    c->qp.s_sendcontext < SHIM_NONE ||
	    c->qp.s_sendcontext >= sw->num_send_contexts ||
	    c->qp.s_last >= SHIM_MAX_SWQE ||
	    c->qp.s_tail_ack_queue >= SHIM_MAX_ACK ||
	    c->qp.mig_state >= SHIM_MIG_STATE_COUNT)
		return false;
	for (i = 0; i < SHIM_MAX_SWQE; i++)
		if (c->qp.send_queue[i].opcode >= SHIM_WR_OPCODE_COUNT)
			return false;
	/* The arguments: symbols in range; the walk fits its table. */
	switch (c->fn) {
	case SHIM_FN_HFI1_ERROR_PORT_QPS: {
		const struct shim_iter_list *l = &c->args.hfi1_error_port_qps.iter;

		if (l->n > SHIM_MAX_ITER_QPS)
			return false;
		for (i = 0; i < l->n; i++)
			if (l->qp[i].qp_type >= SHIM_QP_TYPE_COUNT ||
			    l->qp[i].state >= SHIM_QP_STATE_COUNT)
				return false;
		break;
	}
	case SHIM_FN_HFI1_MODIFY_QP:
		if (c->args.hfi1_modify_qp.path_mig_state.present &&
		    c->args.hfi1_modify_qp.path_mig_state.value >= SHIM_MIG_STATE_COUNT)
			return false;
		break;
	case SHIM_FN_HFI1_QP_UNBUSY:
		if (c->args.hfi1_qp_unbusy.leg > 1)
			return false;
		break;
	case SHIM_FN_SC_ADD_CREDIT_RETURN_INTR:
		if (!shim_check_sc(c->args.sc_add_credit_return_intr.sc, sw))
			return false;
		break;
	case SHIM_FN_SC_DEL_CREDIT_RETURN_INTR:
		if (!shim_check_sc(c->args.sc_del_credit_return_intr.sc, sw))
			return false;
		break;
	case SHIM_FN_HFI1_SC_WANTPIOBUF_INTR:
		if (!shim_check_sc(c->args.hfi1_sc_wantpiobuf_intr.sc, sw))
			return false;
		break;
	case SHIM_FN_SC_RETURN_CREDITS:
		if (!shim_check_sc(c->args.sc_return_credits.sc, sw))
			return false;
		break;
	case SHIM_FN_SC_STOP:
		if (!shim_check_sc(c->args.sc_stop.sc, sw))
			return false;
		break;
	case SHIM_FN_SC_DISABLE:
		if (!shim_check_sc(c->args.sc_disable.sc, sw))
			return false;
		break;
	case SHIM_FN_SC_FLUSH:
		if (!shim_check_sc(c->args.sc_flush.sc, sw))
			return false;
		break;
	case SHIM_FN_SC_RELEASE_UPDATE:
		if (!shim_check_sc(c->args.sc_release_update.sc, sw))
			return false;
		break;
	case SHIM_FN_SC_WAIT_FOR_PACKET_EGRESS:
		if (!shim_check_sc(c->args.sc_wait_for_packet_egress.sc, sw))
			return false;
		break;
	case SHIM_FN_SDMA_AHG_ALLOC: {
		int sde = c->args.sdma_ahg_alloc.sde;

		if (!shim_check_sde(sde, sw))
			return false;
		/* ffz() of a word with no clear bit is undefined. */
		for (i = 0; i < c->engines.sde_ahg_bits.n &&
			    i < ARRAY_SIZE(c->engines.sde_ahg_bits.idx); i++)
			if (c->engines.sde_ahg_bits.idx[i] == sde &&
			    c->engines.sde_ahg_bits.val[i] == ~0ULL)
				return false;
		break;
	}
	case SHIM_FN_SDMA_AHG_FREE:
		if (!shim_check_sde(c->args.sdma_ahg_free.sde, sw))
			return false;
		break;
	case SHIM_FN_IOWAIT_SLEEP:
		/* Given the engine the tx went to, and a leg. */
		if (c->qp.s_sde == SHIM_NONE || c->args.iowait_sleep.leg > 1)
			return false;
		break;
	case SHIM_FN_SDMA_MAP_INIT:
	case SHIM_FN_PIO_MAP_INIT:
		if (!shim_check_vl_map_init(c))
			return false;
		break;
	case SHIM_FN_SC_ALLOC:
		if (!shim_check_sc_alloc(c))
			return false;
		break;
	case SHIM_FN_HFI1_INIT_CTXT:
		if (!shim_check_sc(c->args.hfi1_init_ctxt.sc, sw))
			return false;
		break;
	case SHIM_FN_INIT_PERVL_SCS:
		if (!shim_check_init_pervl_scs(c))
			return false;
		break;
	case SHIM_FN_SEQFILE_DUMP_SCI:
		if (!shim_check_dump_sci(c))
			return false;
		break;
	case SHIM_FN_INIT_SEND_CONTEXTS:
		if (!shim_check_init_send_contexts(c))
			return false;
		break;
	case SHIM_FN_INIT_SC_POOLS_AND_SIZES:
		if (!shim_check_init_sc_pools(c))
			return false;
		break;
	case SHIM_FN_SDMA_INIT:
		if (!shim_check_sdma_init(c))
			return false;
		break;
	case SHIM_FN_SDMA_GET_DESCQ_CNT:
		/* The module parameter written where the tree keeps it. */
		if (!shim_static_data_of("sdma_descq_cnt", sizeof(uint)))
			return false;
		break;
	case SHIM_FN_SDMA_STATE_NAME:
		if (c->args.sdma_state_name.state >= SHIM_SDMA_STATE_COUNT)
			return false;
		break;
	case SHIM_FN_SET_SDMA_INTEGRITY:
	case SHIM_FN_INIT_SDMA_REGS:
	case SHIM_FN_SDMA_WAIT_FOR_PACKET_EGRESS:
	case SHIM_FN_SDMA_DESC_AVAIL:
	case SHIM_FN_SDMA_ERR_PROGRESS_CHECK:
		/* The QP's engine (its registers, its waiters, its timer). */
		if (c->qp.s_sde == SHIM_NONE)
			return false;
		break;
	case SHIM_FN_SC_PIOBUFAVAIL:
		/* The QP's send context. */
		if (c->qp.s_sendcontext == SHIM_NONE)
			return false;
		break;
	case SHIM_FN_SDMA_FLUSH:
	case SHIM_FN_SDMA_FIELD_FLUSH:
		/* The QP's engine, its ring a power of two (a bounded walk). */
		if (c->qp.s_sde == SHIM_NONE || !is_power_of_2(c->qp.sde_descq_cnt))
			return false;
		break;
	case SHIM_FN_SDMA_SEND_TXREQ:
		/* The QP's engine, its ring and descriptors the world's (submit_tx). */
		if (!shim_check_send_tx(&c->qp, &c->args.sdma_send_txreq.tx) ||
		    c->args.sdma_send_txreq.leg > 1)
			return false;
		break;
	case SHIM_FN_SC_ENABLE:
		/* NULL or the QP's context: the world gives only it counters. */
		if (c->args.sc_enable.sc != SHIM_NONE &&
		    c->args.sc_enable.sc != c->qp.s_sendcontext)
			return false;
		break;
	case SHIM_FN_SC_GROUP_RELEASE_UPDATE:
		/* dd->hw_to_sw[] is indexed by it unchecked. */
		if (c->args.sc_group_release_update.hw_context >= TXE_NUM_CONTEXTS)
			return false;
		break;
	case SHIM_FN_SDMA_SEND_TXLIST:
		/* The QP's engine, its ring the world's (submit_tx). */
		if (c->qp.s_sde == SHIM_NONE || !shim_tx_ring_own(c->qp.sde_descq_cnt))
			return false;
		break;
	case SHIM_FN__SDMA_ENGINE_PROGRESS_SCHEDULE:
		/* It dereferences the engine. */
		if (!shim_check_sde(c->args._sdma_engine_progress_schedule.sde, sw) ||
		    c->args._sdma_engine_progress_schedule.sde == SHIM_NONE)
			return false;
		break;
	case SHIM_FN_SDMA_PROCESS_EVENT:
	case SHIM_FN_SDMA_ENGINE_ERROR:
	case SHIM_FN_SDMA_SW_CLEAN_UP_TASK:
	case SHIM_FN_SDMA_HW_CLEAN_UP_TASK:
	case SHIM_FN_SDMA_ERR_HALT_WAIT:
		/* A state machine step: an event it knows (it indexes a table). */
		if (c->fn == SHIM_FN_SDMA_PROCESS_EVENT &&
		    c->args.sdma_process_event.event >= SHIM_SDMA_EVENT_COUNT)
			return false;
		/*
		 * The hardware clean-up polls the status until it says done,
		 * the halt worker until it says halted (jiffies stand still).
		 */
		if (c->fn == SHIM_FN_SDMA_HW_CLEAN_UP_TASK &&
		    !(sw->sdma_status_csr & SEND_DMA_STATUS_ENG_CLEANED_UP_SMASK))
			return false;
		if (c->fn == SHIM_FN_SDMA_ERR_HALT_WAIT &&
		    !(sw->sdma_status_csr & SEND_DMA_STATUS_ENG_HALTED_SMASK))
			return false;
		/*
		 * An error's dump reads the descriptors from the head to the
		 * tail: the world's ring (whatever a scenario's steps left of
		 * its head and tail).
		 */
		if (c->fn == SHIM_FN_SDMA_ENGINE_ERROR &&
		    (c->args.sdma_engine_error.status & ~SEND_DMA_ENG_ERR_STATUS_SDMA_HALT_ERR_SMASK) &&
		    !shim_tx_ring_own(c->qp.sde_descq_cnt))
			return false;
		fallthrough;
	case SHIM_FN_SDMA_ENGINE_INTERRUPT:
	case SHIM_FN_SDMA_START:
	case SHIM_FN_SDMA_ALL_RUNNING:
	case SHIM_FN_SDMA_EXIT:
	case SHIM_FN_SDMA_FREEZE_NOTIFY:
	case SHIM_FN_SDMA_FREEZE:
	case SHIM_FN_SDMA_UNFREEZE:
		/* Every engine's state read back: as many as a record holds. */
		if ((c->fn == SHIM_FN_SDMA_START || c->fn == SHIM_FN_SDMA_ALL_RUNNING ||
		     c->fn == SHIM_FN_SDMA_EXIT || c->fn == SHIM_FN_SDMA_FREEZE_NOTIFY ||
		     c->fn == SHIM_FN_SDMA_FREEZE || c->fn == SHIM_FN_SDMA_UNFREEZE) &&
		    sw->sdma_cpus.n > ARRAY_SIZE(c->engines.sde_state.idx))
			return false;
		/*
		 * The QP's engine, its ring a power of two, the chip's heads
		 * in it: make_progress walks to the head by the mask.
		 */
		if (c->qp.s_sde == SHIM_NONE || !is_power_of_2(c->qp.sde_descq_cnt) ||
		    (u16)c->qp.sde_head_dma >= c->qp.sde_descq_cnt ||
		    (u16)c->qp.sde_head_csr >= c->qp.sde_descq_cnt)
			return false;
		break;
	default:
		break;
	}
	if (c->qp.wait_lock < SHIM_NONE || c->qp.wait_lock >= sw->sdma_cpus.n)
		return false;
	/* Other waiters are on the QP's engine's list: it has one. */
	if (c->qp.waiters.n > SHIM_MAX_WAITERS ||
	    (c->qp.waiters.n && c->qp.s_sde == SHIM_NONE))
		return false;
	/* Other QPs are on the QP's send context's list: it has one. */
	if (c->qp.pio_waiters.n > SHIM_MAX_PIO_WAITERS ||
	    (c->qp.pio_waiters.n && c->qp.s_sendcontext == SHIM_NONE))
		return false;
	if (!shim_check_ring(c) || !shim_check_dma_tx(&c->qp))
		return false;
	/* One lock: an engine's or a send context's. */
	if (!shim_check_sc(c->qp.wait_sc, sw) ||
	    (c->qp.wait_sc != SHIM_NONE && c->qp.wait_lock != SHIM_NONE))
		return false;
	return shim_check_engines(&c->engines, sw);
}

/* Unroll a loop of fixed length (an element's entries): no loop branch. */
#ifdef __clang__
#define SHIM_UNROLL _Pragma("unroll")
#else
#define SHIM_UNROLL _Pragma("GCC unroll 16")
#endif

/*
 * The tx ring of every engine the world gives no slots (sdma_mask is at
 * most 0xffff): no request, read-only.  Upstream only reads a slot it
 * finds NULL (a write would be of a request it found there), and the
 * leak scan, which reads the world's writable data, need not read it.
 */
static struct sdma_txreq *const shim_no_tx[1 << 16];

struct sdma_engine *shim_sde(int idx)
{
	return shim_w.sde_of[idx + 1];
}

struct send_context *shim_sc(int idx)
{
	return shim_w.sc_of[idx + 1];
}

/*
 * The allocated elements are built whole (shim.h), the pointers by table
 * lookup: no branch per entry to mispredict.  Entries beyond those
 * allocated are NULL, so a read past a mask is deterministic (the model
 * calls it undefined); elements beyond are NULL.
 */
/*
 * One map (sdma_vl_map or pio_vl_map): the two differ only in their types
 * and in the name of the element's array, so one body serves both.
 */
#define SHIM_BUILD_MAP(vlmap, slots, entry, lookup, src) do {	\
	unsigned int i, j;						\
									\
	(vlmap).m.mask = (src)->mask;					\
	for (i = 0; i < SHIM_MAP_MAX_ELEMS; i++)			\
		(vlmap).m.map[i] = NULL;				\
	for (i = 0; i < (src)->nelems; i++) {				\
		const struct shim_map_elem *se = &(src)->elems[i];	\
		typeof((slots)[0].e) *e = &(slots)[i].e;		\
									\
		e->mask = se->mask;					\
		SHIM_UNROLL						\
		for (j = 0; j < SHIM_ELEM_MAX_ENTRIES; j++)		\
			e->entry[j] = lookup(se->entries[j]);		\
		(vlmap).m.map[i] = se->present ? e : NULL;		\
	}								\
} while (0)

static void shim_build_maps(const struct shim_world *sw)
{
	unsigned int i;

	SHIM_BUILD_MAP(shim_w.sdma_map, shim_w.sdma_elem, sde, shim_sde, &sw->sdma_map);
	for (i = 0; i < ARRAY_SIZE(shim_w.sdma_map.m.engine_to_vl); i++)
		shim_w.sdma_map.m.engine_to_vl[i] = i < sw->sdma_engine_to_vl.n ?
						    sw->sdma_engine_to_vl.v[i] : 0;
	RCU_INIT_POINTER(shim_w.dd.sdma_map, sw->sdma_map.present ? &shim_w.sdma_map.m : NULL);
	shim_w.sdma_map_heap = NULL;
	shim_w.pio_map_heap = NULL;
	/* Set by the calls that read them (vl_maps.c), for that call only. */
	shim_w.dd.kernel_send_context = NULL;
	shim_w.dd.rcd = NULL;
	SHIM_BUILD_MAP(shim_w.pio_map, shim_w.pio_elem, ksc, shim_sc, &sw->pio_map);
	RCU_INIT_POINTER(shim_w.dd.pio_map, sw->pio_map.present ? &shim_w.pio_map.m : NULL);
}

/*
 * Upstream's file-static data (shim_static_data: boundary.toml `data`) as
 * its initializers left it: kept at the first build, put back at every
 * one, so what a call writes there (init_sc_pools_and_sizes() sizes the
 * kernel contexts in sc_config_sizes) is not the next call's world.  When
 * the table holds more than the room kept, shim_check_call() refuses
 * every call: none would be isolated.
 */
static struct {
	unsigned char bytes[1024];
	size_t used;
	const unsigned char *of[16];
	bool taken;
	bool incomplete;	/* some data not kept: every call is refused */
} shim_initial;

/* Keeps the initial bytes, once: before any call has run upstream code. */
static void shim_keep_static_data(void)
{
	unsigned int i;

	for (i = 0; !shim_initial.taken && shim_static_data[i].name && i < ARRAY_SIZE(shim_initial.of);
	     i++) {
		const struct shim_static_data *d = &shim_static_data[i];

		if (d->size > sizeof(shim_initial.bytes) - shim_initial.used) {
			shim_initial.incomplete = true;
			continue;
		}
		memcpy(shim_initial.bytes + shim_initial.used, d->addr, d->size);
		shim_initial.of[i] = shim_initial.bytes + shim_initial.used;
		shim_initial.used += d->size;
	}
	if (!shim_initial.taken && shim_static_data[i].name)
		shim_initial.incomplete = true;
	shim_initial.taken = true;
}

/* Whether every static datum is kept (and so restored before each call). */
bool shim_static_data_kept(void)
{
	shim_keep_static_data();
	return !shim_initial.incomplete;
}

static void shim_restore_static_data(void)
{
	unsigned int i;

	shim_keep_static_data();
	for (i = 0; shim_static_data[i].name && i < ARRAY_SIZE(shim_initial.of); i++)
		if (shim_initial.of[i])
			memcpy(shim_static_data[i].addr, shim_initial.of[i], shim_static_data[i].size);
}

/* Upstream's static data `name`, when it is `size` bytes and restored; else NULL. */
void *shim_static_data_of(const char *name, unsigned long size)
{
	unsigned int i;

	shim_keep_static_data();
	for (i = 0; shim_static_data[i].name && i < ARRAY_SIZE(shim_initial.of); i++)
		if (!strcmp(shim_static_data[i].name, name))
			return shim_static_data[i].size == size && shim_initial.of[i] ?
				       shim_static_data[i].addr : NULL;
	return NULL;
}

/*
 * A uint module parameter of sdma.c (`name`, static data of the extracted
 * unit), when the world sets it and the tree has it as a uint; otherwise
 * its initializer, restored.  `slot` keeps where the tree has it.
 */
static void shim_set_uint_param(const char *name, uint **slot, bool *looked, bool set, uint v)
{
	if (!*looked) {
		*slot = shim_static_data_of(name, sizeof(uint));
		*looked = true;
	}
	if (*slot && set)
		**slot = v;
}

/* sdma.c's module parameters the world may set: the ring size, the idle count, num_sdma. */
static void shim_set_sdma_params(const struct shim_world *sw)
{
	static uint *descq_cnt, *idle_cnt, *num_sdma;
	static bool looked[3];

	shim_set_uint_param("sdma_descq_cnt", &descq_cnt, &looked[0], sw->sdma_descq_cnt_set,
			    sw->sdma_descq_cnt);
	shim_set_uint_param("sdma_idle_cnt", &idle_cnt, &looked[1], sw->sdma_idle_cnt_set,
			    sw->sdma_idle_cnt);
	shim_set_uint_param("mod_num_sdma", &num_sdma, &looked[2], sw->mod_num_sdma_set,
			    sw->mod_num_sdma);
}

void shim_build_world(const struct shim_world *sw)
{
	unsigned int i;
	unsigned long flags = 0;

	/*
	 * The device is zero from the start (static storage) and every field
	 * upstream reads is assigned below on every call, so it is not cleared
	 * again: the functions in scope never write to it but for seqlock
	 * sequence counters, which they leave balanced.
	 */

	SHIM_UNPOISON_ALL(shim_w.pport);
	SHIM_UNPOISON_ALL(shim_w.per_sdma);
	SHIM_UNPOISON_ALL(shim_w.sc);

	if (!shim_w.initialised) {
		/*
		 * What never changes: back pointers, indices, locks, and the
		 * index-to-pointer tables everything below builds with (first).
		 */
		for (i = 0; i < SHIM_MAX_SDMA; i++) {
			shim_w.sde_of[i + 1] = &shim_w.per_sdma[i];
			shim_w.per_sdma[i].dd = &shim_w.dd;
			shim_w.per_sdma[i].this_idx = i;
			seqlock_init(&shim_w.per_sdma[i].waitlock);
			/* As sdma_init() sets them. */
			shim_w.per_sdma[i].int_mask = (u64)1 << (0 * TXE_NUM_SDMA_ENGINES + i);
			shim_w.per_sdma[i].progress_mask =
				(u64)1 << (1 * TXE_NUM_SDMA_ENGINES + i);
			shim_w.per_sdma[i].idle_mask = (u64)1 << (2 * TXE_NUM_SDMA_ENGINES + i);
			shim_w.per_sdma[i].head_dma = &shim_w.head_dma[i];
			shim_w.per_sdma[i].tail_csr =
				get_kctxt_csr_addr(&shim_w.dd, i, SEND_DMA_TAIL);
			/* The bus addresses sdma_init() would have had (never dereferenced). */
			shim_w.per_sdma[i].descq_phys = 0x100000000ull + ((u64)i << 16);
			shim_w.per_sdma[i].head_phys = 0x200000000ull + (u64)i * 64;
		}
		for (i = 0; i < SHIM_MAX_SEND_CONTEXTS; i++) {
			shim_w.sc_of[i + 1] = &shim_w.sc[i];
			shim_w.sc[i].dd = &shim_w.dd;
			shim_w.sc[i].sw_index = i;
			shim_w.sc[i].hw_free = &shim_w.hw_free_none;
			seqlock_init(&shim_w.sc[i].waitlock);
			/* As sc_alloc() does. */
			init_waitqueue_head(&shim_w.sc[i].halt_wait);
		}
		/* As init_dd() and sdma_init() do. */
		init_waitqueue_head(&shim_w.dd.event_queue);
		init_waitqueue_head(&shim_w.dd.sdma_unfreeze_wq);
		shim_w.dd.send_contexts = shim_sci;
		shim_w.dd.pcidev = &shim_w.pcidev;
		for (i = 0; i < SHIM_MAX_SEND_CONTEXTS; i++)
			shim_sci[i].sc = &shim_w.sc[i];
		shim_w.sci_dirty = true;	/* the rest of the table: below */
		/* The PIO send buffers' mapping: only ever added to (sc_alloc). */
		shim_w.dd.piobase = SHIM_PIOBASE;
		for (; i < SHIM_SCI_ENTRIES; i++)
			shim_sci[i].sc = &shim_w.past_sc;
		shim_build_inverse();
		shim_w.sr_sc = SHIM_NONE;
		shim_w.initialised = true;
	}

	for (i = 0; i < SHIM_DEV_FLAG_COUNT; i++)
		flags |= dev_flag_values[i] & -(unsigned long)((sw->dev_flags >> i) & 1);
	shim_w.dd.flags = flags;
	shim_w.dd.qos_shift = sw->qos_shift;
	shim_w.dd.node = sw->node;
	shim_w.dd.icode = sw->fpga_emulation ? ICODE_FPGA_EMULATION : ICODE_RTL_SILICON;
	shim_w.dd.default_desc1 = sw->default_desc1;
	shim_w.dd.sdma_pad_phys = sw->sdma_pad_phys;
	shim_w.dd.n_krcv_queues = sw->n_krcv_queues;
	shim_w.dd.num_rcv_contexts = sw->num_rcv_contexts;
	shim_restore_static_data();
	shim_set_sdma_params(sw);
	/* What sdma_init() allocates: none (a call of it allocated them last). */
	shim_w.dd.sdma_heads_dma = NULL;
	shim_w.dd.sdma_heads_phys = 0;
	shim_w.dd.sdma_heads_size = 0;
	shim_w.dd.sdma_pad_dma = NULL;
	shim_w.dd.sdma_rht = NULL;	/* the calls that read it build it (user_sde.c) */
	current->nr_cpus_allowed = sw->nr_cpus_allowed;
	shim_this_cpu = sw->this_cpu;
	shim_cpu_online.bits[0] = sw->cpu_online;
	num_vls = sw->num_vls;
	piothreshold = sw->piothreshold;
	user_credit_return_threshold = sw->user_credit_return_threshold;
	hfi1_max_mtu = sw->max_mtu;
	hfi1_cap_mask = (sw->cap_sdma ? HFI1_CAP_SDMA : 0) |
			(sw->cap_static_rate_ctrl ? HFI1_CAP_STATIC_RATE_CTRL : 0) |
			(sw->cap_use_sdma_head ? HFI1_CAP_USE_SDMA_HEAD : 0) |
			(sw->cap_sdma_head_check ? HFI1_CAP_SDMA_HEAD_CHECK : 0) |
			(sw->cap_sdma_ahg ? HFI1_CAP_SDMA_AHG : 0) |
			(sw->cap_no_integrity ? HFI1_CAP_NO_INTEGRITY : 0) |
			(sw->cap_early_credit_return ? HFI1_CAP_EARLY_CREDIT_RETURN : 0) |
			(sw->cap_user_early_credit_return ?
			 HFI1_CAP_EARLY_CREDIT_RETURN << HFI1_CAP_USER_SHIFT : 0);
	seqlock_init(&shim_w.dd.sc2vl_lock);
	memcpy(shim_w.dd.sc2vl, sw->sc_to_vl, sizeof(sw->sc_to_vl));
	/* The entries off 0 (the last world's back to 0 first). */
	shim_w.nsc = sw->num_send_contexts;
	shim_w.nsde = sw->sdma_cpus.n;
	shim_w.dd.num_send_contexts = sw->num_send_contexts;
	for (; shim_w.hw_context_set; shim_w.hw_context_set &= shim_w.hw_context_set - 1)
		shim_w.sc[__builtin_ctzll(shim_w.hw_context_set)].hw_context = 0;
	for (i = 0; i < sw->sc_hw_context.n; i++) {
		shim_w.sc[sw->sc_hw_context.idx[i]].hw_context = sw->sc_hw_context.val[i];
		shim_w.hw_context_set |= BIT_ULL(sw->sc_hw_context.idx[i]);
	}
	/*
	 * The whole table again after a call that allocated or laid it out
	 * (contexts.c: a bug there may have written any entry), or for a
	 * table of another size: the entries past the world's are not
	 * allocated, so a walk past its end (a bug) takes one and says so.
	 */
	if (shim_w.sci_dirty || shim_w.sci_n != sw->num_send_contexts) {
		memset(shim_sci, 0, sizeof(shim_sci));
		for (i = 0; i < SHIM_SCI_ENTRIES; i++) {
			shim_sci[i].sc = i < SHIM_MAX_SEND_CONTEXTS ? &shim_w.sc[i] : &shim_w.past_sc;
			shim_sci[i].allocated = i < sw->num_send_contexts;
		}
		shim_w.dd.send_contexts = shim_sci;	/* init_send_contexts() replaces it */
		shim_w.sc_freed_set = 0;
		shim_w.sci_blocks_set = 0;
		shim_w.sci_dirty = false;
		shim_w.sci_n = sw->num_send_contexts;
	}
	for (; shim_w.sc_type_set; shim_w.sc_type_set &= shim_w.sc_type_set - 1)
		shim_sci[__builtin_ctzll(shim_w.sc_type_set)].type =
			shim_w.sc[__builtin_ctzll(shim_w.sc_type_set)].type = SC_KERNEL;
	for (i = 0; i < sw->sc_type.n; i++) {
		shim_sci[sw->sc_type.idx[i]].type = shim_w.sc[sw->sc_type.idx[i]].type =
			sc_type_values[sw->sc_type.val[i]];
		shim_w.sc_type_set |= BIT_ULL(sw->sc_type.idx[i]);
	}
	/*
	 * A freed context's table entry is NULL and not allocated (the last
	 * world's back first: every entry, when a call allocated or freed one,
	 * contexts.c).
	 */
	for (; shim_w.sc_freed_set; shim_w.sc_freed_set &= shim_w.sc_freed_set - 1) {
		shim_sci[__builtin_ctzll(shim_w.sc_freed_set)].sc =
			&shim_w.sc[__builtin_ctzll(shim_w.sc_freed_set)];
		shim_sci[__builtin_ctzll(shim_w.sc_freed_set)].allocated = 1;
	}
	for (i = 0; i < sw->sc_freed.n; i++) {
		if (!sw->sc_freed.val[i])
			continue;
		shim_sci[sw->sc_freed.idx[i]].sc = NULL;
		shim_sci[sw->sc_freed.idx[i]].allocated = 0;
		shim_w.sc_freed_set |= BIT_ULL(sw->sc_freed.idx[i]);
	}
	/* Each entry's PIO blocks, as init_send_contexts() laid them out. */
	for (; shim_w.sci_blocks_set; shim_w.sci_blocks_set &= shim_w.sci_blocks_set - 1) {
		shim_sci[__builtin_ctzll(shim_w.sci_blocks_set)].credits = 0;
		shim_sci[__builtin_ctzll(shim_w.sci_blocks_set)].base = 0;
	}
	for (i = 0; i < sw->sci_credits.n; i++) {
		shim_sci[sw->sci_credits.idx[i]].credits = sw->sci_credits.val[i];
		shim_w.sci_blocks_set |= BIT_ULL(sw->sci_credits.idx[i]);
	}
	for (i = 0; i < sw->sci_base.n; i++) {
		shim_sci[sw->sci_base.idx[i]].base = sw->sci_base.val[i];
		shim_w.sci_blocks_set |= BIT_ULL(sw->sci_base.idx[i]);
	}
	shim_build_hw_to_sw(sw);
	shim_build_past_sc();
	for (i = 0; i < SHIM_NUM_VLD; i++) {
		shim_w.dd.vld[i].mtu = sw->vl_mtu[i];
		shim_w.dd.vld[i].sc = shim_sc(sw->vl_sc[i]);
	}
	/* The whole table, not a loop as long as the vector says: no mispredict. */
	for (i = 0; i < SHIM_MAX_SDMA; i++)
		shim_w.per_sdma[i].cpu = sw->sdma_cpus.v[i];
	shim_w.dd.per_sdma = shim_w.per_sdma;
	shim_w.dd.num_sdma = sw->sdma_cpus.n;
	shim_build_maps(sw);

	/* Per-port fields shorter than the ports read 0 (their slots). */
	shim_w.dd.num_pports = sw->sl_to_sc.n;
	shim_w.dd.pport = shim_w.pport;
	shim_w.wq = (struct workqueue_struct *)&hfi1_wq_token;
	for (i = 0; i < SHIM_MAX_PORTS; i++) {
		shim_w.pport[i].dd = &shim_w.dd;
		shim_w.pport[i].port = i + 1;
		shim_w.pport[i].hfi1_wq = shim_w.wq;
		shim_w.pport[i].link_wq = (struct workqueue_struct *)&link_wq_token;
		memcpy(shim_w.pport[i].ibport_data.sl_to_sc, sw->sl_to_sc.v[i],
		       sizeof(sw->sl_to_sc.v[i]));
		shim_w.pport[i].ibmtu = sw->port_ibmtu.v[i];
		shim_w.pport[i].vls_operational = sw->vls_operational;
		shim_w.pport[i].lid = sw->port_lid.v[i];
		shim_w.pport[i].ibport_data.rvp.gid_prefix = cpu_to_be64(sw->port_gid_prefix.v[i]);
		RCU_INIT_POINTER(shim_w.pport[i].ibport_data.rvp.qp[0],
				 sw->port_qp0.v[i] ? &shim_w.special_qp : NULL);
		RCU_INIT_POINTER(shim_w.pport[i].ibport_data.rvp.qp[1],
				 sw->port_qp1.v[i] ? &shim_w.special_qp : NULL);
	}
	shim_w.alloc_fail = sw->alloc_fail;
	shim_w.nalloc = 0;
	shim_w.dd.verbs_dev.rdi.dparms.node = sw->node;
	node_affinity.num_possible_nodes = sw->possible_nodes;
	shim_w.sw = sw;
	shim_w.queue_work_ret = sw->queue_work_ret;
	shim_w.tid_send_ret = sw->tid_send_ret;
	shim_w.cancel_work_ret = sw->cancel_work_ret;
	shim_w.dd.verbs_dev.rdi.dparms.max_rdma_atomic = sw->max_rdma_atomic;
	shim_w.dd.verbs_dev.rdi.dparms.extra_rdma_atomic = sw->extra_rdma_atomic;
	memset(&shim_w.node_mask, 0, sizeof(shim_w.node_mask));
	shim_w.node_mask.bits[0] = sw->node_cpus;

	/*
	 * Static storage starts unlocked; a call that returned holding a lock
	 * said so (UNBALANCED), and every lock of the engines and send
	 * contexts is released after it.
	 */
	if (shim_w.locks_held) {
		for (i = 0; i < SHIM_MAX_SEND_CONTEXTS; i++) {
			spin_lock_init(&shim_w.sc[i].alloc_lock);
			spin_lock_init(&shim_w.sc[i].release_lock);
			spin_lock_init(&shim_w.sc[i].credit_ctrl_lock);
			seqlock_init(&shim_w.sc[i].waitlock);
		}
		for (i = 0; i < SHIM_MAX_SDMA; i++) {
			struct sdma_engine *sde = &shim_w.per_sdma[i];

			seqlock_init(&sde->waitlock);
			seqlock_init(&sde->head_lock);
			spin_lock_init(&sde->tail_lock);
			spin_lock_init(&sde->senddmactrl_lock);
			spin_lock_init(&sde->flushlist_lock);
		}
		spin_lock_init(&shim_w.dd.sc_lock);
		spin_lock_init(&shim_w.dd.sc_init_lock);
		spin_lock_init(&shim_w.dd.pio_map_lock);
		spin_lock_init(&shim_w.dd.sde_map_lock);
		spin_lock_init(&shim_w.dd.sendctrl_lock);
		shim_w.locks_held = false;
	}

	SHIM_POISON_TAIL(shim_w.pport, sw->sl_to_sc.n, SHIM_MAX_PORTS);
	SHIM_POISON_TAIL(shim_w.per_sdma, sw->sdma_cpus.n, SHIM_MAX_SDMA);
	SHIM_POISON_TAIL(shim_w.sc, sw->num_send_contexts, SHIM_MAX_SEND_CONTEXTS);
}

static void shim_event_handler(struct ib_event *ev, void *context)
{
	const char *name = "?";

	switch (ev->event) {
	case IB_EVENT_QP_LAST_WQE_REACHED:
		name = "IB_EVENT_QP_LAST_WQE_REACHED";
		break;
	case IB_EVENT_PATH_MIG:
		name = "IB_EVENT_PATH_MIG";
		break;
	default:
		break;
	}
	journal_printf("event_handler(%s, %s, %s)", jp(ev->device), jp(ev->element.qp),
		       name);
}

void shim_build_remote_ah(struct rdma_ah_attr *attr, u8 sl, u32 dlid,
				 u32 port)
{
	attr->type = RDMA_AH_ATTR_TYPE_OPA;
	rdma_ah_set_sl(attr, sl);
	rdma_ah_set_dlid(attr, dlid);
	rdma_ah_set_port_num(attr, port);
}

/*
 * Every engine of a world has the QP's engine's ring (shim_build_qp()):
 * before a scenario's later step, as the step before left the QP's, so a
 * step that looks at the other engines' heads (the progress checks) sees
 * what the model carries.
 */
void shim_carry_ring(void)
{
	const struct sdma_engine *q = shim_w.priv.s_sde;
	int i;

	if (!q)
		return;
	for (i = 0; i < shim_w.dd.num_sdma; i++) {
		shim_w.per_sdma[i].descq_head = q->descq_head;
		shim_w.per_sdma[i].descq_tail = q->descq_tail;
	}
}

void shim_build_qp(const struct shim_call *c)
{
	const struct shim_qp *q = &c->qp;
	const struct shim_iter_list *iters;
	size_t stride = sizeof(struct rvt_swqe) + sizeof(struct rvt_sge);
	unsigned int i;

	memset(&shim_w.per_call, 0, sizeof(shim_w.per_call));
	shim_w.qp.ibqp.device = &shim_w.dd.verbs_dev.rdi.ibdev;
	shim_w.qp.ibqp.qp_type = qp_type_values[q->qp_type];
	shim_w.qp.ibqp.qp_num = q->num;
	shim_w.qp.ibqp.event_handler = shim_event_handler;
	shim_w.qp.port_num = q->port;
	shim_w.qp.state = qp_state_values[q->state];
	shim_w.qp.s_flags = tree_bits(q->s_flags, &shim_s_flags);
	shim_w.qp.priv = &shim_w.priv;
	atomic_set(&shim_w.qp.refcount, q->refcount);
	init_waitqueue_head(&shim_w.qp.wait);
	spin_lock_init(&shim_w.qp.s_lock);
	spin_lock_init(&shim_w.qp.s_hlock);
	spin_lock_init(&shim_w.qp.r_lock);
	shim_build_remote_ah(&shim_w.qp.remote_ah_attr, q->remote_sl, q->remote_dlid,
			     q->port);
	if (q->remote_grh) {
		/* An AH that came with a GRH (a path record's DGID). */
		rdma_ah_set_ah_flags(&shim_w.qp.remote_ah_attr, IB_AH_GRH);
		rdma_ah_set_subnet_prefix(&shim_w.qp.remote_ah_attr,
					  cpu_to_be64(q->remote_gid_prefix));
		rdma_ah_set_interface_id(&shim_w.qp.remote_ah_attr,
					 cpu_to_be64(q->remote_gid_iid));
	}
	rdma_ah_set_make_grd(&shim_w.qp.remote_ah_attr, q->remote_make_grd);
#define SHIM_COPY(f) shim_w.qp.f = q->f;
	SHIM_QP_COPY_QP(SHIM_COPY)
#undef SHIM_COPY
	shim_w.qp.s_mig_state = mig_state_values[q->mig_state];
	shim_build_remote_ah(&shim_w.qp.alt_ah_attr, q->alt_sl, q->alt_dlid, q->alt_port);

	/*
	 * The send queue: entry i at s_wq + i * stride (rvt_get_swqe_ptr).
	 * Only opcode and ssn are ever written, by the shim alone: the rest
	 * stays zero from the start.
	 */
	shim_w.qp.s_max_sge = 1;
	shim_w.qp.s_wq = &shim_w.s_wq.wqe;
	for (i = 0; i < SHIM_MAX_SWQE; i++) {
		struct rvt_swqe *e = (void *)(shim_w.s_wq.bytes + i * stride);

		e->wr.opcode = wr_opcode_values[q->send_queue[i].opcode];
		e->ssn = q->send_queue[i].ssn;
	}
	for (i = 0; i < SHIM_MAX_ACK; i++) {
		shim_w.ack[i].opcode = q->ack_queue.e[i].opcode;
		shim_w.ack[i].psn = q->ack_queue.e[i].psn;
		shim_w.ack[i].lpsn = q->ack_queue.e[i].lpsn;
	}
	shim_w.qp.s_ack_queue = q->ack_queue.present ? shim_w.ack : NULL;
	atomic64_set(&shim_w.rdma_mr.refcount.count, q->rdma_mr_refs.value);
	shim_w.qp.s_rdma_mr = q->rdma_mr_refs.present ? &shim_w.rdma_mr : NULL;
	if (q->cq_user) {
		/* rdmavt's user-mapped CQ: ib_cq_head()/ib_cq_tail() read cq->queue. */
		shim_w.cq_queue.head.val = q->cq_head;
		shim_w.cq_queue.tail.val = q->cq_tail;
		shim_w.cq.queue = &shim_w.cq_queue;
		shim_w.cq.ip = &shim_w.cq_mmap;
	} else {
		shim_w.cq_kqueue.head = q->cq_head;
		shim_w.cq_kqueue.tail = q->cq_tail;
		shim_w.cq.kqueue = &shim_w.cq_kqueue;
	}
	shim_w.qp.ibqp.send_cq = &shim_w.cq.ibcq;
	shim_w.srq.rq.size = q->srq_size.value;
	shim_w.qp.ibqp.srq = q->srq_size.present ? &shim_w.srq.ibsrq : NULL;
	shim_w.qp.r_rq.size = q->rq_size;

	/* The private part, initialised by upstream's own iowait_init(). */
	shim_w.priv.owner = &shim_w.qp;
	/*
	 * The callbacks qp_priv_alloc() installs, for a call that may run one
	 * of them (its SHIM_CALL harvested them: shim_prep_callbacks()) and
	 * for a scenario (its later steps may); NULL otherwise, as nothing
	 * else in scope calls them.
	 */
	if (shim_w.cb_prepared || (c->carry & SHIM_STEP_KEEP))
		iowait_init(&shim_w.priv.s_iowait, 1, _hfi1_do_send, _hfi1_do_tid_send,
			    shim_w.cb.sleep, shim_w.cb.wakeup, shim_w.cb.sdma_drained,
			    shim_w.cb.init_priority);
	else
		iowait_init(&shim_w.priv.s_iowait, 1, _hfi1_do_send, _hfi1_do_tid_send,
			    NULL, NULL, NULL, NULL);
	shim_w.priv.s_iowait.priority = q->iowait_priority;
	shim_w.priv.s_iowait.starved_cnt = q->starved_cnt;
	/* The descriptor ring of every engine, and every port's counter. */
	for (i = 0; i < c->world.sdma_cpus.n; i++) {
		struct sdma_engine *sde = &shim_w.per_sdma[i];

		sde->descq_cnt = q->sde_descq_cnt;
		sde->sdma_mask = (u32)q->sde_descq_cnt - 1;
		/* As sdma_init() sets it for its power-of-two rings. */
		sde->sdma_shift = q->sde_descq_cnt ? ilog2(q->sde_descq_cnt) : 0;
		sde->descq_full_count = q->sde_descq_full_count;
		sde->descq = NULL;
		sde->descq_head = q->sde_descq_head;
		sde->descq_tail = q->sde_descq_tail;
		sde->desc_avail = q->sde_desc_avail;
		sde->head_lock.seqcount.sequence = q->sde_head_seq;
		shim_w.head_dma[i] = cpu_to_le64(q->sde_head_dma);
		/* No tx request in the ring: every slot NULL. */
		sde->tx_ring = (struct sdma_txreq **)shim_no_tx;
		sde->tx_head = 0;
		sde->tx_tail = 0;
		INIT_LIST_HEAD(&sde->dmawait);
		INIT_LIST_HEAD(&sde->flushlist);
		spin_lock_init(&sde->flushlist_lock);
	}
	shim_w.head_csr = q->sde_head_csr;
	shim_build_dma_tx(q);
	shim_build_btx(q);
	for (i = 0; i < c->world.sl_to_sc.n; i++)
		shim_w.pport[i].ibport_data.rvp.n_dmawait = q->port_n_dmawait;
	atomic_set(&shim_w.dd.sdma_unfreeze_count, q->sdma_unfreeze_count);
	shim_w.priv.s_flags = tree_bits(q->priv_flags, &shim_priv_flags);
	for (i = 0; i < SHIM_IOWAIT_FLAG_COUNT; i++)
		if (q->iowait_flags & (1u << i))
			set_bit(iowait_flag_bits[i], &shim_w.priv.s_iowait.flags);
	shim_w.priv.s_sde = shim_sde(q->s_sde);
	shim_w.priv.s_sendcontext = shim_sc(q->s_sendcontext);
#define SHIM_COPY(f) shim_w.priv.f = q->f;
	SHIM_QP_COPY_PRIV(SHIM_COPY)
#undef SHIM_COPY
	shim_w.ahg.ahgcount = 1;
	shim_w.priv.s_ahg = &shim_w.ahg;
	atomic_set(&shim_w.priv.s_iowait.sdma_busy, q->sdma_busy);
	atomic_set(&shim_w.priv.s_iowait.pio_busy, q->pio_busy);
	shim_w.priv.s_iowait.count = q->iowait_count;
	shim_w.priv.s_iowait.tx_count = q->iowait_tx_count;
	shim_build_credit_return(q);
	shim_w.ib_tx.txreq.num_desc = q->ib_tx_num_desc;
	shim_w.tid_tx.txreq.num_desc = q->tid_tx_num_desc;
	if (q->ib_tx_queued)
		list_add_tail(&shim_w.ib_tx.txreq.list,
			      &shim_w.priv.s_iowait.wait[IOWAIT_IB_SE].tx_head);
	if (q->tid_tx_queued)
		list_add_tail(&shim_w.tid_tx.txreq.list,
			      &shim_w.priv.s_iowait.wait[IOWAIT_TID_SE].tx_head);
	for (i = 0; i < q->ib_tx_more; i++)
		list_add_tail(&shim_w.more_tx[0][i].txreq.list,
			      &shim_w.priv.s_iowait.wait[IOWAIT_IB_SE].tx_head);
	for (i = 0; i < q->tid_tx_more; i++)
		list_add_tail(&shim_w.more_tx[1][i].txreq.list,
			      &shim_w.priv.s_iowait.wait[IOWAIT_TID_SE].tx_head);
	/*
	 * Waiting under an engine's lock is waiting on its dmawait list, under
	 * a send context's on its piowait list.
	 */
	INIT_LIST_HEAD(&shim_w.engine_wait);
	for (i = 0; i < c->world.num_send_contexts; i++)
		INIT_LIST_HEAD(&shim_w.sc[i].piowait);
	shim_build_waiters(q, false);
	shim_build_pio_waiters(q, false);
	if (q->on_wait_list)
		list_add_tail(&shim_w.priv.s_iowait.list,
			      q->wait_sc != SHIM_NONE ? &shim_sc(q->wait_sc)->piowait :
			      q->wait_lock == SHIM_NONE ? &shim_w.engine_wait :
			      &shim_sde(q->wait_lock)->dmawait);
	shim_w.priv.s_iowait.lock = q->wait_sc != SHIM_NONE ? &shim_sc(q->wait_sc)->waitlock :
				    q->wait_lock == SHIM_NONE ? NULL :
				    &shim_sde(q->wait_lock)->waitlock;
	shim_build_waiters(q, true);
	shim_build_pio_waiters(q, true);
	shim_build_ring(q);

	/* The swqe of hfi1_setup_wqe (not part of the ring). */
	shim_w.swqe.wqe.length = c->wqe.length;
	shim_w.swqe.wqe.wr.opcode = wr_opcode_values[c->wqe.opcode];
	shim_w.swqe.wqe.priv = c->wqe.has_priv ? shim_w.tid_priv : NULL;
	shim_w.ah.log_pmtu = c->wqe.ah.ah.log_pmtu;
	rdma_ah_set_sl(&shim_w.ah.attr, c->wqe.ah.ah.sl);
	rdma_ah_set_port_num(&shim_w.ah.attr, c->wqe.ah.ah.port_num);
	shim_w.swqe.wqe.ud_wr.wr.ah = c->wqe.ah.present ? &shim_w.ah.ibah : NULL;

	/* The QPs rvt_qp_iter() walks (hfi1_error_port_qps), in order. */
	iters = c->fn == SHIM_FN_HFI1_ERROR_PORT_QPS ? &c->args.hfi1_error_port_qps.iter : NULL;
	shim_w.niter = iters ? iters->n : 0;
	for (i = 0; i < (unsigned int)shim_w.niter; i++) {
		const struct shim_iter_qp *iq = &iters->qp[i];
		struct rvt_qp *qp = &shim_w.iqp[i];

		memset(qp, 0, sizeof(*qp));
		memset(&shim_w.ipriv[i], 0, sizeof(shim_w.ipriv[i]));
		qp->ibqp.device = &shim_w.dd.verbs_dev.rdi.ibdev;
		qp->ibqp.qp_type = qp_type_values[iq->qp_type];
		qp->ibqp.qp_num = iq->qp_num;
		qp->ibqp.event_handler = shim_event_handler;
		qp->port_num = iq->port_num;
		qp->state = qp_state_values[iq->state];
		qp->priv = &shim_w.ipriv[i];
		shim_w.ipriv[i].owner = qp;
		shim_build_remote_ah(&qp->remote_ah_attr, iq->remote_sl, 0,
				     iq->port_num);
		shim_w.error_qp_ret[i] = iq->error_qp_ret;
	}
}

/*
 * num_desc of the first tx queued on a leg (the one sdma_desc_avail()
 * weighs), whichever tx it is; with none queued, as the call found it.
 */
static u16 shim_first_num_desc(struct iowait_work *w, u16 found)
{
	if (list_empty(&w->tx_head))
		return found;
	return list_first_entry(&w->tx_head, struct sdma_txreq, list)->num_desc;
}

/* The txs queued on a leg behind its first (0 with none). */
static u8 shim_behind_first(struct iowait_work *w)
{
	struct list_head *p;
	u8 n = 0;

	list_for_each(p, &w->tx_head)
		n++;
	return n ? n - 1 : 0;
}

/*
 * The QP as the call left it, in the shim's terms: shim_build_qp()
 * backwards, field by field (the plain copies through the same generated
 * lists).  A value the shim cannot name (a pointer out of the world, a
 * state no name has) reads as an index no name has (255, or the count),
 * which the harness reports as unnamed.
 */
void shim_read_qp(struct shim_qp *q, const struct shim_qp *in, u32 *s_flags_unknown)
{
	struct rvt_qp *qp = &shim_w.qp;
	struct hfi1_qp_priv *priv = &shim_w.priv;
	const struct ib_global_route *grh = rdma_ah_read_grh(&qp->remote_ah_attr);
	size_t stride = sizeof(struct rvt_swqe) + sizeof(struct rvt_sge);
	unsigned int i;
	int idx;

	q->qp_type = shim_index(qp_type_index, qp->ibqp.qp_type);
	q->num = qp->ibqp.qp_num;
	q->port = qp->port_num;
	q->state = shim_index(qp_state_index, qp->state);
	q->s_flags = symbolic_bits(qp->s_flags, &shim_s_flags, s_flags_unknown);
	q->priv_flags = symbolic_bits(priv->s_flags, &shim_priv_flags, NULL);
	q->iowait_flags = 0;
	for (i = 0; i < SHIM_IOWAIT_FLAG_COUNT; i++)
		if (test_bit(iowait_flag_bits[i], &priv->s_iowait.flags))
			q->iowait_flags |= 1u << i;
	idx = shim_sde_index(priv->s_sde);
	q->s_sde = idx == SHIM_FOREIGN ? 0xff : idx;
	idx = shim_sc_index(priv->s_sendcontext);
	q->s_sendcontext = idx == SHIM_FOREIGN ? 0xff : idx;
	q->ib_tx_num_desc = shim_first_num_desc(&priv->s_iowait.wait[IOWAIT_IB_SE],
						in->ib_tx_num_desc);
	q->tid_tx_num_desc = shim_first_num_desc(&priv->s_iowait.wait[IOWAIT_TID_SE],
						 in->tid_tx_num_desc);
	q->ib_tx_queued = !list_empty(&priv->s_iowait.wait[IOWAIT_IB_SE].tx_head);
	q->tid_tx_queued = !list_empty(&priv->s_iowait.wait[IOWAIT_TID_SE].tx_head);
	q->ib_tx_more = shim_behind_first(&priv->s_iowait.wait[IOWAIT_IB_SE]);
	q->tid_tx_more = shim_behind_first(&priv->s_iowait.wait[IOWAIT_TID_SE]);
	q->on_wait_list = !list_empty(&priv->s_iowait.list);
	q->wait_lock = priv->s_iowait.lock ? 0xff : SHIM_NONE;
	q->wait_sc = SHIM_NONE;
	for (i = 0; i < SHIM_MAX_SDMA && priv->s_iowait.lock; i++)
		if (priv->s_iowait.lock == &shim_w.per_sdma[i].waitlock)
			q->wait_lock = i;
	for (i = 0; i < SHIM_MAX_SEND_CONTEXTS && priv->s_iowait.lock; i++)
		if (priv->s_iowait.lock == &shim_w.sc[i].waitlock) {
			q->wait_lock = SHIM_NONE;
			q->wait_sc = i;
		}
	q->sdma_busy = atomic_read(&priv->s_iowait.sdma_busy);
	q->pio_busy = atomic_read(&priv->s_iowait.pio_busy);
	q->iowait_count = priv->s_iowait.count;
	q->iowait_tx_count = priv->s_iowait.tx_count;
	shim_read_credit_return(q);
	q->refcount = atomic_read(&qp->refcount);
	q->remote_sl = rdma_ah_get_sl(&qp->remote_ah_attr);
	q->remote_dlid = rdma_ah_get_dlid(&qp->remote_ah_attr);
	q->remote_grh = !!(rdma_ah_get_ah_flags(&qp->remote_ah_attr) & IB_AH_GRH);
	q->remote_gid_prefix = q->remote_grh ?
		be64_to_cpu(grh->dgid.global.subnet_prefix) : 0;
	q->remote_gid_iid = q->remote_grh ?
		be64_to_cpu(grh->dgid.global.interface_id) : 0;
	q->remote_make_grd = rdma_ah_get_make_grd(&qp->remote_ah_attr);
#define SHIM_COPY(f) q->f = qp->f;
	SHIM_QP_COPY_QP(SHIM_COPY)
#undef SHIM_COPY
#define SHIM_COPY(f) q->f = priv->f;
	SHIM_QP_COPY_PRIV(SHIM_COPY)
#undef SHIM_COPY
	q->cq_user = !!shim_w.cq.ip;
	q->cq_head = q->cq_user ? shim_w.cq_queue.head.val : shim_w.cq_kqueue.head;
	q->cq_tail = q->cq_user ? shim_w.cq_queue.tail.val : shim_w.cq_kqueue.tail;
	q->rdma_mr_refs.present = !!qp->s_rdma_mr;
	q->rdma_mr_refs.value = qp->s_rdma_mr ?
		atomic64_read(&shim_w.rdma_mr.refcount.count) : 0;
	q->ack_queue.present = !!qp->s_ack_queue;
	for (i = 0; i < SHIM_MAX_ACK; i++) {
		q->ack_queue.e[i].opcode = qp->s_ack_queue ? shim_w.ack[i].opcode : 0;
		q->ack_queue.e[i].psn = qp->s_ack_queue ? shim_w.ack[i].psn : 0;
		q->ack_queue.e[i].lpsn = qp->s_ack_queue ? shim_w.ack[i].lpsn : 0;
	}
	q->srq_size.present = !!qp->ibqp.srq;
	q->srq_size.value = qp->ibqp.srq ? shim_w.srq.rq.size : 0;
	q->rq_size = qp->r_rq.size;
	for (i = 0; i < SHIM_MAX_SWQE; i++) {
		struct rvt_swqe *e = (void *)(shim_w.s_wq.bytes + i * stride);

		q->send_queue[i].opcode = shim_index(wr_opcode_index, e->wr.opcode);
		q->send_queue[i].ssn = e->ssn;
	}
	q->mig_state = shim_index(mig_state_index, qp->s_mig_state);
	q->iowait_priority = priv->s_iowait.priority;
	q->starved_cnt = priv->s_iowait.starved_cnt;
	/* The QP's engine's ring; without an engine, nothing could change it. */
	if (shim_sde_index(priv->s_sde) >= 0) {
		q->sde_descq_cnt = priv->s_sde->descq_cnt;
		q->sde_descq_head = priv->s_sde->descq_head;
		q->sde_descq_tail = priv->s_sde->descq_tail;
		q->sde_desc_avail = priv->s_sde->desc_avail;
		q->sde_head_seq = priv->s_sde->head_lock.seqcount.sequence;
		q->sde_head_dma = le64_to_cpu(*priv->s_sde->head_dma);
		q->sde_descq_full_count = priv->s_sde->descq_full_count;
	} else {
		q->sde_descq_cnt = in->sde_descq_cnt;
		q->sde_descq_head = in->sde_descq_head;
		q->sde_descq_tail = in->sde_descq_tail;
		q->sde_desc_avail = in->sde_desc_avail;
		q->sde_head_seq = in->sde_head_seq;
		q->sde_head_dma = in->sde_head_dma;
		q->sde_descq_full_count = in->sde_descq_full_count;
	}
	q->sde_head_csr = shim_w.head_csr;
	q->port_n_dmawait = to_iport(qp->ibqp.device, qp->port_num)->rvp.n_dmawait;
	q->sdma_unfreeze_count = atomic_read(&shim_w.dd.sdma_unfreeze_count);
	shim_read_waiters(q, in);
	shim_read_pio_waiters(q, in);
	shim_read_ring(q, in);
	shim_read_dma_tx(q, in);
	shim_read_btx(q, in);
	q->alt_sl = rdma_ah_get_sl(&qp->alt_ah_attr);
	q->alt_port = rdma_ah_get_port_num(&qp->alt_ah_attr);
	q->alt_dlid = rdma_ah_get_dlid(&qp->alt_ah_attr);
}
