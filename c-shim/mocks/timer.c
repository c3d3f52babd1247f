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
