/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/device.h>. */
#ifndef _KCOMPAT_LINUX_DEVICE_H
#define _KCOMPAT_LINUX_DEVICE_H

#include <linux/kernel.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/uio.h>

struct device_driver;
struct bus_type;
struct class;
struct attribute_group;
struct device_dma_parameters;

struct kobject {
	const char *name;
	struct kref kref;
};

struct device {
	struct kobject kobj;
	struct device *parent;
	const char *init_name;
	void *driver_data;
	int numa_node;
	u64 *dma_mask;
	u64 coherent_dma_mask;
	struct device_dma_parameters *dma_parms;
	const struct attribute_group **groups;
	void (*release)(struct device *dev);
	struct class *class;
	dev_t devt;
};

int dev_set_name(struct device *dev, const char *name, ...) __printf(2, 3);

static inline void *dev_get_drvdata(const struct device *dev) { return dev->driver_data; }
static inline void dev_set_drvdata(struct device *dev, void *data) { dev->driver_data = data; }
static inline int dev_to_node(struct device *dev) { return dev->numa_node; }
static inline void set_dev_node(struct device *dev, int node) { dev->numa_node = node; }
static inline const char *dev_name(const struct device *dev) { return dev->kobj.name; }

/* The device's messages: arguments evaluated, text not kept (printk.h). */
#define dev_err(dev, fmt, ...)		_dev_printk(KERN_ERR, dev, fmt, ##__VA_ARGS__)
#define dev_warn(dev, fmt, ...)		_dev_printk(KERN_WARNING, dev, fmt, ##__VA_ARGS__)
#define dev_info(dev, fmt, ...)		_dev_printk(KERN_INFO, dev, fmt, ##__VA_ARGS__)
#define dev_dbg(dev, fmt, ...)		no_printk(fmt, ##__VA_ARGS__)
#define dev_notice(dev, fmt, ...)	_dev_printk(KERN_NOTICE, dev, fmt, ##__VA_ARGS__)
#define dev_err_ratelimited(dev, fmt, ...) _dev_printk(KERN_ERR, dev, fmt, ##__VA_ARGS__)
#define dev_warn_ratelimited(dev, fmt, ...) _dev_printk(KERN_WARNING, dev, fmt, ##__VA_ARGS__)
#define dev_info_ratelimited(dev, fmt, ...) _dev_printk(KERN_INFO, dev, fmt, ##__VA_ARGS__)

#endif
