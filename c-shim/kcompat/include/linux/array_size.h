/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/array_size.h>. */
#ifndef _KCOMPAT_LINUX_ARRAY_SIZE_H
#define _KCOMPAT_LINUX_ARRAY_SIZE_H

#define ARRAY_SIZE(arr) (sizeof(arr) / sizeof((arr)[0]))

#endif
