/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/mm.h>. */
#ifndef _KCOMPAT_LINUX_MM_H
#define _KCOMPAT_LINUX_MM_H

#include <linux/kernel.h>
#include <linux/mm_types.h>
#include <linux/vmalloc.h>

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#define offset_in_page(p)	((unsigned long)(p) & ~PAGE_MASK)
#define PAGE_ALIGN(addr)	ALIGN(addr, PAGE_SIZE)

typedef struct { unsigned long pgprot; } pgprot_t;

/* mm/; never reached by a vector. */
struct page *virt_to_page(const void *addr);
phys_addr_t page_to_phys(struct page *page);
/* A page's data: the world's pages are its four of data (c-shim/txbuild.c). */
void *page_address(const struct page *page);

#endif
