/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcompat: stands in for <linux/workqueue.h>.  Queueing work is a boundary
 * (c-shim/mocks/workqueue.c records it); nothing ever runs queued work.
 */
#ifndef _KCOMPAT_LINUX_WORKQUEUE_H
#define _KCOMPAT_LINUX_WORKQUEUE_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/timer.h>
#include <linux/atomic.h>

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);

struct work_struct {
	atomic_long_t data;
	struct list_head entry;
	work_func_t func;
};

struct delayed_work {
	struct work_struct work;
	struct timer_list timer;
	struct workqueue_struct *wq;
	int cpu;
};

struct workqueue_struct;

#define WORK_CPU_UNBOUND	64
#define WQ_UNBOUND		(1 << 1)
#define WQ_FREEZABLE		(1 << 2)
#define WQ_MEM_RECLAIM		(1 << 3)
#define WQ_HIGHPRI		(1 << 4)
#define WQ_CPU_INTENSIVE	(1 << 5)
#define WQ_SYSFS		(1 << 6)
#define WQ_PERCPU		0

#define INIT_WORK(_work, _func)						\
	do {								\
		atomic64_set(&(_work)->data, 0);			\
		INIT_LIST_HEAD(&(_work)->entry);			\
		(_work)->func = (_func);				\
	} while (0)
#define INIT_DELAYED_WORK(_work, _func)	INIT_WORK(&(_work)->work, _func)

static inline struct delayed_work *to_delayed_work(struct work_struct *work)
{
	return container_of(work, struct delayed_work, work);
}

/* kernel/workqueue.c; boundary symbols (c-shim/mocks/workqueue.c). */
bool queue_work_on(int cpu, struct workqueue_struct *wq, struct work_struct *work);
bool cancel_work_sync(struct work_struct *work);
bool flush_work(struct work_struct *work);
bool cancel_delayed_work_sync(struct delayed_work *dwork);
bool mod_delayed_work_on(int cpu, struct workqueue_struct *wq,
			 struct delayed_work *dwork, unsigned long delay);
extern struct workqueue_struct *system_wq;
extern struct workqueue_struct *system_highpri_wq;
/* The BH workqueues (v6.9), which tasklets are converted to. */
extern struct workqueue_struct *system_bh_wq;
extern struct workqueue_struct *system_bh_highpri_wq;

#define from_work(var, callback_work, work_fieldname) \
	container_of(callback_work, typeof(*var), work_fieldname)

static inline bool queue_work(struct workqueue_struct *wq, struct work_struct *work)
{
	return queue_work_on(WORK_CPU_UNBOUND, wq, work);
}

static inline bool schedule_work(struct work_struct *work)
{
	return queue_work(system_wq, work);
}

#endif
