// SPDX-License-Identifier: GPL-2.0
/*
 * rdmavt.c - boundary mocks for the rdmavt runtime (drivers/infiniband/sw/
 * rdmavt), which is a separate module: hfi1 only calls into it.
 */
#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>

#include "journal.h"

int rvt_error_qp(struct rvt_qp *qp, enum ib_wc_status err)
{
	journal_printf("rvt_error_qp(%s, %d)", jp(qp), err);
	return 0;
}

void rvt_qp_iter(struct rvt_dev_info *rdi, u64 v,
		 void (*cb)(struct rvt_qp *qp, u64 v))
{
	journal_printf("rvt_qp_iter(%llu)", (unsigned long long)v);
}
