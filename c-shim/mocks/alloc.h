/* SPDX-License-Identifier: GPL-2.0 */
/*
 * alloc.h - the shim's side of the allocation mock (mocks/alloc.c): blocks
 * the world holds for upstream to free, and the leak report after a call.
 */
#ifndef HFI1_CONFORMANCE_ALLOC_H
#define HFI1_CONFORMANCE_ALLOC_H

#include <linux/types.h>

/* A zeroed block upstream is to free (kfree), named for the leak report. */
void *shim_alloc_tracked(size_t size, const char *what);
/* Frees every block still held from the call before: a new world. */
void shim_alloc_reset(void);
/* A tracked block's size (0: not tracked); one the world releases, unjournalled. */
size_t shim_block_size(const void *p);
bool shim_block_is_world(const void *p);
void shim_free_tracked(void *p);
/* Whether the live block starting at `block` holds the pointer `p`. */
bool shim_block_holds(const void *block, const void *p);
/* The live block p points into (its start), or NULL. */
const void *shim_block_of(const void *p);
/* A live block's name as the leak report gives it ("kmalloc in X"). */
const char *shim_block_name(const void *p);
/* A mock's own table, which the leak scan does not read (no reference). */
void shim_leak_ignore(const void *p, size_t len);
/* Journals each block no data of the world reaches any more: a leak. */
void shim_report_leaks(void);

#endif
