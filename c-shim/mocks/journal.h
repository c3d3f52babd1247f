/* SPDX-License-Identifier: GPL-2.0 */
/*
 * journal.h - what the boundary records.
 *
 * Every mock appends one line per call, "name(arg, arg)", to the outcome of
 * the call being run; pointers are written as the world's symbolic names
 * (shim_ptr_name()), never as addresses, so outcomes are comparable across
 * runs, kernels and the Rust model.
 */
#ifndef HFI1_CONFORMANCE_JOURNAL_H
#define HFI1_CONFORMANCE_JOURNAL_H

#include <linux/types.h>
#include <linux/compiler_types.h>

struct shim_outcome;

void journal_begin(struct shim_outcome *out);
/* Appends to `out` again after journal_end(), keeping what it holds. */
void journal_resume(struct shim_outcome *out);
void journal_end(void);
/* Whether a call is being journalled (between begin and end). */
bool journal_active(void);
/* Which call is being journalled: changes at every journal_begin(). */
unsigned long journal_call(void);
/* Appends one line; the format is printf's, without the newline. */
void journal_printf(const char *fmt, ...) __printf(1, 2);
/*
 * Appends one line to the notes beside the journal: what explains a
 * journal line but moves between releases (a leak's size and FILE:LINE),
 * shown by reports and read by no comparison.
 */
void journal_note(const char *fmt, ...) __printf(1, 2);
/* The symbolic name of a pointer, valid until the next few calls. */
const char *jp(const void *p);

#endif
