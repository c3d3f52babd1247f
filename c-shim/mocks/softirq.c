// SPDX-License-Identifier: GPL-2.0
/*
 * softirq.c - boundary mocks for kernel/softirq.c.  A tasklet scheduled
 * is recorded (by its priority and the world's name for it), never run:
 * a vector runs a tasklet as a call of its own.
 */
#include <linux/interrupt.h>

#include "journal.h"

void __tasklet_hi_schedule(struct tasklet_struct *t)
{
	journal_printf("tasklet_hi_schedule(%s)", jp(t));
}
