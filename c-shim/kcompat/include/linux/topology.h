/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/topology.h> and <asm/topology.h>. */
#ifndef _KCOMPAT_LINUX_TOPOLOGY_H
#define _KCOMPAT_LINUX_TOPOLOGY_H

#include <linux/cpumask.h>
#include <linux/nodemask.h>

#define NUMA_NO_NODE	(-1)

/* arch/x86/mm/numa.c; a boundary symbol (c-shim/mocks): the world's topology. */
const struct cpumask *cpumask_of_node(int node);

#define nr_cpus_node(node)	cpumask_weight(cpumask_of_node(node))

#endif
