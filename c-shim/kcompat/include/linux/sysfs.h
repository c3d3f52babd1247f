/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/sysfs.h>. */
#ifndef _KCOMPAT_LINUX_SYSFS_H
#define _KCOMPAT_LINUX_SYSFS_H

#include <linux/compiler_types.h>

/* fs/sysfs/file.c; a boundary symbol (c-shim/mocks/runtime.c). */
int sysfs_emit(char *buf, const char *fmt, ...);

#endif
