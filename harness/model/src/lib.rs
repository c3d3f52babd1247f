//! hfi1-model: an independent Rust model of the upstream functions in
//! scope, and the vocabulary the harness judges any implementation in
//! (calls, worlds, outcomes, [`Implementation`]).
//!
//! This crate has no FFI and no dependency on the harness: the crate graph
//! states the layering (the harness depends on it, never the reverse).
//!
//! Written from reading the C (qp.c, sdma.c, pio.c, hfi.h, tid_rdma.h of
//! Linux 6.1 to 7.2), function by function; each function's doc comment
//! names the upstream function it mirrors. No FFI: the model sees only
//! [`types`], never a kernel struct.
//!
//! Where the C would read out of bounds the model returns
//! [`Undefined`]: the vector broke one of the world's invariants
//! (the harness's `corpus::invariants`), and there is no defined behaviour to
//! mirror.

pub mod alloc;
mod check_enable;
pub mod flags;
pub mod hfi;
pub mod iowait;
pub mod iter;
pub mod lifecycle;
pub mod modify;
pub mod mtu;
pub mod outcome;
pub mod pervl;
pub mod pio;
pub mod pio_chip;
pub mod pio_init;
pub mod pio_ring;
pub mod print;
pub mod qp;
pub mod sc_alloc;
pub mod sc_dump;
pub mod sc_state;
pub mod sched;
pub mod schema;
pub mod sdma;
pub mod sdma_all;
pub mod sdma_build;
pub mod sdma_dump;
pub mod sdma_init;
pub mod sdma_probe;
pub mod sdma_progress;
pub mod sdma_send;
pub mod sdma_state;
pub mod sdma_tx;
pub mod tid_rdma;
pub mod types;
pub mod user_sde;
pub mod vl_map;

use crate::outcome::Outcome;
use types::{Call, Ptr};

/// An implementation of the driver's QP logic the harness judges against
/// upstream C: the project's model ([`Model`]) is one; a Rust port of the
/// driver is another (docs/port.md, "Judging your own Rust port").
pub trait Implementation: Send + Sync {
    /// A short name for reports.
    fn name(&self) -> &str;
    /// What it does for `call` (every effect the outcome records), or
    /// [`Undefined`] when upstream's behaviour is undefined for the input.
    fn run(&self, call: &Call) -> Result<Outcome, Undefined>;
}

/// The project's model as an [`Implementation`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Model;

impl Implementation for Model {
    fn name(&self) -> &str {
        "the Rust model"
    }

    fn run(&self, call: &Call) -> Result<Outcome, Undefined> {
        run(call)
    }
}

/// Upstream behaviour is undefined for this input (named in the message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undefined(pub String);

/// The room of each of the C world's journal's boundary lines and its
/// tracepoint lines, in bytes (`SHIM_JOURNAL_ROOM`, c-shim/shim.h; the
/// harness holds the two equal): what a call records past it is lost, as
/// [`journal_room`] writes.
pub const JOURNAL_ROOM: usize = 16384;

/// The room of the C world's lock-order lines (`SHIM_LOCKDEP_ROOM`).
pub const LOCKDEP_ROOM: usize = 4096;

/// The room of the C world's text, in bytes (`SHIM_TEXT_BYTES`,
/// c-shim/shim.h; the harness holds the two equal): a describer writes
/// what fits and its NUL (c-shim/describe.c's `shim_put`), so the model's
/// text is cut at one byte less.
pub const TEXT_BYTES: usize = 4096;

/// The lines as the C journal holds them (journal_commit(),
/// c-shim/mocks/journal.c): each kind of line ([`outcome::JOURNAL_KINDS`])
/// in a room of its own, a line kept with its newline while its kind has
/// room for it and for the kind's overflow line; the first that does not
/// fit is replaced by that overflow line, and later lines of its kind are
/// dropped.
pub fn journal_room(lines: Vec<String>) -> Vec<String> {
    use outcome::{journal_kind, JOURNAL_KINDS};
    // Bytes used of each kind; None once it is full.
    let mut used = [Some(0usize); JOURNAL_KINDS.len()];
    // The common case: every kind would fit with all the lines.
    let total: usize = lines.iter().map(|l| l.len() + 1).sum();
    if JOURNAL_KINDS.iter().all(|k| total + k.full.len() < k.room) {
        return lines;
    }
    let mut out = Vec::with_capacity(lines.len());
    for l in lines {
        let k = journal_kind(&l);
        let kind = &JOURNAL_KINDS[k];
        let Some(u) = used[k] else { continue };
        if u + l.len() + 1 + kind.full.len() + 1 > kind.room {
            out.push(kind.full.to_owned());
            used[k] = None;
        } else {
            used[k] = Some(u + l.len() + 1);
            out.push(l);
        }
    }
    out
}

/// What the model records of boundary calls, in the C journal's words.
#[derive(Debug, Default)]
pub struct Journal {
    lines: Vec<String>,
    /// Where in `lines` each register read is (`read_csr`): a call's
    /// later reads are looked up among them, not among every line.
    reads: Vec<usize>,
    /// The time the call waited (`udelay` and kin), in ns.
    delay_ns: u64,
    /// What the call left of preemption disabled.
    preempt: i32,
}

impl Journal {
    /// Appends one line.
    pub fn record(&mut self, line: String) {
        self.lines.push(line);
    }

    /// `udelay(us)` (kcompat linux/delay.h): time does not pass in a C
    /// world; what a call waits is added up and journalled after it.
    pub fn udelay(&mut self, us: u64) {
        self.delay_ns = self.delay_ns.wrapping_add(us.wrapping_mul(1000));
    }

    /// `preempt_disable()` (kcompat linux/preempt.h): counted, and what
    /// a call leaves journalled after it.
    pub fn preempt_disable(&mut self) {
        self.preempt += 1;
    }

    /// The lines, and then what the shim journals after the call
    /// (c-shim/shim.c): the time it waited (`delay(N ns)`) and the
    /// preemption it left disabled (`preempt +N`), each when there is any;
    /// as much of them as the C journal's room holds.
    pub fn finish(mut self) -> Vec<String> {
        if self.delay_ns != 0 {
            self.lines.push(format!("delay({} ns)", self.delay_ns));
        }
        if self.preempt != 0 {
            self.lines.push(format!("preempt {:+}", self.preempt));
        }
        journal_room(self.lines)
    }

    /// A tracepoint hit, as the C world journals it (kcompat
    /// linux/tracepoint.h): `trace NAME(arg, arg)`, pointers by their
    /// world names, integers in hex (`0x{:x}`); one allocation.
    pub fn trace(&mut self, name: &str, args: std::fmt::Arguments<'_>) {
        self.lines.push(format!("trace {name}({args})"));
    }

    /// A register read (chip.c's `read_csr`, a boundary): journalled the
    /// first time a call reads that register, as the C mock does
    /// (c-shim/mocks/chip.c); a poll's further reads of it are not (what
    /// they return is the world's, the same every time).
    pub fn read_csr(&mut self, name: std::fmt::Arguments<'_>) {
        let line = format!("read_csr({name})");
        if !self.reads.iter().any(|&i| self.lines[i] == line) {
            self.reads.push(self.lines.len());
            self.lines.push(line);
        }
    }
}

/// The symbolic name the C world gives a QP pointer (`shim_ptr_name`).
pub fn qp_name(qp: &types::Qp) -> String {
    format!("qp#0x{:x}", qp.num)
}

/// The name the C world prints for a pointer to an engine or send context
/// (`shim_ptr_name`: `%p` in seq_printf, the path descriptions), and the
/// index `sde->this_idx` / `sc->sw_index` reads (0 when NULL).
pub fn ptr_name<T: Copy>(p: Ptr<T>, prefix: &str, idx: impl Fn(T) -> u8) -> (String, u32) {
    match p {
        Ptr::To(t) => (format!("{prefix}#{}", idx(t)), u32::from(idx(t))),
        Ptr::Null => ("(null)".into(), 0),
        Ptr::Foreign => ("ptr:foreign".into(), 0),
    }
}

/// What a function's model runs with — the world, QP and swqe the call's
/// pointers reach (the QP copied only by the functions that write it) —
/// and what it leaves: the outcome and the journal.
pub struct Cx<'a> {
    /// The world.
    pub w: &'a types::World,
    /// The QP, copied when the function writes it.
    pub qp: std::borrow::Cow<'a, types::Qp>,
    /// The swqe.
    pub wqe: &'a types::Wqe,
    /// The send engines' state, copied when the function writes it.
    pub engines: std::borrow::Cow<'a, types::Engines>,
    /// What the call leaves (its QP and engines are set from `qp` and
    /// `engines` at the end).
    pub out: Outcome,
    /// What the call journals.
    pub j: Journal,
}

/// A function in scope as the model runs it: implemented on the
/// function's argument record (`types::args::*`), next to the model
/// function it calls, so a function's arguments, model and dispatch live
/// in one module. [`run`] dispatches on [`types::Args`].
pub trait Mirror {
    /// Runs the function's model on `cx`.
    fn mirror(&self, cx: &mut Cx<'_>) -> Result<(), Undefined>;
}

/// Runs one call in the model.
pub fn run(call: &Call) -> Result<Outcome, Undefined> {
    let mut cx = Cx {
        w: &call.world,
        qp: std::borrow::Cow::Borrowed(&call.qp),
        wqe: &call.wqe,
        engines: std::borrow::Cow::Borrowed(&call.engines),
        out: Outcome::new(),
        j: Journal::default(),
    };
    call.args.mirror(&mut cx)?;
    let Cx {
        qp,
        engines,
        mut out,
        j,
        ..
    } = cx;
    out.qp = qp.into_owned();
    out.engines = engines.into_owned();
    out.journal = j.finish();
    if out.text.len() >= TEXT_BYTES {
        let mut end = TEXT_BYTES - 1;
        while !out.text.is_char_boundary(end) {
            end -= 1;
        }
        out.text.truncate(end);
    }
    Ok(out)
}

/// Looks up `v[i]`, or says which read upstream would make out of bounds.
pub(crate) fn at<'a, T>(v: &'a [T], i: usize, what: &str) -> Result<&'a T, Undefined> {
    v.get(i).ok_or_else(|| {
        Undefined(format!(
            "{what}[{i}] is out of bounds ({} entries)",
            v.len()
        ))
    })
}

/// Sets entry `i` of a field of the engines' state (`what`, its key).
pub(crate) fn put<T: Copy + Default + PartialEq, const N: usize>(
    p: &mut types::PerIndex<T, N>,
    i: usize,
    v: T,
    what: &str,
) -> Result<(), Undefined> {
    p.set(i, v).map_err(|_| {
        Undefined(format!(
            "engines.{what}: more than {} entries off their default (the record's room)",
            types::PER_INDEX_SLOTS
        ))
    })
}

pub(crate) fn null_or<T>(p: Option<T>) -> Ptr<T> {
    match p {
        Some(t) => Ptr::To(t),
        None => Ptr::Null,
    }
}
