// SPDX-License-Identifier: GPL-2.0
/*
 * rdmavt.c - boundary mocks for the rdmavt runtime (drivers/infiniband/sw/
 * rdmavt), which is a separate module: hfi1 only calls into it.
 */
#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>

#include "journal.h"
#include "world.h"

/* Returns what the vector says for this QP (the "last WQE" answer). */
int rvt_error_qp(struct rvt_qp *qp, enum ib_wc_status err)
{
	journal_printf("rvt_error_qp(%s, %s)", jp(qp),
		       err == IB_WC_WR_FLUSH_ERR ? "IB_WC_WR_FLUSH_ERR" : "other");
	return shim_error_qp_ret(qp);
}

/*
 * Walks the world's QPs in the vector's order (iter[0], iter[1], ...),
 * calling cb on each; rdmavt would walk its QP hash table.
 */
void rvt_qp_iter(struct rvt_dev_info *rdi, u64 v,
		 void (*cb)(struct rvt_qp *qp, u64 v))
{
	int i, n = shim_iter_count();

	journal_printf("rvt_qp_iter(%llu)", (unsigned long long)v);
	for (i = 0; i < n; i++)
		cb(shim_iter_qp(i), v);
}
