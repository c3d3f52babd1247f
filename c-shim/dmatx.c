// SPDX-License-Identifier: GPL-2.0
/*
 * dmatx.c - the tx requests of the QP's engine: those in its tx ring from
 * tx_head on and those on its flush list, built from the QP's fields
 * before a call and read back after it.  A request's descriptors hold
 * symbolic DMA addresses (nothing is mapped: the unmap is recorded), its
 * coalesce buffer and allocated descriptor array are tracked blocks of
 * the world, its callback and its descriptors' ctx_put record and decide
 * nothing.  So do the caller's list sdma_send_txlist() is given and the
 * packet queue whose iowait such a caller passes.  Only a ring of at most SHIM_MAX_TX_RING descriptors (a power
 * of two) holds requests, in slots of its own, cleared after a call that
 * had them; every other ring is build.c's shim_no_tx, NULL throughout.
 */
#include "state.h"

/*
 * The callback of a request's owner (verbs or user SDMA, whose completion
 * is not the world's): records the status and the request as its owner
 * sees it, decides nothing.
 */
static void shim_dtx_complete(struct sdma_txreq *tx, int status)
{
	const char *name;
	char num[16];

	switch (status) {
	case SDMA_TXREQ_S_OK:
		name = "SDMA_TXREQ_S_OK";
		break;
	case SDMA_TXREQ_S_SENDERROR:
		name = "SDMA_TXREQ_S_SENDERROR";
		break;
	case SDMA_TXREQ_S_ABORTED:
		name = "SDMA_TXREQ_S_ABORTED";
		break;
	case SDMA_TXREQ_S_SHUTDOWN:
		name = "SDMA_TXREQ_S_SHUTDOWN";
		break;
	default:
		snprintf(num, sizeof(num), "%d", status);
		name = num;
		break;
	}
	journal_printf("sdma_complete(%s, %s) num_desc=%u desc_limit=%u coalesce_buf=%s",
		       jp(tx), name, tx->num_desc, tx->desc_limit,
		       tx->coalesce_buf ? "set" : "NULL");
}

/* A descriptor's pinning context released: records (its pages are not the world's). */
void shim_ctx_put(void *ctx)
{
	journal_printf("ctx_put(%s)", jp(ctx));
}

/* The storage of request k of the ring (k) or the flush list (SHIM_MAX_DMA_TX + k). */
static void shim_build_tx(unsigned int k, const struct shim_dma_tx *d)
{
	struct sdma_txreq *tx = &shim_w.dtx[k].txreq;
	struct sdma_desc *descp = tx->descs;
	u16 i;

	shim_w.dtx_id[k] = d->id;
	shim_w.dtx[k].qp = &shim_w.qp;
	INIT_LIST_HEAD(&tx->list);
	tx->desc_limit = ARRAY_SIZE(tx->descs);
	/* As _extend_sdma_tx_descs() leaves it: MAX_DESC descriptors. */
	if (d->ext) {
		descp = shim_alloc_tracked(MAX_DESC * sizeof(*descp), "descp");
		if (descp)
			tx->desc_limit = MAX_DESC;
		else
			descp = tx->descs;
	}
	tx->descp = descp;
	/* No more than the array holds (only a failed allocation makes it less). */
	tx->num_desc = min_t(u16, d->num_desc, tx->desc_limit);
	tx->next_descq_idx = d->next_descq_idx;
	tx->coalesce_buf = d->coalesce ? shim_alloc_tracked(64, "coalesce_buf") : NULL;
	tx->complete = d->complete ? shim_dtx_complete : NULL;
	tx->wait = d->wait == 1 ? &shim_w.priv.s_iowait : d->wait == 2 ? &shim_w.queue : NULL;
	descp[0].qw[1] = ((u64)d->mode & SDMA_DESC1_HEADER_MODE_MASK) <<
			 SDMA_DESC1_HEADER_MODE_SHIFT;
	for (i = 0; i < tx->num_desc; i++) {
		u64 addr = ((u64)d->id + 1) << 16 | (u64)i << 12;
		u64 len = 64 * ((u64)i + 1);

		descp[i].qw[0] = (addr & SDMA_DESC0_PHY_ADDR_MASK) << SDMA_DESC0_PHY_ADDR_SHIFT |
				 (len & SDMA_DESC0_BYTE_COUNT_MASK) << SDMA_DESC0_BYTE_COUNT_SHIFT;
		descp[i].qw[1] |= ((u64)(d->map >> (2 * i)) & SDMA_DESC1_GENERATION_MASK) <<
				  SDMA_DESC1_GENERATION_SHIFT;
		if (d->pinned & (1u << i)) {
			descp[i].pinning_ctx = &descp[i];
			descp[i].ctx_put = shim_ctx_put;
		}
	}
}

/* A ring that holds requests in the world's own slots. */
bool shim_tx_ring_own(u16 descq_cnt)
{
	return is_power_of_2(descq_cnt) && descq_cnt <= SHIM_MAX_TX_RING;
}

/* A descriptor count the request's array holds, no mapping or pinning past it. */
static bool shim_check_tx(const struct shim_dma_tx *d)
{
	unsigned int lim = d->ext ? SHIM_MAX_TX_DESC : NUM_DESC;

	return d->num_desc <= lim && d->mode <= 7 && !(d->map >> (2 * d->num_desc)) &&
	       !(d->pinned >> d->num_desc) && d->wait <= 2;
}

/* A send's request, to the QP's engine, whose ring the world holds. */
bool shim_check_send_tx(const struct shim_qp *q, const struct shim_dma_tx *d)
{
	return q->s_sde != SHIM_NONE && shim_tx_ring_own(q->sde_descq_cnt) && shim_check_tx(d);
}

/*
 * Requests sit only on the QP's engine (it has one), in a ring that can
 * hold them, from the head to the tail; each one's descriptors its own.
 */
bool shim_check_dma_tx(const struct shim_qp *q)
{
	unsigned int k;

	if (q->sde_tx_ring.n > SHIM_MAX_DMA_TX || q->sde_flushlist.n > SHIM_MAX_DMA_TX ||
	    q->txlist.n > SHIM_MAX_DMA_TX || q->sde_tx_stray)
		return false;
	if ((q->sde_tx_ring.n || q->sde_flushlist.n || q->txlist.n) && q->s_sde == SHIM_NONE)
		return false;
	if (q->sde_tx_ring.n && (!shim_tx_ring_own(q->sde_descq_cnt) ||
				 q->sde_tx_ring.n > q->sde_descq_cnt))
		return false;
	if ((u16)(q->sde_tx_head + q->sde_tx_ring.n) != q->sde_tx_tail)
		return false;
	/* Descriptors in a ring that holds them, in slot order, not both 0. */
	if (q->sde_descq.n > SHIM_MAX_DESCQ ||
	    (q->sde_descq.n && (q->s_sde == SHIM_NONE || !shim_tx_ring_own(q->sde_descq_cnt))))
		return false;
	for (k = 0; k < q->sde_descq.n; k++) {
		const struct shim_descq_entry *e = &q->sde_descq.v[k];

		if (e->idx >= q->sde_descq_cnt || !(e->qw0 | e->qw1) ||
		    (k && e->idx <= q->sde_descq.v[k - 1].idx))
			return false;
	}
	for (k = 0; k < SHIM_MAX_DMA_TX; k++)
		if (!shim_check_tx(&q->sde_tx_ring.v[k]) || !shim_check_tx(&q->sde_flushlist.v[k]) ||
		    !shim_check_tx(&q->txlist.v[k]))
			return false;
	return q->queue_sleep <= 1;
}

/*
 * The packet queue's sleep (user SDMA's and ipoib's are not the world's):
 * records its arguments; -EAGAIN while the queue's budget lasts, then
 * -EBUSY.  It queues nothing.
 */
static int shim_queue_sleep(struct sdma_engine *sde, struct iowait_work *wait,
			    struct sdma_txreq *tx, uint seq, bool pkts_sent)
{
	int ret = -EBUSY;

	if (shim_w.queue_eagain) {
		shim_w.queue_eagain--;
		ret = -EAGAIN;
	}
	journal_printf("sleep(%s, %s, %s, %u, %s) = %s", jp(sde), jp(wait), jp(tx), seq,
		       pkts_sent ? "true" : "false", ret == -EAGAIN ? "-EAGAIN" : "-EBUSY");
	return ret;
}

/*
 * The packet queue: upstream's iowait_init() with the recording sleep (if
 * the world gives it one), no other callback (it is on no list: nothing
 * wakes it), and its counts.
 */
static void shim_build_queue(const struct shim_qp *q)
{
	struct iowait *w = &shim_w.queue;

	iowait_init(w, 0, NULL, NULL, q->queue_sleep ? shim_queue_sleep : NULL, NULL, NULL, NULL);
	atomic_set(&w->sdma_busy, q->queue_sdma_busy);
	w->starved_cnt = q->queue_starved_cnt;
	w->count = q->queue_count;
	w->tx_count = q->queue_tx_count;
	shim_w.queue_eagain = q->queue_sleep_eagain;
}

void shim_build_dma_tx(const struct shim_qp *q)
{
	struct sdma_engine *sde;
	unsigned int k;

	if (shim_w.dtx_used) {
		memset(shim_w.dtx, 0, sizeof(shim_w.dtx));
		memset(shim_w.tx_ring, 0, sizeof(shim_w.tx_ring));
		memset(shim_w.descq, 0, sizeof(shim_w.descq));
		shim_w.dtx_used = false;
	}
	shim_w.ndtx_sent = 0;
	memset(shim_w.dtx_leg, 0, sizeof(shim_w.dtx_leg));
	shim_build_queue(q);
	INIT_LIST_HEAD(&shim_w.txlist);
	if (q->s_sde == SHIM_NONE)
		return;
	sde = shim_sde(q->s_sde);
	sde->tx_head = q->sde_tx_head;
	sde->tx_tail = q->sde_tx_tail;
	if (shim_tx_ring_own(q->sde_descq_cnt)) {
		sde->tx_ring = shim_w.tx_ring;
		sde->descq = shim_w.descq;
		shim_w.dtx_used = true;
	}
	for (k = 0; k < q->sde_descq.n; k++) {
		shim_w.descq[q->sde_descq.v[k].idx].qw[0] = cpu_to_le64(q->sde_descq.v[k].qw0);
		shim_w.descq[q->sde_descq.v[k].idx].qw[1] = cpu_to_le64(q->sde_descq.v[k].qw1);
	}
	for (k = 0; k < q->sde_tx_ring.n; k++) {
		shim_build_tx(k, &q->sde_tx_ring.v[k]);
		shim_w.tx_ring[(q->sde_tx_head + k) & sde->sdma_mask] = &shim_w.dtx[k].txreq;
	}
	for (k = 0; k < q->sde_flushlist.n; k++) {
		shim_build_tx(SHIM_MAX_DMA_TX + k, &q->sde_flushlist.v[k]);
		list_add_tail(&shim_w.dtx[SHIM_MAX_DMA_TX + k].txreq.list, &sde->flushlist);
	}
	for (k = 0; k < q->txlist.n; k++) {
		shim_build_tx(SHIM_DTX_LIST + k, &q->txlist.v[k]);
		list_add_tail(&shim_w.dtx[SHIM_DTX_LIST + k].txreq.list, &shim_w.txlist);
	}
	if (q->sde_flushlist.n || q->txlist.n)
		shim_w.dtx_used = true;
}

/*
 * A send's new request (from a scenario's SHIM_MAX_SEND_TX): built as the
 * ring's are, the bytes it lacks, its callback; NULL when the scenario
 * has had them all.
 */
struct sdma_txreq *shim_send_tx(const struct shim_dma_tx *d, u16 tlen)
{
	unsigned int k = SHIM_DTX_SENT + shim_w.ndtx_sent;

	if (shim_w.ndtx_sent == SHIM_MAX_SEND_TX)
		return NULL;
	shim_w.ndtx_sent++;
	shim_w.dtx_used = true;
	shim_build_tx(k, d);
	shim_w.dtx[k].txreq.tlen = tlen;
	return &shim_w.dtx[k].txreq;
}

/* The storage index of a request of the world, or -1. */
static int shim_dtx_index(const void *tx)
{
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(shim_w.dtx); k++)
		if (tx == &shim_w.dtx[k].txreq)
			return k;
	return -1;
}

/* Whether tx is queued on a leg's list of the QP's iowait. */
static bool shim_on_leg(const struct sdma_txreq *tx, int leg)
{
	const struct list_head *head = &shim_w.priv.s_iowait.wait[leg].tx_head, *pos;
	unsigned int steps = 0;

	for (pos = head->next; pos != head && steps++ < 16; pos = pos->next)
		if (pos == &tx->list)
			return true;
	return false;
}

/* A send's request k found queued on a leg: named by the leg from now on. */
static void shim_mark_leg(unsigned int k)
{
	const struct sdma_txreq *tx = &shim_w.dtx[SHIM_DTX_SENT + k].txreq;

	if (!shim_w.dtx_leg[k] && shim_on_leg(tx, IOWAIT_IB_SE))
		shim_w.dtx_leg[k] = 1 + IOWAIT_IB_SE;
	if (!shim_w.dtx_leg[k] && shim_on_leg(tx, IOWAIT_TID_SE))
		shim_w.dtx_leg[k] = 1 + IOWAIT_TID_SE;
}

/* A request of the world as the call left it; false for anything else. */
static bool shim_read_tx(const struct sdma_txreq *tx, struct shim_dma_tx *o)
{
	const struct sdma_desc *descp = tx->descp;
	unsigned int i, n;
	int k = shim_dtx_index(tx);

	if (k < 0)
		return false;
	memset(o, 0, sizeof(*o));
	o->id = shim_w.dtx_id[k];
	o->next_descq_idx = tx->next_descq_idx;
	o->num_desc = tx->num_desc > 255 ? 255 : tx->num_desc;
	o->ext = tx->desc_limit > ARRAY_SIZE(tx->descs);
	/* Descriptors only where they still are: its own, or its array not freed. */
	if (descp != tx->descs && !o->ext)
		descp = NULL;
	n = min_t(unsigned int, tx->num_desc, tx->desc_limit);
	n = min_t(unsigned int, n, SHIM_MAX_TX_DESC);
	for (i = 0; descp && i < n; i++) {
		o->map |= ((descp[i].qw[1] >> SDMA_DESC1_GENERATION_SHIFT) &
			   SDMA_DESC1_GENERATION_MASK) << (2 * i);
		if (descp[i].pinning_ctx && descp[i].ctx_put)
			o->pinned |= 1u << i;
	}
	o->mode = descp ? (descp[0].qw[1] & SDMA_DESC1_HEADER_MODE_SMASK) >>
			  SDMA_DESC1_HEADER_MODE_SHIFT : 0;
	o->coalesce = !!tx->coalesce_buf;
	o->complete = !tx->complete ? 0 : tx->complete == shim_dtx_complete ? 1 : 2;
	o->wait = !tx->wait ? 0 : tx->wait == &shim_w.priv.s_iowait ? 1 :
		  tx->wait == &shim_w.queue ? 2 : 3;
	return true;
}

/*
 * A list of requests in order into v[0..*n); any other it holds is
 * counted stray, as is a list that does not end, from where it would
 * overflow.
 */
static void shim_read_list(const struct list_head *head, u8 *n, struct shim_dma_tx *v, u8 *stray)
{
	const struct list_head *pos;
	unsigned int steps = 0;

	list_for_each(pos, head) {
		const struct sdma_txreq *tx = list_entry(pos, struct sdma_txreq, list);

		if (++steps > 4 * SHIM_MAX_DMA_TX) {
			(*stray)++;
			break;
		}
		if (*n < SHIM_MAX_DMA_TX && shim_read_tx(tx, &v[*n]))
			(*n)++;
		else if (*stray < 255)
			(*stray)++;
	}
}

/*
 * The QP's engine's ring from tx_head on, up to its first empty slot, and
 * its flush list, in order; any other request either holds is counted
 * stray.  The input's when the QP has no engine.  The caller's list and
 * the packet queue.
 */
void shim_read_dma_tx(struct shim_qp *q, const struct shim_qp *in)
{
	const struct sdma_engine *sde;
	unsigned int k;
	bool run = true;

	memset(&q->sde_tx_ring, 0, sizeof(q->sde_tx_ring));
	memset(&q->sde_flushlist, 0, sizeof(q->sde_flushlist));
	memset(&q->sde_descq, 0, sizeof(q->sde_descq));
	q->sde_tx_stray = 0;
	q->queue_sdma_busy = atomic_read(&shim_w.queue.sdma_busy);
	q->queue_starved_cnt = shim_w.queue.starved_cnt;
	q->queue_count = shim_w.queue.count;
	q->queue_tx_count = shim_w.queue.tx_count;
	q->queue_sleep = !!shim_w.queue.sleep;
	q->queue_sleep_eagain = shim_w.queue_eagain;
	memset(&q->txlist, 0, sizeof(q->txlist));
	shim_read_list(&shim_w.txlist, &q->txlist.n, q->txlist.v, &q->sde_tx_stray);
	if (in->s_sde == SHIM_NONE) {
		q->sde_tx_head = in->sde_tx_head;
		q->sde_tx_tail = in->sde_tx_tail;
		q->sde_descq = in->sde_descq;
		return;
	}
	sde = shim_sde(in->s_sde);
	/* The sends' requests a sleep left queued on a leg: named by it now. */
	for (k = 0; k < shim_w.ndtx_sent; k++)
		shim_mark_leg(k);
	/* Every slot not both 0, in order; more than the slots hold: over full. */
	for (k = 0; sde->descq == shim_w.descq && k < SHIM_MAX_TX_RING; k++) {
		const struct hw_sdma_desc *d = &shim_w.descq[k];

		if (!(d->qw[0] | d->qw[1]))
			continue;
		if (q->sde_descq.n < SHIM_MAX_DESCQ) {
			q->sde_descq.v[q->sde_descq.n].idx = k;
			q->sde_descq.v[q->sde_descq.n].qw0 = le64_to_cpu(d->qw[0]);
			q->sde_descq.v[q->sde_descq.n].qw1 = le64_to_cpu(d->qw[1]);
		}
		if (q->sde_descq.n <= SHIM_MAX_DESCQ)
			q->sde_descq.n++;
	}
	q->sde_tx_head = sde->tx_head;
	q->sde_tx_tail = sde->tx_tail;
	for (k = 0; sde->tx_ring == shim_w.tx_ring && k < SHIM_MAX_TX_RING; k++) {
		const struct sdma_txreq *tx =
			shim_w.tx_ring[(sde->tx_head + k) & sde->sdma_mask & (SHIM_MAX_TX_RING - 1)];

		if (k > (sde->sdma_mask & (SHIM_MAX_TX_RING - 1)))
			break;
		if (!tx) {
			run = false;
			continue;
		}
		if (run && q->sde_tx_ring.n < SHIM_MAX_DMA_TX &&
		    shim_read_tx(tx, &q->sde_tx_ring.v[q->sde_tx_ring.n]))
			q->sde_tx_ring.n++;
		else if (q->sde_tx_stray < 255)
			q->sde_tx_stray++;
	}
	shim_read_list(&sde->flushlist, &q->sde_flushlist.n, q->sde_flushlist.v, &q->sde_tx_stray);
}

/*
 * dtx#ID for a request of the world (or the verbs_txreq it is in),
 * dtx#ID.desc#I for a descriptor of one, descq#I for a slot of the ring.
 * A send's request that iowait_sleep() queued on a leg of the QP is named
 * by its leg from then on (a later step that flushes the leg takes it off
 * before it names it), as the others queued there are: the model counts a
 * leg's queue, it does not tell its requests apart.
 */
int shim_dtx_name(const void *p, char *buf, size_t len)
{
	unsigned int k;

	for (k = 0; k < SHIM_MAX_SEND_TX; k++) {
		const struct verbs_txreq *v = &shim_w.dtx[SHIM_DTX_SENT + k];

		if (p != v && p != &v->txreq)
			continue;
		shim_mark_leg(k);
		if (shim_w.dtx_leg[k])
			return snprintf(buf, len, "txreq:%s",
					shim_w.dtx_leg[k] == 1 + IOWAIT_TID_SE ? "TID" : "IB");
	}

	if (p >= (void *)shim_w.descq && p < (void *)(shim_w.descq + SHIM_MAX_TX_RING))
		return snprintf(buf, len, "descq#%u",
				(unsigned int)((const struct hw_sdma_desc *)p - shim_w.descq));
	for (k = 0; k < ARRAY_SIZE(shim_w.dtx); k++) {
		const struct sdma_txreq *tx = &shim_w.dtx[k].txreq;
		const struct sdma_desc *d = tx->descp ? tx->descp : tx->descs;
		unsigned int n = d == tx->descs ? ARRAY_SIZE(tx->descs) : MAX_DESC;

		if (p == tx || p == &shim_w.dtx[k])
			return snprintf(buf, len, "dtx#%u", shim_w.dtx_id[k]);
		if ((const void *)d <= p && p < (const void *)(d + n))
			return snprintf(buf, len, "dtx#%u.desc#%u", shim_w.dtx_id[k],
					(unsigned int)((const struct sdma_desc *)p - d));
	}
	return -1;
}
