/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/kernel.h>. */
#ifndef _KCOMPAT_LINUX_KERNEL_H
#define _KCOMPAT_LINUX_KERNEL_H

#include <stdarg.h>
#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/compiler.h>
#include <linux/build_bug.h>
#include <linux/bits.h>
#include <linux/bitops.h>
#include <linux/minmax.h>
#include <linux/math.h>
#include <linux/container_of.h>
#include <linux/cache.h>
#include <linux/printk.h>
#include <linux/bug.h>
#include <linux/err.h>
#include <linux/log2.h>
#include <linux/limits.h>
#include <linux/align.h>
#include <linux/array_size.h>
#include <linux/cpumask.h>
#include <linux/sprintf.h>

#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
#define S32_MAX		((s32)(U32_MAX >> 1))

#define upper_32_bits(n)	((u32)(((n) >> 16) >> 16))
#define lower_32_bits(n)	((u32)((n) & 0xffffffff))
#define upper_16_bits(n)	((u16)((n) >> 16))
#define lower_16_bits(n)	((u16)((n) & 0xffff))

#define might_sleep()		do { } while (0)
#define cond_resched()		0
#define cpu_relax()		do { } while (0)

#endif
