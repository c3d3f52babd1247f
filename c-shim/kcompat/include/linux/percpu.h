/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/percpu.h>. */
#ifndef _KCOMPAT_LINUX_PERCPU_H
#define _KCOMPAT_LINUX_PERCPU_H

/* The world has one CPU: a per-CPU object is the object. */
#define this_cpu_ptr(ptr)	(ptr)
#define this_cpu_inc(pcp)	((pcp)++)
#define per_cpu_ptr(ptr, cpu)	((void)(cpu), (ptr))

#endif
