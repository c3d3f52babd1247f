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

const u16 sc_type_values[SHIM_SC_TYPE_COUNT] = {
	SHIM_SC_TYPE_NAMES(SHIM_VALUE)
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

const u32 sc_flag_values[SHIM_SC_FLAG_COUNT] = {
	SHIM_SC_FLAG_NAMES(SHIM_VALUE)
};

const enum sdma_states sdma_state_values[SHIM_SDMA_STATE_COUNT] = {
	SHIM_SDMA_STATE_NAMES(SHIM_VALUE)
};

const enum sdma_events sdma_event_values[SHIM_SDMA_EVENT_COUNT] = {
	SHIM_SDMA_EVENT_NAMES(SHIM_VALUE)
};

/* iowait flags are bit numbers (iowait_set_flag() uses set_bit()). */
const int iowait_flag_bits[SHIM_IOWAIT_FLAG_COUNT] = {
	SHIM_IOWAIT_FLAG_NAMES(SHIM_VALUE)
};
#undef SHIM_VALUE

/*
 * A flag kind's conversions between the shim's bitset (bit i: name i) and
 * the tree's value, a byte of the bitset at a time: they run on every call
 * over bitsets that vectors draw at random, so four lookups each instead
 * of a pass over the names.  Built once (shim_build_inverse()) from the
 * value lists above.
 */
struct shim_flag_kind {
	const u32 *values;
	int n;
	u32 to_tree[4][256];	/* byte k of a symbolic set: its tree bits */
	u32 to_sym[4][256];	/* byte k of a tree value: its one-bit names */
	u32 one_bit;		/* the tree bits one-bit names have */
	u32 other;		/* the names of several bits (or none) */
};

struct shim_flag_kind shim_s_flags = { s_flag_values, SHIM_S_FLAG_COUNT };
struct shim_flag_kind shim_priv_flags = { priv_flag_values, SHIM_PRIV_FLAG_COUNT };
struct shim_flag_kind shim_sc_flags = { sc_flag_values, SHIM_SC_FLAG_COUNT };

static void shim_build_flag_kind(struct shim_flag_kind *k)
{
	unsigned int b, i, j;

	k->one_bit = 0;
	k->other = 0;
	for (i = 0; i < (unsigned int)k->n; i++) {
		if (hweight32(k->values[i]) == 1)
			k->one_bit |= k->values[i];
		else
			k->other |= 1u << i;
	}
	for (i = 0; i < 4; i++) {
		for (b = 0; b < 256; b++) {
			u32 tree = 0, sym = 0;

			for (j = 0; j < 8; j++) {
				unsigned int name = 8 * i + j;

				if ((b >> j) & 1 && name < (unsigned int)k->n)
					tree |= k->values[name];
			}
			for (j = 0; j < (unsigned int)k->n; j++)
				if (!(k->other & (1u << j)) &&
				    (((u32)b << (8 * i)) & k->values[j]))
					sym |= 1u << j;
			k->to_tree[i][b] = tree;
			k->to_sym[i][b] = sym;
		}
	}
}

/* The tree's value of a symbolic set; bits past the names are ignored. */
u32 tree_bits(u32 symbolic, const struct shim_flag_kind *k)
{
	return k->to_tree[0][symbolic & 0xff] | k->to_tree[1][(symbolic >> 8) & 0xff] |
	       k->to_tree[2][(symbolic >> 16) & 0xff] | k->to_tree[3][symbolic >> 24];
}

/*
 * The names whose bits are all set in a tree value (a name of value 0 is
 * never set); *unknown gets what no name has.
 */
u32 symbolic_bits(u32 tree, const struct shim_flag_kind *k, u32 *unknown)
{
	u32 v = k->to_sym[0][tree & 0xff] | k->to_sym[1][(tree >> 8) & 0xff] |
		k->to_sym[2][(tree >> 16) & 0xff] | k->to_sym[3][tree >> 24];
	u32 seen = tree & k->one_bit;
	u32 rest = k->other;

	while (rest) {
		unsigned int i = __ffs(rest);
		u32 val = k->values[i];
		u32 hit = ((tree & val) == val) & (val != 0);

		v |= hit << i;
		seen |= val & -hit;
		rest &= rest - 1;
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
	shim_build_flag_kind(&shim_s_flags);
	shim_build_flag_kind(&shim_priv_flags);
	shim_build_flag_kind(&shim_sc_flags);
}
