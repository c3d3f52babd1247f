/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcompat: stands in for <linux/bug.h> and <asm-generic/bug.h>.
 *
 * A WARN that fires is part of the observable outcome: it is recorded in
 * the C world's journal (c-shim/mocks/journal.c) instead of going to dmesg.
 * BUG() aborts the worker process; the harness reports it as a crash.
 * Neither passes __FILE__ or __LINE__: the journal leaves them out (they
 * move between releases while the behaviour does not), and a line number
 * in the code would make every function below an added line differ from
 * its base (harness/src/cworld/reach.rs).
 */
#ifndef _KCOMPAT_LINUX_BUG_H
#define _KCOMPAT_LINUX_BUG_H

#include <linux/compiler.h>
#include <linux/build_bug.h>
#include <linux/printk.h>

void __kcompat_warn(const char *cond);
void __kcompat_bug(void) __attribute__((__noreturn__));

#define WARN_ON(condition) ({						\
	int __ret_warn_on = !!(condition);				\
	if (unlikely(__ret_warn_on))					\
		__kcompat_warn(#condition);				\
	unlikely(__ret_warn_on);					\
})
/* Its message's arguments evaluated when it fires, as the kernel's are. */
#define WARN(condition, format...) ({					\
	int __ret_warn = !!(condition);					\
	if (unlikely(__ret_warn)) {					\
		__kcompat_warn(#condition);				\
		_dev_printk("", NULL, format);				\
	}								\
	unlikely(__ret_warn);						\
})
#define WARN_ON_ONCE(condition)		WARN_ON(condition)
#define WARN_ONCE(condition, format...)	WARN(condition, format)
#define BUG()				__kcompat_bug()
#define BUG_ON(condition)		do { if (unlikely(condition)) BUG(); } while (0)

#endif
