/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/math.h>. */
#ifndef _KCOMPAT_LINUX_MATH_H
#define _KCOMPAT_LINUX_MATH_H

#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define roundup(x, y)		((((x) + ((y) - 1)) / (y)) * (y))
#define rounddown(x, y)		((x) - ((x) % (y)))
#define round_up(x, y)		((((x) - 1) | ((__typeof__(x))((y) - 1))) + 1)
#define round_down(x, y)	((x) & ~((__typeof__(x))((y) - 1)))

#endif
