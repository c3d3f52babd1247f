/* SPDX-License-Identifier: GPL-2.0 */
/* kcompat: stands in for <linux/seqlock.h>. */
#ifndef _KCOMPAT_LINUX_SEQLOCK_H
#define _KCOMPAT_LINUX_SEQLOCK_H

#include <linux/spinlock.h>

typedef struct {
	unsigned int sequence;
} seqcount_t;

typedef struct {
	seqcount_t seqcount;
	spinlock_t lock;
} seqlock_t;

static inline void seqlock_init(seqlock_t *sl)
{
	sl->seqcount.sequence = 0;
	spin_lock_init(&sl->lock);
}

#define DEFINE_SEQLOCK(sl)	seqlock_t sl = { { 0 }, { 0 } }

static inline unsigned int read_seqbegin(const seqlock_t *sl)
{
	return sl->seqcount.sequence;
}

/* The sequence with its low bit clear: read while a writer holds it, a retry. */
static inline unsigned int raw_seqcount_begin(const seqcount_t *s)
{
	return s->sequence & ~1u;
}

static inline unsigned int read_seqretry(const seqlock_t *sl, unsigned int start)
{
	return sl->seqcount.sequence != start;
}

static inline void write_seqlock(seqlock_t *sl)
{
	spin_lock(&sl->lock);
	sl->seqcount.sequence++;
}

static inline void write_sequnlock(seqlock_t *sl)
{
	sl->seqcount.sequence++;
	spin_unlock(&sl->lock);
}

#define write_seqlock_irq(sl)			do { local_irq_disable(); write_seqlock(sl); } while (0)
#define write_sequnlock_irq(sl)			do { write_sequnlock(sl); local_irq_enable(); } while (0)
#define write_seqlock_irqsave(sl, f)		do { local_irq_save(f); write_seqlock(sl); } while (0)
#define write_sequnlock_irqrestore(sl, f)	do { write_sequnlock(sl); local_irq_restore(f); } while (0)

#endif
