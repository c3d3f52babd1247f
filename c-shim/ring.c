// SPDX-License-Identifier: GPL-2.0
/*
 * ring.c - the PIO state of the QP's send context: its shadow ring (the
 * buffers handed out, each with the fill count at which its credits are
 * back and what it calls then), the ring's head and tail, the credits
 * seen returned (free) and the credit return the chip wrote (*hw_free),
 * built from the QP's fields before a call and read back after it.  The
 * world's other contexts have no ring, nothing free and a chip that
 * returned nothing.  The allocator's counts (credits, fill, alloc_free,
 * fill_wrap, size, buffers allocated) are the QP's context's too; a slot
 * of the ring holds what its last packet left (a QW written, a carry
 * byte) and no back pointer, as sc_alloc()'s zeroed ring does not.
 */
#include "state.h"

/*
 * The recording callback a slot may hold (PioCb "shim_pio_release"):
 * records, decides nothing (the buffer's owner is not the world's).
 */
static void shim_pio_release(void *arg, int code)
{
	journal_printf("pio_release(%s, 0x%x)", jp(arg), code);
}

/*
 * What slot `slot` hands its callback: the slot itself for the recording
 * callback, else the QP (a verbs send's buffer; without a callback it is
 * never read).  A slot's argument follows from its callback, so the QP's
 * fields (sc_sr_cb) say it whole.
 */
void *shim_pio_arg(pio_release_cb cb, u32 slot)
{
	return cb == shim_pio_release ? (void *)&shim_w.sr[slot] : (void *)&shim_w.qp;
}


/* The callbacks a slot may hold, by the model's index (types::PioCb). */
pio_release_cb shim_pio_cb(u32 i)
{
	switch (i) {
	case 1:
		return shim_static_verbs_pio_complete;
	case 2:
		return shim_pio_release;
	default:
		return NULL;
	}
}

/*
 * A ring needs the QP's send context, head and tail index it, and
 * sc_buffer_alloc() fills it (its callback one the world names).
 */
bool shim_check_ring(const struct shim_call *c)
{
	const struct shim_qp *q = &c->qp;
	u32 n = q->sc_sr_sent_at.n, i;

	if (c->fn == SHIM_FN_SC_BUFFER_ALLOC && (!n || c->args.sc_buffer_alloc.cb > 2))
		return false;
	if (n > SHIM_MAX_SR || (n && q->s_sendcontext == SHIM_NONE))
		return false;
	if (q->sc_sr_head >= (n ? n : 1) || q->sc_sr_tail >= (n ? n : 1))
		return false;
	for (i = 0; i < SHIM_MAX_SR; i++)
		if (q->sc_sr_cb[i] > 2)
			return false;
	return true;
}

void shim_build_ring(const struct shim_qp *q)
{
	struct send_context *sc;
	unsigned int i;

	/* The last call's context back to no ring. */
	if (shim_w.sr_sc != SHIM_NONE) {
		sc = shim_sc(shim_w.sr_sc);
		sc->sr = NULL;
		sc->sr_size = 0;
		sc->sr_head = 0;
		sc->sr_tail = 0;
		sc->free = 0;
		sc->hw_free = &shim_w.hw_free_none;
		sc->credits = 0;
		sc->fill = 0;
		sc->alloc_free = 0;
		sc->fill_wrap = 0;
		sc->size = 0;
		sc->base_addr = NULL;
		sc->buffers_allocated = NULL;
		shim_w.sr_sc = SHIM_NONE;
	}
	shim_w.hw_free_none = 0;
	/* No slot keeps a last call's buffer; past the ring, --sanitize poisons. */
	SHIM_UNPOISON_ALL(shim_w.sr);
	memset(shim_w.sr, 0, shim_w.sr_used * sizeof(shim_w.sr[0]));
	shim_w.sr_used = q->sc_sr_sent_at.n;
	if (q->s_sendcontext == SHIM_NONE)
		return;
	sc = shim_sc(q->s_sendcontext);
	shim_w.sr_sc = q->s_sendcontext;
	for (i = 0; i < q->sc_sr_sent_at.n; i++) {
		struct pio_buf *pbuf = &shim_w.sr[i].pbuf;
		pio_release_cb cb = shim_pio_cb(q->sc_sr_cb[i]);

		pbuf->sent_at = q->sc_sr_sent_at.v[i];
		pbuf->qw_written = 1;
		pbuf->carry_bytes = 1;
		pbuf->carry.val64 = 1;
		pbuf->cb = cb;
		pbuf->arg = shim_pio_arg(cb, i);
	}
	sc->sr = q->sc_sr_sent_at.n ? shim_w.sr : NULL;
	sc->sr_size = q->sc_sr_sent_at.n;
	sc->sr_head = q->sc_sr_head;
	sc->sr_tail = q->sc_sr_tail;
	sc->free = q->sc_free;
	shim_w.hw_free = cpu_to_le64(q->sc_hw_free);
	sc->hw_free = &shim_w.hw_free;
	sc->credits = q->sc_credits;
	sc->fill = q->sc_fill;
	sc->alloc_free = q->sc_alloc_free;
	sc->fill_wrap = q->sc_fill_wrap;
	sc->size = q->sc_size;
	sc->base_addr = SHIM_PIOBASE;
	shim_w.buffers_allocated = q->sc_buffers_allocated;
	sc->buffers_allocated = &shim_w.buffers_allocated;
	SHIM_POISON_TAIL(shim_w.sr, q->sc_sr_sent_at.n, SHIM_MAX_SR);
}

/* As the call left them (the input's when the QP has no send context). */
void shim_read_ring(struct shim_qp *q, const struct shim_qp *in)
{
	const struct send_context *sc;
	unsigned int i;

	memset(&q->sc_sr_sent_at, 0, sizeof(q->sc_sr_sent_at));
	memset(q->sc_sr_cb, 0, sizeof(q->sc_sr_cb));
	if (in->s_sendcontext == SHIM_NONE) {
		q->sc_sr_head = in->sc_sr_head;
		q->sc_sr_tail = in->sc_sr_tail;
		q->sc_free = in->sc_free;
		q->sc_hw_free = in->sc_hw_free;
		q->sc_credits = in->sc_credits;
		q->sc_fill = in->sc_fill;
		q->sc_alloc_free = in->sc_alloc_free;
		q->sc_fill_wrap = in->sc_fill_wrap;
		q->sc_size = in->sc_size;
		q->sc_buffers_allocated = in->sc_buffers_allocated;
		return;
	}
	sc = shim_sc(in->s_sendcontext);
	q->sc_sr_sent_at.n = in->sc_sr_sent_at.n;
	for (i = 0; i < in->sc_sr_sent_at.n; i++) {
		const struct pio_buf *pbuf = &shim_w.sr[i].pbuf;

		q->sc_sr_sent_at.v[i] = pbuf->sent_at;
		q->sc_sr_cb[i] = !pbuf->cb ? 0 : pbuf->cb == shim_static_verbs_pio_complete ? 1 :
				 pbuf->cb == shim_pio_release ? 2 : 3;
	}
	q->sc_sr_head = sc->sr_head;
	q->sc_sr_tail = sc->sr_tail;
	q->sc_free = sc->free;
	q->sc_hw_free = le64_to_cpu(shim_w.hw_free);
	q->sc_credits = sc->credits;
	q->sc_fill = sc->fill;
	q->sc_alloc_free = sc->alloc_free;
	q->sc_fill_wrap = sc->fill_wrap;
	q->sc_size = sc->size;
	q->sc_buffers_allocated = shim_w.buffers_allocated;
}

/*
 * What sc_buffer_alloc() returned: an error, NULL, or a slot of the ring
 * with what it filled in (addresses from the context's PIO base).
 */
void shim_describe_pbuf(struct shim_outcome *out, const struct pio_buf *pbuf)
{
	int n;

	if (IS_ERR(pbuf))
		n = snprintf(out->text, sizeof(out->text), "pbuf=ERR_PTR(%ld)", PTR_ERR(pbuf));
	else if (!pbuf)
		n = snprintf(out->text, sizeof(out->text), "pbuf=NULL");
	else
		n = snprintf(out->text, sizeof(out->text),
			     "pbuf=%s sc=%s arg=%s start=+0x%lx end=+0x%lx qw_written=%u carry_bytes=%u carry=0x%llx",
			     jp(pbuf), jp(pbuf->sc), jp(pbuf->arg),
			     (unsigned long)((const char __iomem *)pbuf->start -
					     (const char __iomem *)SHIM_PIOBASE),
			     (unsigned long)((const char __iomem *)pbuf->end -
					     (const char __iomem *)SHIM_PIOBASE),
			     pbuf->qw_written, pbuf->carry_bytes,
			     (unsigned long long)pbuf->carry.val64);
	out->text_len = n < (int)sizeof(out->text) ? n : sizeof(out->text) - 1;
}
