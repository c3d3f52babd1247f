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

void journal_begin(struct shim_outcome *out)
{
	cur = out;
	cur->journal_len = 0;
	cur->journal[0] = '\0';
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
void __kcompat_warn(const char *file, int line, const char *cond)
{
	journal_printf("WARN(%s)", cond);
}

/*
 * lockdep_assert_held() (kcompat linux/lockdep.h): recorded, by the lock's
 * name in the world; a lock not held warns as WARN_ON would.
 */
void __kcompat_assert_held(int locked, const void *lock)
{
	if (locked)
		journal_printf("lockdep_assert_held(%s)", jp(lock));
	else
		journal_printf("WARN(lockdep_assert_held(%s))", jp(lock));
}

void __kcompat_bug(const char *file, int line)
{
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
	char line[256];
	int i, len;

	len = snprintf(line, sizeof(line), "trace %s(", name);
	for (i = 0; i < n && len < (int)sizeof(line); i++) {
		const struct __kcompat_trace_arg *a = &args[i];
		const char *sep = i ? ", " : "";
		unsigned long long v = 0;

		if (a->pointer) {
			len += snprintf(line + len, sizeof(line) - len, "%s%s", sep,
					jp(*(const void *const *)a->at));
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
			len += snprintf(line + len, sizeof(line) - len, "%s?", sep);
			continue;
		}
		len += snprintf(line + len, sizeof(line) - len, "%s0x%llx", sep, v);
	}
	journal_printf("%s)", line);
}