//! A call: the functions in scope and each one's arguments, declared once
//! ([`call_schema!`](crate::call_schema)), and the [`Call`] that holds
//! them with the world, QP, swqe and engine state its pointers reach.

use std::fmt;

use super::*;
use crate::record;

/// The functions in scope and each one's arguments, declared once (see
/// [`crate::schema`]): `Variant upstream_name { fields }`, each argument a
/// record field (`"key" name: Type [draw] = default,`). From this list
/// come [`Func`], the argument records of [`args`] and [`Args`] (here),
/// and in the harness their vector keys, generation, and the ABI's
/// `struct shim_args` (one member per function, in `c-shim/schema.h`).
/// The arguments are what the C function takes; what it reads through a
/// pointer (the QP, the world) is not an argument.
#[macro_export]
macro_rules! call_schema {
    ($cb:ident [$($args:tt)*]) => {
        $cb! { [$($args)*]
            /// `hfi1_setup_wqe(qp, wqe, bool *call_send)`.
            SetupWqe hfi1_setup_wqe {
                /// `*call_send` on entry.
                "call_send" call_send: bool = false,
            }
            /// `qp_to_sdma_engine(qp, u8 sc5)`.
            QpToSdmaEngine qp_to_sdma_engine {
                "sc5" sc5: Sc [sc5] = Sc(0),
            }
            /// `qp_to_send_context(qp, u8 sc5)`.
            QpToSendContext qp_to_send_context {
                "sc5" sc5: Sc [sc5] = Sc(0),
            }
            /// `sdma_select_engine_sc(dd, u32 selector, u8 sc5)` (sdma.c).
            SdmaSelectEngineSc sdma_select_engine_sc {
                "selector" selector: u32 = 0,
                "sc5" sc5: Sc [sc5] = Sc(0),
            }
            /// `sdma_select_engine_vl(dd, u32 selector, u8 vl)` (sdma.c).
            SdmaSelectEngineVl sdma_select_engine_vl {
                "selector" selector: u32 = 0,
                "vl" vl: Vl [vl] = Vl(0),
            }
            /// `pio_select_send_context_sc(dd, u32 selector, u8 sc5)` (pio.c).
            PioSelectSendContextSc pio_select_send_context_sc {
                "selector" selector: u32 = 0,
                "sc5" sc5: Sc [sc5] = Sc(0),
            }
            /// `pio_select_send_context_vl(dd, u32 selector, u8 vl)` (pio.c).
            PioSelectSendContextVl pio_select_send_context_vl {
                "selector" selector: u32 = 0,
                "vl" vl: Vl [vl] = Vl(0),
            }
            /// `_hfi1_schedule_send(qp)`.
            HfiScheduleSendNoCheck _hfi1_schedule_send {}
            /// `hfi1_schedule_send(qp)`, the caller holding `s_lock`.
            HfiScheduleSend hfi1_schedule_send {}
            /// `qp_iter_print(s, iter)`: `iter->qp` is the QP.
            QpIterPrint qp_iter_print {
                /// `iter->n`, the QP's index in the walk.
                "n" n: u32 = 0,
            }
            /// `hfi1_error_port_qps(ibp, u8 sl)`: `ibp` is the QP's port.
            ErrorPortQps hfi1_error_port_qps {
                /// The SL; the parameter is a `u8`, and a wider value is
                /// converted as a caller's `int` would be.
                "sl" sl: u32 [error_sl] = 0,
                /// The QPs `rvt_qp_iter` walks, in order.
                "iter" iter: Slots<IterQp, 8> [iter_qps] = Slots::new(),
            }
            /// `hfi1_qp_unbusy(qp, wait)`: `wait` is one leg of the QP's iowait.
            QpUnbusy hfi1_qp_unbusy {
                "leg" leg: Leg = Leg::Ib,
            }
            /// `hfi1_qp_wakeup(qp, u32 flag)`.
            QpWakeup hfi1_qp_wakeup {
                "flags" flags: Flags<SFlag> = Flags::default(),
            }
            /// `notify_error_qp(qp)`.
            NotifyErrorQp notify_error_qp {}
            /// `mtu_to_path_mtu(u32 mtu)`.
            MtuToPathMtu mtu_to_path_mtu {
                "mtu" mtu: u32 [mtu] = 0,
            }
            /// `mtu_from_qp(rdi, qp, u32 pmtu)`.
            MtuFromQp mtu_from_qp {
                "pmtu" pmtu: u32 [path_mtu] = 0,
            }
            /// `get_pmtu_from_attr(rdi, qp, attr)`: `attr->path_mtu`.
            GetPmtuFromAttr get_pmtu_from_attr {
                "path_mtu" path_mtu: u32 [path_mtu] = 0,
            }
            /// `hfi1_check_modify_qp(qp, attr, attr_mask, udata)`.
            CheckModifyQp hfi1_check_modify_qp {
                /// `attr->ah_attr`, present with `IB_QP_AV` in `attr_mask`.
                "attr_ah" attr_ah: Option<AttrAh> [attr_ah] = None,
                /// `attr->alt_ah_attr`, present with `IB_QP_ALT_PATH`.
                "attr_alt_ah" attr_alt_ah: Option<AttrAh> [attr_ah] = None,
            }
            /// `hfi1_modify_qp(qp, attr, attr_mask, udata)`.
            ModifyQp hfi1_modify_qp {
                /// `IB_QP_AV` in `attr_mask`.
                "attr_av" attr_av: bool = false,
                /// `IB_QP_ALT_PATH` in `attr_mask`.
                "attr_alt_path" attr_alt_path: bool = false,
                /// `attr->path_mig_state`, with `IB_QP_PATH_MIG_STATE`.
                "path_mig_state" path_mig_state: Option<MigState> = None,
            }
            /// `hfi1_migrate_qp(qp)`.
            MigrateQp hfi1_migrate_qp {}
            /// `qp_priv_alloc(rdi, qp)`.
            QpPrivAlloc qp_priv_alloc {}
            /// `qp_priv_free(rdi, qp)`.
            QpPrivFree qp_priv_free {}
            /// `free_all_qps(rdi)`.
            FreeAllQps free_all_qps {}
            /// `flush_qp_waiters(qp)`, the caller holding `s_lock`.
            FlushQpWaiters flush_qp_waiters {}
            /// `stop_send_queue(qp)`.
            StopSendQueue stop_send_queue {}
            /// `quiesce_qp(qp)`.
            QuiesceQp quiesce_qp {}
            /// `notify_qp_reset(qp)`.
            NotifyQpReset notify_qp_reset {}
            /// `hfi1_post_parms[opcode]`.
            PostParms hfi1_post_parms {
                "opcode" opcode: WrOpcode = WrOpcode::Send,
            }
            /// The `iowait_wakeup(wait, int reason)` callback.
            IowaitWakeup iowait_wakeup {
                "reason" reason: u32 [reason] = 0,
            }
            /// The `iowait_sdma_drained(wait)` callback.
            IowaitSdmaDrained iowait_sdma_drained {}
            /// The `hfi1_init_priority(w)` callback.
            InitPriority hfi1_init_priority {}
            /// The `iowait_sleep(sde, wait, tx, u32 seq, bool pkts_sent)`
            /// callback, as `sdma_send_txreq()` calls it: the QP's engine,
            /// one leg's work, a new tx.
            IowaitSleep iowait_sleep {
                "leg" leg: Leg = Leg::Ib,
                /// The engine's head sequence the caller saw.
                "seq" seq: u32 [seq] = 0,
                "pkts_sent" pkts_sent: bool = false,
                /// `tx->num_desc` of the tx that did not fit.
                "num_desc" num_desc: u16 [num_desc] = 0,
            }
            /// `sc_add_credit_return_intr(sc)` (pio.c).
            ScAddCreditReturnIntr sc_add_credit_return_intr {
                /// A send context of the world, or NULL.
                "sc" sc: Option<SendCtxIdx> [sc_ptr] = Some(SendCtxIdx(0)),
            }
            /// `sc_del_credit_return_intr(sc)` (pio.c).
            ScDelCreditReturnIntr sc_del_credit_return_intr {
                "sc" sc: Option<SendCtxIdx> [sc_ptr] = Some(SendCtxIdx(0)),
            }
            /// `hfi1_sc_wantpiobuf_intr(sc, u32 needint)` (pio.c).
            ScWantPiobufIntr hfi1_sc_wantpiobuf_intr {
                "sc" sc: Option<SendCtxIdx> [sc_ptr] = Some(SendCtxIdx(0)),
                "needint" needint: u32 [needint] = 0,
            }
            /// `sc_return_credits(sc)` (pio.c).
            ScReturnCredits sc_return_credits {
                "sc" sc: Option<SendCtxIdx> [sc_ptr] = Some(SendCtxIdx(0)),
            }
            /// `sc_stop(sc, int flag)` (pio.c).
            ScStop sc_stop {
                "sc" sc: Option<SendCtxIdx> [sc_ptr] = Some(SendCtxIdx(0)),
                /// The flags to set (`SCF_HALTED`, `SCF_FROZEN`, ...).
                "flag" flag: Flags<ScFlag> = Flags::default(),
            }
            /// `sc_disable(sc)` (pio.c): the context disabled (its
            /// `SEND_CTXT_CTRL` written without the enable bit once its
            /// packets have left), the QPs of its piowait list woken.
            ScDisable sc_disable {
                "sc" sc: Option<SendCtxIdx> [sc_of_qp] = Some(SendCtxIdx(0)),
            }
            /// `sc_flush(sc)` (pio.c): waits for the context's packets to
            /// leave, then for its credits to return.
            ScFlush sc_flush {
                "sc" sc: Option<SendCtxIdx> [sc_ptr] = Some(SendCtxIdx(0)),
            }
            /// `sc_drop(sc)` (pio.c, up to 6.12: removed upstream in
            /// 7.2): a message that dropping is not implemented, nothing
            /// else.
            ScDrop sc_drop {
                "sc" sc: Option<SendCtxIdx> [sc_ptr] = Some(SendCtxIdx(0)),
            }
            /// `sc_wait(dd)` (pio.c): every context's packets waited for
            /// (no pause).
            ScWait sc_wait {}
            /// `pio_freeze(dd)` (pio.c): every frozen kernel context
            /// disabled (`sc_disable`).
            PioFreeze pio_freeze {}
            /// `sc_buffer_alloc(sc, u32 dw_len, cb, arg)` (pio.c) on the QP's
            /// send context (the one with a ring): a PIO buffer of `dw_len`
            /// dwords from its credits, its ring slot filled; the returned
            /// buffer in the outcome's text.
            ScBufferAlloc sc_buffer_alloc {
                "dw_len" dw_len: u32 [dw_len] = 0,
                /// What the buffer calls back (`verbs_pio_complete` with the
                /// QP; the recording callback with its slot).
                "cb" cb: PioCb = PioCb::Null,
            }
            /// `sc_release_update(sc)` (pio.c): the credits the chip returned
            /// counted, the buffers they free released, the waiters woken.
            ScReleaseUpdate sc_release_update {
                "sc" sc: Option<SendCtxIdx> [sc_of_qp] = Some(SendCtxIdx(0)),
            }
            /// The static `sc_wait_for_packet_egress(sc, int pause)`
            /// (pio.c): polls the context's egress status until no packet
            /// is left, a halt, or a timeout that bounces the link.
            ScWaitForPacketEgress sc_wait_for_packet_egress {
                "sc" sc: Option<SendCtxIdx> [sc_ptr] = Some(SendCtxIdx(0)),
                "pause" pause: i32 [pause] = 0,
            }
            /// The static `sc_piobufavail(sc)` (pio.c) on the QP's send
            /// context (`priv->s_sendcontext`): PIO buffers are free, the
            /// QPs waiting on the context's piowait list woken.
            ScPiobufavail sc_piobufavail {}
            /// `sdma_ahg_alloc(sde)` (sdma.c).
            SdmaAhgAlloc sdma_ahg_alloc {
                /// An engine of the world, or NULL.
                "sde" sde: Option<EngineIdx> [sde_ptr] = Some(EngineIdx(0)),
            }
            /// The static `sdma_desc_avail(sde, uint avail)` (sdma.c) on
            /// the QP's engine (`priv->s_sde`): the QPs waiting for
            /// descriptors woken as `avail` allows.
            SdmaDescAvail sdma_desc_avail {
                "avail" avail: u32 [avail] = 0,
            }
            /// The static `sdma_flush(sde)` (sdma.c) on the QP's engine: the
            /// ring flushed, the QPs orphaned on its wait list woken.
            SdmaFlush sdma_flush {}
            /// `sdma_ahg_free(sde, int ahg_index)` (sdma.c).
            SdmaAhgFree sdma_ahg_free {
                "sde" sde: Option<EngineIdx> [sde_ptr] = Some(EngineIdx(0)),
                "ahg_index" ahg_index: i32 [ahg_index] = 0,
            }
            /// `sdma_engine_interrupt(sde, u64 status)` (sdma.c) on the QP's
            /// engine: an interrupt of the kinds `status` names counted,
            /// the descriptors up to the chip's head retired and their tx
            /// requests completed (`sdma_make_progress`).
            SdmaEngineInterrupt sdma_engine_interrupt {
                "status" status: u64 [int_status] = 0,
            }
            /// The static `sdma_field_flush(work)` (sdma.c), the flush
            /// worker of the QP's engine: under its `head_lock`, the engine
            /// flushed unless it runs.
            SdmaFieldFlush sdma_field_flush {}
            /// `_sdma_engine_progress_schedule(sde)` (sdma.c, the slow
            /// path of sdma.h's `sdma_engine_progress_schedule()`): the
            /// engine's progress interrupt forced. `sde` is dereferenced:
            /// never NULL.
            SdmaEngineProgressSchedule _sdma_engine_progress_schedule {
                "sde" sde: Option<EngineIdx> [sde_ptr] = Some(EngineIdx(0)),
            }
            /// `init_credit_return(dd)` (pio.c): the device's credit
            /// return memory allocated, a block of coherent DMA memory on
            /// each node with CPUs.
            InitCreditReturn init_credit_return {}
            /// `free_credit_return(dd)` (pio.c): that memory freed.
            FreeCreditReturn free_credit_return {}
            /// `sdma_send_txreq(sde, wait, tx, pkts_sent)` (sdma.c) on the
            /// QP's engine: a new tx request (the QP's, a verbs_txreq) put
            /// on the descriptor ring, or on the flush list when the engine
            /// does not run, or the QP made to wait (`iowait_sleep()`) when
            /// the ring is full.
            SdmaSendTxreq sdma_send_txreq {
                /// `wait` is the QP's work of leg `leg` (else NULL).
                "wait" wait: bool = true,
                "leg" leg: Leg = Leg::Ib,
                /// `tx->tlen`: bytes the request still lacks (0: complete).
                "tlen" tlen: u16 [tlen] = 0,
                "pkts_sent" pkts_sent: bool = false,
                /// The request: its descriptors (built as the world's ring's
                /// are), callback and name; its `wait` is the call's.
                "tx" tx: DmaTx [send_tx] = DmaTx { id: 8, ..DmaTx::default() },
            }
            /// `sc_enable(sc)` (pio.c): a disabled context's counters and
            /// shadow ring reset, its errors cleared, its PIO memory
            /// initialised by the chip, then enabled. `sc` is NULL or the
            /// QP's send context (the one the world gives counters).
            ScEnable sc_enable {
                "sc" sc: Option<SendCtxIdx> [sc_of_qp] = Some(SendCtxIdx(0)),
            }
            /// `sc_group_release_update(dd, hw_context)` (pio.c), from the
            /// send credit interrupt (hard interrupt context): the credits
            /// returned to every send context of the group of
            /// `hw_context`'s.
            ScGroupReleaseUpdate sc_group_release_update {
                /// The interrupt's source: a hardware context (below
                /// `TXE_NUM_CONTEXTS`, 160).
                "hw_context" hw_context: u32 [hw_context] = 0,
            }
            /// `sdma_send_txlist(sde, wait, tx_list, &count_out)` (sdma.c)
            /// on the QP's engine: the caller's list (the QP's `txlist`)
            /// put on the descriptor ring in order until a request does
            /// not fit (the iowait sleeps), lacks bytes, or finds the
            /// engine stopped (it and the rest go on the flush list); the
            /// text is `count_out=N`.
            SdmaSendTxlist sdma_send_txlist {
                /// `wait` is the IB work of the world's packet queue (else
                /// NULL).
                "wait" wait: bool = true,
                /// The list's requests lacking bytes (`tx->tlen` 1),
                /// request i in bit i.
                "incomplete" incomplete: u8 [incomplete] = 0,
            }
            /// `sdma_txinit_ahg(tx, flags, tlen, ahg_entry, num_ahg, ahg,
            /// ahg_hlen, cb)` (sdma.h) on the world's tx request, given
            /// fresh (what it held released first, as a reused request's
            /// last owner cleaned it; no descriptor, its own six as the
            /// world builds them, unpinned): its lengths and descriptors reset,
            /// the AHG header copied or its updates added
            /// (`_sdma_txreq_ahgadd`, sdma.c). Its callback is NULL.
            SdmaTxinitAhg sdma_txinit_ahg {
                "flags" flags: u16 [init_flags] = 0,
                "tlen" tlen: u16 [init_tlen] = 64,
                "ahg_entry" ahg_entry: u8 = 0,
                "num_ahg" num_ahg: u8 [0..=13] = 0,
                /// `ahg[i]` is the world's value i for this seed
                /// ([`ahg_values`](crate::sdma_build::ahg_values)).
                "ahg_seed" ahg_seed: u32 = 0,
                "ahg_hlen" ahg_hlen: u8 [ahg_hlen] = 0,
            }
            /// `sdma_txadd_page(dd, tx, page, offset, len, pinning_ctx,
            /// ctx_get, ctx_put)` (sdma.h) on the world's tx request: a
            /// world page mapped and added as a descriptor, or, past the
            /// request's descriptors, the array extended or the bytes
            /// coalesced (`ext_coal_sdma_tx_descs`, sdma.c); the last
            /// closes or pads the request (`_pad_sdma_tx_descs`).
            SdmaTxaddPage sdma_txadd_page {
                /// The world's page (of four, 4096 bytes each).
                "page" page: u8 [0..=3] = 0,
                "offset" offset: u16 [page_offset] = 0,
                "len" len: u16 [add_len] = 0,
                /// With the world's pinning context for the slot it fills
                /// and recording `ctx_get` and `ctx_put` (else NULL).
                "pinned" pinned: bool = false,
            }
            /// `sdma_txadd_kvaddr(dd, tx, kvaddr, len)` (sdma.h): as
            /// `sdma_txadd_page`, a kernel address mapped single.
            SdmaTxaddKvaddr sdma_txadd_kvaddr {
                /// `kvaddr` is byte `at` of the world's four pages (in a
                /// row), or NULL.
                "null" null: bool [btx_null] = false,
                "at" at: u16 [kvaddr_at] = 0,
                "len" len: u16 [add_len] = 0,
            }
            /// `sdma_txadd_daddr(dd, tx, addr, len)` (sdma.h): an address
            /// the caller mapped, added as is.
            SdmaTxaddDaddr sdma_txadd_daddr {
                "addr" addr: u64 = 0,
                "len" len: u16 [add_len] = 0,
            }
            /// `sc_restart(sc)` (pio.c) on the QP's send context (the one
            /// the world gives counters): a halted context, not being
            /// freed, waited for to halt (its status register, read at
            /// most 102 times: -ETIME) and for its buffers (a kernel
            /// context's count of buffers allocated), then disabled and
            /// enabled again.
            ScRestart sc_restart {
                "sc" sc: Option<SendCtxIdx> [sc_is_qps] = Some(SendCtxIdx(0)),
            }
            /// `sc_halted(work)` (pio.c, static): the context's halt work,
            /// queued by its error interrupt, restarting it.
            ScHalted sc_halted {
                "sc" sc: Option<SendCtxIdx> [sc_is_qps] = Some(SendCtxIdx(0)),
            }
            /// `pio_send_control(dd, op)` (pio.c): under `sendctrl_lock`,
            /// `SEND_CTRL` read and written back changed by `op` (`PSC_*`:
            /// send enable, VL arbiter, the VLs without an MTU disallowed,
            /// the CM reset, which waits for the chip to clear it).
            PioSendControl pio_send_control {
                "op" op: i32 [psc_op] = 0,
            }
            /// `pio_reset_all(dd)` (pio.c): every context's PIO memory
            /// initialised by the chip's init engine (an error it reports
            /// cleared first).
            PioResetAll pio_reset_all {}
            /// `pio_kernel_unfreeze(dd)` (pio.c): every frozen kernel
            /// context whose link is up enabled again.
            PioKernelUnfreeze pio_kernel_unfreeze {}
            /// `pio_kernel_linkup(dd)` (pio.c): every kernel context the
            /// link going down disabled enabled again.
            PioKernelLinkup pio_kernel_linkup {}
            /// The static `sdma_process_event(sde, event)` (sdma.c) on the
            /// QP's engine: under its `tail_lock` and `head_lock`, the
            /// state machine's step for the event (`__sdma_process_event`:
            /// a new state and its send control, the clean-up tasklets and
            /// the halt worker scheduled, the ring flushed on entering
            /// running), then the free descriptors offered to the waiters
            /// if the engine runs.
            SdmaProcessEvent sdma_process_event {
                "event" event: SdmaEvent [sdma_event] = SdmaEvent::E00GoHwDown,
            }
            /// `sdma_engine_error(sde, u64 status)` (sdma.c) on the QP's
            /// engine: a halting error is the state machine's
            /// `e60_hw_halted`; any other bit dumps the engine's state.
            SdmaEngineError sdma_engine_error {
                "status" status: u64 [sdma_err_status] = 0,
            }
            /// The static `sdma_sw_clean_up_task(t)` (sdma.c), the QP's
            /// engine's software clean-up tasklet: progress made, the ring
            /// flushed and reset, then `e40_sw_cleaned`.
            SdmaSwCleanUpTask sdma_sw_clean_up_task {}
            /// The static `sdma_hw_clean_up_task(t)` (sdma.c), the QP's
            /// engine's hardware clean-up tasklet: `SEND_DMA_STATUS` polled
            /// for the clean-up done, then `e25_hw_clean_up_done`.
            SdmaHwCleanUpTask sdma_hw_clean_up_task {}
            /// The static `sdma_err_halt_wait(work)` (sdma.c), the QP's
            /// engine's halt worker: `SEND_DMA_STATUS` polled until the
            /// engine says it halted, then `e15_hw_halt_done`.
            SdmaErrHaltWait sdma_err_halt_wait {}
            /// The static `sdma_err_progress_check(t)` (sdma.c), the QP's
            /// engine's progress check timer: every other running engine
            /// whose head has not moved from its check head with work on
            /// its ring is halted (`e90_sw_halted`), then the engine's
            /// halt worker scheduled.
            SdmaErrProgressCheck sdma_err_progress_check {}
            /// `sdma_map_init(dd, u8 port, u8 num_vls, u8 *vl_engines)`
            /// (sdma.c): the VL-to-engine map built for `num_vls` VLs and
            /// published (`dd->sdma_map`), the map it replaces freed after
            /// a grace period (`call_rcu`); with send DMA off, nothing.
            SdmaMapInit sdma_map_init {
                "port" port: u8 = 0,
                "num_vls" num_vls: u8 [map_num_vls] = 1,
                /// `vl_engines[]`: each VL's engines; empty: NULL, the
                /// engines spread evenly, the extras from the last VL down.
                "vl_engines" vl_engines: Slots<u8, 16> [vl_engines] = Slots::new(),
            }
            /// `pio_map_init(dd, u8 port, u8 num_vls, u8 *vl_scontexts)`
            /// (pio.c): the VL-to-send-context map built for `num_vls` VLs
            /// from the kernel's send contexts (`dd->kernel_send_context`,
            /// from 1), each context's credit return threshold set
            /// (`set_threshold`), the map published (`dd->pio_map`) and the
            /// map it replaces freed after a grace period.
            PioMapInit pio_map_init {
                "port" port: u8 = 0,
                "num_vls" num_vls: u8 [pio_map_num_vls] = 1,
                /// `vl_scontexts[]`: each VL's contexts; empty: NULL, the
                /// `SC_KERNEL` contexts spread evenly, the extras from the
                /// last VL down.
                "vl_scontexts" vl_scontexts: Slots<u8, 16> [vl_scontexts] = Slots::new(),
            }
            /// `free_pio_map(dd)` (pio.c), at removal: the PIO map freed
            /// (`pio_map_free`) and unpublished, with a grace period
            /// between (not journalled: docs/design.md), then the kernel's
            /// send contexts' array (`dd->kernel_send_context`: the world's
            /// `kernel_sc` in a block of its own, none when it is empty)
            /// freed and NULL. The text: both as it left them.
            FreePioMap free_pio_map {}
            /// `init_send_contexts(dd)` (pio.c): the credit return memory
            /// allocated (`init_credit_return`), then the device's table of
            /// hardware to software contexts (`dd->hw_to_sw`, every entry
            /// `INVALID_SCI`) and of send contexts (`dd->send_contexts`,
            /// `num_send_contexts` entries laid out type by type from
            /// `dd->sc_sizes`: each entry's type, first PIO block and
            /// credits); either allocation failing frees both and the
            /// credit return memory, -ENOMEM.
            InitSendContexts init_send_contexts {}
            /// `init_sc_pools_and_sizes(dd)` (pio.c): each type's count of
            /// send contexts and their size in PIO blocks, from pio.c's
            /// configuration (`sc_config_sizes`, `sc_mem_pool_config`)
            /// with its wildcards replaced, written to `dd->sc_sizes`; the
            /// contexts' total, or -EINVAL for a configuration that does
            /// not fit the chip's PIO memory.
            InitScPoolsAndSizes init_sc_pools_and_sizes {}
            /// `sdma_get_descq_cnt()` (sdma.c): the engines' ring size, the
            /// module parameter `sdma_descq_cnt` read as a `u16` when it
            /// is a power of two from 64 to 32768, else `SDMA_DESCQ_CNT`.
            SdmaGetDescqCnt sdma_get_descq_cnt {}
            /// The static `set_sdma_integrity(sde)` (sdma.c) on the QP's
            /// engine: its `SEND_DMA_CHECK_ENABLE` written with the
            /// device's base SDMA integrity checks.
            SetSdmaIntegrity set_sdma_integrity {}
            /// The static `init_sdma_regs(sde, u32 credits, uint
            /// idle_cnt)` (sdma.c) on the QP's engine, as `sdma_init()`
            /// programs each engine: its ring's address, length and
            /// generation, tail, idle count, head address, its share of
            /// the SDMA memory (`credits` blocks at `credits * index`),
            /// error mask, integrity checks and opcode check.
            InitSdmaRegs init_sdma_regs {
                "credits" credits: u32 [sdma_credits] = 0,
                "idle_cnt" idle_cnt: u32 [sdma_idle_cnt] = 0,
            }
            /// `sdma_update_lmc(dd, u64 mask, u32 lid)` (sdma.c): every
            /// engine's `SEND_DMA_CHECK_SLID` written with the LID and its
            /// LMC mask (a debug trace each).
            SdmaUpdateLmc sdma_update_lmc {
                "mask" mask: u64 [lmc_mask] = 0xffff,
                "lid" lid: u32 [lmc_lid] = 0,
            }
            /// The static `sdma_wait_for_packet_egress(sde, int pause)`
            /// (sdma.c) on the QP's engine: its egress status polled until
            /// no packet is left, or a count unchanged over 500 polls
            /// bounces the link.
            SdmaWaitForPacketEgress sdma_wait_for_packet_egress {
                "pause" pause: i32 [pause] = 0,
            }
            /// `sdma_wait(dd)` (sdma.c): every engine's egress waited for
            /// (`sdma_wait_for_packet_egress`), in order.
            SdmaWait sdma_wait {}
            /// `sdma_start(dd)` (sdma.c): `e10_go_hw_start` for every
            /// engine of the device (`sdma_process_event`, each on its own
            /// ring: the QP's engine's read back with the QP, the others'
            /// in the text).
            SdmaStart sdma_start {}
            /// `sdma_all_running(dd)` (sdma.c), the link up:
            /// `e30_go_running` for every engine (each running engine's
            /// ring flushed, its waiters offered its free descriptors).
            SdmaAllRunning sdma_all_running {}
            /// `sdma_all_idle(dd)` (sdma.c, up to 6.12: removed upstream
            /// in 7.2), the link down: `e70_go_idle` for every engine.
            SdmaAllIdle sdma_all_idle {}
            /// `sdma_seqfile_dump_sde(s, sde)` (sdma.c) on the QP's engine:
            /// debugfs's `sdma_state` line of the engine, and one per
            /// descriptor between its head and tail.
            SdmaSeqfileDumpSde sdma_seqfile_dump_sde {}
            /// `sdma_dumpstate(sde)` (sdma.c, compiled only with
            /// `CONFIG_SDMA_VERBOSITY`) on the QP's engine: its registers,
            /// the device's SDMA error registers and every interrupt
            /// status, mask and blocked register read and printed to the
            /// kernel log (whose text a world does not keep).
            SdmaDumpstate sdma_dumpstate {}
            /// `sdma_exit(dd)` (sdma.c), the module's removal: every
            /// engine `e00_go_hw_down`, its progress check timer waited
            /// for, the state machine's reference dropped and its
            /// completion waited for (`sdma_finalput`).
            SdmaExit sdma_exit {}
            /// `sdma_freeze_notify(dd, int link_down)` (sdma.c): the
            /// freeze count set to the engines, then `e85_link_down`
            /// (link down) or `e80_hw_freeze` for every engine.
            SdmaFreezeNotify sdma_freeze_notify {
                "link_down" link_down: i32 [link_down] = 0,
            }
            /// `sdma_freeze(dd)` (sdma.c): once every engine left running
            /// (the freeze count at most 0; else the wait would sleep
            /// forever: ended as a signal would, it returns), the count set
            /// again and `e81_hw_frozen` for every engine, then the wait
            /// for their software clean-up.
            SdmaFreeze sdma_freeze {}
            /// `sdma_unfreeze(dd)` (sdma.c): `e82_hw_unfreeze` for every
            /// engine.
            SdmaUnfreeze sdma_unfreeze {}
            /// `sdma_init(dd, u8 port)` (sdma.c), the probe of the send
            /// engines: `dd->per_sdma` allocated (the chip's engines, or
            /// the `num_sdma` module parameter's), each engine set up
            /// with its ring and tx ring allocated, the head and pad
            /// memory allocated, each engine programmed
            /// (`init_sdma_regs`), the VL-to-engine map built for the
            /// port's VLs, the per-CPU engine table created; an
            /// allocation failing frees what it took (`sdma_clean`),
            /// -ENOMEM. With `clean`, a probe that succeeded is torn down
            /// (`sdma_clean(dd, dd->num_sdma)`, as the driver's removal
            /// does). The text: what `dd` and its new engines hold after
            /// the probe, and after the teardown.
            SdmaInit sdma_init {
                "port" port: u8 [sdma_init_port] = 0,
                "clean" clean: bool [sdma_init_clean] = false,
            }
            /// The static `sdma_state_name(state)` (sdma.c): the state's
            /// name in `sdma_state_names[]`, the text.
            SdmaStateName sdma_state_name {
                "state" state: SdmaState [state_name_arg] = SdmaState::S00HwDown,
            }
            /// `seqfile_dump_sci(s, u32 i, sci)` (pio.c), what debugfs's
            /// `pio_stats` prints of an allocated context: the table entry
            /// `dd->send_contexts[i]` and its context's state, credit
            /// counters and credit status register, into the text.
            SeqfileDumpSci seqfile_dump_sci {
                /// The entry's index; its context is the world's `i`.
                "i" i: u8 [dump_sci] = 0,
            }
            /// `sc_alloc(dd, int type, uint hdrqentsize, int numa)` (pio.c):
            /// a send context of `type` allocated on node `numa` at the
            /// first free index of that type in `dd->send_contexts`
            /// (`sc_hw_alloc`), its registers programmed, its credit return
            /// threshold set from `hdrqentsize` (kernel contexts), its
            /// shadow ring allocated; NULL, with what it took back
            /// (`sc_free`), when frozen, out of contexts or memory.
            ScAlloc sc_alloc {
                "type" ty: ScType [sc_alloc_type] = ScType::Kernel,
                "hdrqentsize" hdrqentsize: u8 [sc_alloc_hdrqentsize] = 32,
                "numa" numa: i32 [sc_alloc_numa] = 0,
            }
            /// `init_pervl_scs(dd)` (pio.c), at probe: the VL15 send context
            /// and two kernel contexts a data VL (`num_vls`) allocated
            /// (`sc_alloc`, on the device's node, sized for
            /// `rcd[0]->rcvhdrqentsize`), each given its static rate
            /// control (`hfi1_init_ctxt`), the VLs' contexts and MTUs set
            /// (`dd->vld[]`: VL15 2048, the data VLs `max_mtu`), the
            /// kernel's contexts listed (`dd->kernel_send_context`), each
            /// enabled (`sc_enable`) and told the VLs it carries
            /// (`SEND_CTXT_CHECK_VL`), then the PIO map built
            /// (`pio_map_init`); a failure frees what was made, -ENOMEM.
            InitPervlScs init_pervl_scs {}
            /// `hfi1_init_ctxt(sc)` (chip.c): NULL, nothing; else the
            /// context's check of the PBC static rate control set, or
            /// cleared when the capabilities allow it for its kind
            /// (`STATIC_RATE_CTRL`: the user bit for a user context).
            Hfi1InitCtxt hfi1_init_ctxt {
                /// NULL or a context of the world.
                "sc" sc: Option<SendCtxIdx> [sc_ptr] = Some(SendCtxIdx(0)),
            }
            /// `enum_to_mtu(int mtu)` (driver.c): an `OPA_MTU_*` code's
            /// bytes, 0xffff for any other value.
            EnumToMtu enum_to_mtu {
                "mtu" mtu: i32 [mtu_code] = 4,
            }
            /// `sdma_engine_get_vl(sde)` (sdma.c): the VL the published
            /// SDMA map gives engine `sde` (`engine_to_vl[]`), -EINVAL
            /// without a map.
            SdmaEngineGetVl sdma_engine_get_vl {
                /// An engine of the world.
                "sde" sde: u8 [world_sde] = 0,
            }
            /// `sdma_select_user_engine(dd, u32 selector, u8 vl)` (sdma.c):
            /// for a task pinned to one CPU, the engine its CPU's map of
            /// `vl` in `dd->sdma_rht` gives `selector`; otherwise (or
            /// when that is none) `sdma_select_engine_vl()`'s.
            SdmaSelectUserEngine sdma_select_user_engine {
                "selector" selector: u32 = 0,
                "vl" vl: Vl [user_vl] = Vl(0),
            }
            /// `sdma_get_cpu_to_sde_map(sde, buf)` (sdma.c), what the
            /// engine's sysfs `cpu_list` reads: its `cpu_mask` as a list
            /// (or "empty") into a page, the text; the length returned.
            SdmaGetCpuToSdeMap sdma_get_cpu_to_sde_map {
                /// An engine of the world.
                "sde" sde: u8 [world_sde] = 0,
            }
            /// `sdma_seqfile_dump_cpu_list(s, dd, unsigned long cpuid)`
            /// (sdma.c), what debugfs's `sdma_cpu_list` prints of a CPU:
            /// its maps in `dd->sdma_rht`, each VL's engines, the text.
            SdmaSeqfileDumpCpuList sdma_seqfile_dump_cpu_list {
                "cpuid" cpuid: u64 [cpuid] = 0,
            }
            /// `sdma_set_cpu_to_sde_map(sde, buf, count)` (sdma.c), what a
            /// write of the engine's sysfs `cpu_list` does: `buf` parsed as
            /// a CPU list (online CPUs only), the engine added to the map
            /// of its VL of each CPU new to it (a node and a map allocated
            /// where there is none), taken out of every map of the online
            /// CPUs left out (a node left with no engine removed and
            /// freed), its `cpu_mask` set; the length of `buf`, or an
            /// error. The text: the table as the call leaves it.
            SdmaSetCpuToSdeMap sdma_set_cpu_to_sde_map {
                /// An engine of the world.
                "sde" sde: u8 [world_sde] = 0,
                "buf" buf: ShortText [cpu_list_text] = ShortText::default(),
            }
        }
    };
}

/// From [`call_schema!`]: [`Func`], [`args`] and [`Args`].
macro_rules! functions {
    ([] $( $(#[doc = $doc:literal])* $v:ident $c:ident { $($fields:tt)* } )*) => {
        /// The upstream functions a vector can call.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Func { $( $(#[doc = $doc])* $v, )* }

        impl Func {
            /// Every function, in the schema's order.
            pub const ALL: &'static [Func] = &[$(Func::$v),*];

            /// The upstream function's name.
            pub fn name(self) -> &'static str {
                match self { $(Func::$v => stringify!($c)),* }
            }

            /// Parses an upstream function's name.
            pub fn from_name(s: &str) -> Option<Func> {
                match s { $(x if x == stringify!($c) => Some(Func::$v),)* _ => None }
            }

            /// The accepted names, for error messages.
            pub fn names() -> String {
                [$(stringify!($c)),*].join(", ")
            }
        }

        impl Symbol for Func {
            const ALL: &'static [Func] = Func::ALL;
            fn index(self) -> u32 {
                self as u32
            }
            fn name(self) -> &'static str {
                Func::name(self)
            }
        }

        impl fmt::Display for Func {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        /// Each function's arguments, a record each (named as [`Func`]'s
        /// variants).
        pub mod args {
            #![allow(unused_imports)]
            use super::*;
            $( record! { [$(#[doc = $doc])* #[derive(Copy)] $v] $($fields)* } )*
        }

        /// A call's arguments: which function, and what it is passed.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Args { $( $(#[doc = $doc])* $v(args::$v), )* }

        impl Args {
            /// The function called.
            pub fn func(&self) -> Func {
                match self { $(Args::$v(_) => Func::$v,)* }
            }

            /// `f`'s arguments, each at its default.
            pub fn blank(f: Func) -> Args {
                match f { $(Func::$v => Args::$v(args::$v::blank()),)* }
            }

            /// The fields of the function's argument record.
            pub fn fields(&self) -> &'static [$crate::schema::Field] {
                match self { $(Args::$v(_) => args::$v::FIELDS,)* }
            }

            /// Sets argument `i` to its default; false when there is none.
            pub fn reset(&mut self, i: usize) -> bool {
                match self { $(Args::$v(a) => a.reset(i),)* }
            }

            /// Runs the function in the model ([`crate::Mirror`]).
            pub fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), crate::Undefined> {
                use crate::Mirror;
                match self { $(Args::$v(a) => a.mirror(cx),)* }
            }

            /// `(key, value)` of every argument, in declaration order.
            pub fn texts(&self) -> Vec<(&'static str, String)> {
                match self { $(Args::$v(a) => a.texts(),)* }
            }

            /// `(key, self's value, other's value)` for every argument that
            /// differs; another function's arguments differ as `fn`.
            pub fn changes(&self, other: &Args) -> Vec<(&'static str, String, String)> {
                match (self, other) {
                    $( (Args::$v(a), Args::$v(b)) => a.changes(b), )*
                    _ => vec![("fn", self.func().name().into(), other.func().name().into())],
                }
            }
        }
    };
}
call_schema! { functions [] }

/// A QP of the device that `rvt_qp_iter` walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IterQp {
    /// `qp->ibqp.qp_type`.
    pub qp_type: QpType,
    /// `qp->ibqp.qp_num`.
    pub num: u32,
    /// `qp->port_num`.
    pub port: u32,
    /// `qp->state`.
    pub state: QpState,
    /// `rdma_ah_get_sl(&qp->remote_ah_attr)`.
    pub remote_sl: u8,
    /// What `rvt_error_qp` returns for it (the "last WQE reached" answer).
    pub error_qp_ret: bool,
}

/// An unallocated slot of the walk ([`Slots`]).
impl Default for IterQp {
    fn default() -> Self {
        IterQp {
            qp_type: QpType::Rc,
            num: 0,
            port: 1,
            state: QpState::Reset,
            remote_sl: 0,
            error_qp_ret: false,
        }
    }
}

/// An address-vector argument (`attr->ah_attr`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct AttrAh {
    /// Its SL.
    pub sl: u8,
    /// Its port.
    pub port: u8,
}

/// One call of an upstream function with everything it reads: its
/// arguments, and the world, QP and swqe its pointers reach.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Call {
    /// The function called, and what it is passed.
    pub args: Args,
    /// The device and module parameters its pointers reach.
    pub world: World,
    /// The QP.
    pub qp: Qp,
    /// The swqe.
    pub wqe: Wqe,
    /// The send engines' state.
    pub engines: Engines,
}

impl Call {
    /// A call of `func` with every argument at its default.
    pub fn new(func: Func, world: World, qp: Qp, wqe: Wqe) -> Call {
        Call {
            args: Args::blank(func),
            world,
            qp,
            wqe,
            engines: Engines::blank(),
        }
    }

    /// The function called.
    pub fn func(&self) -> Func {
        self.args.func()
    }
}

impl Func {
    /// The calls that walk the QP's engine's ring by its mask (flushing
    /// it, or retiring descriptors up to the chip's head) and offer its
    /// free descriptors to the waiters on its dmawait list: the flush and
    /// its worker, the interrupt, and the state machine's steps, which
    /// flush on entering running and make progress on a halt.
    pub fn walks_engine_ring(self) -> bool {
        matches!(
            self,
            Func::SdmaFlush
                | Func::SdmaFieldFlush
                | Func::SdmaEngineInterrupt
                | Func::SdmaProcessEvent
                | Func::SdmaEngineError
                | Func::SdmaSwCleanUpTask
                | Func::SdmaHwCleanUpTask
                | Func::SdmaErrHaltWait
        ) || self.drives_every_engine()
    }

    /// The calls that step the state machine of every engine of the
    /// device (sdma.c), each on its own ring.
    pub fn drives_every_engine(self) -> bool {
        matches!(
            self,
            Func::SdmaStart
                | Func::SdmaAllRunning
                | Func::SdmaAllIdle
                | Func::SdmaExit
                | Func::SdmaFreezeNotify
                | Func::SdmaFreeze
                | Func::SdmaUnfreeze
        )
    }

    /// The calls that may read the chip's head of the QP's engine (to
    /// make progress): its interrupt and the state machine's steps.
    pub fn reads_chip_head(self) -> bool {
        self.walks_engine_ring() && !matches!(self, Func::SdmaFlush | Func::SdmaFieldFlush)
    }

    /// The calls that wake the waiters on the QP's engine's dmawait list:
    /// `sdma_desc_avail` and every call that walks the ring.
    pub fn wakes_dmawait(self) -> bool {
        self == Func::SdmaDescAvail || self.walks_engine_ring()
    }
}
