/* SPDX-License-Identifier: GPL-2.0 */
/*
 * calls.h - the shim's calls: one function per upstream function run, in
 * its own section (shim.c: the QP's functions and the call loop;
 * engine_calls.c: the send engines'; txbuild.c: a tx request's
 * descriptors built).  The gate reads which upstream code each can reach
 * from the objects (harness/src/cworld/reach.rs), so nothing one of them
 * does may be done for another (noipa: never inlined, cloned or merged).
 */
#ifndef _SHIM_CALLS_H
#define _SHIM_CALLS_H

#include "state.h"

#if defined(__clang__)
/* The fuzz target's clang world: compared with no other, never read so. */
#define SHIM_NOIPA noinline
#else
#define SHIM_NOIPA __attribute__((noipa))
#endif

#define X(name) int shim_call_##name(const struct shim_call *c, struct shim_outcome *out);
SHIM_FN_NAMES(X)
#undef X

#define SHIM_CALL(name) \
	SHIM_NOIPA int shim_call_##name(const struct shim_call *c, struct shim_outcome *out)

/*
 * The call of a function some trees lack (boundary.toml's `optional`): on
 * a tree without it the build defines SHIM_ABSENT_<name>, and its call is
 * refused; the harness skips its vectors on that tree, never making it.
 */
#define SHIM_ABSENT_CALL(name) \
	SHIM_CALL(name) { return shim_refuse(out); }

/* What every call does before its function: the QP, a fresh journal. */
void shim_begin(const struct shim_call *c, struct shim_outcome *out);
/* A call the shim refuses: nothing of an earlier outcome is left. */
int shim_refuse(struct shim_outcome *out);
/*
 * Before a call of a function that runs qp.c's iowait callbacks: they are
 * harvested (outside the call's allocations), or the call is refused.
 */
bool shim_prep_callbacks(const struct shim_call *c);

#endif
