/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <net/ip.h>. */
#ifndef _KCOMPAT_NET_IP_H
#define _KCOMPAT_NET_IP_H

#include <linux/kernel.h>
#include <linux/in.h>

struct iphdr {
	__u8 ihl:4, version:4;
	__u8 tos;
	__be16 tot_len;
	__be16 id;
	__be16 frag_off;
	__u8 ttl;
	__u8 protocol;
	__sum16 check;
	__be32 saddr;
	__be32 daddr;
};

#endif
