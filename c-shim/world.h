/* SPDX-License-Identifier: GPL-2.0 */
/*
 * world.h - what the mocks may ask of the world of the call being run.
 *
 * build.c builds a world from each flat call; the mocks answer upstream's
 * boundary calls from it (never deciding anything themselves). This is the
 * whole of what they may ask: names of the world's objects for the journal,
 * and the answers the vector chose for the boundary.
 */
#ifndef HFI1_CONFORMANCE_WORLD_H
#define HFI1_CONFORMANCE_WORLD_H

#include <linux/types.h>

struct rvt_qp;
struct cpumask;

/* The symbolic name of a pointer into the world ("sde#3", "qp#0x40"). */
int shim_ptr_name(const void *p, char *buf, size_t len);
int shim_lock_name(const void *p, char *buf, size_t len);
/*
 * The RCU-protected pointers the world built, published (dd->pio_map,
 * dd->sdma_map), NULL-terminated; and whether p is in the world's own data
 * (a pointer there is read safely at any time: never freed).
 */
const void *const *shim_rcu_world_slots(void);
bool shim_in_world_data(const void *p);
/* kcompat lockdep: a world is built, nothing held, no lock order seen. */
void shim_lockdep_reset(void);
/* The CPUs of a NUMA node (NULL: no such node). */
const struct cpumask *shim_node_mask(int node);
/*
 * The bus address of coherent DMA memory of `size` bytes on a node:
 * symbolic, by node and size, so that blocks of different sizes (an
 * engine's ring, the heads, the pad) have different addresses.
 */
static inline u64 shim_dma_handle(int node, size_t size)
{
	return ((u64)(node + 1) << 32) + ((u64)size << 12);
}
/* What queue_work_on(), hfi1_schedule_tid_send() and cancel_work_sync()
 * return. */
bool shim_queue_work_ret(void);
/* What chip.c's is_bx() answers: the chip is a B step. */
bool shim_chip_bx(void);
/* What chip.c's ns_to_cclock() answers (world.ns_to_cclock). */
u32 shim_ns_to_cclock(void);
/* The name of a register address get_csr_addr() gave (mocks/chip.c). */
void shim_csr_addr_name(const void __iomem *addr, char *buf, size_t len);
bool shim_tid_send_ret(void);
bool shim_cancel_work_ret(void);
/* What the register at a chip offset reads (0 for one the world does not
 * set). */
u64 shim_csr_value(u32 offset);
/* Whether the next allocation of the call fails. */
bool shim_alloc_fails(void);
/* The QPs rvt_qp_iter() walks, and what rvt_error_qp() returns for each. */
int shim_iter_count(void);
struct rvt_qp *shim_iter_qp(int i);
int shim_error_qp_ret(const struct rvt_qp *qp);

#endif
