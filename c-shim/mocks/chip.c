// SPDX-License-Identifier: GPL-2.0
/*
 * chip.c's register access: every read and write recorded, the register
 * named as chip_registers.h names it and, for the per-context registers
 * chip.h's *_kctxt_csr() address (0x100 apart), the context; a read
 * returns 0.
 */
#include "state.h"

/* The per-context registers the functions in scope reach. */
static const struct {
	u32 base;
	const char *name;
} kctxt_csrs[] = {
	{ SEND_CTXT_CREDIT_CTRL, "SEND_CTXT_CREDIT_CTRL" },
	{ SEND_CTXT_CREDIT_FORCE, "SEND_CTXT_CREDIT_FORCE" },
};

static void csr_name(u32 offset, char *buf, size_t len)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kctxt_csrs); i++) {
		u32 d = offset - kctxt_csrs[i].base;

		if (offset >= kctxt_csrs[i].base && d % 0x100 == 0 && d / 0x100 < 256) {
			snprintf(buf, len, "%s[%u]", kctxt_csrs[i].name, d / 0x100);
			return;
		}
	}
	snprintf(buf, len, "0x%x", offset);
}

u64 read_csr(const struct hfi1_devdata *dd, u32 offset)
{
	char name[64];

	csr_name(offset, name, sizeof(name));
	journal_printf("read_csr(%s)", name);
	return 0;
}

void write_csr(const struct hfi1_devdata *dd, u32 offset, u64 value)
{
	char name[64];

	csr_name(offset, name, sizeof(name));
	journal_printf("write_csr(%s, 0x%llx)", name, (unsigned long long)value);
}
