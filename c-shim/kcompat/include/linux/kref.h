/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/kref.h>. */
#ifndef _KCOMPAT_LINUX_KREF_H
#define _KCOMPAT_LINUX_KREF_H

#include <linux/refcount.h>

struct kref {
	refcount_t refcount;
};

static inline void kref_init(struct kref *kref) { refcount_set(&kref->refcount, 1); }
static inline void kref_get(struct kref *kref) { refcount_inc(&kref->refcount); }
static inline int kref_put(struct kref *kref, void (*release)(struct kref *kref))
{
	if (refcount_dec_and_test(&kref->refcount)) {
		release(kref);
		return 1;
	}
	return 0;
}

#endif
