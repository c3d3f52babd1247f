/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/io.h>. */
#ifndef _KCOMPAT_LINUX_IO_H
#define _KCOMPAT_LINUX_IO_H

#include <linux/kernel.h>

/* MMIO is a boundary (c-shim/mocks); no vector reaches a register. */
u64 readq(const volatile void __iomem *addr);
void writeq(u64 val, volatile void __iomem *addr);
u32 readl(const volatile void __iomem *addr);
void writel(u32 val, volatile void __iomem *addr);

#endif
