/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/interrupt.h>. */
#ifndef _KCOMPAT_LINUX_INTERRUPT_H
#define _KCOMPAT_LINUX_INTERRUPT_H

#include <linux/kernel.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/irqreturn.h>
#include <linux/kref.h>
#include <linux/cpumask.h>
#include <linux/container_of.h>

struct tasklet_struct {
	struct tasklet_struct *next;
	unsigned long state;
	atomic_t count;
	bool use_callback;
	union {
		void (*func)(unsigned long data);
		void (*callback)(struct tasklet_struct *t);
	};
	unsigned long data;
};

struct irq_affinity_notify {
	unsigned int irq;
	struct kref kref;
	struct work_struct work;
	void (*notify)(struct irq_affinity_notify *, const cpumask_t *mask);
	void (*release)(struct kref *ref);
};

static inline void tasklet_setup(struct tasklet_struct *t,
				 void (*callback)(struct tasklet_struct *))
{
	t->next = NULL;
	t->state = 0;
	atomic_set(&t->count, 0);
	t->use_callback = true;
	t->callback = callback;
	t->data = 0;
}

#define from_tasklet(var, callback_tasklet, tasklet_fieldname) \
	container_of(callback_tasklet, typeof(*var), tasklet_fieldname)

/* kernel/softirq.c; boundary symbols (c-shim/mocks/softirq.c). */
void __tasklet_schedule(struct tasklet_struct *t);
void __tasklet_hi_schedule(struct tasklet_struct *t);
static inline void tasklet_schedule(struct tasklet_struct *t)
{
	__tasklet_schedule(t);
}

static inline void tasklet_hi_schedule(struct tasklet_struct *t)
{
	__tasklet_hi_schedule(t);
}

#endif
