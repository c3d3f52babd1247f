// SPDX-License-Identifier: GPL-2.0
/*
 * runtime.c - the generic kernel runtime a C world links against: bit
 * search, NUMA topology, wait queues (memory is alloc.c's).  Wake-ups are
 * recorded; pure look-ups are not (they are not side effects).
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/topology.h>
#include <linux/wait.h>
#include <linux/sched.h>

#include "journal.h"
#include "world.h"

static struct task_struct task0 = { .pid = 1, .tgid = 1, .comm = "hfi1-world" };
struct task_struct *__kcompat_current = &task0;

unsigned long _find_first_bit(const unsigned long *addr, unsigned long size)
{
	unsigned long i;

	for (i = 0; i < size; i++)
		if (addr[i / BITS_PER_LONG] & (1UL << (i % BITS_PER_LONG)))
			return i;
	return size;
}

bool node_online(int node)
{
	return shim_node_mask(node) != NULL;
}

const struct cpumask *cpumask_of_node(int node)
{
	const struct cpumask *m = shim_node_mask(node);

	if (!m)
		journal_printf("cpumask_of_node(%d): no such node", node);
	return m;
}

void __wake_up(struct wait_queue_head *wq_head, unsigned int mode, int nr, void *key)
{
	journal_printf("wake_up(%s)", jp(wq_head));
}

void __kcompat_wait_forever(struct wait_queue_head *wq_head)
{
	journal_printf("wait_event(%s): sleeps forever", jp(wq_head));
}
