/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/rwsem.h>. */
#ifndef _KCOMPAT_LINUX_RWSEM_H
#define _KCOMPAT_LINUX_RWSEM_H

struct rw_semaphore {
	int locked;
};

#define init_rwsem(s)	((s)->locked = 0)
#define down_read(s)	((s)->locked++)
#define up_read(s)	((s)->locked--)
#define down_write(s)	((s)->locked++)
#define up_write(s)	((s)->locked--)

#endif
