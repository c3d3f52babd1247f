/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcompat: stands in for <linux/rcupdate.h>.  Readers never race writers
 * here, so what PROVE_RCU and KASAN would catch in a kernel is checked at
 * the writer's side (c-shim/mocks/rcu.c): a pointer published with
 * rcu_assign_pointer() or RCU_INIT_POINTER() and then freed with no grace
 * period between, a dereference outside a read-side section or without
 * the protection rcu_dereference_protected() names.  The checks are out of
 * line: no branch of theirs is counted as upstream's.
 */
#ifndef _KCOMPAT_LINUX_RCUPDATE_H
#define _KCOMPAT_LINUX_RCUPDATE_H

#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/lockdep.h>
#include <linux/cleanup.h>
#include <linux/version.h>

/* Read sections are counted (linux/lockdep.h): one left open is seen. */
#define rcu_read_lock()			do { shim_rcu_depth++; } while (0)
#define rcu_read_unlock()		do { shim_rcu_depth--; } while (0)
#define rcu_read_lock_bh()		rcu_read_lock()
#define rcu_read_unlock_bh()		rcu_read_unlock()
#define rcu_read_lock_sched()		rcu_read_lock()
#define rcu_read_unlock_sched()		rcu_read_unlock()
#define rcu_dereference(p)		(__kcompat_rcu_deref(shim_rcu_depth, __func__), READ_ONCE(p))
#define rcu_dereference_bh(p)		READ_ONCE(p)
#define rcu_dereference_sched(p)	READ_ONCE(p)
#define rcu_dereference_raw(p)		READ_ONCE(p)
#define rcu_dereference_check(p, c)	READ_ONCE(p)
#define rcu_dereference_protected(p, c)	(__kcompat_rcu_protected(!!(c), #c), (p))
#define rcu_access_pointer(p)		READ_ONCE(p)
#define rcu_assign_pointer(p, v) do {					\
		__kcompat_rcu_replace((const void *)READ_ONCE(p), &(p));	\
		WRITE_ONCE(p, v);					\
	} while (0)
#define RCU_INIT_POINTER(p, v)		rcu_assign_pointer(p, v)
#define RCU_LOCKDEP_WARN(c, s)		do { } while (0)

/* kernel/rcu; a boundary symbol (c-shim/mocks). */
void synchronize_rcu(void);
void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));
/*
 * kfree_rcu(): freed when the call's grace period ends.  As the kernel
 * does, the callback is the offset of the head in the object (kvfree_rcu's
 * encoding), which the shim's end of a grace period frees by, and a NULL
 * pointer is nothing.  Without a head (one argument, v5.12 to v6.3;
 * kfree_rcu_mightsleep() from v6.3) it waits for a grace period, then
 * frees; NULL is nothing there either.
 */
#define __kcompat_kfree_rcu_2(ptr, rhf) do {				\
		typeof(ptr) ___p = (ptr);				\
									\
		if (___p)						\
			call_rcu(&___p->rhf, (void (*)(struct rcu_head *)) \
				 __builtin_offsetof(typeof(*(ptr)), rhf)); \
	} while (0)
#define __kcompat_kfree_rcu_1(ptr) do {					\
		typeof(ptr) ___p = (ptr);				\
									\
		if (___p) {						\
			synchronize_rcu();				\
			kfree(___p);					\
		}							\
	} while (0)
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 12, 0) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
#define __kcompat_kfree_rcu_pick(_1, _2, name, ...)	name
#define kfree_rcu(...)							\
	__kcompat_kfree_rcu_pick(__VA_ARGS__, __kcompat_kfree_rcu_2,	\
				 __kcompat_kfree_rcu_1, _)(__VA_ARGS__)
#else
#define kfree_rcu(ptr, rhf)		__kcompat_kfree_rcu_2(ptr, rhf)
#endif
/* v6.3, backported to some stable series: to every tree (see slab.h). */
#define kfree_rcu_mightsleep(ptr)	__kcompat_kfree_rcu_1(ptr)

/* The checks (c-shim/mocks/rcu.c). */
void __kcompat_rcu_deref(int depth, const char *func);
void __kcompat_rcu_protected(int held, const char *cond);
void __kcompat_rcu_replace(const void *old, const void *slot);

DEFINE_LOCK_GUARD_0(rcu, rcu_read_lock(), rcu_read_unlock())

#endif
