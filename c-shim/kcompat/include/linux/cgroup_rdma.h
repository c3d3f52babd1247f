/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/cgroup_rdma.h>. */
#ifndef _KCOMPAT_LINUX_CGROUP_RDMA_H
#define _KCOMPAT_LINUX_CGROUP_RDMA_H

#include <linux/kernel.h>

#endif
