// SPDX-License-Identifier: GPL-2.0
/*
 * shim.c - builds a kernel-shaped world from a flat struct shim_call, runs
 * one upstream function on it and reports a flat struct shim_outcome.
 *
 * This file is compiled like the driver (kcompat headers, the tree's own
 * hfi1 and rdma headers), so it fills the tree's real structs and maps the
 * shim's symbolic names to the tree's real macro and enum values.  It never
 * decides anything the driver decides: it only lays out memory and calls.
 */
#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>
#include <rdma/ib_verbs.h>
#include <linux/seq_file.h>

#include "hfi.h"
#include "qp.h"
#include "sdma.h"
#include "pio.h"
#include "verbs_txreq.h"

#include "shim.h"
#include "mocks/journal.h"
#include "world.h"

/*
 * Module parameters defined in files this world does not compile
 * (chip.c, verbs.c): their values come from the vector.
 */
uint num_vls;
unsigned short piothreshold;
/* kcompat linux/lockdep.h: open locks and RCU read sections. */
int shim_lockdep_depth;
int shim_rcu_depth;

/*
 * The tree's value of each symbolic name, in the shim's order: the
 * generated name lists (schema.h) expanded against the tree's headers.
 */
#define SHIM_VALUE(name) name,
static const unsigned long dev_flag_values[SHIM_DEV_FLAG_COUNT] = {
	SHIM_DEV_FLAG_NAMES(SHIM_VALUE)
};

static const enum ib_qp_type qp_type_values[SHIM_QP_TYPE_COUNT] = {
	SHIM_QP_TYPE_NAMES(SHIM_VALUE)
};

static const enum ib_qp_state qp_state_values[SHIM_QP_STATE_COUNT] = {
	SHIM_QP_STATE_NAMES(SHIM_VALUE)
};

static const int wr_opcode_values[SHIM_WR_OPCODE_COUNT] = {
	SHIM_WR_OPCODE_NAMES(SHIM_VALUE)
};

static const enum ib_mig_state mig_state_values[SHIM_MIG_STATE_COUNT] = {
	SHIM_MIG_STATE_NAMES(SHIM_VALUE)
};

static const u32 s_flag_values[SHIM_S_FLAG_COUNT] = {
	SHIM_S_FLAG_NAMES(SHIM_VALUE)
};

static const u32 priv_flag_values[SHIM_PRIV_FLAG_COUNT] = {
	SHIM_PRIV_FLAG_NAMES(SHIM_VALUE)
};

/* iowait flags are bit numbers (iowait_set_flag() uses set_bit()). */
static const int iowait_flag_bits[SHIM_IOWAIT_FLAG_COUNT] = {
	SHIM_IOWAIT_FLAG_NAMES(SHIM_VALUE)
};
#undef SHIM_VALUE

/*
 * The bit conversions below run on every call over bitsets that vectors
 * draw at random: they are written without a branch per bit.
 */
static u32 tree_bits(u32 symbolic, const u32 *values, int n)
{
	u32 v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= values[i] & -((symbolic >> i) & 1);
	return v;
}

/* Symbolic bits of a tree value; *unknown gets what has no symbol. */
static u32 symbolic_bits(u32 tree, const u32 *values, int n, u32 *unknown)
{
	u32 v = 0, seen = 0;
	int i;

	for (i = 0; i < n; i++) {
		u32 hit = ((tree & values[i]) == values[i]) & (values[i] != 0);

		v |= hit << i;
		seen |= values[i] & -hit;
	}
	if (unknown)
		*unknown = tree & ~seen;
	return v;
}

/*
 * What every call starts from zero: one memset of one region (the members
 * are listed once here and reached as w.qp, w.priv, ...; the same list
 * names the region, in the spirit of the kernel's struct_group()).
 */
#define SHIM_PER_CALL_MEMBERS						\
	struct rvt_qp qp;						\
	struct hfi1_qp_priv priv;					\
	struct rvt_ah ah;						\
	struct {							\
		struct rvt_swqe wqe;					\
		struct rvt_sge sge[1];					\
	} swqe;								\
	struct rvt_cq cq;						\
	struct rvt_mregion rdma_mr;	/* what qp->s_rdma_mr points at */ \
	struct rvt_srq srq;						\
	struct verbs_txreq ib_tx;					\
	struct hfi1_ahg_info ahg;

/*
 * The world: one device, its ports, engines, send contexts and maps, one
 * QP with its private data, one swqe and its AH.  Static storage: a C world
 * serves one call at a time.
 */
static struct {
	struct hfi1_devdata dd;
	struct hfi1_pportdata pport[SHIM_MAX_PORTS];
	struct sdma_engine per_sdma[SHIM_MAX_SDMA];
	struct send_context sc[SHIM_MAX_SEND_CONTEXTS];
	struct workqueue_struct *wq;
	union {
		struct sdma_vl_map m;
		char bytes[sizeof(struct sdma_vl_map) +
			   SHIM_MAP_MAX_ELEMS * sizeof(struct sdma_map_elem *)];
	} sdma_map;
	union {
		struct sdma_map_elem e;
		char bytes[sizeof(struct sdma_map_elem) +
			   SHIM_ELEM_MAX_ENTRIES * sizeof(struct sdma_engine *)];
	} sdma_elem[SHIM_MAP_MAX_ELEMS];
	union {
		struct pio_vl_map m;
		char bytes[sizeof(struct pio_vl_map) +
			   SHIM_MAP_MAX_ELEMS * sizeof(struct pio_map_elem *)];
	} pio_map;
	union {
		struct pio_map_elem e;
		char bytes[sizeof(struct pio_map_elem) +
			   SHIM_ELEM_MAX_ENTRIES * sizeof(struct send_context *)];
	} pio_elem[SHIM_MAP_MAX_ELEMS];
	union {
		struct { SHIM_PER_CALL_MEMBERS };
		struct { SHIM_PER_CALL_MEMBERS } per_call;
	};
	char tid_priv[64];		/* what wqe->priv points at */
	struct cpumask node_mask;
	/* the primary QP's send queue, ack queue, CQ, SRQ, queued tx */
	union {
		struct rvt_swqe wqe;
		char bytes[SHIM_MAX_SWQE * (sizeof(struct rvt_swqe) + sizeof(struct rvt_sge))];
	} s_wq;
	struct rvt_ack_entry ack[SHIM_MAX_ACK];
	struct rvt_k_cq_wc cq_kqueue;
	struct rvt_mmap_info cq_mmap;	/* a user CQ's mapping: only its address matters */
	struct list_head engine_wait;	/* the engine wait list s_iowait sits on */
	/* the QPs rvt_qp_iter() walks */
	struct rvt_qp iqp[SHIM_MAX_ITER_QPS];
	struct hfi1_qp_priv ipriv[SHIM_MAX_ITER_QPS];
	int niter;
	u8 error_qp_ret[SHIM_MAX_ITER_QPS];
	bool queue_work_ret;
	bool tid_send_ret;
	bool cancel_work_ret;
	u32 alloc_fail;
	int nalloc;
	struct rvt_qp special_qp;	/* what ibp->rvp.qp[0]/[1] point at */
	bool initialised;
	/*
	 * Index to pointer, without a branch: [0] is NULL (SHIM_NONE), [i + 1]
	 * engine or send context i.  shim_check_call() keeps indices >= -1.
	 */
	struct sdma_engine *sde_of[1 + SHIM_MAX_SDMA];
	struct send_context *sc_of[1 + SHIM_MAX_SEND_CONTEXTS];
	/* qp.c's static iowait callbacks, as qp_priv_alloc() installs them */
	struct {
		void (*wakeup)(struct iowait *wait, int reason);
		void (*sdma_drained)(struct iowait *wait);
		void (*init_priority)(struct iowait *wait);
	} cb;
	/* a user CQ's shared queue (its flexible uqueue[] unused): last */
	struct rvt_cq_wc cq_queue;
} w;

void *calloc(size_t nmemb, size_t size);

/*
 * Under --sanitize, the objects past the counts the world declares (ports,
 * engines, send contexts) are poisoned once the world is built, so an
 * out-of-bounds read is a crash finding, as it would be in the kernel
 * (where nothing is there); a normal build leaves them as valid memory at
 * no cost per call.
 */
#if defined(__SANITIZE_ADDRESS__)
#define SHIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHIM_ASAN 1
#endif
#endif
#ifdef SHIM_ASAN
void __asan_poison_memory_region(void const volatile *addr, size_t size);
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
#define SHIM_POISON_TAIL(arr, n, max) \
	__asan_poison_memory_region(&(arr)[n], ((max) - (n)) * sizeof((arr)[0]))
#define SHIM_UNPOISON_ALL(arr) __asan_unpoison_memory_region((arr), sizeof(arr))
#else
#define SHIM_POISON_TAIL(arr, n, max) do { } while (0)
#define SHIM_UNPOISON_ALL(arr) do { } while (0)
#endif

/* A stand-in workqueue: only its address matters (journal: "wq:hfi1"). */
static char hfi1_wq_token;

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

static bool shim_check_call(const struct shim_call *c)
{
	const struct shim_world *sw = &c->world;
	unsigned int i;

	if (c->fn >= SHIM_FN_COUNT || c->qp.qp_type >= SHIM_QP_TYPE_COUNT ||
	    c->qp.state >= SHIM_QP_STATE_COUNT ||
	    c->wqe.opcode >= SHIM_WR_OPCODE_COUNT)
		return false;
	if (sw->num_sdma > SHIM_MAX_SDMA ||
	    sw->num_send_contexts > SHIM_MAX_SEND_CONTEXTS ||
	    sw->num_pports > SHIM_MAX_PORTS)
		return false;
	if (!shim_check_map(&sw->sdma_map, sw->num_sdma) ||
	    !shim_check_map(&sw->pio_map, sw->num_send_contexts))
		return false;
	/* Indices are SHIM_NONE or in range (shim_sde(), shim_sc()). */
	for (i = 0; i < SHIM_NUM_VLD; i++)
		if (sw->vl_sc[i] < SHIM_NONE ||
		    sw->vl_sc[i] >= sw->num_send_contexts)
			return false;
	if (c->qp.s_sde < SHIM_NONE || c->qp.s_sde >= sw->num_sdma ||
	    c->qp.s_sendcontext < SHIM_NONE ||
	    c->qp.s_sendcontext >= sw->num_send_contexts ||
	    c->qp.s_last >= SHIM_MAX_SWQE ||
	    c->qp.s_tail_ack_queue >= SHIM_MAX_ACK ||
	    c->niter > SHIM_MAX_ITER_QPS || c->qp.mig_state >= SHIM_MIG_STATE_COUNT ||
	    c->path_mig_state > 2)
		return false;
	for (i = 0; i < SHIM_MAX_SWQE; i++)
		if (c->qp.send_queue[i].opcode >= SHIM_WR_OPCODE_COUNT)
			return false;
	for (i = 0; i < c->niter; i++)
		if (c->iter[i].qp_type >= SHIM_QP_TYPE_COUNT ||
		    c->iter[i].state >= SHIM_QP_STATE_COUNT)
			return false;
	return true;
}

/* Unroll a loop of fixed length (an element's entries): no loop branch. */
#ifdef __clang__
#define SHIM_UNROLL _Pragma("unroll")
#else
#define SHIM_UNROLL _Pragma("GCC unroll 16")
#endif

static struct sdma_engine *shim_sde(int idx)
{
	return w.sde_of[idx + 1];
}

static struct send_context *shim_sc(int idx)
{
	return w.sc_of[idx + 1];
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
	SHIM_BUILD_MAP(w.sdma_map, w.sdma_elem, sde, shim_sde, &sw->sdma_map);
	RCU_INIT_POINTER(w.dd.sdma_map, sw->sdma_map.present ? &w.sdma_map.m : NULL);
	SHIM_BUILD_MAP(w.pio_map, w.pio_elem, ksc, shim_sc, &sw->pio_map);
	RCU_INIT_POINTER(w.dd.pio_map, sw->pio_map.present ? &w.pio_map.m : NULL);
}

static void shim_build_world(const struct shim_world *sw)
{
	unsigned int i;
	unsigned long flags = 0;

	/*
	 * The device is zero from the start (static storage) and every field
	 * upstream reads is assigned below on every call, so it is not cleared
	 * again: the functions in scope never write to it but for seqlock
	 * sequence counters, which they leave balanced.
	 */

	SHIM_UNPOISON_ALL(w.pport);
	SHIM_UNPOISON_ALL(w.per_sdma);
	SHIM_UNPOISON_ALL(w.sc);

	if (!w.initialised) {
		/*
		 * What never changes: back pointers, indices, locks, and the
		 * index-to-pointer tables everything below builds with (first).
		 */
		for (i = 0; i < SHIM_MAX_SDMA; i++) {
			w.sde_of[i + 1] = &w.per_sdma[i];
			w.per_sdma[i].dd = &w.dd;
			w.per_sdma[i].this_idx = i;
			seqlock_init(&w.per_sdma[i].waitlock);
		}
		for (i = 0; i < SHIM_MAX_SEND_CONTEXTS; i++) {
			w.sc_of[i + 1] = &w.sc[i];
			w.sc[i].dd = &w.dd;
			w.sc[i].sw_index = i;
			seqlock_init(&w.sc[i].waitlock);
		}
		w.initialised = true;
	}

	for (i = 0; i < SHIM_DEV_FLAG_COUNT; i++)
		flags |= dev_flag_values[i] & -(unsigned long)((sw->dev_flags >> i) & 1);
	w.dd.flags = flags;
	w.dd.qos_shift = sw->qos_shift;
	w.dd.node = sw->node;
	num_vls = sw->num_vls;
	piothreshold = sw->piothreshold;
	seqlock_init(&w.dd.sc2vl_lock);
	memcpy(w.dd.sc2vl, sw->sc_to_vl, sizeof(sw->sc_to_vl));
	for (i = 0; i < SHIM_NUM_VLD; i++) {
		w.dd.vld[i].mtu = sw->vl_mtu[i];
		w.dd.vld[i].sc = shim_sc(sw->vl_sc[i]);
	}
	/* The whole table, not a loop as long as the vector says: no mispredict. */
	for (i = 0; i < SHIM_MAX_SDMA; i++)
		w.per_sdma[i].cpu = sw->sdma[i].cpu;
	w.dd.per_sdma = w.per_sdma;
	w.dd.num_sdma = sw->num_sdma;
	shim_build_maps(sw);

	w.dd.num_pports = sw->num_pports;
	w.dd.pport = w.pport;
	w.wq = (struct workqueue_struct *)&hfi1_wq_token;
	for (i = 0; i < SHIM_MAX_PORTS; i++) {
		w.pport[i].dd = &w.dd;
		w.pport[i].port = i + 1;
		w.pport[i].hfi1_wq = w.wq;
		memcpy(w.pport[i].ibport_data.sl_to_sc, sw->ports[i].sl_to_sc,
		       sizeof(sw->ports[i].sl_to_sc));
		w.pport[i].ibmtu = sw->ports[i].ibmtu;
		w.pport[i].lid = sw->ports[i].lid;
		w.pport[i].ibport_data.rvp.gid_prefix = cpu_to_be64(sw->ports[i].gid_prefix);
		RCU_INIT_POINTER(w.pport[i].ibport_data.rvp.qp[0],
				 sw->ports[i].has_qp0 ? &w.special_qp : NULL);
		RCU_INIT_POINTER(w.pport[i].ibport_data.rvp.qp[1],
				 sw->ports[i].has_qp1 ? &w.special_qp : NULL);
	}
	w.alloc_fail = sw->alloc_fail;
	w.nalloc = 0;
	w.dd.verbs_dev.rdi.dparms.node = sw->node;
	w.queue_work_ret = sw->queue_work_ret;
	w.tid_send_ret = sw->tid_send_ret;
	w.cancel_work_ret = sw->cancel_work_ret;
	w.dd.verbs_dev.rdi.dparms.max_rdma_atomic = sw->max_rdma_atomic;
	w.dd.verbs_dev.rdi.dparms.extra_rdma_atomic = sw->extra_rdma_atomic;
	memset(&w.node_mask, 0, sizeof(w.node_mask));
	w.node_mask.bits[0] = sw->node_cpus;

	SHIM_POISON_TAIL(w.pport, sw->num_pports, SHIM_MAX_PORTS);
	SHIM_POISON_TAIL(w.per_sdma, sw->num_sdma, SHIM_MAX_SDMA);
	SHIM_POISON_TAIL(w.sc, sw->num_send_contexts, SHIM_MAX_SEND_CONTEXTS);
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
	journal_printf("event_handler(%s, %s)", jp(ev->element.qp), name);
}

static void shim_build_remote_ah(struct rdma_ah_attr *attr, u8 sl, u32 dlid,
				 u32 port)
{
	attr->type = RDMA_AH_ATTR_TYPE_OPA;
	rdma_ah_set_sl(attr, sl);
	rdma_ah_set_dlid(attr, dlid);
	rdma_ah_set_port_num(attr, port);
}

static void shim_build_qp(const struct shim_call *c)
{
	const struct shim_qp *q = &c->qp;
	size_t stride = sizeof(struct rvt_swqe) + sizeof(struct rvt_sge);
	unsigned int i;

	memset(&w.per_call, 0, sizeof(w.per_call));
	w.qp.ibqp.device = &w.dd.verbs_dev.rdi.ibdev;
	w.qp.ibqp.qp_type = qp_type_values[q->qp_type];
	w.qp.ibqp.qp_num = q->num;
	w.qp.ibqp.event_handler = shim_event_handler;
	w.qp.port_num = q->port;
	w.qp.state = qp_state_values[q->state];
	w.qp.s_flags = tree_bits(q->s_flags, s_flag_values, SHIM_S_FLAG_COUNT);
	w.qp.priv = &w.priv;
	atomic_set(&w.qp.refcount, q->refcount);
	init_waitqueue_head(&w.qp.wait);
	spin_lock_init(&w.qp.s_lock);
	spin_lock_init(&w.qp.s_hlock);
	spin_lock_init(&w.qp.r_lock);
	shim_build_remote_ah(&w.qp.remote_ah_attr, q->remote_sl, q->remote_dlid,
			     q->port);
	if (q->remote_grh) {
		/* An AH that came with a GRH (a path record's DGID). */
		rdma_ah_set_ah_flags(&w.qp.remote_ah_attr, IB_AH_GRH);
		rdma_ah_set_subnet_prefix(&w.qp.remote_ah_attr,
					  cpu_to_be64(q->remote_gid_prefix));
		rdma_ah_set_interface_id(&w.qp.remote_ah_attr,
					 cpu_to_be64(q->remote_gid_iid));
	}
	rdma_ah_set_make_grd(&w.qp.remote_ah_attr, q->remote_make_grd);
#define SHIM_COPY(f) w.qp.f = q->f;
	SHIM_QP_COPY_QP(SHIM_COPY)
#undef SHIM_COPY
	w.qp.s_mig_state = mig_state_values[q->mig_state];
	shim_build_remote_ah(&w.qp.alt_ah_attr, q->alt_sl, q->alt_dlid, q->alt_port);

	/*
	 * The send queue: entry i at s_wq + i * stride (rvt_get_swqe_ptr).
	 * Only opcode and ssn are ever written, by the shim alone: the rest
	 * stays zero from the start.
	 */
	w.qp.s_max_sge = 1;
	w.qp.s_wq = &w.s_wq.wqe;
	for (i = 0; i < SHIM_MAX_SWQE; i++) {
		struct rvt_swqe *e = (void *)(w.s_wq.bytes + i * stride);

		e->wr.opcode = wr_opcode_values[q->send_queue[i].opcode];
		e->ssn = q->send_queue[i].ssn;
	}
	for (i = 0; i < SHIM_MAX_ACK; i++) {
		w.ack[i].opcode = q->ack_queue.e[i].opcode;
		w.ack[i].psn = q->ack_queue.e[i].psn;
		w.ack[i].lpsn = q->ack_queue.e[i].lpsn;
	}
	w.qp.s_ack_queue = q->ack_queue.present ? w.ack : NULL;
	atomic64_set(&w.rdma_mr.refcount.count, q->rdma_mr_refs.value);
	w.qp.s_rdma_mr = q->rdma_mr_refs.present ? &w.rdma_mr : NULL;
	if (q->cq_user) {
		/* rdmavt's user-mapped CQ: ib_cq_head()/ib_cq_tail() read cq->queue. */
		w.cq_queue.head.val = q->cq_head;
		w.cq_queue.tail.val = q->cq_tail;
		w.cq.queue = &w.cq_queue;
		w.cq.ip = &w.cq_mmap;
	} else {
		w.cq_kqueue.head = q->cq_head;
		w.cq_kqueue.tail = q->cq_tail;
		w.cq.kqueue = &w.cq_kqueue;
	}
	w.qp.ibqp.send_cq = &w.cq.ibcq;
	w.srq.rq.size = q->srq_size.value;
	w.qp.ibqp.srq = q->srq_size.present ? &w.srq.ibsrq : NULL;
	w.qp.r_rq.size = q->rq_size;

	/* The private part, initialised by upstream's own iowait_init(). */
	w.priv.owner = &w.qp;
	iowait_init(&w.priv.s_iowait, 1, _hfi1_do_send, _hfi1_do_tid_send,
		    NULL, NULL, NULL, NULL);
	w.priv.s_flags = tree_bits(q->priv_flags, priv_flag_values,
				   SHIM_PRIV_FLAG_COUNT);
	for (i = 0; i < SHIM_IOWAIT_FLAG_COUNT; i++)
		if (q->iowait_flags & (1u << i))
			set_bit(iowait_flag_bits[i], &w.priv.s_iowait.flags);
	w.priv.s_sde = shim_sde(q->s_sde);
	w.priv.s_sendcontext = shim_sc(q->s_sendcontext);
#define SHIM_COPY(f) w.priv.f = q->f;
	SHIM_QP_COPY_PRIV(SHIM_COPY)
#undef SHIM_COPY
	w.ahg.ahgcount = 1;
	w.priv.s_ahg = &w.ahg;
	atomic_set(&w.priv.s_iowait.sdma_busy, q->sdma_busy);
	atomic_set(&w.priv.s_iowait.pio_busy, q->pio_busy);
	if (q->ib_tx_queued)
		list_add_tail(&w.ib_tx.txreq.list,
			      &w.priv.s_iowait.wait[IOWAIT_IB_SE].tx_head);
	INIT_LIST_HEAD(&w.engine_wait);
	if (q->on_wait_list)
		list_add_tail(&w.priv.s_iowait.list, &w.engine_wait);
	if (q->on_wait_list || q->wait_lock_stale)
		w.priv.s_iowait.lock = w.priv.s_sde ? &w.priv.s_sde->waitlock :
						      &w.per_sdma[0].waitlock;

	/* The swqe of hfi1_setup_wqe (not part of the ring). */
	w.swqe.wqe.length = c->wqe.length;
	w.swqe.wqe.wr.opcode = wr_opcode_values[c->wqe.opcode];
	w.swqe.wqe.priv = c->wqe.has_priv ? w.tid_priv : NULL;
	w.ah.log_pmtu = c->wqe.ah.log_pmtu;
	rdma_ah_set_sl(&w.ah.attr, c->wqe.ah.sl);
	rdma_ah_set_port_num(&w.ah.attr, c->wqe.ah.port_num);
	w.swqe.wqe.ud_wr.wr.ah = c->wqe.has_ah ? &w.ah.ibah : NULL;

	/* The QPs rvt_qp_iter() walks, in the vector's order. */
	w.niter = c->niter;
	for (i = 0; i < c->niter; i++) {
		const struct shim_iter_qp *iq = &c->iter[i];
		struct rvt_qp *qp = &w.iqp[i];

		memset(qp, 0, sizeof(*qp));
		memset(&w.ipriv[i], 0, sizeof(w.ipriv[i]));
		qp->ibqp.device = &w.dd.verbs_dev.rdi.ibdev;
		qp->ibqp.qp_type = qp_type_values[iq->qp_type];
		qp->ibqp.qp_num = iq->qp_num;
		qp->ibqp.event_handler = shim_event_handler;
		qp->port_num = iq->port_num;
		qp->state = qp_state_values[iq->state];
		qp->priv = &w.ipriv[i];
		w.ipriv[i].owner = qp;
		shim_build_remote_ah(&qp->remote_ah_attr, iq->remote_sl, 0,
				     iq->port_num);
		w.error_qp_ret[i] = iq->error_qp_ret;
	}
}

bool shim_queue_work_ret(void)
{
	return w.queue_work_ret;
}

bool shim_tid_send_ret(void)
{
	return w.tid_send_ret;
}

bool shim_cancel_work_ret(void)
{
	return w.cancel_work_ret;
}

int shim_iter_count(void)
{
	return w.niter;
}

struct rvt_qp *shim_iter_qp(int i)
{
	return &w.iqp[i];
}

int shim_error_qp_ret(const struct rvt_qp *qp)
{
	if (qp >= w.iqp && qp < w.iqp + SHIM_MAX_ITER_QPS)
		return w.error_qp_ret[qp - w.iqp];
	return 0;
}

/* Maps a pointer back to the world's index for it. */
static int shim_sde_index(const struct sdma_engine *sde)
{
	if (!sde)
		return SHIM_NONE;
	if (sde >= w.per_sdma && sde < w.per_sdma + SHIM_MAX_SDMA)
		return sde - w.per_sdma;
	return SHIM_FOREIGN;
}

static int shim_sc_index(const struct send_context *sc)
{
	if (!sc)
		return SHIM_NONE;
	if (sc >= w.sc && sc < w.sc + SHIM_MAX_SEND_CONTEXTS)
		return sc - w.sc;
	return SHIM_FOREIGN;
}

int shim_ptr_name(const void *p, char *buf, size_t len)
{
	int i;

	if (!p)
		return snprintf(buf, len, "(null)");
	i = shim_sde_index(p);
	if (i >= 0)
		return snprintf(buf, len, "sde#%d", i);
	i = shim_sc_index(p);
	if (i >= 0)
		return snprintf(buf, len, "sc#%d", i);
	if (p == &w.qp || p == &w.qp.ibqp)
		return snprintf(buf, len, "qp#0x%x", w.qp.ibqp.qp_num);
	for (i = 0; i < w.niter; i++)
		if (p == &w.iqp[i] || p == &w.iqp[i].ibqp)
			return snprintf(buf, len, "qp#0x%x", w.iqp[i].ibqp.qp_num);
	if (p == &w.qp.wait)
		return snprintf(buf, len, "qp-wait#0x%x", w.qp.ibqp.qp_num);
	if (p == &w.ib_tx)
		return snprintf(buf, len, "txreq:IB");
	if (p == &w.priv.tid_rdma.trigger_work)
		return snprintf(buf, len, "tid-trigger-work");
	if (p == &w.priv.s_iowait.wait_dma)
		return snprintf(buf, len, "wait_dma");
	if (p == &w.priv.s_iowait.wait_pio)
		return snprintf(buf, len, "wait_pio");
	if (p == &w.swqe.wqe)
		return snprintf(buf, len, "wqe");
	if (p == w.wq)
		return snprintf(buf, len, "wq:hfi1");
	if (p == &w.dd)
		return snprintf(buf, len, "dd");
	if (p == &w.priv.s_iowait.wait[IOWAIT_IB_SE].iowork)
		return snprintf(buf, len, "iowork:IB");
	if (p == &w.priv.s_iowait.wait[IOWAIT_TID_SE].iowork)
		return snprintf(buf, len, "iowork:TID");
	if (p == &w.node_mask)
		return snprintf(buf, len, "cpumask:node%d", w.dd.node);
	return snprintf(buf, len, "ptr:foreign");
}

const struct cpumask *shim_node_mask(int node)
{
	return node == w.dd.node ? &w.node_mask : NULL;
}

bool shim_alloc_fails(void)
{
	return w.alloc_fail & (1u << (w.nalloc++ & 31));
}

/* The addressing state hfi1_modify_qp/hfi1_migrate_qp leave, key=value. */
static void shim_describe_path(struct shim_outcome *out)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(&w.qp.remote_ah_attr);
	int n;

	n = snprintf(out->text, sizeof(out->text),
		     "s_sc=%u s_sde=%s s_sendcontext=%s hdr_type=%u port=%u dlid=0x%x grh=%d iid=0x%llx prefix=0x%llx mig=%u pkey=%u",
		     w.priv.s_sc, jp(w.priv.s_sde), jp(w.priv.s_sendcontext),
		     w.priv.hdr_type, w.qp.port_num,
		     rdma_ah_get_dlid(&w.qp.remote_ah_attr),
		     !!(rdma_ah_get_ah_flags(&w.qp.remote_ah_attr) & IB_AH_GRH),
		     (unsigned long long)be64_to_cpu(grh->dgid.global.interface_id),
		     (unsigned long long)be64_to_cpu(grh->dgid.global.subnet_prefix),
		     w.qp.s_mig_state == IB_MIG_MIGRATED ? 0 :
		     w.qp.s_mig_state == IB_MIG_REARM ? 1 : 2,
		     w.qp.s_pkey_index);
	out->text_len = n < (int)sizeof(out->text) ? n : sizeof(out->text) - 1;
}

static const char *fn_name(void *f)
{
	if (!f)
		return "NULL";
	if (f == (void *)_hfi1_do_send)
		return "_hfi1_do_send";
	if (f == (void *)_hfi1_do_tid_send)
		return "_hfi1_do_tid_send";
	return "set";
}

/* What qp_priv_alloc() initialised, key=value. */
static void shim_describe_priv(struct shim_outcome *out, struct hfi1_qp_priv *p)
{
	struct iowait *iw = &p->s_iowait;
	int n;

	n = snprintf(out->text, sizeof(out->text),
		     "owner=%s ahg=%s tx_limit=%u func=%s tidfunc=%s sleep=%s wakeup=%s sdma_drained=%s init_priority=%s running_pkt_size=%u",
		     jp(p->owner), p->s_ahg ? "set" : "NULL", iw->tx_limit,
		     fn_name(iw->wait[IOWAIT_IB_SE].iowork.func),
		     fn_name(iw->wait[IOWAIT_TID_SE].iowork.func),
		     fn_name(iw->sleep), fn_name(iw->wakeup),
		     fn_name(iw->sdma_drained), fn_name(iw->init_priority),
		     p->s_running_pkt_size);
	out->text_len = n < (int)sizeof(out->text) ? n : sizeof(out->text) - 1;
}

/*
 * Names a length by every work-request struct of that size (two structs
 * can share one: on x86_64 ib_rdma_wr and ib_reg_wr are both 56 bytes).
 */
static void wr_len_names(char *buf, size_t room, size_t len)
{
	static const struct { size_t size; const char *name; } wrs[] = {
		{ sizeof(struct ib_rdma_wr), "ib_rdma_wr" },
		{ sizeof(struct ib_reg_wr), "ib_reg_wr" },
		{ sizeof(struct ib_atomic_wr), "ib_atomic_wr" },
		{ sizeof(struct ib_send_wr), "ib_send_wr" },
		{ sizeof(struct ib_ud_wr), "ib_ud_wr" },
	};
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(wrs); i++)
		if (wrs[i].size == len)
			n += snprintf(buf + n, room - n, "%s%s", n ? "|" : "",
				      wrs[i].name);
	if (!n)
		snprintf(buf, room, "%s", len ? "other" : "0");
}

/* hfi1_post_parms[opcode], by names. */
static void shim_describe_post_parms(struct shim_outcome *out, u32 opcode)
{
	static const char *const qpt[] = { "SMI", "GSI", "RC", "UC", "UD" };
	static const struct { u32 v; const char *n; } ops[] = {
		{ RVT_OPERATION_PRIV, "PRIV" },
		{ RVT_OPERATION_ATOMIC, "ATOMIC" },
		{ RVT_OPERATION_ATOMIC_SGE, "ATOMIC_SGE" },
		{ RVT_OPERATION_LOCAL, "LOCAL" },
		{ RVT_OPERATION_USE_RESERVE, "USE_RESERVE" },
		{ RVT_OPERATION_IGN_RNR_CNT, "IGN_RNR_CNT" },
	};
	const struct rvt_operation_params *p = &hfi1_post_parms[opcode];
	char *t = out->text, names[64];
	size_t room = sizeof(out->text), n;
	unsigned int i;

	wr_len_names(names, sizeof(names), p->length);
	n = snprintf(t, room, "length=%s qpt={", names);
	for (i = 0; i < SHIM_QP_TYPE_COUNT; i++)
		if (p->qpt_support & BIT(qp_type_values[i]))
			n += snprintf(t + n, room - n, "%s%s",
				      t[n - 1] == '{' ? "" : ",", qpt[i]);
	n += snprintf(t + n, room - n, "} flags={");
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (p->flags & ops[i].v)
			n += snprintf(t + n, room - n, "%s%s",
				      t[n - 1] == '{' ? "" : ",", ops[i].n);
	n += snprintf(t + n, room - n, "}");
	out->text_len = n;
}

/*
 * The raw cost of the upstream call: builds the world of `c` once, then
 * runs its function `iters` times (hfi1_setup_wqe; or qp_to_sdma_engine and
 * qp_to_send_context for the engine functions).  Returns a checksum of the
 * results so that the compiler keeps every call.
 */
shim_u64 shim_bench(const struct shim_call *c, shim_u64 iters)
{
	shim_u64 i, sum = 0;
	bool call_send;

	if (!shim_check_call(c))
		return 0;
	shim_build_world(&c->world);
	shim_build_qp(c);
	for (i = 0; i < iters; i++) {
		switch (c->fn) {
		case SHIM_FN_HFI1_SETUP_WQE:
			call_send = c->call_send;
			sum += hfi1_setup_wqe(&w.qp, &w.swqe.wqe, &call_send) + call_send;
			break;
		default:
			sum += (unsigned long)qp_to_sdma_engine(&w.qp, c->sc5) +
			       (unsigned long)qp_to_send_context(&w.qp, c->sc5);
			break;
		}
	}
	return sum;
}

/*
 * The callbacks qp.c installs in every QP's iowait are static: the only way
 * to them is the pointers qp_priv_alloc() stores.  Taken once, outside any
 * journal, from a private data block that is freed again.
 */
static void shim_harvest_callbacks(void)
{
	struct hfi1_qp_priv *p;
	struct rvt_qp scratch;

	if (w.cb.wakeup)
		return;
	memset(&scratch, 0, sizeof(scratch));
	p = qp_priv_alloc(&w.dd.verbs_dev.rdi, &scratch);
	if (IS_ERR_OR_NULL(p))
		return;
	w.cb.wakeup = p->s_iowait.wakeup;
	w.cb.sdma_drained = p->s_iowait.sdma_drained;
	w.cb.init_priority = p->s_iowait.init_priority;
	kfree(p->s_ahg);
	kfree(p);
}

shim_u32 shim_abi_version(void)
{
	return SHIM_ABI_VERSION;
}

shim_u64 shim_abi_sizes(void)
{
	return (shim_u64)sizeof(struct shim_call) << 32 | sizeof(struct shim_outcome);
}

/*
 * A call returns with every lock it took released and every RCU read
 * section closed (its caller's are the shim's, balanced around it): what
 * is left open is journalled, as lockdep would complain.
 */
static void shim_check_balance(void)
{
	if (shim_lockdep_depth || shim_rcu_depth)
		journal_printf("UNBALANCED(locks %+d, rcu %+d)", shim_lockdep_depth,
			       shim_rcu_depth);
	shim_lockdep_depth = 0;
	shim_rcu_depth = 0;
}

int shim_run(const struct shim_call *c, struct shim_outcome *out)
{
	struct sdma_engine *sde;
	struct send_context *sc;
	bool call_send;
	int i;

	memset(out, 0, offsetof(struct shim_outcome, text));
	out->text[0] = '\0';
	out->journal_len = 0;
	out->journal[0] = '\0';
	out->sdma_engine = SHIM_NONE;
	out->send_context = SHIM_NONE;
	if (!shim_check_call(c))
		return -1;
	shim_build_world(&c->world);
	if (c->fn >= SHIM_FN_IOWAIT_WAKEUP) {
		w.alloc_fail = 0;
		shim_harvest_callbacks();
		w.alloc_fail = c->world.alloc_fail;
		w.nalloc = 0;
		if (!w.cb.wakeup)
			return -1;
	}
	shim_build_qp(c);
	shim_lockdep_depth = 0;
	shim_rcu_depth = 0;
	journal_begin(out);

	switch (c->fn) {
	case SHIM_FN_HFI1_SETUP_WQE:
		call_send = c->call_send;
		out->ret = hfi1_setup_wqe(&w.qp, &w.swqe.wqe, &call_send);
		out->call_send = call_send;
		break;
	case SHIM_FN_QP_TO_SDMA_ENGINE:
		sde = qp_to_sdma_engine(&w.qp, c->sc5);
		out->sdma_engine = shim_sde_index(sde);
		break;
	case SHIM_FN_QP_TO_SEND_CONTEXT:
		sc = qp_to_send_context(&w.qp, c->sc5);
		out->send_context = shim_sc_index(sc);
		break;
	case SHIM_FN_SDMA_SELECT_ENGINE_SC:
		sde = sdma_select_engine_sc(&w.dd, c->selector, c->sc5);
		out->sdma_engine = shim_sde_index(sde);
		break;
	case SHIM_FN_SDMA_SELECT_ENGINE_VL:
		sde = sdma_select_engine_vl(&w.dd, c->selector, c->vl);
		out->sdma_engine = shim_sde_index(sde);
		break;
	case SHIM_FN_PIO_SELECT_SEND_CONTEXT_SC:
		sc = pio_select_send_context_sc(&w.dd, c->selector, c->sc5);
		out->send_context = shim_sc_index(sc);
		break;
	case SHIM_FN_PIO_SELECT_SEND_CONTEXT_VL:
		sc = pio_select_send_context_vl(&w.dd, c->selector, c->vl);
		out->send_context = shim_sc_index(sc);
		break;
	case SHIM_FN__HFI1_SCHEDULE_SEND:
		out->ret = _hfi1_schedule_send(&w.qp);
		break;
	case SHIM_FN_HFI1_SCHEDULE_SEND:
		/* "caller should hold the s_lock" */
		spin_lock(&w.qp.s_lock);
		out->ret = hfi1_schedule_send(&w.qp);
		spin_unlock(&w.qp.s_lock);
		break;
	case SHIM_FN_QP_ITER_PRINT: {
		struct seq_file sf = { .buf = out->text, .size = sizeof(out->text) };
		struct rvt_qp_iter iter;

		memset(&iter, 0, sizeof(iter));
		iter.qp = &w.qp;
		iter.n = c->arg;
		qp_iter_print(&sf, &iter);
		out->text_len = sf.count < sf.size ? sf.count : sf.size - 1;
		break;
	}
	case SHIM_FN_HFI1_ERROR_PORT_QPS:
		hfi1_error_port_qps(&w.pport[c->qp.port - 1].ibport_data, c->arg);
		break;
	case SHIM_FN_HFI1_QP_UNBUSY:
		hfi1_qp_unbusy(&w.qp, &w.priv.s_iowait.wait[c->arg ? IOWAIT_TID_SE : IOWAIT_IB_SE]);
		break;
	case SHIM_FN_HFI1_QP_WAKEUP:
		hfi1_qp_wakeup(&w.qp, tree_bits(c->arg, s_flag_values, SHIM_S_FLAG_COUNT));
		break;
	case SHIM_FN_NOTIFY_ERROR_QP:
		notify_error_qp(&w.qp);
		/* An RDMA MR's reference, when the QP held one (rvt_put_mr). */
		if (c->qp.rdma_mr_refs.present)
			out->text_len = snprintf(out->text, sizeof(out->text),
						 "s_rdma_mr=%s mr_refs=%ld",
						 w.qp.s_rdma_mr ? "set" : "NULL",
						 (long)atomic64_read(&w.rdma_mr.refcount.count));
		break;
	case SHIM_FN_MTU_TO_PATH_MTU:
		out->ret = mtu_to_path_mtu(c->arg);
		break;
	case SHIM_FN_MTU_FROM_QP:
		out->ret = (s32)mtu_from_qp(&w.dd.verbs_dev.rdi, &w.qp, c->arg);
		break;
	case SHIM_FN_GET_PMTU_FROM_ATTR: {
		struct ib_qp_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.path_mtu = c->arg;
		out->ret = get_pmtu_from_attr(&w.dd.verbs_dev.rdi, &w.qp, &attr);
		break;
	}
	case SHIM_FN_HFI1_CHECK_MODIFY_QP: {
		struct ib_qp_attr attr;
		int mask = 0;

		memset(&attr, 0, sizeof(attr));
		shim_build_remote_ah(&attr.ah_attr, c->attr_ah.sl, 0, c->attr_ah.port_num);
		shim_build_remote_ah(&attr.alt_ah_attr, c->attr_alt_ah.sl, 0,
				     c->attr_alt_ah.port_num);
		if (c->attr_mask & 1)
			mask |= IB_QP_AV;
		if (c->attr_mask & 2)
			mask |= IB_QP_ALT_PATH;
		out->ret = hfi1_check_modify_qp(&w.qp, &attr, mask, NULL);
		break;
	}
	case SHIM_FN_HFI1_MODIFY_QP: {
		struct ib_qp_attr attr;
		int mask = 0;

		memset(&attr, 0, sizeof(attr));
		if (c->attr_mask & 1)
			mask |= IB_QP_AV;
		if (c->attr_mask & 2)
			mask |= IB_QP_ALT_PATH;
		if (c->attr_mask & 4)
			mask |= IB_QP_PATH_MIG_STATE;
		attr.path_mig_state = mig_state_values[c->path_mig_state];
		hfi1_modify_qp(&w.qp, &attr, mask, NULL);
		shim_describe_path(out);
		break;
	}
	case SHIM_FN_HFI1_MIGRATE_QP:
		hfi1_migrate_qp(&w.qp);
		shim_describe_path(out);
		break;
	case SHIM_FN_QP_PRIV_ALLOC: {
		struct hfi1_qp_priv *p = qp_priv_alloc(&w.dd.verbs_dev.rdi, &w.qp);

		shim_check_balance();
		journal_end();
		if (IS_ERR(p)) {
			out->ret = PTR_ERR(p);
		} else {
			shim_describe_priv(out, p);
			kfree(p->s_ahg);
			kfree(p);
		}
		break;
	}
	case SHIM_FN_QP_PRIV_FREE: {
		/* Built with the C library: only qp_priv_free's calls count. */
		struct hfi1_qp_priv *p = calloc(1, sizeof(*p));

		p->s_ahg = calloc(1, sizeof(*p->s_ahg));
		w.qp.priv = p;
		qp_priv_free(&w.dd.verbs_dev.rdi, &w.qp);
		w.qp.priv = &w.priv;
		break;
	}
	case SHIM_FN_FREE_ALL_QPS:
		out->ret = free_all_qps(&w.dd.verbs_dev.rdi);
		break;
	case SHIM_FN_FLUSH_QP_WAITERS:
		spin_lock(&w.qp.s_lock);
		flush_qp_waiters(&w.qp);
		spin_unlock(&w.qp.s_lock);
		break;
	case SHIM_FN_STOP_SEND_QUEUE:
		stop_send_queue(&w.qp);
		break;
	case SHIM_FN_QUIESCE_QP:
		quiesce_qp(&w.qp);
		break;
	case SHIM_FN_NOTIFY_QP_RESET:
		w.qp.r_adefered = 1;
		notify_qp_reset(&w.qp);
		out->text_len = snprintf(out->text, sizeof(out->text),
					 "ahgidx=%d ahgcount=%u r_adefered=%u",
					 w.qp.s_ahgidx, w.ahg.ahgcount, w.qp.r_adefered);
		break;
	case SHIM_FN_IOWAIT_WAKEUP:
		w.cb.wakeup(&w.priv.s_iowait, c->arg);
		break;
	case SHIM_FN_IOWAIT_SDMA_DRAINED:
		w.cb.sdma_drained(&w.priv.s_iowait);
		break;
	case SHIM_FN_HFI1_INIT_PRIORITY:
		w.priv.s_iowait.priority = 0;
		w.cb.init_priority(&w.priv.s_iowait);
		out->ret = w.priv.s_iowait.priority;
		break;
	case SHIM_FN_HFI1_POST_PARMS:
		if (c->arg >= SHIM_WR_OPCODE_COUNT) {
			journal_end();
			return -1;
		}
		shim_describe_post_parms(out, wr_opcode_values[c->arg]);
		break;
	default:
		journal_end();
		return -1;
	}
	shim_check_balance();
	journal_end();
	out->s_flags = symbolic_bits(w.qp.s_flags, s_flag_values, SHIM_S_FLAG_COUNT,
				     &out->s_flags_unknown);
	out->priv_flags = symbolic_bits(w.priv.s_flags, priv_flag_values,
					SHIM_PRIV_FLAG_COUNT, NULL);
	out->iowait_flags = 0;
	for (i = 0; i < SHIM_IOWAIT_FLAG_COUNT; i++)
		if (test_bit(iowait_flag_bits[i], &w.priv.s_iowait.flags))
			out->iowait_flags |= 1u << i;
	return 0;
}

const char *shim_kernel_version(void)
{
	return SHIM_KERNEL_VERSION;
}
