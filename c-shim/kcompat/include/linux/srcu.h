/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/srcu.h>. */
#ifndef _KCOMPAT_LINUX_SRCU_H
#define _KCOMPAT_LINUX_SRCU_H

#include <linux/kernel.h>
#include <linux/rcupdate.h>

struct srcu_struct {
	int idx;
};

#define srcu_read_lock(ssp)		((ssp)->idx)
#define srcu_read_unlock(ssp, idx)	do { (void)(idx); } while (0)
#define srcu_dereference(p, ssp)	READ_ONCE(p)

#endif
