/* SPDX-License-Identifier: GPL-2.0 */
/* rcu.h - the end of a call's grace period, and RCU misuse (mocks/rcu.c). */
#ifndef HFI1_CONFORMANCE_RCU_H
#define HFI1_CONFORMANCE_RCU_H

/*
 * The grace period ends: the call_rcu() callbacks run, in order
 * (rcu_barrier()), kfree_rcu()'s frees among them.
 */
void shim_rcu_barrier(void);
/* A world built again: callbacks dropped unrun, nothing published or reported. */
void shim_rcu_reset(void);
/* A block about to be freed ("kfree"): journalled if RCU readers may hold it. */
void shim_rcu_check_free(const void *p, const char *how);

#endif
