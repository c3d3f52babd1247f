/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcompat: stands in for <linux/smp.h>.  The CPU the world's one task runs
 * on is the world's (build.c sets it): what a per-CPU lookup keys on.
 * Per-CPU data is still one object (percpu.h).
 */
#ifndef _KCOMPAT_LINUX_SMP_H
#define _KCOMPAT_LINUX_SMP_H

extern int shim_this_cpu;
#define smp_processor_id()	(shim_this_cpu)

#endif
