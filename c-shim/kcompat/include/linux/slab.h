/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/slab.h>. */
#ifndef _KCOMPAT_LINUX_SLAB_H
#define _KCOMPAT_LINUX_SLAB_H

#include <linux/types.h>
#include <linux/gfp.h>
#include <linux/overflow.h>
#include <linux/err.h>
#include <linux/cleanup.h>

/*
 * mm/slab_common.c; boundary symbols (c-shim/mocks/alloc.c).  The caller's
 * name goes with each allocation, for the leak's journal line (kmemleak
 * names the allocation's stack), and its FILE:LINE, which moves between
 * releases, for the leak's note beside the journal (never compared).
 */
void *__kcompat_kmalloc(size_t size, gfp_t flags, int node, const char *caller,
			const char *site);
void kfree(const void *objp);
DEFINE_FREE(kfree, void *, if (!IS_ERR_OR_NULL(_T)) kfree(_T))

#define kmalloc_node(size, flags, node)	\
	__kcompat_kmalloc(size, flags, node, __func__, __kcompat_site)
#define kmalloc(size, flags)		kmalloc_node(size, flags, NUMA_NO_NODE)
#define kzalloc(size, flags)		kmalloc(size, (flags) | __GFP_ZERO)
#define kzalloc_node(size, flags, node)	kmalloc_node(size, (flags) | __GFP_ZERO, node)
#define kcalloc(n, size, flags)		kzalloc(array_size(n, size), flags)
#define kcalloc_node(n, size, flags, node) kzalloc_node(array_size(n, size), flags, node)
#define kmalloc_array(n, size, flags)	kmalloc(array_size(n, size), flags)
/*
 * The typed allocators (v7.0, and backported to some stable series), to
 * every tree, like every interface here: the gate holds a patch's use of
 * one to the tree's own headers (harness/src/cmd/gate/lacking.rs).
 * kzalloc_objs(TYPE or VAR, COUNT[, GFP]).  The GFP argument is dropped
 * for GFP_KERNEL: the allocation mock ignores flags but __GFP_ZERO, and
 * every block it gives is zeroed anyway.
 */
#define kzalloc_objs(t, n, ...)		((typeof(t) *)kcalloc(n, sizeof(t), GFP_KERNEL))
#define kmalloc_objs(t, n, ...)		((typeof(t) *)kmalloc_array(n, sizeof(t), GFP_KERNEL))
/* kzalloc_flex(TYPE or VAR, FAM, COUNT[, GFP]): COUNT of its flexible array. */
#define kzalloc_flex(t, fam, n, ...)	\
	((typeof(t) *)kzalloc(struct_size((typeof(t) *)0, fam, n), GFP_KERNEL))
/* kzalloc_obj(TYPE or VAR[, GFP]): one zeroed object. */
#define kzalloc_obj(t, ...)		((typeof(t) *)kzalloc(sizeof(t), GFP_KERNEL))
#define kmalloc_obj(t, ...)		((typeof(t) *)kmalloc(sizeof(t), GFP_KERNEL))
/* The kv* allocators are kmalloc's here: one allocation each, as failslab counts it. */
#define kvzalloc_node(size, flags, node) kzalloc_node(size, flags, node)
#define kvfree(p)			kfree(p)
#define kfree_sensitive(p)		kfree(p)

struct kmem_cache;

/* mm/slub.c; boundary symbols (c-shim/mocks/alloc.c). */
void *kmem_cache_alloc(struct kmem_cache *s, gfp_t flags);
void kmem_cache_free(struct kmem_cache *s, void *objp);

#endif
