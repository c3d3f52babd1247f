/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/pci.h>. */
#ifndef _KCOMPAT_LINUX_PCI_H
#define _KCOMPAT_LINUX_PCI_H

#include <linux/kernel.h>
#include <linux/device.h>
#include <linux/interrupt.h>
#include <linux/io.h>

struct pci_device_id {
	__u32 vendor, device;
	__u32 subvendor, subdevice;
	__u32 class, class_mask;
	unsigned long driver_data;
	__u32 override_only;
};

struct pci_bus {
	unsigned char number;
};

struct pci_dev {
	struct pci_bus *bus;
	unsigned int devfn;
	unsigned short vendor;
	unsigned short device;
	unsigned short subsystem_vendor;
	unsigned short subsystem_device;
	u8 revision;
	struct device dev;
	unsigned int msix_enabled:1;
};

struct pci_error_handlers;
typedef unsigned int pci_ers_result_t;
typedef unsigned int pci_channel_state_t;

#define PCI_DEVICE(vend, dev) \
	.vendor = (vend), .device = (dev), .subvendor = ~0, .subdevice = ~0
#define PCI_FUNC(devfn)		((devfn) & 0x07)
#define PCI_SLOT(devfn)		(((devfn) >> 3) & 0x1f)
#define pci_name(pdev)		dev_name(&(pdev)->dev)

#endif
