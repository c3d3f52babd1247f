/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/delay.h>. */
#ifndef _KCOMPAT_LINUX_DELAY_H
#define _KCOMPAT_LINUX_DELAY_H

#include <linux/kernel.h>

/*
 * Time does not pass in a C world: what a call would wait is added up
 * (the shim journals it after the call, "delay(N ns)"); usleep_range()
 * counts its minimum.
 */
extern u64 shim_delay_ns;

#define ndelay(n)	do { shim_delay_ns += (u64)(n); } while (0)
#define udelay(n)	do { shim_delay_ns += (u64)(n) * 1000; } while (0)
#define mdelay(n)	do { shim_delay_ns += (u64)(n) * 1000000; } while (0)
#define msleep(n)	mdelay(n)
#define usleep_range(a, b) do { (void)(b); udelay(a); } while (0)

#endif
