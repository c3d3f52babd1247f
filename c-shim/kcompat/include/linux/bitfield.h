/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcompat: stands in for <linux/bitfield.h>: a field of a register named
 * by its mask.  The kernel's compile-time checks of constant masks and
 * values are left out: a tree's own build makes them.
 */
#ifndef _KCOMPAT_LINUX_BITFIELD_H
#define _KCOMPAT_LINUX_BITFIELD_H

#include <linux/types.h>

/* Where the mask's lowest set bit is. */
#define __kc_field_shift(mask)	(__builtin_ffsll(mask) - 1)

#define FIELD_MAX(mask)		((typeof(mask))((mask) >> __kc_field_shift(mask)))
#define FIELD_FIT(mask, val)	\
	(!((((typeof(mask))(val)) << __kc_field_shift(mask)) & ~(mask)))
#define FIELD_PREP(mask, val)	\
	((((typeof(mask))(val)) << __kc_field_shift(mask)) & (mask))
#define FIELD_GET(mask, reg)	\
	((typeof(mask))(((reg) & (mask)) >> __kc_field_shift(mask)))

#endif
