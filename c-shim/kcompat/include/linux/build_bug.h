/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/build_bug.h>. */
#ifndef _KCOMPAT_LINUX_BUILD_BUG_H
#define _KCOMPAT_LINUX_BUILD_BUG_H

#define BUILD_BUG_ON_ZERO(e)	((int)(sizeof(struct { int:(-!!(e)); })))
#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), "BUILD_BUG_ON: " #cond)
#define BUILD_BUG_ON_MSG(cond, msg) _Static_assert(!(cond), msg)
#define BUILD_BUG()		do { } while (0)
#define static_assert(expr, ...) _Static_assert(expr, #expr)

#endif
