/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/percpu.h>. */
#ifndef _KCOMPAT_LINUX_PERCPU_H
#define _KCOMPAT_LINUX_PERCPU_H

#include <linux/types.h>
#include <linux/smp.h>

/* A per-CPU object is the object, whichever CPU the world's task runs on. */
#define this_cpu_ptr(ptr)	(ptr)
#define this_cpu_inc(pcp)	((pcp)++)
#define per_cpu_ptr(ptr, cpu)	((void)(cpu), (ptr))

/* mm/percpu.c; boundary symbols (c-shim/mocks/alloc.c). */
void *__kcompat_alloc_percpu(size_t size, const char *caller, const char *site);
void free_percpu(void *p);
#define alloc_percpu(type)	\
	((type *)__kcompat_alloc_percpu(sizeof(type), __func__, __kcompat_site))

#endif
