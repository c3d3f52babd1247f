/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/timer.h>; timers are a boundary (c-shim/mocks). */
#ifndef _KCOMPAT_LINUX_TIMER_H
#define _KCOMPAT_LINUX_TIMER_H

#include <linux/types.h>
#include <linux/jiffies.h>
#include <linux/container_of.h>

struct timer_list {
	struct hlist_node entry;
	unsigned long expires;
	void (*function)(struct timer_list *);
	u32 flags;
};

/*
 * from_timer() up to v6.15, timer_container_of() from v6.16 (a rename):
 * both to every tree (kcompat's slab.h says why).
 */
#define timer_container_of(var, callback_timer, timer_fieldname) \
	container_of(callback_timer, typeof(*var), timer_fieldname)
#define from_timer(var, callback_timer, timer_fieldname) \
	container_of(callback_timer, typeof(*var), timer_fieldname)

static inline void timer_setup(struct timer_list *timer,
			       void (*func)(struct timer_list *), unsigned int flags)
{
	timer->function = func;
	timer->flags = flags;
	timer->expires = 0;
	timer->entry.pprev = NULL;
}

static inline int timer_pending(const struct timer_list *timer)
{
	return timer->entry.pprev != NULL;
}

int mod_timer(struct timer_list *timer, unsigned long expires);
void add_timer(struct timer_list *timer);
/*
 * The boundary's symbols (c-shim/mocks/timer.c).  timer_delete[_sync]()
 * (v6.2, backported to some stable series) and del_timer[_sync]() (gone
 * in v6.15) to every tree (kcompat's slab.h says why).
 */
int __kcompat_timer_delete(struct timer_list *timer);
int __kcompat_timer_delete_sync(struct timer_list *timer);
#define timer_delete(t)		__kcompat_timer_delete(t)
#define timer_delete_sync(t)	__kcompat_timer_delete_sync(t)
#define del_timer(t)		__kcompat_timer_delete(t)
#define del_timer_sync(t)	__kcompat_timer_delete_sync(t)

#endif
