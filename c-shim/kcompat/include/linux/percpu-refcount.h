/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/percpu-refcount.h>. */
#ifndef _KCOMPAT_LINUX_PERCPU_REFCOUNT_H
#define _KCOMPAT_LINUX_PERCPU_REFCOUNT_H

#include <linux/kernel.h>
#include <linux/atomic.h>
#include <linux/rcupdate.h>
#include <linux/gfp.h>

/*
 * A percpu_ref is one atomic counter here.  The release callback runs when
 * it drops to zero after percpu_ref_kill(), as in the kernel.
 */
struct percpu_ref;
typedef void (percpu_ref_func_t)(struct percpu_ref *);

struct percpu_ref {
	atomic_long_t count;
	percpu_ref_func_t *release;
	bool dead;
};

static inline void percpu_ref_get(struct percpu_ref *ref)
{
	atomic64_inc(&ref->count);
}

static inline void percpu_ref_put(struct percpu_ref *ref)
{
	if (atomic64_dec_return(&ref->count) == 0 && ref->release)
		ref->release(ref);
}

static inline bool percpu_ref_tryget(struct percpu_ref *ref)
{
	return atomic64_inc_not_zero(&ref->count);
}

#endif
