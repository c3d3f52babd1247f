// SPDX-License-Identifier: GPL-2.0
/*
 * query.c - what the mocks may ask of the world (world.h): the answers the
 * vector chose for the boundary, and names of the world's objects.
 */
#include "state.h"

bool shim_chip_bx(void)
{
	return shim_w.sw->chip_bx;
}

u32 shim_ns_to_cclock(void)
{
	return shim_w.sw->ns_to_cclock;
}

bool shim_queue_work_ret(void)
{
	return shim_w.queue_work_ret;
}

bool shim_tid_send_ret(void)
{
	return shim_w.tid_send_ret;
}

bool shim_cancel_work_ret(void)
{
	return shim_w.cancel_work_ret;
}

int shim_iter_count(void)
{
	return shim_w.niter;
}

struct rvt_qp *shim_iter_qp(int i)
{
	return &shim_w.iqp[i];
}

int shim_error_qp_ret(const struct rvt_qp *qp)
{
	if (qp >= shim_w.iqp && qp < shim_w.iqp + SHIM_MAX_ITER_QPS)
		return shim_w.error_qp_ret[qp - shim_w.iqp];
	return 0;
}

/* Maps a pointer back to the world's index for it. */
int shim_sde_index(const struct sdma_engine *sde)
{
	if (!sde)
		return SHIM_NONE;
	/* An engine's own address only: a pointer into one is foreign. */
	if (sde >= shim_w.per_sdma && sde < shim_w.per_sdma + SHIM_MAX_SDMA &&
	    ((const char *)sde - (const char *)shim_w.per_sdma) % sizeof(*sde) == 0)
		return ((const char *)sde - (const char *)shim_w.per_sdma) / sizeof(*sde);
	return SHIM_FOREIGN;
}

int shim_sc_index(const struct send_context *sc)
{
	if (!sc)
		return SHIM_NONE;
	if (sc >= shim_w.sc && sc < shim_w.sc + SHIM_MAX_SEND_CONTEXTS &&
	    ((const char *)sc - (const char *)shim_w.sc) % sizeof(*sc) == 0)
		return ((const char *)sc - (const char *)shim_w.sc) / sizeof(*sc);
	return SHIM_FOREIGN;
}

/*
 * A lock's name for lockdep's lines: an engine's or a send context's lock
 * by its field (several live in one object), any other as its pointer's.
 */
int shim_lock_name(const void *p, char *buf, size_t len)
{
	int i;

#define SHIM_LOCK_FIELD(obj, field, fmt)				\
	if (p == &(obj).field || p == (const void *)&(obj).field + sizeof((obj).field) - \
					      sizeof(spinlock_t))		\
		return snprintf(buf, len, fmt "." #field, i);
	for (i = 0; i < SHIM_MAX_SDMA; i++) {
		SHIM_LOCK_FIELD(shim_w.per_sdma[i], senddmactrl_lock, "sde#%d")
		SHIM_LOCK_FIELD(shim_w.per_sdma[i], tail_lock, "sde#%d")
		SHIM_LOCK_FIELD(shim_w.per_sdma[i], head_lock, "sde#%d")
		SHIM_LOCK_FIELD(shim_w.per_sdma[i], waitlock, "sde#%d")
		SHIM_LOCK_FIELD(shim_w.per_sdma[i], flushlist_lock, "sde#%d")
	}
	for (i = 0; i < SHIM_MAX_SEND_CONTEXTS; i++) {
		SHIM_LOCK_FIELD(shim_w.sc[i], alloc_lock, "sc#%d")
		SHIM_LOCK_FIELD(shim_w.sc[i], release_lock, "sc#%d")
		SHIM_LOCK_FIELD(shim_w.sc[i], waitlock, "sc#%d")
		SHIM_LOCK_FIELD(shim_w.sc[i], credit_ctrl_lock, "sc#%d")
	}
#undef SHIM_LOCK_FIELD
	return shim_ptr_name(p, buf, len);
}

int shim_ptr_name(const void *p, char *buf, size_t len)
{
	int i;

	if (!p)
		return snprintf(buf, len, "(null)");
	i = shim_sde_index(p);
	if (i >= 0)
		return snprintf(buf, len, "sde#%d", i);
	if (p >= (void *)shim_w.sc && p < (void *)(shim_w.sc + SHIM_MAX_SEND_CONTEXTS)) {
		i = ((const char *)p - (const char *)shim_w.sc) / sizeof(shim_w.sc[0]);
		if (p == &shim_w.sc[i].halt_wait)
			return snprintf(buf, len, "sc#%d.halt_wait", i);
	}
	i = shim_sc_index(p);
	if (i >= 0)
		return snprintf(buf, len, "sc#%d", i);
	/* Inside an engine or a context (one of its locks): named by it. */
	if (p >= (void *)shim_w.per_sdma && p < (void *)(shim_w.per_sdma + SHIM_MAX_SDMA)) {
		i = ((const char *)p - (const char *)shim_w.per_sdma) / sizeof(shim_w.per_sdma[0]);
#define SHIM_SDE_MEMBER(m)						\
		if (p == &shim_w.per_sdma[i].m)					\
			return snprintf(buf, len, "sde#%d." #m, i);
		SHIM_SDE_MEMBER(flush_worker)
		SHIM_SDE_MEMBER(err_halt_worker)
		SHIM_SDE_MEMBER(err_progress_check_timer)
		SHIM_SDE_MEMBER(sdma_hw_clean_up_task)
		SHIM_SDE_MEMBER(sdma_sw_clean_up_task)
#undef SHIM_SDE_MEMBER
		return snprintf(buf, len, "sde#%d", i);
	}
	if (p >= (void *)shim_w.sc && p < (void *)(shim_w.sc + SHIM_MAX_SEND_CONTEXTS))
		return snprintf(buf, len, "sc#%d",
				(int)(((const char *)p - (const char *)shim_w.sc) / sizeof(shim_w.sc[0])));
	if (p == &shim_w.qp || p == &shim_w.qp.ibqp)
		return snprintf(buf, len, "qp#0x%x", shim_w.qp.ibqp.qp_num);
	for (i = 0; i < shim_w.niter; i++)
		if (p == &shim_w.iqp[i] || p == &shim_w.iqp[i].ibqp)
			return snprintf(buf, len, "qp#0x%x", shim_w.iqp[i].ibqp.qp_num);
	for (i = 0; i < shim_w.nwaiters; i++)
		if (p == &shim_w.waiter[i])
			return snprintf(buf, len, "waiter#%d", i);
	/*
	 * The other QPs of a piowait list, named as the QP's members are
	 * (their work "iowork:IB" as its: the journal's qp# before says whose).
	 */
	for (i = 0; i < shim_w.npio; i++) {
		const struct rvt_qp *pq = &shim_w.pqp[i];
		const struct hfi1_qp_priv *pp = &shim_w.ppriv[i];

		if (p == pq || p == &pq->ibqp)
			return snprintf(buf, len, "qp#0x%x", pq->ibqp.qp_num);
		if (p == &pq->s_lock)
			return snprintf(buf, len, "s_lock#0x%x", pq->ibqp.qp_num);
		if (p == &pq->wait)
			return snprintf(buf, len, "qp-wait#0x%x", pq->ibqp.qp_num);
		if (p == &pp->s_iowait)
			return snprintf(buf, len, "iowait#0x%x", pq->ibqp.qp_num);
		if (p == &pp->s_iowait.wait[IOWAIT_IB_SE].iowork)
			return snprintf(buf, len, "iowork:IB");
		if (p == &pp->s_iowait.wait[IOWAIT_TID_SE].iowork)
			return snprintf(buf, len, "iowork:TID");
	}
	if (p == &shim_w.qp.s_lock)
		return snprintf(buf, len, "s_lock#0x%x", shim_w.qp.ibqp.qp_num);
	if (p == &shim_w.qp.wait)
		return snprintf(buf, len, "qp-wait#0x%x", shim_w.qp.ibqp.qp_num);
	if (p == &shim_w.ib_tx ||
	    (p >= (void *)shim_w.more_tx[0] && p < (void *)shim_w.more_tx[1]))
		return snprintf(buf, len, "txreq:IB");
	if (p >= (void *)shim_w.more_tx[1] && p < (void *)(shim_w.more_tx + 2))
		return snprintf(buf, len, "txreq:TID");
	if (p == &shim_w.tid_tx)
		return snprintf(buf, len, "txreq:TID");
	/* A tx iowait_sleep() was given is named by the leg it was for. */
	if (p >= (void *)shim_w.sleep_tx && p < (void *)(shim_w.sleep_tx + SHIM_MAX_SLEEP_TX))
		return snprintf(buf, len, "txreq:%s",
				shim_w.sleep_tid[(struct verbs_txreq *)p - shim_w.sleep_tx] ?
				"TID" : "IB");
	if (p == &shim_w.priv.tid_rdma.trigger_work)
		return snprintf(buf, len, "tid-trigger-work");
	if (p == &shim_w.priv.s_iowait)
		return snprintf(buf, len, "iowait#0x%x", shim_w.qp.ibqp.qp_num);
	i = shim_btx_name(p, buf, len);
	if (i >= 0)
		return i;
	if (shim_w.sdma_map_heap && p == &shim_w.sdma_map_heap->list)
		return snprintf(buf, len, "sdma_map.list");
	if (shim_w.pio_map_heap && p == &shim_w.pio_map_heap->list)
		return snprintf(buf, len, "pio_map.list");
	if (p == &shim_w.past_sc)
		return snprintf(buf, len, "sc:past-the-table");
	if (p == &shim_w.queue)
		return snprintf(buf, len, "queue");
	if (p == &shim_w.queue.wait[IOWAIT_IB_SE])
		return snprintf(buf, len, "queue.ib");
	if (p == &shim_w.queue.wait_dma)
		return snprintf(buf, len, "queue.wait_dma");
	if (p == &shim_w.queue.wait_pio)
		return snprintf(buf, len, "queue.wait_pio");
	if (p == &shim_w.priv.s_iowait.wait_dma)
		return snprintf(buf, len, "wait_dma");
	if (p == &shim_w.priv.s_iowait.wait_pio)
		return snprintf(buf, len, "wait_pio");
	if (p == &shim_w.swqe.wqe)
		return snprintf(buf, len, "wqe");
	if (p == shim_w.wq)
		return snprintf(buf, len, "wq:hfi1");
	if (p == system_highpri_wq)
		return snprintf(buf, len, "wq:highpri");
	if (p == system_wq)
		return snprintf(buf, len, "wq:system");
	if (p == system_bh_wq)
		return snprintf(buf, len, "wq:bh");
	if (p == system_bh_highpri_wq)
		return snprintf(buf, len, "wq:bh-highpri");
	if (p == &shim_w.dd.sdma_unfreeze_wq)
		return snprintf(buf, len, "sdma-unfreeze-wq");
	for (i = 0; i < SHIM_MAX_SR; i++)
		if (p == &shim_w.sr[i])
			return snprintf(buf, len, "sr#%d", i);
	if (p == shim_w.pport[0].link_wq)
		return snprintf(buf, len, "wq:link");
	if (p == &shim_w.pport[0].link_bounce_work)
		return snprintf(buf, len, "link-bounce-work");
	if (p == &shim_w.dd)
		return snprintf(buf, len, "dd");
	if (p == &shim_w.dd.pio_map)
		return snprintf(buf, len, "dd.pio_map");
	if (p == &shim_w.dd.sdma_map)
		return snprintf(buf, len, "dd.sdma_map");
	if (p == &shim_w.priv.s_iowait.wait[IOWAIT_IB_SE].iowork)
		return snprintf(buf, len, "iowork:IB");
	if (p == &shim_w.priv.s_iowait.wait[IOWAIT_TID_SE].iowork)
		return snprintf(buf, len, "iowork:TID");
	if (p == &shim_w.node_mask)
		return snprintf(buf, len, "cpumask:node%d", shim_w.dd.node);
	i = shim_dtx_name(p, buf, len);
	if (i >= 0)
		return i;
	i = shim_new_sc_name(p, buf, len);
	if (i >= 0)
		return i;
	i = shim_new_sde_name(p, buf, len);
	if (i >= 0)
		return i;
	return snprintf(buf, len, "ptr:foreign");
}

const void *const *shim_rcu_world_slots(void)
{
	static const void *const slots[] = {
		&shim_w.dd.pio_map, &shim_w.dd.sdma_map, NULL,
	};

	return slots;
}

bool shim_in_world_data(const void *p)
{
	return p >= (const void *)&shim_w && p < (const void *)(&shim_w + 1);
}

/*
 * The device's node has the world's CPUs (node_cpus); another online node
 * one CPU if the world says it has any (cpu_nodes), none otherwise; a node
 * not online is none of the world's.
 */
const struct cpumask *shim_node_mask(int node)
{
	static const struct cpumask none, one = { .bits = { 1 } };

	if (node == shim_w.dd.node)
		return &shim_w.node_mask;
	if (node < 0 || node >= MAX_NUMNODES || !(shim_w.sw->online_nodes & (1u << node)))
		return NULL;
	return shim_w.sw->cpu_nodes & (1u << node) ? &one : &none;
}

/* Entry i of a per-index field of the world (a send context's, an engine's; 0 when not set). */
#define SHIM_PER_SC(f, i) ({						\
	u64 __v = 0;							\
	unsigned int __k;						\
	for (__k = 0; __k < shim_w.sw->f.n; __k++)			\
		if (shim_w.sw->f.idx[__k] == (i))			\
			__v = shim_w.sw->f.val[__k];			\
	__v;								\
})

/* The lowest send context of the world on hardware context hw, or -1. */
static int shim_sc_of_hw(u32 hw)
{
	unsigned int i;

	for (i = 0; i < shim_w.nsc; i++)
		if (shim_w.sc[i].hw_context == hw)
			return i;
	return -1;
}

/*
 * The per-context registers the world sets: the context's at its
 * hw_context (0x100 apart, chip.h's *_kctxt_csr(); the egress status 8
 * apart); contexts sharing a hardware context read the lowest's.
 */
u64 shim_csr_value(u32 offset)
{
	int sc;

	/* Every engine's head CSR reads the QP's engine's (as its ring's fields). */
	if (offset >= SEND_DMA_HEAD && (offset - SEND_DMA_HEAD) % 0x100 == 0 &&
	    (offset - SEND_DMA_HEAD) / 0x100 < (u32)shim_w.dd.num_sdma)
		return shim_w.head_csr;

	/* Each engine's egress status (before the contexts', whose 256 reach it). */
	if (offset >= SEND_EGRESS_SEND_DMA_STATUS && (offset - SEND_EGRESS_SEND_DMA_STATUS) % 8 == 0 &&
	    (offset - SEND_EGRESS_SEND_DMA_STATUS) / 8 < (u32)shim_w.dd.num_sdma)
		return SHIM_PER_SC(sde_egress_csr, (offset - SEND_EGRESS_SEND_DMA_STATUS) / 8);
	if (offset >= SEND_EGRESS_CTXT_STATUS && (offset - SEND_EGRESS_CTXT_STATUS) % 8 == 0 &&
	    (offset - SEND_EGRESS_CTXT_STATUS) / 8 < 256) {
		sc = shim_sc_of_hw((offset - SEND_EGRESS_CTXT_STATUS) / 8);
		return sc < 0 ? 0 : SHIM_PER_SC(sc_egress_csr, sc);
	}
	if (offset >= SEND_CTXT_CTRL && (offset - SEND_CTXT_CTRL) % 0x100 == 0 &&
	    (offset - SEND_CTXT_CTRL) / 0x100 < 256) {
		sc = shim_sc_of_hw((offset - SEND_CTXT_CTRL) / 0x100);
		return sc < 0 ? 0 : SHIM_PER_SC(sc_ctrl_csr, sc);
	}
	if (offset >= SEND_CTXT_ERR_STATUS && (offset - SEND_CTXT_ERR_STATUS) % 0x100 == 0 &&
	    (offset - SEND_CTXT_ERR_STATUS) / 0x100 < 256) {
		sc = shim_sc_of_hw((offset - SEND_CTXT_ERR_STATUS) / 0x100);
		return sc < 0 ? 0 : SHIM_PER_SC(sc_err_csr, sc);
	}
	/* Every engine's status reads the world's one value. */
	if (offset >= SEND_DMA_STATUS && (offset - SEND_DMA_STATUS) % 0x100 == 0 &&
	    (offset - SEND_DMA_STATUS) / 0x100 < (u32)shim_w.dd.num_sdma)
		return shim_w.sw->sdma_status_csr;
	if (offset == SEND_PIO_INIT_CTXT)
		return shim_w.sw->pio_init_csr;
	if (offset == SEND_CTRL)
		return shim_w.sw->send_ctrl_csr;
	if (offset == SEND_CONTEXTS)
		return shim_w.sw->chip_send_contexts;
	if (offset == SEND_PIO_MEM_SIZE)
		return shim_w.sw->pio_mem_size;
	if (offset == SEND_DMA_ENGINES)
		return shim_w.sw->chip_sdma_engines;
	if (offset == SEND_DMA_MEM_SIZE)
		return shim_w.sw->chip_sdma_mem_size;
	if (offset >= SEND_CTXT_CREDIT_STATUS && (offset - SEND_CTXT_CREDIT_STATUS) % 0x100 == 0 &&
	    (offset - SEND_CTXT_CREDIT_STATUS) / 0x100 < 256) {
		sc = shim_sc_of_hw((offset - SEND_CTXT_CREDIT_STATUS) / 0x100);
		return sc < 0 ? 0 : SHIM_PER_SC(sc_credit_status_csr, sc);
	}
	if (offset >= SEND_CTXT_STATUS && (offset - SEND_CTXT_STATUS) % 0x100 == 0 &&
	    (offset - SEND_CTXT_STATUS) / 0x100 < 256) {
		sc = shim_sc_of_hw((offset - SEND_CTXT_STATUS) / 0x100);
		return sc < 0 ? 0 : SHIM_PER_SC(sc_status_csr, sc);
	}
	return 0;
}

bool shim_alloc_fails(void)
{
	return shim_w.alloc_fail & (1ull << (shim_w.nalloc++ & 63));
}
