/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/cpumask.h> (CONFIG_CPUMASK_OFFSTACK off). */
#ifndef _KCOMPAT_LINUX_CPUMASK_H
#define _KCOMPAT_LINUX_CPUMASK_H

#include <linux/types.h>
#include <linux/bitops.h>

#define NR_CPUS		CONFIG_NR_CPUS
#define nr_cpu_ids	((unsigned int)NR_CPUS)

struct cpumask {
	DECLARE_BITMAP(bits, NR_CPUS);
};
typedef struct cpumask cpumask_t;
typedef struct cpumask cpumask_var_t[1];

#define cpumask_bits(maskp) ((maskp)->bits)

/* The world has one CPU, 0: the only possible one. */
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
