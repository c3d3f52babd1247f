/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/bvec.h>. */
#ifndef _KCOMPAT_LINUX_BVEC_H
#define _KCOMPAT_LINUX_BVEC_H

#include <linux/kernel.h>
#include <linux/mm.h>

struct bio_vec {
	struct page *bv_page;
	unsigned int bv_len;
	unsigned int bv_offset;
};

static inline void *bvec_virt(struct bio_vec *bvec)
{
	return page_address(bvec->bv_page) + bvec->bv_offset;
}

static inline phys_addr_t bvec_phys(const struct bio_vec *bvec)
{
	return page_to_phys(bvec->bv_page) + bvec->bv_offset;
}

#endif
