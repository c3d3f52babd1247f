/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/uaccess.h>. */
#ifndef _KCOMPAT_LINUX_UACCESS_H
#define _KCOMPAT_LINUX_UACCESS_H

#include <linux/kernel.h>

/* There is no user space: the copies are boundary symbols no vector reaches. */
unsigned long copy_from_user(void *to, const void __user *from, unsigned long n);
unsigned long copy_to_user(void __user *to, const void *from, unsigned long n);
void *memdup_user(const void __user *src, size_t len);

#endif
