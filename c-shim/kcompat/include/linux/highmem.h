/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/highmem.h>. */
#ifndef _KCOMPAT_LINUX_HIGHMEM_H
#define _KCOMPAT_LINUX_HIGHMEM_H

#include <linux/mm.h>

/*
 * No highmem: every page is mapped where page_address() says.  The
 * mappings a call holds are counted (CONFIG_DEBUG_KMAP_LOCAL's check): the
 * shim journals a call that returns holding one, or unmaps one it did not
 * map.
 */
extern int shim_kmap_depth;

static inline void *kmap(struct page *page)
{
	shim_kmap_depth++;
	return page_address(page);
}

static inline void kunmap(struct page *page)
{
	shim_kmap_depth--;
}

/* The local mappings, from v5.11, to every tree (kcompat's slab.h says why). */
static inline void *kmap_local_page(struct page *page)
{
	shim_kmap_depth++;
	return page_address(page);
}

static inline void kunmap_local(const void *addr)
{
	shim_kmap_depth--;
}

#endif
