/* SPDX-License-Identifier: GPL-2.0 */
/*
 * state.h - the C world's state, shared by the shim's files: the world
 * (struct shim_state, one static instance: a world serves one call at a
 * time), the tree's values of the shim's names, and what each file offers
 * the others.
 *
 *   names.c     the tree's value of each symbolic name, bit conversions
 *   build.c     checks a flat call and builds the world from it
 *   query.c     answers the mocks (world.h) and names pointers
 *   engines.c   builds and reads back the send engines' state
 *   ring.c      the QP's send context's shadow ring and credit counters
 *   dmatx.c     the QP's engine's tx requests: its tx ring and flush list
 *   describe.c  the text of the state some functions leave
 *   vl_maps.c   the VL maps' rebuild and the text of the map published
 *   contexts.c  the send context table laid out, a context allocated from
 *               it, an entry dumped; the text of what each leaves
 *   shim.c      the ABI entry points: runs one call, the benchmark
 */
#ifndef HFI1_CONFORMANCE_STATE_H
#define HFI1_CONFORMANCE_STATE_H

#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>
#include <rdma/ib_verbs.h>
#include <linux/seq_file.h>
#include "hfi.h"
#include "qp.h"
#include "sdma.h"
#include "pio.h"
#include "verbs_txreq.h"
#include "shim.h"
#include "mocks/alloc.h"
#include "mocks/journal.h"
#include "mocks/rcu.h"
#include "world.h"
#include "entries.h"

/*
 * Under --sanitize, the objects past the counts the world declares (ports,
 * engines, send contexts) are poisoned once the world is built, so an
 * out-of-bounds read is a crash finding, as it would be in the kernel
 * (where nothing is there); a normal build leaves them as valid memory at
 * no cost per call.
 */
#if defined(__SANITIZE_ADDRESS__)
#define SHIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHIM_ASAN 1
#endif
#endif
#ifdef SHIM_ASAN
void __asan_poison_memory_region(void const volatile *addr, size_t size);
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
#define SHIM_POISON_TAIL(arr, n, max) \
	__asan_poison_memory_region(&(arr)[n], ((max) - (n)) * sizeof((arr)[0]))
#define SHIM_UNPOISON_ALL(arr) __asan_unpoison_memory_region((arr), sizeof(arr))
#else
#define SHIM_POISON_TAIL(arr, n, max) do { } while (0)
#define SHIM_UNPOISON_ALL(arr) do { } while (0)
#endif

/*
 * Everything below is shared among the shim's files and nothing outside
 * the world's shared object: hidden, so it is reached directly, not
 * through the GOT and PLT of an interposable symbol.
 */
#pragma GCC visibility push(hidden)

/* The world's pages of data a tx request is built from (txbuild.c). */
#define SHIM_DATA_PAGES 4
#define SHIM_DATA_BYTES (SHIM_DATA_PAGES * 4096)
/* The DMA address of byte AT of the world's data; of anything else. */
#define SHIM_DATA_DMA 0x100000ull
#define SHIM_OTHER_DMA 0xf000000ull

/*
 * dd->piobase, the PIO send buffers' mapping: an address, never read.
 * The QP's send context's buffers start there (its base_addr, ring.c).
 */
#define SHIM_PIOBASE ((void __iomem *)0x10000000UL)

/* The iowait_sleep() calls one scenario may make (each a new tx). */
#define SHIM_MAX_SLEEP_TX 4
/* The sends one scenario may make (each a new tx request), where they start. */
#define SHIM_MAX_SEND_TX 4
#define SHIM_DTX_SENT (2 * SHIM_MAX_DMA_TX)
/* The caller's list of sdma_send_txlist(), where its requests start. */
#define SHIM_DTX_LIST (SHIM_DTX_SENT + SHIM_MAX_SEND_TX)
#define SHIM_NUM_DTX (SHIM_DTX_LIST + SHIM_MAX_DMA_TX)

/*
 * What every call starts from zero: one memset of one region (the members
 * are listed once here and reached as shim_w.qp, shim_w.priv, ...; the same list
 * names the region, in the spirit of the kernel's struct_group()).
 */
#define SHIM_PER_CALL_MEMBERS						\
	struct rvt_qp qp;						\
	struct hfi1_qp_priv priv;					\
	struct rvt_ah ah;						\
	struct {							\
		struct rvt_swqe wqe;					\
		struct rvt_sge sge[1];					\
	} swqe;								\
	struct rvt_cq cq;						\
	struct rvt_mregion rdma_mr;	/* what qp->s_rdma_mr points at */ \
	struct rvt_srq srq;						\
	struct verbs_txreq ib_tx;					\
	struct verbs_txreq tid_tx;					\
	/* the txs queued behind each leg's first ([0]: IB, [1]: TID) */ \
	struct verbs_txreq more_tx[2][SHIM_MAX_TX_MORE];		\
	/* the txs iowait_sleep() is given, a new one each call */	\
	struct verbs_txreq sleep_tx[SHIM_MAX_SLEEP_TX];			\
	bool sleep_tid[SHIM_MAX_SLEEP_TX];	/* given for the TID leg */ \
	int nsleep_tx;							\
	/* the packet queue's iowait, its sleep's -EAGAINs left */	\
	struct iowait queue;						\
	unsigned int queue_eagain;					\
	/* the caller's list sdma_send_txlist() is given */		\
	struct list_head txlist;					\
	/* the tx request a caller builds (txbuild.c) */		\
	struct sdma_txreq btx;						\
	struct hfi1_ahg_info ahg;

/*
 * The world: one device, its ports, engines, send contexts and maps, one
 * QP with its private data, one swqe and its AH.  Static storage: a C world
 * serves one call at a time.
 */
struct shim_state {
	struct hfi1_devdata dd;
	struct hfi1_pportdata pport[SHIM_MAX_PORTS];
	struct sdma_engine per_sdma[SHIM_MAX_SDMA];
	struct send_context sc[SHIM_MAX_SEND_CONTEXTS];
	struct workqueue_struct *wq;
	union {
		struct sdma_vl_map m;
		char bytes[sizeof(struct sdma_vl_map) +
			   SHIM_MAP_MAX_ELEMS * sizeof(struct sdma_map_elem *)];
	} sdma_map;
	union {
		struct sdma_map_elem e;
		char bytes[sizeof(struct sdma_map_elem) +
			   SHIM_ELEM_MAX_ENTRIES * sizeof(struct sdma_engine *)];
	} sdma_elem[SHIM_MAP_MAX_ELEMS];
	union {
		struct pio_vl_map m;
		char bytes[sizeof(struct pio_vl_map) +
			   SHIM_MAP_MAX_ELEMS * sizeof(struct pio_map_elem *)];
	} pio_map;
	union {
		struct pio_map_elem e;
		char bytes[sizeof(struct pio_map_elem) +
			   SHIM_ELEM_MAX_ENTRIES * sizeof(struct send_context *)];
	} pio_elem[SHIM_MAP_MAX_ELEMS];
	/*
	 * The world's SDMA map in blocks of its own, for a call that replaces
	 * it (vl_maps.c); NULL in any other.
	 */
	struct sdma_vl_map *sdma_map_heap;
	struct pio_vl_map *pio_map_heap;
	/*
	 * dd->kernel_send_context (its num_send_contexts entries) and
	 * dd->rcd[0], for the calls that read them (vl_maps.c).
	 */
	struct send_context *kernel_sc[SHIM_MAX_SEND_CONTEXTS];
	struct hfi1_ctxtdata rcd0;
	struct hfi1_ctxtdata *rcd[1];
	union {
		struct { SHIM_PER_CALL_MEMBERS };
		struct { SHIM_PER_CALL_MEMBERS } per_call;
	};
	char tid_priv[64];		/* what wqe->priv points at */
	struct cpumask node_mask;
	/* the primary QP's send queue, ack queue, CQ, SRQ, queued tx */
	union {
		struct rvt_swqe wqe;
		char bytes[SHIM_MAX_SWQE * (sizeof(struct rvt_swqe) + sizeof(struct rvt_sge))];
	} s_wq;
	struct rvt_ack_entry ack[SHIM_MAX_ACK];
	struct rvt_k_cq_wc cq_kqueue;
	struct rvt_mmap_info cq_mmap;	/* a user CQ's mapping: only its address matters */
	struct list_head engine_wait;	/* the engine wait list s_iowait sits on */
	/* the QPs rvt_qp_iter() walks */
	struct rvt_qp iqp[SHIM_MAX_ITER_QPS];
	struct hfi1_qp_priv ipriv[SHIM_MAX_ITER_QPS];
	/* the other iowaits on the QP's engine's list, and their tx requests */
	struct iowait waiter[SHIM_MAX_WAITERS];
	struct sdma_txreq waiter_tx[SHIM_MAX_WAITERS];
	int nwaiters;
	/* the other QPs on the QP's send context's piowait list */
	struct rvt_qp pqp[SHIM_MAX_PIO_WAITERS];
	struct hfi1_qp_priv ppriv[SHIM_MAX_PIO_WAITERS];
	int npio;
	/* the shadow ring of the QP's send context, the credits the chip wrote */
	union pio_shadow_ring sr[SHIM_MAX_SR];
	__le64 hw_free;
	__le64 hw_free_none;	/* what every other context's hw_free reads: 0 */
	int sr_sc;		/* the context given the ring, or SHIM_NONE */
	unsigned int sr_used;	/* the slots the last call's ring had */
	u32 buffers_allocated;	/* the QP's context's count (one CPU) */
	/*
	 * The QP's engine's tx requests, each the QP's verbs_txreq ([k]: its
	 * ring's k-th from the head, [SHIM_MAX_DMA_TX + k]: its flush list's,
	 * from SHIM_DTX_SENT: those a scenario's sends are given, a new one
	 * each; from SHIM_DTX_LIST: the caller's list of sdma_send_txlist()),
	 * their names, the ring's slots and descriptors when it holds them
	 * (dmatx.c)
	 */
	struct verbs_txreq dtx[SHIM_NUM_DTX];
	u8 dtx_id[SHIM_NUM_DTX];
	unsigned int ndtx_sent;
	/* a send's request was found queued on a leg (1 + IOWAIT_*_SE), or 0 */
	u8 dtx_leg[SHIM_MAX_SEND_TX];
	struct sdma_txreq *tx_ring[SHIM_MAX_TX_RING];
	struct hw_sdma_desc descq[SHIM_MAX_TX_RING];
	bool dtx_used;		/* the last call had requests or the ring's slots */
	/* each engine's head in host memory (sde->head_dma), its head CSR */
	__le64 head_dma[SHIM_MAX_SDMA];
	u64 head_csr;
	int niter;
	unsigned int nsc;	/* the world's send contexts */
	unsigned int nsde;	/* the world's engines (dd->num_sdma unless a probe changed it) */
	u64 hw_context_set;	/* the contexts whose hw_context is not 0 */
	u64 sc_group_set;	/* the contexts whose group is not 0 */
	/* what dd->send_contexts holds past the world's table (build.c) */
	struct send_context past_sc;
	u64 sc_type_set;	/* the contexts whose type is not SC_KERNEL (0) */
	u64 sc_freed_set;	/* the contexts whose table entry is NULL */
	u64 sci_blocks_set;	/* the table entries whose credits or base are not 0 */
	bool sci_dirty;		/* a call allocated or freed a context (contexts.c) */
	unsigned int sci_n;	/* the table's entries allocated (num_send_contexts) */
	bool locks_held;	/* a call returned holding a lock */
	u8 error_qp_ret[SHIM_MAX_ITER_QPS];
	const struct shim_world *sw;	/* the call's world: what its registers read */
	bool queue_work_ret;
	bool tid_send_ret;
	bool cancel_work_ret;
	u64 alloc_fail;
	int nalloc;
	struct rvt_qp special_qp;	/* what ibp->rvp.qp[0]/[1] point at */
	struct pci_dev pcidev;		/* dd->pcidev */
	bool initialised;
	/*
	 * What a built tx request reaches (txbuild.c): the world's four pages
	 * of data, a pinning context token per descriptor slot; the DMA
	 * mappings of this call so far (mocks/dma.c).
	 */
	struct page page[SHIM_DATA_PAGES];
	u8 *data;	/* SHIM_DATA_BYTES, on the heap: no leak scan reads it */
	char pin[MAX_DESC];
	unsigned int dma_maps;
	/*
	 * Index to pointer, without a branch: [0] is NULL (SHIM_NONE), [i + 1]
	 * engine or send context i.  shim_check_call() keeps indices >= -1.
	 */
	struct sdma_engine *sde_of[1 + SHIM_MAX_SDMA];
	struct send_context *sc_of[1 + SHIM_MAX_SEND_CONTEXTS];
	/* this call's SHIM_CALL took the callbacks (shim_prep_callbacks()) */
	bool cb_prepared;
	/* qp.c's static iowait callbacks, as qp_priv_alloc() installs them */
	struct {
		int (*sleep)(struct sdma_engine *sde, struct iowait_work *wait,
			     struct sdma_txreq *tx, uint seq, bool pkts_sent);
		void (*wakeup)(struct iowait *wait, int reason);
		void (*sdma_drained)(struct iowait *wait);
		void (*init_priority)(struct iowait *wait);
	} cb;
	/* a user CQ's shared queue (its flexible uqueue[] unused): last */
	struct rvt_cq_wc cq_queue;
};

extern struct shim_state shim_w;


/* names.c */
extern const unsigned long dev_flag_values[SHIM_DEV_FLAG_COUNT];
extern const enum ib_qp_type qp_type_values[SHIM_QP_TYPE_COUNT];
extern const u16 sc_type_values[SHIM_SC_TYPE_COUNT];
extern const enum ib_qp_state qp_state_values[SHIM_QP_STATE_COUNT];
extern const int wr_opcode_values[SHIM_WR_OPCODE_COUNT];
extern const enum ib_mig_state mig_state_values[SHIM_MIG_STATE_COUNT];
extern const u32 s_flag_values[SHIM_S_FLAG_COUNT];
extern const u32 priv_flag_values[SHIM_PRIV_FLAG_COUNT];
extern const int iowait_flag_bits[SHIM_IOWAIT_FLAG_COUNT];
extern const u32 sc_flag_values[SHIM_SC_FLAG_COUNT];
extern const enum sdma_states sdma_state_values[SHIM_SDMA_STATE_COUNT];
extern const enum sdma_events sdma_event_values[SHIM_SDMA_EVENT_COUNT];
extern u8 qp_type_index[256], qp_state_index[256], mig_state_index[256];
extern u8 wr_opcode_index[256];
void shim_build_inverse(void);
/* The shim's index of a tree value, through one of the tables above. */
static inline u32 shim_index(const u8 *inverse, unsigned int v)
{
	return v < 256 ? inverse[v] : 255;
}
struct shim_flag_kind;
extern struct shim_flag_kind shim_s_flags, shim_priv_flags, shim_sc_flags;
u32 tree_bits(u32 symbolic, const struct shim_flag_kind *k);
u32 symbolic_bits(u32 tree, const struct shim_flag_kind *k, u32 *unknown);

/* build.c */
bool shim_check_call(const struct shim_call *c);
/* vl_maps.c: a map init the world can run without crashing. */
bool shim_check_vl_map_init(const struct shim_call *c);
/* user_sde.c: the user engine table's world and calls. */
bool shim_check_user_sde(const struct shim_call *c);
bool shim_heap_sdma_map(const struct shim_call *c);
void shim_put_sdma_map(struct shim_outcome *out);
bool shim_heap_pio_map(const struct shim_call *c);
void shim_put_pio_map(struct shim_outcome *out);
void shim_vl_map_grace_period(void *heap);
bool shim_check_sdma_init(const struct shim_call *c);
int shim_new_sde_name(const void *p, char *buf, size_t len);
void shim_build_world(const struct shim_world *sw);
void *shim_static_data_of(const char *name, unsigned long size);
bool shim_static_data_kept(void);
void shim_build_qp(const struct shim_call *c);
void shim_carry_ring(void);
void shim_read_qp(struct shim_qp *q, const struct shim_qp *in, u32 *s_flags_unknown);
struct sdma_engine *shim_sde(int idx);
struct send_context *shim_sc(int idx);
void shim_build_remote_ah(struct rdma_ah_attr *attr, u8 sl, u32 dlid, u32 port);

/* ring.c */
bool shim_check_ring(const struct shim_call *c);
void shim_build_waiters(const struct shim_qp *q, bool after);
void shim_build_pio_waiters(const struct shim_qp *q, bool after);
void shim_read_waiters(struct shim_qp *q, const struct shim_qp *in);
void shim_read_pio_waiters(struct shim_qp *q, const struct shim_qp *in);
void shim_build_ring(const struct shim_qp *q);
void shim_read_ring(struct shim_qp *q, const struct shim_qp *in);
pio_release_cb shim_pio_cb(u32 i);
void *shim_pio_arg(pio_release_cb cb, u32 slot);
void shim_describe_pbuf(struct shim_outcome *out, const struct pio_buf *pbuf);

/* dmatx.c */
bool shim_check_dma_tx(const struct shim_qp *q);
bool shim_tx_ring_own(u16 descq_cnt);
bool shim_check_send_tx(const struct shim_qp *q, const struct shim_dma_tx *d);
void shim_build_dma_tx(const struct shim_qp *q);
void shim_read_dma_tx(struct shim_qp *q, const struct shim_qp *in);
void shim_ctx_put(void *ctx);

/* txbuild.c */
void shim_build_btx(const struct shim_qp *q);
void shim_read_btx(struct shim_qp *q, const struct shim_qp *in);
int shim_btx_name(const void *p, char *buf, size_t len);
long shim_data_offset(const void *p);
struct sdma_txreq *shim_send_tx(const struct shim_dma_tx *d, u16 tlen);
int shim_dtx_name(const void *p, char *buf, size_t len);

/* device.c */
void shim_build_credit_return(const struct shim_qp *q);
void shim_read_credit_return(struct shim_qp *q);
void shim_build_hw_to_sw(const struct shim_world *sw);

/* context.c */
enum shim_context {
	SHIM_CTX_TASK,		/* interrupts on */
	SHIM_CTX_IRQS_OFF,	/* under an _irqsave lock, or a callback of an interrupt */
	SHIM_CTX_HARDIRQ,	/* an interrupt handler */
};

enum shim_context shim_entry_context(u32 fn);

/* engines.c */
bool shim_check_engines(const struct shim_engines *e, const struct shim_world *sw);
void shim_build_engines(const struct shim_engines *e);
void shim_read_engines(struct shim_engines *e);

/* query.c */
int shim_sde_index(const struct sdma_engine *sde);
int shim_sc_index(const struct send_context *sc);

/* contexts.c: calls the world can run without crashing; pointer names. */
bool shim_check_sc_alloc(const struct shim_call *c);
bool shim_check_dump_sci(const struct shim_call *c);
bool shim_check_init_send_contexts(const struct shim_call *c);
bool shim_check_init_pervl_scs(const struct shim_call *c);
bool shim_check_init_sc_pools(const struct shim_call *c);
int shim_new_sc_name(const void *p, char *buf, size_t len);

/* describe.c */
__printf(2, 3) void shim_put(struct shim_outcome *out, const char *fmt, ...);
void shim_describe_path(struct shim_outcome *out);
void shim_describe_priv(struct shim_outcome *out, struct hfi1_qp_priv *p);
void shim_describe_post_parms(struct shim_outcome *out, u32 opcode);

#pragma GCC visibility pop

#endif /* HFI1_CONFORMANCE_STATE_H */
