//! Generated vectors: worlds and calls drawn by `arbitrary` from bytes.
//!
//! The bytes come either from a seed (`cargo xtask conformance --random N
//! --seed S`: vector `i` of function `f` is drawn from a stream seeded by
//! `(S, f, i)`, so any vector can be regenerated alone) or from a fuzzer.
//! Values are drawn inside the ranges the driver's invariants allow, with
//! a bias toward each function's boundaries, and every call is then checked
//! by [`crate::corpus::invariants::validate`] — the one place the invariants are
//! written down — so a generated vector obeys exactly what a hand-written
//! one must.

pub mod draw;

use crate::generate::draw::{Draw, Source, Stream};

use crate::corpus::invariants::{validate_call, validate_world};
use crate::model::types::*;

/// SplitMix64: a small, well-mixed generator, for seeds (a vector's, a
/// world's) drawn from a run's.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// wyrand (Wang Yi's, as in Go's runtime and Zig's standard library): the
/// byte stream a vector is drawn from. One 64x64->128 multiply a word:
/// filling a vector's 448-byte prefix takes ~46 ns here against ~65 for
/// SplitMix64.
#[derive(Debug, Clone)]
pub struct WyRand(u64);

impl WyRand {
    const STEP: u64 = 0xa076_1d64_78bd_642f;

    pub fn new(seed: u64) -> WyRand {
        WyRand(seed)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(Self::STEP);
        let t = u128::from(self.0).wrapping_mul(u128::from(self.0 ^ 0xe703_7ed1_a0b4_28db));
        (t >> 64) as u64 ^ t as u64
    }

    /// Moves the stream on by `n` words without producing them.
    pub fn skip(&mut self, n: u64) {
        self.0 = self.0.wrapping_add(n.wrapping_mul(Self::STEP));
    }

    /// The next words' bytes, little-endian, into `buf`.
    pub fn fill(&mut self, buf: &mut [u8]) {
        // Whole words as fixed-size stores (a variable-length copy per word
        // was a memcpy call each).
        let mut chunks = buf.chunks_exact_mut(8);
        for chunk in &mut chunks {
            chunk.copy_from_slice(&self.next_u64().to_le_bytes());
        }
        let rest = chunks.into_remainder();
        if !rest.is_empty() {
            let v = self.next_u64().to_le_bytes();
            let n = rest.len();
            rest.copy_from_slice(&v[..n]);
        }
    }
}

/// The seed of vector `index` of function `func` in a run seeded `seed`.
pub fn vector_seed(seed: u64, func: Func, index: u64) -> u64 {
    let f = u64::from(func.index());
    let mut m = SplitMix64::new(seed ^ (f << 56) ^ index.wrapping_mul(0xD605_BBB5_8C8A_BBB5));
    m.next_u64()
}

/// Bytes enough for one part of a call (its world; its QP, swqe and
/// arguments).
const BYTES: usize = 4096;

/// How many consecutive vectors of a run share a world: vectors
/// `g * WORLD_RUN .. (g + 1) * WORLD_RUN` take their world from the seed of
/// group `g` ([`world_seed`]) and their QP, swqe and arguments each from
/// their own ([`vector_seed`]). Every world field is still drawn from its
/// whole domain, once per group; drawing it (two thirds of a vector's
/// generation) once for eight vectors is what lets generation keep up with
/// the check (ARCHITECTURE.md, "Generated vectors share a world").
pub const WORLD_RUN: u64 = 8;

/// The seed of the world of group `group` (vectors `group * WORLD_RUN..`)
/// of function `func` in a run seeded `seed`: a stream apart from every
/// vector's own.
pub fn world_seed(seed: u64, func: Func, group: u64) -> u64 {
    SplitMix64::new(vector_seed(seed, func, group) ^ 0x776f_726c_6421_0000).next_u64()
}

/// Vector `index` of `func` in the run seeded `seed`: deterministic.
pub fn seeded_call(seed: u64, func: Func, index: u64) -> Call {
    let mut c = blank(func);
    let _ = seeded_call_into(seed, func, index, &mut c);
    c
}

/// Which world: (seed, function, group).
type WorldKey = (u64, Func, u64);

/// The world a generated call holds, as [`seeded_call_into`] names it:
/// calls with equal ids hold equal worlds (the flat-call buffer of the
/// worker's loops writes a world only when its id changes,
/// `cworld::call::Flat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorldId(WorldKey);

thread_local! {
    /// The world last drawn on this thread, by (seed, function, group):
    /// consecutive vectors of a group copy it instead of drawing it again.
    /// Only ever holds what [`seeded_world_into`] gives for its key, so a
    /// vector is the same whichever vectors came before it (tested).
    static LAST_WORLD: std::cell::RefCell<Option<(WorldKey, World)>> =
        const { std::cell::RefCell::new(None) };
}

/// [`seeded_call`] into `c`, reusing its allocations (the worker's loops
/// draw millions): every field of `c` is written. Returns the id of the
/// world now in `c`, or `None` when no draw kept the invariants and `c` is
/// the function's simplest call.
pub fn seeded_call_into(seed: u64, func: Func, index: u64, c: &mut Call) -> Option<WorldId> {
    let key = (seed, func, index / WORLD_RUN);
    let cached = LAST_WORLD.with_borrow(|last| match last {
        Some((k, w)) if *k == key => {
            c.world = *w;
            true
        }
        _ => false,
    });
    if !cached {
        seeded_world_into(seed, func, key.2, &mut c.world);
        LAST_WORLD.with_borrow_mut(|last| *last = Some((key, c.world)));
    }
    if !seeded_rest_into(seed, func, index, c) {
        *c = fallback(func);
        return None;
    }
    Some(WorldId(key))
}

/// Up to 16 attempts at a draw from consecutive `BYTES`-byte blocks of
/// `rng`'s stream, each from a `PREFIX`-byte buffer (or, when the draw
/// used all of it, from the whole block read as a stream), then one from
/// zeros: `$draw(u)` draws and says whether the result keeps the
/// invariants. Whether any attempt did.
macro_rules! attempts {
    ($rng:expr, $prefix:expr, |$u:ident| $draw:expr) => {{
        let mut rng: WyRand = $rng;
        let mut prefix = [0u8; $prefix];
        let mut ok = false;
        for _ in 0..16 {
            let start = rng.clone();
            rng.fill(&mut prefix);
            let mut d = Draw::new(&prefix);
            ok = {
                let $u = &mut d;
                $draw
            };
            if d.is_empty() {
                let mut d = Draw::stream(Stream::new(start.clone(), BYTES));
                ok = {
                    let $u = &mut d;
                    $draw
                };
            }
            rng = start;
            rng.skip((BYTES / 8) as u64);
            if ok {
                break;
            }
        }
        if !ok {
            let zero = [0u8; BYTES];
            let mut d = Draw::new(&zero);
            ok = {
                let $u = &mut d;
                $draw
            };
        }
        ok
    }};
}

/// The world of group `group` of `func`'s vectors in the run seeded `seed`
/// (see [`WORLD_RUN`]).
pub fn seeded_world_into(seed: u64, func: Func, group: u64, w: &mut World) {
    let rng = WyRand::new(world_seed(seed, func, group));
    // A world draws ~600 bytes (its maps most), now and then more.
    if !attempts!(rng, 1024, |u| {
        world_into(u, w);
        validate_world(w).is_ok()
    }) {
        *w = fallback(func).world;
    }
}

/// Vector `index`'s QP, swqe and arguments, drawn into `c` given its
/// world; whether they keep the invariants.
fn seeded_rest_into(seed: u64, func: Func, index: u64, c: &mut Call) -> bool {
    let rng = WyRand::new(vector_seed(seed, func, index));
    // 280-360 bytes for most functions, up to ~430 with a walk of eight
    // QPs (hfi1_error_port_qps), 20,000 draws each.
    attempts!(rng, 448, |u| rest_into(func, u, c).is_ok())
}

/// A call of `func` to draw into ([`seeded_call_into`]): every field is
/// written by the draw.
pub fn blank(func: Func) -> Call {
    Call::new(
        func,
        World::blank(),
        Qp::new(QpType::Rc, 0, 1, 4096, QpState::Rts),
        Wqe {
            length: 0,
            opcode: WrOpcode::Send,
            has_priv: false,
            ah: None,
        },
    )
}

/// The simplest call of `func` (all-zero choices), for when no draw works.
fn fallback(func: Func) -> Call {
    let zero = [0u8; BYTES];
    let mut c = blank(func);
    world_into(&mut Draw::new(&zero), &mut c.world);
    c
}

/// A generated call that breaks an invariant of `vector::validate` (the
/// draw is made again from the next bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rejected;

fn pick<S: Source, T: Copy>(u: &mut Draw<S>, xs: &[T]) -> T {
    *u.choose(xs)
}

/// A u32 biased to 0, small values, the edges of its range, and `near`
/// (each boundary value, one below and one above).
#[inline]
fn u32_near<S: Source>(u: &mut Draw<S>, near: &[u32]) -> u32 {
    match u.int_in_range(0..=7u8) {
        0 => 0,
        1 | 2 if !near.is_empty() => {
            let b = pick(u, near);
            match u.int_in_range(0..=2u8) {
                0 => b.wrapping_sub(1),
                1 => b,
                _ => b.wrapping_add(1),
            }
        }
        3 => u.int_in_range(0..=64),
        4 => pick(u, &[u32::MAX, 0x8000_0000, 0x7fff_ffff]),
        _ => u.arbitrary(),
    }
}

/// `n` (at most 64) draws of `ratio(1, 4)`, as bits: eight bytes at a
/// time, each byte read as that ratio reads it.
#[inline]
fn quarter_bits<S: Source>(u: &mut Draw<S>, n: usize) -> u64 {
    let mut bits = 0u64;
    let mut i = 0;
    while i < n {
        let k = (n - i).min(8);
        let w = u.bytes(k);
        for j in 0..k {
            // ratio(1, 4): b * 4 < 256.
            if (w >> (8 * j)) & 0xff < 64 {
                bits |= 1 << (i + j);
            }
        }
        i += k;
    }
    bits
}

/// `n` entries of two bytes each, drawn eight bytes (four entries) at a
/// time: `f(i, first, second)` for entry `i`.
#[inline]
fn byte_pairs<S: Source>(u: &mut Draw<S>, n: usize, mut f: impl FnMut(usize, u8, u8)) {
    let mut i = 0;
    while i < n {
        let k = (n - i).min(4);
        let w = u.bytes(2 * k);
        for j in 0..k {
            f(i + j, (w >> (16 * j)) as u8, (w >> (16 * j + 8)) as u8);
        }
        i += k;
    }
}

/// A byte read as `int_in_range(0..=n - 1)` reads it (Lemire's
/// reduction of one byte): `n` at most 256.
#[inline]
fn below(b: u8, n: usize) -> u8 {
    ((usize::from(b) * n) >> 8) as u8
}

/// A flag set: each flag one time in four.
fn flags<S: Source, T: Symbol + Copy>(u: &mut Draw<S>) -> Flags<T> {
    // Bit i is the flag of index i, which is its place in T::ALL (at most
    // 32 of them: a Flags is a u32).
    Flags::from_bits(quarter_bits(u, T::ALL.len().min(32)) as u32)
}

/// An engine map (or NULL) drawn into `slot` in place.
fn vl_map_into<S: Source, T: TableIdx>(
    u: &mut Draw<S>,
    n: usize,
    mk: impl Fn(u8) -> T,
    slot: &mut Option<VlMap<T>>,
) {
    if n == 0 || u.ratio(1, 8) {
        *slot = None;
        return;
    }
    // Masks are 2^k - 1 and stay inside their arrays (the kernel sizes
    // them mask + 1); NULL elements never (vector::validate).
    // As the driver sizes them: mask + 1 elements of emask + 1 entries.
    let m = slot.get_or_insert_with(|| VlMap {
        mask: 0,
        elems: Slots::new(),
    });
    m.mask = pick(u, &[0, 1, 3, 7, 15]);
    m.elems.clear();
    for _ in 0..m.mask as usize + 1 {
        let emask: u32 = pick(u, &[0, 1, 3, 7, 15]);
        let mut e = MapElem {
            mask: emask,
            entries: Slots::new(),
        };
        // Each entry NULL one time in ten (`b * 10 < 256`), else an index
        // below n: two bytes an entry.
        byte_pairs(u, emask as usize + 1, |_, d, v| {
            // Indices stay below n <= 64: NullableIdx holds them all.
            let x = NullableIdx::new(Some(mk(below(v, n)))).unwrap_or(NullableIdx::NULL);
            let x = if u32::from(d) * 10 < 256 {
                NullableIdx::NULL
            } else {
                x
            };
            // nentries <= 16 = MAP_SLOTS: the push cannot be refused.
            let _ = e.entries.push(x);
        });
        let _ = m.elems.push(Some(e));
    }
}

fn opt_idx<S: Source, T>(u: &mut Draw<S>, n: usize, mk: impl Fn(u8) -> T) -> Option<T> {
    if u.ratio(1, 4) {
        None
    } else {
        Some(mk(u.int_in_range(0..=(n - 1) as u8)))
    }
}

/// A type's own domain, drawn for a schema field without `[draw]`.
trait Drawn {
    fn drawn<S: Source>(u: &mut Draw<S>) -> Self;
}

macro_rules! drawn_arbitrary {
    ($($t:ty),*) => {$(
        impl Drawn for $t {
            #[inline]
            fn drawn<S: Source>(u: &mut Draw<S>) -> Self {
                u.arbitrary()
            }
        }
    )*};
}
drawn_arbitrary!(u8, u16, u32, i8, i32, u64, bool);

macro_rules! drawn_symbols {
    ($($t:ty),*) => {$(
        impl Drawn for $t {
            #[inline]
            fn drawn<S: Source>(u: &mut Draw<S>) -> Self {
                pick(u, <$t>::ALL)
            }
        }
    )*};
}
drawn_symbols!(QpType, QpState, MigState, WrOpcode, Leg);

impl<T: Symbol> Drawn for Flags<T> {
    #[inline]
    fn drawn<S: Source>(u: &mut Draw<S>) -> Self {
        flags(u)
    }
}

/// NULL or not, one time in two.
impl<T: Drawn> Drawn for Option<T> {
    #[inline]
    fn drawn<S: Source>(u: &mut Draw<S>) -> Self {
        if u.arbitrary() {
            Some(T::drawn(u))
        } else {
            None
        }
    }
}

impl<T: Drawn, const N: usize> Drawn for [T; N] {
    #[inline]
    fn drawn<S: Source>(u: &mut Draw<S>) -> Self {
        std::array::from_fn(|_| T::drawn(u))
    }
}

impl Drawn for AckEntry {
    #[inline]
    fn drawn<S: Source>(u: &mut Draw<S>) -> Self {
        AckEntry {
            opcode: u.arbitrary(),
            psn: u.arbitrary(),
            lpsn: u.arbitrary(),
        }
    }
}

impl Drawn for SendQueueEntry {
    #[inline]
    fn drawn<S: Source>(u: &mut Draw<S>) -> Self {
        SendQueueEntry {
            opcode: pick(u, WrOpcode::ALL),
            ssn: u.arbitrary(),
        }
    }
}

/// The QP fields' own domains (the schema's `[rule]`): where a field
/// depends on the world, the function or a field drawn before it, the
/// invariant is kept here (`vector::validate` states it with its reason).
mod rules {
    use super::*;

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

    /// A node without CPUs one time in eight.
    pub fn node_cpus<S: Source>(u: &mut Draw<S>, _: &World) -> CpuMask {
        CpuMask(if u.ratio(1, 8) { 0 } else { u.arbitrary() })
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

    /// 1 to 16 engines, each on a CPU 0..63.
    pub fn sdma_cpus<S: Source>(u: &mut Draw<S>, _: &World) -> Slots<i32, 16> {
        let mut s = Slots::new();
        let n = usize::from(u.int_in_range(1..=16u8));
        // A byte a CPU, eight a draw.
        let mut i = 0;
        while i < n {
            let k = (n - i).min(8);
            let w = u.bytes(k);
            for j in 0..k {
                let _ = s.push(i32::from(below((w >> (8 * j)) as u8, 64)));
            }
            i += k;
        }
        s
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

    /// The work was not queued already, three times in four.
    pub fn queue_work_ret<S: Source>(u: &mut Draw<S>, _: &World) -> bool {
        u.ratio(3, 4)
    }

    /// The work was pending one time in four.
    pub fn cancel_work_ret<S: Source>(u: &mut Draw<S>, _: &World) -> bool {
        u.ratio(1, 4)
    }

    /// No allocation fails, three times in four.
    pub fn alloc_fail<S: Source>(u: &mut Draw<S>, _: &World) -> u32 {
        if u.ratio(3, 4) {
            0
        } else {
            u.int_in_range(0..=3)
        }
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
        if func == Func::IowaitSleep && n > 0 {
            return Some(EngineIdx(u.int_in_range(0..=(n - 1) as u8)));
        }
        opt_idx(u, n, EngineIdx)
    }

    /// rdmavt posts SMI, GSI and UD work requests with an AH
    /// (vector::validate); the others now and then.
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
    pub fn ring_size<S: Source>(u: &mut Draw<S>, _: &World, _: Func, _: &Qp) -> u16 {
        if u.ratio(3, 4) {
            pick(u, &[0, 1, 2, 8, 16, 64, 2048])
        } else {
            u.arbitrary()
        }
    }

    /// The ring's tail: mostly within a ring's size of its head.
    pub fn ring_tail<S: Source>(u: &mut Draw<S>, _: &World, _: Func, q: &Qp) -> u32 {
        if u.ratio(3, 4) {
            let used = u.int_in_range(0..=u32::from(q.sde_descq_cnt) + 1);
            q.sde_descq_head.wrapping_add(used)
        } else {
            u.arbitrary()
        }
    }

    /// A send context of the world, or NULL.
    pub fn send_context<S: Source>(
        u: &mut Draw<S>,
        w: &World,
        _: Func,
        _: &Qp,
    ) -> Option<SendCtxIdx> {
        opt_idx(u, usize::from(w.num_send_contexts), SendCtxIdx)
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

    /// On a list: an engine's waitlock (mostly the QP's engine's); off
    /// it, now and then one a waker left.
    pub fn wait_lock<S: Source>(u: &mut Draw<S>, w: &World, _: Func, q: &Qp) -> Option<EngineIdx> {
        let n = w.sdma_cpus.len();
        if n == 0 || !(q.on_wait_list || u.ratio(1, 4)) {
            return None;
        }
        match q.s_sde {
            Some(e) if u.ratio(3, 4) => Some(e),
            _ => Some(EngineIdx(u.int_in_range(0..=(n - 1) as u8))),
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
}

/// One field drawn: its `[draw]` rule (given the context and the record
/// so far) or range, or its type's domain.
macro_rules! draw_field {
    ($u:ident, ($($cx:ident),*), $r:ident, $t:ty) => {
        <$t as Drawn>::drawn($u)
    };
    ($u:ident, ($($cx:ident),*), $r:ident, $t:ty, $rule:ident) => {
        rules::$rule($u, $($cx,)* &*$r)
    };
    ($u:ident, ($($cx:ident),*), $r:ident, $t:ty, $($range:tt)*) => {
        $u.int_in_range($($range)*)
    };
}

/// From a record's schema: the record within the invariants, every field
/// drawn in the schema's order into `r` (`fn NAME(u, context..., r)`;
/// the context's names again, as one group, for the rules).
macro_rules! record_draw {
    ([$name:ident ($($cx:ident : $cxt:ty),*) $ctx:tt $r:ident : $ty:ty]
     $( $(#[doc = $doc:literal])* $key:literal $f:ident : $t:ty $([$($rule:tt)*])?
        = $d:expr $(=> $c:ident)? , )*) => {
        pub(crate) fn $name<S: Source>(u: &mut Draw<S>, $($cx: $cxt,)* $r: &mut $ty) {
            $( $r.$f = draw_field!(u, $ctx, $r, $t $(, $($rule)*)?); )*
        }
    };
}
crate::model::world_schema!(record_draw [world_into () () w: World]);
crate::model::qp_schema!(record_draw [qp_into (w: &World, func: Func) (w, func) q: Qp]);
crate::model::wqe_schema!(record_draw [wqe_into (w: &World, q: &Qp) (w, q) wq: Wqe]);

/// From the call schema: each function's arguments drawn within the
/// invariants (a module per function), in the schema's order, given the
/// world and the QP the call reaches.
macro_rules! args_draw {
    ([] $( $(#[doc = $doc:literal])* $v:ident $c:ident { $($fields:tt)* } )*) => {
        $(
            #[allow(non_snake_case, unused_imports, unused_variables)]
            mod $v {
                use super::*;
                record_draw! { [draw (w: &World, q: &Qp) (w, q) a: args::$v] $($fields)* }
            }
        )*

        /// `f`'s arguments into `a`.
        fn args_into<S: Source>(u: &mut Draw<S>, w: &World, q: &Qp, f: Func, a: &mut Args) {
            match f {
                $( Func::$v => {
                    let mut x = args::$v::blank();
                    $v::draw(u, w, q, &mut x);
                    *a = Args::$v(x);
                } )*
            }
        }
    };
}
crate::model::call_schema!(args_draw []);

/// One call of `func` within the invariants (or [`Rejected`] when the
/// draw breaks one).
pub fn call<S: Source>(func: Func, u: &mut Draw<S>) -> Result<Call, Rejected> {
    let mut c = blank(func);
    call_into(func, u, &mut c)?;
    Ok(c)
}

/// [`call`] into `c` in place, reusing its allocations; the
/// destructuring names every field, so none keeps a value of the previous
/// call.
pub fn call_into<S: Source>(func: Func, u: &mut Draw<S>, c: &mut Call) -> Result<(), Rejected> {
    world_into(u, &mut c.world);
    validate_world(&c.world).map_err(|_| Rejected)?;
    rest_into(func, u, c)
}

/// A call's QP, swqe and arguments, drawn into `c` given its world (one
/// that keeps [`validate_world`]); the destructuring names every field
/// but the world, so none keeps a value of the previous call.
fn rest_into<S: Source>(func: Func, u: &mut Draw<S>, c: &mut Call) -> Result<(), Rejected> {
    let Call {
        args,
        world: w,
        qp: q,
        wqe: wq,
    } = c;
    qp_into(u, w, func, q);
    wqe_into(u, w, q, wq);
    args_into(u, w, q, func, args);
    validate_call(c).map_err(|_| Rejected)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::invariants::validate;

    #[test]
    fn the_same_seed_gives_the_same_vector() {
        for f in Func::ALL {
            assert_eq!(seeded_call(7, *f, 3), seeded_call(7, *f, 3));
        }
        assert_ne!(
            seeded_call(7, Func::SetupWqe, 3),
            seeded_call(8, Func::SetupWqe, 3)
        );
    }

    /// Drawing from a prefix of the byte stream gives, vector for vector,
    /// what drawing from the whole buffer gives, and a group's world is
    /// drawn from its own stream. The reference is the straightforward
    /// algorithm: no prefix, no world kept from the vector before.
    #[test]
    fn the_prefix_draw_is_the_whole_buffer_draw() {
        let reference = |seed, func, index: u64| {
            let mut c = blank(func);
            let mut rng = WyRand::new(world_seed(seed, func, index / WORLD_RUN));
            let mut buf = [0u8; BYTES];
            let world_ok = (0..16).any(|_| {
                rng.fill(&mut buf);
                world_into(&mut Draw::new(&buf), &mut c.world);
                validate_world(&c.world).is_ok()
            }) || {
                world_into(&mut Draw::new(&[0u8; BYTES]), &mut c.world);
                validate_world(&c.world).is_ok()
            };
            if !world_ok {
                c.world = fallback(func).world;
            }
            let mut rng = WyRand::new(vector_seed(seed, func, index));
            for _ in 0..16 {
                rng.fill(&mut buf);
                if rest_into(func, &mut Draw::new(&buf), &mut c).is_ok() {
                    return c;
                }
            }
            if rest_into(func, &mut Draw::new(&[0u8; BYTES]), &mut c).is_ok() {
                return c;
            }
            fallback(func)
        };
        for f in Func::ALL {
            for i in 0..300 {
                assert_eq!(seeded_call(5, *f, i), reference(5, *f, i), "{f} #{i}");
            }
        }
    }

    /// The world kept from one vector to the next is invisible: a vector
    /// drawn after any other (another function's, another group's, another
    /// seed's, its own group's) is the vector drawn alone.
    #[test]
    fn a_vector_does_not_depend_on_the_one_before() {
        let alone: Vec<Call> = (0..40).map(|i| seeded_call(3, Func::SetupWqe, i)).collect();
        let mut c = blank(Func::SetupWqe);
        let mut other = blank(Func::ModifyQp);
        for i in (0..40u64).rev() {
            seeded_call_into(3, Func::ModifyQp, i, &mut other);
            seeded_call_into(4, Func::SetupWqe, i, &mut c);
            seeded_call_into(3, Func::SetupWqe, i, &mut c);
            assert_eq!(c, alone[i as usize], "#{i} after other draws");
        }
        // Vectors of a group share their world, and groups differ.
        assert!(alone[..WORLD_RUN as usize]
            .windows(2)
            .all(|v| v[0].world == v[1].world && v[0] != v[1]));
        assert_ne!(alone[0].world, alone[WORLD_RUN as usize].world);
    }

    #[test]
    fn generated_vectors_keep_the_invariants() {
        let mut direct = 0;
        for f in Func::ALL {
            for i in 0..200 {
                let c = seeded_call(1, *f, i);
                assert_eq!(c.func(), *f);
                assert_eq!(validate(&c), Ok(()), "{f} #{i}");
                let mut rng = WyRand::new(vector_seed(1, *f, i));
                let mut buf = [0u8; BYTES];
                rng.fill(&mut buf);
                if call(*f, &mut Draw::new(&buf)).is_ok() {
                    direct += 1;
                }
            }
        }
        // The generator draws inside the invariants: first draws almost
        // always validate.
        assert!(direct > Func::ALL.len() * 200 * 9 / 10, "{direct}");
    }
}
