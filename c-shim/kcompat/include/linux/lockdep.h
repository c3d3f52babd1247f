/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/lockdep.h>; assertions become journal warnings. */
#ifndef _KCOMPAT_LINUX_LOCKDEP_H
#define _KCOMPAT_LINUX_LOCKDEP_H

#include <linux/bug.h>

struct lock_class_key { int unused; };

#define lockdep_assert_held(l)		WARN_ON(!(l)->locked)
#define lockdep_assert_irqs_disabled()	do { } while (0)
#define lockdep_set_class(l, k)		do { (void)(k); } while (0)
#define lockdep_is_held(l)		((l)->locked != 0)

#endif
