/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/lockdep.h>; assertions become journal warnings. */
#ifndef _KCOMPAT_LINUX_LOCKDEP_H
#define _KCOMPAT_LINUX_LOCKDEP_H

#include <linux/bug.h>

struct lock_class_key { int unused; };

/*
 * What lockdep would know of a call: how many locks (spinlocks, rwlocks,
 * seqlock writers, mutexes) and RCU read sections are open.  Defined by the
 * world (c-shim/shim.c); every lock of spinlock.h, seqlock.h, mutex.h and
 * rcupdate.h
 * counts, and a call that returns with either not where it started is
 * recorded in its journal (a missing unlock is a behaviour change).
 */
extern int shim_lockdep_depth;
extern int shim_rcu_depth;

/*
 * Production kernels (CONFIG_LOCKDEP=n) compile lockdep_assert_held() to
 * nothing, so the caller's line has no branch of its own.  The check here
 * is out of line, in c-shim/mocks/journal.c (its branch is not counted as
 * the upstream line's), and journalled: an assertion upstream makes is part
 * of its contract (a lockdep kernel checks it), so one held is recorded and
 * one not held is a warning.
 */
void __kcompat_assert_held(int locked, const void *lock);

/*
 * Every exclusive acquisition and release of a lock (spinlock.h, rwlock
 * writers, seqlock writers, mutex.h), out of line in c-shim/mocks/lockdep.c:
 * the order locks are taken in is recorded over a world's life and an
 * ABBA order journalled, as lockdep's circular-dependency check does.
 */
void __kcompat_lock_acquire(const void *lock);
void __kcompat_lock_release(const void *lock);

#define lockdep_assert_held(l)	__kcompat_assert_held((l)->locked, (l))
#define lockdep_assert_irqs_disabled()	do { } while (0)
#define lockdep_set_class(l, k)		do { (void)(k); } while (0)
#define lockdep_is_held(l)		((l)->locked != 0)

#endif
