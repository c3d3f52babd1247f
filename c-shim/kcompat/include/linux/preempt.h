/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/preempt.h>. */
#ifndef _KCOMPAT_LINUX_PREEMPT_H
#define _KCOMPAT_LINUX_PREEMPT_H

#define preempt_disable()	do { } while (0)
#define preempt_enable()	do { } while (0)
#define in_interrupt()		0
#define in_task()		1

#endif
