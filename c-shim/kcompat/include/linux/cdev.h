/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/cdev.h>. */
#ifndef _KCOMPAT_LINUX_CDEV_H
#define _KCOMPAT_LINUX_CDEV_H

#include <linux/kernel.h>
#include <linux/device.h>
#include <linux/list.h>

struct file_operations;

struct cdev {
	struct kobject kobj;
	struct module *owner;
	const struct file_operations *ops;
	struct list_head list;
	dev_t dev;
	unsigned int count;
};

#endif
