/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/jiffies.h>; time stands still at 0. */
#ifndef _KCOMPAT_LINUX_JIFFIES_H
#define _KCOMPAT_LINUX_JIFFIES_H

#define HZ			250
#define jiffies			0UL
#define MAX_JIFFY_OFFSET	((long)(~0UL >> 2) - 1)
#define time_after(a, b)	((long)((b) - (a)) < 0)
#define time_before(a, b)	time_after(b, a)
#define time_after_eq(a, b)	((long)((a) - (b)) >= 0)
#define secs_to_jiffies(s)	((unsigned long)((s) * HZ))
#define jiffies_to_msecs(j)	((unsigned int)((1000 / HZ) * (unsigned long)(j)))

/*
 * As the kernel converts for an HZ dividing 1000: rounded up (a timeout is
 * never shorter than asked), a negative millisecond count the longest
 * timeout there is, a microsecond count past what a jiffy count can say
 * too.
 */
static inline unsigned long msecs_to_jiffies(const unsigned int m)
{
	if ((int)m < 0)
		return MAX_JIFFY_OFFSET;
	return ((unsigned long)m + 1000 / HZ - 1) / (1000 / HZ);
}

static inline unsigned long usecs_to_jiffies(const unsigned int u)
{
	if (u > (unsigned int)((unsigned long)MAX_JIFFY_OFFSET * (1000000 / HZ)))
		return MAX_JIFFY_OFFSET;
	return ((unsigned long)u + 1000000 / HZ - 1) / (1000000 / HZ);
}

#endif
