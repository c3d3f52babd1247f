// SPDX-License-Identifier: GPL-2.0
/*
 * lockdep.c - lock order, as lockdep checks it (kcompat linux/spinlock.h
 * reports every exclusive acquisition and release here).
 *
 * Over a world's life (one call, or every step of a scenario), each lock
 * taken while others are held records the order "held, then taken".
 * Taking A while holding B after B was once taken while A was held is a
 * possible ABBA deadlock: journalled once per pair, with both orders, as
 * lockdep's "possible circular locking dependency" is; taking a lock
 * already held is journalled as its "possible recursive locking".  A
 * lock is its own class: the world has one object of each kind that
 * matters (one QP, its engine, its send context).  Read locks are not
 * recorded (recursive readers do not deadlock), nor is what happens
 * outside a call's journal.
 *
 * Interrupt state, as lockdep's irq-safety check: a lock taken in hard
 * interrupt context (a call the shim makes as an interrupt handler) and
 * taken elsewhere with interrupts enabled could deadlock against itself on
 * one CPU; the second of the two usages is journalled once per lock, as
 * lockdep's "inconsistent {IN-HARDIRQ-W} -> {HARDIRQ-ON-W} usage" is.
 */
#include <linux/irqflags.h>
#include <linux/string.h>

#include "alloc.h"
#include "journal.h"
#include "world.h"

#define SHIM_LOCKS_HELD 16
#define SHIM_LOCK_ORDERS 64
#define SHIM_LOCK_USAGES 64

/* A lock's interrupt usages so far. */
enum {
	SHIM_IN_HARDIRQ = 1,	/* taken in hard interrupt context */
	SHIM_HARDIRQ_ON = 2,	/* taken outside it, interrupts enabled */
};

static struct {
	const void *held[SHIM_LOCKS_HELD];
	int nheld;
	struct {
		const void *first, *then;
		bool reported;
	} order[SHIM_LOCK_ORDERS];
	int norder;
	struct {
		const void *lock;
		unsigned int usage;
		bool reported;
	} use[SHIM_LOCK_USAGES];
	int nuse;
} ld;

/* A world is built: nothing held, no order seen. */
void shim_lockdep_reset(void)
{
	ld.nheld = 0;
	ld.norder = 0;
	ld.nuse = 0;
	/* Locks by address, some in blocks: no reference to them. */
	shim_leak_ignore(&ld, sizeof(ld));
}

/* The usage `l` is taken with now; the inconsistent pair journalled once. */
static void irq_usage(const void *l)
{
	unsigned int now = shim_in_hardirq ? SHIM_IN_HARDIRQ :
			   !shim_irqs_off ? SHIM_HARDIRQ_ON : 0;
	char a[64];
	int i;

	if (!now)
		return;
	for (i = 0; i < ld.nuse && ld.use[i].lock != l; i++)
		;
	if (i == ld.nuse) {
		if (ld.nuse == SHIM_LOCK_USAGES)
			return;
		ld.use[ld.nuse].lock = l;
		ld.use[ld.nuse].usage = 0;
		ld.use[ld.nuse++].reported = false;
	}
	if ((ld.use[i].usage | now) == (SHIM_IN_HARDIRQ | SHIM_HARDIRQ_ON) &&
	    !(ld.use[i].usage & now) && !ld.use[i].reported) {
		ld.use[i].reported = true;
		shim_lock_name(l, a, sizeof(a));
		journal_printf("lockdep: inconsistent {%s} -> {%s} usage: %s",
			       now == SHIM_IN_HARDIRQ ? "HARDIRQ-ON-W" : "IN-HARDIRQ-W",
			       now == SHIM_IN_HARDIRQ ? "IN-HARDIRQ-W" : "HARDIRQ-ON-W", a);
	}
	ld.use[i].usage |= now;
}

static int order_of(const void *first, const void *then)
{
	int i;

	for (i = 0; i < ld.norder; i++)
		if (ld.order[i].first == first && ld.order[i].then == then)
			return i;
	return -1;
}

/*
 * `l` taken again while held: none of these locks is recursive, so the
 * CPU spins (or the task sleeps) on itself forever, as lockdep's
 * "possible recursive locking detected" warns.  Journalled once per lock
 * (its order with itself marks it); the call goes on as if it had it.
 */
static void recursive(const void *l)
{
	char a[64];

	if (order_of(l, l) >= 0 || ld.norder == SHIM_LOCK_ORDERS)
		return;
	ld.order[ld.norder].first = l;
	ld.order[ld.norder].then = l;
	ld.order[ld.norder++].reported = true;
	shim_lock_name(l, a, sizeof(a));
	journal_printf("lockdep: possible recursive locking detected: %s taken while held (a deadlock)",
		       a);
}

void __kcompat_lock_acquire(const void *l)
{
	char a[64], b[64];
	int i, k;

	if (!journal_active())
		return;
	irq_usage(l);
	for (i = 0; i < ld.nheld; i++) {
		const void *h = ld.held[i];

		if (h == l) {
			recursive(l);
			continue;
		}
		k = order_of(l, h);
		if (k >= 0 && !ld.order[k].reported) {
			ld.order[k].reported = true;
			shim_lock_name(l, a, sizeof(a));
			shim_lock_name(h, b, sizeof(b));
			journal_printf("lockdep: possible ABBA deadlock: %s taken holding %s, %s taken holding %s before",
				       a, b, b, a);
		}
		if (order_of(h, l) < 0 && ld.norder < SHIM_LOCK_ORDERS) {
			ld.order[ld.norder].first = h;
			ld.order[ld.norder].then = l;
			ld.order[ld.norder].reported = false;
			ld.norder++;
		}
	}
	if (ld.nheld < SHIM_LOCKS_HELD)
		ld.held[ld.nheld++] = l;
}

void __kcompat_lock_release(const void *l)
{
	int i;

	for (i = ld.nheld - 1; i >= 0; i--)
		if (ld.held[i] == l) {
			memmove(&ld.held[i], &ld.held[i + 1],
				(ld.nheld - i - 1) * sizeof(ld.held[0]));
			ld.nheld--;
			return;
		}
}
