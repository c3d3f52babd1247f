// SPDX-License-Identifier: GPL-2.0
/*
 * txbuild.c - the tx request a caller builds (struct sdma_txreq, before
 * sdma_send_txreq()), built from the QP's btx_* fields before a call and
 * read back after it, and the calls that build it (sdma.h's
 * sdma_txinit_ahg() and sdma_txadd_*(), which reach sdma.c's descriptor
 * helpers).  Its descriptors hold the world's symbolic words
 * (shim_btx_built(), the model's built_desc()); what it adds comes from
 * the world's four pages of data, whose bytes are the model's data_byte();
 * its coalesce buffer is read back as a digest (the model's
 * coalesce_digest()).
 */
#include "calls.h"

/* Byte AT of the world's data: the top byte of Knuth's multiplicative hash. */
static u8 shim_data_byte(unsigned int at)
{
	return (u8)((at * 2654435761u) >> 24);
}

void *calloc(size_t nmemb, size_t size);

/*
 * The world's data as every call finds it (an add may not write it: a
 * copy), and the copy a call reads.  Both on the heap, allocated once: the
 * leak scan reads every word of the world's own data after each call, and
 * 32 KiB of bytes that never hold a pointer would cost every call.
 */
static u8 *shim_data_pristine;

/* The world's data as the call finds it; false if it could not be had. */
static bool shim_btx_data(void)
{
	unsigned int at;

	if (!shim_data_pristine) {
		shim_data_pristine = calloc(1, SHIM_DATA_BYTES);
		shim_w.data = calloc(1, SHIM_DATA_BYTES);
		if (!shim_data_pristine || !shim_w.data)
			return false;
		for (at = 0; at < SHIM_DATA_BYTES; at++)
			shim_data_pristine[at] = shim_data_byte(at);
	}
	memcpy(shim_w.data, shim_data_pristine, SHIM_DATA_BYTES);
	return true;
}

/* kcompat linux/mm.h: a world page's data. */
void *page_address(const struct page *page)
{
	long k = page - shim_w.page;

	if (k < 0 || k >= SHIM_DATA_PAGES || !shim_w.data)
		return NULL;
	return shim_w.data + k * 4096;
}

/* Where P lies in the world's data, or -1. */
long shim_data_offset(const void *p)
{
	const u8 *b = p;

	if (!shim_w.data || b < shim_w.data || b >= shim_w.data + SHIM_DATA_BYTES)
		return -1;
	return b - shim_w.data;
}

int shim_btx_name(const void *p, char *buf, size_t len)
{
	long k;

	if (p && p == shim_w.btx.coalesce_buf)
		return snprintf(buf, len, "btx.coalesce_buf");
	k = (const char *)p - shim_w.pin;
	if (k >= 0 && k < MAX_DESC)
		return snprintf(buf, len, "pin#%ld", k);
	k = (const struct page *)p - shim_w.page;
	if (p >= (void *)shim_w.page && k < SHIM_DATA_PAGES)
		return snprintf(buf, len, "page#%ld", k);
	return -1;
}

/* Descriptor I as the world builds it (the model's built_desc()). */
static void shim_btx_built(const struct shim_qp *q, unsigned int i, u64 qw[2])
{
	u64 addr = 0x800000 + ((u64)i << 12);
	u64 len = (64 * ((u64)i + 1)) & SDMA_DESC0_BYTE_COUNT_MASK;
	u64 map = (q->btx_map >> (2 * (i % 8))) & SDMA_DESC1_GENERATION_MASK;

	qw[0] = addr << SDMA_DESC0_PHY_ADDR_SHIFT | len << SDMA_DESC0_BYTE_COUNT_SHIFT;
	qw[1] = map << SDMA_DESC1_GENERATION_SHIFT;
	if (!i)
		qw[1] |= ((u64)q->btx_mode & SDMA_DESC1_HEADER_MODE_MASK) <<
			 SDMA_DESC1_HEADER_MODE_SHIFT;
}

/* Every slot of an array as built, pinning contexts where PINNED says. */
static void shim_btx_fill(const struct shim_qp *q, struct sdma_desc *d, unsigned int n,
			  u64 pinned)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		shim_btx_built(q, i, d[i].qw);
		d[i].pinning_ctx = NULL;
		d[i].ctx_put = NULL;
		if (i < 64 && (pinned >> i) & 1) {
			d[i].pinning_ctx = &shim_w.pin[i];
			d[i].ctx_put = shim_ctx_put;
		}
	}
}

/*
 * What descp points at in a request __sdma_txclean() left (its array
 * freed): never read (nothing is added to it before sdma_txinit_ahg()).
 */
static struct sdma_desc shim_freed_descp[1];

/* The digest the world's coalesce buffer is taken to hold (its zeroes add to it). */
static u32 shim_coal_base;

void shim_build_btx(const struct shim_qp *q)
{
	struct sdma_txreq *tx = &shim_w.btx;
	struct sdma_desc *descp = tx->descs;
	unsigned int k, len = NUM_DESC;

	INIT_LIST_HEAD(&tx->list);
	shim_coal_base = q->btx_coal_sum;
	shim_btx_fill(q, tx->descs, NUM_DESC, q->btx_pinned);
	tx->desc_limit = q->btx_desc_limit;
	if (q->btx_desc_limit > NUM_DESC) {
		descp = shim_alloc_tracked(MAX_DESC * sizeof(*descp), "descp");
		if (descp) {
			shim_btx_fill(q, descp, MAX_DESC, q->btx_pinned);
			len = MAX_DESC;
		} else {
			descp = tx->descs;
			tx->desc_limit = NUM_DESC;
		}
	}
	tx->descp = q->btx_descp_freed ? shim_freed_descp : descp;
	for (k = 0; k < q->btx_descs.n && k < ARRAY_SIZE(q->btx_descs.v); k++) {
		const struct shim_descq_entry *e = &q->btx_descs.v[k];

		if (e->idx < len) {
			descp[e->idx].qw[0] = e->qw0;
			descp[e->idx].qw[1] = e->qw1;
		}
	}
	tx->num_desc = q->btx_num_desc;
	tx->flags = q->btx_flags;
	tx->tlen = q->btx_tlen;
	tx->packet_len = q->btx_packet_len;
	tx->coalesce_buf = q->btx_coalesce ? shim_alloc_tracked(q->btx_coal_size, "coalesce_buf") :
					     NULL;
	tx->coalesce_idx = q->btx_coalesce_idx;
}

/* The coalesce buffer's digest: the sum of byte[k] * 16777619^k (mod 2^32). */
static u32 shim_digest(const u8 *b, size_t n)
{
	u32 h = 0, pw = 1;
	size_t k;

	for (k = 0; k < n; k++) {
		h += b[k] * pw;
		pw *= 16777619u;
	}
	return h;
}

/* descp is an array __sdma_txclean() freed: nothing of it may be read. */
static bool shim_btx_freed(void)
{
	return shim_w.btx.descp != shim_w.btx.descs && shim_w.btx.desc_limit <= NUM_DESC;
}

void shim_read_btx(struct shim_qp *q, const struct shim_qp *in)
{
	const struct sdma_txreq *tx = &shim_w.btx;
	unsigned int i, n, len = tx->descp == tx->descs ? NUM_DESC : MAX_DESC;
	u64 qw[2];

	q->btx_num_desc = tx->num_desc;
	q->btx_desc_limit = tx->desc_limit;
	q->btx_flags = tx->flags;
	q->btx_tlen = tx->tlen;
	q->btx_packet_len = tx->packet_len;
	q->btx_descp_freed = shim_btx_freed();
	q->btx_coalesce = !!tx->coalesce_buf;
	q->btx_coalesce_idx = tx->coalesce_idx;
	q->btx_coal_sum = 0;
	q->btx_coal_size = shim_block_size(tx->coalesce_buf);
	if (tx->coalesce_buf) {
		q->btx_coal_sum = shim_digest(tx->coalesce_buf, shim_block_size(tx->coalesce_buf));
		/* The world's buffer (not one upstream allocated): its digest as given. */
		if (shim_block_is_world(tx->coalesce_buf))
			q->btx_coal_sum += shim_coal_base;
	}
	q->btx_map = in->btx_map;
	q->btx_mode = in->btx_mode;
	q->btx_pinned = 0;
	q->btx_descs.n = 0;
	q->btx_desc_stray = 0;
	if (q->btx_descp_freed)
		return;
	n = min_t(unsigned int, max_t(unsigned int, tx->num_desc, 1), len);
	for (i = 0; i < n; i++) {
		const struct sdma_desc *d = &tx->descp[i];

		if (i < tx->num_desc && d->pinning_ctx)
			q->btx_pinned |= 1ull << i;
		shim_btx_built(in, i, qw);
		if (d->qw[0] == qw[0] && d->qw[1] == qw[1])
			continue;
		if (q->btx_descs.n < ARRAY_SIZE(q->btx_descs.v))
			q->btx_descs.v[q->btx_descs.n++] = (struct shim_descq_entry){
				.idx = i, .qw0 = d->qw[0], .qw1 = d->qw[1] };
		else if (q->btx_desc_stray < 255)
			q->btx_desc_stray++;
	}
}

/* The caller's pinning context taken: records. */
static void shim_ctx_get(void *ctx)
{
	journal_printf("ctx_get(%s)", jp(ctx));
}

SHIM_CALL(sdma_txinit_ahg)
{
	const struct shim_args_sdma_txinit_ahg *a = &c->args.sdma_txinit_ahg;
	struct sdma_txreq *tx = &shim_w.btx;
	u32 ahg[16];
	unsigned int i;

	shim_begin(c, out);
	/*
	 * Given fresh: what it held released (as its last owner cleaned it),
	 * no descriptor, its own six as the world builds them, unpinned.
	 */
	if (tx->desc_limit > NUM_DESC)
		shim_free_tracked(tx->descp);
	shim_free_tracked(tx->coalesce_buf);
	tx->descp = tx->descs;
	tx->desc_limit = NUM_DESC;
	tx->num_desc = 0;
	tx->coalesce_buf = NULL;
	shim_btx_fill(&c->qp, tx->descs, NUM_DESC, 0);
	/* The model's ahg_values(). */
	for (i = 0; i < ARRAY_SIZE(ahg); i++) {
		unsigned int r = (4 * i) & 31;

		ahg[i] = (r ? a->ahg_seed << r | a->ahg_seed >> (32 - r) : a->ahg_seed) ^ i;
	}
	out->ret = sdma_txinit_ahg(tx, a->flags, a->tlen, a->ahg_entry, a->num_ahg, ahg,
				   a->ahg_hlen, NULL);
	return 0;
}

SHIM_CALL(sdma_txadd_page)
{
	const struct shim_args_sdma_txadd_page *a = &c->args.sdma_txadd_page;
	unsigned int slot;

	shim_begin(c, out);
	if (shim_btx_freed() || a->page >= SHIM_DATA_PAGES || !shim_btx_data())
		return shim_refuse(out);
	slot = shim_w.btx.num_desc % MAX_DESC;
	out->ret = sdma_txadd_page(&shim_w.dd, &shim_w.btx, &shim_w.page[a->page], a->offset,
				   a->len, a->pinned ? &shim_w.pin[slot] : NULL,
				   a->pinned ? shim_ctx_get : NULL, a->pinned ? shim_ctx_put : NULL);
	return 0;
}

SHIM_CALL(sdma_txadd_kvaddr)
{
	const struct shim_args_sdma_txadd_kvaddr *a = &c->args.sdma_txadd_kvaddr;

	shim_begin(c, out);
	if (shim_btx_freed() || (!a->null && a->at >= SHIM_DATA_BYTES) || !shim_btx_data())
		return shim_refuse(out);
	out->ret = sdma_txadd_kvaddr(&shim_w.dd, &shim_w.btx, a->null ? NULL : shim_w.data + a->at,
				     a->len);
	return 0;
}

SHIM_CALL(sdma_txadd_daddr)
{
	const struct shim_args_sdma_txadd_daddr *a = &c->args.sdma_txadd_daddr;

	shim_begin(c, out);
	if (shim_btx_freed())
		return shim_refuse(out);
	out->ret = sdma_txadd_daddr(&shim_w.dd, &shim_w.btx, a->addr, a->len);
	return 0;
}
