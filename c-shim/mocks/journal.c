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

/*
 * The kinds of line, each with a room of its own in the journal (shim.h):
 * a call walking a ring, whose tracepoints fill theirs, still journals
 * every boundary call, and the lock-order lines only C writes take no
 * room from the lines a model mirrors.  A line that does not fit its
 * kind's room is dropped, and so is every later one of that kind; in its
 * place, once, the kind's overflow line (the model's journal_room()).
 * Each room keeps space for that line, so the rooms together never need
 * more than the buffer holds.
 */
static const struct journal_kind {
	const char *prefix;	/* how its lines start; "" is any other line */
	size_t room;
	const char *full;
} kinds[] = {
	{ "trace ", SHIM_JOURNAL_ROOM, "trace journal-overflow" },
	{ "lockdep: ", SHIM_LOCKDEP_ROOM, "lockdep: journal-overflow" },
	{ "", SHIM_JOURNAL_ROOM, "journal-overflow" },
};

/* This call's bytes of each kind (newlines included); ~0 once it is full. */
static size_t used[ARRAY_SIZE(kinds)];

/* A note did not fit: this call's later ones are dropped too. */
static bool notes_full;

_Static_assert(2 * SHIM_JOURNAL_ROOM + SHIM_LOCKDEP_ROOM < SHIM_JOURNAL_BYTES,
	       "the rooms and the NUL fit the journal");

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
	cur->notes_len = 0;
	cur->notes[0] = '\0';
	notes_full = false;
	memset(used, 0, sizeof(used));
}

void journal_resume(struct shim_outcome *out)
{
	cur = out;
}

void journal_end(void)
{
	cur = NULL;
}

/*
 * The line of `want` bytes written (at most `n` of them, NUL-terminated)
 * at the journal's end: kept with its newline when its kind has room for
 * it and for the overflow line after it; else replaced by that overflow
 * line, or dropped when its kind is already full.  The first `n` bytes
 * hold its kind's prefix whenever that kind has room left: the buffer's
 * room is at least the rooms left together.
 */
static void journal_commit(size_t n, size_t want)
{
	char *line = cur->journal + cur->journal_len;
	unsigned int k = 0;

	while (kinds[k].prefix[0] &&
	       (n < strlen(kinds[k].prefix) ||
		memcmp(line, kinds[k].prefix, strlen(kinds[k].prefix))))
		k++;
	if (used[k] == (size_t)~0) {
		*line = '\0';
		return;
	}
	if (used[k] + want + 1 + strlen(kinds[k].full) + 1 > kinds[k].room) {
		want = strlen(kinds[k].full);
		memcpy(line, kinds[k].full, want);
		used[k] = (size_t)~0;
	} else {
		used[k] += want + 1;
	}
	cur->journal_len += want;
	cur->journal[cur->journal_len++] = '\n';
	cur->journal[cur->journal_len] = '\0';
}

static void journal_vprintf(const char *fmt, va_list ap)
{
	size_t room;
	int n;

	if (!cur)
		return;
	room = sizeof(cur->journal) - cur->journal_len;
	n = vsnprintf(cur->journal + cur->journal_len, room, fmt, ap);
	if (n < 0) {
		cur->journal[cur->journal_len] = '\0';
		return;
	}
	journal_commit((size_t)n < room ? (size_t)n : room - 1, n);
}

/* Appends one line of n bytes as it is: the formatting-free path. */
static void journal_put(const char *s, size_t n)
{
	size_t room;

	if (!cur)
		return;
	room = sizeof(cur->journal) - cur->journal_len;
	memcpy(cur->journal + cur->journal_len, s, n < room ? n : room - 1);
	cur->journal[cur->journal_len + (n < room ? n : room - 1)] = '\0';
	journal_commit(n < room ? n : room - 1, n);
}

void journal_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	journal_vprintf(fmt, ap);
	va_end(ap);
}

/*
 * A note that does not fit is dropped, and so is every later one: in its
 * place, once, NOTES_FULL (each note keeps room for it).  A note only
 * explains a journal line, which is kept in the journal's own room.
 */
#define NOTES_FULL "notes-overflow"

void journal_note(const char *fmt, ...)
{
	size_t room;
	va_list ap;
	int n;

	if (!cur || notes_full)
		return;
	room = sizeof(cur->notes) - cur->notes_len;
	va_start(ap, fmt);
	n = vsnprintf(cur->notes + cur->notes_len, room, fmt, ap);
	va_end(ap);
	/* The note, its newline, then room for NOTES_FULL, its newline, NUL. */
	if (n < 0 || (size_t)n + 1 + sizeof(NOTES_FULL) + 1 > room) {
		memcpy(cur->notes + cur->notes_len, NOTES_FULL "\n", sizeof(NOTES_FULL) + 1);
		cur->notes_len += sizeof(NOTES_FULL);
		notes_full = true;
		return;
	}
	cur->notes_len += n;
	cur->notes[cur->notes_len++] = '\n';
	cur->notes[cur->notes_len] = '\0';
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
