/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcompat: stands in for <linux/printk.h>.  A message's arguments are
 * evaluated as the kernel's are (_dev_printk, a mock, with no device: a
 * NULL dereference in one faults as it would), its text is not kept.
 * pr_debug and no_printk evaluate nothing, as the kernel's without DEBUG
 * (dynamic debug off).
 */
#ifndef _KCOMPAT_LINUX_PRINTK_H
#define _KCOMPAT_LINUX_PRINTK_H

#include <stdarg.h>
#include <linux/stddef.h>

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

struct device;

/* The kernel log: a message of a device, or of none (printk). */
__printf(3, 4) void _dev_printk(const char *level, const struct device *dev,
				const char *fmt, ...);

static inline __printf(1, 2) int __kcompat_no_printk(const char *fmt, ...)
{
	return 0;
}

#define no_printk(fmt, ...)	({ if (0) __kcompat_no_printk(fmt, ##__VA_ARGS__); 0; })

#define printk(fmt, ...)	_dev_printk("", NULL, fmt, ##__VA_ARGS__)
#define pr_err(fmt, ...)	_dev_printk("", NULL, fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)	_dev_printk("", NULL, fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)	_dev_printk("", NULL, fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)	no_printk(fmt, ##__VA_ARGS__)
#define pr_notice(fmt, ...)	_dev_printk("", NULL, fmt, ##__VA_ARGS__)
#define pr_err_ratelimited(fmt, ...) _dev_printk("", NULL, fmt, ##__VA_ARGS__)
#define pr_warn_ratelimited(fmt, ...) _dev_printk("", NULL, fmt, ##__VA_ARGS__)
#define pr_warn_once(fmt, ...)	_dev_printk("", NULL, fmt, ##__VA_ARGS__)
#define printk_ratelimit()	0

#endif
