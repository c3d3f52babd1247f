//! The rules of the tx request a caller builds (the QP's `btx_*` fields)
//! and of the calls that build it: drawn only for those calls (every
//! other function's vectors are drawn as before), near the edges that
//! matter: the request's own six descriptors, the last two of an
//! allocated array, the packet's last bytes.

use super::super::draw::{Draw, Source};
use crate::model::sdma_build::{built_desc, coalesce_copies, coalesce_room, DATA_BYTES};
use crate::model::types::args::{SdmaTxaddDaddr, SdmaTxaddKvaddr, SdmaTxaddPage, SdmaTxinitAhg};
use crate::model::types::*;

/// The calls that build a request.
fn builds(func: Func) -> bool {
    matches!(
        func,
        Func::SdmaTxinitAhg | Func::SdmaTxaddPage | Func::SdmaTxaddKvaddr | Func::SdmaTxaddDaddr
    )
}

/// The bits of the device's last-descriptor word: none half the time.
pub fn default_desc1<S: Source>(u: &mut Draw<S>, _: &World) -> u64 {
    if u.ratio(1, 2) {
        0
    } else {
        u.arbitrary::<u64>() & 0xffff
    }
}

/// The pad bytes' address: one page's, or any.
pub fn sdma_pad_phys<S: Source>(u: &mut Draw<S>, _: &World) -> u64 {
    if u.ratio(3, 4) {
        0x7000
    } else {
        u.arbitrary()
    }
}

/// No mapping fails three times in four; else one of the first three.
pub fn dma_map_fail<S: Source>(u: &mut Draw<S>, _: &World) -> u8 {
    if u.ratio(3, 4) {
        0
    } else {
        u.int_in_range(1..=3)
    }
}

/// Descriptors used: within its own six, at the end of an allocated
/// array (60 to 64), or anywhere, a third of the time each.
pub fn btx_num_desc<S: Source>(u: &mut Draw<S>, _: &World, func: Func, _: &Qp) -> u8 {
    if !builds(func) {
        return 0;
    }
    match u.int_in_range(0..=2u8) {
        0 => u.int_in_range(0..=6),
        1 => u.int_in_range(60..=64),
        _ => u.int_in_range(0..=64),
    }
}

/// The limit: its own array's (6) when the descriptors fit, one time in
/// four an allocated one; past six, 63 or 64 (64 only).
pub fn btx_desc_limit<S: Source>(u: &mut Draw<S>, _: &World, func: Func, q: &Qp) -> u8 {
    if !builds(func) {
        return 6;
    }
    match q.btx_num_desc {
        0..=6 if u.ratio(3, 4) => 6,
        64 => 64,
        _ => {
            if u.ratio(3, 4) {
                63
            } else {
                64
            }
        }
    }
}

/// The request's flags: none half the time, else any of the five low.
pub fn btx_flags<S: Source>(u: &mut Draw<S>, _: &World, func: Func, _: &Qp) -> u16 {
    if !builds(func) || u.ratio(1, 2) {
        0
    } else {
        u.int_in_range(0..=0x1f)
    }
}

/// A length: 0 one time in four, a short packet's half the time, else
/// up to `MAX_SDMA_PKT_SIZE`.
pub fn btx_len<S: Source>(u: &mut Draw<S>, _: &World, func: Func, _: &Qp) -> u16 {
    if !builds(func) || u.ratio(1, 4) {
        return 0;
    }
    if u.ratio(2, 3) {
        u.int_in_range(1..=256)
    } else {
        u.int_in_range(1..=16383)
    }
}

/// A coalesce buffer: half the time at the end of an allocated array,
/// one time in eight elsewhere.
pub fn btx_coalesce<S: Source>(u: &mut Draw<S>, _: &World, func: Func, q: &Qp) -> bool {
    builds(func) && !q.btx_descp_freed && u.ratio(if q.btx_num_desc >= 62 { 4 } else { 1 }, 8)
}

/// Bytes already coalesced: up to `tlen` (the world's buffer holds
/// `tlen + 4`).
pub fn btx_coalesce_idx<S: Source>(u: &mut Draw<S>, _: &World, _: Func, q: &Qp) -> u16 {
    if !q.btx_coalesce || q.btx_tlen == 0 {
        0
    } else {
        u.int_in_range(0..=q.btx_tlen)
    }
}

/// The descriptors' mapping types: any.
pub fn btx_map<S: Source>(u: &mut Draw<S>, _: &World, func: Func, _: &Qp) -> u16 {
    if builds(func) {
        u.arbitrary()
    } else {
        0
    }
}

/// The first descriptor's header mode: none half the time.
pub fn btx_mode<S: Source>(u: &mut Draw<S>, _: &World, func: Func, _: &Qp) -> u8 {
    if !builds(func) || u.ratio(1, 2) {
        0
    } else {
        u.int_in_range(0..=7)
    }
}

/// Pinning contexts on a quarter of its descriptors, one time in four.
pub fn btx_pinned<S: Source>(u: &mut Draw<S>, _: &World, func: Func, q: &Qp) -> u64 {
    if !builds(func) || u.ratio(3, 4) {
        return 0;
    }
    let mut bits = 0u64;
    for i in 0..u32::from(q.btx_num_desc).min(64) {
        bits |= u64::from(u.ratio(1, 4)) << i;
    }
    bits
}

/// Descriptors unlike the world's (a call before wrote them): none three
/// times in four, else one or two, with any words.
pub fn btx_descs<S: Source>(
    u: &mut Draw<S>,
    _: &World,
    func: Func,
    q: &Qp,
) -> Slots<DescqEntry, MAX_BTX_DESCS> {
    let mut s = Slots::new();
    if !builds(func) || q.btx_descp_freed || u.ratio(3, 4) {
        return s;
    }
    let n = q.btx_num_desc.max(1);
    let mut idx = u.int_in_range(0..=n - 1);
    for _ in 0..u.int_in_range(1..=2u8) {
        let (qw0, qw1) = (u.arbitrary(), u.arbitrary());
        if idx < n && [qw0, qw1] != built_desc(q, usize::from(idx)) {
            let _ = s.push(DescqEntry { idx, qw0, qw1 });
        }
        idx = idx.saturating_add(u.int_in_range(1..=8));
    }
    s
}

/// A length to init with: 0 or past `MAX_SDMA_PKT_SIZE` one time in
/// eight each, else mostly a short packet.
pub fn init_tlen<S: Source>(u: &mut Draw<S>, _: &World, _: &Qp, _: &SdmaTxinitAhg) -> u16 {
    match u.int_in_range(0..=7u8) {
        0 => 0,
        1 => u.int_in_range(16384..=u16::MAX),
        2 => u.int_in_range(1..=16383),
        _ => u.int_in_range(1..=300),
    }
}

/// Flags to init with: none, the AHG copy, the AHG updates, or any.
pub fn init_flags<S: Source>(u: &mut Draw<S>, _: &World, _: &Qp, _: &SdmaTxinitAhg) -> u16 {
    match u.int_in_range(0..=3u8) {
        0 => 0,
        1 => 0x2,
        2 => 0x4,
        _ => u.int_in_range(0..=0x1f),
    }
}

/// The AHG header length: a dword multiple (not 4) three times in four.
pub fn ahg_hlen<S: Source>(u: &mut Draw<S>, _: &World, _: &Qp, _: &SdmaTxinitAhg) -> u8 {
    if u.ratio(3, 4) {
        [0, 8, 12, 16, 32, 60][usize::from(u.int_in_range(0..=5u8))]
    } else {
        u.arbitrary()
    }
}

/// An offset in a page.
pub fn page_offset<S: Source>(u: &mut Draw<S>, _: &World, _: &Qp, _: &SdmaTxaddPage) -> u16 {
    if u.ratio(1, 2) {
        0
    } else {
        u.int_in_range(0..=4095)
    }
}

/// NULL one time in sixteen.
pub fn btx_null<S: Source>(u: &mut Draw<S>, _: &World, _: &Qp, _: &SdmaTxaddKvaddr) -> bool {
    u.ratio(1, 16)
}

/// A byte of the world's data.
pub fn kvaddr_at<S: Source>(u: &mut Draw<S>, _: &World, _: &Qp, _: &SdmaTxaddKvaddr) -> u16 {
    u.int_in_range(0..=(DATA_BYTES - 1) as u16)
}

/// Where an add's bytes may run to: the end of its page, or of the data.
pub trait AddArgs {
    /// Bytes from the add's start to that end.
    fn room(&self) -> u16;
}

impl AddArgs for SdmaTxaddPage {
    fn room(&self) -> u16 {
        4096 - self.offset.min(4096)
    }
}

impl AddArgs for SdmaTxaddKvaddr {
    fn room(&self) -> u16 {
        if self.null {
            u16::MAX
        } else {
            (DATA_BYTES as u16).saturating_sub(self.at)
        }
    }
}

impl AddArgs for SdmaTxaddDaddr {
    fn room(&self) -> u16 {
        u16::MAX
    }
}

/// An add's length: the bytes the request lacks (completing the packet)
/// a third of the time, a few bytes, or any; within the room it has, and
/// what a full request's coalesce buffer has left.
pub fn add_len<S: Source, R: AddArgs>(u: &mut Draw<S>, _: &World, q: &Qp, a: &R) -> u16 {
    let mut room = a.room();
    if coalesce_copies(q) {
        room = room.min(coalesce_room(q).min(u32::from(u16::MAX)) as u16);
    }
    let len = match u.int_in_range(0..=2u8) {
        0 => q.btx_tlen,
        1 => u.int_in_range(0..=64),
        _ => u.arbitrary(),
    };
    len.min(room)
}

/// An array `__sdma_txclean()` freed, for init only (nothing is added
/// to one), one time in eight, as the clean leaves it.
pub fn btx_freed<S: Source>(u: &mut Draw<S>, _: &World, func: Func, q: &Qp) -> bool {
    func == Func::SdmaTxinitAhg && q.btx_num_desc == 0 && q.btx_desc_limit == 6 && u.ratio(1, 8)
}

/// The buffer's size: what upstream allocates (`tlen + 4`) three times
/// in four, else up to 64 bytes more.
pub fn btx_coal_size<S: Source>(u: &mut Draw<S>, _: &World, _: Func, q: &Qp) -> u32 {
    if !q.btx_coalesce {
        return 0;
    }
    let base = u32::from(q.btx_tlen) + 4;
    if u.ratio(3, 4) {
        base
    } else {
        base + u32::from(u.int_in_range(0..=64u8))
    }
}

/// The buffer's digest: any, one time in two.
pub fn btx_coal_sum<S: Source>(u: &mut Draw<S>, _: &World, _: Func, q: &Qp) -> u32 {
    if q.btx_coalesce && u.ratio(1, 2) {
        u.arbitrary()
    } else {
        0
    }
}
