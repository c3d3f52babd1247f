/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/uio.h>. */
#ifndef _KCOMPAT_LINUX_UIO_H
#define _KCOMPAT_LINUX_UIO_H

#include <linux/types.h>

struct iovec {
	void __user *iov_base;
	__kernel_size_t iov_len;
};

struct iov_iter;

#endif
