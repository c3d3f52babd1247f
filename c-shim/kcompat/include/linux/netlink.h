/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/netlink.h>. */
#ifndef _KCOMPAT_LINUX_NETLINK_H
#define _KCOMPAT_LINUX_NETLINK_H

#include <linux/kernel.h>

struct nlmsghdr {
	__u32 nlmsg_len;
	__u16 nlmsg_type;
	__u16 nlmsg_flags;
	__u32 nlmsg_seq;
	__u32 nlmsg_pid;
};

struct netlink_ext_ack;
struct netlink_callback;

#endif
