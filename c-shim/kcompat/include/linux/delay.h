/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/delay.h>. */
#ifndef _KCOMPAT_LINUX_DELAY_H
#define _KCOMPAT_LINUX_DELAY_H

#include <linux/kernel.h>

/* Time does not pass in a C world. */
#define udelay(n)	do { (void)(n); } while (0)
#define ndelay(n)	do { (void)(n); } while (0)
#define mdelay(n)	do { (void)(n); } while (0)
#define msleep(n)	do { (void)(n); } while (0)
#define usleep_range(a, b) do { (void)(a); (void)(b); } while (0)

#endif
