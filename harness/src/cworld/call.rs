//! Between the model's types and the shim ABI: a [`Call`] becomes a flat
//! `shim_call` (symbolic names as the shim's own enumerations, which the C
//! side maps to the tree's values), a `shim_outcome` becomes an
//! [`Outcome`].

use crate::ffi::*;
use crate::model::types::{Call, EngineIdx, Ptr, SendCtxIdx, Slots, Symbol, TableIdx, VlMap};
use crate::outcome::Outcome;

/// The shim's bit for each symbolic flag: the shim's enumerations are
/// generated from the model's lists (`abi::schema_header`), so the bit is
/// the flag's index, as every symbol crosses as its index.
#[cfg(test)]
fn s_flag_bit(f: crate::model::types::SFlag) -> u32 {
    1 << f.index()
}

#[cfg(test)]
fn bits<T: Copy + PartialEq>(all: &[T], set: &[T]) -> u32 {
    all.iter()
        .enumerate()
        .filter(|(_, f)| set.contains(f))
        .fold(0, |a, (i, _)| a | (1 << i))
}

/// Writes an engine map in place: the counts, and each allocated element
/// whole, every entry slot of it (shim.h): fixed-length inner loops over
/// the model's fixed-capacity [`Slots`], unallocated slots being `None`
/// there and `SHIM_NONE` here. Elements from `nelems` on are not read.
fn fill_map<T: TableIdx>(out: &mut shim_map, m: &Option<VlMap<T>>) {
    let Some(m) = m else {
        out.present = 0;
        out.nelems = 0;
        out.mask = 0;
        return;
    };
    out.present = 1;
    out.mask = m.mask;
    out.nelems = m.elems.len() as u8;
    let none = Slots::new();
    for (d, e) in out.elems.iter_mut().zip(&m.elems) {
        let (present, mask, entries) = match e {
            Some(e) => (1, e.mask, *e.entries.all()),
            None => (0, 0, *none.all()),
        };
        d.present = present;
        d.mask = mask;
        d.nentries = e.as_ref().map_or(0, |e| e.entries.len() as u8);
        // NullableIdx is the shim's byte already (0xff = SHIM_NONE).
        d.entries = entries.map(|x| x.raw() as i8);
    }
}

/// The flat ABI form of a call. (A zeroed C struct filled field by field:
/// every byte, padding included, starts at zero.)
pub fn to_shim(c: &Call) -> shim_call {
    let mut s = shim_call::default();
    fill_shim(c, &mut s);
    s
}

/// Writes `c` into a flat call that may hold an earlier one: every field
/// the shim reads is written (tables beyond their counts are not read).
/// The worker reuses one buffer this way instead of building 2.3 KB anew.
pub fn fill_shim(c: &Call, s: &mut shim_call) {
    s.fn_ = c.func().index();
    super::abi::fill_args(&c.args, &mut s.args);

    let w = &c.world;
    let sw = &mut s.world;
    sw.dev_flags = w.dev_flags.iter().fold(0, |a, f| a | (1 << f.index()));
    sw.qos_shift = w.qos_shift;
    sw.num_vls = w.num_vls;
    sw.piothreshold = w.piothreshold;
    sw.node = w.node;
    sw.node_cpus = w.node_cpus;
    sw.sc_to_vl = w.sc_to_vl;
    sw.vl_mtu = w.vl_mtu;
    for (d, s) in sw.vl_sc.iter_mut().zip(&w.vl_sc) {
        *d = s.map_or(SHIM_NONE as i16, |i| i16::from(i.0));
    }
    sw.num_sdma = w.sdma_cpus.len().min(SHIM_MAX_SDMA as usize) as u8;
    for (i, d) in sw.sdma.iter_mut().enumerate() {
        d.cpu = w.sdma_cpus.get(i).copied().unwrap_or(0);
    }
    sw.num_send_contexts = w.num_send_contexts;
    fill_map(&mut sw.sdma_map, &w.sdma_map);
    fill_map(&mut sw.pio_map, &w.pio_map);
    sw.num_pports = w.sl_to_sc.len().min(SHIM_MAX_PORTS as usize) as u8;
    for (i, (d, t)) in sw.ports.iter_mut().zip(&w.sl_to_sc).enumerate() {
        d.sl_to_sc = *t;
        d.ibmtu = w.port_ibmtu.get(i).copied().unwrap_or(0);
    }
    sw.max_rdma_atomic = w.max_rdma_atomic;
    sw.extra_rdma_atomic = w.extra_rdma_atomic;
    sw.queue_work_ret = u8::from(w.queue_work_ret);
    sw.tid_send_ret = u8::from(w.tid_send_ret);
    sw.cancel_work_ret = u8::from(w.cancel_work_ret);
    sw.alloc_fail = w.alloc_fail;
    for (i, d) in sw.ports.iter_mut().enumerate() {
        d.lid = w.port_lid.get(i).copied().unwrap_or(0);
        d.gid_prefix = w.port_gid_prefix.get(i).copied().unwrap_or(0);
        d.has_qp0 = u8::from(w.port_qp0.get(i).copied().unwrap_or(false));
        d.has_qp1 = u8::from(w.port_qp1.get(i).copied().unwrap_or(false));
    }

    super::abi::fill_qp(&c.qp, &mut s.qp);

    super::abi::fill_wqe(&c.wqe, &mut s.wqe);
}

fn ptr<T>(v: i16, f: impl Fn(u8) -> T) -> Ptr<T> {
    match v {
        v if v == SHIM_NONE as i16 => Ptr::Null,
        v if (0..=255).contains(&v) => Ptr::To(f(v as u8)),
        _ => Ptr::Foreign,
    }
}

/// The outcome the C world reported.
/// The first `len` bytes of a C character array (clamped to it).
fn c_bytes(a: &[std::ffi::c_char], len: u32) -> &[u8] {
    let n = (len as usize).min(a.len());
    // SAFETY: c_char and u8 have the same size and alignment; the slice
    // borrows `a` for its lifetime.
    unsafe { std::slice::from_raw_parts(a.as_ptr().cast::<u8>(), n) }
}

/// Slice equality that skips the library call for empty slices (most
/// calls print nothing).
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && (a.is_empty() || a == b)
}

/// Whether C's outcome is `r`, without building an [`Outcome`]: the
/// worker's per-vector judgement, allocation-free. `true` implies
/// `from_shim(o) == *r`; the converse holds whenever C wrote valid UTF-8
/// (for bytes that are not, [`from_shim`] substitutes U+FFFD, so a
/// `false` here is confirmed with it before it is called a difference).
pub fn agrees(o: &shim_outcome, r: &Outcome) -> bool {
    let journal = c_bytes(&o.journal, o.journal_len)
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty());
    o.ret == r.ret
        && (o.call_send != 0) == r.call_send
        && ptr(o.sdma_engine, EngineIdx) == r.sdma_engine
        && ptr(o.send_context, SendCtxIdx) == r.send_context
        && o.s_flags_unknown == r.s_flags_unknown
        && r.qp_unnamed.is_empty()
        && {
            // Compared as C holds it: a named value reads back to what
            // fills it (`Abi`), so equal bytes are equal QPs, and a value
            // with no name never equals the model's.
            let mut x = crate::ffi::shim_qp::default();
            super::abi::fill_qp(&r.qp, &mut x);
            crate::ffi::as_bytes(&x) == crate::ffi::as_bytes(&o.qp)
        }
        && same_bytes(c_bytes(&o.text, o.text_len), r.text.as_bytes())
        && journal.eq(r.journal.iter().map(String::as_bytes))
}

pub fn from_shim(o: &shim_outcome) -> Outcome {
    let mut unnamed = vec![];
    Outcome {
        ret: o.ret,
        call_send: o.call_send != 0,
        sdma_engine: ptr(o.sdma_engine, EngineIdx),
        send_context: ptr(o.send_context, SendCtxIdx),
        s_flags_unknown: o.s_flags_unknown,
        qp: super::abi::read_qp(&o.qp, &mut unnamed),
        qp_unnamed: unnamed,
        text: o.text_string(),
        journal: o
            .journal_text()
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::types::{
        DevFlag, EngineIdx, Func, IowaitFlag, NullableIdx, PrivFlag, QpType, SFlag, WrOpcode,
    };

    /// The model's NULL index is the shim's SHIM_NONE byte.
    #[test]
    fn null_index_is_shim_none() {
        let null = NullableIdx::<EngineIdx>::default();
        assert_eq!(null.raw() as i8, crate::ffi::SHIM_NONE as i8);
    }

    fn outcome(text: &[u8], journal: &[u8]) -> shim_outcome {
        let mut o = shim_outcome::default();
        for (d, b) in o.text.iter_mut().zip(text) {
            *d = *b as std::ffi::c_char;
        }
        o.text_len = text.len() as u32;
        for (d, b) in o.journal.iter_mut().zip(journal) {
            *d = *b as std::ffi::c_char;
        }
        o.journal_len = journal.len() as u32;
        o
    }

    /// `agrees` is `from_shim(o) == r` without the allocations: checked
    /// on outcomes that differ in each field, and on journals whose
    /// lines split differently.
    #[test]
    fn agrees_is_from_shim_equality() {
        let mut cases = vec![];
        for (text, journal) in [
            (&b""[..], &b""[..]),
            (
                b"qp 1 state 3",
                b"hfi1_schedule_tid_send(qp#0x40)\nWARN(x)\n",
            ),
            (
                b"qp 1 state 3",
                b"hfi1_schedule_tid_send(qp#0x40)\n\nWARN(x)",
            ),
            (b"qp 1 state 4", b"WARN(x)\n"),
            (b"", b"a\nb\n"),
            (b"", b"a\nb\nc\n"),
            (b"", b"ab\n"),
        ] {
            cases.push(outcome(text, journal));
        }
        // One field changed from the empty outcome, each.
        let changed: [fn(&mut shim_outcome); 8] = [
            |o| o.ret = -22,
            |o| o.call_send = 1,
            |o| o.sdma_engine = 3,
            |o| o.send_context = SHIM_FOREIGN as i16,
            |o| o.qp.s_flags = 1 << SHIM_RVT_S_BUSY,
            |o| o.s_flags_unknown = 0x8000_0000,
            |o| o.qp.priv_flags = 1,
            |o| o.qp.iowait_flags = 2,
        ];
        for f in changed {
            let mut o = outcome(b"", b"");
            f(&mut o);
            cases.push(o);
        }
        let rs: Vec<Outcome> = cases.iter().map(from_shim).collect();
        for (i, c) in cases.iter().enumerate() {
            for (j, r) in rs.iter().enumerate() {
                assert_eq!(
                    agrees(c, r),
                    from_shim(c) == *r,
                    "C case {i}, Rust case {j}"
                );
            }
        }
        // Lines compare whole: "a","b" is not "ab", an empty line is none.
        assert!(agrees(&cases[1], &rs[2]));
        assert!(!agrees(&cases[4], &rs[6]));
        // Invalid UTF-8: agrees says no, from_shim (U+FFFD) has the last word.
        let bad = outcome(b"\xff", b"");
        assert!(!agrees(&bad, &from_shim(&bad)));
    }

    /// The shim's flag enums list the flags in the model's order, so a
    /// flag's bit is its index in `ALL`.
    #[test]
    fn flag_orders_match_the_shim() {
        assert_eq!(SFlag::ALL.len(), SHIM_S_FLAG_COUNT as usize);
        assert_eq!(s_flag_bit(SFlag::Busy), 1 << SHIM_RVT_S_BUSY);
        assert_eq!(s_flag_bit(SFlag::WaitHalt), 1 << SHIM_HFI1_S_WAIT_HALT);
        assert_eq!(
            s_flag_bit(SFlag::WaitPioDrain),
            1 << SHIM_HFI1_S_WAIT_PIO_DRAIN
        );
        assert_eq!(PrivFlag::ALL.len(), SHIM_PRIV_FLAG_COUNT as usize);
        assert_eq!(
            bits(PrivFlag::ALL, &[PrivFlag::TidBusySet]),
            1 << SHIM_PRIV_HFI1_S_TID_BUSY_SET
        );
        assert_eq!(
            bits(PrivFlag::ALL, &[PrivFlag::AckPending]),
            1 << SHIM_PRIV_RVT_S_ACK_PENDING
        );
        assert_eq!(IowaitFlag::ALL.len(), SHIM_IOWAIT_FLAG_COUNT as usize);
        assert_eq!(
            bits(IowaitFlag::ALL, &[IowaitFlag::PendingTid]),
            1 << SHIM_IOWAIT_PENDING_TID
        );
        assert_eq!(Func::ALL.len(), SHIM_FN_COUNT as usize);
        assert_eq!(QpType::ALL.len(), SHIM_QP_TYPE_COUNT as usize);
        assert_eq!(WrOpcode::ALL.len(), SHIM_WR_OPCODE_COUNT as usize);
        assert_eq!(DevFlag::ALL.len(), SHIM_DEV_FLAG_COUNT as usize);
    }
}
