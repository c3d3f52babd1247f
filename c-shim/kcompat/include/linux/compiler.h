/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/compiler.h>. */
#ifndef _KCOMPAT_LINUX_COMPILER_H
#define _KCOMPAT_LINUX_COMPILER_H

#define barrier()		__asm__ __volatile__("" : : : "memory")
#define READ_ONCE(x)		(*(const volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, val)	do { *(volatile typeof(x) *)&(x) = (val); } while (0)
#define data_race(expr)		(expr)
#define OPTIMIZER_HIDE_VAR(var)	__asm__ ("" : "=r" (var) : "0" (var))
#define unreachable()		__builtin_unreachable()

#endif
