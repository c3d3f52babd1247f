/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmp.h - what the comparison recorder (cmp.c) writes, shared with its
 * reader, harness/src/judge/boundaries.rs, which holds the same values.
 *
 * The file: a first line "hfi1-cmp-1 DROPPED" (call sites the table had no
 * room for), then one line per call site, "OFFSET SIDES COUNT": the return
 * address in the world's shared object (hex), the sides seen (the bits
 * below) and how often it ran (decimal).
 */
#ifndef HFI1_CONFORMANCE_CMP_H
#define HFI1_CONFORMANCE_CMP_H

/* Where the worker writes its table (set by cworld/client/launch.rs). */
#define CMP_DIR_ENV	"HFI1_CMP_DIR"
#define CMP_TABLE_MAGIC	"hfi1-cmp-1"

/* a == b */
#define CMP_EQUAL	1
/* a == b - 1 */
#define CMP_BELOW	2
/* a == b + 1 */
#define CMP_ABOVE	4
/* One operand was a constant, taken to be b. */
#define CMP_CONST	8

#endif
