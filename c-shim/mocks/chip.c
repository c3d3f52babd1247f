// SPDX-License-Identifier: GPL-2.0
/*
 * chip.c's register access: every write recorded, and the first read of
 * each register in a call (a poll reads one again and again; the world
 * gives it one value a call, so the reads after the first say nothing
 * new); the register named as chip_registers.h names it and, for the
 * per-context registers, the context: chip.h's *_kctxt_csr() address
 * them 0x100 apart, the egress status is 8 apart, and the interrupt
 * registers are 12 of each kind 8 apart.  A read returns what
 * the world says (shim_csr_value(), 0 for registers it does not set).
 */
#include "state.h"

/*
 * The registers the functions in scope reach: a block of `count` (256
 * when not said) `stride` bytes apart, or one register (stride 0).
 */
static const struct {
	u32 base;
	u32 stride;
	const char *name;
	u32 count;
} kctxt_csrs[] = {
	{ SEND_CTXT_CREDIT_CTRL, 0x100, "SEND_CTXT_CREDIT_CTRL" },
	{ SEND_CTXT_CREDIT_FORCE, 0x100, "SEND_CTXT_CREDIT_FORCE" },
	{ SEND_CTXT_CTRL, 0x100, "SEND_CTXT_CTRL" },
	{ SEND_CTXT_STATUS, 0x100, "SEND_CTXT_STATUS" },
	{ SEND_CTXT_ERR_STATUS, 0x100, "SEND_CTXT_ERR_STATUS" },
	{ SEND_CTXT_ERR_CLEAR, 0x100, "SEND_CTXT_ERR_CLEAR" },
	/* Before the contexts' (whose 256 would reach it): 16 engines. */
	{ SEND_EGRESS_SEND_DMA_STATUS, 8, "SEND_EGRESS_SEND_DMA_STATUS" },
	{ SEND_EGRESS_CTXT_STATUS, 8, "SEND_EGRESS_CTXT_STATUS" },
	{ SEND_DMA_HEAD, 0x100, "SEND_DMA_HEAD" },
	{ SEND_DMA_DESC_CNT, 0x100, "SEND_DMA_DESC_CNT" },
	{ SEND_DMA_TAIL, 0x100, "SEND_DMA_TAIL" },
	{ SEND_DMA_CTRL, 0x100, "SEND_DMA_CTRL" },
	{ SEND_DMA_STATUS, 0x100, "SEND_DMA_STATUS" },
	{ SEND_DMA_LEN_GEN, 0x100, "SEND_DMA_LEN_GEN" },
	{ SEND_DMA_ENG_ERR_CLEAR, 0x100, "SEND_DMA_ENG_ERR_CLEAR" },
	{ SEND_DMA_BASE_ADDR, 0x100, "SEND_DMA_BASE_ADDR" },
	{ SEND_DMA_RELOAD_CNT, 0x100, "SEND_DMA_RELOAD_CNT" },
	{ SEND_DMA_HEAD_ADDR, 0x100, "SEND_DMA_HEAD_ADDR" },
	{ SEND_DMA_MEMORY, 0x100, "SEND_DMA_MEMORY" },
	{ SEND_DMA_ENG_ERR_MASK, 0x100, "SEND_DMA_ENG_ERR_MASK" },
	{ SEND_DMA_CHECK_ENABLE, 0x100, "SEND_DMA_CHECK_ENABLE" },
	{ SEND_DMA_CHECK_OPCODE, 0x100, "SEND_DMA_CHECK_OPCODE" },
	{ SEND_DMA_CHECK_SLID, 0x100, "SEND_DMA_CHECK_SLID" },
	{ SEND_DMA_ENG_ERR_STATUS, 0x100, "SEND_DMA_ENG_ERR_STATUS" },
	{ SEND_CTXT_CREDIT_STATUS, 0x100, "SEND_CTXT_CREDIT_STATUS" },
	{ SEND_CTXT_CHECK_ENABLE, 0x100, "SEND_CTXT_CHECK_ENABLE" },
	{ SEND_CTXT_ERR_MASK, 0x100, "SEND_CTXT_ERR_MASK" },
	{ SEND_CTXT_CHECK_PARTITION_KEY, 0x100, "SEND_CTXT_CHECK_PARTITION_KEY" },
	{ SEND_CTXT_CHECK_OPCODE, 0x100, "SEND_CTXT_CHECK_OPCODE" },
	{ SEND_CTXT_CREDIT_RETURN_ADDR, 0x100, "SEND_CTXT_CREDIT_RETURN_ADDR" },
	{ SEND_CTXT_CHECK_VL, 0x100, "SEND_CTXT_CHECK_VL" },
	/* The interrupt registers: CCE_NUM_INT_CSRS of each kind, 8 apart. */
	{ CCE_INT_BLOCKED, 8, "CCE_INT_BLOCKED", CCE_NUM_INT_CSRS },
	{ CCE_INT_FORCE, 8, "CCE_INT_FORCE", CCE_NUM_INT_CSRS },
	{ CCE_INT_MASK, 8, "CCE_INT_MASK", CCE_NUM_INT_CSRS },
	{ CCE_INT_STATUS, 8, "CCE_INT_STATUS", CCE_NUM_INT_CSRS },
	/* The rest of an engine's registers (sdma_dumpstate). */
	{ SEND_DMA_PRIORITY_THLD, 0x100, "SEND_DMA_PRIORITY_THLD" },
	{ SEND_DMA_IDLE_CNT, 0x100, "SEND_DMA_IDLE_CNT" },
	{ SEND_DMA_DESC_FETCHED_CNT, 0x100, "SEND_DMA_DESC_FETCHED_CNT" },
	{ SEND_DMA_CHECK_VL, 0x100, "SEND_DMA_CHECK_VL" },
	{ SEND_DMA_CHECK_JOB_KEY, 0x100, "SEND_DMA_CHECK_JOB_KEY" },
	{ SEND_DMA_CHECK_PARTITION_KEY, 0x100, "SEND_DMA_CHECK_PARTITION_KEY" },
	/* Registers of the device: stride 0. */
	{ SEND_PIO_INIT_CTXT, 0, "SEND_PIO_INIT_CTXT" },
	{ SEND_PIO_ERR_CLEAR, 0, "SEND_PIO_ERR_CLEAR" },
	{ SEND_CTRL, 0, "SEND_CTRL" },
	{ SEND_CONTEXTS, 0, "SEND_CONTEXTS" },
	{ SEND_PIO_MEM_SIZE, 0, "SEND_PIO_MEM_SIZE" },
	{ SEND_DMA_ENGINES, 0, "SEND_DMA_ENGINES" },
	{ SEND_DMA_MEM_SIZE, 0, "SEND_DMA_MEM_SIZE" },
	{ SEND_DMA_ERR_STATUS, 0, "SEND_DMA_ERR_STATUS" },
	{ SEND_DMA_ERR_MASK, 0, "SEND_DMA_ERR_MASK" },
};

static void csr_name(u32 offset, char *buf, size_t len)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kctxt_csrs); i++) {
		u32 d = offset - kctxt_csrs[i].base;
		u32 s = kctxt_csrs[i].stride;
		u32 n = kctxt_csrs[i].count ? kctxt_csrs[i].count : 256;

		if (!s && offset == kctxt_csrs[i].base) {
			snprintf(buf, len, "%s", kctxt_csrs[i].name);
			return;
		}
		if (s && offset >= kctxt_csrs[i].base && d % s == 0 && d / s < n) {
			snprintf(buf, len, "%s[%u]", kctxt_csrs[i].name, d / s);
			return;
		}
	}
	snprintf(buf, len, "0x%x", offset);
}

/*
 * The registers read in the call being journalled, and their values: room
 * for every readable register above (seven a send context, 24 an engine,
 * the interrupt blocks, the device's) of every context and engine of a
 * world, so a register is journalled once whatever a call reads (as the
 * model does).
 */
#define SHIM_READS_ROOM (7 * SHIM_MAX_SEND_CONTEXTS + 24 * SHIM_MAX_SDMA + \
			 4 * CCE_NUM_INT_CSRS + 16)
static struct {
	unsigned long call;
	unsigned int n;
	u32 offset[SHIM_READS_ROOM];
	u64 value[SHIM_READS_ROOM];
} reads;

u64 read_csr(const struct hfi1_devdata *dd, u32 offset)
{
	char name[64];
	unsigned int i;
	u64 v;

	if (reads.call != journal_call()) {
		reads.call = journal_call();
		reads.n = 0;
	}
	/* A poll: the value the world gave the call's first read. */
	for (i = 0; i < reads.n; i++)
		if (reads.offset[i] == offset)
			return reads.value[i];
	csr_name(offset, name, sizeof(name));
	journal_printf("read_csr(%s)", name);
	v = shim_csr_value(offset);
	if (reads.n < ARRAY_SIZE(reads.offset)) {
		reads.offset[reads.n] = offset;
		reads.value[reads.n++] = v;
	}
	return v;
}

void write_csr(const struct hfi1_devdata *dd, u32 offset, u64 value)
{
	char name[64];

	csr_name(offset, name, sizeof(name));
	journal_printf("write_csr(%s, 0x%llx)", name, (unsigned long long)value);
}

/*
 * A register's address (what sdma_init() keeps for its MMIO, through
 * chip.h's get_kctxt_csr_addr(): the world's sde->tail_csr): an offset
 * into a window that is never dereferenced, only named by the MMIO
 * accessors below.  No upstream code in scope calls it: the shim does.
 */
static char csr_window[1];

void __iomem *get_csr_addr(const struct hfi1_devdata *dd, u32 offset)
{
	return (void __iomem *)((uintptr_t)csr_window + offset);
}

/* An MMIO write to an address get_csr_addr() gave: recorded as write_csr. */
void writeq(u64 val, volatile void __iomem *addr)
{
	char name[64];

	csr_name((u32)((uintptr_t)addr - (uintptr_t)csr_window), name, sizeof(name));
	journal_printf("writeq(%s, 0x%llx)", name, (unsigned long long)val);
}

/* A B-step chip or not: what the world says (a look-up: not recorded). */
int is_bx(struct hfi1_devdata *dd)
{
	return shim_chip_bx();
}

/* An A-step chip: a world's chip is one or a B step (not recorded). */
int is_ax(struct hfi1_devdata *dd)
{
	return !shim_chip_bx();
}

/* The chip clock's conversion: recorded; 0 ns (time does not pass). */
u32 cclock_to_ns(struct hfi1_devdata *dd, u32 cclocks)
{
	journal_printf("cclock_to_ns(%u)", cclocks);
	return 0;
}

/* The conversion the other way: recorded; what the world says (ns_to_cclock). */
u32 ns_to_cclock(struct hfi1_devdata *dd, u32 ns)
{
	journal_printf("ns_to_cclock(%u)", ns);
	return shim_ns_to_cclock();
}

/* The name of a register address get_csr_addr() gave (a describer's). */
void shim_csr_addr_name(const void __iomem *addr, char *buf, size_t len)
{
	csr_name((u32)((uintptr_t)addr - (uintptr_t)csr_window), buf, len);
}
