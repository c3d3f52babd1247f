/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/cgroup_rdma.h>. */
#ifndef _KCOMPAT_LINUX_CGROUP_RDMA_H
#define _KCOMPAT_LINUX_CGROUP_RDMA_H

#include <linux/kernel.h>
/*
 * The kernel's includes <linux/cgroup.h>, which includes <linux/seq_file.h>:
 * how pio.c (seqfile_dump_sci) reaches seq_printf through rdma/ib_verbs.h.
 */
#include <linux/seq_file.h>

#endif
