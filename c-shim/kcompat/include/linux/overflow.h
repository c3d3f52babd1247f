/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/overflow.h>. */
#ifndef _KCOMPAT_LINUX_OVERFLOW_H
#define _KCOMPAT_LINUX_OVERFLOW_H

#include <linux/types.h>

#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)

static inline size_t array_size(size_t a, size_t b)
{
	size_t bytes;

	return check_mul_overflow(a, b, &bytes) ? SIZE_MAX : bytes;
}

#define struct_size(p, member, count) \
	(sizeof(*(p)) + array_size(count, sizeof(*(p)->member)))
#define flex_array_size(p, member, count) array_size(count, sizeof(*(p)->member))

#endif
