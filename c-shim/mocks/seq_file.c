// SPDX-License-Identifier: GPL-2.0
/*
 * seq_file.c - seq_printf() into the outcome's text buffer.
 *
 * The kernel prints %p as a hashed address, which no two runs share; here
 * every %p prints the world's symbolic name of the pointer instead
 * ("sde#2", "sc#5", "(null)").  Every other conversion is the C library's.
 */
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "journal.h"

static bool strchr_k(const char *set, char c)
{
	for (; *set; set++)
		if (*set == c)
			return true;
	return false;
}

/*
 * Appends what fits (the text ends NUL-terminated within the buffer);
 * what does not marks the file overflowed, as seq_file does.
 */
static void seq_put(struct seq_file *m, const char *s, size_t n)
{
	size_t at = m->count;

	if (at >= m->size)
		return;
	if (at + n >= m->size) {
		n = m->size - at - 1;
		m->count = m->size;
	} else {
		m->count += n;
	}
	memcpy(m->buf + at, s, n);
	m->buf[at + n] = '\0';
}

void seq_puts(struct seq_file *m, const char *s)
{
	seq_put(m, s, strlen(s));
}

void seq_printf(struct seq_file *m, const char *fmt, ...)
{
	char spec[32], out[256];
	const char *p = fmt;
	va_list ap;

	va_start(ap, fmt);
	while (*p) {
		const char *start = p;
		size_t n = 0;
		int lng = 0, shrt = 0, size_t_len = 0;
		char conv;

		if (*p != '%') {
			while (*p && *p != '%')
				p++;
			seq_put(m, start, p - start);
			continue;
		}
		p++;
		if (*p == '%') {
			seq_put(m, "%", 1);
			p++;
			continue;
		}
		while (*p && strchr_k("-+ #0", *p))
			p++;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p == '.') {
			p++;
			while (*p >= '0' && *p <= '9')
				p++;
		}
		for (;; p++) {
			if (*p == 'l')
				lng++;
			else if (*p == 'h')
				shrt++;
			else if (*p == 'z')
				size_t_len = 1;
			else
				break;
		}
		conv = *p++;
		n = p - start;
		if (n >= sizeof(spec))
			break;
		memcpy(spec, start, n);
		spec[n] = '\0';
		switch (conv) {
		case 'p':
			/* The kernel's %p extensions (%pK, %pS ...) are not used by qp.c. */
			seq_puts(m, jp(va_arg(ap, void *)));
			break;
		case 's':
			snprintf(out, sizeof(out), spec, va_arg(ap, const char *));
			seq_puts(m, out);
			break;
		case 'c':
			snprintf(out, sizeof(out), spec, va_arg(ap, int));
			seq_puts(m, out);
			break;
		case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
			if (lng >= 2)
				snprintf(out, sizeof(out), spec, va_arg(ap, long long));
			else if (lng == 1 || size_t_len)
				snprintf(out, sizeof(out), spec, va_arg(ap, long));
			else
				snprintf(out, sizeof(out), spec, va_arg(ap, int));
			seq_puts(m, out);
			(void)shrt;
			break;
		default:
			journal_printf("seq_printf: unsupported conversion %%%c", conv);
			va_end(ap);
			return;
		}
	}
	va_end(ap);
}
