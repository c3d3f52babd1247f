/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/nodemask.h>: the world's NUMA nodes. */
#ifndef _KCOMPAT_LINUX_NODEMASK_H
#define _KCOMPAT_LINUX_NODEMASK_H

#include <linux/types.h>

/* The nodes a world may have. */
#define MAX_NUMNODES	8

/* mm/page_alloc.c's node_states[N_ONLINE]; a boundary (c-shim/mocks): the world's. */
bool node_online(int node);

#define for_each_online_node(node) \
	for ((node) = 0; (node) < MAX_NUMNODES; (node)++) \
		if (node_online(node))

/* As <linux/topology.h> has it: the online nodes with CPUs. */
#define for_each_node_with_cpus(node) \
	for_each_online_node(node) \
		if (nr_cpus_node(node))

#endif
