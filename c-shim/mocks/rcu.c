// SPDX-License-Identifier: GPL-2.0
/*
 * rcu.c - boundary mocks for kernel/rcu.  A callback queued for after a
 * grace period (call_rcu) is recorded by the world's name for its head
 * and queued; the grace period ends as the call returns (no reader of a
 * world outlives its call): shim_rcu_barrier() then runs the callbacks,
 * in order, as rcu_barrier() waits for them.
 */
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/string.h>

#include "journal.h"
#include "rcu.h"

/* Callbacks one call may queue; one more is journalled and dropped. */
#define SHIM_RCU_MAX 8

static struct {
	struct rcu_head *head;
	void (*func)(struct rcu_head *head);
} queued[SHIM_RCU_MAX];
static unsigned int nqueued;

void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	journal_printf("call_rcu(%s)", jp(head));
	if (nqueued == SHIM_RCU_MAX) {
		journal_printf("call_rcu: more than %d callbacks, one not run", SHIM_RCU_MAX);
		return;
	}
	queued[nqueued].head = head;
	queued[nqueued].func = func;
	nqueued++;
}

/*
 * A grace period: no reader of a world runs beside its call, so it ends at
 * once (the callbacks queued before it still run as the call returns,
 * which the kernel allows).  Waiting for one inside a read-side section
 * never ends: journalled, as lockdep reports it.
 */
void synchronize_rcu(void)
{
	if (shim_rcu_depth)
		journal_printf("BUG: synchronize_rcu() in an RCU read-side critical section");
}

void shim_rcu_barrier(void)
{
	unsigned int i;

	/* A callback may queue another: it runs too. */
	for (i = 0; i < nqueued; i++)
		queued[i].func(queued[i].head);
	shim_rcu_reset();
}

void shim_rcu_reset(void)
{
	/* No pointer is kept: the leak check reads this table too. */
	memset(queued, 0, sizeof(queued));
	nqueued = 0;
}
