/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/hrtimer.h>. */
#ifndef _KCOMPAT_LINUX_HRTIMER_H
#define _KCOMPAT_LINUX_HRTIMER_H

#include <linux/kernel.h>
#include <linux/rbtree.h>

enum hrtimer_restart {
	HRTIMER_NORESTART,
	HRTIMER_RESTART,
};

struct hrtimer {
	struct rb_node node;
	ktime_t _softexpires;
	enum hrtimer_restart (*function)(struct hrtimer *);
	u8 state;
};

#endif
