/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/if_infiniband.h>. */
#ifndef _KCOMPAT_LINUX_IF_INFINIBAND_H
#define _KCOMPAT_LINUX_IF_INFINIBAND_H

#include <linux/kernel.h>

#endif
