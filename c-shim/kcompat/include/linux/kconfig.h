/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcompat: stands in for <linux/kconfig.h>, which kbuild force-includes in
 * every translation unit.  The C world is built as an x86_64 kernel without
 * CONFIG_* options except the ones named here: every IS_ENABLED() test of
 * an unset option is false, as in a kernel built with that option off.
 */
#ifndef _KCOMPAT_LINUX_KCONFIG_H
#define _KCOMPAT_LINUX_KCONFIG_H

#define CONFIG_X86_64 1
#define CONFIG_64BIT 1
#define CONFIG_SMP 1
#define CONFIG_NR_CPUS 64
#define CONFIG_INFINIBAND_RDMAVT 1
#define CONFIG_INFINIBAND_HFI1 1

#define __ARG_PLACEHOLDER_1 0,
#define __take_second_arg(__ignored, val, ...) val
#define __is_defined(x)			___is_defined(x)
#define ___is_defined(val)		____is_defined(__ARG_PLACEHOLDER_##val)
#define ____is_defined(arg1_or_junk)	__take_second_arg(arg1_or_junk 1, 0)
#define IS_BUILTIN(option) __is_defined(option)
#define IS_MODULE(option) __is_defined(option##_MODULE)
#define IS_REACHABLE(option) (IS_BUILTIN(option) || IS_MODULE(option))
#define IS_ENABLED(option) __or(IS_BUILTIN(option), IS_MODULE(option))
#define __or(x, y)			___or(x, y)
#define ___or(x, y)			____or(__ARG_PLACEHOLDER_##x, y)
#define ____or(arg1_or_junk, y)		__take_second_arg(arg1_or_junk 1, y)

#include <linux/compiler_types.h>

#endif
