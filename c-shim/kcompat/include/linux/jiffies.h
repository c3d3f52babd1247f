/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/jiffies.h>; time stands still at 0. */
#ifndef _KCOMPAT_LINUX_JIFFIES_H
#define _KCOMPAT_LINUX_JIFFIES_H

#define HZ			250
#define jiffies			0UL
#define time_after(a, b)	((long)((b) - (a)) < 0)
#define time_before(a, b)	time_after(b, a)
#define time_after_eq(a, b)	((long)((a) - (b)) >= 0)
#define msecs_to_jiffies(m)	((unsigned long)(m) * HZ / 1000)
#define secs_to_jiffies(s)	((unsigned long)((s) * HZ))
#define usecs_to_jiffies(u)	((unsigned long)(u) * HZ / 1000000)
#define jiffies_to_msecs(j)	((unsigned int)((j) * 1000 / HZ))

#endif
