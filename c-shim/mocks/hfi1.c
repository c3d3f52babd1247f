// SPDX-License-Identifier: GPL-2.0
/*
 * hfi1.c - boundary mocks for the hfi1 files this world does not compile
 * (tid_rdma.c, opfn.c, verbs.c, verbs_txreq.c, pio.c, sdma.c).  Each one
 * records its call and returns a neutral value; none decides anything.
 * c-shim/boundary.toml says why each symbol is a boundary.
 */
#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>

#include "hfi.h"
#include "qp.h"
#include "sdma.h"
#include "pio.h"
#include "verbs_txreq.h"

#include "journal.h"
#include "world.h"

/* affinity.c's: the machine's NUMA nodes as the driver counted them (build.c sets them). */
struct hfi1_affinity_node_list node_affinity;

void setup_tid_rdma_wqe(struct rvt_qp *qp, struct rvt_swqe *wqe)
{
	journal_printf("setup_tid_rdma_wqe(%s, %s)", jp(qp), jp(wqe));
}

bool hfi1_schedule_tid_send(struct rvt_qp *qp)
{
	journal_printf("hfi1_schedule_tid_send(%s)", jp(qp));
	return shim_tid_send_ret();
}

void hfi1_del_tid_reap_timer(struct rvt_qp *qp)
{
	journal_printf("hfi1_del_tid_reap_timer(%s)", jp(qp));
}

void hfi1_del_tid_retry_timer(struct rvt_qp *qp)
{
	journal_printf("hfi1_del_tid_retry_timer(%s)", jp(qp));
}

void hfi1_qp_kern_exp_rcv_clear_all(struct rvt_qp *qp)
{
	journal_printf("hfi1_qp_kern_exp_rcv_clear_all(%s)", jp(qp));
}

void hfi1_qp_priv_tid_free(struct rvt_dev_info *rdi, struct rvt_qp *qp)
{
	journal_printf("hfi1_qp_priv_tid_free(%s)", jp(qp));
}

void hfi1_tid_rdma_flush_wait(struct rvt_qp *qp)
{
	journal_printf("hfi1_tid_rdma_flush_wait(%s)", jp(qp));
}

void _hfi1_do_tid_send(struct work_struct *work)
{
	journal_printf("_hfi1_do_tid_send(%s)", jp(work));
}

void _hfi1_do_send(struct work_struct *work)
{
	journal_printf("_hfi1_do_send(%s)", jp(work));
}

void opfn_conn_error(struct rvt_qp *qp)
{
	journal_printf("opfn_conn_error(%s)", jp(qp));
}

void opfn_qp_init(struct rvt_qp *qp, struct ib_qp_attr *attr, int attr_mask)
{
	journal_printf("opfn_qp_init(%s, mask=0x%x)", jp(qp), attr_mask);
}

void hfi1_put_txreq(struct verbs_txreq *tx)
{
	journal_printf("hfi1_put_txreq(%s)", jp(tx));
}

/*
 * trace.c's hfi1_cdbg(WHICH, ...): the message recorded with its function,
 * without the trailing newline 5.10's and 6.1's messages have (later ones not).
 */
static void shim_cdbg(const char *which, const char *funct, const char *fmt, va_list ap)
{
	char msg[256];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	journal_printf("hfi1_cdbg(%s) %s: %s", which, funct, msg);
}

void __hfi1_trace_PIO(const char *funct, char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	shim_cdbg("PIO", funct, fmt, ap);
	va_end(ap);
}

void __hfi1_trace_LINKVERB(const char *funct, char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	shim_cdbg("LINKVERB", funct, fmt, ap);
	va_end(ap);
}
