/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/gfp.h>. */
#ifndef _KCOMPAT_LINUX_GFP_H
#define _KCOMPAT_LINUX_GFP_H

#include <linux/types.h>
#include <linux/topology.h>

#define __GFP_ZERO	0x100u
#define __GFP_NOWARN	0x200u
#define __GFP_RETRY_MAYFAIL 0x400u
#define GFP_ATOMIC	0x20u
#define GFP_KERNEL	0xcc0u
#define GFP_NOWAIT	0x800u
#define GFP_NOIO	0x10u

#endif
