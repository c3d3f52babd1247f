/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/preempt.h>. */
#ifndef _KCOMPAT_LINUX_PREEMPT_H
#define _KCOMPAT_LINUX_PREEMPT_H

/*
 * One CPU, no scheduler: what a call leaves of preemption disabled is
 * counted (spinlocks count into lockdep.h's depth instead) and the shim
 * journals it after the call, "preempt +N".
 */
extern int shim_preempt_depth;

#define preempt_disable()	do { shim_preempt_depth++; } while (0)
#define preempt_enable()	do { shim_preempt_depth--; } while (0)
#define in_interrupt()		0
#define in_task()		1

#endif
