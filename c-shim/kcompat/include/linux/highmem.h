/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/highmem.h>. */
#ifndef _KCOMPAT_LINUX_HIGHMEM_H
#define _KCOMPAT_LINUX_HIGHMEM_H

#include <linux/mm.h>

/* No highmem: every page is mapped where page_address() says. */
static inline void *kmap(struct page *page)
{
	return page_address(page);
}

static inline void kunmap(struct page *page)
{
}

static inline void *kmap_local_page(struct page *page)
{
	return page_address(page);
}

static inline void kunmap_local(const void *addr)
{
}

#endif
