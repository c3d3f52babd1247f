/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shim.h - the one stable C ABI between the Rust harness and a C world.
 *
 * Everything that crosses the boundary is a flat, fixed-size struct of
 * plain integers.  Names (QP types, opcodes, flags, states) cross as the
 * shim's own symbolic enumerations (schema.h, generated from the model's
 * schema with struct shim_qp, struct shim_wqe and struct shim_args);
 * c-shim/names.c maps them to the values of
 * the kernel tree the world was compiled from, so a kernel that renumbers
 * a flag is not a behaviour change.  Rust never sees a kernel struct
 * layout.
 *
 * Bump SHIM_ABI_VERSION whenever a struct below changes, then run
 * `cargo xtask codegen` to regenerate harness/src/cworld/ffi/bindings.rs.
 */
#ifndef HFI1_CONFORMANCE_SHIM_H
#define HFI1_CONFORMANCE_SHIM_H

#ifdef __KERNEL__
#include <linux/types.h>
typedef s8 shim_i8;
typedef s16 shim_i16;
typedef s32 shim_i32;
typedef u8 shim_u8;
typedef u16 shim_u16;
typedef u32 shim_u32;
typedef u64 shim_u64;
#else
#include <stdint.h>
typedef int8_t shim_i8;
typedef int16_t shim_i16;
typedef int32_t shim_i32;
typedef uint8_t shim_u8;
typedef uint16_t shim_u16;
typedef uint32_t shim_u32;
typedef uint64_t shim_u64;
#endif

#define SHIM_ABI_VERSION 61

/* Sizes of the flat tables (the kernel's own limits where it has one). */
#define SHIM_NUM_SC 32		/* OPA_MAX_SCS */
#define SHIM_NUM_SL 32		/* OPA_MAX_SLS */
#define SHIM_NUM_VLD 16		/* PER_VL_SEND_CONTEXTS */
#define SHIM_MAX_SDMA 16	/* TXE_NUM_SDMA_ENGINES */
#define SHIM_MAX_SEND_CONTEXTS 64
#define SHIM_MAX_PORTS 2
#define SHIM_MAP_MAX_ELEMS 16	/* per-VL elements of an engine map */
#define SHIM_ELEM_MAX_ENTRIES 16	/* engines / contexts of one element */
/*
 * The journal's rooms: boundary lines, tracepoint lines ("trace ...") and
 * lock-order lines ("lockdep: ...") each have their own, so one kind
 * filling its room loses no line of another (mocks/journal.c).
 */
#define SHIM_JOURNAL_ROOM 16384	/* boundary lines; tracepoint lines */
#define SHIM_LOCKDEP_ROOM 4096	/* lock-order lines */
#define SHIM_JOURNAL_BYTES (2 * SHIM_JOURNAL_ROOM + SHIM_LOCKDEP_ROOM + 1)
#define SHIM_TEXT_BYTES 4096
#define SHIM_NOTES_BYTES 2048
#define SHIM_MAX_ITER_QPS 8	/* QPs rvt_qp_iter() walks */
#define SHIM_MAX_SWQE 16	/* send queue entries (qp->s_size) */
#define SHIM_MAX_ACK 8		/* ack queue entries */
#define SHIM_MAX_WAITERS 24	/* other iowaits on a wait list */
#define SHIM_MAX_PIO_WAITERS 8	/* other QPs on a piowait list */
#define SHIM_MAX_SR 8		/* slots of a send context's shadow ring */
#define SHIM_MAX_TX_MORE 3	/* txs a call is given behind a leg's first */
#define SHIM_MAX_DMA_TX 4	/* tx requests on an engine's ring, on its flush list */
#define SHIM_MAX_TX_RING 64	/* the largest ring (descq_cnt) that holds tx requests */
#define SHIM_MAX_DESCQ 16	/* descriptors of an engine's ring read back */
#define SHIM_MAX_TX_DESC 8	/* descriptors of a tx request (NUM_DESC is 6) */

/* An index into the world's tables, or one of these. */
#define SHIM_NONE (-1)		/* a NULL pointer */
#define SHIM_FOREIGN (-2)	/* a pointer that is not part of the world */

struct shim_ack {
	shim_u8 opcode;
	shim_u32 psn;
	shim_u32 lpsn;
};

/* A value behind a pointer that may be NULL. */
struct shim_opt_u32 {
	shim_u8 present;		/* 0: NULL */
	shim_u32 value;
};

struct shim_ack_queue {
	shim_u8 present;		/* 0: qp->s_ack_queue is NULL */
	struct shim_ack e[SHIM_MAX_ACK];
};

/* An entry of the send queue (qp->s_wq[i]) as far as qp.c reads it. */
struct shim_swqe {
	shim_u32 opcode;		/* enum shim_wr_opcode */
	shim_u32 ssn;
};

struct shim_ah {
	shim_u8 log_pmtu;		/* rvt_ah->log_pmtu */
	shim_u8 sl;			/* rdma_ah_get_sl(&ah->attr) */
	shim_u8 port_num;		/* rdma_ah_get_port_num(&ah->attr) */
};

/* An address handle, or NULL. */
struct shim_opt_ah {
	shim_u8 present;		/* 0: NULL */
	struct shim_ah ah;
};

/* A QP of the device that rvt_qp_iter() walks. */
struct shim_iter_qp {
	shim_u32 qp_type;		/* enum shim_qp_type */
	shim_u32 qp_num;
	shim_u32 port_num;
	shim_u32 state;			/* enum shim_qp_state */
	shim_u8 remote_sl;
	shim_u8 error_qp_ret;		/* what rvt_error_qp() returns for it */
	shim_u8 pad[2];
} __attribute__((__packed__));

/*
 * A tx request (struct sdma_txreq) on the QP's engine's tx ring or flush
 * list: its descriptors (each one's mapping type, SDMA_MAP_*, in 2 bits
 * of map; a pinning context with a ctx_put callback, a bit of pinned),
 * the AHG header mode of the first, the buffers it owns, its callback and
 * iowait.  id names it in the journal (dtx#ID).  On the QP's engine's
 * rings and lists, or on the caller's list sdma_send_txlist() is given.
 */
struct shim_dma_tx {
	shim_u16 next_descq_idx;
	shim_u16 map;			/* descriptor i: bits 2i..2i+1 */
	shim_u8 id;
	shim_u8 num_desc;
	shim_u8 pinned;			/* descriptor i: bit i */
	shim_u8 mode;			/* SDMA_DESC1_HEADER_MODE of descp[0] */
	shim_u8 coalesce;		/* coalesce_buf allocated */
	shim_u8 ext;			/* descp allocated: desc_limit > NUM_DESC */
	shim_u8 complete;		/* 1: the recording callback, 0: NULL */
	shim_u8 wait;			/* 0: NULL, 1: the QP's iowait, 2: the queue's */
} __attribute__((__packed__));

/* A descriptor of the QP's engine's ring (sde->descq[idx]): not both 0. */
struct shim_descq_entry {
	shim_u64 qw0;
	shim_u64 qw1;
	shim_u8 idx;
} __attribute__((__packed__));

/*
 * Another iowait on the dmawait list of the QP's engine (upstream's
 * iowait_init(), a recording wakeup, no init_priority), before or after
 * the QP's; its IB leg holds a tx request of num_desc descriptors when
 * that is not 0.
 */
struct shim_waiter {
	shim_u8 priority;
	shim_u8 starved_cnt;
	shim_u16 num_desc;
	shim_u8 after_qp;
	shim_u8 on_list;		/* !list_empty(&w->list) */
	shim_u8 pad[2];
} __attribute__((__packed__));

/*
 * Another QP on the piowait list of the QP's send context (its own rvt_qp
 * and private data, qp.c's iowait callbacks), before or after the QP.
 */
struct shim_pio_waiter {
	shim_u32 num;
	shim_u32 s_flags;		/* enum shim_s_flag bits */
	shim_u32 priv_flags;		/* enum shim_priv_flag bits */
	shim_u32 iowait_flags;		/* enum shim_iowait_flag bits */
	shim_i32 refcount;
	shim_u8 priority;
	shim_u8 starved_cnt;
	shim_u8 after_qp;
	shim_u8 on_list;		/* !list_empty(&priv->s_iowait.list) */
} __attribute__((__packed__));

/*
 * The QPs rvt_qp_iter() walks, in order: qp[0] to qp[n - 1].  Packed, as
 * the packed arguments that hold it: a pointer to it is then never taken
 * for more aligned than it is (UBSan's misaligned access).
 */
struct shim_iter_list {
	shim_u8 n;
	shim_u8 pad[3];
	struct shim_iter_qp qp[SHIM_MAX_ITER_QPS];
} __attribute__((__packed__));

/*
 * An engine map (dd->sdma_map or dd->pio_map): m->map[vl & m->mask] is an
 * element, e->sde[selector & e->mask] (or e->ksc[]) an engine index.
 *
 * An element below nelems is written whole, every one of its entries (an
 * entry beyond nentries is SHIM_NONE), so the shim checks and builds an
 * element without a loop whose length depends on the vector: branches
 * mispredicted per element were most of the cost of a world.  Elements
 * from nelems on are not read.  Packed, as the world that holds it.
 */
struct shim_map_elem {
	shim_u8 present;		/* 0: m->map[i] is NULL */
	shim_u8 nentries;		/* entries allocated */
	shim_u32 mask;			/* e->mask */
	/* engine (sdma) or send-context (pio) index; SHIM_NONE for NULL */
	shim_i8 entries[SHIM_ELEM_MAX_ENTRIES];
} __attribute__((__packed__));

struct shim_map {
	shim_u8 present;		/* 0: the RCU pointer is NULL */
	shim_u8 nelems;			/* elements allocated */
	shim_u32 mask;			/* m->mask */
	struct shim_map_elem elems[SHIM_MAP_MAX_ELEMS];
} __attribute__((__packed__));

/*
 * The shim's symbolic enumerations (device flags, QP types and states,
 * opcodes, flags, functions), each with an X-macro list of the tree's
 * names in order, struct shim_world, struct shim_qp, struct shim_wqe and
 * struct shim_args (each function's arguments): generated from the
 * model's schema.
 */
#include "schema.h"

/*
 * A step of a scenario (struct shim_call's carry): SHIM_STEP_CARRIED, a
 * later step, runs on the world, QP and engines the call before it left in
 * this process, which must have returned with SHIM_STEP_KEEP set (of the
 * call only fn and args are read; the rest is the kept call's, its world's
 * registers included); SHIM_STEP_KEEP keeps what the call leaves for the
 * next step.  A single call has neither.
 */
#define SHIM_STEP_CARRIED 1
#define SHIM_STEP_KEEP 2

/* One call: the function, its arguments, and what its pointers reach. */
struct shim_call {
	shim_u32 fn;			/* enum shim_fn */
	shim_u32 carry;			/* SHIM_STEP_* */
	struct shim_args args;		/* args.<fn's name>: its arguments */
	struct shim_world world;
	struct shim_qp qp;
	struct shim_wqe wqe;
	struct shim_engines engines;
};

struct shim_outcome {
	shim_i32 ret;			/* int return value, 0 when void */
	shim_u8 call_send;		/* *call_send on exit */
	shim_i16 sdma_engine;		/* engine index, SHIM_NONE, SHIM_FOREIGN */
	shim_i16 send_context;		/* send-context index, likewise */
	shim_u32 s_flags_unknown;	/* tree bits of qp->s_flags with no symbol */
	struct shim_qp qp;		/* the QP as the call left it, flags included */
	struct shim_engines engines;	/* the engines' state as the call left it */
	shim_u32 text_len;
	/*
	 * What the function printed (seq_file), or, for functions that change
	 * a QP's addressing or allocate, the state they left (key=value).
	 */
	char text[SHIM_TEXT_BYTES];
	shim_u32 journal_len;
	/*
	 * One boundary call or warning a line: "name(arg, arg)\n", pointers as
	 * symbolic names ("sde#3", "sc#1", "qp#0x40", "wqe").
	 */
	char journal[SHIM_JOURNAL_BYTES];
	shim_u32 notes_len;
	/*
	 * Lines that explain journal lines but move between releases, which
	 * no comparison reads: "leak: 64 bytes from sdma.c:1412 (kmalloc in
	 * sdma_init)" for each leak line the call journals.
	 */
	char notes[SHIM_NOTES_BYTES];
};

/* Exported by every C world. */
shim_u32 shim_abi_version(void);
/* "6.12.117": VERSION.PATCHLEVEL.SUBLEVEL of the tree it was built from. */
const char *shim_kernel_version(void);
/*
 * sizeof(struct shim_call) << 32 | sizeof(struct shim_outcome), as this
 * world was compiled: the harness refuses a world whose sizes differ from
 * its own (a stale c-shim/schema.h or bindings).
 */
shim_u64 shim_abi_sizes(void);
/*
 * Once, after loading and before any call: takes the callbacks
 * qp_priv_alloc() installs in a QP's iowait (static in qp.c), which a
 * scenario's QP has from its first step on.
 */
void shim_prepare(void);
/* Runs one call; returns 0, or -1 when the call itself is malformed. */
int shim_run(const struct shim_call *call, struct shim_outcome *out);
/* Benchmark: the world of call built once, its function run iters times. */
shim_u64 shim_bench(const struct shim_call *call, shim_u64 iters);
/*
 * A coverage or measuring world's counters written out now (after each
 * request, and as a worker dies of a signal); returns whether the world
 * has counters (nothing is written in other worlds).
 */
int shim_flush_counters(void);

#endif /* HFI1_CONFORMANCE_SHIM_H */
