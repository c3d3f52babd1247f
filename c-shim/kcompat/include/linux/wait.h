/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/wait.h>; wake-ups are recorded (c-shim/mocks). */
#ifndef _KCOMPAT_LINUX_WAIT_H
#define _KCOMPAT_LINUX_WAIT_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/errno.h>

struct wait_queue_head {
	spinlock_t lock;
	struct list_head head;
};
typedef struct wait_queue_head wait_queue_head_t;

#define init_waitqueue_head(wq) \
	do { spin_lock_init(&(wq)->lock); INIT_LIST_HEAD(&(wq)->head); } while (0)

/* kernel/sched/wait.c; a boundary symbol (c-shim/mocks). */
void __wake_up(struct wait_queue_head *wq_head, unsigned int mode, int nr, void *key);
#define TASK_NORMAL		3
#define wake_up(x)		__wake_up(x, TASK_NORMAL, 1, NULL)
#define wake_up_all(x)		__wake_up(x, TASK_NORMAL, 0, NULL)
#define wake_up_interruptible(x) __wake_up(x, 1, 1, NULL)

/*
 * Nothing else runs, so a condition that is false now stays false: a
 * wait_event() that would sleep is recorded (it would hang the kernel
 * thread forever) and returns.  A timed wait times out at once.
 */
void __kcompat_wait_forever(struct wait_queue_head *wq_head);
#define wait_event(wq, cond)						\
	do {								\
		if (!(cond))						\
			__kcompat_wait_forever(&(wq));			\
	} while (0)
/* An interruptible one that would sleep: recorded, then ended as only a signal could. */
#define wait_event_interruptible(wq, cond) ({				\
	int __r = 0;							\
	if (!(cond)) {							\
		__kcompat_wait_forever(&(wq));				\
		__r = -ERESTARTSYS;					\
	}								\
	__r;								\
})
#define wait_event_interruptible_timeout(wq, cond, t) ({ long __r = (cond) ? 1 : 0; __r; })
#define wait_event_timeout(wq, cond, t)	({ long __r = (cond) ? 1 : 0; __r; })

#endif
