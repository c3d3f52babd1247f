//! The fields' own domains (the schema's `[rule]`s): where a field
//! depends on the world, the function or a field drawn before it, the
//! invariant is kept here (`corpus::invariants` states it with its
//! reason). A rule is named in the schema (`[ring]`) and called with the
//! draw, the record's context and the record drawn so far.

use super::draw::{Draw, Source};
use super::shapes::{
    below, byte_pairs, flags, low_index, opt_idx, per_index, pick, u32_near, vl_map_into,
};
use crate::model::types::*;

mod answers;
mod cpus;
mod pio_chip;
mod pio_ring;
mod sc_alloc;
mod sc_pools;
mod sdma_regs;
mod sdma_ring;
mod sdma_state;
mod txbuild;
mod vl_map;
pub use answers::*;
pub use cpus::*;
pub use pio_chip::*;
pub use pio_ring::*;
pub use sc_alloc::*;
pub use sc_pools::*;
pub use sdma_regs::*;
pub use sdma_ring::*;
pub use sdma_state::*;
pub use txbuild::*;
pub use vl_map::*;

/// Device flags; send DMA three times in four.
pub fn dev_flags<S: Source>(u: &mut Draw<S>, _: &World) -> Flags<DevFlag> {
    let mut f: Flags<DevFlag> = flags(u);
    if u.ratio(3, 4) {
        f.insert(DevFlag::HasSendDma);
    }
    f
}

pub fn qos_shift<S: Source>(u: &mut Draw<S>, _: &World) -> u8 {
    if u.ratio(1, 2) {
        0
    } else {
        u.int_in_range(0..=31)
    }
}

/// Mostly the VL counts the chip takes, now and then any.
pub fn num_vls<S: Source>(u: &mut Draw<S>, _: &World) -> u32 {
    if u.ratio(3, 4) {
        u.int_in_range(0..=16)
    } else {
        u.arbitrary()
    }
}

/// The default (256) one time in two.
pub fn piothreshold<S: Source>(u: &mut Draw<S>, _: &World) -> u16 {
    if u.ratio(1, 2) {
        256
    } else {
        u.arbitrary()
    }
}

/// Each entry mostly a VL (0..=15), one time in eight any byte: two
/// bytes an entry, eight drawn at a time.
pub fn sc_to_vl<S: Source>(u: &mut Draw<S>, _: &World) -> [u8; 32] {
    let mut t = [0u8; 32];
    for quad in t.chunks_mut(4) {
        let b = u.bytes(8);
        for (j, x) in quad.iter_mut().enumerate() {
            let (d, v) = ((b >> (16 * j)) & 0xff, (b >> (16 * j + 8)) & 0xff);
            // ratio(1, 8): d * 8 < 256; int_in_range(0..=15): (v * 16) >> 8.
            *x = if d < 32 {
                v as u8
            } else {
                ((v * 16) >> 8) as u8
            };
        }
    }
    t
}

/// Mostly an MTU the driver knows (or 0).
/// Four bytes an entry, two entries a draw: three times in four
/// (`b < 192`) one of the MTUs, else any u16.
pub fn vl_mtu<S: Source>(u: &mut Draw<S>, _: &World) -> [u16; 16] {
    const MTUS: [u16; 8] = [0, 256, 512, 1024, 2048, 4096, 8192, 10240];
    let mut t = [0u16; 16];
    for pair in t.chunks_mut(2) {
        let w = u.bytes(8);
        for (j, x) in pair.iter_mut().enumerate() {
            let e = w >> (32 * j);
            *x = if e & 0xff < 192 {
                MTUS[usize::from(below((e >> 8) as u8, 8))]
            } else {
                (e >> 16) as u16
            };
        }
    }
    t
}

/// A send context of the world, NULL one time in eight.
pub fn vl_sc<S: Source>(u: &mut Draw<S>, w: &World) -> [Option<SendCtxIdx>; 16] {
    let nsc = usize::from(w.num_send_contexts);
    let mut t = [None; 16];
    // NULL one time in eight (`b < 32`), two bytes an entry.
    byte_pairs(u, 16, |i, d, v| {
        t[i] = (d >= 32 && nsc > 0).then(|| SendCtxIdx(below(v, nsc)));
    });
    t
}

/// A map over the world's engines, NULL one time in eight.
pub fn sdma_map<S: Source>(u: &mut Draw<S>, w: &World) -> Option<VlMap<EngineIdx>> {
    let mut m = None;
    vl_map_into(u, w.sdma_cpus.len(), EngineIdx, &mut m);
    m
}

/// A map over the world's send contexts, NULL one time in eight.
pub fn pio_map<S: Source>(u: &mut Draw<S>, w: &World) -> Option<VlMap<SendCtxIdx>> {
    let mut m = None;
    vl_map_into(u, usize::from(w.num_send_contexts), SendCtxIdx, &mut m);
    m
}

/// One or two ports; each SL mostly maps to its own number, now and
/// then to 0xf (invalid), any byte, or any SC.
pub fn sl_to_sc<S: Source>(u: &mut Draw<S>, _: &World) -> Slots<[u8; 32], 2> {
    let mut s = Slots::new();
    for _ in 0..u.int_in_range(1..=2u8) {
        let mut t = [0u8; 32];
        // Two bytes an entry: which case (one in eight each), a value.
        // (Selects, not a match: the case is random, a branch on it
        // mispredicted every other entry.)
        byte_pairs(u, 32, |i, d, v| {
            let c = below(d, 8);
            let mut x = i as u8;
            x = if c == 2 { below(v, 32) } else { x };
            x = if c == 1 { v } else { x };
            t[i] = if c == 0 { 0xf } else { x };
        });
        let _ = s.push(t);
    }
    s
}

/// One value per port of the world (`sl_to_sc`'s count).
fn per_port<S: Source, T: Copy + Default>(
    u: &mut Draw<S>,
    w: &World,
    mut one: impl FnMut(&mut Draw<S>) -> T,
) -> Slots<T, 2> {
    let mut s = Slots::new();
    for _ in 0..w.sl_to_sc.len() {
        let _ = s.push(one(u));
    }
    s
}

pub fn port_ibmtu<S: Source>(u: &mut Draw<S>, w: &World) -> Slots<u32, 2> {
    per_port(u, w, |u| {
        if u.ratio(3, 4) {
            pick(u, &[256, 512, 1024, 2048, 4096, 8192, 10240])
        } else {
            u.arbitrary()
        }
    })
}

/// Near the multicast and permissive LIDs and the extended range.
pub fn port_lid<S: Source>(u: &mut Draw<S>, w: &World) -> Slots<u32, 2> {
    per_port(u, w, |u| u32_near(u, &[0xc000, 0xffff, 0xf000_0000]))
}

pub fn port_gid_prefix<S: Source>(u: &mut Draw<S>, w: &World) -> Slots<u64, 2> {
    per_port(u, w, |u| u.arbitrary())
}

pub fn port_bools<S: Source>(u: &mut Draw<S>, w: &World) -> Slots<bool, 2> {
    per_port(u, w, |u| u.arbitrary())
}

/// An SC argument: mostly the 32 SCs and just past them.
pub fn sc5<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> Sc {
    Sc(if u.ratio(7, 8) {
        u.int_in_range(0..=33)
    } else {
        u.arbitrary()
    })
}

/// A VL argument: mostly the 16 VLs and just past them.
pub fn vl<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> Vl {
    Vl(if u.ratio(7, 8) {
        u.int_in_range(0..=17)
    } else {
        u.arbitrary()
    })
}

/// An MTU in bytes: near the IB and OPA ones.
pub fn mtu<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> u32 {
    u32_near(u, &[256, 512, 1024, 2048, 4096, 8192, 10240])
}

/// A path-MTU enum: mostly the defined ones and just past them.
pub fn path_mtu<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> u32 {
    if u.ratio(7, 8) {
        u.int_in_range(0..=8)
    } else {
        u.arbitrary()
    }
}

/// The SL whose QPs hfi1_error_port_qps errors: mostly a valid SL.
pub fn error_sl<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> u32 {
    if u.ratio(3, 4) {
        u.int_in_range(0..=31)
    } else {
        u.arbitrary()
    }
}

/// Up to 8 QPs of the world's ports, half of them on the SL the call
/// errors.
pub fn iter_qps<S: Source>(
    u: &mut Draw<S>,
    w: &World,
    _: &Qp,
    a: &args::ErrorPortQps,
) -> Slots<IterQp, 8> {
    let nports = w.sl_to_sc.len() as u32;
    let mut s = Slots::new();
    for _ in 0..u.int_in_range(0..=8u8) {
        let q = IterQp {
            qp_type: pick(u, QpType::ALL),
            num: u.arbitrary(),
            port: u.int_in_range(1..=nports),
            state: pick(u, QpState::ALL),
            remote_sl: if u.ratio(1, 2) {
                (a.sl & 0xff) as u8
            } else {
                u.int_in_range(0..=31)
            },
            error_qp_ret: u.arbitrary(),
        };
        // At most 8 draws: never full.
        let _ = s.push(q);
    }
    s
}

/// An address vector of the world (a port and SL ah_to_sc() can
/// index), or none (not in attr_mask) one time in two.
pub fn attr_ah<S: Source>(
    u: &mut Draw<S>,
    w: &World,
    _: &Qp,
    _: &args::CheckModifyQp,
) -> Option<AttrAh> {
    u.arbitrary::<bool>().then(|| AttrAh {
        sl: u.int_in_range(0..=31),
        port: u.int_in_range(1..=w.sl_to_sc.len() as u8),
    })
}

/// A wakeup reason: mostly SDMA_AVAIL_REASON (0).
pub fn reason<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> u32 {
    if u.ratio(3, 4) {
        0
    } else {
        u.int_in_range(0..=3)
    }
}

/// The head sequence the caller saw: often the engine's own.
pub fn seq<S: Source, R>(u: &mut Draw<S>, _: &World, q: &Qp, _: &R) -> u32 {
    if u.ratio(1, 2) {
        q.sde_head_seq
    } else {
        u.arbitrary()
    }
}

/// A tx's descriptor count: mostly near the ring's free room.
pub fn num_desc<S: Source, R>(u: &mut Draw<S>, _: &World, q: &Qp, _: &R) -> u16 {
    match u.int_in_range(0..=3u8) {
        0 => q.sde_desc_avail.wrapping_add(1),
        1 => q.sde_desc_avail,
        2 => u.int_in_range(0..=33),
        _ => u.arbitrary(),
    }
}

pub fn qp_num<S: Source>(u: &mut Draw<S>, _: &World, _: Func, _: &Qp) -> u32 {
    if u.ratio(1, 2) {
        u.int_in_range(0..=0x100)
    } else {
        u.arbitrary()
    }
}

/// A port of the world (1-based).
pub fn port<S: Source>(u: &mut Draw<S>, w: &World, _: Func, _: &Qp) -> u32 {
    u.int_in_range(1..=w.sl_to_sc.len() as u32)
}

pub fn alt_port<S: Source>(u: &mut Draw<S>, w: &World, _: Func, _: &Qp) -> u8 {
    u.int_in_range(1..=w.sl_to_sc.len() as u8)
}

/// Mostly an IB MTU.
pub fn pmtu<S: Source>(u: &mut Draw<S>, _: &World, _: Func, _: &Qp) -> u16 {
    if u.ratio(3, 4) {
        pick(u, &[256, 512, 1024, 2048, 4096, 8192])
    } else {
        u.arbitrary()
    }
}

/// An engine of the world, or NULL; iowait_sleep is called for the
/// engine a tx went to, never without one.
pub fn engine<S: Source>(u: &mut Draw<S>, w: &World, func: Func, _: &Qp) -> Option<EngineIdx> {
    let n = w.sdma_cpus.len();
    // The callbacks and functions an engine calls for its own QPs.
    let given = matches!(
        func,
        Func::IowaitSleep
            | Func::SdmaFlush
            | Func::SdmaDescAvail
            | Func::SdmaSeqfileDumpSde
            | Func::SdmaDumpstate
    );
    if given && n > 0 {
        return Some(EngineIdx(u.int_in_range(0..=(n - 1) as u8)));
    }
    opt_idx(u, n, EngineIdx)
}

/// rdmavt posts SMI, GSI and UD work requests with an AH
/// (corpus::invariants); the others now and then.
pub fn wqe_ah<S: Source>(u: &mut Draw<S>, _: &World, q: &Qp, _: &Wqe) -> Option<Ah> {
    let needs_ah = matches!(q.qp_type, QpType::Ud | QpType::Gsi | QpType::Smi);
    (needs_ah || u.ratio(1, 4)).then(|| Ah {
        log_pmtu: u.int_in_range(0..=30),
        sl: Sl(u.int_in_range(0..=31)),
        port: u.arbitrary(),
    })
}

/// A length near the bounds it is compared with: 2 GiB, the path MTU,
/// the PIO threshold, VL15's MTU, 256 KiB, the AH's MTU.
pub fn wqe_length<S: Source>(u: &mut Draw<S>, w: &World, q: &Qp, wqe: &Wqe) -> u32 {
    let mut near = [
        0x8000_0000,
        u32::from(q.pmtu),
        u32::from(w.piothreshold),
        u32::from(w.vl_mtu[15]),
        1 << 18,
        0,
    ];
    let n = match wqe.ah {
        Some(a) => {
            near[5] = 1 << a.log_pmtu;
            6
        }
        None => 5,
    };
    u32_near(u, &near[..n])
}

/// A ring size: small ones (where a tx's descriptors can outgrow the
/// free count) and the driver's.
pub fn ring_size<S: Source>(u: &mut Draw<S>, _: &World, func: Func, _: &Qp) -> u16 {
    // sdma_flush() and sdma_engine_interrupt() walk the ring by its mask:
    // a power of two, as sdma_init() makes it (corpus::invariants).
    if func.walks_engine_ring() {
        return 1 << u.int_in_range(0..=15u8);
    }
    // submit_tx() writes descriptors to the ring: one a world holds.
    if matches!(func, Func::SdmaSendTxreq | Func::SdmaSendTxlist) {
        return 1 << u.int_in_range(0..=6u8);
    }
    if u.ratio(3, 4) {
        pick(u, &[0, 1, 2, 8, 16, 64, 2048])
    } else {
        u.arbitrary()
    }
}

/// The ring's tail: mostly within a ring's size of its head (at the head
/// for a dump of a ring a world does not allocate).
pub fn ring_tail<S: Source>(u: &mut Draw<S>, _: &World, func: Func, q: &Qp) -> u32 {
    // A dump of a ring a world does not allocate reads none of it.
    if func == Func::SdmaSeqfileDumpSde && !q.ring_holds_txs() {
        return q.sde_descq_head;
    }
    if u.ratio(3, 4) {
        let used = u.int_in_range(0..=u32::from(q.sde_descq_cnt) + 1);
        q.sde_descq_head.wrapping_add(used)
    } else {
        u.arbitrary()
    }
}

/// `sc->hw_context` of a few send contexts (the rest 0): one of the
/// chip's 160.
pub fn sc_hw_context<S: Source>(u: &mut Draw<S>, w: &World) -> PerIndex<u8, 64> {
    per_index(u, usize::from(w.num_send_contexts), |u| {
        u.int_in_range(0..=159)
    })
}

/// What a few send contexts' control or status register reads: mostly
/// 0 or bit 0 (enabled, halted), now and then any value.
pub fn sc_csr<S: Source>(u: &mut Draw<S>, w: &World) -> PerIndex<u64, 64> {
    per_index(u, usize::from(w.num_send_contexts), |u| {
        if u.ratio(3, 4) {
            u.int_in_range(0..=1)
        } else {
            u.arbitrary()
        }
    })
}

/// What a few send contexts' egress status reads: mostly none left;
/// packets left (one, a few, all 14 occupancy bits) with the egress halt
/// (bit 16) one time in four; packets that never leave (the wait polls
/// 50001 times: 50 ms of a C world's time) one time in sixteen.
pub fn sc_egress_csr<S: Source>(u: &mut Draw<S>, w: &World) -> PerIndex<u64, 64> {
    per_index(u, usize::from(w.num_send_contexts), |u| {
        let occupancy: u64 = pick(u, &[1, 2, 0x3fff]);
        match u.int_in_range(0..=15u8) {
            0 => occupancy,
            1..=4 => occupancy | 0x10000,
            5 => u.arbitrary::<u64>() | 0x10000,
            _ => 0,
        }
    })
}

/// A few send contexts' types (the rest the kernel's).
pub fn sc_type<S: Source>(u: &mut Draw<S>, w: &World) -> PerIndex<ScType, 64> {
    per_index(u, usize::from(w.num_send_contexts), |u| {
        *u.choose(ScType::ALL)
    })
}

/// Send contexts whose table entry is NULL: rarely one, and only one
/// nothing else of the world names (the invariants refuse the rest).
pub fn sc_freed<S: Source>(u: &mut Draw<S>, w: &World) -> PerIndex<bool, 64> {
    let mut p = PerIndex::new();
    let n = usize::from(w.num_send_contexts);
    if n > 1 && u.ratio(1, 8) {
        let i = u.int_in_range(0..=n - 1);
        if !crate::corpus::invariants::world_names_sc(w, i as u8) {
            let _ = p.set(i, true);
        }
    }
    p
}

/// A few send contexts' flags.
pub fn sc_flags<S: Source>(u: &mut Draw<S>, w: &World, _: &Engines) -> PerIndex<Flags<ScFlag>, 64> {
    per_index(u, usize::from(w.num_send_contexts), |u| flags(u))
}

/// A few send contexts' credit interrupt users: mostly 0, 1 or 2.
pub fn sc_intr_count<S: Source>(u: &mut Draw<S>, w: &World, _: &Engines) -> PerIndex<u32, 64> {
    per_index(u, usize::from(w.num_send_contexts), |u| {
        if u.ratio(3, 4) {
            u.int_in_range(0..=2)
        } else {
            u32_near(u, &[0, 1])
        }
    })
}

/// A few send contexts' cached credit control CSR (the interrupt bit one
/// time in two).
pub fn sc_credit_ctrl<S: Source>(u: &mut Draw<S>, w: &World, _: &Engines) -> PerIndex<u64, 64> {
    per_index(u, usize::from(w.num_send_contexts), |u| u.arbitrary())
}

/// A few engines' states: running half the time, any state else.
pub fn sde_state<S: Source>(u: &mut Draw<S>, w: &World, _: &Engines) -> PerIndex<SdmaState, 16> {
    per_index(u, w.sdma_cpus.len(), |u| {
        if u.arbitrary() {
            SdmaState::S99Running
        } else {
            *u.choose(SdmaState::ALL)
        }
    })
}

/// A few engines' interrupt counts and last status: small, or any.
pub fn sde_int_cnt<S: Source>(u: &mut Draw<S>, w: &World, _: &Engines) -> PerIndex<u64, 16> {
    per_index(u, w.sdma_cpus.len(), |u| {
        if u.ratio(3, 4) {
            u.int_in_range(0..=3)
        } else {
            u.arbitrary()
        }
    })
}

/// A few engines' AHG bits: as sdma_init() leaves the upper half
/// (`0xfffffffe00000000`) three times in four, the 32 entries none, all,
/// all but the last, or any; never all 64 bits (corpus::invariants).
pub fn sde_ahg_bits<S: Source>(u: &mut Draw<S>, w: &World, _: &Engines) -> PerIndex<u64, 16> {
    per_index(u, w.sdma_cpus.len(), |u| {
        let high = if u.ratio(3, 4) {
            0xffff_fffe_0000_0000
        } else {
            0
        };
        let low: u64 = match u.int_in_range(0..=3u8) {
            0 => 0,
            1 => 0xffff_ffff,
            2 => 0x7fff_ffff,
            _ => u64::from(u.arbitrary::<u32>()),
        };
        high | low
    })
}

/// A send context of the world (mostly one of the first four, as engine
/// state is), or NULL one time in eight (an argument).
pub fn sc_ptr<S: Source, R>(u: &mut Draw<S>, w: &World, _: &Qp, _: &R) -> Option<SendCtxIdx> {
    let n = usize::from(w.num_send_contexts);
    (n > 0 && !u.ratio(1, 8)).then(|| live(w, SendCtxIdx(low_index(u, n))))
}

/// `s`, or when the world freed it (`world.sc_freed`), the next context
/// it did not: what the QP and the arguments name is allocated.
fn live(w: &World, s: SendCtxIdx) -> SendCtxIdx {
    let n = w.num_send_contexts;
    (0..n)
        .map(|k| SendCtxIdx(((u16::from(s.0) + u16::from(k)) % u16::from(n)) as u8))
        .find(|c| !w.sc_freed.get(usize::from(c.0)))
        .unwrap_or(s)
}

/// The context whose piowait list holds the QP's other waiters (the QP's
/// send context) half the time, else as [`sc_ptr`].
pub fn sc_of_qp<S: Source, R>(u: &mut Draw<S>, w: &World, q: &Qp, r: &R) -> Option<SendCtxIdx> {
    match q.s_sendcontext {
        Some(sc) if u.arbitrary() => Some(sc),
        _ => sc_ptr(u, w, q, r),
    }
}

/// `pause`: mostly 0 or 1, now and then any value.
pub fn pause<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> i32 {
    if u.ratio(3, 4) {
        u.int_in_range(0..=1)
    } else {
        u.arbitrary()
    }
}

/// An engine of the world (mostly one of the first four), or NULL one
/// time in eight (an argument).
pub fn sde_ptr<S: Source, R>(u: &mut Draw<S>, w: &World, _: &Qp, _: &R) -> Option<EngineIdx> {
    let n = w.sdma_cpus.len();
    (n > 0 && !u.ratio(1, 8)).then(|| EngineIdx(low_index(u, n)))
}

/// `needint`: mostly 0 or 1.
pub fn needint<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> u32 {
    if u.ratio(3, 4) {
        u.int_in_range(0..=1)
    } else {
        u32_near(u, &[0, 1])
    }
}

/// An AHG index: mostly around the 0..=31 the engine has.
pub fn ahg_index<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> i32 {
    if u.ratio(7, 8) {
        u.int_in_range(-2..=33)
    } else {
        u.arbitrary()
    }
}

/// A queued tx's descriptors: mostly a few.
pub fn tx_num_desc<S: Source>(u: &mut Draw<S>, _: &World, _: Func, _: &Qp) -> u16 {
    if u.ratio(3, 4) {
        u.int_in_range(0..=8)
    } else {
        u.arbitrary()
    }
}

/// The tx requests queued behind the IB leg's first: mostly none.
pub fn ib_tx_more<S: Source>(u: &mut Draw<S>, _: &World, _: Func, q: &Qp) -> u8 {
    tx_more(u, q.ib_tx_queued)
}

/// The tx requests queued behind the TID leg's first: mostly none.
pub fn tid_tx_more<S: Source>(u: &mut Draw<S>, _: &World, _: Func, q: &Qp) -> u8 {
    tx_more(u, q.tid_tx_queued)
}

fn tx_more<S: Source>(u: &mut Draw<S>, queued: bool) -> u8 {
    if queued && u.ratio(1, 4) {
        u.int_in_range(1..=MAX_TX_MORE)
    } else {
        0
    }
}

/// Free descriptors offered to the waiters: mostly a few.
pub fn avail<S: Source, R>(u: &mut Draw<S>, _: &World, _: &Qp, _: &R) -> u32 {
    if u.ratio(3, 4) {
        u.int_in_range(0..=16)
    } else {
        u32_near(u, &[0xffff])
    }
}

/// A send context of the world, or NULL.
/// A send context of the world, or NULL; sc_piobufavail and
/// sc_buffer_alloc run on the QP's, never without one.
pub fn send_context<S: Source>(
    u: &mut Draw<S>,
    w: &World,
    func: Func,
    _: &Qp,
) -> Option<SendCtxIdx> {
    let n = w.num_send_contexts;
    if matches!(func, Func::ScPiobufavail | Func::ScBufferAlloc) && n > 0 {
        return Some(live(w, SendCtxIdx(u.int_in_range(0..=n - 1))));
    }
    opt_idx(u, usize::from(n), SendCtxIdx).map(|s| live(w, s))
}

/// Mostly a 5-bit SC.
pub fn sc<S: Source>(u: &mut Draw<S>, _: &World, _: Func, _: &Qp) -> u8 {
    if u.ratio(7, 8) {
        u.int_in_range(0..=31)
    } else {
        u.arbitrary()
    }
}

/// On an engine's wait list: only in a world with engines.
pub fn on_wait_list<S: Source>(u: &mut Draw<S>, w: &World, _: Func, _: &Qp) -> bool {
    let on: bool = u.arbitrary();
    on && !w.sdma_cpus.is_empty()
}

/// On a list: an engine's waitlock (mostly the QP's engine's), or one
/// time in four none (the QP waits on a send context: `wait_sc`); off
/// it, now and then one a waker left.
pub fn wait_lock<S: Source>(u: &mut Draw<S>, w: &World, _: Func, q: &Qp) -> Option<EngineIdx> {
    let n = w.sdma_cpus.len();
    if n == 0 || !(q.on_wait_list || u.ratio(1, 4)) || (q.on_wait_list && u.ratio(1, 4)) {
        return None;
    }
    match q.s_sde {
        Some(e) if u.ratio(3, 4) => Some(e),
        _ => Some(EngineIdx(u.int_in_range(0..=(n - 1) as u8))),
    }
}

/// The send context whose piowait list the QP waits on: on a list
/// without an engine's lock, one (mostly the QP's context); off a list
/// without a lock, now and then one a waker left.
pub fn wait_sc<S: Source>(u: &mut Draw<S>, w: &World, _: Func, q: &Qp) -> Option<SendCtxIdx> {
    let n = w.num_send_contexts;
    if n == 0 || q.wait_lock.is_some() || !(q.on_wait_list || u.ratio(1, 8)) {
        return None;
    }
    match q.s_sendcontext {
        Some(s) if u.ratio(3, 4) => Some(s),
        _ => Some(live(w, SendCtxIdx(u.int_in_range(0..=n - 1)))),
    }
}

/// quiesce_qp waits for pio_busy to drop when the QP has a send
/// context: nothing in a single-threaded world would drop it.
pub fn pio_busy<S: Source>(u: &mut Draw<S>, _: &World, func: Func, q: &Qp) -> i32 {
    if func == Func::QuiesceQp && q.s_sendcontext.is_some() {
        0
    } else {
        u.int_in_range(0..=3)
    }
}

pub fn lid<S: Source>(u: &mut Draw<S>, _: &World, _: Func, _: &Qp) -> u32 {
    u32_near(u, &[0xc000, 0xffff, 0xf000_0000, 0xffff_ffff])
}

pub fn quarter<S: Source>(u: &mut Draw<S>, _: &World, _: Func, _: &Qp) -> bool {
    u.ratio(1, 4)
}

pub fn eighth<S: Source>(u: &mut Draw<S>, _: &World, _: Func, _: &Qp) -> bool {
    u.ratio(1, 8)
}

/// Only with a GRH.
pub fn gid_prefix<S: Source>(u: &mut Draw<S>, _: &World, _: Func, q: &Qp) -> u64 {
    if q.remote_grh {
        u.arbitrary()
    } else {
        0
    }
}

/// Only with a GRH: an OPA GID (OPA_SPECIAL_OUI) or not.
pub fn gid_iid<S: Source>(u: &mut Draw<S>, _: &World, _: Func, q: &Qp) -> u64 {
    if !q.remote_grh {
        0
    } else if u.arbitrary() {
        (0x066a << 40) | u64::from(u32_near(u, &[0xc000, 0xffff_ffff]))
    } else {
        u.arbitrary()
    }
}

/// A ring index: often `s_last`'s (an idle QP), each below 16.
pub fn ring<S: Source>(u: &mut Draw<S>, _: &World, _: Func, q: &Qp) -> u32 {
    if u.ratio(2, 3) {
        q.s_last
    } else {
        u.int_in_range(0..=15)
    }
}

pub fn mr_refs<S: Source>(u: &mut Draw<S>, _: &World, _: Func, _: &Qp) -> Option<u32> {
    if u.ratio(1, 4) {
        Some(u.int_in_range(1..=3))
    } else {
        None
    }
}

/// Other iowaits on the QP's engine's list, for the wakeups that harvest
/// them (`sdma_desc_avail` and its callers; `corpus::invariants` says why
/// only they): none half the time, mostly a few, now and then more than
/// a batch of `SDMA_WAIT_BATCH_SIZE` (20).
pub fn waiters<S: Source>(
    u: &mut Draw<S>,
    _: &World,
    func: Func,
    q: &Qp,
) -> Slots<Waiter, MAX_WAITERS> {
    let mut s = Slots::new();
    if !func.wakes_dmawait() || q.s_sde.is_none() {
        return s;
    }
    if u.arbitrary() {
        return s;
    }
    let n = if u.ratio(1, 8) {
        u.int_in_range(18..=MAX_WAITERS as u8)
    } else {
        u.int_in_range(1..=4)
    };
    for _ in 0..n {
        let _ = s.push(Waiter {
            priority: u.int_in_range(0..=3),
            starved_cnt: u.arbitrary(),
            num_desc: u.int_in_range(0..=8),
            after_qp: u.arbitrary(),
            on_list: u.ratio(7, 8),
        });
    }
    s
}

/// Other QPs on the QP's send context's piowait list, for the calls
/// that empty it (`sc_piobufavail`, `sc_disable`; `corpus::invariants`
/// says why only they): none half the time, mostly a few, now and then more than a
/// batch of `PIO_WAIT_BATCH_SIZE` (5).
pub fn pio_waiters<S: Source>(
    u: &mut Draw<S>,
    _: &World,
    func: Func,
    q: &Qp,
) -> Slots<PioWaiter, MAX_PIO_WAITERS> {
    let mut s = Slots::new();
    if !matches!(
        func,
        Func::ScPiobufavail | Func::ScDisable | Func::PioFreeze
    ) || q.s_sendcontext.is_none()
        || u.arbitrary()
    {
        return s;
    }
    let n = u.int_in_range(1..=MAX_PIO_WAITERS as u8);
    for i in 0..n {
        let _ = s.push(PioWaiter {
            num: q.num.wrapping_add(1 + u32::from(i)),
            s_flags: flags(u),
            priv_flags: flags(u),
            iowait_flags: flags(u),
            refcount: u.int_in_range(1..=3),
            priority: u.int_in_range(0..=3),
            starved_cnt: u.arbitrary(),
            after_qp: u.arbitrary(),
            on_list: u.ratio(7, 8),
        });
    }
    s
}

/// The online NUMA nodes: some of the possible ones (at least one).
pub fn online_nodes<S: Source>(u: &mut Draw<S>, w: &World) -> u8 {
    let all = w.possible_nodes_mask();
    if u.ratio(3, 4) {
        all
    } else {
        u.int_in_range(1..=all)
    }
}

/// The online nodes with CPUs: mostly all of them, now and then some.
pub fn cpu_nodes<S: Source>(u: &mut Draw<S>, w: &World) -> u8 {
    if u.ratio(3, 4) {
        w.online_nodes
    } else {
        w.online_nodes & u.arbitrary::<u8>()
    }
}

/// `dd->cr_base`: allocated for its free (now and then not), never
/// before its init (probe time: corpus::invariants).
pub fn cr_base<S: Source>(u: &mut Draw<S>, _: &World, func: Func, _: &Qp) -> bool {
    match func {
        Func::FreeCreditReturn => u.ratio(7, 8),
        // sc_alloc() reads its node's block unchecked (init_pervl_scs's
        // on the device's node).
        Func::ScAlloc | Func::InitPervlScs => true,
        _ => false,
    }
}

/// Which possible nodes' credit return blocks are allocated, with
/// `cr_base` (node 0's always for `sc_alloc`, which needs one; the
/// device's for `init_pervl_scs`).
pub fn cr_va<S: Source>(u: &mut Draw<S>, w: &World, func: Func, q: &Qp) -> u8 {
    if !q.cr_base {
        return 0;
    }
    let all = w.possible_nodes_mask();
    let v = if u.ratio(1, 2) {
        all
    } else {
        u.arbitrary::<u8>() & all
    };
    match func {
        Func::ScAlloc => v | 1,
        Func::InitPervlScs if (0..8).contains(&w.node) => v | (1 << w.node),
        _ => v,
    }
}
