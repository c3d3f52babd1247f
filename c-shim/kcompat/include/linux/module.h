/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/module.h>. */
#ifndef _KCOMPAT_LINUX_MODULE_H
#define _KCOMPAT_LINUX_MODULE_H

#include <linux/types.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

struct module;
#define THIS_MODULE		((struct module *)0)
#define MODULE_LICENSE(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_AUTHOR(x)
#define MODULE_ALIAS(x)
#define MODULE_DEVICE_TABLE(type, name)
#define MODULE_IMPORT_NS(ns)
#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)
#define module_init(fn)
#define module_exit(fn)

#endif
