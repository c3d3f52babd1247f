// SPDX-License-Identifier: GPL-2.0
/*
 * cmp.c - the comparison recorder of measuring worlds (cargo xtask coverage
 * --mcdc), compiled into them and into no other world.
 *
 * Upstream units of a measuring world are compiled with SanitizerCoverage's
 * trace-cmp: before every integer comparison the compiler calls one of the
 * callbacks below with both operands.  Per call site (its return address,
 * as an offset in this shared object) the recorder keeps how often it ran
 * and which sides of the comparison's boundary the operands were seen at:
 * equal, one below (a == b - 1) or one above (a == b + 1), modulo the
 * operands' width, so a signed and an unsigned comparison read alike.
 * When the worker exits, the table is written to a new file
 * $HFI1_CMP_DIR/cmp-PID-N.txt (workers of a PID namespace each may be
 * PID 2: N is the first free) for harness/src/judge/boundaries.rs.
 *
 * A constant operand is passed first, whichever side of the operator it
 * was written on; the recorder takes it to be the right-hand one (kernel
 * style: the constant on the right) and marks the site CMP_CONST, so the
 * reader can turn the sides round where the source says otherwise.
 *
 * It records and decides nothing: what the world does is unchanged.
 */
#include <linux/types.h>
#include <linux/sprintf.h>

#include "cmp.h"

char *getenv(const char *name);
int open(const char *path, int flags, ...);
long write(int fd, const void *buf, size_t count);
int close(int fd);
int getpid(void);

/* Linux's open(2) flags. */
#define CMP_O_WRONLY	01
#define CMP_O_CREAT	0100
#define CMP_O_EXCL	0200

/* Call sites the table holds; upstream units have a few thousand. */
#define CMP_SLOTS	(1 << 15)

struct cmp_site {
	/* Return address, as an offset in this object; 0: a free slot. */
	unsigned long pc;
	unsigned long count;
	unsigned int sides;
};

static struct cmp_site sites[CMP_SLOTS];
static unsigned long dropped;

/* The linker's name for this object's ELF header: where it is loaded. */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));

static void cmp_record(unsigned long ret, u64 a, u64 b, u64 mask, unsigned int flags)
{
	unsigned long pc = ret - (unsigned long)__ehdr_start;
	unsigned int i = (unsigned int)((pc * 0x9e3779b97f4a7c15UL) >> 49) & (CMP_SLOTS - 1);
	u64 d = (a - b) & mask;
	unsigned int n;

	for (n = 0; n < CMP_SLOTS; n++, i = (i + 1) & (CMP_SLOTS - 1)) {
		if (sites[i].pc == pc)
			break;
		if (!sites[i].pc) {
			sites[i].pc = pc;
			break;
		}
	}
	if (n == CMP_SLOTS) {
		dropped++;
		return;
	}
	sites[i].count++;
	sites[i].sides |= flags;
	if (d == 0)
		sites[i].sides |= CMP_EQUAL;
	else if (d == 1)
		sites[i].sides |= CMP_ABOVE;
	else if (d == mask)
		sites[i].sides |= CMP_BELOW;
}

#define CMP_RET ((unsigned long)__builtin_return_address(0))

#define CMP_CALLBACKS(bytes, type, mask)					\
void __sanitizer_cov_trace_cmp##bytes(type a, type b)				\
{										\
	cmp_record(CMP_RET, a, b, mask, 0);					\
}										\
void __sanitizer_cov_trace_const_cmp##bytes(type c, type x)			\
{										\
	cmp_record(CMP_RET, x, c, mask, CMP_CONST);				\
}

CMP_CALLBACKS(1, u8, 0xffULL)
CMP_CALLBACKS(2, u16, 0xffffULL)
CMP_CALLBACKS(4, u32, 0xffffffffULL)
CMP_CALLBACKS(8, u64, ~0ULL)

/* trace-cmp instruments switches too; their cases are not boundaries. */
void __sanitizer_cov_trace_switch(u64 val, u64 *cases)
{
}

/* The per-function flags SanitizerCoverage needs beside trace-cmp. */
void __sanitizer_cov_bool_flag_init(bool *start, bool *stop)
{
}

static void cmp_flush(int fd, char *buf, size_t *len)
{
	size_t done = 0;

	while (done < *len) {
		long n = write(fd, buf + done, *len - done);

		if (n <= 0)
			break;
		done += n;
	}
	*len = 0;
}

static void __attribute__((destructor)) cmp_write(void)
{
	const char *dir = getenv(CMP_DIR_ENV);
	char path[4096], buf[8192];
	size_t len = 0;
	unsigned int i;
	int fd = -1;

	if (!dir)
		return;
	for (i = 0; i < 10000 && fd < 0; i++) {
		snprintf(path, sizeof(path), "%s/cmp-%d-%u.txt", dir, getpid(), i);
		fd = open(path, CMP_O_WRONLY | CMP_O_CREAT | CMP_O_EXCL, 0644);
	}
	if (fd < 0)
		return;
	len = snprintf(buf, sizeof(buf), "%s %lu\n", CMP_TABLE_MAGIC, dropped);
	for (i = 0; i < CMP_SLOTS; i++) {
		if (!sites[i].pc)
			continue;
		if (len > sizeof(buf) - 64)
			cmp_flush(fd, buf, &len);
		len += snprintf(buf + len, sizeof(buf) - len, "%lx %u %lu\n",
				sites[i].pc, sites[i].sides, sites[i].count);
	}
	cmp_flush(fd, buf, &len);
	close(fd);
}
