/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/u64_stats_sync.h>. */
#ifndef _KCOMPAT_LINUX_U64_STATS_SYNC_H
#define _KCOMPAT_LINUX_U64_STATS_SYNC_H

/* 64-bit: the kernel's sync is empty and its updates are no-ops. */
struct u64_stats_sync {
};

static inline void u64_stats_update_begin(struct u64_stats_sync *syncp)
{
}

static inline void u64_stats_update_end(struct u64_stats_sync *syncp)
{
}

#endif
