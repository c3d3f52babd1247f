/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/minmax.h>. */
#ifndef _KCOMPAT_LINUX_MINMAX_H
#define _KCOMPAT_LINUX_MINMAX_H

#define min(x, y) ({ typeof(x) _x = (x); typeof(y) _y = (y); _x < _y ? _x : _y; })
#define max(x, y) ({ typeof(x) _x = (x); typeof(y) _y = (y); _x > _y ? _x : _y; })
#define min_t(type, x, y) ({ type _x = (x); type _y = (y); _x < _y ? _x : _y; })
#define max_t(type, x, y) ({ type _x = (x); type _y = (y); _x > _y ? _x : _y; })
#define clamp_t(type, val, lo, hi) min_t(type, max_t(type, val, lo), hi)
#define clamp(val, lo, hi) min(max(val, lo), hi)
/* clamp() with lo and hi converted to val's type. */
#define clamp_val(val, lo, hi) clamp_t(typeof(val), val, lo, hi)
#define min3(x, y, z) min(min(x, y), z)
#define max3(x, y, z) max(max(x, y), z)
/* Both operands compared as unsigned, whatever their types. */
#define umin(x, y) min((x) + 0u + 0ul + 0ull, (y) + 0u + 0ul + 0ull)
#define umax(x, y) max((x) + 0u + 0ul + 0ull, (y) + 0u + 0ul + 0ull)
#define swap(a, b) \
	do { typeof(a) __tmp = (a); (a) = (b); (b) = __tmp; } while (0)

#endif
