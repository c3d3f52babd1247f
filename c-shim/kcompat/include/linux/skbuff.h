/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/skbuff.h>. */
#ifndef _KCOMPAT_LINUX_SKBUFF_H
#define _KCOMPAT_LINUX_SKBUFF_H

#include <linux/kernel.h>

#endif
