/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/types.h>. */
#ifndef _KCOMPAT_LINUX_TYPES_H
#define _KCOMPAT_LINUX_TYPES_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <uapi/linux/types.h>

typedef __s8  s8;
typedef __u8  u8;
typedef __s16 s16;
typedef __u16 u16;
typedef __s32 s32;
typedef __u32 u32;
typedef __s64 s64;
typedef __u64 u64;

typedef unsigned char		u_char;
typedef unsigned short		u_short;
typedef unsigned int		u_int;
typedef unsigned long		u_long;
typedef unsigned char		unchar;
typedef unsigned short		ushort;
typedef unsigned int		uint;
typedef unsigned long		ulong;

typedef long			ssize_t;
typedef long			off_t;
typedef long long		loff_t;
typedef int			pid_t;
typedef unsigned int		uid_t;
typedef unsigned int		gid_t;
typedef unsigned short		umode_t;
typedef unsigned int		fmode_t;
typedef unsigned int		gfp_t;
typedef unsigned int		slab_flags_t;
typedef u64			dma_addr_t;
typedef u64			phys_addr_t;
typedef u64			resource_size_t;
typedef u64			sector_t;
typedef unsigned long		uintptr_t_k;
typedef unsigned long		irq_hw_number_t;
typedef int			clockid_t;
typedef long			time64_t_k;
typedef s64			ktime_t;
typedef unsigned int		__kernel_dev_t;
typedef __kernel_dev_t		dev_t;
typedef size_t			__kernel_size_t;

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	s64 counter;
} atomic64_t;

typedef atomic64_t atomic_long_t;

struct list_head {
	struct list_head *next, *prev;
};

struct hlist_head {
	struct hlist_node *first;
};

struct hlist_node {
	struct hlist_node *next, **pprev;
};

struct callback_head {
	struct callback_head *next;
	void (*func)(struct callback_head *head);
} __attribute__((aligned(sizeof(void *))));
#define rcu_head callback_head

#define DECLARE_BITMAP(name, bits) \
	unsigned long name[((bits) + 63) / 64]

#endif
