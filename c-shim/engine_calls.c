// SPDX-License-Identifier: GPL-2.0
/*
 * engine_calls.c - the shim's calls of the send engines' functions
 * (sdma.c, pio.c), in the order of SHIM_FN_NAMES.
 */
#include "calls.h"

SHIM_CALL(sc_add_credit_return_intr)
{
	shim_begin(c, out);
	sc_add_credit_return_intr(shim_sc(c->args.sc_add_credit_return_intr.sc));
	return 0;
}

SHIM_CALL(sc_del_credit_return_intr)
{
	shim_begin(c, out);
	sc_del_credit_return_intr(shim_sc(c->args.sc_del_credit_return_intr.sc));
	return 0;
}

SHIM_CALL(hfi1_sc_wantpiobuf_intr)
{
	const struct shim_args_hfi1_sc_wantpiobuf_intr *a = &c->args.hfi1_sc_wantpiobuf_intr;

	shim_begin(c, out);
	hfi1_sc_wantpiobuf_intr(shim_sc(a->sc), a->needint);
	return 0;
}

SHIM_CALL(sc_return_credits)
{
	shim_begin(c, out);
	sc_return_credits(shim_sc(c->args.sc_return_credits.sc));
	return 0;
}

SHIM_CALL(sc_stop)
{
	const struct shim_args_sc_stop *a = &c->args.sc_stop;

	shim_begin(c, out);
	sc_stop(shim_sc(a->sc), tree_bits(a->flag, &shim_sc_flags));
	return 0;
}

SHIM_CALL(sc_disable)
{
	/* The QP and the other QPs on a piowait list are woken through qp.c. */
	if (!shim_prep_callbacks(c))
		return shim_refuse(out);
	shim_begin(c, out);
	sc_disable(shim_sc(c->args.sc_disable.sc));
	return 0;
}

SHIM_CALL(sc_flush)
{
	shim_begin(c, out);
	sc_flush(shim_sc(c->args.sc_flush.sc));
	return 0;
}

/*
 * The journal's runs of register reads sorted (byte order of the lines):
 * for reads made while evaluating one call's arguments, whose order C
 * leaves unspecified (the model writes them sorted too).  Sized for such
 * a call's few short lines: a run of more than 64, or a line of 96 bytes
 * or more, is sorted in parts.
 */
static char *shim_eol(char *p, const char *end)
{
	while (p < end && *p != '\n')
		p++;
	return p < end ? p : NULL;
}

static void shim_sort_reads(struct shim_outcome *out)
{
	static const char rd[] = "read_csr(";
	static char line[64][96];
	char *j = out->journal, *end = j + out->journal_len, *p = j;

	while (p < end) {
		char *run = p, *q;
		unsigned int n = 0, a, b;

		while (p < end && !strncmp(p, rd, sizeof(rd) - 1) && n < ARRAY_SIZE(line)) {
			q = shim_eol(p, end);
			if (!q || (size_t)(q - p) >= sizeof(line[0]))
				break;
			memcpy(line[n], p, q - p);
			line[n++][q - p] = '\0';
			p = q + 1;
		}
		for (a = 1; a < n; a++)
			for (b = a; b && strcmp(line[b - 1], line[b]) > 0; b--) {
				char t[sizeof(line[0])];

				memcpy(t, line[b], sizeof(t));
				memcpy(line[b], line[b - 1], sizeof(t));
				memcpy(line[b - 1], t, sizeof(t));
			}
		for (a = 0; a < n; a++) {
			size_t len = strlen(line[a]);

			memcpy(run, line[a], len);
			run[len] = '\n';
			run += len + 1;
		}
		if (!n) {
			q = shim_eol(p, end);
			p = q ? q + 1 : end;
		}
	}
}

SHIM_CALL(sdma_seqfile_dump_sde)
{
	struct seq_file sf = { .buf = out->text, .size = sizeof(out->text) };

	shim_begin(c, out);
	sdma_seqfile_dump_sde(&sf, shim_w.priv.s_sde);
	out->text_len = sf.count < sf.size ? sf.count : sf.size - 1;
	shim_sort_reads(out);
	return 0;
}

/*
 * sdma_dumpstate(): compiled by the tree only with CONFIG_SDMA_VERBOSITY
 * (sdma.h declares it only then); extracted whole, its prototype the
 * shim's (entries.h).
 */
SHIM_CALL(sdma_dumpstate)
{
	shim_begin(c, out);
	sdma_dumpstate(shim_w.priv.s_sde);
	return 0;
}

#ifdef SHIM_ABSENT_sc_drop
SHIM_ABSENT_CALL(sc_drop)
#else
SHIM_CALL(sc_drop)
{
	shim_begin(c, out);
	sc_drop(shim_sc(c->args.sc_drop.sc));
	return 0;
}
#endif

SHIM_CALL(sc_wait)
{
	shim_begin(c, out);
	sc_wait(&shim_w.dd);
	return 0;
}

SHIM_CALL(pio_freeze)
{
	/* sc_disable() wakes the QPs waiting on a context through qp.c. */
	if (!shim_prep_callbacks(c))
		return shim_refuse(out);
	shim_begin(c, out);
	pio_freeze(&shim_w.dd);
	return 0;
}

SHIM_CALL(sc_buffer_alloc)
{
	const struct shim_args_sc_buffer_alloc *a = &c->args.sc_buffer_alloc;
	struct pio_buf *pbuf;

	pio_release_cb cb = shim_pio_cb(a->cb);

	/*
	 * Short of credits it calls sc_release_update(), which wakes QPs.  The
	 * buffer's argument is the one a slot with its callback holds (the QP
	 * for a verbs send's), for the slot the ring's head names.
	 */
	if (!shim_prep_callbacks(c))
		return shim_refuse(out);
	shim_begin(c, out);
	pbuf = sc_buffer_alloc(shim_w.priv.s_sendcontext, a->dw_len, cb,
			       shim_pio_arg(cb, shim_w.priv.s_sendcontext->sr_head));
	shim_describe_pbuf(out, pbuf);
	return 0;
}

SHIM_CALL(sc_release_update)
{
	/* It wakes the QPs waiting on the context through qp.c. */
	if (!shim_prep_callbacks(c))
		return shim_refuse(out);
	shim_begin(c, out);
	sc_release_update(shim_sc(c->args.sc_release_update.sc));
	return 0;
}

SHIM_CALL(sc_wait_for_packet_egress)
{
	const struct shim_args_sc_wait_for_packet_egress *a = &c->args.sc_wait_for_packet_egress;

	shim_begin(c, out);
	shim_static_sc_wait_for_packet_egress(shim_sc(a->sc), a->pause);
	return 0;
}

SHIM_CALL(sdma_ahg_alloc)
{
	shim_begin(c, out);
	out->ret = sdma_ahg_alloc(shim_sde(c->args.sdma_ahg_alloc.sde));
	return 0;
}

SHIM_CALL(sdma_ahg_free)
{
	const struct shim_args_sdma_ahg_free *a = &c->args.sdma_ahg_free;

	shim_begin(c, out);
	sdma_ahg_free(shim_sde(a->sde), a->ahg_index);
	return 0;
}

SHIM_CALL(sdma_desc_avail)
{
	if (!shim_prep_callbacks(c))
		return shim_refuse(out);
	shim_begin(c, out);
	shim_static_sdma_desc_avail(shim_w.priv.s_sde, c->args.sdma_desc_avail.avail);
	return 0;
}

SHIM_CALL(sc_piobufavail)
{
	/* Its iowait's init_priority is the one qp_priv_alloc() installs. */
	if (!shim_prep_callbacks(c))
		return shim_refuse(out);
	shim_begin(c, out);
	shim_static_sc_piobufavail(shim_w.priv.s_sendcontext);
	return 0;
}

SHIM_CALL(sdma_flush)
{
	if (!shim_prep_callbacks(c))
		return shim_refuse(out);
	shim_begin(c, out);
	shim_static_sdma_flush(shim_w.priv.s_sde);
	return 0;
}

SHIM_CALL(sdma_field_flush)
{
	if (!shim_prep_callbacks(c))
		return shim_refuse(out);
	shim_begin(c, out);
	shim_static_sdma_field_flush(&shim_w.priv.s_sde->flush_worker);
	return 0;
}

SHIM_CALL(_sdma_engine_progress_schedule)
{
	shim_begin(c, out);
	_sdma_engine_progress_schedule(shim_sde(c->args._sdma_engine_progress_schedule.sde));
	return 0;
}

SHIM_CALL(sdma_engine_interrupt)
{
	if (!shim_prep_callbacks(c))
		return shim_refuse(out);
	shim_begin(c, out);
	sdma_engine_interrupt(shim_w.priv.s_sde, c->args.sdma_engine_interrupt.status);
	return 0;
}

SHIM_CALL(init_credit_return)
{
	shim_begin(c, out);
	out->ret = init_credit_return(&shim_w.dd);
	return 0;
}

SHIM_CALL(free_credit_return)
{
	shim_begin(c, out);
	free_credit_return(&shim_w.dd);
	return 0;
}

SHIM_CALL(sdma_send_txreq)
{
	const struct shim_args_sdma_send_txreq *s = &c->args.sdma_send_txreq;
	struct sdma_txreq *tx;

	if (!shim_prep_callbacks(c))
		return shim_refuse(out);
	shim_begin(c, out);
	/* A new request each step: one a step before sent may still be queued. */
	tx = shim_send_tx(&s->tx, s->tlen);
	if (!tx)
		return shim_refuse(out);
	out->ret = sdma_send_txreq(shim_w.priv.s_sde,
				   s->wait ? &shim_w.priv.s_iowait.wait[s->leg ? IOWAIT_TID_SE :
									   IOWAIT_IB_SE] : NULL,
				   tx, s->pkts_sent);
	return 0;
}

SHIM_CALL(sc_enable)
{
	shim_begin(c, out);
	out->ret = sc_enable(shim_sc(c->args.sc_enable.sc));
	return 0;
}

SHIM_CALL(sc_group_release_update)
{
	/* It wakes the QPs waiting on the contexts through qp.c. */
	if (!shim_prep_callbacks(c))
		return shim_refuse(out);
	shim_begin(c, out);
	sc_group_release_update(&shim_w.dd, c->args.sc_group_release_update.hw_context);
	return 0;
}

SHIM_CALL(sdma_send_txlist)
{
	const struct shim_args_sdma_send_txlist *s = &c->args.sdma_send_txlist;
	struct sdma_txreq *tx;
	unsigned int k = 0;
	u16 count_out = 0;

	shim_begin(c, out);
	/* The list as the call finds it: which of its requests lack bytes. */
	list_for_each_entry(tx, &shim_w.txlist, list)
		tx->tlen = (s->incomplete >> k++) & 1;
	out->ret = sdma_send_txlist(shim_w.priv.s_sde,
				    s->wait ? &shim_w.queue.wait[IOWAIT_IB_SE] : NULL,
				    &shim_w.txlist, &count_out);
	out->text_len = snprintf(out->text, sizeof(out->text), "count_out=%u", count_out);
	return 0;
}

SHIM_CALL(sc_restart)
{
	shim_begin(c, out);
	if (!shim_sc(c->args.sc_restart.sc))
		return shim_refuse(out);
	out->ret = sc_restart(shim_sc(c->args.sc_restart.sc));
	return 0;
}

SHIM_CALL(sc_halted)
{
	shim_begin(c, out);
	if (!shim_sc(c->args.sc_halted.sc))
		return shim_refuse(out);
	/* From the context's halt work (process context). */
	shim_static_sc_halted(&shim_sc(c->args.sc_halted.sc)->halt_work);
	return 0;
}

SHIM_CALL(pio_send_control)
{
	shim_begin(c, out);
	pio_send_control(&shim_w.dd, c->args.pio_send_control.op);
	return 0;
}

SHIM_CALL(pio_reset_all)
{
	shim_begin(c, out);
	pio_reset_all(&shim_w.dd);
	return 0;
}

SHIM_CALL(pio_kernel_unfreeze)
{
	shim_begin(c, out);
	pio_kernel_unfreeze(&shim_w.dd);
	return 0;
}

SHIM_CALL(pio_kernel_linkup)
{
	shim_begin(c, out);
	pio_kernel_linkup(&shim_w.dd);
	return 0;
}

SHIM_CALL(sdma_process_event)
{
	if (!shim_prep_callbacks(c))
		return shim_refuse(out);
	shim_begin(c, out);
	shim_static_sdma_process_event(shim_w.priv.s_sde,
				       sdma_event_values[c->args.sdma_process_event.event]);
	return 0;
}

SHIM_CALL(sdma_engine_error)
{
	if (!shim_prep_callbacks(c))
		return shim_refuse(out);
	shim_begin(c, out);
	sdma_engine_error(shim_w.priv.s_sde, c->args.sdma_engine_error.status);
	return 0;
}

SHIM_CALL(sdma_sw_clean_up_task)
{
	if (!shim_prep_callbacks(c))
		return shim_refuse(out);
	shim_begin(c, out);
	shim_static_sdma_sw_clean_up_task(&shim_w.priv.s_sde->sdma_sw_clean_up_task);
	return 0;
}

SHIM_CALL(sdma_hw_clean_up_task)
{
	if (!shim_prep_callbacks(c))
		return shim_refuse(out);
	shim_begin(c, out);
	shim_static_sdma_hw_clean_up_task(&shim_w.priv.s_sde->sdma_hw_clean_up_task);
	return 0;
}

SHIM_CALL(sdma_err_halt_wait)
{
	if (!shim_prep_callbacks(c))
		return shim_refuse(out);
	shim_begin(c, out);
	shim_static_sdma_err_halt_wait(&shim_w.priv.s_sde->err_halt_worker);
	return 0;
}

SHIM_CALL(sdma_err_progress_check)
{
	shim_begin(c, out);
	shim_static_sdma_err_progress_check(&shim_w.priv.s_sde->err_progress_check_timer);
	return 0;
}

SHIM_CALL(sdma_get_descq_cnt)
{
	shim_begin(c, out);
	out->ret = sdma_get_descq_cnt();
	return 0;
}

SHIM_CALL(set_sdma_integrity)
{
	shim_begin(c, out);
	shim_static_set_sdma_integrity(shim_w.priv.s_sde);
	return 0;
}

SHIM_CALL(init_sdma_regs)
{
	const struct shim_args_init_sdma_regs *a = &c->args.init_sdma_regs;

	shim_begin(c, out);
	shim_static_init_sdma_regs(shim_w.priv.s_sde, a->credits, a->idle_cnt);
	return 0;
}

SHIM_CALL(sdma_update_lmc)
{
	shim_begin(c, out);
	sdma_update_lmc(&shim_w.dd, c->args.sdma_update_lmc.mask, c->args.sdma_update_lmc.lid);
	return 0;
}

SHIM_CALL(sdma_state_name)
{
	const char *name;

	shim_begin(c, out);
	name = shim_static_sdma_state_name(sdma_state_values[c->args.sdma_state_name.state]);
	out->text_len = 0;
	shim_put(out, "%s", name ? name : "(null)");
	return 0;
}

SHIM_CALL(sdma_wait_for_packet_egress)
{
	shim_begin(c, out);
	shim_static_sdma_wait_for_packet_egress(shim_w.priv.s_sde,
						c->args.sdma_wait_for_packet_egress.pause);
	return 0;
}

SHIM_CALL(sdma_wait)
{
	shim_begin(c, out);
	sdma_wait(&shim_w.dd);
	return 0;
}

/*
 * The calls that drive every engine's state machine (sdma.c).  Every
 * engine of a world starts with the world's ring; the QP's is read back
 * with the QP, each other engine's ring as the call left it is the text.
 */
static void shim_put_other_rings(struct shim_outcome *out)
{
	const struct sdma_engine *own = shim_w.priv.s_sde;
	const struct list_head *l;
	unsigned int i, waiting;

	out->text_len = 0;
	for (i = 0; i < shim_w.nsde; i++) {
		const struct sdma_engine *sde = &shim_w.per_sdma[i];

		if (sde == own)
			continue;
		waiting = 0;
		list_for_each(l, &sde->dmawait)
			waiting++;
		shim_put(out, "%ssde#%u: head=%u tail=%u avail=%u seq=%u head_dma=0x%llx full=%u",
			 out->text_len ? " " : "", i, sde->descq_head, sde->descq_tail,
			 sde->desc_avail, sde->head_lock.seqcount.sequence,
			 (unsigned long long)le64_to_cpu(shim_w.head_dma[i]), sde->descq_full_count);
		shim_put(out, " tx=%u/%u flushlist=%s dmawait=%u", sde->tx_head, sde->tx_tail,
			 list_empty(&sde->flushlist) ? "empty" : "not-empty", waiting);
	}
}

/*
 * The engine past the device's (the world's array is longer): a call that
 * steps every engine must not touch it.  It is kept before the call and
 * compared after (a write there is journalled, as KASAN reports one past
 * an array; under --sanitize the tail is poisoned and the access itself
 * is the crash).
 */
#ifndef SHIM_ASAN
static struct sdma_engine past_engine;

static void shim_keep_past_engine(void)
{
	if (shim_w.nsde < SHIM_MAX_SDMA)
		memcpy(&past_engine, &shim_w.per_sdma[shim_w.nsde], sizeof(past_engine));
}

static void shim_check_past_engine(void)
{
	if (shim_w.nsde < SHIM_MAX_SDMA &&
	    memcmp(&past_engine, &shim_w.per_sdma[shim_w.nsde], sizeof(past_engine)))
		journal_printf("BUG: sde#%u, past the device's engines, written", shim_w.nsde);
}
#else
/* The tail is poisoned (build.c): upstream's access there is the crash. */
static void shim_keep_past_engine(void)
{
}

static void shim_check_past_engine(void)
{
}
#endif

/*
 * A call that steps every engine: the QP's callbacks, the engine past the
 * device's kept, the call, that engine compared, the other engines' rings
 * the text.  A macro, so that each call's section holds its own upstream
 * call (calls.h).
 */
#define SHIM_EVERY_ENGINE(c, out, call) do {				\
	if (!shim_prep_callbacks(c))					\
		return shim_refuse(out);				\
	shim_begin(c, out);						\
	shim_keep_past_engine();					\
	call;								\
	shim_check_past_engine();					\
	shim_put_other_rings(out);					\
} while (0)

SHIM_CALL(sdma_start)
{
	SHIM_EVERY_ENGINE(c, out, sdma_start(&shim_w.dd));
	return 0;
}

SHIM_CALL(sdma_all_running)
{
	SHIM_EVERY_ENGINE(c, out, sdma_all_running(&shim_w.dd));
	return 0;
}

#ifdef SHIM_ABSENT_sdma_all_idle
SHIM_ABSENT_CALL(sdma_all_idle)
#else
SHIM_CALL(sdma_all_idle)
{
	SHIM_EVERY_ENGINE(c, out, sdma_all_idle(&shim_w.dd));
	return 0;
}
#endif

SHIM_CALL(sdma_exit)
{
	SHIM_EVERY_ENGINE(c, out, sdma_exit(&shim_w.dd));
	return 0;
}

SHIM_CALL(sdma_freeze_notify)
{
	SHIM_EVERY_ENGINE(c, out, sdma_freeze_notify(&shim_w.dd, c->args.sdma_freeze_notify.link_down));
	return 0;
}

SHIM_CALL(sdma_freeze)
{
	SHIM_EVERY_ENGINE(c, out, sdma_freeze(&shim_w.dd));
	return 0;
}

SHIM_CALL(sdma_unfreeze)
{
	SHIM_EVERY_ENGINE(c, out, sdma_unfreeze(&shim_w.dd));
	return 0;
}
