// SPDX-License-Identifier: GPL-2.0
/*
 * workqueue.c - boundary mocks for kernel/workqueue.c.  Work is recorded
 * (cpu, queue, item), never run; queue_work_on() answers what the world
 * says (false: the work was already queued).
 */
#include <linux/workqueue.h>

#include "journal.h"
#include "world.h"

/*
 * The system queues: tokens the journal names (wq:system, wq:highpri,
 * wq:bh, wq:bh-highpri).
 */
static char system_token;
struct workqueue_struct *system_wq = (struct workqueue_struct *)&system_token;
static char highpri_token;
struct workqueue_struct *system_highpri_wq = (struct workqueue_struct *)&highpri_token;
static char bh_token;
struct workqueue_struct *system_bh_wq = (struct workqueue_struct *)&bh_token;
static char bh_highpri_token;
struct workqueue_struct *system_bh_highpri_wq = (struct workqueue_struct *)&bh_highpri_token;

bool queue_work_on(int cpu, struct workqueue_struct *wq, struct work_struct *work)
{
	journal_printf("queue_work_on(%d, %s, %s)", cpu, jp(wq), jp(work));
	return shim_queue_work_ret();
}

/* Waiting for a work item: recorded; nothing is queued to wait for. */
bool flush_work(struct work_struct *work)
{
	journal_printf("flush_work(%s)", jp(work));
	return false;
}

bool cancel_work_sync(struct work_struct *work)
{
	journal_printf("cancel_work_sync(%s)", jp(work));
	return shim_cancel_work_ret();
}
