/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/irqreturn.h>. */
#ifndef _KCOMPAT_LINUX_IRQRETURN_H
#define _KCOMPAT_LINUX_IRQRETURN_H

enum irqreturn {
	IRQ_NONE		= (0 << 0),
	IRQ_HANDLED		= (1 << 0),
	IRQ_WAKE_THREAD		= (1 << 1),
};
typedef enum irqreturn irqreturn_t;

#endif
