// SPDX-License-Identifier: GPL-2.0
/*
 * runtime.c - the generic kernel runtime a C world links against: bit
 * search, NUMA topology, wait queues (memory is alloc.c's).  Wake-ups are
 * recorded; pure look-ups are not (they are not side effects).
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/topology.h>
#include <linux/wait.h>
#include <linux/sched.h>
#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/sprintf.h>
#include <linux/device.h>

#include "journal.h"
#include "world.h"

static struct task_struct task0 = { .pid = 1, .tgid = 1, .comm = "hfi1-world" };
struct task_struct *__kcompat_current = &task0;

unsigned long _find_first_bit(const unsigned long *addr, unsigned long size)
{
	unsigned long i;

	for (i = 0; i < size; i++)
		if (addr[i / BITS_PER_LONG] & (1UL << (i % BITS_PER_LONG)))
			return i;
	return size;
}

bool node_online(int node)
{
	return shim_node_mask(node) != NULL;
}

const struct cpumask *cpumask_of_node(int node)
{
	const struct cpumask *m = shim_node_mask(node);

	if (!m)
		journal_printf("cpumask_of_node(%d): no such node", node);
	return m;
}

/*
 * The queue's waiters, walked as kernel/sched/wait.c walks them: nothing
 * sleeps in a world, so an initialised queue has none; one never
 * initialised (kzalloc's zeroes) is followed through its NULL head and
 * faults where the kernel oopses.
 */
static void walk_waiters(struct wait_queue_head *wq_head)
{
	struct list_head *volatile p;

	for (p = wq_head->head.next; p != &wq_head->head; p = p->next)
		;
}

void __wake_up(struct wait_queue_head *wq_head, unsigned int mode, int nr, void *key)
{
	journal_printf("wake_up(%s)", jp(wq_head));
	walk_waiters(wq_head);
}

void __kcompat_wait_forever(struct wait_queue_head *wq_head)
{
	journal_printf("wait_event(%s): sleeps forever", jp(wq_head));
	walk_waiters(wq_head);
}

/* lib/string.c. */
size_t strnlen(const char *s, size_t maxlen)
{
	size_t n = 0;

	while (n < maxlen && s[n])
		n++;
	return n;
}

/* lib/vsprintf.c, for the conversions upstream uses with it (%s, %u, %d). */
int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* What scnprintf() adds at buf + *n of room bytes: what fits. */
static void shim_scn_put(char *buf, size_t room, int *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if ((size_t)*n + 1 >= room)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *n, room - *n, fmt, ap);
	va_end(ap);
	if (k > 0)
		*n += min_t(size_t, k, room - *n - 1);
}

/*
 * vsprintf's bitmap forms: the bits as a list of CPUs and ranges ("0-2,5",
 * %*pbl) or as 32-bit hex words, most significant first
 * ("00000000,00000025", %*pb), at buf + *n of room bytes.
 */
static void shim_put_bitmap(char *buf, size_t room, int *n, bool list,
			    const unsigned long *maskp, int nmaskbits)
{
	int i, first, k = 0;

	if (!list) {
		/* The first chunk only as wide as its bits (vsprintf's bitmap_string()). */
		for (i = ALIGN(nmaskbits, 32) - 32; i >= 0; i -= 32) {
			int bits = min(nmaskbits - i, 32);

			shim_scn_put(buf, room, n, "%s%0*lx", i + 32 < nmaskbits ? "," : "",
				     (bits + 3) / 4,
				     (maskp[i / BITS_PER_LONG] >> (i % BITS_PER_LONG)) &
				     (bits == 32 ? 0xffffffffUL : (1UL << bits) - 1));
		}
		return;
	}
	for (i = 0; i < nmaskbits; i++) {
		if (!test_bit(i, maskp))
			continue;
		first = i;
		while (i + 1 < nmaskbits && test_bit(i + 1, maskp))
			i++;
		shim_scn_put(buf, room, n, k++ ? ",%d" : "%d", first);
		if (i > first)
			shim_scn_put(buf, room, n, "-%d", i);
	}
}

/* lib/bitmap.c: a bitmap, then a newline, into what is left of buf's page. */
int bitmap_print_to_pagebuf(bool list, char *buf, const unsigned long *maskp, int nmaskbits)
{
	size_t room = PAGE_SIZE - offset_in_page(buf);
	int n = 0;

	shim_put_bitmap(buf, room, &n, list, maskp, nmaskbits);
	shim_scn_put(buf, room, &n, "\n");
	return n;
}

/*
 * fs/sysfs/file.c: vscnprintf() into the page buf is (one not at a page's
 * start warns and gets nothing), for the conversions upstream gives it:
 * text, %%, %s, %d, %u and the bitmap forms %*pb, %*pbl (cpumask_pr_args).
 * Another is journalled, and ends the text.
 */
int sysfs_emit(char *buf, const char *fmt, ...)
{
	const char *p;
	va_list ap;
	int n = 0;

	if (!buf || offset_in_page(buf)) {
		journal_printf("WARN(invalid sysfs_emit: buf:%s)", jp(buf));
		return 0;
	}
	va_start(ap, fmt);
	for (p = fmt; *p; p++) {
		if (*p != '%') {
			shim_scn_put(buf, PAGE_SIZE, &n, "%c", *p);
			continue;
		}
		p++;
		if (*p == '%') {
			shim_scn_put(buf, PAGE_SIZE, &n, "%%");
		} else if (*p == 's') {
			shim_scn_put(buf, PAGE_SIZE, &n, "%s", va_arg(ap, const char *));
		} else if (*p == 'd') {
			shim_scn_put(buf, PAGE_SIZE, &n, "%d", va_arg(ap, int));
		} else if (*p == 'u') {
			shim_scn_put(buf, PAGE_SIZE, &n, "%u", va_arg(ap, unsigned int));
		} else if (!strncmp(p, "*pb", 3)) {
			int bits = va_arg(ap, int);
			const unsigned long *m = va_arg(ap, const unsigned long *);
			bool list = p[3] == 'l';

			shim_put_bitmap(buf, PAGE_SIZE, &n, list, m, bits);
			p += list ? 3 : 2;
		} else {
			journal_printf("sysfs_emit: %%%c, a conversion the world does not format", *p);
			break;
		}
	}
	va_end(ap);
	return n;
}

/*
 * lib/bitmap.c's bitmap_parselist() (cpulist_parse()), as 6.x parses (one
 * boundary for every series' world, 5.10's too): a
 * list of regions separated by commas or spaces, each `N`, `A-B` or
 * `A-B:used/group` (numbers, `N` for the last bit, `all` for 0-N), ended
 * by NUL or a newline; -EINVAL for bad syntax or an empty region,
 * -EOVERFLOW for a number past an unsigned int, -ERANGE for a bit past
 * nmaskbits.  The same grammar as the model's (user_sde.rs).
 */
struct shim_region {
	unsigned int start, off, group_len, end, nbits;
};

static bool shim_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (unsigned char)c == 0xa0;
}

static bool shim_end_of_str(char c)
{
	return c == '\0' || c == '\n';
}

static bool shim_end_of_region(char c)
{
	return shim_space(c) || c == ',' || shim_end_of_str(c);
}

/* A number (or N, the last bit) at str: past it, or NULL with *err. */
static const char *shim_getnum(const char *str, unsigned int *num, unsigned int lastbit, int *err)
{
	unsigned long long n = 0;
	bool over = false;
	unsigned int len = 0;

	if (str[0] == 'N') {
		*num = lastbit;
		return str + 1;
	}
	for (; str[len] >= '0' && str[len] <= '9'; len++) {
		if (n > (~0ULL - 9) / 10)
			over = true;
		n = n * 10 + (str[len] - '0');
	}
	if (!len) {
		*err = -EINVAL;
		return NULL;
	}
	if (over || n != (unsigned int)n) {
		*err = -EOVERFLOW;
		return NULL;
	}
	*num = n;
	return str + len;
}

static bool shim_is_all(const char *s)
{
	return (s[0] | 0x20) == 'a' && (s[1] | 0x20) == 'l' && (s[2] | 0x20) == 'l';
}

/*
 * A region at str into r: past it, or NULL with *err (or with *last, the
 * list ended: a region without a pattern ends it at a NUL or newline).
 */
static const char *shim_parse_region(const char *str, struct shim_region *r, int *err,
				     bool *last)
{
	unsigned int lastbit = r->nbits - 1;

	if (shim_is_all(str)) {
		r->start = 0;
		r->end = lastbit;
		str += 3;
	} else {
		str = shim_getnum(str, &r->start, lastbit, err);
		if (!str)
			return NULL;
		if (shim_end_of_region(*str)) {
			r->end = r->start;
			goto no_pattern;
		}
		if (*str != '-') {
			*err = -EINVAL;
			return NULL;
		}
		str = shim_getnum(str + 1, &r->end, lastbit, err);
		if (!str)
			return NULL;
	}
	if (shim_end_of_region(*str))
		goto no_pattern;
	if (*str != ':') {
		*err = -EINVAL;
		return NULL;
	}
	str = shim_getnum(str + 1, &r->off, lastbit, err);
	if (!str)
		return NULL;
	if (*str != '/') {
		*err = -EINVAL;
		return NULL;
	}
	return shim_getnum(str + 1, &r->group_len, lastbit, err);
no_pattern:
	r->off = r->end + 1;
	r->group_len = r->end + 1;
	*last = shim_end_of_str(*str);
	return str;
}

int bitmap_parselist(const char *buf, unsigned long *maskp, int nmaskbits)
{
	struct shim_region r = { .nbits = nmaskbits };
	unsigned int start, i;
	bool last = false;
	int err = 0;

	memset(maskp, 0, BITS_TO_LONGS(nmaskbits) * sizeof(*maskp));
	while (!last) {
		while (shim_space(*buf) || *buf == ',')
			buf++;
		if (shim_end_of_str(*buf))
			return 0;
		buf = shim_parse_region(buf, &r, &err, &last);
		if (!buf)
			return err;
		if (r.start > r.end || r.group_len == 0 || r.off > r.group_len)
			return -EINVAL;
		if (r.end >= r.nbits)
			return -ERANGE;
		for (start = r.start; start <= r.end; start += r.group_len)
			for (i = start; i < start + min(r.end - start + 1, r.off); i++)
				set_bit(i, maskp);
	}
	return 0;
}

/*
 * The kernel log (kernel/printk/printk.c, drivers/base/core.c): the call
 * evaluated the message's arguments, as the kernel's does (a NULL pointer
 * dereferenced in one faults here too); the text is not kept.
 */
void _dev_printk(const char *level, const struct device *dev, const char *fmt, ...)
{
}
