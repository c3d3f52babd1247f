/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/pid_namespace.h>. */
#ifndef _KCOMPAT_LINUX_PID_NAMESPACE_H
#define _KCOMPAT_LINUX_PID_NAMESPACE_H

#include <linux/kernel.h>

#endif
