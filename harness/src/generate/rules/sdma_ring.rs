//! The rules of the QP's engine's tx requests: its tx ring (head, the
//! requests from the head on, tail) and its flush list, drawn only for
//! the calls that complete them (`sdma_flush`), so every other
//! function's vectors are drawn as before.

use super::super::draw::{Draw, Source};
use crate::model::types::*;

/// The calls that complete an engine's tx requests.
fn completes(func: Func, q: &Qp) -> bool {
    func == Func::SdmaFlush && q.s_sde.is_some()
}

/// A ring that may hold tx requests (`corpus::invariants`): a power of
/// two of at most `MAX_TX_RING` descriptors.
fn ring_holds_txs(q: &Qp) -> bool {
    q.sde_descq_cnt.is_power_of_two() && q.sde_descq_cnt <= MAX_TX_RING
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
        u.int_in_range(0..=6)
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
        qp_wait: u.arbitrary(),
    }
}

/// `sde->tx_head`: any.
pub fn tx_head<S: Source>(u: &mut Draw<S>, _: &World, func: Func, q: &Qp) -> u16 {
    if completes(func, q) && ring_holds_txs(q) {
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
    if !completes(func, q) || !ring_holds_txs(q) || u.arbitrary() {
        return s;
    }
    let mask = u32::from(q.sde_descq_cnt) - 1;
    let used = q.sde_descq_tail.wrapping_sub(q.sde_descq_head) & mask;
    let most = (MAX_DMA_TX as u16).min(q.sde_descq_cnt);
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
    let n = u.int_in_range(1..=MAX_DMA_TX as u8);
    for i in 0..n {
        let next = u.arbitrary();
        let _ = s.push(dma_tx(u, MAX_DMA_TX as u8 + i, next));
    }
    s
}
