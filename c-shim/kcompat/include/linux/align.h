/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/align.h>. */
#ifndef _KCOMPAT_LINUX_ALIGN_H
#define _KCOMPAT_LINUX_ALIGN_H

#define __ALIGN_KERNEL_MASK(x, mask)	(((x) + (mask)) & ~(mask))
#define __ALIGN_KERNEL(x, a)		__ALIGN_KERNEL_MASK(x, (typeof(x))(a) - 1)
#define ALIGN(x, a)			__ALIGN_KERNEL((x), (a))
#define ALIGN_DOWN(x, a)		__ALIGN_KERNEL((x) - ((a) - 1), (a))
#define IS_ALIGNED(x, a)		(((x) & ((typeof(x))(a) - 1)) == 0)
#define PTR_ALIGN(p, a)			((typeof(p))ALIGN((unsigned long)(p), (a)))

#endif
