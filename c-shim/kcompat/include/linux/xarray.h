/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/xarray.h>. */
#ifndef _KCOMPAT_LINUX_XARRAY_H
#define _KCOMPAT_LINUX_XARRAY_H

#include <linux/kernel.h>
#include <linux/spinlock.h>
#include <linux/gfp.h>
#include <linux/rcupdate.h>

struct xarray {
	spinlock_t xa_lock;
	gfp_t xa_flags;
	void *xa_head;
};

#define XA_FLAGS_ALLOC		0x4u
#define XA_FLAGS_ALLOC1		0x8u
#define xa_init_flags(xa, f)	do { (xa)->xa_head = NULL; (xa)->xa_flags = (f); } while (0)
#define xa_init(xa)		xa_init_flags(xa, 0)

/* lib/xarray.c; a boundary symbol (c-shim/mocks). */
void *xa_load(struct xarray *xa, unsigned long index);

#define xa_lock(xa)		spin_lock(&(xa)->xa_lock)
#define xa_unlock(xa)		spin_unlock(&(xa)->xa_lock)

#endif
