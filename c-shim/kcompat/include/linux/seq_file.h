/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/seq_file.h>. */
#ifndef _KCOMPAT_LINUX_SEQ_FILE_H
#define _KCOMPAT_LINUX_SEQ_FILE_H

#include <linux/types.h>
#include <linux/kernel.h>

struct seq_file {
	char *buf;
	size_t size;
	size_t count;
	void *private;
};

/* fs/seq_file.c; a boundary symbol (c-shim/mocks/seq_file.c). */
void seq_printf(struct seq_file *m, const char *fmt, ...) __printf(2, 3);
void seq_puts(struct seq_file *m, const char *s);

#endif
