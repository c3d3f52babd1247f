// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/dma: a mapping made or undone, recorded by where its bytes are
 * and its length.  Nothing is mapped: a mapping's address is symbolic,
 * SHIM_DATA_DMA + the offset of its bytes in the world's data (any other
 * memory: SHIM_OTHER_DMA); the world says which mapping of a call fails
 * (dma_map_fail: the n-th, 0 none).
 */
#include "state.h"

/* The call's next mapping: ADDR, or DMA_MAPPING_ERROR where the world says. */
static dma_addr_t shim_dma_mapped(const char *what, dma_addr_t addr)
{
	bool fail = ++shim_w.dma_maps == shim_w.sw->dma_map_fail;

	if (fail)
		journal_printf("%s = DMA_MAPPING_ERROR", what);
	else
		journal_printf("%s = 0x%llx", what, (unsigned long long)addr);
	return fail ? DMA_MAPPING_ERROR : addr;
}

dma_addr_t dma_map_page_attrs(struct device *dev, struct page *page, size_t offset,
			      size_t size, enum dma_data_direction dir, unsigned long attrs)
{
	long at = shim_data_offset(page_address(page));
	char what[64];

	snprintf(what, sizeof(what), "dma_map_page(%s, %zu, %zu)", jp(page), offset, size);
	return shim_dma_mapped(what, at < 0 ? SHIM_OTHER_DMA : SHIM_DATA_DMA + at + offset);
}

dma_addr_t dma_map_single_attrs(struct device *dev, void *ptr, size_t size,
				enum dma_data_direction dir, unsigned long attrs)
{
	long at = shim_data_offset(ptr);
	char what[64];

	if (at < 0)
		snprintf(what, sizeof(what), "dma_map_single(%s, %zu)", jp(ptr), size);
	else
		snprintf(what, sizeof(what), "dma_map_single(data+%ld, %zu)", at, size);
	return shim_dma_mapped(what, at < 0 ? SHIM_OTHER_DMA : SHIM_DATA_DMA + at);
}

void dma_unmap_page_attrs(struct device *dev, dma_addr_t addr, size_t size,
			  enum dma_data_direction dir, unsigned long attrs)
{
	journal_printf("dma_unmap_page(0x%llx, %zu)", (unsigned long long)addr, size);
}
