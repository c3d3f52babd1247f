// SPDX-License-Identifier: GPL-2.0
/*
 * names.c - the tree's value of each of the shim's symbolic names, and the
 * conversions of flag sets between the two.
 */
#include "state.h"

/*
 * The tree's value of each symbolic name, in the shim's order: the
 * generated name lists (schema.h) expanded against the tree's headers.
 */
#define SHIM_VALUE(name) name,
const unsigned long dev_flag_values[SHIM_DEV_FLAG_COUNT] = {
	SHIM_DEV_FLAG_NAMES(SHIM_VALUE)
};

const enum ib_qp_type qp_type_values[SHIM_QP_TYPE_COUNT] = {
	SHIM_QP_TYPE_NAMES(SHIM_VALUE)
};

const enum ib_qp_state qp_state_values[SHIM_QP_STATE_COUNT] = {
	SHIM_QP_STATE_NAMES(SHIM_VALUE)
};

const int wr_opcode_values[SHIM_WR_OPCODE_COUNT] = {
	SHIM_WR_OPCODE_NAMES(SHIM_VALUE)
};

const enum ib_mig_state mig_state_values[SHIM_MIG_STATE_COUNT] = {
	SHIM_MIG_STATE_NAMES(SHIM_VALUE)
};

const u32 s_flag_values[SHIM_S_FLAG_COUNT] = {
	SHIM_S_FLAG_NAMES(SHIM_VALUE)
};

const u32 priv_flag_values[SHIM_PRIV_FLAG_COUNT] = {
	SHIM_PRIV_FLAG_NAMES(SHIM_VALUE)
};

/* iowait flags are bit numbers (iowait_set_flag() uses set_bit()). */
const int iowait_flag_bits[SHIM_IOWAIT_FLAG_COUNT] = {
	SHIM_IOWAIT_FLAG_NAMES(SHIM_VALUE)
};
#undef SHIM_VALUE

/*
 * The bit conversions below run on every call over bitsets that vectors
 * draw at random: they are written without a branch per bit.
 */
u32 tree_bits(u32 symbolic, const u32 *values, int n)
{
	u32 v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= values[i] & -((symbolic >> i) & 1);
	return v;
}

/* Symbolic bits of a tree value; *unknown gets what has no symbol. */
u32 symbolic_bits(u32 tree, const u32 *values, int n, u32 *unknown)
{
	u32 v = 0, seen = 0;
	int i;

	for (i = 0; i < n; i++) {
		u32 hit = ((tree & values[i]) == values[i]) & (values[i] != 0);

		v |= hit << i;
		seen |= values[i] & -hit;
	}
	if (unknown)
		*unknown = tree & ~seen;
	return v;
}

/*
 * Tree value -> the shim's index, for the values read back after a call:
 * one lookup instead of a search.  A value of 256 or more, or one no name
 * has, maps to the count (no name).
 */
u8 qp_type_index[256], qp_state_index[256], mig_state_index[256];
u8 wr_opcode_index[256];

static void shim_invert(u8 *inv, const int *values, int n)
{
	int i;

	memset(inv, n, 256);
	for (i = n - 1; i >= 0; i--)
		if (values[i] >= 0 && values[i] < 256)
			inv[values[i]] = i;
}

void shim_build_inverse(void)
{
	int v[SHIM_WR_OPCODE_COUNT];
	int i;

	BUILD_BUG_ON((int)SHIM_QP_TYPE_COUNT > (int)SHIM_WR_OPCODE_COUNT ||
		     (int)SHIM_QP_STATE_COUNT > (int)SHIM_WR_OPCODE_COUNT ||
		     (int)SHIM_MIG_STATE_COUNT > (int)SHIM_WR_OPCODE_COUNT);
	for (i = 0; i < SHIM_QP_TYPE_COUNT; i++)
		v[i] = qp_type_values[i];
	shim_invert(qp_type_index, v, SHIM_QP_TYPE_COUNT);
	for (i = 0; i < SHIM_QP_STATE_COUNT; i++)
		v[i] = qp_state_values[i];
	shim_invert(qp_state_index, v, SHIM_QP_STATE_COUNT);
	for (i = 0; i < SHIM_MIG_STATE_COUNT; i++)
		v[i] = mig_state_values[i];
	shim_invert(mig_state_index, v, SHIM_MIG_STATE_COUNT);
	shim_invert(wr_opcode_index, wr_opcode_values, SHIM_WR_OPCODE_COUNT);
}
