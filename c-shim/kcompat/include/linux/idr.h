/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/idr.h>. */
#ifndef _KCOMPAT_LINUX_IDR_H
#define _KCOMPAT_LINUX_IDR_H

#include <linux/types.h>

#endif
