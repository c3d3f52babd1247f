/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcompat: stands in for <linux/cpumask.h>: 64 CPUs, and
 * CONFIG_CPUMASK_OFFSTACK on, as Debian's kernels are built (NR_CPUS
 * 8192): a cpumask_var_t is allocated (failslab counts it) and freed.
 */
#ifndef _KCOMPAT_LINUX_CPUMASK_H
#define _KCOMPAT_LINUX_CPUMASK_H

#include <linux/types.h>
#include <linux/bitops.h>
#include <linux/string.h>
#include <linux/gfp.h>
#include <linux/slab.h>

#define NR_CPUS		CONFIG_NR_CPUS
#define nr_cpu_ids	((unsigned int)NR_CPUS)

struct cpumask {
	DECLARE_BITMAP(bits, NR_CPUS);
};
typedef struct cpumask cpumask_t;
typedef struct cpumask *cpumask_var_t;

#define cpumask_bits(maskp) ((maskp)->bits)

/*
 * Per-CPU data is one object: CPU 0 is the only possible one, though the
 * running CPU and those online (any of the 64) are the world's.
 */
#define for_each_possible_cpu(cpu)	for ((cpu) = 0; (cpu) < 1; (cpu)++)

static inline unsigned int cpumask_first(const struct cpumask *srcp)
{
	return find_first_bit(cpumask_bits(srcp), nr_cpu_ids);
}

static inline void cpumask_set_cpu(unsigned int cpu, struct cpumask *dstp)
{
	set_bit(cpu, cpumask_bits(dstp));
}

static inline bool cpumask_test_cpu(int cpu, const struct cpumask *cpumask)
{
	return test_bit(cpu, cpumask_bits(cpumask));
}

static inline unsigned int cpumask_weight(const struct cpumask *srcp)
{
	unsigned int i, w = 0;

	for (i = 0; i < BITS_TO_LONGS(NR_CPUS); i++)
		w += hweight_long(srcp->bits[i]);
	return w;
}

/* The online CPUs: the world's (build.c sets them). */
extern struct cpumask shim_cpu_online;
#define cpu_online_mask		((const struct cpumask *)&shim_cpu_online)

static inline unsigned int cpumask_next(int n, const struct cpumask *srcp)
{
	unsigned int i;

	for (i = n + 1; i < nr_cpu_ids; i++)
		if (test_bit(i, cpumask_bits(srcp)))
			return i;
	return nr_cpu_ids;
}

#define for_each_cpu(cpu, mask)					\
	for ((cpu) = cpumask_first(mask); (cpu) < nr_cpu_ids;		\
	     (cpu) = cpumask_next((cpu), (mask)))

#define for_each_online_cpu(cpu)	for_each_cpu((cpu), cpu_online_mask)

static inline void cpumask_copy(struct cpumask *dstp, const struct cpumask *srcp)
{
	*dstp = *srcp;
}

static inline bool cpumask_subset(const struct cpumask *src1p, const struct cpumask *src2p)
{
	unsigned int i;

	for (i = 0; i < BITS_TO_LONGS(NR_CPUS); i++)
		if (src1p->bits[i] & ~src2p->bits[i])
			return false;
	return true;
}

/*
 * lib/cpumask.c's alloc_cpumask_var_node(), zeroed, on no node: a macro so
 * a leak names the caller, as kmemleak's backtrace would.
 */
#define cpumask_size()	(BITS_TO_LONGS(NR_CPUS) * sizeof(long))
#define zalloc_cpumask_var(mask, flags)						\
	((*(mask) = kmalloc_node(cpumask_size(), (flags) | __GFP_ZERO, NUMA_NO_NODE)) != NULL)
#define free_cpumask_var(mask)	kfree(mask)

/* lib/bitmap.c; a boundary symbol (c-shim/mocks/runtime.c). */
int bitmap_parselist(const char *buf, unsigned long *maskp, int nmaskbits);

static inline int cpulist_parse(const char *buf, struct cpumask *dstp)
{
	return bitmap_parselist(buf, cpumask_bits(dstp), nr_cpu_ids);
}

static inline bool cpumask_empty(const struct cpumask *srcp)
{
	return find_first_bit(cpumask_bits(srcp), nr_cpu_ids) == nr_cpu_ids;
}

/* The arguments of %*pb and %*pbl for a mask (vsprintf's bitmap forms). */
#define cpumask_pr_args(maskp)	nr_cpu_ids, cpumask_bits(maskp)

/* lib/bitmap.c; a boundary symbol (c-shim/mocks/runtime.c). */
int bitmap_print_to_pagebuf(bool list, char *buf, const unsigned long *maskp, int nmaskbits);

static inline ssize_t cpumap_print_to_pagebuf(bool list, char *buf, const struct cpumask *mask)
{
	return bitmap_print_to_pagebuf(list, buf, cpumask_bits(mask), nr_cpu_ids);
}

#endif
