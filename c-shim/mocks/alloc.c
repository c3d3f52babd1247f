// SPDX-License-Identifier: GPL-2.0
/*
 * alloc.c - kmalloc and kfree for a C world, and its leak report.
 *
 * Every block is zeroed calloc memory (uninitialised memory would make runs
 * differ) and tracked until it is freed, then poisoned and kept in a
 * quarantine of 128 until the world is reset or it fills (a use after free
 * reads poison; a write is journalled, and so is a second free); under
 * --sanitize AddressSanitizer's own quarantine does this.  After a call, a block that no
 * writable data of the world reaches, directly or through other live
 * blocks, is journalled as "leak: kmalloc in CALLER", as kmemleak reports
 * an unreferenced object: the scan is kmemleak's (every aligned word of the
 * world's data and bss but the mocks' own tables, then of each block
 * found), in the normal build.
 * Each leak is reported once: a scenario's later steps keep the blocks
 * of the steps before, and do not report their leaks again.
 * Its size and FILE:LINE change between releases while the behaviour does
 * not (sizeof() of a kernel struct, code moved): they are noted beside the
 * journal ("leak: 64 bytes from sdma.c:1412 (kmalloc in sdma_init)",
 * journal_note()), where reports show them and no comparison reads them.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/dma-mapping.h>
#include <linux/topology.h>
#include <linux/string.h>

#include "alloc.h"
#include "journal.h"
#include "rcu.h"
#include "world.h"

void *calloc(size_t nmemb, size_t size);
void free(void *ptr);

/* Blocks a call may hold at once; more are not tracked, and said so. */
#define SHIM_LIVE_MAX 512

struct shim_block {
	void *p;
	size_t size;
	/* "kmalloc in " for upstream's, "" for the world's. */
	const char *kind;
	const char *what;
	/* "FILE:LINE" of the allocation, "" for the world's. */
	const char *site;
	bool seen;
	bool reported;	/* a leak already journalled (a scenario's earlier step) */
};

static struct shim_block live[SHIM_LIVE_MAX];
static int nlive;

/*
 * Past every block, a redzone of poison (as KASAN's, in the normal build):
 * upstream reading past an array it allocated reads garbage, not the
 * allocator's zeroes, so the read shows; a write there is journalled when
 * the block is freed or the call ends (redzone()).  Under --sanitize,
 * AddressSanitizer's own redzones do it, at the access: none here.
 */
#define SHIM_POISON 0xa5

#if defined(__SANITIZE_ADDRESS__)
static void *zalloc(size_t size)
{
	return calloc(1, size ? size : 1);
}

static void redzone(struct shim_block *b)
{
	(void)b;
}
#else
#define SHIM_REDZONE 64

static void *zalloc(size_t size)
{
	char *p;

	/* What the kernel's allocator refuses (array_size() saturates). */
	if (size > SIZE_MAX - SHIM_REDZONE)
		return NULL;
	p = calloc(1, size + SHIM_REDZONE);
	if (p)
		memset(p + size, SHIM_POISON, SHIM_REDZONE);
	return p;
}

/* A block's redzone written: journalled once, poisoned again. */
static void redzone(struct shim_block *b)
{
	unsigned char *z = (unsigned char *)b->p + b->size;
	int i;

	for (i = 0; i < SHIM_REDZONE; i++)
		if (z[i] != SHIM_POISON)
			break;
	if (i == SHIM_REDZONE)
		return;
	journal_printf("BUG: write past the end of a block: %s%s", b->kind, b->what);
	memset(z, SHIM_POISON, SHIM_REDZONE);
}
#endif

static void track(void *p, size_t size, const char *kind, const char *what, const char *site)
{
	if (nlive == SHIM_LIVE_MAX) {
		journal_printf("leak check: more than %d blocks, %s not tracked",
			       SHIM_LIVE_MAX, what);
		return;
	}
	live[nlive++] = (struct shim_block){
		.p = p, .size = size, .kind = kind, .what = what, .site = site,
	};
}

void *__kcompat_kmalloc(size_t size, gfp_t flags, int node, const char *caller,
			const char *site)
{
	void *p;

	if (shim_alloc_fails()) {
		journal_printf("kmalloc(node=%d) = NULL", node);
		return NULL;
	}
	journal_printf("kmalloc(node=%d)", node);
	p = zalloc(size);
	if (p)
		track(p, size, "kmalloc in ", caller, site);
	return p;
}

void *shim_alloc_tracked(size_t size, const char *what)
{
	void *p = zalloc(size);

	if (p)
		track(p, size, "", what, "");
	return p;
}

/* A block freed: its redzone checked, no longer tracked. */
static void untrack(const void *p)
{
	int i;

	for (i = 0; i < nlive; i++) {
		if (live[i].p == p) {
			redzone(&live[i]);
			live[i] = live[--nlive];
			break;
		}
	}
}

#if defined(__SANITIZE_ADDRESS__)
/* AddressSanitizer's own quarantine finds a use after free, at the access. */
static void release(const void *p)
{
	untrack(p);
	free((void *)p);
}

static void check_freed(void)
{
}

static void free_quarantine(void)
{
}
#else
/*
 * A freed block is poisoned and kept until the world is reset (KASAN's
 * quarantine, SLUB's POISON_FREE): upstream reading it after the free
 * reads poison, not the next allocation's data, and a write to it is
 * journalled after the call (`BUG: write after free: ...`) instead of
 * corrupting the worker's heap.
 */
#define SHIM_POISON_FREE 0x6b
#define SHIM_QUARANTINE 128

static struct shim_block freed[SHIM_QUARANTINE];
static int nfreed;

/* The poison of each freed block checked: a write journalled once, poisoned again. */
static void check_freed(void)
{
	int i;
	size_t k;

	for (i = 0; i < nfreed; i++) {
		const unsigned char *b = freed[i].p;

		for (k = 0; k < freed[i].size; k++)
			if (b[k] != SHIM_POISON_FREE)
				break;
		if (k == freed[i].size)
			continue;
		journal_printf("BUG: write after free: %s%s", freed[i].kind, freed[i].what);
		memset(freed[i].p, SHIM_POISON_FREE, freed[i].size);
	}
}

static void free_quarantine(void)
{
	while (nfreed)
		free(freed[--nfreed].p);
}

/* A block in quarantine (freed already), or -1. */
static int quarantined(const void *p)
{
	int i;

	for (i = 0; i < nfreed; i++)
		if (freed[i].p == p)
			return i;
	return -1;
}

static void release(const void *p)
{
	int i = quarantined(p);

	if (i >= 0) {
		/* Freed twice: journalled, the block left in quarantine. */
		journal_printf("BUG: double free: %s%s", freed[i].kind, freed[i].what);
		return;
	}
	for (i = 0; i < nlive; i++)
		if (live[i].p == p)
			break;
	if (i == nlive) {
		/* Not tracked (past SHIM_LIVE_MAX): nothing to poison it by. */
		free((void *)p);
		return;
	}
	if (nfreed == SHIM_QUARANTINE) {
		check_freed();
		free_quarantine();
	}
	freed[nfreed++] = live[i];
	memset(live[i].p, SHIM_POISON_FREE, live[i].size);
	untrack(p);
}
#endif

size_t shim_block_size(const void *p)
{
	int i;

	for (i = 0; i < nlive; i++)
		if (live[i].p == p)
			return live[i].size;
	return 0;
}

/* A tracked block the world allocated (shim_alloc_tracked()), not upstream. */
bool shim_block_is_world(const void *p)
{
	int i;

	for (i = 0; i < nlive; i++)
		if (live[i].p == p)
			return !live[i].kind[0];
	return false;
}

bool shim_block_holds(const void *block, const void *p)
{
	const char *b = block;
	size_t off, size = shim_block_size(block);

	for (off = 0; off + sizeof(void *) <= size; off += sizeof(void *))
		if (*(const void *const *)(b + off) == p)
			return true;
	return false;
}

const void *shim_block_of(const void *p)
{
	unsigned long a = (unsigned long)p;
	int i;

	for (i = 0; i < nlive; i++) {
		unsigned long b = (unsigned long)live[i].p;

		if (a >= b && a < b + (live[i].size ? live[i].size : 1))
			return live[i].p;
	}
	return NULL;
}

const char *shim_block_name(const void *p)
{
	static char name[96];
	int i;

	for (i = 0; i < nlive; i++) {
		if (live[i].p == p) {
			snprintf(name, sizeof(name), "%s%s", live[i].kind, live[i].what);
			return name;
		}
	}
	return jp(p);
}

/*
 * A block the world hands back (a request given fresh releases what it
 * held, as its last owner would have): no journal line, no longer tracked.
 * Only a live block: one upstream freed already is in quarantine (or, under
 * --sanitize, gone) and is not the world's to free again.
 */
void shim_free_tracked(void *p)
{
	int i;

	for (i = 0; i < nlive; i++) {
		if (live[i].p == p) {
			untrack(p);
			free(p);
			return;
		}
	}
}

/*
 * alloc_percpu(): the world has one CPU, so its object is a block as
 * kmalloc's (failslab counts it, the leak check tracks it).
 */
void *__kcompat_alloc_percpu(size_t size, const char *caller, const char *site)
{
	void *p;

	if (shim_alloc_fails()) {
		journal_printf("alloc_percpu() = NULL");
		return NULL;
	}
	journal_printf("alloc_percpu()");
	p = zalloc(size);
	if (p)
		track(p, size, "alloc_percpu in ", caller, site);
	return p;
}

void free_percpu(void *p)
{
	if (!p)
		return;
	journal_printf("free_percpu");
	shim_rcu_check_free(p, "free_percpu");
	release(p);
}

void kfree(const void *objp)
{
	if (!objp)
		return;
	journal_printf("kfree");
	shim_rcu_check_free(objp, "kfree");
	release(objp);
}

/*
 * Coherent DMA memory on the device's node: an allocation as kmalloc's is
 * (failslab counts it, the leak check tracks it); its bus address is
 * symbolic, by node and size (shim_dma_handle), so a free says which it
 * was given.
 */
void *__kcompat_dma_alloc_coherent(struct device *dev, size_t size, dma_addr_t *dma_handle,
				   gfp_t gfp, const char *caller, const char *site)
{
	int node = dev ? dev->numa_node : NUMA_NO_NODE;
	void *p;

	if (shim_alloc_fails()) {
		journal_printf("dma_alloc_coherent(node=%d, %zu) = NULL", node, size);
		return NULL;
	}
	journal_printf("dma_alloc_coherent(node=%d, %zu)", node, size);
	p = zalloc(size);
	if (p)
		track(p, size, "dma_alloc_coherent in ", caller, site);
	*dma_handle = shim_dma_handle(node, size);
	return p;
}

void dma_free_coherent(struct device *dev, size_t size, void *cpu_addr, dma_addr_t dma_handle)
{
	journal_printf("dma_free_coherent(%zu, 0x%llx)", size, (unsigned long long)dma_handle);
	release(cpu_addr);
}

void shim_alloc_reset(void)
{
	while (nlive)
		free(live[--nlive].p);
	free_quarantine();
}

/*
 * From the lowest block's start to the highest one's end, for scan(): on
 * the stack of shim_report_leaks(), never in the data the scan reads (it
 * would hold a block's address itself).
 */
struct span {
	unsigned long lo, len;
};

static struct span span_of_live(void)
{
	unsigned long lo = ~0UL, hi = 0;
	int i;

	for (i = 0; i < nlive; i++) {
		unsigned long b = (unsigned long)live[i].p;
		unsigned long e = b + (live[i].size ? live[i].size : 1);

		lo = b < lo ? b : lo;
		hi = e > hi ? e : hi;
	}
	return (struct span){ .lo = lo, .len = hi - lo };
}

/*
 * Marks every unseen block that a word of [from, from + len) points into.
 * It reads whole segments, the sanitizers' redzones included: not checked.
 */
__attribute__((no_sanitize_address))
static void scan(const void *from, size_t len, const struct span *span)
{
	const unsigned long *w = from;
	size_t n = len / sizeof(*w), k;
	int i;

	for (k = 0; k < n; k++) {
		unsigned long v = w[k];

		/* Most words point into no block: one test (span, below). */
		if (v - span->lo >= span->len)
			continue;
		for (i = 0; i < nlive; i++) {
			unsigned long b = (unsigned long)live[i].p;

			if (!live[i].seen && v >= b && v < b + (live[i].size ? live[i].size : 1))
				live[i].seen = true;
		}
	}
}

/* dl_iterate_phdr(3): the C library's, as <link.h> declares it on x86-64. */
struct shim_phdr {
	u32 p_type, p_flags;
	u64 p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align;
};

struct shim_dl_info {
	unsigned long addr;
	const char *name;
	const struct shim_phdr *phdr;
	u16 phnum;
};

int dl_iterate_phdr(int (*cb)(struct shim_dl_info *info, size_t size, void *data), void *data);

#define SHIM_PT_LOAD 1
#define SHIM_PF_W 2

/*
 * The mocks' own tables (this file's, lockdep's, RCU's): no reference to a
 * block, as kmemleak does not scan its own metadata.  A stale entry would
 * otherwise keep a block the allocator gave the same address alive.
 */
#define SHIM_IGNORED_MAX 8
static struct {
	const char *p;
	size_t len;
} ignored[SHIM_IGNORED_MAX];
static int nignored;

void shim_leak_ignore(const void *p, size_t len)
{
	int i;

	for (i = 0; i < nignored; i++)
		if (ignored[i].p == p)
			return;
	if (nignored < SHIM_IGNORED_MAX) {
		ignored[nignored].p = p;
		ignored[nignored].len = len;
		nignored++;
	}
}

/* scan() of [at, end) but the ignored tables in it. */
static void scan_but_ignored(const char *at, const char *end, const struct span *span)
{
	while (at < end) {
		const char *next = end, *skip_to = end;
		int i;

		for (i = 0; i < nignored; i++) {
			if (ignored[i].p >= at && ignored[i].p < next) {
				next = ignored[i].p;
				skip_to = next + ignored[i].len;
			}
		}
		scan(at, next - at, span);
		/* Words are aligned: resume at the first after the table. */
		at = (const char *)ALIGN((unsigned long)skip_to, sizeof(long));
	}
}

/* Scans the writable segments of the object that holds this file's data. */
static int scan_own_segments(struct shim_dl_info *info, size_t size, void *data)
{
	unsigned long here = (unsigned long)&nlive;
	bool own = false;
	int i;

	for (i = 0; i < info->phnum; i++) {
		const struct shim_phdr *ph = &info->phdr[i];
		unsigned long start = info->addr + ph->p_vaddr;

		if (ph->p_type == SHIM_PT_LOAD && here >= start && here < start + ph->p_memsz)
			own = true;
	}
	if (!own)
		return 0;
	for (i = 0; i < info->phnum; i++) {
		const struct shim_phdr *ph = &info->phdr[i];
		const char *start = (const char *)(info->addr + ph->p_vaddr);
		const char *end = start + ph->p_memsz;

		if (ph->p_type != SHIM_PT_LOAD || !(ph->p_flags & SHIM_PF_W))
			continue;
		scan_but_ignored(start, end, data);
	}
	return 1;
}

/*
 * Where a leaked block came from, as a note: its size and the file's name
 * with the line (the tree's path before it is the machine's), then what
 * its journal line says, which pairs the two even where the journal's
 * room dropped that line.
 */
static void note_site(const struct shim_block *b)
{
	const char *file = b->site, *slash;

	if (!file[0]) {
		journal_note("leak: %zu bytes (the world's: %s)", b->size, b->what);
		return;
	}
	for (slash = file; *slash; slash++)
		if (*slash == '/')
			file = slash + 1;
	journal_note("leak: %zu bytes from %s (%s%s)", b->size, file, b->kind, b->what);
}

void shim_report_leaks(void)
{
	struct span span;
	bool more = true;
	int i;

	check_freed();
	if (!nlive)
		return;
	/* The tables that hold every block, live or in quarantine. */
	shim_leak_ignore(live, sizeof(live));
#if !defined(__SANITIZE_ADDRESS__)
	shim_leak_ignore(freed, sizeof(freed));
#endif
	for (i = 0; i < nlive; i++) {
		redzone(&live[i]);
		live[i].seen = false;
	}
	span = span_of_live();
	dl_iterate_phdr(scan_own_segments, &span);
	/* Then through the blocks found, until no new one is. */
	while (more) {
		more = false;
		for (i = 0; i < nlive; i++) {
			int before = 0, after = 0, k;

			if (!live[i].seen)
				continue;
			for (k = 0; k < nlive; k++)
				before += live[k].seen;
			scan(live[i].p, live[i].size, &span);
			for (k = 0; k < nlive; k++)
				after += live[k].seen;
			more |= after > before;
		}
	}
	for (i = 0; i < nlive; i++) {
		if (live[i].seen || live[i].reported)
			continue;
		journal_printf("leak: %s%s", live[i].kind, live[i].what);
		note_site(&live[i]);
		live[i].reported = true;
	}
}

/*
 * An rhashtable's bucket table (kcompat's linux/rhashtable.h): a block the
 * leak check tracks, which failslab does not count (the kernel's falls
 * back to a __GFP_NOFAIL allocation).  Freeing none is the destroy of a
 * table never initialised.
 */
void *__kcompat_rht_table_alloc(void)
{
	return shim_alloc_tracked(64, "an rhashtable's bucket table");
}

void __kcompat_rht_table_free(void *tbl)
{
	if (!tbl) {
		journal_printf("BUG: rhashtable_free_and_destroy() of a table never initialised");
		return;
	}
	shim_free_tracked(tbl);
}
