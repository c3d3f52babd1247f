/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/irqflags.h>; there are no interrupts. */
#ifndef _KCOMPAT_LINUX_IRQFLAGS_H
#define _KCOMPAT_LINUX_IRQFLAGS_H

#define local_irq_save(f)	do { (f) = 0; } while (0)
#define local_irq_restore(f)	do { (void)(f); } while (0)
#define local_irq_disable()	do { } while (0)
#define local_irq_enable()	do { } while (0)
#define irqs_disabled()		0

#endif
