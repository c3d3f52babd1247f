/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <net/ipv6.h>. */
#ifndef _KCOMPAT_NET_IPV6_H
#define _KCOMPAT_NET_IPV6_H

#include <linux/kernel.h>
#include <linux/in6.h>

static inline bool ipv6_addr_v4mapped(const struct in6_addr *a)
{
	return (a->s6_addr32[0] | a->s6_addr32[1] |
		(a->s6_addr32[2] ^ __kcompat_htonl(0x0000ffff))) == 0UL;
}

static inline void ipv6_addr_set_v4mapped(const __be32 addr, struct in6_addr *v4mapped)
{
	v4mapped->s6_addr32[0] = 0;
	v4mapped->s6_addr32[1] = 0;
	v4mapped->s6_addr32[2] = __kcompat_htonl(0x0000ffff);
	v4mapped->s6_addr32[3] = addr;
}

struct ipv6hdr {
	__u8 priority:4, version:4;
	__u8 flow_lbl[3];
	__be16 payload_len;
	__u8 nexthdr;
	__u8 hop_limit;
	struct in6_addr saddr;
	struct in6_addr daddr;
};

#endif
