/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shim.h - the one stable C ABI between the Rust harness and a C world.
 *
 * Everything that crosses the boundary is a flat, fixed-size struct of
 * plain integers.  Names (QP types, opcodes, flags, states) cross as the
 * shim's own symbolic enumerations below; c-shim/shim.c maps them to the
 * values of the kernel tree the world was compiled from, so a kernel that
 * renumbers a flag is not a behaviour change.  Rust never sees a kernel
 * struct layout.
 *
 * Bump SHIM_ABI_VERSION whenever a struct below changes, then run
 * `cargo xtask bindgen` to regenerate harness/src/ffi/bindings.rs.
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

#define SHIM_ABI_VERSION 8

/* Sizes of the flat tables (the kernel's own limits where it has one). */
#define SHIM_NUM_SC 32		/* OPA_MAX_SCS */
#define SHIM_NUM_SL 32		/* OPA_MAX_SLS */
#define SHIM_NUM_VLD 16		/* PER_VL_SEND_CONTEXTS */
#define SHIM_MAX_SDMA 16	/* TXE_NUM_SDMA_ENGINES */
#define SHIM_MAX_SEND_CONTEXTS 64
#define SHIM_MAX_PORTS 2
#define SHIM_MAP_MAX_ELEMS 16	/* per-VL elements of an engine map */
#define SHIM_ELEM_MAX_ENTRIES 16	/* engines / contexts of one element */
#define SHIM_JOURNAL_BYTES 2048
#define SHIM_TEXT_BYTES 1024
#define SHIM_MAX_ITER_QPS 8	/* QPs rvt_qp_iter() walks */
#define SHIM_MAX_SWQE 16	/* send queue entries (qp->s_size) */
#define SHIM_MAX_ACK 8		/* ack queue entries */

/* An index into the world's tables, or one of these. */
#define SHIM_NONE (-1)		/* a NULL pointer */
#define SHIM_FOREIGN (-2)	/* a pointer that is not part of the world */

/* Device flags (dd->flags), by name. */
enum shim_dev_flag {
	SHIM_HFI1_INITTED,
	SHIM_HFI1_PRESENT,
	SHIM_HFI1_FROZEN,
	SHIM_HFI1_HAS_SDMA_TIMEOUT,
	SHIM_HFI1_HAS_SEND_DMA,
	SHIM_HFI1_FORCED_FREEZE,
	SHIM_HFI1_SHUTDOWN,
	SHIM_DEV_FLAG_COUNT
};

/* enum ib_qp_type, the five types hfi1 serves. */
enum shim_qp_type {
	SHIM_IB_QPT_SMI,
	SHIM_IB_QPT_GSI,
	SHIM_IB_QPT_RC,
	SHIM_IB_QPT_UC,
	SHIM_IB_QPT_UD,
	SHIM_QP_TYPE_COUNT
};

/* enum ib_qp_state. */
enum shim_qp_state {
	SHIM_IB_QPS_RESET,
	SHIM_IB_QPS_INIT,
	SHIM_IB_QPS_RTR,
	SHIM_IB_QPS_RTS,
	SHIM_IB_QPS_SQD,
	SHIM_IB_QPS_SQE,
	SHIM_IB_QPS_ERR,
	SHIM_QP_STATE_COUNT
};

/* enum ib_wr_opcode plus the driver's private opcodes. */
enum shim_wr_opcode {
	SHIM_IB_WR_RDMA_WRITE,
	SHIM_IB_WR_RDMA_WRITE_WITH_IMM,
	SHIM_IB_WR_SEND,
	SHIM_IB_WR_SEND_WITH_IMM,
	SHIM_IB_WR_RDMA_READ,
	SHIM_IB_WR_ATOMIC_CMP_AND_SWP,
	SHIM_IB_WR_ATOMIC_FETCH_AND_ADD,
	SHIM_IB_WR_LOCAL_INV,
	SHIM_IB_WR_SEND_WITH_INV,
	SHIM_IB_WR_REG_MR,
	SHIM_IB_WR_OPFN,
	SHIM_IB_WR_TID_RDMA_WRITE,
	SHIM_IB_WR_TID_RDMA_READ,
	SHIM_WR_OPCODE_COUNT
};

/* Send-side QP flags (qp->s_flags): rdmavt's RVT_S_* and hfi1's HFI1_S_*. */
enum shim_s_flag {
	SHIM_RVT_S_SIGNAL_REQ_WR,
	SHIM_RVT_S_BUSY,
	SHIM_RVT_S_TIMER,
	SHIM_RVT_S_RESP_PENDING,
	SHIM_RVT_S_ACK_PENDING,
	SHIM_RVT_S_WAIT_FENCE,
	SHIM_RVT_S_WAIT_RDMAR,
	SHIM_RVT_S_WAIT_RNR,
	SHIM_RVT_S_WAIT_SSN_CREDIT,
	SHIM_RVT_S_WAIT_DMA,
	SHIM_RVT_S_WAIT_PIO,
	SHIM_RVT_S_WAIT_TX,
	SHIM_RVT_S_WAIT_DMA_DESC,
	SHIM_RVT_S_WAIT_KMEM,
	SHIM_RVT_S_WAIT_PSN,
	SHIM_RVT_S_WAIT_ACK,
	SHIM_RVT_S_SEND_ONE,
	SHIM_RVT_S_UNLIMITED_CREDIT,
	SHIM_RVT_S_ECN,
	SHIM_HFI1_S_AHG_VALID,
	SHIM_HFI1_S_AHG_CLEAR,
	SHIM_HFI1_S_WAIT_PIO_DRAIN,
	SHIM_HFI1_S_WAIT_TID_SPACE,
	SHIM_HFI1_S_WAIT_TID_RESP,
	SHIM_HFI1_S_WAIT_HALT,
	SHIM_S_FLAG_COUNT
};

/* The private send flags (priv->s_flags) qp.c reads and writes. */
enum shim_priv_flag {
	SHIM_PRIV_HFI1_S_TID_BUSY_SET,
	SHIM_PRIV_RVT_S_BUSY,
	SHIM_PRIV_RVT_S_ACK_PENDING,
	SHIM_PRIV_FLAG_COUNT
};

/* iowait flags (priv->s_iowait.flags). */
enum shim_iowait_flag {
	SHIM_IOWAIT_PENDING_IB,
	SHIM_IOWAIT_PENDING_TID,
	SHIM_IOWAIT_FLAG_COUNT
};

/* The upstream function a call runs. */
enum shim_fn {
	SHIM_FN_HFI1_SETUP_WQE,
	SHIM_FN_QP_TO_SDMA_ENGINE,
	SHIM_FN_QP_TO_SEND_CONTEXT,
	SHIM_FN_SDMA_SELECT_ENGINE_SC,
	SHIM_FN_SDMA_SELECT_ENGINE_VL,
	SHIM_FN_PIO_SELECT_SEND_CONTEXT_SC,
	SHIM_FN_PIO_SELECT_SEND_CONTEXT_VL,
	SHIM_FN__HFI1_SCHEDULE_SEND,
	SHIM_FN_HFI1_SCHEDULE_SEND,
	SHIM_FN_QP_ITER_PRINT,
	SHIM_FN_HFI1_ERROR_PORT_QPS,
	SHIM_FN_HFI1_QP_UNBUSY,
	SHIM_FN_HFI1_QP_WAKEUP,
	SHIM_FN_NOTIFY_ERROR_QP,
	SHIM_FN_MTU_TO_PATH_MTU,
	SHIM_FN_MTU_FROM_QP,
	SHIM_FN_GET_PMTU_FROM_ATTR,
	SHIM_FN_HFI1_CHECK_MODIFY_QP,
	SHIM_FN_HFI1_MODIFY_QP,
	SHIM_FN_HFI1_MIGRATE_QP,
	SHIM_FN_QP_PRIV_ALLOC,
	SHIM_FN_QP_PRIV_FREE,
	SHIM_FN_FREE_ALL_QPS,
	SHIM_FN_FLUSH_QP_WAITERS,
	SHIM_FN_STOP_SEND_QUEUE,
	SHIM_FN_QUIESCE_QP,
	SHIM_FN_NOTIFY_QP_RESET,
	SHIM_FN_POST_PARMS,
	/* qp.c's static iowait callbacks, through the pointers qp_priv_alloc installs */
	SHIM_FN_IOWAIT_WAKEUP,
	SHIM_FN_IOWAIT_SDMA_DRAINED,
	SHIM_FN_HFI1_INIT_PRIORITY,
	SHIM_FN_COUNT
};

/*
 * An engine map (dd->sdma_map or dd->pio_map): m->map[vl & m->mask] is an
 * element, e->sde[selector & e->mask] (or e->ksc[]) an engine index.
 *
 * An element below nelems is written whole, every one of its entries (an
 * entry beyond nentries is SHIM_NONE), so the shim checks and builds an
 * element without a loop whose length depends on the vector: branches
 * mispredicted per element were most of the cost of a world.  Elements
 * from nelems on are not read.
 */
struct shim_map_elem {
	shim_u8 present;		/* 0: m->map[i] is NULL */
	shim_u8 nentries;		/* entries allocated */
	shim_u32 mask;			/* e->mask */
	/* engine (sdma) or send-context (pio) index; SHIM_NONE for NULL */
	shim_i8 entries[SHIM_ELEM_MAX_ENTRIES];
};

struct shim_map {
	shim_u8 present;		/* 0: the RCU pointer is NULL */
	shim_u8 nelems;			/* elements allocated */
	shim_u32 mask;			/* m->mask */
	struct shim_map_elem elems[SHIM_MAP_MAX_ELEMS];
};

struct shim_sdma_engine {
	shim_i32 cpu;			/* sde->cpu */
};

struct shim_port {
	shim_u8 sl_to_sc[SHIM_NUM_SL];	/* ibp->sl_to_sc */
	shim_u32 ibmtu;			/* ppd->ibmtu */
	shim_u32 lid;			/* ppd->lid */
	shim_u64 gid_prefix;		/* ibp->rvp.gid_prefix, host order */
	shim_u8 has_qp0;		/* ibp->rvp.qp[0] != NULL */
	shim_u8 has_qp1;		/* ibp->rvp.qp[1] != NULL */
};

/* A device and its module parameters: everything a QP's device reaches. */
struct shim_world {
	shim_u32 dev_flags;		/* bitset of 1 << enum shim_dev_flag */
	shim_u8 qos_shift;		/* dd->qos_shift */
	shim_u32 num_vls;		/* module parameter num_vls (chip.c) */
	shim_u16 piothreshold;		/* module parameter piothreshold */
	shim_i32 node;			/* dd->node */
	shim_u64 node_cpus;		/* cpumask_of_node(dd->node), cpus 0..63 */
	shim_u8 sc_to_vl[SHIM_NUM_SC];	/* dd->sc2vl, byte by byte */
	shim_u16 vl_mtu[SHIM_NUM_VLD];	/* dd->vld[i].mtu */
	shim_i16 vl_sc[SHIM_NUM_VLD];	/* dd->vld[i].sc: send context index */
	shim_u8 num_sdma;		/* engines in dd->per_sdma */
	/* written whole (the shim copies it without a count) */
	struct shim_sdma_engine sdma[SHIM_MAX_SDMA];
	shim_u8 num_send_contexts;	/* context i has sc->sw_index i */
	struct shim_map sdma_map;
	struct shim_map pio_map;
	shim_u8 num_pports;		/* dd->num_pports */
	struct shim_port ports[SHIM_MAX_PORTS];
	shim_u8 max_rdma_atomic;	/* rdi->dparms.max_rdma_atomic */
	shim_u8 extra_rdma_atomic;	/* rdi->dparms.extra_rdma_atomic */
	shim_u8 queue_work_ret;		/* what queue_work_on() returns */
	shim_u8 tid_send_ret;		/* what hfi1_schedule_tid_send() returns */
	shim_u8 cancel_work_ret;	/* what cancel_work_sync() returns */
	shim_u32 alloc_fail;		/* bit n: the n-th kmalloc of the call fails */
};

struct shim_ah {
	shim_u8 log_pmtu;		/* rvt_ah->log_pmtu */
	shim_u8 sl;			/* rdma_ah_get_sl(&ah->attr) */
	shim_u8 port_num;		/* rdma_ah_get_port_num(&ah->attr) */
};

struct shim_ack {
	shim_u8 opcode;
	shim_u32 psn;
	shim_u32 lpsn;
};

struct shim_qp {
	shim_u32 qp_type;		/* enum shim_qp_type */
	shim_u32 qp_num;		/* ibqp.qp_num */
	shim_u32 port_num;		/* qp->port_num */
	shim_u16 pmtu;			/* qp->pmtu (u16 in struct rvt_qp) */
	shim_u32 state;			/* enum shim_qp_state */
	shim_u32 s_flags;		/* bitset of 1 << enum shim_s_flag */
	shim_u32 priv_flags;		/* bitset of 1 << enum shim_priv_flag */
	shim_u32 iowait_flags;		/* bitset of 1 << enum shim_iowait_flag */
	shim_i16 s_sde;			/* priv->s_sde: engine index or SHIM_NONE */
	shim_i16 s_sendcontext;		/* priv->s_sendcontext */
	shim_u8 s_sc;			/* priv->s_sc */
	shim_u8 ib_tx_queued;		/* the IB leg's tx_head is not empty */
	shim_u8 on_wait_list;		/* priv->s_iowait is on an engine's wait list */
	/*
	 * Off the list, but priv->s_iowait.lock still set: a waker took the
	 * iowait off an engine's list (list_del_init) and left the lock.
	 */
	shim_u8 wait_lock_stale;
	shim_i32 sdma_busy;		/* priv->s_iowait.sdma_busy */
	shim_i32 pio_busy;		/* priv->s_iowait.pio_busy */
	shim_i32 refcount;		/* qp->refcount */
	shim_u8 remote_sl;		/* rdma_ah_get_sl(&qp->remote_ah_attr) */
	shim_u32 remote_dlid;		/* rdma_ah_get_dlid(&qp->remote_ah_attr) */
	shim_u32 remote_qpn;
	shim_u8 remote_grh;		/* IB_AH_GRH in remote_ah_attr's flags */
	shim_u64 remote_gid_prefix;	/* its dgid, host order */
	shim_u64 remote_gid_iid;
	shim_u8 remote_make_grd;	/* rdma_ah_set_make_grd(): an OPA AH asking for a GRH */
	/* Fields qp_iter_print() prints, as the kernel has them. */
	shim_u8 timeout;
	shim_u32 s_lsn, s_last_psn, s_psn, s_next_psn;
	shim_u32 s_sending_psn, s_sending_hpsn, r_psn;
	shim_u32 s_last, s_acked, s_cur, s_tail, s_head, s_size, s_avail;
	shim_u8 s_tail_ack_queue, r_head_ack_queue;
	shim_u8 s_retry, s_retry_cnt, s_rnr_retry_cnt, s_rnr_retry;
	shim_i32 pid;
	shim_u8 s_state, s_ack_state, r_min_rnr_timer;
	shim_u32 cq_head, cq_tail;	/* the send CQ's queue indices */
	/* the send CQ is mapped to user space (cq->ip): its indices are in cq->queue */
	shim_u8 cq_user;
	shim_u8 has_rdma_mr;		/* qp->s_rdma_mr != NULL */
	shim_u32 rdma_mr_refs;		/* its mr->refcount */
	shim_u8 has_ack_queue;		/* qp->s_ack_queue != NULL */
	struct shim_ack ack[SHIM_MAX_ACK];
	shim_u8 has_srq;		/* qp->ibqp.srq != NULL */
	shim_u32 srq_size;		/* srq->rq.size */
	shim_u32 rq_size;		/* qp->r_rq.size */
	shim_u8 s_mig_state;		/* enum ib_mig_state: 0 MIGRATED, 1 REARM, 2 ARMED */
	shim_i8 s_ahgidx;
	shim_u8 hdr_type;		/* priv->hdr_type */
	shim_u8 alt_sl;			/* qp->alt_ah_attr */
	shim_u8 alt_port;
	shim_u32 alt_dlid;
	shim_u8 s_pkey_index, s_alt_pkey_index;	/* u8 in struct rvt_qp */
	shim_u32 swqe_opcode[SHIM_MAX_SWQE];	/* enum shim_wr_opcode of s_wq[i] */
	shim_u32 swqe_ssn[SHIM_MAX_SWQE];	/* s_wq[i].ssn */
};

/* A QP of the device rvt_qp_iter() walks (hfi1_error_port_qps). */
struct shim_iter_qp {
	shim_u32 qp_type;		/* enum shim_qp_type */
	shim_u32 qp_num;
	shim_u32 port_num;
	shim_u32 state;			/* enum shim_qp_state */
	shim_u8 remote_sl;
	shim_u8 error_qp_ret;		/* what rvt_error_qp() returns for it */
};

struct shim_wqe {
	shim_u32 length;		/* wqe->length */
	shim_u32 opcode;		/* enum shim_wr_opcode, wqe->wr.opcode */
	shim_u8 has_priv;		/* wqe->priv != NULL */
	shim_u8 has_ah;			/* wqe->ud_wr.wr.ah != NULL */
	struct shim_ah ah;
};

struct shim_call {
	shim_u32 fn;			/* enum shim_fn */
	shim_u8 call_send;		/* *call_send on entry */
	shim_u8 sc5;			/* sc5 argument */
	shim_u8 vl;			/* vl argument (the _vl selectors) */
	shim_u32 selector;		/* selector argument (the selectors) */
	shim_u32 arg;			/* mtu, path_mtu, flag bitset, unbusy leg (0 IB, 1 TID), iter->n, wakeup reason */
	shim_u32 attr_mask;		/* bit 0: IB_QP_AV, 1: IB_QP_ALT_PATH, 2: IB_QP_PATH_MIG_STATE */
	shim_u8 path_mig_state;		/* attr->path_mig_state (enum ib_mig_state) */
	struct shim_ah attr_ah;		/* attr->ah_attr */
	struct shim_ah attr_alt_ah;	/* attr->alt_ah_attr */
	shim_u8 niter;
	struct shim_iter_qp iter[SHIM_MAX_ITER_QPS];
	struct shim_world world;
	struct shim_qp qp;
	struct shim_wqe wqe;
};

struct shim_outcome {
	shim_i32 ret;			/* int return value, 0 when void */
	shim_u8 call_send;		/* *call_send on exit */
	shim_i16 sdma_engine;		/* engine index, SHIM_NONE, SHIM_FOREIGN */
	shim_i16 send_context;		/* send-context index, likewise */
	shim_u32 s_flags;		/* qp->s_flags on exit, symbolic bitset */
	shim_u32 s_flags_unknown;	/* tree bits of qp->s_flags with no symbol */
	shim_u32 priv_flags;		/* priv->s_flags on exit, symbolic */
	shim_u32 iowait_flags;		/* priv->s_iowait.flags on exit, symbolic */
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
};

/* Exported by every C world. */
shim_u32 shim_abi_version(void);
/* "6.12.117": VERSION.PATCHLEVEL.SUBLEVEL of the tree it was built from. */
const char *shim_kernel_version(void);
/* Runs one call; returns 0, or -1 when the call itself is malformed. */
int shim_run(const struct shim_call *call, struct shim_outcome *out);
/* Benchmark: the world of call built once, its function run iters times. */
shim_u64 shim_bench(const struct shim_call *call, shim_u64 iters);

#endif /* HFI1_CONFORMANCE_SHIM_H */
