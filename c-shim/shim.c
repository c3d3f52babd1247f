// SPDX-License-Identifier: GPL-2.0
/*
 * shim.c - the ABI entry points (shim.h): runs one upstream function on the
 * world build.c builds from a flat struct shim_call and reports a flat
 * struct shim_outcome; the raw benchmark.
 *
 * The shim's files are compiled like the driver (kcompat headers, the tree's own
 * hfi1 and rdma headers), so they fill the tree's real structs and map the
 * shim's symbolic names to the tree's real macro and enum values.  They
 * never decide anything the driver decides: they only lay out memory and
 * call.
 */
#include "calls.h"

/*
 * Module parameters defined in files this world does not compile
 * (chip.c, verbs.c, init.c): their values come from the vector.
 */
uint num_vls;
unsigned short piothreshold;
unsigned long hfi1_cap_mask;
unsigned int user_credit_return_threshold;
unsigned int hfi1_max_mtu;
/* kcompat linux/lockdep.h: open locks and RCU read sections. */
int shim_lockdep_depth;
/* kcompat linux/irqflags.h: the CPU's interrupt state, an interrupt handler's call. */
int shim_irqs_off;
int shim_in_hardirq;
/* Interrupts as the call found them: a call must leave them so. */
static int shim_irqs_entry;
u64 shim_delay_ns;
int shim_preempt_depth;
int shim_rcu_depth;
/* kcompat linux/highmem.h: the pages a call holds mapped. */
int shim_kmap_depth;

/*
 * The callbacks qp.c installs in every QP's iowait are static: the only way
 * to them is the pointers qp_priv_alloc() stores.  Taken once, outside any
 * journal, from a private data block that is freed again.
 */
static void shim_harvest_callbacks(void)
{
	struct hfi1_qp_priv *p;
	struct rvt_qp scratch;

	if (shim_w.cb.wakeup)
		return;
	memset(&scratch, 0, sizeof(scratch));
	p = qp_priv_alloc(&shim_w.dd.verbs_dev.rdi, &scratch);
	if (IS_ERR_OR_NULL(p))
		return;
	shim_w.cb.sleep = p->s_iowait.sleep;
	shim_w.cb.wakeup = p->s_iowait.wakeup;
	shim_w.cb.sdma_drained = p->s_iowait.sdma_drained;
	shim_w.cb.init_priority = p->s_iowait.init_priority;
	kfree(p->s_ahg);
	kfree(p);
}

void shim_prepare(void)
{
	shim_w.alloc_fail = 0;
	shim_harvest_callbacks();
	shim_alloc_reset();
}

/*
 * What a call leaves besides its effects: the time it waited (journalled,
 * as time does not pass here), and every lock it took released and every
 * RCU read section closed (its caller's are the shim's, balanced around
 * it): what is left open is journalled, as lockdep would complain.
 */
static void shim_check_balance(void)
{
	if (shim_delay_ns)
		journal_printf("delay(%llu ns)", (unsigned long long)shim_delay_ns);
	shim_delay_ns = 0;
	/* sc_buffer_alloc() leaves it disabled for pio_copy() by design. */
	if (shim_preempt_depth)
		journal_printf("preempt %+d", shim_preempt_depth);
	shim_preempt_depth = 0;
	if (shim_kmap_depth)
		journal_printf("UNBALANCED(kmap %+d)", shim_kmap_depth);
	shim_kmap_depth = 0;
	if (shim_lockdep_depth || shim_rcu_depth) {
		journal_printf("UNBALANCED(locks %+d, rcu %+d)", shim_lockdep_depth,
			       shim_rcu_depth);
		/* A lock may be left held: the next world starts unlocked. */
		shim_w.locks_held = true;
	}
	shim_lockdep_depth = 0;
	shim_rcu_depth = 0;
	if (shim_irqs_off != shim_irqs_entry)
		journal_printf("UNBALANCED(interrupts %s)", shim_irqs_off ? "off" : "on");
	shim_irqs_off = 0;
	shim_in_hardirq = 0;
}

/* A call the shim refuses: nothing of an earlier outcome is left. */
int shim_refuse(struct shim_outcome *out)
{
	memset(&out->qp, 0, sizeof(out->qp));
	memset(&out->engines, 0, sizeof(out->engines));
	return -1;
}

/*
 * A scenario's state between its steps: whether the last call returned
 * and kept its state (a later step runs only then), whether the call
 * running is a later step (nothing is built, nothing freed), and the call
 * before with the QP and engines it left, as read back (a later step sees
 * them as its own: what the step before left is its pre-call state).
 */
static struct {
	bool have_state;
	bool carrying;
	struct shim_call step;
} shim_scenario;

/* What every call does before its function: the QP, a fresh journal. */
void shim_begin(const struct shim_call *c, struct shim_outcome *out)
{
	enum shim_context ctx;

	if (!shim_scenario.carrying)
		shim_build_qp(c);
	shim_lockdep_depth = 0;
	shim_rcu_depth = 0;
	shim_delay_ns = 0;
	shim_preempt_depth = 0;
	shim_kmap_depth = 0;
	shim_w.dma_maps = 0;
	ctx = shim_entry_context(c->fn);
	shim_irqs_off = shim_irqs_entry = ctx != SHIM_CTX_TASK;
	shim_in_hardirq = ctx == SHIM_CTX_HARDIRQ;
	journal_begin(out);
}

/*
 * Before a call of one of the callbacks: they are harvested (outside the
 * call's allocations), or the call is refused.
 */
bool shim_prep_callbacks(const struct shim_call *c)
{
	/* The QP built for this call has them (shim_build_qp()). */
	shim_w.cb_prepared = true;
	shim_w.alloc_fail = 0;
	shim_harvest_callbacks();
	/* Once per worker: what it left is no part of this call. */
	if (!shim_scenario.carrying)
		shim_alloc_reset();
	shim_w.alloc_fail = c->world.alloc_fail;
	shim_w.nalloc = 0;
	return shim_w.cb.wakeup;
}


SHIM_CALL(hfi1_setup_wqe)
{
	const struct shim_args *a = &c->args;
	bool call_send;

	shim_begin(c, out);
	call_send = a->hfi1_setup_wqe.call_send;
	out->ret = hfi1_setup_wqe(&shim_w.qp, &shim_w.swqe.wqe, &call_send);
	out->call_send = call_send;
	return 0;
}

SHIM_CALL(qp_to_sdma_engine)
{
	const struct shim_args *a = &c->args;
	struct sdma_engine *sde;

	shim_begin(c, out);
	sde = qp_to_sdma_engine(&shim_w.qp, a->qp_to_sdma_engine.sc5);
	out->sdma_engine = shim_sde_index(sde);
	return 0;
}

SHIM_CALL(qp_to_send_context)
{
	const struct shim_args *a = &c->args;
	struct send_context *sc;

	shim_begin(c, out);
	sc = qp_to_send_context(&shim_w.qp, a->qp_to_send_context.sc5);
	out->send_context = shim_sc_index(sc);
	return 0;
}

SHIM_CALL(sdma_select_engine_sc)
{
	const struct shim_args *a = &c->args;
	struct sdma_engine *sde;

	shim_begin(c, out);
	sde = sdma_select_engine_sc(&shim_w.dd, a->sdma_select_engine_sc.selector,
				    a->sdma_select_engine_sc.sc5);
	out->sdma_engine = shim_sde_index(sde);
	return 0;
}

SHIM_CALL(sdma_select_engine_vl)
{
	const struct shim_args *a = &c->args;
	struct sdma_engine *sde;

	shim_begin(c, out);
	sde = sdma_select_engine_vl(&shim_w.dd, a->sdma_select_engine_vl.selector,
				    a->sdma_select_engine_vl.vl);
	out->sdma_engine = shim_sde_index(sde);
	return 0;
}

SHIM_CALL(pio_select_send_context_sc)
{
	const struct shim_args *a = &c->args;
	struct send_context *sc;

	shim_begin(c, out);
	sc = pio_select_send_context_sc(&shim_w.dd, a->pio_select_send_context_sc.selector,
					a->pio_select_send_context_sc.sc5);
	out->send_context = shim_sc_index(sc);
	return 0;
}

SHIM_CALL(pio_select_send_context_vl)
{
	const struct shim_args *a = &c->args;
	struct send_context *sc;

	shim_begin(c, out);
	sc = pio_select_send_context_vl(&shim_w.dd, a->pio_select_send_context_vl.selector,
					a->pio_select_send_context_vl.vl);
	out->send_context = shim_sc_index(sc);
	return 0;
}

SHIM_CALL(_hfi1_schedule_send)
{
	shim_begin(c, out);
	out->ret = _hfi1_schedule_send(&shim_w.qp);
	return 0;
}

SHIM_CALL(hfi1_schedule_send)
{
	unsigned long flags;

	shim_begin(c, out);
	/* "caller should hold the s_lock", as its callers take it (irqsave). */
	spin_lock_irqsave(&shim_w.qp.s_lock, flags);
	out->ret = hfi1_schedule_send(&shim_w.qp);
	spin_unlock_irqrestore(&shim_w.qp.s_lock, flags);
	return 0;
}

SHIM_CALL(qp_iter_print)
{
	const struct shim_args *a = &c->args;
	struct seq_file sf = { .buf = out->text, .size = sizeof(out->text) };
	struct rvt_qp_iter iter;

	shim_begin(c, out);
	memset(&iter, 0, sizeof(iter));
	iter.qp = &shim_w.qp;
	iter.n = a->qp_iter_print.n;
	qp_iter_print(&sf, &iter);
	out->text_len = sf.count < sf.size ? sf.count : sf.size - 1;
	return 0;
}

SHIM_CALL(hfi1_error_port_qps)
{
	const struct shim_args *a = &c->args;

	shim_begin(c, out);
	hfi1_error_port_qps(&shim_w.pport[c->qp.port - 1].ibport_data,
			    a->hfi1_error_port_qps.sl);
	return 0;
}

SHIM_CALL(hfi1_qp_unbusy)
{
	const struct shim_args *a = &c->args;

	shim_begin(c, out);
	hfi1_qp_unbusy(&shim_w.qp, &shim_w.priv.s_iowait.wait[a->hfi1_qp_unbusy.leg ?
							IOWAIT_TID_SE : IOWAIT_IB_SE]);
	return 0;
}

SHIM_CALL(hfi1_qp_wakeup)
{
	const struct shim_args *a = &c->args;

	shim_begin(c, out);
	hfi1_qp_wakeup(&shim_w.qp, tree_bits(a->hfi1_qp_wakeup.flags, &shim_s_flags));
	return 0;
}

SHIM_CALL(notify_error_qp)
{
	shim_begin(c, out);
	notify_error_qp(&shim_w.qp);
	/* An RDMA MR's reference, when the QP held one (rvt_put_mr). */
	if (c->qp.rdma_mr_refs.present)
		out->text_len = snprintf(out->text, sizeof(out->text),
					 "s_rdma_mr=%s mr_refs=%ld",
					 shim_w.qp.s_rdma_mr ? "set" : "NULL",
					 (long)atomic64_read(&shim_w.rdma_mr.refcount.count));
	return 0;
}

SHIM_CALL(mtu_to_path_mtu)
{
	const struct shim_args *a = &c->args;

	shim_begin(c, out);
	out->ret = mtu_to_path_mtu(a->mtu_to_path_mtu.mtu);
	return 0;
}

SHIM_CALL(mtu_from_qp)
{
	const struct shim_args *a = &c->args;

	shim_begin(c, out);
	out->ret = (s32)mtu_from_qp(&shim_w.dd.verbs_dev.rdi, &shim_w.qp,
				     a->mtu_from_qp.pmtu);
	return 0;
}

SHIM_CALL(get_pmtu_from_attr)
{
	const struct shim_args *a = &c->args;
	struct ib_qp_attr attr;

	shim_begin(c, out);
	memset(&attr, 0, sizeof(attr));
	attr.path_mtu = a->get_pmtu_from_attr.path_mtu;
	out->ret = get_pmtu_from_attr(&shim_w.dd.verbs_dev.rdi, &shim_w.qp, &attr);
	return 0;
}

SHIM_CALL(hfi1_check_modify_qp)
{
	const struct shim_args *a = &c->args;
	const struct shim_args_hfi1_check_modify_qp *m = &a->hfi1_check_modify_qp;
	struct ib_qp_attr attr;
	int mask = 0;

	shim_begin(c, out);
	memset(&attr, 0, sizeof(attr));
	shim_build_remote_ah(&attr.ah_attr, m->attr_ah.ah.sl, 0, m->attr_ah.ah.port_num);
	shim_build_remote_ah(&attr.alt_ah_attr, m->attr_alt_ah.ah.sl, 0,
			     m->attr_alt_ah.ah.port_num);
	if (m->attr_ah.present)
		mask |= IB_QP_AV;
	if (m->attr_alt_ah.present)
		mask |= IB_QP_ALT_PATH;
	out->ret = hfi1_check_modify_qp(&shim_w.qp, &attr, mask, NULL);
	return 0;
}

SHIM_CALL(hfi1_modify_qp)
{
	const struct shim_args *a = &c->args;
	const struct shim_args_hfi1_modify_qp *m = &a->hfi1_modify_qp;
	struct ib_qp_attr attr;
	int mask = 0;

	shim_begin(c, out);
	memset(&attr, 0, sizeof(attr));
	if (m->attr_av)
		mask |= IB_QP_AV;
	if (m->attr_alt_path)
		mask |= IB_QP_ALT_PATH;
	if (m->path_mig_state.present)
		mask |= IB_QP_PATH_MIG_STATE;
	attr.path_mig_state = mig_state_values[m->path_mig_state.value];
	hfi1_modify_qp(&shim_w.qp, &attr, mask, NULL);
	shim_describe_path(out);
	return 0;
}

SHIM_CALL(hfi1_migrate_qp)
{
	shim_begin(c, out);
	hfi1_migrate_qp(&shim_w.qp);
	shim_describe_path(out);
	return 0;
}

SHIM_CALL(qp_priv_alloc)
{
	struct hfi1_qp_priv *p;

	shim_begin(c, out);
	p = qp_priv_alloc(&shim_w.dd.verbs_dev.rdi, &shim_w.qp);
	shim_check_balance();
	journal_end();
	if (IS_ERR(p)) {
		out->ret = PTR_ERR(p);
	} else {
		shim_describe_priv(out, p);
		kfree(p->s_ahg);
		kfree(p);
	}
	return 0;
}

SHIM_CALL(qp_priv_free)
{
	/* Built outside the journal: only qp_priv_free's calls count. */
	struct hfi1_qp_priv *p;

	shim_begin(c, out);
	p = shim_alloc_tracked(sizeof(*p), "the QP's private data");
	p->s_ahg = shim_alloc_tracked(sizeof(*p->s_ahg), "its AHG block");
	shim_w.qp.priv = p;
	qp_priv_free(&shim_w.dd.verbs_dev.rdi, &shim_w.qp);
	shim_w.qp.priv = &shim_w.priv;
	return 0;
}

SHIM_CALL(free_all_qps)
{
	shim_begin(c, out);
	out->ret = free_all_qps(&shim_w.dd.verbs_dev.rdi);
	return 0;
}

SHIM_CALL(flush_qp_waiters)
{
	unsigned long flags;

	shim_begin(c, out);
	spin_lock_irqsave(&shim_w.qp.s_lock, flags);
	flush_qp_waiters(&shim_w.qp);
	spin_unlock_irqrestore(&shim_w.qp.s_lock, flags);
	return 0;
}

SHIM_CALL(stop_send_queue)
{
	shim_begin(c, out);
	stop_send_queue(&shim_w.qp);
	return 0;
}

SHIM_CALL(quiesce_qp)
{
	shim_begin(c, out);
	quiesce_qp(&shim_w.qp);
	return 0;
}

SHIM_CALL(notify_qp_reset)
{
	shim_begin(c, out);
	notify_qp_reset(&shim_w.qp);
	out->text_len = snprintf(out->text, sizeof(out->text),
				 "ahgidx=%d ahgcount=%u",
				 shim_w.qp.s_ahgidx, shim_w.ahg.ahgcount);
	return 0;
}

SHIM_CALL(iowait_wakeup)
{
	const struct shim_args *a = &c->args;

	if (!shim_prep_callbacks(c))
		return shim_refuse(out);
	shim_begin(c, out);
	shim_w.cb.wakeup(&shim_w.priv.s_iowait, a->iowait_wakeup.reason);
	return 0;
}

SHIM_CALL(iowait_sdma_drained)
{
	if (!shim_prep_callbacks(c))
		return shim_refuse(out);
	shim_begin(c, out);
	shim_w.cb.sdma_drained(&shim_w.priv.s_iowait);
	return 0;
}

SHIM_CALL(iowait_sleep)
{
	/* What sdma_send_txreq() passes: its engine, a leg's work, a new tx. */
	const struct shim_args_iowait_sleep *s = &c->args.iowait_sleep;
	struct iowait_work *wait =
		&shim_w.priv.s_iowait.wait[s->leg ? IOWAIT_TID_SE : IOWAIT_IB_SE];

	struct verbs_txreq *tx;

	/*
	 * A scenario's sleeps each get their own: one may still be queued.
	 * The count is a single call's or its scenario's (shim_run() zeroes
	 * it when it builds a world).
	 */
	if (shim_w.nsleep_tx == SHIM_MAX_SLEEP_TX || !shim_prep_callbacks(c))
		return shim_refuse(out);
	shim_begin(c, out);
	shim_w.sleep_tid[shim_w.nsleep_tx] = s->leg;
	tx = &shim_w.sleep_tx[shim_w.nsleep_tx++];
	tx->qp = &shim_w.qp;
	tx->txreq.num_desc = s->num_desc;
	INIT_LIST_HEAD(&tx->txreq.list);
	out->ret = shim_w.cb.sleep(shim_w.priv.s_sde, wait, &tx->txreq, s->seq, s->pkts_sent);
	return 0;
}

SHIM_CALL(hfi1_init_priority)
{
	if (!shim_prep_callbacks(c))
		return shim_refuse(out);
	shim_begin(c, out);
	shim_w.priv.s_iowait.priority = 0;
	shim_w.cb.init_priority(&shim_w.priv.s_iowait);
	out->ret = shim_w.priv.s_iowait.priority;
	return 0;
}

SHIM_CALL(hfi1_post_parms)
{
	const struct shim_args *a = &c->args;

	shim_begin(c, out);
	if (a->hfi1_post_parms.opcode >= SHIM_WR_OPCODE_COUNT) {
		journal_end();
		return shim_refuse(out);
	}
	shim_describe_post_parms(out, wr_opcode_values[a->hfi1_post_parms.opcode]);
	return 0;
}

#define X(name) shim_call_##name,
static int (*const shim_calls[])(const struct shim_call *, struct shim_outcome *) = {
	SHIM_FN_NAMES(X)
};
#undef X
_Static_assert(ARRAY_SIZE(shim_calls) == SHIM_FN_COUNT, "a shim_call_ per enum shim_fn");

int shim_run(const struct shim_call *c, struct shim_outcome *out)
{
	int ret;

	/*
	 * The head up to the post-call QP, which shim_read_qp() writes field
	 * by field (its padding bytes are never written: they stay as the
	 * caller's buffer has them) or shim_refuse() clears.
	 */
	memset(out, 0, offsetof(struct shim_outcome, qp));
	out->text_len = 0;
	out->text[0] = '\0';
	out->journal_len = 0;
	out->journal[0] = '\0';
	out->notes_len = 0;
	out->notes[0] = '\0';
	out->sdma_engine = SHIM_NONE;
	out->send_context = SHIM_NONE;
	if (!shim_check_call(c) || c->fn >= SHIM_FN_COUNT ||
	    ((c->carry & SHIM_STEP_CARRIED) && !shim_scenario.have_state)) {
		shim_scenario.have_state = false;
		return shim_refuse(out);
	}
	shim_scenario.carrying = c->carry & SHIM_STEP_CARRIED;
	if (shim_scenario.carrying) {
		/*
		 * The QP is where the last call left it; the engines' fields
		 * were put back to their defaults as they were read back
		 * (shim_read_engines()): they are set again from that read.
		 */
		shim_build_engines(&shim_scenario.step.engines);
		shim_carry_ring();
		/*
		 * Failslab is the step's own (the one world field a step sets),
		 * counted from the step's first allocation.
		 */
		shim_scenario.step.world.alloc_fail = c->world.alloc_fail;
		shim_w.alloc_fail = c->world.alloc_fail;
		shim_w.nalloc = 0;
		shim_scenario.step.fn = c->fn;
		shim_scenario.step.carry = c->carry;
		shim_scenario.step.args = c->args;
		c = &shim_scenario.step;
		/* What the world's registers read: the kept call's world. */
		shim_w.sw = &c->world;
	} else {
		/* A scenario's QP has its callbacks (shim_prepare() took them). */
		if ((c->carry & SHIM_STEP_KEEP) && !shim_w.cb.wakeup) {
			shim_scenario.have_state = false;
			return shim_refuse(out);
		}
		shim_alloc_reset();
		shim_rcu_reset();
		shim_lockdep_reset();
		shim_w.nsleep_tx = 0;
		shim_build_world(&c->world);
		shim_build_engines(&c->engines);
	}
	shim_scenario.have_state = false;
	shim_w.cb_prepared = false;
	ret = shim_calls[c->fn](c, out);
	if (ret) {
		shim_read_engines(NULL);
		return ret;
	}
	shim_check_balance();
	/* After the shim's own frees (a call may have ended the journal). */
	journal_resume(out);
	/* The call's grace periods end: what it freed by RCU is freed. */
	shim_rcu_barrier();
	shim_report_leaks();
	journal_end();
	shim_read_qp(&out->qp, &c->qp, &out->s_flags_unknown);
	shim_read_engines(&out->engines);
	if (!(c->carry & SHIM_STEP_KEEP))
		return 0;
	/* The next step's pre-call state. */
	if (c != &shim_scenario.step)
		shim_scenario.step = *c;
	shim_scenario.step.qp = out->qp;
	shim_scenario.step.engines = out->engines;
	shim_scenario.have_state = true;
	return 0;
}

const char *shim_kernel_version(void)
{
	return SHIM_KERNEL_VERSION;
}
