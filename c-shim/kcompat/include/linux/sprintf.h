/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/sprintf.h>. */
#ifndef _KCOMPAT_LINUX_SPRINTF_H
#define _KCOMPAT_LINUX_SPRINTF_H

#include <stdarg.h>
#include <linux/types.h>
#include <linux/compiler_types.h>

int vsnprintf(char *buf, size_t size, const char *fmt, va_list args) __printf(3, 0);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
int scnprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

#endif
