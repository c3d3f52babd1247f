/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/msi.h>. */
#ifndef _KCOMPAT_LINUX_MSI_H
#define _KCOMPAT_LINUX_MSI_H

#include <linux/types.h>

#endif
