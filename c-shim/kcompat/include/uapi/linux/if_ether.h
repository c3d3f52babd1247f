/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <uapi/linux/if_ether.h>. */
#ifndef _KCOMPAT_UAPI_LINUX_IF_ETHER_H
#define _KCOMPAT_UAPI_LINUX_IF_ETHER_H

#include <linux/types.h>

#define ETH_ALEN	6
#define ETH_HLEN	14
#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86DD
#define ETH_P_8021Q	0x8100
#define ETH_P_IBOE	0x8915

struct ethhdr {
	unsigned char h_dest[ETH_ALEN];
	unsigned char h_source[ETH_ALEN];
	__be16 h_proto;
} __attribute__((packed));

#endif
