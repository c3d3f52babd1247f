// SPDX-License-Identifier: GPL-2.0
/*
 * waiters.c - the other QPs and iowaits beside the QP on its engine's
 * dmawait list and its send context's piowait list: placed before or
 * after the QP, each initialised by upstream's own code, and read back
 * after the call (on the list or not, its tx request, its place).
 */
#include "state.h"

/*
 * The wakeup of the other waiters: records, decides nothing (the waiter
 * would be scheduled; its queue is not the world's).
 */
static void shim_waiter_wakeup(struct iowait *w, int reason)
{
	if (reason == SDMA_AVAIL_REASON)
		journal_printf("wakeup(%s, SDMA_AVAIL_REASON)", jp(w));
	else
		journal_printf("wakeup(%s, %d)", jp(w), reason);
}

/*
 * The other waiters placed before the QP on its engine's dmawait list
 * (after: those after it), in order, each initialised by upstream's own
 * iowait_init(): a recording wakeup, no init_priority (as user SDMA's
 * packet queues), a tx request on its IB leg when it needs descriptors.
 */
void shim_build_waiters(const struct shim_qp *q, bool after)
{
	unsigned int i;

	shim_w.nwaiters = q->waiters.n;
	for (i = 0; i < q->waiters.n; i++) {
		const struct shim_waiter *sw = &q->waiters.v[i];
		struct iowait *w = &shim_w.waiter[i];
		struct sdma_txreq *tx = &shim_w.waiter_tx[i];

		if (!!sw->after_qp != after)
			continue;
		memset(w, 0, sizeof(*w));
		memset(tx, 0, sizeof(*tx));
		iowait_init(w, 1, NULL, NULL, NULL, shim_waiter_wakeup, NULL, NULL);
		w->priority = sw->priority;
		w->starved_cnt = sw->starved_cnt;
		tx->num_desc = sw->num_desc;
		if (sw->num_desc)
			list_add_tail(&tx->list, &w->wait[IOWAIT_IB_SE].tx_head);
		if (sw->on_list) {
			list_add_tail(&w->list, &shim_sde(q->s_sde)->dmawait);
			w->lock = &shim_sde(q->s_sde)->waitlock;
		}
	}
}

/*
 * The other QPs placed before the QP on its send context's piowait list
 * (after: those after it), in order: each its own rvt_qp on the QP's
 * port and private data, its iowait from upstream's iowait_init() with
 * qp.c's callbacks, no engine, no queued tx request.
 */
void shim_build_pio_waiters(const struct shim_qp *q, bool after)
{
	unsigned int i, k;

	shim_w.npio = q->pio_waiters.n;
	for (i = 0; i < q->pio_waiters.n; i++) {
		const struct shim_pio_waiter *pw = &q->pio_waiters.v[i];
		struct rvt_qp *qp = &shim_w.pqp[i];
		struct hfi1_qp_priv *priv = &shim_w.ppriv[i];

		if (!!pw->after_qp != after)
			continue;
		memset(qp, 0, sizeof(*qp));
		memset(priv, 0, sizeof(*priv));
		qp->ibqp.device = &shim_w.dd.verbs_dev.rdi.ibdev;
		qp->ibqp.qp_type = IB_QPT_RC;
		qp->ibqp.qp_num = pw->num;
		qp->port_num = q->port;
		qp->s_flags = tree_bits(pw->s_flags, &shim_s_flags);
		qp->priv = priv;
		atomic_set(&qp->refcount, pw->refcount);
		init_waitqueue_head(&qp->wait);
		spin_lock_init(&qp->s_lock);
		priv->owner = qp;
		iowait_init(&priv->s_iowait, 1, _hfi1_do_send, _hfi1_do_tid_send,
			    shim_w.cb.sleep, shim_w.cb.wakeup, shim_w.cb.sdma_drained,
			    shim_w.cb.init_priority);
		priv->s_iowait.priority = pw->priority;
		priv->s_iowait.starved_cnt = pw->starved_cnt;
		priv->s_flags = tree_bits(pw->priv_flags, &shim_priv_flags);
		for (k = 0; k < SHIM_IOWAIT_FLAG_COUNT; k++)
			if (pw->iowait_flags & (1u << k))
				set_bit(iowait_flag_bits[k], &priv->s_iowait.flags);
		if (pw->on_list) {
			list_add_tail(&priv->s_iowait.list,
				      &shim_sc(q->s_sendcontext)->piowait);
			priv->s_iowait.lock = &shim_sc(q->s_sendcontext)->waitlock;
		}
	}
}

/* The other QPs on the piowait list as the call left them. */
void shim_read_pio_waiters(struct shim_qp *q, const struct shim_qp *in)
{
	unsigned int i, k;

	q->pio_waiters.n = in->pio_waiters.n;
	for (i = 0; i < SHIM_MAX_PIO_WAITERS; i++) {
		struct shim_pio_waiter *pw = &q->pio_waiters.v[i];
		struct rvt_qp *qp = &shim_w.pqp[i];
		struct hfi1_qp_priv *priv = &shim_w.ppriv[i];

		memset(pw, 0, sizeof(*pw));
		if (i >= in->pio_waiters.n)
			continue;
		pw->num = qp->ibqp.qp_num;
		pw->s_flags = symbolic_bits(qp->s_flags, &shim_s_flags, NULL);
		pw->priv_flags = symbolic_bits(priv->s_flags, &shim_priv_flags, NULL);
		for (k = 0; k < SHIM_IOWAIT_FLAG_COUNT; k++)
			if (test_bit(iowait_flag_bits[k], &priv->s_iowait.flags))
				pw->iowait_flags |= 1u << k;
		pw->refcount = atomic_read(&qp->refcount);
		pw->priority = priv->s_iowait.priority;
		pw->starved_cnt = priv->s_iowait.starved_cnt;
		pw->after_qp = in->pio_waiters.v[i].after_qp;
		pw->on_list = !list_empty(&priv->s_iowait.list);
	}
}

/* The other waiters as the call left them. */
void shim_read_waiters(struct shim_qp *q, const struct shim_qp *in)
{
	unsigned int i;

	q->waiters.n = in->waiters.n;
	for (i = 0; i < SHIM_MAX_WAITERS; i++) {
		struct shim_waiter *sw = &q->waiters.v[i];
		struct iowait *w = &shim_w.waiter[i];

		memset(sw, 0, sizeof(*sw));
		if (i >= in->waiters.n)
			continue;
		sw->priority = w->priority;
		sw->starved_cnt = w->starved_cnt;
		sw->num_desc = shim_w.waiter_tx[i].num_desc;
		sw->after_qp = in->waiters.v[i].after_qp;
		sw->on_list = !list_empty(&w->list);
	}
}
