/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/pci-tph.h>. */
#ifndef _KCOMPAT_LINUX_PCI_TPH_H
#define _KCOMPAT_LINUX_PCI_TPH_H

#include <linux/kernel.h>

enum tph_mem_type {
	TPH_MEM_TYPE_VM,
	TPH_MEM_TYPE_PM,
};

#endif
