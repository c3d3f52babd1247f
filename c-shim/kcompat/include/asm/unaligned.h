/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <asm/unaligned.h>, which 6.12 moved to <linux/unaligned.h>. */
#ifndef _KCOMPAT_ASM_UNALIGNED_H
#define _KCOMPAT_ASM_UNALIGNED_H

#include <linux/unaligned.h>

#endif
