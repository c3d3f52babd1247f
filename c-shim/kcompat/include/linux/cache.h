/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/cache.h> (x86-64's line size). */
#ifndef _KCOMPAT_LINUX_CACHE_H
#define _KCOMPAT_LINUX_CACHE_H

#define L1_CACHE_SHIFT	6
#define L1_CACHE_BYTES	(1 << L1_CACHE_SHIFT)

#endif
