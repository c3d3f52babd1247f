/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcompat: stands in for <linux/spinlock.h>.  Each C world is driven by one
 * thread, so a lock is a counter: it keeps lockdep-style assertions honest
 * without serialising anything.
 */
#ifndef _KCOMPAT_LINUX_SPINLOCK_H
#define _KCOMPAT_LINUX_SPINLOCK_H

#include <linux/types.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/lockdep.h>
#include <linux/cleanup.h>

typedef struct spinlock {
	int locked;
} spinlock_t;
typedef spinlock_t raw_spinlock_t;

typedef struct {
	int locked;
} rwlock_t;

#define __SPIN_LOCK_UNLOCKED(name)	{ 0 }
#define DEFINE_SPINLOCK(x)		spinlock_t x = __SPIN_LOCK_UNLOCKED(x)

static inline void spin_lock_init(spinlock_t *l) { l->locked = 0; }
static inline void spin_lock(spinlock_t *l)
{
	l->locked++;
	shim_lockdep_depth++;
	__kcompat_lock_acquire(l);
}

static inline void spin_unlock(spinlock_t *l)
{
	l->locked--;
	shim_lockdep_depth--;
	__kcompat_lock_release(l);
}

/* Fails on a lock held (by this thread: nothing else runs). */
static inline int spin_trylock(spinlock_t *l)
{
	if (l->locked > 0)
		return 0;
	spin_lock(l);
	return 1;
}
static inline int spin_is_locked(spinlock_t *l) { return l->locked != 0; }
#define spin_lock_irq(l)		do { local_irq_disable(); spin_lock(l); } while (0)
#define spin_unlock_irq(l)		do { spin_unlock(l); local_irq_enable(); } while (0)
#define spin_lock_bh(l)			spin_lock(l)
#define spin_unlock_bh(l)		spin_unlock(l)
#define spin_lock_irqsave(l, f)		do { local_irq_save(f); spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, f)	do { spin_unlock(l); local_irq_restore(f); } while (0)
#define raw_spin_lock_init(l)		spin_lock_init(l)
#define rwlock_init(l)			do { (l)->locked = 0; } while (0)
#define read_lock(l)			((l)->locked++, shim_lockdep_depth++)
#define read_unlock(l)			((l)->locked--, shim_lockdep_depth--)
#define write_lock_irqsave(l, f)	do { local_irq_save(f); (l)->locked++; shim_lockdep_depth++; \
					     __kcompat_lock_acquire(l); } while (0)
#define write_unlock_irqrestore(l, f)	do { (l)->locked--; shim_lockdep_depth--; \
					     __kcompat_lock_release(l); local_irq_restore(f); } while (0)

DEFINE_LOCK_GUARD_1(spinlock, spinlock_t, spin_lock(_T->lock), spin_unlock(_T->lock))
DEFINE_LOCK_GUARD_1(spinlock_irq, spinlock_t, spin_lock_irq(_T->lock),
		    spin_unlock_irq(_T->lock))
DEFINE_LOCK_GUARD_1(spinlock_irqsave, spinlock_t,
		    spin_lock_irqsave(_T->lock, _T->flags),
		    spin_unlock_irqrestore(_T->lock, _T->flags),
		    unsigned long flags)
DEFINE_LOCK_GUARD_1(spinlock_bh, spinlock_t, spin_lock_bh(_T->lock),
		    spin_unlock_bh(_T->lock))

#endif
