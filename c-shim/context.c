// SPDX-License-Identifier: GPL-2.0
/*
 * context.c - the context upstream calls each function in, which the shim
 * calls it in: interrupts off for some (lockdep's irq-safety check reads
 * the state; c-shim/mocks/lockdep.c).
 */
#include "state.h"

/*
 * The context upstream calls each function in, which the shim calls it in.
 * Interrupt handlers run in hard interrupt context.  Others only run with
 * interrupts off: under the QP's s_lock or another _irqsave lock their
 * caller holds, or from an interrupt or a callback of one (lockdep's
 * irq-safety check would otherwise see their plain locks taken with
 * interrupts on).  The rest run with interrupts on.
 */
enum shim_context shim_entry_context(u32 fn)
{
	switch (fn) {
	case SHIM_FN_SDMA_ENGINE_INTERRUPT:
	case SHIM_FN_SC_GROUP_RELEASE_UPDATE:
		return SHIM_CTX_HARDIRQ;
	case SHIM_FN_HFI1_SETUP_WQE:
	case SHIM_FN__HFI1_SCHEDULE_SEND:
	case SHIM_FN_HFI1_QP_UNBUSY:
	case SHIM_FN_NOTIFY_ERROR_QP:
	case SHIM_FN_HFI1_CHECK_MODIFY_QP:
	case SHIM_FN_HFI1_MODIFY_QP:
	case SHIM_FN_HFI1_MIGRATE_QP:
	case SHIM_FN_NOTIFY_QP_RESET:
	case SHIM_FN_IOWAIT_WAKEUP:
	case SHIM_FN_IOWAIT_SDMA_DRAINED:
	case SHIM_FN_HFI1_INIT_PRIORITY:
	case SHIM_FN_IOWAIT_SLEEP:
	case SHIM_FN_SC_RELEASE_UPDATE:
	case SHIM_FN_SC_PIOBUFAVAIL:
	case SHIM_FN_SDMA_DESC_AVAIL:
	case SHIM_FN_SDMA_FLUSH:
		return SHIM_CTX_IRQS_OFF;
	default:
		return SHIM_CTX_TASK;
	}
}
