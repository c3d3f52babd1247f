/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/printk.h>; log output is dropped. */
#ifndef _KCOMPAT_LINUX_PRINTK_H
#define _KCOMPAT_LINUX_PRINTK_H

#include <stdarg.h>

#define KERN_EMERG	""
#define KERN_ALERT	""
#define KERN_CRIT	""
#define KERN_ERR	""
#define KERN_WARNING	""
#define KERN_NOTICE	""
#define KERN_INFO	""
#define KERN_DEBUG	""
#define KERN_CONT	""

struct va_format {
	const char *fmt;
	va_list *va;
};

static inline __printf(1, 2) int __kcompat_no_printk(const char *fmt, ...)
{
	return 0;
}

#define printk(fmt, ...)	__kcompat_no_printk(fmt, ##__VA_ARGS__)
#define pr_err(fmt, ...)	__kcompat_no_printk(fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)	__kcompat_no_printk(fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)	__kcompat_no_printk(fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)	__kcompat_no_printk(fmt, ##__VA_ARGS__)
#define pr_notice(fmt, ...)	__kcompat_no_printk(fmt, ##__VA_ARGS__)
#define pr_err_ratelimited(fmt, ...) __kcompat_no_printk(fmt, ##__VA_ARGS__)
#define pr_warn_ratelimited(fmt, ...) __kcompat_no_printk(fmt, ##__VA_ARGS__)
#define pr_warn_once(fmt, ...)	__kcompat_no_printk(fmt, ##__VA_ARGS__)
#define printk_ratelimit()	0
#define no_printk(fmt, ...)	__kcompat_no_printk(fmt, ##__VA_ARGS__)

#endif
