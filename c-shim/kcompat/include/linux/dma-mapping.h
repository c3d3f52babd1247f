/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/dma-mapping.h>. */
#ifndef _KCOMPAT_LINUX_DMA_MAPPING_H
#define _KCOMPAT_LINUX_DMA_MAPPING_H

#include <linux/kernel.h>
#include <linux/device.h>
#include <linux/scatterlist.h>
#include <linux/mm.h>

enum dma_data_direction {
	DMA_BIDIRECTIONAL = 0,
	DMA_TO_DEVICE = 1,
	DMA_FROM_DEVICE = 2,
	DMA_NONE = 3,
};

#define DMA_MAPPING_ERROR	(~(dma_addr_t)0)
#define DMA_ATTR_SKIP_CPU_SYNC	(1UL << 5)

/*
 * kernel/dma; boundary symbols (c-shim/mocks/dma.c): a mapping recorded,
 * its address symbolic (where the bytes are in the world), failing where
 * the world says.  The kernel's dma_map_single_attrs() is an inline over
 * dma_map_page_attrs(virt_to_page()); here it is its own, as no pointer
 * but the world's pages has a page.
 */
dma_addr_t dma_map_page_attrs(struct device *dev, struct page *page, size_t offset,
			      size_t size, enum dma_data_direction dir, unsigned long attrs);
dma_addr_t dma_map_single_attrs(struct device *dev, void *ptr, size_t size,
				enum dma_data_direction dir, unsigned long attrs);
/* The rest: never reached by a vector; declared for the inlines of ib_verbs.h. */
void dma_unmap_page_attrs(struct device *dev, dma_addr_t addr, size_t size,
			  enum dma_data_direction dir, unsigned long attrs);
int dma_map_sg_attrs(struct device *dev, struct scatterlist *sg, int nents,
		     enum dma_data_direction dir, unsigned long attrs);
int dma_map_sgtable(struct device *dev, struct sg_table *sgt,
		    enum dma_data_direction dir, unsigned long attrs);
void dma_unmap_sg_attrs(struct device *dev, struct scatterlist *sg, int nents,
			enum dma_data_direction dir, unsigned long attrs);
void dma_unmap_sgtable(struct device *dev, struct sg_table *sgt,
		       enum dma_data_direction dir, unsigned long attrs);
dma_addr_t dma_map_resource(struct device *dev, phys_addr_t phys_addr, size_t size,
			    enum dma_data_direction dir, unsigned long attrs);
void dma_unmap_resource(struct device *dev, dma_addr_t addr, size_t size,
			enum dma_data_direction dir, unsigned long attrs);
void dma_sync_single_for_cpu(struct device *dev, dma_addr_t addr, size_t size,
			     enum dma_data_direction dir);
void dma_sync_single_for_device(struct device *dev, dma_addr_t addr, size_t size,
				enum dma_data_direction dir);
/*
 * kernel/dma/mapping.c; boundary symbols (c-shim/mocks/alloc.c): coherent
 * memory, on the device's node, tracked as kmalloc's is (the caller's name
 * and its FILE:LINE for the leak report).
 */
void *__kcompat_dma_alloc_coherent(struct device *dev, size_t size, dma_addr_t *dma_handle,
				   gfp_t gfp, const char *caller, const char *site);
#define dma_alloc_coherent(dev, size, h, gfp) \
	__kcompat_dma_alloc_coherent(dev, size, h, gfp, __func__, __kcompat_site)
void dma_free_coherent(struct device *dev, size_t size, void *cpu_addr, dma_addr_t dma_handle);
unsigned int dma_max_mapping_size(struct device *dev);
int dma_set_max_seg_size(struct device *dev, unsigned int size);
unsigned int dma_get_max_seg_size(struct device *dev);
bool dma_pci_p2pdma_supported(struct device *dev);
dma_addr_t dma_map_phys(struct device *dev, phys_addr_t phys, size_t size,
			enum dma_data_direction dir, unsigned long attrs);
void dma_unmap_phys(struct device *dev, dma_addr_t addr, size_t size,
		    enum dma_data_direction dir, unsigned long attrs);

#define dma_map_single(d, a, s, r)		dma_map_single_attrs(d, a, s, r, 0)
#define dma_unmap_single(d, a, s, r)		dma_unmap_page_attrs(d, a, s, r, 0)
#define dma_map_page(d, p, o, s, r)		dma_map_page_attrs(d, p, o, s, r, 0)
#define dma_unmap_page(d, a, s, r)		dma_unmap_page_attrs(d, a, s, r, 0)

static inline int dma_mapping_error(struct device *dev, dma_addr_t dma_addr)
{
	return dma_addr == DMA_MAPPING_ERROR ? -ENOMEM : 0;
}

#endif
