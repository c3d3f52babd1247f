/* SPDX-License-Identifier: GPL-2.0 */
/* rcu.h - the end of a call's grace period (mocks/rcu.c). */
#ifndef HFI1_CONFORMANCE_RCU_H
#define HFI1_CONFORMANCE_RCU_H

/* Runs the callbacks call_rcu() queued, in order (rcu_barrier()). */
void shim_rcu_barrier(void);
/* Drops the callbacks queued, unrun (a world built again). */
void shim_rcu_reset(void);

#endif
