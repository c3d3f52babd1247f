// SPDX-License-Identifier: GPL-2.0
/*
 * ring.c - the PIO state of the QP's send context: its shadow ring (the
 * buffers handed out, each with the fill count at which its credits are
 * back and what it calls then), the ring's head and tail, the credits
 * seen returned (free) and the credit return the chip wrote (*hw_free),
 * built from the QP's fields before a call and read back after it.  The
 * world's other contexts have no ring, nothing free and a chip that
 * returned nothing.
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

/* The callbacks a slot may hold, by the model's index (types::PioCb). */
static pio_release_cb shim_pio_cb(u32 i)
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

/* A ring needs the QP's send context; head and tail index it. */
bool shim_check_ring(const struct shim_qp *q)
{
	u32 n = q->sc_sr_sent_at.n, i;

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

		pbuf->sc = sc;
		pbuf->sent_at = q->sc_sr_sent_at.v[i];
		pbuf->cb = cb;
		pbuf->arg = cb == shim_static_verbs_pio_complete ? (void *)&shim_w.qp :
			    cb ? (void *)&shim_w.sr[i] : NULL;
	}
	sc->sr = q->sc_sr_sent_at.n ? shim_w.sr : NULL;
	sc->sr_size = q->sc_sr_sent_at.n;
	sc->sr_head = q->sc_sr_head;
	sc->sr_tail = q->sc_sr_tail;
	sc->free = q->sc_free;
	shim_w.hw_free = cpu_to_le64(q->sc_hw_free);
	sc->hw_free = &shim_w.hw_free;
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
}
