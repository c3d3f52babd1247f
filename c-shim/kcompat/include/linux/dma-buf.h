/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/dma-buf.h>. */
#ifndef _KCOMPAT_LINUX_DMA_BUF_H
#define _KCOMPAT_LINUX_DMA_BUF_H

#include <linux/kernel.h>

struct dma_buf;
struct dma_buf_attachment;
struct p2pdma_provider;
struct phys_vec;

#endif
