// SPDX-License-Identifier: GPL-2.0
/*
 * context.c - the context upstream calls each function in, which the shim
 * calls it in: interrupts off for some (lockdep's irq-safety check reads
 * the state; c-shim/mocks/lockdep.c).
 */
#include "state.h"

/*
 * The functions upstream only calls with interrupts off: under the QP's
 * s_lock or another _irqsave lock its caller holds, or from an interrupt
 * or a callback of one.  The shim calls them so (lockdep's irq-safety
 * check would otherwise see their plain locks taken with interrupts on).
 */
bool shim_entry_irqs_off(u32 fn)
{
	switch (fn) {
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
		return true;
	default:
		return false;
	}
}
