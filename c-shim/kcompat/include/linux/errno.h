/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/errno.h>. */
#ifndef _KCOMPAT_LINUX_ERRNO_H
#define _KCOMPAT_LINUX_ERRNO_H

#include <uapi/asm-generic/errno.h>

/* Kernel-internal: a sleep interrupted by a signal, restarted. */
#define ERESTARTSYS	512

#endif
