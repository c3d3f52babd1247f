/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for the generated <linux/version.h>. */
#ifndef _KCOMPAT_LINUX_VERSION_H
#define _KCOMPAT_LINUX_VERSION_H

#define KERNEL_VERSION(a, b, c) (((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))
/* The tree's VERSION.PATCHLEVEL.SUBLEVEL, from its Makefile (build.rs). */
#define LINUX_VERSION_CODE	SHIM_LINUX_VERSION_CODE

#endif
