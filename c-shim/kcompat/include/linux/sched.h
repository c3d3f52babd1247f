/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/sched.h>. */
#ifndef _KCOMPAT_LINUX_SCHED_H
#define _KCOMPAT_LINUX_SCHED_H

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/jiffies.h>
#include <linux/wait.h>
#include <linux/hrtimer.h>
#include <linux/rbtree.h>
#include <linux/cred.h>
#include <linux/rcupdate.h>
#include <linux/seqlock.h>

#define TASK_COMM_LEN	16

struct task_struct {
	pid_t pid;
	pid_t tgid;
	char comm[TASK_COMM_LEN];
	int nr_cpus_allowed;	/* the world's */
};

/* The one task of a C world (c-shim/mocks). */
extern struct task_struct *__kcompat_current;
#define current __kcompat_current

static inline pid_t task_pid_nr(struct task_struct *tsk) { return tsk->pid; }
static inline pid_t task_tgid_nr(struct task_struct *tsk) { return tsk->tgid; }

#endif
