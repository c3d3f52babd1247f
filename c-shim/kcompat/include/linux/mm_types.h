/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/mm_types.h>. */
#ifndef _KCOMPAT_LINUX_MM_TYPES_H
#define _KCOMPAT_LINUX_MM_TYPES_H

#include <linux/types.h>

struct page {
	unsigned long flags;
};

struct mm_struct;

struct vm_area_struct {
	unsigned long vm_start;
	unsigned long vm_end;
	unsigned long vm_pgoff;
	struct mm_struct *vm_mm;
	void *vm_private_data;
};

#endif
