/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/mutex.h>. */
#ifndef _KCOMPAT_LINUX_MUTEX_H
#define _KCOMPAT_LINUX_MUTEX_H

#include <linux/types.h>
#include <linux/lockdep.h>
#include <linux/cleanup.h>

struct mutex {
	int locked;
};

#define DEFINE_MUTEX(m)		struct mutex m = { 0 }
#define mutex_init(m)		((m)->locked = 0)
/* Counted as lockdep counts every lock (lockdep.h): one left held is journalled. */
#define mutex_lock(m)		(__kcompat_lock_acquire(m), shim_lockdep_depth++, (m)->locked++)
#define mutex_unlock(m)		(__kcompat_lock_release(m), shim_lockdep_depth--, (m)->locked--)
#define mutex_is_locked(m)	((m)->locked != 0)
#define mutex_destroy(m)	do { } while (0)

DEFINE_GUARD(mutex, struct mutex *, mutex_lock(_T), mutex_unlock(_T))

#endif
