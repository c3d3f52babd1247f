/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/rcupdate.h>; readers never race writers here. */
#ifndef _KCOMPAT_LINUX_RCUPDATE_H
#define _KCOMPAT_LINUX_RCUPDATE_H

#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/lockdep.h>

/* Read sections are counted (linux/lockdep.h): one left open is seen. */
#define rcu_read_lock()			do { shim_rcu_depth++; } while (0)
#define rcu_read_unlock()		do { shim_rcu_depth--; } while (0)
#define rcu_read_lock_bh()		rcu_read_lock()
#define rcu_read_unlock_bh()		rcu_read_unlock()
#define rcu_read_lock_sched()		rcu_read_lock()
#define rcu_read_unlock_sched()		rcu_read_unlock()
#define rcu_dereference(p)		READ_ONCE(p)
#define rcu_dereference_bh(p)		READ_ONCE(p)
#define rcu_dereference_sched(p)	READ_ONCE(p)
#define rcu_dereference_raw(p)		READ_ONCE(p)
#define rcu_dereference_check(p, c)	READ_ONCE(p)
#define rcu_dereference_protected(p, c)	(p)
#define rcu_access_pointer(p)		READ_ONCE(p)
#define rcu_assign_pointer(p, v)	WRITE_ONCE(p, v)
#define RCU_INIT_POINTER(p, v)		WRITE_ONCE(p, v)
#define RCU_LOCKDEP_WARN(c, s)		do { } while (0)

/* kernel/rcu; a boundary symbol (c-shim/mocks). */
void synchronize_rcu(void);
void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));
#define kfree_rcu(ptr, rhf...)		kfree(ptr)

#endif
