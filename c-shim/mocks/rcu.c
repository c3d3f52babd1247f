// SPDX-License-Identifier: GPL-2.0
/*
 * rcu.c - boundary mocks for kernel/rcu.  A callback queued for after a
 * grace period (call_rcu) is recorded by the world's name for its head
 * and queued; the grace period ends as the call returns (no reader of a
 * world outlives its call): shim_rcu_barrier() then runs the callbacks,
 * in order, as rcu_barrier() waits for them.
 *
 * No reader runs beside a call, so a reader's use after free cannot
 * happen here; what would let one happen in a kernel is journalled at the
 * writer, as "lockdep: suspicious RCU usage: ..." (PROVE_RCU's report):
 * freeing a block an RCU-protected pointer of the world still publishes
 * (the block, or one the block points to), freeing one such a pointer
 * stopped publishing (rcu_assign_pointer(), RCU_INIT_POINTER()) with no
 * grace period since (synchronize_rcu(), or the call's end), an
 * rcu_dereference() outside a read-side section, and an
 * rcu_dereference_protected() without its protection.  Each is reported
 * once per world and pointer (function, for a dereference), as lockdep
 * reports once.  An old value counts as unpublished only when readers
 * could reach its slot: one of the world's, or in a block a published
 * pointer reaches.
 */
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "alloc.h"
#include "journal.h"
#include "rcu.h"
#include "world.h"

/* Callbacks one call may queue; one more is journalled and dropped. */
#define SHIM_RCU_MAX 8

static struct {
	struct rcu_head *head;
	void (*func)(struct rcu_head *head);
} queued[SHIM_RCU_MAX];
static unsigned int nqueued;

void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	journal_printf("call_rcu(%s)", jp(head));
	if (nqueued == SHIM_RCU_MAX) {
		journal_printf("call_rcu: more than %d callbacks, one not run", SHIM_RCU_MAX);
		return;
	}
	queued[nqueued].head = head;
	queued[nqueued].func = func;
	nqueued++;
}

/* Published pointers the call unpublished since the last grace period. */
#define SHIM_RCU_RETIRED 8
/* Slots of the world's data the call published into (rcu_assign_pointer). */
#define SHIM_RCU_SLOTS 8
/* Misuses reported so far in this world. */
#define SHIM_RCU_SAID 16

static struct {
	const void *p;
	const void *slot;
} retired[SHIM_RCU_RETIRED];
static unsigned int nretired;
static const void *slots[SHIM_RCU_SLOTS];
static unsigned int nslots;
static struct {
	int kind;
	const void *key;
} said[SHIM_RCU_SAID];
static unsigned int nsaid;

enum { SHIM_RCU_PUBLISHED, SHIM_RCU_UNPUBLISHED, SHIM_RCU_DEREF, SHIM_RCU_PROTECTED };

/* Whether misuse `kind` of `key` is to be journalled: the first time, in a call. */
static bool first(int kind, const void *key)
{
	unsigned int i;

	if (!journal_active())
		return false;
	for (i = 0; i < nsaid; i++)
		if (said[i].kind == kind && said[i].key == key)
			return false;
	if (nsaid < SHIM_RCU_SAID) {
		said[nsaid].kind = kind;
		said[nsaid].key = key;
		nsaid++;
	}
	return true;
}

static const void *published_in(const void *p);

void __kcompat_rcu_replace(const void *old, const void *slot)
{
	unsigned int i;

	if (!journal_active())
		return;
	if (shim_in_world_data(slot)) {
		for (i = 0; i < nslots && slots[i] != slot; i++)
			;
		if (i == nslots && nslots < SHIM_RCU_SLOTS)
			slots[nslots++] = slot;
	}
	/*
	 * Readers may hold the old value only if they could reach the slot:
	 * one of the world's, or in a block a published pointer reaches.
	 */
	if (!shim_in_world_data(slot) && !published_in(shim_block_of(slot)))
		return;
	if (old && nretired < SHIM_RCU_RETIRED) {
		retired[nretired].p = old;
		retired[nretired].slot = slot;
		nretired++;
	}
}

static bool reaches(const void *from, const void *p)
{
	return from == p || shim_block_holds(from, p);
}

/* The first slot (the world's, then those a call published into) whose pointer reaches p. */
static const void *published_in(const void *p)
{
	const void *const *world = shim_rcu_world_slots();
	const void *v;
	unsigned int i;

	if (!p)
		return NULL;
	for (i = 0; world[i]; i++) {
		v = *(const void *const *)world[i];
		if (v && reaches(v, p))
			return world[i];
	}
	for (i = 0; i < nslots; i++) {
		v = *(const void *const *)slots[i];
		if (v && reaches(v, p))
			return slots[i];
	}
	return NULL;
}

void shim_rcu_check_free(const void *p, const char *how)
{
	const void *slot;
	unsigned int i;

	if (!p || !journal_active())
		return;
	slot = published_in(p);
	if (slot) {
		if (first(SHIM_RCU_PUBLISHED, slot))
			journal_printf("lockdep: suspicious RCU usage: %s(%s) while %s publishes it to readers",
				       how, shim_block_name(p), jp(slot));
		return;
	}
	for (i = 0; i < nretired; i++) {
		if (!reaches(retired[i].p, p))
			continue;
		if (first(SHIM_RCU_UNPUBLISHED, retired[i].slot))
			journal_printf("lockdep: suspicious RCU usage: %s(%s) with no grace period since %s stopped publishing it",
				       how, shim_block_name(p), jp(retired[i].slot));
		return;
	}
}

void __kcompat_rcu_deref(int depth, const char *func)
{
	if (depth <= 0 && first(SHIM_RCU_DEREF, func))
		journal_printf("lockdep: suspicious RCU usage: rcu_dereference() outside an RCU read-side critical section in %s",
			       func);
}

void __kcompat_rcu_protected(int held, const char *cond)
{
	if (!held && first(SHIM_RCU_PROTECTED, cond))
		journal_printf("lockdep: suspicious RCU usage: rcu_dereference_protected() without %s",
			       cond);
}

/* A grace period has passed: readers hold nothing unpublished before it. */
static void grace_period(void)
{
	memset(retired, 0, sizeof(retired));
	nretired = 0;
}

/*
 * A grace period: no reader of a world runs beside its call, so it ends at
 * once (the callbacks queued before it still run as the call returns,
 * which the kernel allows).  Waiting for one inside a read-side section
 * never ends: journalled, as lockdep reports it.
 */
void synchronize_rcu(void)
{
	if (shim_rcu_depth)
		journal_printf("BUG: synchronize_rcu() in an RCU read-side critical section");
	else
		grace_period();
}

/* No pointer to a block is kept: the leak check reads these tables too. */
static void forget_queued(void)
{
	memset(queued, 0, sizeof(queued));
	nqueued = 0;
}

void shim_rcu_barrier(void)
{
	unsigned int i;

	grace_period();
	/*
	 * A callback may queue another: it runs too.  One below a page is
	 * kfree_rcu()'s: the head's offset in the block to free.
	 */
	for (i = 0; i < nqueued; i++) {
		unsigned long off = (unsigned long)queued[i].func;

		if (off < 4096)
			kfree((const char *)queued[i].head - off);
		else
			queued[i].func(queued[i].head);
	}
	forget_queued();
}

void shim_rcu_reset(void)
{
	/* Misuse already reported, keyed by slots that may be in blocks. */
	shim_leak_ignore(said, sizeof(said));
	forget_queued();
	grace_period();
	memset(slots, 0, sizeof(slots));
	nslots = 0;
	memset(said, 0, sizeof(said));
	nsaid = 0;
}
