/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcompat: stands in for <linux/irqflags.h>.  No interrupt ever arrives;
 * the state is kept for lockdep's irq-safety check (c-shim/mocks/lockdep.c):
 * whether the world's one CPU runs with interrupts disabled, and whether
 * the call is an interrupt handler's (the shim sets it for those upstream
 * calls from hard interrupt context).  Defined by the world (c-shim/shim.c).
 */
#ifndef _KCOMPAT_LINUX_IRQFLAGS_H
#define _KCOMPAT_LINUX_IRQFLAGS_H

extern int shim_irqs_off;
extern int shim_in_hardirq;

#define local_irq_save(f)	do { (f) = shim_irqs_off; shim_irqs_off = 1; } while (0)
#define local_irq_restore(f)	do { shim_irqs_off = !!(f); } while (0)
#define local_irq_disable()	do { shim_irqs_off = 1; } while (0)
#define local_irq_enable()	do { shim_irqs_off = 0; } while (0)
#define irqs_disabled()		(shim_irqs_off != 0)

#endif
