/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <asm/page.h>. */
#ifndef _KCOMPAT_ASM_PAGE_H
#define _KCOMPAT_ASM_PAGE_H

#include <linux/mm.h>

#endif
