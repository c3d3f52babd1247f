/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/moduleparam.h>. */
#ifndef _KCOMPAT_LINUX_MODULEPARAM_H
#define _KCOMPAT_LINUX_MODULEPARAM_H

/*
 * Module parameters keep their C variable; the declaration machinery is
 * dropped.  The world builder (c-shim/build.c) assigns the variables.
 */
#define MODULE_PARM_DESC(_parm, desc)
#define module_param(name, type, perm)
#define module_param_named(name, value, type, perm)
#define module_param_array(name, type, nump, perm)
#define module_param_cb(name, ops, arg, perm)
#define module_param_named_unsafe(name, value, type, perm)
struct kernel_param;
struct kernel_param_ops {
	unsigned int flags;
	int (*set)(const char *val, const struct kernel_param *kp);
	int (*get)(char *buffer, const struct kernel_param *kp);
	void (*free)(void *arg);
};

#endif
