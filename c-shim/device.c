// SPDX-License-Identifier: GPL-2.0
/*
 * device.c - the device's memory the QP's calls reach beyond its engines:
 * the credit return blocks of every NUMA node (dd->cr_base), built from
 * the QP's fields before a call and read back after it; the map from
 * hardware to software send contexts and the contexts' groups, built from
 * the world.
 */
#include "state.h"

/*
 * The device's credit return memory as the vector has it: cr_base for
 * every possible node and the nodes' blocks (tracked, named for the leak
 * report; each with the bus address the world gives its node), where the
 * device allocates.
 */
void shim_build_credit_return(const struct shim_qp *q)
{
	int i, n = shim_w.sw->possible_nodes;

	shim_w.pcidev.dev.numa_node = q->dev_node;
	shim_w.dd.cr_base = NULL;
	if (!q->cr_base)
		return;
	shim_w.dd.cr_base = shim_alloc_tracked(n * sizeof(*shim_w.dd.cr_base), "cr_base");
	for (i = 0; shim_w.dd.cr_base && i < n && i < MAX_NUMNODES; i++) {
		if (!(q->cr_va & (1u << i)))
			continue;
		shim_w.dd.cr_base[i].va = shim_alloc_tracked(TXE_NUM_CONTEXTS *
							     sizeof(struct credit_return),
							     "credit return block");
		shim_w.dd.cr_base[i].dma = shim_dma_handle(i, TXE_NUM_CONTEXTS *
							   sizeof(struct credit_return));
	}
}

void shim_read_credit_return(struct shim_qp *q)
{
	int i;

	q->dev_node = shim_w.pcidev.dev.numa_node;
	q->cr_base = !!shim_w.dd.cr_base;
	q->cr_va = 0;
	for (i = 0; shim_w.dd.cr_base && i < shim_w.sw->possible_nodes && i < MAX_NUMNODES; i++)
		if (shim_w.dd.cr_base[i].va)
			q->cr_va |= 1u << i;
}

/*
 * Each send context's group (sc_alloc() makes 0), and dd->hw_to_sw[] (the
 * table init_send_contexts() allocates) as sc_hw_alloc() and sc_hw_free()
 * leave it: on a hardware context, the
 * lowest send context of the world there that is not freed; INVALID_SCI
 * elsewhere.
 */
void shim_build_hw_to_sw(const struct shim_world *sw)
{
	/*
	 * TXE_NUM_CONTEXTS entries, and past them room a bug's write lands in
	 * (as in the kernel's slab, where it corrupts a neighbour): rewritten
	 * whole every world.
	 */
	static u8 hw_to_sw[256];
	int i;

	for (; shim_w.sc_group_set; shim_w.sc_group_set &= shim_w.sc_group_set - 1)
		shim_w.sc[__builtin_ctzll(shim_w.sc_group_set)].group = 0;
	for (i = 0; i < sw->sc_group.n; i++) {
		shim_w.sc[sw->sc_group.idx[i]].group = sw->sc_group.val[i];
		shim_w.sc_group_set |= BIT_ULL(sw->sc_group.idx[i]);
	}
	shim_w.dd.hw_to_sw = hw_to_sw;
	memset(hw_to_sw, INVALID_SCI, sizeof(hw_to_sw));
	for (i = (int)shim_w.nsc - 1; i >= 0; i--)
		if (shim_w.dd.send_contexts[i].sc && shim_w.sc[i].hw_context < TXE_NUM_CONTEXTS)
			shim_w.dd.hw_to_sw[shim_w.sc[i].hw_context] = i;
}
