//! The rules of the QP's engine's tx requests: its tx ring (head, the
//! requests from the head on, tail) and its flush list, drawn only for
//! the calls that complete them (`sdma_flush` and its worker,
//! `sdma_engine_interrupt`) or add to them (`sdma_send_txreq`), the
//! ring's descriptors and free count for a send, and its head as the chip
//! reports it, so every other function's vectors are drawn as before.

use super::super::draw::{Draw, Source};
use crate::model::types::*;

/// The calls that complete an engine's tx requests, or add to them.
fn completes(func: Func, q: &Qp) -> bool {
    (func.walks_engine_ring() || matches!(func, Func::SdmaSendTxreq | Func::SdmaSendTxlist))
        && q.s_sde.is_some()
}

/// The requests a ring or flush list is drawn with: room for a send's
/// (a list's: up to two).
fn room(func: Func) -> usize {
    match func {
        Func::SdmaSendTxreq => MAX_DMA_TX - 1,
        Func::SdmaSendTxlist => MAX_DMA_TX - 2,
        _ => MAX_DMA_TX,
    }
}

/// One tx request: up to `NUM_DESC` (6) descriptors, now and then more
/// in an allocated array; mapping types mostly single or page; the AHG
/// modes that skip descriptors one time in four; its callback three
/// times in four, the QP's iowait half the time.
fn dma_tx<S: Source>(u: &mut Draw<S>, id: u8, next_descq_idx: u16) -> DmaTx {
    let ext = u.ratio(1, 8);
    let num_desc = if ext {
        u.int_in_range(0..=MAX_TX_DESC)
    } else {
        u.int_in_range(0..=crate::model::sdma_tx::NUM_DESC)
    };
    let (mut map, mut pinned) = (0u16, 0u8);
    for i in 0..num_desc {
        let m: u16 = if u.ratio(7, 8) {
            u.int_in_range(1..=2)
        } else {
            u.int_in_range(0..=3)
        };
        map |= m << (2 * i);
        pinned |= u8::from(u.ratio(1, 4)) << i;
    }
    DmaTx {
        id,
        next_descq_idx,
        num_desc,
        map,
        pinned,
        mode: if u.ratio(1, 4) {
            u.int_in_range(3..=7)
        } else {
            u.int_in_range(0..=2)
        },
        coalesce: u.ratio(1, 4),
        ext,
        complete: u.ratio(3, 4),
        wait: match u.int_in_range(0..=3u8) {
            0 | 1 => TxWait::Null,
            2 => TxWait::Qp,
            _ => TxWait::Queue,
        },
    }
}

/// `sde->tx_head`: any.
pub fn tx_head<S: Source>(u: &mut Draw<S>, _: &World, func: Func, q: &Qp) -> u16 {
    if completes(func, q) && q.ring_holds_txs() {
        u.arbitrary()
    } else {
        0
    }
}

/// The tx requests from the ring's head on (none half the time): each
/// ends at a descriptor the flush reaches, in ring order from the
/// descriptor head, now and then anywhere in the ring.
pub fn tx_ring<S: Source>(
    u: &mut Draw<S>,
    _: &World,
    func: Func,
    q: &Qp,
) -> Slots<DmaTx, MAX_DMA_TX> {
    let mut s = Slots::new();
    if !completes(func, q) || !q.ring_holds_txs() || u.arbitrary() {
        return s;
    }
    let mask = u32::from(q.sde_descq_cnt) - 1;
    let used = q.sde_descq_tail.wrapping_sub(q.sde_descq_head) & mask;
    let most = (room(func) as u16).min(q.sde_descq_cnt);
    let n = u.int_in_range(1..=most as u8);
    let mut at = 0u32;
    for id in 0..n {
        let next = if u.ratio(7, 8) && at < used {
            at = u.int_in_range(at + 1..=used);
            (q.sde_descq_head.wrapping_add(at) & mask) as u16
        } else {
            u.int_in_range(0..=mask) as u16
        };
        let _ = s.push(dma_tx(u, id, next));
    }
    s
}

/// `sde->tx_tail`: the slot after the ring's last tx request.
pub fn tx_tail<S: Source>(_: &mut Draw<S>, _: &World, _: Func, q: &Qp) -> u16 {
    q.sde_tx_head.wrapping_add(q.sde_tx_ring.len() as u16)
}

/// The flush list (none half the time): tx requests that never reached
/// the ring, named after the ring's.
pub fn flushlist<S: Source>(
    u: &mut Draw<S>,
    _: &World,
    func: Func,
    q: &Qp,
) -> Slots<DmaTx, MAX_DMA_TX> {
    let mut s = Slots::new();
    if !completes(func, q) || u.arbitrary() {
        return s;
    }
    let n = u.int_in_range(1..=room(func) as u8);
    for i in 0..n {
        let next = u.arbitrary();
        let _ = s.push(dma_tx(u, MAX_DMA_TX as u8 + i, next));
    }
    s
}

/// The descriptors a generated interrupt mostly retires at most.
const SHORT_WALK: u32 = 16;

/// What the engine reports as its head, for the calls that read it
/// (`sdma_engine_interrupt`): an index of its ring (as u16: the chip
/// reports nothing else; corpus::invariants), mostly a short way from the
/// descriptor head towards the tail, its upper bits now and then set (the
/// u16 cast drops them).
pub fn hw_head<S: Source>(u: &mut Draw<S>, _: &World, func: Func, q: &Qp) -> u64 {
    if !func.reads_chip_head() || q.sde_descq_cnt == 0 {
        return 0;
    }
    let mask = u32::from(q.sde_descq_cnt) - 1;
    // Mostly short walks: make_progress traces every descriptor it
    // retires, and a long walk fills the journal before its completions.
    let index = if u.ratio(7, 8) {
        let used = q.sde_descq_tail.wrapping_sub(q.sde_descq_head) & mask;
        q.sde_descq_head
            .wrapping_add(u.int_in_range(0..=used.min(SHORT_WALK)))
            & mask
    } else {
        u.int_in_range(0..=mask)
    };
    let high: u64 = if u.ratio(1, 8) {
        u.arbitrary::<u64>() << 16
    } else {
        0
    };
    high | u64::from(index)
}

/// An engine interrupt's status: the QP's engine's bits (sdma_init()'s
/// masks: interrupt `1 << i`, progress `1 << (16 + i)`, idle
/// `1 << (32 + i)`) in any combination, now and then another engine's
/// bit or any value.
pub fn int_status<S: Source, R>(u: &mut Draw<S>, _: &World, q: &Qp, _: &R) -> u64 {
    let i = q.s_sde.map_or(0, |e| u32::from(e.0));
    match u.int_in_range(0..=7u8) {
        6 => 1 << (u.int_in_range(0..=2u32) * 16 + (i + 1) % 16),
        7 => u.arbitrary(),
        k => (0..3)
            .filter(|b| k & (1 << b) != 0 || u.ratio(1, 8))
            .fold(0, |s, b| s | 1 << (b * 16 + i)),
    }
}

/// The ring's descriptors before a send (none three times in four): a
/// few slots written, with any words.
pub fn descq<S: Source>(
    u: &mut Draw<S>,
    _: &World,
    func: Func,
    q: &Qp,
) -> Slots<DescqEntry, MAX_DESCQ> {
    let mut s = Slots::new();
    let sends = matches!(func, Func::SdmaSendTxreq | Func::SdmaSendTxlist);
    if !sends || !q.ring_holds_txs() || q.s_sde.is_none() || u.ratio(3, 4) {
        return s;
    }
    let mut idx = u.int_in_range(0..=3u16);
    while idx < q.sde_descq_cnt && s.len() < 3 {
        let e = DescqEntry {
            idx: idx as u8,
            qw0: u.arbitrary::<u64>() | 1,
            qw1: u.arbitrary(),
        };
        let _ = s.push(e);
        idx += u.int_in_range(1..=8u16);
    }
    s
}

/// `desc_avail` before a send: mostly what the ring has free, or a few
/// descriptors either side of a request's (so both the submit and the
/// full ring are common); for any other call, any.
pub fn desc_avail<S: Source>(u: &mut Draw<S>, _: &World, func: Func, q: &Qp) -> u16 {
    let sends = matches!(func, Func::SdmaSendTxreq | Func::SdmaSendTxlist);
    if !sends || u.ratio(1, 8) {
        return u.arbitrary();
    }
    if u.arbitrary() {
        crate::model::sched::sdma_descq_freecnt(q)
    } else {
        u.int_in_range(0..=10)
    }
}

/// `tx->tlen` of a send: 0 (a whole request) seven times in eight.
pub fn tlen<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> u16 {
    if u.ratio(7, 8) {
        0
    } else {
        u.arbitrary()
    }
}

/// The caller's list of a `sdma_send_txlist` (whose ring holds
/// requests): up to what the ring and flush list have room for (empty
/// one time in eight), named after a send's; descriptors counted so the
/// ring's read-back holds them.
pub fn txlist<S: Source>(
    u: &mut Draw<S>,
    _: &World,
    func: Func,
    q: &Qp,
) -> Slots<DmaTx, MAX_DMA_TX> {
    let mut s = Slots::new();
    if func != Func::SdmaSendTxlist || !q.ring_holds_txs() || q.s_sde.is_none() || u.ratio(1, 8) {
        return s;
    }
    let room = MAX_DMA_TX - q.sde_tx_ring.len().max(q.sde_flushlist.len());
    let mut descs = q.sde_descq.len();
    for i in 0..u.int_in_range(1..=room.max(1) as u8) {
        let next = u.arbitrary();
        let tx = dma_tx(u, 3 * MAX_DMA_TX as u8 + i, next);
        descs += usize::from(tx.num_desc.max(1));
        if s.len() == room || descs > MAX_DESCQ {
            break;
        }
        let _ = s.push(tx);
    }
    s
}

/// The requests of a list lacking bytes: none three times in four.
pub fn incomplete<S: Source, R>(u: &mut Draw<S>, _: &World, q: &Qp, _: &R) -> u8 {
    if u.ratio(3, 4) {
        0
    } else {
        u.arbitrary::<u8>() & ((1u16 << q.txlist.len()) - 1) as u8
    }
}

/// The packet queue's counts: small, for a list's send only.
pub fn queue_count<S: Source>(u: &mut Draw<S>, _: &World, func: Func, _: &Qp) -> u32 {
    match func {
        Func::SdmaSendTxlist if u.ratio(7, 8) => u.int_in_range(0..=16),
        Func::SdmaSendTxlist => u.arbitrary(),
        _ => 0,
    }
}

/// The packet queue's SDMA count: what its requests on the ring or flush
/// list may drop.
pub fn queue_busy<S: Source>(u: &mut Draw<S>, _: &World, func: Func, q: &Qp) -> i32 {
    if completes(func, q) {
        u.int_in_range(0..=3)
    } else {
        0
    }
}

/// The packet queue's starvation count, for a list's send.
pub fn queue_starved<S: Source>(u: &mut Draw<S>, _: &World, func: Func, _: &Qp) -> u8 {
    if func == Func::SdmaSendTxlist {
        u.arbitrary()
    } else {
        0
    }
}

/// The packet queue has its sleep seven times in eight.
pub fn queue_sleep<S: Source>(u: &mut Draw<S>, _: &World, func: Func, _: &Qp) -> bool {
    func != Func::SdmaSendTxlist || u.ratio(7, 8)
}

/// The -EAGAINs its sleep has: none half the time.
pub fn queue_eagain<S: Source>(u: &mut Draw<S>, _: &World, func: Func, _: &Qp) -> u8 {
    if func == Func::SdmaSendTxlist && u.arbitrary() {
        u.int_in_range(1..=3)
    } else {
        0
    }
}

/// A send's new request, named after the ring's and the flush list's.
pub fn send_tx<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> DmaTx {
    let next = u.arbitrary();
    dma_tx(u, 2 * MAX_DMA_TX as u8, next)
}
