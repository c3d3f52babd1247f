/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/kthread.h>. */
#ifndef _KCOMPAT_LINUX_KTHREAD_H
#define _KCOMPAT_LINUX_KTHREAD_H

#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/list.h>

struct kthread_worker {
	unsigned int flags;
	raw_spinlock_t lock;
	struct list_head work_list;
	struct task_struct *task;
};

struct kthread_work;
typedef void (*kthread_work_func_t)(struct kthread_work *work);

struct kthread_work {
	struct list_head node;
	kthread_work_func_t func;
	struct kthread_worker *worker;
	int canceling;
};

#endif
