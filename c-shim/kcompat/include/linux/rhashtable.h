/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/rhashtable.h>. */
#ifndef _KCOMPAT_LINUX_RHASHTABLE_H
#define _KCOMPAT_LINUX_RHASHTABLE_H

#include <linux/kernel.h>

#endif
