/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/vmalloc.h>. */
#ifndef _KCOMPAT_LINUX_VMALLOC_H
#define _KCOMPAT_LINUX_VMALLOC_H

#include <linux/slab.h>

#define vmalloc(size)		kmalloc(size, GFP_KERNEL)
#define vzalloc(size)		kzalloc(size, GFP_KERNEL)
#define vzalloc_node(size, n)	kzalloc_node(size, GFP_KERNEL, n)
#define vmalloc_node(size, n)	kmalloc_node(size, GFP_KERNEL, n)
#define vfree(p)		kfree(p)

#endif
