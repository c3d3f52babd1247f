/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcompat: stands in for <linux/bitfield.h>: a field of a register named
 * by its mask.  As in the kernel, the mask must be a constant, non-zero
 * run of bits, a constant value must fit the field, and each macro is a
 * statement expression (no use at file scope or as a case label): what a
 * real build rejects, a world's build rejects.
 */
#ifndef _KCOMPAT_LINUX_BITFIELD_H
#define _KCOMPAT_LINUX_BITFIELD_H

#include <linux/types.h>

/* Where the mask's lowest set bit is. */
#define __kc_field_shift(mask)	(__builtin_ffsll(mask) - 1)

#define __kc_field_check(mask, val, what)				\
	_Static_assert(__builtin_constant_p(mask),			\
		       what ": mask is not constant");			\
	_Static_assert((mask) != 0, what ": mask is zero");		\
	_Static_assert((((mask) + (1ULL << __kc_field_shift(mask))) &	\
			(mask)) == 0, what ": mask is not contiguous");	\
	_Static_assert(__builtin_constant_p(val) ?			\
		       !((u64)(val) & ~(u64)((mask) >>			\
					     __kc_field_shift(mask))) : 1, \
		       what ": value too large for the field")

#define FIELD_MAX(mask) ({						\
	__kc_field_check(mask, 0, "FIELD_MAX");				\
	(typeof(mask))((mask) >> __kc_field_shift(mask)); })
#define FIELD_FIT(mask, val) ({						\
	__kc_field_check(mask, 0, "FIELD_FIT");				\
	!((((typeof(mask))(val)) << __kc_field_shift(mask)) & ~(mask)); })
#define FIELD_PREP(mask, val) ({					\
	__kc_field_check(mask, val, "FIELD_PREP");			\
	(((typeof(mask))(val)) << __kc_field_shift(mask)) & (mask); })
#define FIELD_GET(mask, reg) ({						\
	__kc_field_check(mask, 0, "FIELD_GET");				\
	(typeof(mask))(((reg) & (mask)) >> __kc_field_shift(mask)); })

#endif
