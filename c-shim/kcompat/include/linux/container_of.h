/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/container_of.h>. */
#ifndef _KCOMPAT_LINUX_CONTAINER_OF_H
#define _KCOMPAT_LINUX_CONTAINER_OF_H

#include <stddef.h>

#define container_of(ptr, type, member) ({				\
	void *__mptr = (void *)(ptr);					\
	((type *)(__mptr - offsetof(type, member))); })
#define container_of_const(ptr, type, member) container_of(ptr, type, member)

#endif
