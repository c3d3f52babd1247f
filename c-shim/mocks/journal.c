// SPDX-License-Identifier: GPL-2.0
/* journal.c - the per-call journal, and the WARN/BUG hooks of kcompat. */
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "shim.h"
#include "journal.h"
#include "world.h"

void abort(void) __attribute__((__noreturn__));

static struct shim_outcome *cur;

static unsigned long calls;

unsigned long journal_call(void)
{
	return calls;
}

bool journal_active(void)
{
	return cur;
}

void journal_begin(struct shim_outcome *out)
{
	calls++;
	cur = out;
	cur->journal_len = 0;
	cur->journal[0] = '\0';
}

void journal_resume(struct shim_outcome *out)
{
	cur = out;
}

void journal_end(void)
{
	cur = NULL;
}

static void journal_vprintf(const char *fmt, va_list ap)
{
	size_t room;
	int n;

	if (!cur)
		return;
	room = sizeof(cur->journal) - cur->journal_len;
	n = vsnprintf(cur->journal + cur->journal_len, room, fmt, ap);
	if (n < 0 || (size_t)n + 1 >= room) {
		/* Full: say so once, where the reader will look. */
		static const char full[] = "journal-overflow\n";

		cur->journal_len = sizeof(cur->journal) - sizeof(full);
		memcpy(cur->journal + cur->journal_len, full, sizeof(full));
		cur->journal_len += sizeof(full) - 1;
		return;
	}
	cur->journal_len += n;
	cur->journal[cur->journal_len++] = '\n';
	cur->journal[cur->journal_len] = '\0';
}

/* Appends one line of n bytes as it is: the formatting-free path. */
static void journal_put(const char *s, size_t n)
{
	size_t room;

	if (!cur)
		return;
	room = sizeof(cur->journal) - cur->journal_len;
	if (n + 2 > room) {
		journal_printf("%.*s", (int)n, s);	/* the overflow path */
		return;
	}
	memcpy(cur->journal + cur->journal_len, s, n);
	cur->journal_len += n;
	cur->journal[cur->journal_len++] = '\n';
	cur->journal[cur->journal_len] = '\0';
}

void journal_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	journal_vprintf(fmt, ap);
	va_end(ap);
}

const char *jp(const void *p)
{
	static char names[8][48];
	static unsigned int next;
	char *buf = names[next++ % 8];

	shim_ptr_name(p, buf, sizeof(names[0]));
	return buf;
}

/*
 * WARN_ON() that fires: recorded with the condition's text.  The file and
 * line are left out on purpose: they move between kernel releases while the
 * behaviour does not.
 */
void __kcompat_warn(const char *cond)
{
	journal_printf("WARN(%s)", cond);
}

/*
 * lockdep_assert_held() (kcompat linux/lockdep.h): recorded, by the lock's
 * name in the world; a lock not held warns as WARN_ON would.
 */
void __kcompat_assert_held(int locked, const void *lock)
{
	if (!cur)
		return;
	if (locked)
		journal_printf("lockdep_assert_held(%s)", jp(lock));
	else
		journal_printf("WARN(lockdep_assert_held(%s))", jp(lock));
}

/*
 * BUG(): the worker dies by SIGABRT, which its signal handler leaves
 * alone (glibc raises it from inside the allocator): a coverage world's
 * counters are written first.
 */
void __kcompat_bug(void)
{
	shim_flush_counters();
	abort();
}

/*
 * trace_<name>() (kcompat linux/tracepoint.h): a tracepoint hit, journalled
 * as its own category, "trace <name>(arg, ...)": pointers by the world's
 * names, other arguments as the integers they hold (the tree's values, as
 * a tracer would show them).
 */
void __kcompat_trace(const char *name, int n, const struct __kcompat_trace_arg *args)
{
	static const char hex[] = "0123456789abcdef";
	char line[256];
	size_t len = 0;
	int i;

	/* No journal (the raw benchmark): a tracepoint with no tracer. */
	if (!cur)
		return;
#define PUT(str, slen) do {						\
		size_t _l = (slen);					\
		if (len + _l < sizeof(line)) {				\
			memcpy(line + len, (str), _l);			\
			len += _l;					\
		}							\
	} while (0)
	PUT("trace ", 6);
	PUT(name, strlen(name));
	PUT("(", 1);
	for (i = 0; i < n; i++) {
		const struct __kcompat_trace_arg *a = &args[i];
		unsigned long long v = 0;
		char num[2 + 16];
		int d = sizeof(num);

		if (i)
			PUT(", ", 2);
		if (a->kind == __KCOMPAT_TRACE_STRING) {
			const char *str = *(const char *const *)a->at;
			size_t n = 0;

			if (!str) {
				PUT("(null)", 6);
				continue;
			}
			while (n < 64 && str[n])
				n++;
			PUT("\"", 1);
			PUT(str, n);
			PUT("\"", 1);
			continue;
		}
		if (a->kind == __KCOMPAT_TRACE_POINTER) {
			const char *nm = jp(*(const void *const *)a->at);

			PUT(nm, strlen(nm));
			continue;
		}
		switch (a->size) {
		case 1:
			v = *(const u8 *)a->at;
			break;
		case 2:
			v = *(const u16 *)a->at;
			break;
		case 4:
			v = *(const u32 *)a->at;
			break;
		case 8:
			v = *(const u64 *)a->at;
			break;
		default:
			PUT("?", 1);
			continue;
		}
		/* "0x" and the hex digits, as printf's "0x%llx". */
		do {
			num[--d] = hex[v & 15];
			v >>= 4;
		} while (v);
		num[--d] = 'x';
		num[--d] = '0';
		PUT(num + d, sizeof(num) - d);
	}
	PUT(")", 1);
#undef PUT
	journal_put(line, len);
}
