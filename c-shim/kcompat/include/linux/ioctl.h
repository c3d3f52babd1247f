/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/ioctl.h>. */
#ifndef _KCOMPAT_LINUX_IOCTL_H
#define _KCOMPAT_LINUX_IOCTL_H

#include <linux/kernel.h>

#endif
