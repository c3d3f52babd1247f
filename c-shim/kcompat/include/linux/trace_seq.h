/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/trace_seq.h>. */
#ifndef _KCOMPAT_LINUX_TRACE_SEQ_H
#define _KCOMPAT_LINUX_TRACE_SEQ_H

#include <linux/kernel.h>

struct trace_seq {
	char buffer[4096];
	unsigned int len;
};

void trace_seq_printf(struct trace_seq *s, const char *fmt, ...) __printf(2, 3);
void trace_seq_putc(struct trace_seq *s, unsigned char c);
static inline char *trace_seq_buffer_ptr(struct trace_seq *s) { return s->buffer + s->len; }

#endif
