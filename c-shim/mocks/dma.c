// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/dma: a descriptor's mapping undone, recorded by address and
 * length (the world maps nothing; sdma.c's completion path unmaps).
 */
#include "state.h"

void dma_unmap_page_attrs(struct device *dev, dma_addr_t addr, size_t size,
			  enum dma_data_direction dir, unsigned long attrs)
{
	journal_printf("dma_unmap_page(0x%llx, %zu)", (unsigned long long)addr, size);
}
