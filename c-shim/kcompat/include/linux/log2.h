/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/log2.h>. */
#ifndef _KCOMPAT_LINUX_LOG2_H
#define _KCOMPAT_LINUX_LOG2_H

static inline int ilog2(unsigned long long n)
{
	return 63 - __builtin_clzll(n);
}

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && ((n & (n - 1)) == 0);
}

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n <= 1 ? 1 : 1UL << (64 - __builtin_clzl(n - 1));
}

#define order_base_2(n) ((n) > 1 ? ilog2((n) - 1) + 1 : 0)

#endif
