/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/in.h>. */
#ifndef _KCOMPAT_LINUX_IN_H
#define _KCOMPAT_LINUX_IN_H

#include <linux/types.h>

struct in_addr {
	__be32 s_addr;
};

struct sockaddr_in {
	unsigned short sin_family;
	__be16 sin_port;
	struct in_addr sin_addr;
	unsigned char __pad[8];
};

struct sockaddr {
	unsigned short sa_family;
	char sa_data[14];
};

struct sockaddr_storage {
	unsigned short ss_family;
	char __data[126];
} __attribute__((aligned(8)));

#endif
