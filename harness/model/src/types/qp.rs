//! The QP: the fields the functions in scope read, declared once
//! ([`qp_schema!`](crate::qp_schema)), and the queue entries it holds.

use super::*;
use crate::record;

/// An entry of the ack queue (`struct rvt_ack_entry`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct AckEntry {
    /// `e->opcode`.
    pub opcode: u8,
    /// `e->psn`.
    pub psn: u32,
    /// `e->lpsn`.
    pub lpsn: u32,
}

/// An entry of the send queue (`qp->s_wq[i]`) as qp_iter_print reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SendQueueEntry {
    /// `wqe->wr.opcode`.
    pub opcode: WrOpcode,
    /// `wqe->ssn`.
    pub ssn: u32,
}

impl SendQueueEntry {
    /// An entry nothing wrote (opcode 0, `IB_WR_RDMA_WRITE`).
    pub const BLANK: SendQueueEntry = SendQueueEntry {
        opcode: WrOpcode::RdmaWrite,
        ssn: 0,
    };
}

/// Another iowait on the dmawait list of the QP's engine (`priv->s_sde`):
/// upstream's own `iowait_init()` with a wakeup (that the shim records) and
/// no `init_priority` callback, as user SDMA's packet queues have; its IB
/// leg holds one tx request of `num_desc` descriptors when that is not 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Waiter {
    /// `w->priority` (u8).
    pub priority: u8,
    /// `w->starved_cnt` (u8).
    pub starved_cnt: u8,
    /// `num_desc` of the first tx request on its IB leg (0: none queued).
    pub num_desc: u16,
    /// Its place on the list: after the QP (else before it).
    pub after_qp: bool,
    /// It is on the list (`!list_empty(&w->list)`).
    pub on_list: bool,
}

/// Other iowaits on a wait list: at most `SHIM_MAX_WAITERS`, a batch of
/// `SDMA_WAIT_BATCH_SIZE` (20) and more.
pub const MAX_WAITERS: usize = 24;

/// Another QP on the piowait list of the QP's send context
/// (`priv->s_sendcontext`): its own `rvt_qp` and private data, its iowait
/// from upstream's `iowait_init()` with qp.c's callbacks, on the QP's
/// port, no engine, no queued tx request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct PioWaiter {
    /// `qp->ibqp.qp_num`.
    pub num: u32,
    /// `qp->s_flags`.
    pub s_flags: Flags<SFlag>,
    /// `priv->s_flags`.
    pub priv_flags: Flags<PrivFlag>,
    /// `priv->s_iowait.flags`.
    pub iowait_flags: Flags<IowaitFlag>,
    /// `qp->refcount`.
    pub refcount: i32,
    /// `priv->s_iowait.priority`.
    pub priority: u8,
    /// `priv->s_iowait.starved_cnt`.
    pub starved_cnt: u8,
    /// Its place on the list: after the QP (else before it).
    pub after_qp: bool,
    /// It is on the list.
    pub on_list: bool,
}

/// A tx request (`struct sdma_txreq`) on the tx ring or the flush list of
/// the QP's engine, as far as its completion reads it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct DmaTx {
    /// Its name in the journal (`dtx#ID`); the world's, not the kernel's.
    pub id: u8,
    /// `tx->next_descq_idx`: the ring index past its last descriptor.
    pub next_descq_idx: u16,
    /// `tx->num_desc` (at most `NUM_DESC`, 6, unless `ext`; at most 8).
    pub num_desc: u8,
    /// Each descriptor's mapping type (`sdma_mapping_type()`, the
    /// generation bits of `qw[1]`: `SDMA_MAP_NONE` 0, `_SINGLE` 1,
    /// `_PAGE` 2), descriptor i in bits 2i..2i+1.
    pub map: u16,
    /// The descriptors holding a pinning context with a `ctx_put`
    /// callback (`descp->pinning_ctx`), descriptor i in bit i.
    pub pinned: u8,
    /// The AHG header mode of its first descriptor (`ahg_mode()`, 0..=7).
    pub mode: u8,
    /// `tx->coalesce_buf` is allocated.
    pub coalesce: bool,
    /// `tx->descp` is allocated (`desc_limit` above `NUM_DESC`), not
    /// `tx->descs`.
    pub ext: bool,
    /// `tx->complete` is set (the world's recording callback).
    pub complete: bool,
    /// Whose iowait `tx->wait` is.
    pub wait: TxWait,
}

/// Whose iowait a tx request's `tx->wait` is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum TxWait {
    /// NULL.
    #[default]
    Null,
    /// The QP's (`&priv->s_iowait`).
    Qp,
    /// The world's packet queue's (the QP's `queue_*` fields).
    Queue,
}

impl DmaTx {
    /// Descriptor `i`'s mapping type.
    pub fn map_of(&self, i: u8) -> u8 {
        (self.map >> (2 * u16::from(i))) as u8 & 3
    }
}

/// A descriptor of the QP's engine's ring as the chip reads it
/// (`sde->descq[idx]`, `struct hw_sdma_desc`): a slot whose two words are
/// not both 0 (the world's ring starts all 0).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct DescqEntry {
    /// Its slot (`descq_tail & sdma_mask` when it was written).
    pub idx: u8,
    /// `qw[0]`: the DMA address and byte count.
    pub qw0: u64,
    /// `qw[1]`: the header mode and update, the generation, the flags.
    pub qw1: u64,
}

/// The ring's descriptors a world reads back at most.
pub const MAX_DESCQ: usize = 16;

/// The tx requests an engine's ring, and its flush list, may hold.
pub const MAX_DMA_TX: usize = 4;

/// The largest ring (`descq_cnt`) that holds tx requests in a world.
pub const MAX_TX_RING: u16 = 64;

/// The new tx requests one world (a call, or a scenario's steps) has for
/// its sends (`c-shim/state.h`'s `SHIM_MAX_SEND_TX`).
pub const MAX_SEND_TX: usize = 4;

/// Likewise for its `iowait_sleep()` calls (`SHIM_MAX_SLEEP_TX`).
pub const MAX_SLEEP_TX: usize = 4;

impl Qp {
    /// The QP's engine's ring holds tx requests and descriptors in a
    /// world: a power of two of at most [`MAX_TX_RING`] descriptors.
    pub fn ring_holds_txs(&self) -> bool {
        self.sde_descq_cnt.is_power_of_two() && self.sde_descq_cnt <= MAX_TX_RING
    }
}

/// The descriptors a tx request holds at most (`NUM_DESC` is 6; more
/// with `descp` allocated).
pub const MAX_TX_DESC: u8 = 8;

/// The descriptors of the request being built a world reads back at
/// most (`btx_descs`).
pub const MAX_BTX_DESCS: usize = 8;

/// The slots of the QP's send context's shadow ring at most.
pub const MAX_SR: usize = 8;

/// The tx requests a call may be given queued behind a leg's first.
pub const MAX_TX_MORE: u8 = 3;

/// Other QPs on a piowait list: more than a batch of
/// `PIO_WAIT_BATCH_SIZE` (5).
pub const MAX_PIO_WAITERS: usize = 8;

/// The QP's schema (see [`crate::schema`]): hands every field of [`Qp`],
/// one declaration each, to the macro `$cb` after `[$args]`.
#[macro_export]
macro_rules! qp_schema {
    ($cb:ident [$($args:tt)*]) => {
        $cb! { [$($args)*]
            /// `qp->ibqp.qp_type`.
            "type" qp_type: QpType = QpType::Rc,
            /// `qp->ibqp.qp_num`.
            "num" num: u32 [qp_num] = 0,
            /// `qp->port_num`.
            "port" port: u32 [port] = 1,
            /// `qp->pmtu`: a u16 in `struct rvt_qp`.
            "pmtu" pmtu: u16 [pmtu] = 4096 => qp,
            /// `qp->state`.
            "state" state: QpState = QpState::Rts,
            /// `qp->s_flags`.
            "s_flags" s_flags: Flags<SFlag> = Flags::default(),
            /// `priv->s_flags`.
            "priv_flags" priv_flags: Flags<PrivFlag> = Flags::default(),
            /// `priv->s_iowait.flags`.
            "iowait_flags" iowait_flags: Flags<IowaitFlag> = Flags::default(),
            /// `priv->s_iowait.priority` and `.starved_cnt` (u8 in `struct
            /// iowait`).
            "iowait_priority" iowait_priority: u8 [0..=3] = 0,
            "starved_cnt" starved_cnt: u8 = 0,
            /// `priv->s_sde`: an engine of the world, or NULL.
            "s_sde" s_sde: Option<EngineIdx> [engine] = None,
            /// `priv->s_sendcontext`: a send context of the world, or NULL.
            "s_sendcontext" s_sendcontext: Option<SendCtxIdx> [send_context] = None,
            /// `priv->s_sc`.
            "s_sc" s_sc: u8 [sc] = 0 => priv,
            /// The IB leg has a queued tx request (`verbs_txreq_queued`).
            "ib_tx_queued" ib_tx_queued: bool = false,
            /// The TID leg has a queued tx request (its `tx_head`).
            "tid_tx_queued" tid_tx_queued: bool = false,
            /// `num_desc` of the IB leg's first queued tx request (the one
            /// `sdma_desc_avail` weighs); with none queued, as the call
            /// found it.
            "ib_tx_num_desc" ib_tx_num_desc: u16 [tx_num_desc] = 0,
            /// `num_desc` of the TID leg's first queued tx request, likewise.
            "tid_tx_num_desc" tid_tx_num_desc: u16 [tx_num_desc] = 0,
            /// The tx requests queued on the IB leg behind the first (0
            /// with none queued; a call is given at most 3).
            "ib_tx_more" ib_tx_more: u8 [ib_tx_more] = 0,
            /// The tx requests queued on the TID leg behind the first.
            "tid_tx_more" tid_tx_more: u8 [tid_tx_more] = 0,
            /// `priv->s_iowait` sits on an engine's or a send context's wait
            /// list (and its lock is set).
            "on_wait_list" on_wait_list: bool [on_wait_list] = false,
            /// `priv->s_iowait.lock`: the waitlock of this engine, or NULL.
            /// `iowait_queue()` callers set it with the list, so a QP on a
            /// list has it; off the list it may still be set (a waker took
            /// the iowait off an engine's list and left the lock: upstream
            /// checks the list under the lock, so nothing it does depends on
            /// this but the path it takes).
            "wait_lock" wait_lock: Option<EngineIdx> [wait_lock] = None,
            /// The send context whose `piowait` list the QP waits on (as
            /// `wait_lock` an engine's `dmawait`): `priv->s_iowait.lock` is
            /// that context's waitlock, and the list its piowait when
            /// `on_wait_list`. At most one of the two is set.
            "wait_sc" wait_sc: Option<SendCtxIdx> [wait_sc] = None,
            /// `priv->s_iowait.sdma_busy`.
            "sdma_busy" sdma_busy: i32 [0..=3] = 0,
            /// `priv->s_iowait.count` and `.tx_count` (u32): the
            /// descriptors and tx requests an engine took for the QP
            /// while it could not send them (`iowait_inc_wait_count()`).
            "iowait_count" iowait_count: u32 = 0,
            "iowait_tx_count" iowait_tx_count: u32 = 0,
            /// The world's packet queue: an iowait not the QP's (a user
            /// SDMA queue's `busy`, which `sdma_send_txlist()` callers
            /// pass), from upstream's `iowait_init()` with the shim's
            /// recording sleep (when `queue_sleep`) and wakeup, on no
            /// list. Its `sdma_busy`, `starved_cnt`, `count`, `tx_count`.
            "queue_sdma_busy" queue_sdma_busy: i32 [queue_busy] = 0,
            "queue_starved_cnt" queue_starved_cnt: u8 [queue_starved] = 0,
            "queue_count" queue_count: u32 [queue_count] = 0,
            "queue_tx_count" queue_tx_count: u32 [queue_count] = 0,
            /// The queue's `sleep` is set. It records its arguments and
            /// returns -EAGAIN (progress seen: try again) to its next
            /// `queue_sleep_eagain` calls, then -EBUSY (queued to wait).
            "queue_sleep" queue_sleep: bool [queue_sleep] = true,
            "queue_sleep_eagain" queue_sleep_eagain: u8 [queue_eagain] = 0,
            /// The device's credit return memory (`dd->cr_base`, one
            /// `credit_return_base` per possible node) is allocated.
            "cr_base" cr_base: bool [cr_base] = false,
            /// Node i's `cr_base[i].va` (coherent DMA memory for every
            /// context's credit return) is allocated, node i in bit i.
            "cr_va" cr_va: u8 [cr_va] = 0,
            /// `dd->pcidev->dev.numa_node`: where the device allocates.
            "dev_node" dev_node: i32 [0..=3] = 0,
            /// `priv->s_iowait.pio_busy`.
            "pio_busy" pio_busy: i32 [pio_busy] = 0,
            /// `qp->refcount`.
            "refcount" refcount: i32 [-1..=4] = 1,
            /// `rdma_ah_get_sl(&qp->remote_ah_attr)`.
            "remote_sl" remote_sl: u8 [0..=31] = 0,
            /// `rdma_ah_get_dlid(&qp->remote_ah_attr)`.
            "remote_dlid" remote_dlid: u32 [lid] = 0,
            /// `qp->remote_qpn`.
            "remote_qpn" remote_qpn: u32 = 0 => qp,
            /// `IB_AH_GRH` in `qp->remote_ah_attr`'s flags.
            "remote_grh" remote_grh: bool [quarter] = false,
            /// That GRH's DGID: subnet prefix and interface ID (host order).
            "remote_gid_prefix" remote_gid_prefix: u64 [gid_prefix] = 0,
            "remote_gid_iid" remote_gid_iid: u64 [gid_iid] = 0,
            /// `rdma_ah_get_make_grd()` of that AH: an OPA AH that asks for a GRH.
            "remote_make_grd" remote_make_grd: bool [eighth] = false,
            /// `qp->timeout` (qp_iter_print prints it and the fields after it).
            "timeout" timeout: u8 = 0 => qp,
            "s_lsn" s_lsn: u32 = 0 => qp,
            "s_last_psn" s_last_psn: u32 = 0 => qp,
            "s_psn" s_psn: u32 = 0 => qp,
            "s_next_psn" s_next_psn: u32 = 0 => qp,
            "s_sending_psn" s_sending_psn: u32 = 0 => qp,
            "s_sending_hpsn" s_sending_hpsn: u32 = 0 => qp,
            "r_psn" r_psn: u32 = 0 => qp,
            /// The send queue's ring indices, below `SHIM_MAX_SWQE` (16).
            "s_last" s_last: u32 [0..=15] = 0 => qp,
            "s_acked" s_acked: u32 [ring] = 0 => qp,
            "s_cur" s_cur: u32 [ring] = 0 => qp,
            "s_tail" s_tail: u32 [ring] = 0 => qp,
            "s_head" s_head: u32 [ring] = 0 => qp,
            "s_size" s_size: u32 [0..=16] = 0 => qp,
            "s_avail" s_avail: u32 [0..=16] = 0 => qp,
            "s_tail_ack_queue" s_tail_ack_queue: u8 [0..=7] = 0 => qp,
            "r_head_ack_queue" r_head_ack_queue: u8 = 0 => qp,
            "s_retry" s_retry: u8 = 0 => qp,
            "s_retry_cnt" s_retry_cnt: u8 = 0 => qp,
            "s_rnr_retry_cnt" s_rnr_retry_cnt: u8 = 0 => qp,
            "s_rnr_retry" s_rnr_retry: u8 = 0 => qp,
            "pid" pid: i32 = 0 => qp,
            "s_state" s_state: u8 = 0 => qp,
            "s_ack_state" s_ack_state: u8 = 0 => qp,
            "r_min_rnr_timer" r_min_rnr_timer: u8 = 0 => qp,
            /// The descriptor ring of the QP's engine (`priv->s_sde`; every
            /// engine of the world has this state): `descq_cnt` (u16),
            /// `descq_head`, `descq_tail` (u32), `desc_avail` (u16) and the
            /// sequence of its `head_lock`, which `sdma_progress()` reads.
            "sde_descq_cnt" sde_descq_cnt: u16 [ring_size] = 0,
            "sde_descq_head" sde_descq_head: u32 = 0,
            "sde_descq_tail" sde_descq_tail: u32 [ring_tail] = 0,
            "sde_desc_avail" sde_desc_avail: u16 [desc_avail] = 0,
            "sde_head_seq" sde_head_seq: u32 [0..=3] = 0,
            /// What the engine reports as its head (every engine of the
            /// world alike): `*sde->head_dma` (host memory the chip
            /// writes, a __le64) and its `SEND_DMA_HEAD` CSR.
            "sde_head_dma" sde_head_dma: u64 [hw_head] = 0,
            "sde_head_csr" sde_head_csr: u64 [hw_head] = 0,
            /// The tx ring of the QP's engine (`sde->tx_ring`, indexed by
            /// `sdma_mask`): `tx_head` (u16), the tx requests in its slots
            /// from the head on, in order (only a ring of at most 64
            /// descriptors holds any), and `tx_tail` (u16).
            "sde_tx_head" sde_tx_head: u16 [tx_head] = 0,
            "sde_tx_ring" sde_tx_ring: Slots<DmaTx, MAX_DMA_TX> [tx_ring] = Slots::new(),
            "sde_tx_tail" sde_tx_tail: u16 [tx_tail] = 0,
            /// The tx requests on the engine's flush list (`sde->flushlist`),
            /// in order.
            "sde_flushlist" sde_flushlist: Slots<DmaTx, MAX_DMA_TX> [flushlist] = Slots::new(),
            /// The ring's descriptors (`sde->descq`, only a ring of at most
            /// 64 holds any), in slot order: those whose words are not both
            /// 0.
            "sde_descq" sde_descq: Slots<DescqEntry, MAX_DESCQ> [descq] = Slots::new(),
            /// The caller's list of tx requests (`sdma_send_txlist()`'s
            /// `tx_list`), in order: those the call has not taken.
            "txlist" txlist: Slots<DmaTx, MAX_DMA_TX> [txlist] = Slots::new(),
            /// The tx request a caller builds (`struct sdma_txreq`, before
            /// `sdma_send_txreq()`): `num_desc`, `desc_limit` (`NUM_DESC`,
            /// 6: `descp` is its own `descs`; above: an allocated array of
            /// `MAX_DESC`, 64), `flags`, `tlen` (the bytes not yet added)
            /// and `packet_len`.
            "btx_num_desc" btx_num_desc: u8 [btx_num_desc] = 0,
            "btx_desc_limit" btx_desc_limit: u8 [btx_desc_limit] = 6,
            "btx_flags" btx_flags: u16 [btx_flags] = 0,
            "btx_tlen" btx_tlen: u16 [btx_len] = 0,
            "btx_packet_len" btx_packet_len: u16 [btx_len] = 0,
            /// `descp` is an array `__sdma_txclean()` freed (it left
            /// `desc_limit` at `NUM_DESC` and `descp` as it was): nothing
            /// may be added before `sdma_txinit_ahg()`.
            "btx_descp_freed" btx_descp_freed: bool [btx_freed] = false,
            /// Its coalesce buffer is allocated (the world builds it zeroed,
            /// of `btx_coal_size` bytes; upstream allocates `tlen + 4`),
            /// `coalesce_idx`, and the digest of the
            /// buffer's bytes
            /// ([`coalesce_digest`](crate::sdma_build::coalesce_digest)):
            /// the world's buffer is taken to hold bytes of this digest
            /// (its zeroes are added to it), one upstream allocates starts
            /// at 0.
            "btx_coalesce" btx_coalesce: bool [btx_coalesce] = false,
            "btx_coalesce_idx" btx_coalesce_idx: u16 [btx_coalesce_idx] = 0,
            "btx_coal_sum" btx_coal_sum: u32 [btx_coal_sum] = 0,
            "btx_coal_size" btx_coal_size: u32 [btx_coal_size] = 0,
            /// Its descriptors as the world builds them, every slot of the
            /// array: symbolic words, the mapping type of descriptor i
            /// bits 2(i mod 8) of `btx_map`, the first's header mode
            /// `btx_mode`
            /// ([`built_desc`](crate::sdma_build::built_desc)).
            "btx_map" btx_map: u16 [btx_map] = 0,
            "btx_mode" btx_mode: u8 [btx_mode] = 0,
            /// The descriptors holding a pinning context (`pinning_ctx`,
            /// the world's token for its slot, with a recording `ctx_put`),
            /// descriptor i in bit i; only below `num_desc`.
            "btx_pinned" btx_pinned: u64 [btx_pinned] = 0,
            /// The descriptors below `max(num_desc, 1)` whose words are not
            /// those the world built, in order (as the call left them);
            /// past the eighth, counted in `btx_desc_stray` (0 in a vector).
            "btx_descs" btx_descs: Slots<DescqEntry, MAX_BTX_DESCS> [btx_descs] = Slots::new(),
            "btx_desc_stray" btx_desc_stray: u8 [0..=0] = 0,
            /// `sde->descq_full_count` (unsigned): the sends that found the
            /// ring full.
            "sde_descq_full_count" sde_descq_full_count: u32 = 0,
            /// Tx requests the ring or the flush list holds beyond those
            /// read back above (past a NULL slot, past the fourth): 0 in a
            /// vector.
            "sde_tx_stray" sde_tx_stray: u8 [0..=0] = 0,
            /// The other iowaits on the dmawait list of the QP's engine, in
            /// list order, before or after the QP's (which is on it when
            /// `on_wait_list` with `wait_lock` that engine).
            "waiters" waiters: Slots<Waiter, MAX_WAITERS> [waiters] = Slots::new(),
            /// The other QPs on the piowait list of the QP's send context, in
            /// list order, before or after the QP (which is on it when
            /// `on_wait_list` with `wait_sc` that context).
            "pio_waiters" pio_waiters: Slots<PioWaiter, MAX_PIO_WAITERS> [pio_waiters] = Slots::new(),
            /// The shadow ring of the QP's send context (`sc->sr`, the PIO
            /// buffers handed out and not yet released): each slot's
            /// `pbuf->sent_at` (the fill count at which its credits are
            /// back); its length is `sc->sr_size` (none: `sc->sr` is NULL).
            /// The world's other contexts have no ring.
            "sc_sr_sent_at" sc_sr_sent_at: Slots<u64, MAX_SR> [sr_sent_at] = Slots::new(),
            /// Each slot's `pbuf->cb`.
            "sc_sr_cb" sc_sr_cb: [PioCb; MAX_SR] [sr_cb] = [PioCb::Null; MAX_SR],
            /// `sc->sr_head` and `sc->sr_tail` (u32): the slots from the
            /// tail up to the head are in flight.
            "sc_sr_head" sc_sr_head: u32 [sr_index] = 0,
            "sc_sr_tail" sc_sr_tail: u32 [sr_index] = 0,
            /// `sc->free` (unsigned long): the credits seen returned.
            "sc_free" sc_free: u64 [sc_free] = 0,
            /// `*sc->hw_free`: the credit return the chip wrote (its counter
            /// in bits 0-10, status and reason bits 11-15).
            "sc_hw_free" sc_hw_free: u64 [hw_free] = 0,
            /// The allocator of the QP's send context (`sc_buffer_alloc`):
            /// `credits` (u32, blocks of 64 bytes the context has), `fill`
            /// (unsigned long, blocks handed out), `alloc_free` (the
            /// allocator's copy of `free`), `fill_wrap` (u32, `fill`
            /// within the context), `size` (u32, bytes) and the count of
            /// buffers allocated (`*buffers_allocated`, u32, one CPU).
            "sc_credits" sc_credits: u32 [sc_credits] = 0,
            "sc_fill" sc_fill: u64 [sc_fill] = 0,
            "sc_alloc_free" sc_alloc_free: u64 [sc_alloc_free] = 0,
            "sc_fill_wrap" sc_fill_wrap: u32 [sc_fill_wrap] = 0,
            "sc_size" sc_size: u32 = 0,
            "sc_buffers_allocated" sc_buffers_allocated: u32 = 0,
            /// `to_iport(qp)->rvp.n_dmawait` (u64): the QP's port's count of
            /// waits for SDMA descriptors (every port of the world has it).
            "port_n_dmawait" port_n_dmawait: u64 = 0,
            /// `dd->sdma_unfreeze_count` (an `atomic_t`): the engines a
            /// freeze or an unfreeze still waits for (-1: none, the state
            /// machine stopped).
            "sdma_unfreeze_count" sdma_unfreeze_count: i32 = 0,
            /// `qp->s_hdrwords` (u8 in `struct rvt_qp`): the header of the
            /// packet being built.
            "s_hdrwords" s_hdrwords: u8 = 0 => qp,
            /// The send CQ's head and tail, from its kernel queue or, for a
            /// CQ mapped to user space (`cq_user`, `cq->ip` set), its shared
            /// queue.
            "cq_head" cq_head: u32 = 0,
            "cq_tail" cq_tail: u32 = 0,
            "cq_user" cq_user: bool = false,
            /// `qp->s_rdma_mr` (an RDMA read response's MR) and its reference
            /// count; `None` is NULL.
            "rdma_mr_refs" rdma_mr_refs: Option<u32> [mr_refs] = None,
            /// `qp->s_ack_queue`; `None` is NULL.
            "ack_queue" ack_queue: Option<[AckEntry; 8]> = None,
            /// `srq->rq.size` when the QP has an SRQ (`qp->ibqp.srq`).
            "srq_size" srq_size: Option<u32> = None,
            /// `qp->r_rq.size`.
            "rq_size" rq_size: u32 = 0,
            /// The send queue, `SHIM_MAX_SWQE` (16) entries.
            "send_queue" send_queue: [SendQueueEntry; 16] = [SendQueueEntry::BLANK; 16],
            /// `qp->s_mig_state`.
            "mig_state" mig_state: MigState = MigState::Migrated,
            /// `qp->s_ahgidx`.
            "s_ahgidx" s_ahgidx: i8 [-1..=15] = -1 => qp,
            /// `qp->r_adefered`: ACKs deferred (a u8 in `struct rvt_qp`).
            "r_adefered" r_adefered: u8 = 0 => qp,
            /// `priv->hdr_type`.
            "hdr_type" hdr_type: u8 [0..=1] = 0 => priv,
            /// `qp->alt_ah_attr`: SL, port and DLID.
            "alt_sl" alt_sl: u8 [0..=31] = 0,
            "alt_port" alt_port: u8 [alt_port] = 1,
            "alt_dlid" alt_dlid: u32 [lid] = 0,
            /// u8 in `struct rvt_qp`.
            "s_pkey_index" s_pkey_index: u8 = 0 => qp,
            "s_alt_pkey_index" s_alt_pkey_index: u8 = 0 => qp,
        }
    };
}

qp_schema! {
    record [
        /// The QP fields the functions in scope read, declared once in
        /// [`qp_schema!`](crate::qp_schema). Plain data, so `Copy`: the
        /// model copies the QP of every call that writes it.
        #[derive(Copy)]
        Qp
    ]
}

impl Qp {
    /// A QP with every optional field at its default.
    pub fn new(qp_type: QpType, num: u32, port: u32, pmtu: u16, state: QpState) -> Qp {
        Qp {
            qp_type,
            num,
            port,
            pmtu,
            state,
            ..Qp::blank()
        }
    }
}
