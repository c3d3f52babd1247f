/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/capability.h>. */
#ifndef _KCOMPAT_LINUX_CAPABILITY_H
#define _KCOMPAT_LINUX_CAPABILITY_H

#include <linux/types.h>

#define CAP_NET_RAW	13
#define CAP_SYS_ADMIN	21

/* The C world runs without privileges: capable() is always false. */
static inline bool capable(int cap) { return false; }

#endif
