/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/scatterlist.h>. */
#ifndef _KCOMPAT_LINUX_SCATTERLIST_H
#define _KCOMPAT_LINUX_SCATTERLIST_H

#include <linux/kernel.h>

struct scatterlist {
	unsigned long page_link;
	unsigned int offset;
	unsigned int length;
	dma_addr_t dma_address;
	unsigned int dma_length;
	unsigned int dma_flags;
};

struct sg_table {
	struct scatterlist *sgl;
	unsigned int nents;
	unsigned int orig_nents;
};

struct sg_append_table {
	struct sg_table sgt;
	struct scatterlist *prv;
	unsigned int total_nents;
};

#define sg_dma_address(sg)	((sg)->dma_address)
#define sg_dma_len(sg)		((sg)->dma_length)

#endif
