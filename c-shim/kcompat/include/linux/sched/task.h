/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/sched/task.h>. */
#ifndef _KCOMPAT_LINUX_SCHED_TASK_H
#define _KCOMPAT_LINUX_SCHED_TASK_H

#include <linux/sched.h>

#define get_task_struct(t)	(t)
#define put_task_struct(t)	do { (void)(t); } while (0)

#endif
