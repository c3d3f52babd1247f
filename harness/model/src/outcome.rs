//! What a call did: the flat outcome both sides report, and the
//! field-by-field difference between two of them.

use std::fmt;

use crate::types::{EngineIdx, Engines, Ptr, Qp, SendCtxIdx};

/// The QP's flag fields: an outcome shows and compares them together, as
/// `flags` (with the bits of `qp->s_flags` that have no name).
pub const FLAG_KEYS: [&str; 3] = ["s_flags", "priv_flags", "iowait_flags"];

/// How a journal line of a tracepoint hit starts (`trace NAME(args)`).
pub const TRACE: &str = "trace ";

/// How a journal line of the lock-order check starts (`lockdep: possible
/// ABBA deadlock: ...`): what upstream's locking did over a world's life,
/// a finding about upstream that no model mirrors. Its own category,
/// [`LOCKDEP_FIELD`], which a judgement against a model leaves out.
pub const LOCKDEP: &str = "lockdep: ";

/// The category of [`Outcome::diff`] that holds the lock-order lines.
pub const LOCKDEP_FIELD: &str = "lockdep";

/// A kind of journal line: a category of [`Outcome::diff`], and a room of
/// its own in the C world's journal (c-shim/mocks/journal.c), so that one
/// kind filling its room loses no line of another.
#[derive(Debug, PartialEq, Eq)]
pub struct JournalKind {
    /// The category's name in a difference.
    pub field: &'static str,
    /// How its lines start; empty for every line no other kind takes.
    pub prefix: &'static str,
    /// Its room in bytes, newlines included (shim.h).
    pub room: usize,
    /// The line written once where its room runs out.
    pub full: &'static str,
}

/// The kinds, in the order a difference lists them.
pub const JOURNAL_KINDS: [JournalKind; 3] = [
    JournalKind {
        field: "journal",
        prefix: "",
        room: crate::JOURNAL_ROOM,
        full: "journal-overflow",
    },
    JournalKind {
        field: "tracepoints",
        prefix: TRACE,
        room: crate::JOURNAL_ROOM,
        full: "trace journal-overflow",
    },
    JournalKind {
        field: LOCKDEP_FIELD,
        prefix: LOCKDEP,
        room: crate::LOCKDEP_ROOM,
        full: "lockdep: journal-overflow",
    },
];

/// The kind of journal line `line` is (its index in [`JOURNAL_KINDS`]).
pub fn journal_kind(line: &str) -> usize {
    JOURNAL_KINDS
        .iter()
        .position(|k| !k.prefix.is_empty() && line.starts_with(k.prefix))
        .unwrap_or(0)
}

/// Lines that explain an outcome's journal but move between releases
/// while the behaviour does not (a leak's size and `FILE:LINE`: `leak: 64
/// bytes from sdma.c:1412`, one for each `leak:` line, in order). Reports
/// show them; no comparison reads them: any two are equal, and they hash
/// to nothing, so an [`Outcome`]'s equality, hash and [`Outcome::diff`]
/// are its observed behaviour's alone. The C world writes them; the model
/// writes none.
#[derive(Debug, Clone, Default)]
pub struct Notes(pub Vec<String>);

impl PartialEq for Notes {
    fn eq(&self, _: &Notes) -> bool {
        true
    }
}

impl Eq for Notes {}

impl std::hash::Hash for Notes {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

/// The observable result of one call, from C or from the model.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The `int` return value (0 for functions returning a pointer).
    pub ret: i32,
    /// `*call_send` on exit (false for functions without it).
    pub call_send: bool,
    /// The SDMA engine returned, for the engine-selection functions.
    pub sdma_engine: Ptr<EngineIdx>,
    /// The send context returned, for the send-context functions.
    pub send_context: Ptr<SendCtxIdx>,
    /// The bits of `qp->s_flags` on exit that have no name (the named
    /// ones are `qp.s_flags`).
    pub s_flags_unknown: u32,
    /// The QP as the call left it: every field of the schema, read back
    /// (the post-call state, its flags included).
    pub qp: Qp,
    /// Fields of the QP or the engines whose value on exit has no name in
    /// the schema (a pointer out of the world, a state or flag no name
    /// has): the C side only.
    pub qp_unnamed: Vec<&'static str>,
    /// The send engines' state as the call left it: every field read back.
    pub engines: Engines,
    /// What the function printed to its seq_file.
    pub text: String,
    /// Boundary calls and warnings, in order, one line each.
    pub journal: Vec<String>,
    /// What explains the journal but is never compared ([`Notes`]).
    pub notes: Notes,
}

impl Outcome {
    /// Nothing returned, written or journaled yet (a blank QP).
    pub fn new() -> Outcome {
        Outcome {
            ret: 0,
            call_send: false,
            sdma_engine: Ptr::Null,
            send_context: Ptr::Null,
            s_flags_unknown: 0,
            qp: Qp::blank(),
            qp_unnamed: vec![],
            engines: Engines::blank(),
            text: String::new(),
            journal: vec![],
            notes: Notes::default(),
        }
    }
}

impl Default for Outcome {
    fn default() -> Self {
        Outcome::new()
    }
}

/// Writes a pointer the way snapshots and reports show it.
pub fn ptr_text<T: Copy>(p: Ptr<T>, prefix: &str, idx: impl Fn(T) -> u8) -> String {
    match p {
        Ptr::Null => "NULL".into(),
        Ptr::To(t) => format!("{prefix}#{}", idx(t)),
        Ptr::Foreign => "foreign".into(),
    }
}

impl Outcome {
    /// The returned engine, as reports show it.
    pub fn engine_text(&self) -> String {
        ptr_text(self.sdma_engine, "sde", |e| e.0)
    }

    /// The returned send context, as reports show it.
    pub fn send_context_text(&self) -> String {
        ptr_text(self.send_context, "sc", |s| s.0)
    }

    /// The QP's flags on one line.
    pub fn flags_text(&self) -> String {
        let names = |v: Vec<&str>| v.join(",");
        let mut s = format!(
            "s={{{}}} priv={{{}}} iowait={{{}}}",
            names(self.qp.s_flags.iter().map(|f| f.name()).collect()),
            names(self.qp.priv_flags.iter().map(|f| f.name()).collect()),
            names(self.qp.iowait_flags.iter().map(|f| f.name()).collect())
        );
        if self.s_flags_unknown != 0 {
            s.push_str(&format!(" s_unknown=0x{:x}", self.s_flags_unknown));
        }
        s
    }

    /// A journal's value in a difference, this outcome's notes after it
    /// (for reports: a difference's shape never reads them).
    pub fn with_notes(&self, journal: String) -> String {
        if self.notes.0.is_empty() {
            journal
        } else {
            format!(
                "{journal} (notes, not compared: {})",
                self.notes.0.join("; ")
            )
        }
    }

    /// The journal on one line (`-` when empty).
    pub fn journal_text(&self) -> String {
        if self.journal.is_empty() {
            "-".into()
        } else {
            self.journal.join("; ")
        }
    }

    /// `(field, C value, Rust value)` for every field that differs (a
    /// field of the post-call QP by its key, `refcount`): the harness's one
    /// judge of two outcomes (empty: they agree). Allocation-free when
    /// they agree.
    pub fn diff(&self, rust: &Outcome) -> Vec<(&'static str, String, String)> {
        let mut d = vec![];
        if self.ret != rust.ret {
            d.push(("ret", self.ret.to_string(), rust.ret.to_string()));
        }
        if self.call_send != rust.call_send {
            d.push((
                "call_send",
                self.call_send.to_string(),
                rust.call_send.to_string(),
            ));
        }
        if self.sdma_engine != rust.sdma_engine {
            d.push(("sdma_engine", self.engine_text(), rust.engine_text()));
        }
        if self.send_context != rust.send_context {
            d.push((
                "send_context",
                self.send_context_text(),
                rust.send_context_text(),
            ));
        }
        let changes = self.qp.changes(&rust.qp);
        if self.s_flags_unknown != rust.s_flags_unknown
            || changes.iter().any(|(k, _, _)| FLAG_KEYS.contains(k))
        {
            d.push(("flags", self.flags_text(), rust.flags_text()));
        }
        for (key, c, r) in changes {
            if !FLAG_KEYS.contains(&key) {
                d.push((key, c, r));
            }
        }
        d.extend(self.engines.changes(&rust.engines));
        if self.qp_unnamed != rust.qp_unnamed {
            d.push((
                "unnamed",
                self.qp_unnamed.join(","),
                rust.qp_unnamed.join(","),
            ));
        }
        if self.text != rust.text {
            d.push((
                "text",
                format!("{:?}", self.text),
                format!("{:?}", rust.text),
            ));
        }
        // Tracepoint hits and lock-order lines are their own categories: a
        // change that moves only them shows as `tracepoints` or `lockdep`,
        // the rest of the journal as `journal`.
        if self.journal != rust.journal {
            fn part(o: &Outcome, kind: usize) -> Vec<&str> {
                o.journal
                    .iter()
                    .map(String::as_str)
                    .filter(|l| journal_kind(l) == kind)
                    .collect()
            }
            let text = |v: Vec<&str>| {
                if v.is_empty() {
                    "-".into()
                } else {
                    v.join("; ")
                }
            };
            for (kind, k) in JOURNAL_KINDS.iter().enumerate() {
                let (c, r) = (part(self, kind), part(rust, kind));
                if c != r {
                    d.push((k.field, text(c), text(r)));
                }
            }
        }
        d
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ret={} call_send={} sde={} sc={} {} text={:?} journal=[{}]",
            self.ret,
            self.call_send,
            self.engine_text(),
            self.send_context_text(),
            self.flags_text(),
            self.text,
            self.journal_text()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(journal: &[&str]) -> Outcome {
        Outcome {
            journal: journal.iter().map(|s| s.to_string()).collect(),
            ..Outcome::new()
        }
    }

    /// Tracepoint hits are their own category: moving only them shows as
    /// `tracepoints`, moving only a boundary call as `journal`.
    #[test]
    fn tracepoints_are_their_own_category() {
        let keys = |a: &Outcome, b: &Outcome| -> Vec<&'static str> {
            a.diff(b).into_iter().map(|d| d.0).collect()
        };
        let base = with(&["trace hfi1_qpwakeup(qp#0x41, 0x1000)", "queue_work_on(1)"]);
        assert_eq!(keys(&base, &with(&["queue_work_on(1)"])), ["tracepoints"]);
        assert_eq!(
            keys(&base, &with(&["trace hfi1_qpwakeup(qp#0x41, 0x1000)"])),
            ["journal"]
        );
        assert_eq!(keys(&base, &with(&[])), ["journal", "tracepoints"]);
        assert!(keys(&base, &base.clone()).is_empty());
    }

    /// Notes (a leak's size and site) explain a journal and never make two
    /// outcomes differ: not in equality, the hash or the diff.
    #[test]
    fn notes_are_never_compared() {
        use std::hash::{BuildHasher, RandomState};
        let a = with(&["leak: kmalloc in sdma_init"]);
        let mut b = a.clone();
        b.notes = Notes(vec!["leak: 64 bytes from sdma.c:1412".into()]);
        assert_eq!(a, b);
        assert!(a.diff(&b).is_empty());
        let h = RandomState::new();
        assert_eq!(h.hash_one(&a), h.hash_one(&b));
        // The journal line itself still differs.
        assert_eq!(a.diff(&with(&[])).len(), 1);
    }

    /// The QP's flags differ once, together, as `flags` (and so do the
    /// bits without a name), never also under their own keys.
    #[test]
    fn flags_differ_once_as_flags() {
        let mut b = Outcome::new();
        b.qp.s_flags.insert(crate::types::SFlag::Busy);
        b.qp.iowait_flags
            .insert(crate::types::IowaitFlag::PendingIb);
        let keys = |a: &Outcome, b: &Outcome| -> Vec<&'static str> {
            a.diff(b).into_iter().map(|d| d.0).collect()
        };
        assert_eq!(keys(&Outcome::new(), &b), ["flags"]);
        let mut c = Outcome::new();
        c.s_flags_unknown = 0x100;
        assert_eq!(keys(&Outcome::new(), &c), ["flags"]);
        assert!(Outcome::new().diff(&b)[0].2.contains("s={RVT_S_BUSY}"));
    }

    /// A field of the post-call QP differs under its own key.
    #[test]
    fn post_call_fields_differ_by_key() {
        let mut b = Outcome::new();
        b.qp.refcount = 2;
        b.qp.on_wait_list = true;
        let d: Vec<&str> = Outcome::new().diff(&b).into_iter().map(|d| d.0).collect();
        assert_eq!(d, ["on_wait_list", "refcount"]);
    }
}
