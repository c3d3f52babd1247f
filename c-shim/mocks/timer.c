// SPDX-License-Identifier: GPL-2.0
/*
 * timer.c - boundary mocks for kernel/time/timer.c.  A timer armed is
 * recorded (the world's name for it, its expiry in jiffies: time stands
 * still at 0), never run: a vector runs a timer's function as a call of
 * its own.  No timer of a world is pending, so mod_timer() answers 0.
 */
#include <linux/timer.h>

#include "journal.h"

int mod_timer(struct timer_list *timer, unsigned long expires)
{
	journal_printf("mod_timer(%s, %lu)", jp(timer), expires);
	return 0;
}

/*
 * del_timer_sync() and timer_delete_sync(): no timer of a world is
 * pending, nothing to wait for; recorded under the older name, as every
 * series journals it.
 */
int __kcompat_timer_delete_sync(struct timer_list *timer)
{
	journal_printf("del_timer_sync(%s)", jp(timer));
	return 0;
}
