/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/typecheck.h>. */
#ifndef _KCOMPAT_LINUX_TYPECHECK_H
#define _KCOMPAT_LINUX_TYPECHECK_H

#include <linux/kernel.h>

#endif
