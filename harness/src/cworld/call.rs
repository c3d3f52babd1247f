//! Between the model's types and the shim ABI: a [`Call`] becomes a flat
//! `shim_call` (symbolic names as the shim's own enumerations, which the C
//! side maps to the tree's values), a `shim_outcome` becomes an
//! [`Outcome`].

use crate::cworld::ffi::*;
use crate::generate::WorldId;
use crate::model::types::{Call, EngineIdx, Ptr, SendCtxIdx, Symbol};
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

/// The flat ABI form of a call. (A zeroed C struct filled field by field:
/// every byte, padding included, starts at zero.)
pub fn to_shim(c: &Call) -> shim_call {
    let mut s = shim_call::default();
    fill_shim(c, &mut s);
    s
}

/// Writes `c` into a flat call that may hold an earlier one: every field
/// the shim reads is written (tables beyond their counts are not read).
/// The worker reuses one buffer this way instead of building a whole
/// flat call for every vector.
pub fn fill_shim(c: &Call, s: &mut shim_call) {
    super::ffi::abi::fill_world(&c.world, &mut s.world);
    fill_all_but_world(c, s);
}

/// Writes every field of `c` but its world into `s`.
fn fill_all_but_world(c: &Call, s: &mut shim_call) {
    s.fn_ = c.func().index();
    super::ffi::abi::fill_args(&c.args, &mut s.args);
    super::ffi::abi::fill_qp(&c.qp, &mut s.qp);
    super::ffi::abi::fill_wqe(&c.wqe, &mut s.wqe);
    super::ffi::abi::fill_engines(&c.engines, &mut s.engines);
}

/// The flat-call buffer of the worker's loops over generated vectors:
/// [`fill_shim`], except that a world is written only when it is not the
/// one the buffer holds, as its generator id says (the vectors of a group
/// share a world, `generate::WORLD_RUN`; comparing two `World`s would
/// cost about what filling one does, comparing ids nothing). The buffer
/// is private, so the world it holds is the one last written. The C side
/// still builds its world whole from it on every call.
#[derive(Default)]
pub struct Flat {
    call: Box<shim_call>,
    world: Option<WorldId>,
}

impl Flat {
    /// Writes `c`, whose world the generator named `world` (`None`: not
    /// known, written), and returns the flat call.
    pub fn fill(&mut self, c: &Call, world: Option<WorldId>) -> &shim_call {
        if world.is_none() || world != self.world {
            super::ffi::abi::fill_world(&c.world, &mut self.call.world);
        }
        self.world = world;
        fill_all_but_world(c, &mut self.call);
        &self.call
    }
}

/// A pointer field of an outcome as the model names it: the shim's
/// `SHIM_NONE` is NULL, an index is an object of the world, anything else
/// points outside it.
fn ptr<T>(v: i16, f: impl Fn(u8) -> T) -> Ptr<T> {
    match v {
        v if v == SHIM_NONE as i16 => Ptr::Null,
        v if (0..=255).contains(&v) => Ptr::To(f(v as u8)),
        _ => Ptr::Foreign,
    }
}

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

/// Whether C's outcome is `r` and nothing else: the one judgement,
/// [`Outcome::diff`] of [`from_shim`]`(o)` and `r`, with a shortcut for
/// the common case that allocates nothing. When C's bytes are exactly what
/// `r` would be written as — its QP filled into a `shim_qp` byte for byte,
/// the same text bytes and journal lines — the outcomes are equal, since
/// every field reads back what filled it (`abi`'s tests); any other case
/// is read into `scratch` and judged by `diff`.
pub fn differs(o: &shim_outcome, r: &Outcome, scratch: &mut Outcome) -> bool {
    if filled_alike(o, r) {
        return false;
    }
    from_shim_into(o, scratch);
    !model_diff(scratch, r).is_empty()
}

/// How C's outcome `c` differs from a model's `r`: [`Outcome::diff`] but
/// the lock-order lines (`lockdep: ...`), upstream's own findings, which no
/// model mirrors (C against C compares them: a patch that adds or removes
/// an inversion changes its tree's outcome). They have a room of their own
/// in C's journal, so they move no other line. C's differing journal
/// carries its notes (a leak's size and site).
pub fn model_diff(c: &Outcome, r: &Outcome) -> Vec<(&'static str, String, String)> {
    use crate::model::outcome::{JOURNAL_KINDS, LOCKDEP_FIELD};
    let mut d = c.diff(r);
    d.retain(|x| x.0 != LOCKDEP_FIELD);
    for x in &mut d {
        if x.0 == JOURNAL_KINDS[0].field {
            x.1 = c.with_notes(std::mem::take(&mut x.1));
        }
    }
    d
}

/// `r` written as C writes an outcome equals `o`, byte for byte.
fn filled_alike(o: &shim_outcome, r: &Outcome) -> bool {
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
            let mut x = crate::cworld::ffi::shim_qp::default();
            super::ffi::abi::fill_qp(&r.qp, &mut x);
            crate::cworld::ffi::as_bytes(&x) == crate::cworld::ffi::as_bytes(&o.qp)
        }
        && {
            let mut x = crate::cworld::ffi::shim_engines::default();
            super::ffi::abi::fill_engines(&r.engines, &mut x);
            crate::cworld::ffi::as_bytes(&x) == crate::cworld::ffi::as_bytes(&o.engines)
        }
        && same_bytes(c_bytes(&o.text, o.text_len), r.text.as_bytes())
        && journal.eq(r.journal.iter().map(String::as_bytes))
}

/// The outcome the C world reported, in the model's vocabulary.
pub fn from_shim(o: &shim_outcome) -> Outcome {
    let mut r = Outcome::new();
    from_shim_into(o, &mut r);
    r
}

/// [`from_shim`] into `r`, reusing its text and journal lines: in the
/// worker's loop an outcome costs no allocation (but a note's, written
/// only for a leak), and it is judged by the
/// one judge, [`Outcome::diff`], as every outcome is.
pub fn from_shim_into(o: &shim_outcome, r: &mut Outcome) {
    r.ret = o.ret;
    r.call_send = o.call_send != 0;
    r.sdma_engine = ptr(o.sdma_engine, EngineIdx);
    r.send_context = ptr(o.send_context, SendCtxIdx);
    r.s_flags_unknown = o.s_flags_unknown;
    r.qp_unnamed.clear();
    r.qp = super::ffi::abi::read_qp(&o.qp, &mut r.qp_unnamed);
    r.engines = super::ffi::abi::read_engines(&o.engines, &mut r.qp_unnamed);
    r.text.clear();
    r.text
        .push_str(&String::from_utf8_lossy(c_bytes(&o.text, o.text_len)));
    let mut n = 0;
    for line in c_bytes(&o.journal, o.journal_len)
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
    {
        let line = String::from_utf8_lossy(line);
        match r.journal.get_mut(n) {
            Some(s) => {
                s.clear();
                s.push_str(&line);
            }
            None => r.journal.push(line.into_owned()),
        }
        n += 1;
    }
    r.journal.truncate(n);
    r.notes.0.clear();
    r.notes.0.extend(
        c_bytes(&o.notes, o.notes_len)
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| String::from_utf8_lossy(l).into_owned()),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::types::{
        DevFlag, EngineIdx, Func, IowaitFlag, NullableIdx, PrivFlag, QpType, SFlag, WrOpcode,
    };

    /// Each kind of journal line has its own room: C's lock-order lines,
    /// which the model has none of, and a tracepoint-heavy call that
    /// fills the tracepoints' room, cut no boundary line; a line that
    /// differs still shows.
    #[test]
    fn each_kind_of_journal_line_has_its_own_room() {
        use crate::model::journal_room;
        use crate::model::outcome::Outcome;
        let trace = |i: usize| format!("trace hfi1_sdma_progress(sde#0, 0x0, 0x{i:x}, (null))");
        let lock = "lockdep: possible ABBA deadlock: s_lock#0x0 taken holding sde#0.waitlock, sde#0.waitlock taken holding s_lock#0x0 before";
        let wake = "wake_up(sdma-unfreeze-wq)".to_owned();
        // Enough tracepoints to fill their room, then a boundary line.
        let mut body: Vec<String> = (0..480).map(trace).collect();
        body.push(wake.clone());
        let mut c_lines = body[..30].to_vec();
        c_lines.extend(std::iter::repeat_n(lock.to_owned(), 40));
        c_lines.extend_from_slice(&body[30..]);
        let mut c = Outcome::new();
        c.journal = journal_room(c_lines);
        let mut r = Outcome::new();
        r.journal = journal_room(body.clone());
        assert_eq!(r.journal.last(), Some(&wake));
        assert!(r.journal.contains(&"trace journal-overflow".to_owned()));
        assert!(c.journal.contains(&"lockdep: journal-overflow".to_owned()));
        assert!(model_diff(&c, &r).is_empty(), "{:?}", model_diff(&c, &r));
        // One tracepoint more (a patch adding one) moves no boundary line.
        let mut more = body.clone();
        more.insert(0, trace(999));
        let mut m = Outcome::new();
        m.journal = journal_room(more);
        let keys: Vec<_> = m.diff(&r).into_iter().map(|x| x.0).collect();
        assert_eq!(keys, ["tracepoints"]);
        // A line that differs before the cut still shows.
        let mut other = body.clone();
        other[3] = "trace hfi1_sdma_progress(sde#1, 0x0, 0x3, (null))".into();
        r.journal = journal_room(other);
        assert!(!model_diff(&c, &r).is_empty());
    }

    /// The worker's buffer, which skips a world its id says it holds,
    /// writes byte for byte what filling every field writes, over a run
    /// that changes group, function and seed, and goes back to a world it
    /// held before, and over calls whose world has no id.
    #[test]
    fn a_flat_call_skips_only_the_world_it_holds() {
        let mut flat = Flat::default();
        let mut whole = Box::<shim_call>::default();
        let mut steps = vec![];
        for (seed, func) in [
            (1, Func::SetupWqe),
            (1, Func::ModifyQp),
            (2, Func::SetupWqe),
        ] {
            steps.extend((0..20).map(|i| (seed, func, i)));
        }
        steps.push((1, Func::SetupWqe, 3));
        steps.push((1, Func::SetupWqe, 4));
        let mut c = crate::generate::blank(Func::SetupWqe);
        for (n, &(seed, func, i)) in steps.iter().enumerate() {
            let id = crate::generate::seeded_call_into(seed, func, i, &mut c);
            assert!(id.is_some());
            // Every fifth call as a caller without an id, with its own world.
            let id = if n % 5 == 4 {
                c.world.qos_shift ^= 1;
                None
            } else {
                id
            };
            fill_shim(&c, &mut whole);
            let s = flat.fill(&c, id);
            assert!(
                crate::cworld::ffi::as_bytes(s) == crate::cworld::ffi::as_bytes(&*whole),
                "step {n}: {seed} {func} #{i}"
            );
        }
    }

    /// The model's NULL index is the shim's SHIM_NONE byte.
    #[test]
    fn null_index_is_shim_none() {
        let null = NullableIdx::<EngineIdx>::default();
        assert_eq!(null.raw() as i8, crate::cworld::ffi::SHIM_NONE as i8);
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

    /// `from_shim_into` leaves nothing of the outcome it overwrites: into
    /// a scratch outcome that held each other case, it gives what
    /// `from_shim` gives (journal lines split at newlines, empty lines
    /// none, invalid UTF-8 as U+FFFD).
    #[test]
    fn from_shim_into_overwrites_whole() {
        let cases = cases();
        for (i, c) in cases.iter().enumerate() {
            for (j, before) in cases.iter().enumerate() {
                let mut r = from_shim(before);
                from_shim_into(c, &mut r);
                assert_eq!(r, from_shim(c), "case {i} over case {j}");
            }
        }
        let r = from_shim(&cases[2]);
        assert_eq!(r.journal, ["hfi1_schedule_tid_send(qp#0x40)", "WARN(x)"]);
        assert_eq!(from_shim(&cases[7]).text, "\u{fffd}");
        assert_eq!(from_shim(&cases[16]).qp_unnamed, ["type"]);
    }

    /// The notes are read line by line, and an outcome read over one that
    /// had notes keeps none of them (`Notes` compares equal, so the
    /// assertions above cannot see them).
    #[test]
    fn from_shim_reads_the_notes_whole() {
        let mut o = outcome(b"", b"leak: kmalloc in f\n");
        let notes = b"leak: 8 bytes from qp.c:1 (kmalloc in f)\n\nsecond\n";
        for (d, b) in o.notes.iter_mut().zip(notes) {
            *d = *b as std::ffi::c_char;
        }
        o.notes_len = notes.len() as u32;
        let mut r = from_shim(&o);
        assert_eq!(
            r.notes.0,
            ["leak: 8 bytes from qp.c:1 (kmalloc in f)", "second"]
        );
        from_shim_into(&outcome(b"", b""), &mut r);
        assert!(r.notes.0.is_empty(), "{:?}", r.notes);
    }

    /// C outcomes that differ in text and journal (lines split
    /// differently, invalid UTF-8), then in one field each.
    fn cases() -> Vec<shim_outcome> {
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
            (b"\xff", b"\xfe\n"),
        ] {
            cases.push(outcome(text, journal));
        }
        // One field changed from the empty outcome, each.
        let changed: [fn(&mut shim_outcome); 9] = [
            |o| o.ret = -22,
            |o| o.call_send = 1,
            |o| o.sdma_engine = 3,
            |o| o.send_context = SHIM_FOREIGN as i16,
            |o| o.qp.s_flags = 1 << SHIM_RVT_S_BUSY,
            |o| o.s_flags_unknown = 0x8000_0000,
            |o| o.qp.priv_flags = 1,
            |o| o.qp.iowait_flags = 2,
            |o| o.qp.qp_type = 99,
        ];
        for f in changed {
            let mut o = outcome(b"", b"");
            f(&mut o);
            cases.push(o);
        }
        cases
    }

    /// `differs` is `!from_shim(o).diff(r).is_empty()`, shortcut or not:
    /// every C case against every model outcome (lines split differently,
    /// invalid UTF-8, an unnamed value, each field changed).
    #[test]
    fn differs_is_the_diff() {
        let cases = cases();
        let rs: Vec<Outcome> = cases.iter().map(from_shim).collect();
        let mut scratch = Outcome::new();
        for (i, c) in cases.iter().enumerate() {
            for (j, r) in rs.iter().enumerate() {
                assert_eq!(
                    differs(c, r, &mut scratch),
                    !from_shim(c).diff(r).is_empty(),
                    "C case {i}, Rust case {j}"
                );
            }
        }
        // The shortcut does not apply (U+FFFD), the diff decides: equal.
        assert!(!filled_alike(&cases[7], &rs[7]));
        assert!(!differs(&cases[7], &rs[7], &mut scratch));
        // Lines compare whole: "a","b" is not "ab", an empty line is none.
        assert!(!differs(&cases[1], &rs[2], &mut scratch));
        assert!(differs(&cases[4], &rs[6], &mut scratch));
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
