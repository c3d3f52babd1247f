/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/if_link.h>. */
#ifndef _KCOMPAT_LINUX_IF_LINK_H
#define _KCOMPAT_LINUX_IF_LINK_H

#include <linux/kernel.h>

struct ifla_vf_info;
struct ifla_vf_stats;
struct ifla_vf_guid;

#endif
