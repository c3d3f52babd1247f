/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/irq_poll.h>. */
#ifndef _KCOMPAT_LINUX_IRQ_POLL_H
#define _KCOMPAT_LINUX_IRQ_POLL_H

#include <linux/types.h>
#include <linux/list.h>

struct irq_poll;
typedef int (irq_poll_fn)(struct irq_poll *, int);

struct irq_poll {
	struct list_head list;
	unsigned long state;
	int weight;
	irq_poll_fn *poll;
};

#endif
