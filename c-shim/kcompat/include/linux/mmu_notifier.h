/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/mmu_notifier.h>. */
#ifndef _KCOMPAT_LINUX_MMU_NOTIFIER_H
#define _KCOMPAT_LINUX_MMU_NOTIFIER_H

#include <linux/kernel.h>
#include <linux/srcu.h>
#include <linux/mm_types.h>

struct mmu_notifier;
struct mmu_notifier_ops;
struct mmu_notifier {
	struct hlist_node hlist;
	const struct mmu_notifier_ops *ops;
	struct mm_struct *mm;
	struct rcu_head rcu;
	unsigned int users;
};

struct mmu_interval_notifier;
struct mmu_notifier_range;
struct mmu_interval_notifier_ops {
	bool (*invalidate)(struct mmu_interval_notifier *interval_sub,
			   const struct mmu_notifier_range *range,
			   unsigned long cur_seq);
};

struct mmu_interval_notifier {
	unsigned long interval_tree_start;
	unsigned long interval_tree_last;
	const struct mmu_interval_notifier_ops *ops;
	struct mm_struct *mm;
	unsigned long invalidate_seq;
};

#endif
