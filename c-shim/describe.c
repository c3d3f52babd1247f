// SPDX-License-Identifier: GPL-2.0
/*
 * describe.c - the text of the state some functions leave (key=value), for
 * the outcome.
 */
#include "state.h"

/* Appends to a call's text, never past its room. */
void shim_put(struct shim_outcome *out, const char *fmt, ...)
{
	size_t room = sizeof(out->text), len = out->text_len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out->text + len, room - len, fmt, ap);
	va_end(ap);
	if (n >= 0)
		out->text_len = len + n >= room ? room - 1 : len + n;
}

/* The addressing state hfi1_modify_qp/hfi1_migrate_qp leave, key=value. */
void shim_describe_path(struct shim_outcome *out)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(&shim_w.qp.remote_ah_attr);
	int n;

	n = snprintf(out->text, sizeof(out->text),
		     "s_sc=%u s_sde=%s s_sendcontext=%s hdr_type=%u port=%u dlid=0x%x grh=%d iid=0x%llx prefix=0x%llx mig=%u pkey=%u",
		     shim_w.priv.s_sc, jp(shim_w.priv.s_sde), jp(shim_w.priv.s_sendcontext),
		     shim_w.priv.hdr_type, shim_w.qp.port_num,
		     rdma_ah_get_dlid(&shim_w.qp.remote_ah_attr),
		     !!(rdma_ah_get_ah_flags(&shim_w.qp.remote_ah_attr) & IB_AH_GRH),
		     (unsigned long long)be64_to_cpu(grh->dgid.global.interface_id),
		     (unsigned long long)be64_to_cpu(grh->dgid.global.subnet_prefix),
		     shim_w.qp.s_mig_state == IB_MIG_MIGRATED ? 0 :
		     shim_w.qp.s_mig_state == IB_MIG_REARM ? 1 : 2,
		     shim_w.qp.s_pkey_index);
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

/*
 * A list head as iowait_init() leaves it: "empty" (pointing at itself),
 * "zero" (never initialised: kzalloc's bytes, which the next list or
 * wait-queue operation on it dereferences), or "linked".
 */
static const char *head_state(const struct list_head *h)
{
	if (h->next == h && h->prev == h)
		return "empty";
	if (!h->next && !h->prev)
		return "zero";
	return "linked";
}

/* A leg's back pointer to its iowait: "self", "NULL" or "other". */
static const char *iow_state(const struct iowait *iw, int leg)
{
	if (iw->wait[leg].iow == iw)
		return "self";
	return iw->wait[leg].iow ? "other" : "NULL";
}

/* What qp_priv_alloc() initialised, key=value. */
void shim_describe_priv(struct shim_outcome *out, struct hfi1_qp_priv *p)
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
	shim_put(out, " list=%s wait_dma=%s wait_pio=%s ib_tx_head=%s tid_tx_head=%s iow=%s,%s",
		 head_state(&iw->list), head_state(&iw->wait_dma.head),
		 head_state(&iw->wait_pio.head),
		 head_state(&iw->wait[IOWAIT_IB_SE].tx_head),
		 head_state(&iw->wait[IOWAIT_TID_SE].tx_head),
		 iow_state(iw, IOWAIT_IB_SE), iow_state(iw, IOWAIT_TID_SE));
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
void shim_describe_post_parms(struct shim_outcome *out, u32 opcode)
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
