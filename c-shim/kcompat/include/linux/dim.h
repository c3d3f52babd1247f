/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/dim.h>. */
#ifndef _KCOMPAT_LINUX_DIM_H
#define _KCOMPAT_LINUX_DIM_H

#include <linux/kernel.h>

#endif
