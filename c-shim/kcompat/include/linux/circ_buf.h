/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/circ_buf.h>. */
#ifndef _KCOMPAT_LINUX_CIRC_BUF_H
#define _KCOMPAT_LINUX_CIRC_BUF_H

#include <linux/kernel.h>

#endif
