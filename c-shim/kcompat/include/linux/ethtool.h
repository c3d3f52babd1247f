/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/ethtool.h>. */
#ifndef _KCOMPAT_LINUX_ETHTOOL_H
#define _KCOMPAT_LINUX_ETHTOOL_H

#include <linux/kernel.h>

#endif
