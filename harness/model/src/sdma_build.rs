//! A tx request's descriptors built: sdma.h's `sdma_txinit_ahg()` and
//! `sdma_txadd_page/kvaddr/daddr()` with what they reach in sdma.c (the
//! AHG update descriptors, the descriptor array extended, the bytes past
//! the last descriptor coalesced into one buffer, the padding), on the
//! world's request (the QP's `btx_*` fields).
//!
//! The world's conventions, shared with `c-shim/txbuild.c`: the request's
//! descriptors as built ([`built_desc`]), four pages of data whose bytes
//! are [`data_byte`], DMA addresses by where the mapped bytes are
//! ([`DATA_DMA`], [`OTHER_DMA`]), the AHG values ([`ahg_values`]) and the
//! coalesce buffer's digest ([`coalesce_digest`]).

use super::alloc::{Allocs, ENOMEM, NUMA_NO_NODE};
use super::qp::EINVAL;
use super::sdma_tx::{GENERATION_MASK, GENERATION_SHIFT, SDMA_AHG_APPLY_UPDATE1};
use super::types::args::{SdmaTxaddDaddr, SdmaTxaddKvaddr, SdmaTxaddPage, SdmaTxinitAhg};
use super::types::{DescqEntry, Qp, Slots, World};
use super::{Journal, Undefined};

/// `MAX_DESC` (sdma.h): the descriptors an extended request holds.
pub const MAX_DESC: u16 = 64;
/// `NUM_DESC` (sdma_txreq.h): those it holds in itself.
const NUM_DESC: u16 = 6;
/// `MAX_SDMA_PKT_SIZE` (sdma.h).
const MAX_SDMA_PKT_SIZE: u16 = 16 * 1024 - 1;

/// `-ENODATA`, `-EMSGSIZE`, `-ENOSPC` (errno values).
const ENODATA: i32 = 61;
const EMSGSIZE: i32 = 90;
const ENOSPC: i32 = 28;

/// `SDMA_TXREQ_F_*` (sdma_txreq.h).
const F_URGENT: u16 = 0x1;
const F_AHG_COPY: u16 = 0x2;
const F_USE_AHG: u16 = 0x4;

/// `SDMA_AHG_*` header modes (sdma.h).
const SDMA_AHG_COPY: u8 = 1;
const SDMA_AHG_APPLY_UPDATE2: u8 = 3;
const SDMA_AHG_APPLY_UPDATE3: u8 = 4;

/// `SDMA_MAP_*` (sdma.h).
const SDMA_MAP_NONE: u8 = 0;
const SDMA_MAP_SINGLE: u8 = 1;
const SDMA_MAP_PAGE: u8 = 2;

/// The descriptor words' fields (sdma.h's `SDMA_DESC0_*`, `SDMA_DESC1_*`).
pub(crate) const DESC0_FIRST: u64 = 1 << 63;
pub(crate) const DESC0_LAST: u64 = 1 << 62;
pub(crate) const DESC0_ADDR_MASK: u64 = (1 << 48) - 1;
pub(crate) const DESC0_COUNT_SHIFT: u32 = 48;
pub(crate) const DESC0_COUNT_MASK: u64 = (1 << 14) - 1;
const DESC1_UPDATE1_SHIFT: u32 = 32;
pub(crate) const DESC1_MODE_SHIFT: u32 = 13;
pub(crate) const DESC1_INDEX_SHIFT: u32 = 8;
const DESC1_DWS_SHIFT: u32 = 4;
pub(crate) const DESC1_INT_REQ: u64 = 1 << 1;
pub(crate) const DESC1_HEAD_TO_HOST: u64 = 1 << 0;

/// The world's data: four pages in a row.
pub const DATA_BYTES: usize = 4 * 4096;
/// The DMA address of byte `at` of the world's data is `DATA_DMA + at`.
pub const DATA_DMA: u64 = 0x10_0000;
/// The DMA address of anything else mapped (the coalesce buffer, NULL).
pub const OTHER_DMA: u64 = 0xf00_0000;

/// Byte `at` of the world's data (the top byte of Knuth's multiplicative
/// hash of its place).
pub fn data_byte(at: usize) -> u8 {
    ((at as u32).wrapping_mul(2_654_435_761) >> 24) as u8
}

/// The multiplier of [`coalesce_digest`].
const DIGEST_P: u32 = 16_777_619;

/// The coalesce buffer's digest: the sum of `byte[k] * P^k` (mod 2^32)
/// over the block. Bytes written past the data (a pad, a copy) change it
/// wherever they land; a zeroed buffer's is 0.
pub fn coalesce_digest(bytes: impl IntoIterator<Item = (usize, u8)>) -> u32 {
    bytes.into_iter().fold(0u32, |h, (k, b)| {
        h.wrapping_add(u32::from(b).wrapping_mul(pow_p(k)))
    })
}

/// `DIGEST_P^k` (mod 2^32).
fn pow_p(mut k: usize) -> u32 {
    let (mut r, mut b) = (1u32, DIGEST_P);
    while k != 0 {
        if k & 1 != 0 {
            r = r.wrapping_mul(b);
        }
        b = b.wrapping_mul(b);
        k >>= 1;
    }
    r
}

/// The `ahg[]` array a call passes for `seed`: value i is the seed
/// rotated left by 4i bits, xor i (sixteen of them).
pub fn ahg_values(seed: u32) -> [u32; 16] {
    std::array::from_fn(|i| seed.rotate_left(4 * i as u32) ^ i as u32)
}

/// Descriptor `i` of the world's request as the world builds it (every
/// slot of its array): `qw[0]` a symbolic address `0x800000 + i * 4096`
/// and byte count `64 * (i + 1)`, `qw[1]` the mapping type (bits 2(i mod
/// 8) of `btx_map`) in the generation bits and, for the first, the header
/// mode `btx_mode`.
pub fn built_desc(qp: &Qp, i: usize) -> [u64; 2] {
    let addr = 0x80_0000 + ((i as u64) << 12);
    let len = (64 * (i as u64 + 1)) & DESC0_COUNT_MASK;
    let map = u64::from(qp.btx_map >> (2 * (i % 8))) & GENERATION_MASK;
    let mode = if i == 0 {
        u64::from(qp.btx_mode & 7) << DESC1_MODE_SHIFT
    } else {
        0
    };
    [
        addr | len << DESC0_COUNT_SHIFT,
        map << GENERATION_SHIFT | mode,
    ]
}

/// An add to this request copies its bytes into the coalesce buffer:
/// every descriptor used but not all 64, and a buffer there or about to be
/// allocated (the 63rd used with bytes left).
pub fn coalesce_copies(q: &Qp) -> bool {
    let n = u16::from(q.btx_num_desc);
    n == u16::from(q.btx_desc_limit)
        && n < MAX_DESC
        && (q.btx_coalesce || (n == MAX_DESC - 1 && q.btx_tlen != 0))
}

/// The bytes a full request's coalesce buffer has left: from
/// `coalesce_idx` to its size, or, none allocated yet, the `tlen + 4`
/// of the one `_extend_sdma_tx_descs()` allocates.
pub fn coalesce_room(q: &Qp) -> u32 {
    if q.btx_coalesce {
        q.btx_coal_size
            .saturating_sub(u32::from(q.btx_coalesce_idx))
    } else {
        u32::from(q.btx_tlen) + 4
    }
}

/// The request as the model works on it.
#[derive(Clone)]
struct Tx {
    /// `tx->descs` and the pinning contexts its slots hold (bit i).
    own: [[u64; 2]; NUM_DESC as usize],
    own_pin: u64,
    /// The allocated `descp` (when `ext`) and its slots' pinning contexts.
    arr: Box<[[u64; 2]; MAX_DESC as usize]>,
    arr_pin: u64,
    /// `descp` is the allocated array (else `descs`, or freed).
    ext: bool,
    freed: bool,
    num_desc: u16,
    desc_limit: u16,
    flags: u16,
    tlen: u16,
    packet_len: u16,
    coalesce: bool,
    coalesce_idx: u16,
    sum: u32,
    size: u32,
}

impl Tx {
    /// The world's request as the QP's fields describe it.
    fn of(qp: &Qp) -> Tx {
        let ext = qp.btx_desc_limit > NUM_DESC as u8;
        let mut tx = Tx {
            own: std::array::from_fn(|i| built_desc(qp, i)),
            own_pin: 0,
            arr: Box::new(std::array::from_fn(|i| built_desc(qp, i))),
            arr_pin: 0,
            ext,
            freed: qp.btx_descp_freed,
            num_desc: u16::from(qp.btx_num_desc),
            desc_limit: u16::from(qp.btx_desc_limit),
            flags: qp.btx_flags,
            tlen: qp.btx_tlen,
            packet_len: qp.btx_packet_len,
            coalesce: qp.btx_coalesce,
            coalesce_idx: qp.btx_coalesce_idx,
            sum: qp.btx_coal_sum,
            size: qp.btx_coal_size,
        };
        for e in qp.btx_descs.iter() {
            if let Some(d) = tx.descp().get_mut(usize::from(e.idx)) {
                *d = [e.qw0, e.qw1];
            }
        }
        *tx.pins() = qp.btx_pinned;
        if ext {
            tx.own_pin = qp.btx_pinned & 0x3f;
        }
        tx
    }

    /// The request back in the QP's fields (as `c-shim/txbuild.c` reads
    /// it back).
    fn store(mut self, qp: &mut Qp) {
        let mut descs = Slots::new();
        let mut stray = 0u8;
        let mut pinned = 0;
        if !self.freed {
            let n = usize::from(self.num_desc.max(1)).min(self.descp().len());
            for i in 0..n {
                let d = self.descp()[i];
                if d == built_desc(qp, i) {
                    continue;
                }
                let e = DescqEntry {
                    idx: i as u8,
                    qw0: d[0],
                    qw1: d[1],
                };
                if descs.push(e).is_err() {
                    stray = stray.saturating_add(1);
                }
            }
            let live = usize::from(self.num_desc).min(self.descp().len());
            pinned = *self.pins() & low_bits(live);
        }
        qp.btx_num_desc = self.num_desc as u8;
        qp.btx_desc_limit = self.desc_limit as u8;
        qp.btx_flags = self.flags;
        qp.btx_tlen = self.tlen;
        qp.btx_packet_len = self.packet_len;
        qp.btx_descp_freed = self.freed;
        qp.btx_coalesce = self.coalesce;
        qp.btx_coalesce_idx = self.coalesce_idx;
        qp.btx_coal_sum = if self.coalesce { self.sum } else { 0 };
        qp.btx_coal_size = if self.coalesce { self.size } else { 0 };
        qp.btx_pinned = pinned;
        qp.btx_descs = descs;
        qp.btx_desc_stray = stray;
    }

    /// `tx->descp`: the array in use.
    fn descp(&mut self) -> &mut [[u64; 2]] {
        if self.ext {
            &mut self.arr[..]
        } else {
            &mut self.own[..]
        }
    }

    /// The pinning contexts of the array in use.
    fn pins(&mut self) -> &mut u64 {
        if self.ext {
            &mut self.arr_pin
        } else {
            &mut self.own_pin
        }
    }
}

/// Bits 0..n set.
fn low_bits(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// The DMA mappings of one call, the n-th failing where the world says
/// (`dma_map_fail`), each journalled as the C world's mock does.
struct Maps<'a> {
    w: &'a World,
    n: u8,
}

impl Maps<'_> {
    /// One mapping: `what` names it, `addr` is its address unless it fails.
    fn map(&mut self, what: String, addr: u64, j: &mut Journal) -> Option<u64> {
        self.n = self.n.wrapping_add(1);
        let fail = self.w.dma_map_fail != 0 && self.w.dma_map_fail == self.n;
        let to = if fail {
            "DMA_MAPPING_ERROR".to_string()
        } else {
            format!("0x{addr:x}")
        };
        j.record(format!("{what} = {to}"));
        (!fail).then_some(addr)
    }
}

/// What one call works with.
struct Build<'a> {
    w: &'a World,
    tx: Tx,
    allocs: Allocs<'a>,
    maps: Maps<'a>,
}

/// Mirrors the static inline `sdma_unmap_desc()` (sdma.c) on slot `i` of
/// the array in use: a single or page mapping undone (both
/// `dma_unmap_page` under the DMA API), a pinning context released
/// through its `ctx_put` (the world's records it) and forgotten.
fn sdma_unmap_desc(tx: &mut Tx, i: usize, j: &mut Journal) {
    let d = tx.descp()[i];
    let map = ((d[1] >> GENERATION_SHIFT) & GENERATION_MASK) as u8;
    if matches!(map, SDMA_MAP_SINGLE | SDMA_MAP_PAGE) {
        let (addr, len) = (
            d[0] & DESC0_ADDR_MASK,
            (d[0] >> DESC0_COUNT_SHIFT) & DESC0_COUNT_MASK,
        );
        j.record(format!("dma_unmap_page(0x{addr:x}, {len})"));
    }
    let pins = tx.pins();
    if *pins & 1 << i != 0 {
        *pins &= !(1 << i);
        j.record(format!("ctx_put(pin#{i})"));
    }
}

/// Mirrors `__sdma_txclean()` (sdma.c) on the world's request: with
/// descriptors, the first unmapped, the AHG update descriptors after it
/// skipped (`mode >> 1` of them for a mode above
/// `SDMA_AHG_APPLY_UPDATE1`), the rest unmapped, none left; the coalesce
/// buffer freed; an allocated array freed and the limit back to
/// `NUM_DESC`, `descp` left pointing at it.
fn sdma_txclean(tx: &mut Tx, j: &mut Journal) {
    if tx.num_desc != 0 {
        let mode = ((tx.descp()[0][1] >> DESC1_MODE_SHIFT) & 7) as u8;
        sdma_unmap_desc(tx, 0, j);
        let skip = if mode > SDMA_AHG_APPLY_UPDATE1 {
            mode >> 1
        } else {
            0
        };
        let n = usize::from(tx.num_desc).min(tx.descp().len());
        for i in (1 + usize::from(skip))..n {
            sdma_unmap_desc(tx, i, j);
        }
        tx.num_desc = 0;
    }
    if tx.coalesce {
        j.record("kfree".into());
        tx.coalesce = false;
        tx.sum = 0;
        tx.size = 0;
    }
    if tx.desc_limit > NUM_DESC {
        tx.desc_limit = NUM_DESC;
        j.record("kfree".into());
        tx.ext = false;
        tx.freed = true;
    }
}

/// Mirrors `_sdma_txreq_ahgadd()` (sdma.c): the header mode from the
/// number of updates, up to two more descriptors taken (zeroed), the
/// first descriptor given the AHG entry, header length, mode and first
/// update, the other updates packed two to a word from the second
/// descriptor on.
fn sdma_txreq_ahgadd(tx: &mut Tx, a: &SdmaTxinitAhg, j: &mut Journal) {
    let (num_ahg, hlen) = (a.num_ahg, a.ahg_hlen);
    if num_ahg > 9 || hlen & 3 != 0 || hlen == 4 {
        j.record("WARN(num_ahg > 9 || (ahg_hlen & 3) || ahg_hlen == 4)".into());
    }
    let ahg = ahg_values(a.ahg_seed);
    let mode = match num_ahg {
        1 => SDMA_AHG_APPLY_UPDATE1,
        2..=5 => SDMA_AHG_APPLY_UPDATE2,
        _ => SDMA_AHG_APPLY_UPDATE3,
    };
    tx.num_desc += 1;
    if mode == SDMA_AHG_APPLY_UPDATE3 {
        tx.num_desc += 1;
        tx.own[2] = [0, 0];
    }
    if mode >= SDMA_AHG_APPLY_UPDATE2 {
        tx.num_desc += 1;
        tx.own[1] = [0, 0];
    }
    let hlen = u64::from(hlen >> 2);
    tx.own[0][1] |= (u64::from(a.ahg_entry) & 0x1f) << DESC1_INDEX_SHIFT
        | (hlen & 0xf) << DESC1_DWS_SHIFT
        | (u64::from(mode) & 7) << DESC1_MODE_SHIFT
        | u64::from(ahg[0]) << DESC1_UPDATE1_SHIFT;
    let (mut shift, mut desc) = (0u32, 0usize);
    for i in 0..usize::from(num_ahg) - 1 {
        if shift == 0 && i & 2 == 0 {
            desc += 1;
        }
        tx.own[desc][usize::from(i & 2 != 0)] |= u64::from(ahg[i + 1]) << shift;
        shift = (shift + 32) & 63;
    }
}

/// Mirrors the static inline `sdma_txinit_ahg()` (sdma.h): a length of 0
/// or past `MAX_SDMA_PKT_SIZE` refused; else the request reset to its own
/// descriptors, none used, its lengths `tlen`, its first descriptor
/// marked first, and the AHG header copied (`SDMA_TXREQ_F_AHG_COPY`: its
/// entry in copy mode) or its updates added (`SDMA_TXREQ_F_USE_AHG`).
fn sdma_txinit_ahg(tx: &mut Tx, a: &SdmaTxinitAhg, j: &mut Journal) -> i32 {
    if a.tlen == 0 {
        return -ENODATA;
    }
    if a.tlen > MAX_SDMA_PKT_SIZE {
        return -EMSGSIZE;
    }
    tx.desc_limit = NUM_DESC;
    tx.ext = false;
    tx.freed = false;
    tx.num_desc = 0;
    tx.flags = a.flags;
    tx.coalesce = false;
    tx.sum = 0;
    tx.packet_len = a.tlen;
    tx.tlen = a.tlen;
    tx.own[0] = [DESC0_FIRST, 0];
    if a.flags & F_AHG_COPY != 0 {
        tx.own[0][1] |= (u64::from(a.ahg_entry) & 0x1f) << DESC1_INDEX_SHIFT
            | u64::from(SDMA_AHG_COPY) << DESC1_MODE_SHIFT;
    } else if a.flags & F_USE_AHG != 0 && a.num_ahg != 0 {
        sdma_txreq_ahgadd(tx, a, j);
    }
    0
}

/// Mirrors the static inline `make_tx_sdma_desc()` (sdma.h): the slot
/// `num_desc` given the mapping type, address and length (the first ORed
/// into what init left), and the pinning context, taken (`ctx_get`).
fn make_tx_sdma_desc(tx: &mut Tx, map: u8, addr: u64, len: u64, pin: bool, j: &mut Journal) {
    let k = usize::from(tx.num_desc);
    let gen = (u64::from(map) & GENERATION_MASK) << GENERATION_SHIFT;
    let d = &mut tx.descp()[k];
    if k == 0 {
        d[1] |= gen;
    } else {
        *d = [0, gen];
    }
    d[0] |= (addr & DESC0_ADDR_MASK) | (len & DESC0_COUNT_MASK) << DESC0_COUNT_SHIFT;
    let pins = tx.pins();
    *pins = *pins & !(1 << k) | u64::from(pin) << k;
    if pin {
        j.record(format!("ctx_get(pin#{k})"));
    }
}

/// Mirrors the static inline `_sdma_close_tx()` (sdma.h): the last
/// descriptor marked last and given the device's `default_desc1`, and an
/// urgent request's the head-to-host and interrupt flags.
fn sdma_close_tx(w: &World, tx: &mut Tx) {
    let (last, urgent) = (usize::from(tx.num_desc - 1), tx.flags & F_URGENT != 0);
    let d = &mut tx.descp()[last];
    d[0] |= DESC0_LAST;
    d[1] |= w.default_desc1;
    if urgent {
        d[1] |= DESC1_HEAD_TO_HOST | DESC1_INT_REQ;
    }
}

impl Build<'_> {
    /// Mirrors the static inline `_sdma_txadd_daddr()` (sdma.h): the
    /// descriptor made, `len` taken from the bytes left (a warning if it
    /// is more), and the request padded or closed when none are left.
    fn txadd_daddr(&mut self, map: u8, addr: u64, len: u16, pin: bool, j: &mut Journal) -> i32 {
        make_tx_sdma_desc(&mut self.tx, map, addr, u64::from(len), pin, j);
        if len > self.tx.tlen {
            j.record("WARN(len > tx->tlen)".into());
        }
        self.tx.num_desc += 1;
        self.tx.tlen = self.tx.tlen.wrapping_sub(len);
        if self.tx.tlen == 0 {
            if self.tx.packet_len & 3 != 0 {
                return self.pad_sdma_tx_descs(j);
            }
            sdma_close_tx(self.w, &mut self.tx);
        }
        0
    }

    /// Mirrors `_pad_sdma_tx_descs()` (sdma.c): with no slot left the
    /// array extended (on failure the request cleaned), then a descriptor
    /// of the pad bytes (`dd->sdma_pad_phys`, up to a dword) and the
    /// request closed.
    fn pad_sdma_tx_descs(&mut self, j: &mut Journal) -> i32 {
        if self.tx.num_desc == self.tx.desc_limit {
            let rval = self.extend_sdma_tx_descs(j);
            if rval != 0 {
                sdma_txclean(&mut self.tx, j);
                return rval;
            }
        }
        let pad = 4 - u64::from(self.tx.packet_len & 3);
        make_tx_sdma_desc(
            &mut self.tx,
            SDMA_MAP_NONE,
            self.w.sdma_pad_phys,
            pad,
            false,
            j,
        );
        self.tx.num_desc += 1;
        sdma_close_tx(self.w, &mut self.tx);
        0
    }

    /// Mirrors the static `_extend_sdma_tx_descs()` (sdma.c): at the
    /// next-to-last of `MAX_DESC`, the last slot released (nothing left to
    /// add: padding) or a coalesce buffer of `tlen + 4` bytes allocated;
    /// at the last, -ENOMEM; else an array of `MAX_DESC` allocated, the
    /// request's own descriptors copied in, the limit one short of it. A
    /// failure cleans the request.
    fn extend_sdma_tx_descs(&mut self, j: &mut Journal) -> i32 {
        let tx = &mut self.tx;
        if tx.num_desc == MAX_DESC - 1 {
            if tx.tlen == 0 {
                tx.desc_limit = MAX_DESC;
            } else if !tx.coalesce {
                if !self.allocs.kmalloc(NUMA_NO_NODE, j) {
                    sdma_txclean(tx, j);
                    return -ENOMEM;
                }
                tx.coalesce = true;
                tx.sum = 0;
                tx.size = u32::from(tx.tlen) + 4;
                tx.coalesce_idx = 0;
            }
            return 0;
        }
        if tx.num_desc == MAX_DESC || !self.allocs.kmalloc(NUMA_NO_NODE, j) {
            sdma_txclean(tx, j);
            return -ENOMEM;
        }
        let n = usize::from(tx.num_desc);
        *tx.arr = [[0; 2]; MAX_DESC as usize];
        tx.arr[..n].copy_from_slice(&tx.own[..n]);
        tx.arr_pin = tx.own_pin & low_bits(n);
        tx.ext = true;
        tx.freed = false;
        tx.desc_limit = MAX_DESC - 1;
        0
    }
}

/// What an add's bytes are: a world page and offset, a kernel address
/// in the world's data (or NULL), or nothing (an address the caller
/// mapped).
#[derive(Clone, Copy)]
enum Src {
    Page(u8, u16),
    Kvaddr(Option<u16>),
    Daddr(u64),
}

impl Build<'_> {
    /// Mirrors `ext_coal_sdma_tx_descs()` (sdma.c): the array extended
    /// (on failure the request cleaned); with a coalesce buffer, the bytes
    /// copied into it (none to copy, or a NULL address: -EINVAL, the
    /// request cleaned), and once the whole packet is in, padded to a
    /// dword, mapped (-ENOSPC on failure) and added as the last
    /// descriptor; else 1: go on adding a descriptor.
    fn ext_coal_sdma_tx_descs(
        &mut self,
        src: Src,
        len: u16,
        j: &mut Journal,
    ) -> Result<i32, Undefined> {
        let rval = self.extend_sdma_tx_descs(j);
        if rval != 0 {
            sdma_txclean(&mut self.tx, j);
            return Ok(rval);
        }
        if !self.tx.coalesce {
            return Ok(1);
        }
        let at = match src {
            Src::Daddr(_) => {
                sdma_txclean(&mut self.tx, j);
                return Ok(-EINVAL);
            }
            Src::Page(page, offset) => usize::from(page) * 4096 + usize::from(offset),
            Src::Kvaddr(None) => {
                j.record("WARN(!kvaddr)".into());
                sdma_txclean(&mut self.tx, j);
                return Ok(-EINVAL);
            }
            Src::Kvaddr(Some(at)) => usize::from(at),
        };
        let tx = &mut self.tx;
        let idx = usize::from(tx.coalesce_idx);
        if at + usize::from(len) > DATA_BYTES || idx + usize::from(len) > tx.size as usize {
            return Err(Undefined(format!(
                "ext_coal_sdma_tx_descs() copies {len} bytes to byte {idx} of a coalesce \
                 buffer of {} bytes, from byte {at} of the world's {DATA_BYTES}",
                tx.size
            )));
        }
        let copied = (0..usize::from(len)).map(|m| (idx + m, data_byte(at + m)));
        tx.sum = tx.sum.wrapping_add(coalesce_digest(copied));
        tx.coalesce_idx = tx.coalesce_idx.wrapping_add(len);
        if tx.tlen != tx.coalesce_idx {
            return Ok(0);
        }
        // The pad bytes are zeroed over a zeroed buffer: the digest stays.
        let pad = tx.packet_len & 3;
        if pad != 0 && u32::from(tx.coalesce_idx) + u32::from(4 - pad) > tx.size {
            return Err(Undefined(format!(
                "ext_coal_sdma_tx_descs() pads past the {} bytes of the coalesce buffer",
                tx.size
            )));
        }
        if pad != 0 {
            tx.packet_len = tx.packet_len.wrapping_add(4 - pad);
            tx.tlen = tx.tlen.wrapping_add(4 - pad);
        }
        let tlen = tx.tlen;
        let what = format!("dma_map_single(btx.coalesce_buf, {tlen})");
        let Some(addr) = self.maps.map(what, OTHER_DMA, j) else {
            sdma_txclean(&mut self.tx, j);
            return Ok(-ENOSPC);
        };
        self.tx.desc_limit = MAX_DESC;
        Ok(self.txadd_daddr(SDMA_MAP_SINGLE, addr, tlen, false, j))
    }

    /// Mirrors the static inlines `sdma_txadd_page()`,
    /// `sdma_txadd_kvaddr()` and `sdma_txadd_daddr()` (sdma.h): with no
    /// slot left, the array extended or the bytes coalesced (a result of
    /// 0 or less returned); else the bytes mapped (a failed mapping
    /// cleans the request: -ENOSPC) and added as a descriptor.
    fn txadd(&mut self, src: Src, len: u16, pin: bool, j: &mut Journal) -> Result<i32, Undefined> {
        if self.tx.freed {
            return Err(Undefined(
                "a descriptor added to a request __sdma_txclean() freed the array of \
                 (only sdma_txinit_ahg() makes it usable again)"
                    .into(),
            ));
        }
        if self.tx.num_desc > self.tx.desc_limit {
            return Err(Undefined("num_desc past desc_limit".into()));
        }
        if self.tx.num_desc == self.tx.desc_limit {
            let coal_len = if matches!(src, Src::Daddr(_)) { 0 } else { len };
            let rval = self.ext_coal_sdma_tx_descs(src, coal_len, j)?;
            if rval <= 0 {
                return Ok(rval);
            }
        }
        let (map, what, addr) = match src {
            Src::Daddr(addr) => (SDMA_MAP_NONE, None, addr),
            Src::Page(p, o) => (
                SDMA_MAP_PAGE,
                Some(format!("dma_map_page(page#{p}, {o}, {len})")),
                DATA_DMA + u64::from(p) * 4096 + u64::from(o),
            ),
            Src::Kvaddr(Some(at)) => (
                SDMA_MAP_SINGLE,
                Some(format!("dma_map_single(data+{at}, {len})")),
                DATA_DMA + u64::from(at),
            ),
            Src::Kvaddr(None) => (
                SDMA_MAP_SINGLE,
                Some(format!("dma_map_single((null), {len})")),
                OTHER_DMA,
            ),
        };
        let addr = match what {
            None => addr,
            Some(what) => match self.maps.map(what, addr, j) {
                Some(a) => a,
                None => {
                    sdma_txclean(&mut self.tx, j);
                    return Ok(-ENOSPC);
                }
            },
        };
        Ok(self.txadd_daddr(map, addr, len, pin, j))
    }
}

/// Runs `f` on the world's request, then stores it back in the QP.
fn with_build(
    cx: &mut crate::Cx<'_>,
    f: impl FnOnce(&mut Build<'_>, &mut Journal) -> Result<i32, Undefined>,
) -> Result<(), Undefined> {
    if cx.qp.btx_desc_stray != 0 {
        return Err(Undefined(
            "the request's descriptors past the eighth that differ are only counted \
             (btx_desc_stray): the model cannot rebuild them"
                .into(),
        ));
    }
    let mut b = Build {
        w: cx.w,
        tx: Tx::of(&cx.qp),
        allocs: Allocs::new(cx.w),
        maps: Maps { w: cx.w, n: 0 },
    };
    cx.out.ret = f(&mut b, &mut cx.j)?;
    b.tx.store(cx.qp.to_mut());
    Ok(())
}

impl crate::Mirror for SdmaTxinitAhg {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let qp = *cx.qp;
        with_build(cx, |b, j| {
            // Given fresh: what it held released, no descriptor, its own
            // six as the world builds them, unpinned.
            let tx = &mut b.tx;
            (tx.ext, tx.freed, tx.desc_limit, tx.num_desc) = (false, false, NUM_DESC, 0);
            (tx.coalesce, tx.sum, tx.size) = (false, 0, 0);
            tx.own = std::array::from_fn(|i| built_desc(&qp, i));
            tx.own_pin = 0;
            Ok(sdma_txinit_ahg(tx, self, j))
        })
    }
}

impl crate::Mirror for SdmaTxaddPage {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        with_build(cx, |b, j| {
            b.txadd(Src::Page(self.page, self.offset), self.len, self.pinned, j)
        })
    }
}

impl crate::Mirror for SdmaTxaddKvaddr {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let at = (!self.null).then_some(self.at);
        with_build(cx, |b, j| b.txadd(Src::Kvaddr(at), self.len, false, j))
    }
}

impl crate::Mirror for SdmaTxaddDaddr {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        with_build(cx, |b, j| {
            b.txadd(Src::Daddr(self.addr), self.len, false, j)
        })
    }
}
