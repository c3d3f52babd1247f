//! How a call in a C world ends: what it gave ([`CallResult`]), the
//! faults that are a vector's findings ([`Fault`]), and the one that is the
//! harness's own ([`HarnessFault`]).

use crate::model::outcome::Outcome;

/// How a call ended without returning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// The worker died running it: the signal or exit status, and the
    /// sanitizer's or C library's last words.
    Crashed(String),
    /// It ran longer than the call limit; the worker was killed.
    Hung(String),
    /// It made a system call the sandbox refuses (named).
    Denied(String),
}

impl Fault {
    /// The same kind of fault: both crashed, both hung, or both were
    /// refused the same system call. The texts (a signal, a limit, a
    /// sanitizer's words) may differ.
    pub fn same_kind(&self, other: &Fault) -> bool {
        match (self, other) {
            (Fault::Denied(a), Fault::Denied(b)) => a == b,
            _ => self.word() == other.word(),
        }
    }

    /// `crashed`, `hang`, `denied`.
    pub fn word(&self) -> &'static str {
        match self {
            Fault::Crashed(_) => "crashed",
            Fault::Hung(_) => "hang",
            Fault::Denied(_) => "denied",
        }
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Crashed(why) => write!(f, "the C world crashed: {why}"),
            Fault::Hung(why) => write!(f, "hang: {why}"),
            Fault::Denied(call) => write!(f, "denied: {call} (the sandbox refuses it)"),
        }
    }
}

/// What running one call in a C world gave.
#[derive(Debug, Clone)]
pub enum CallResult {
    /// The function returned; this is what it did, read from the C
    /// world's outcome as it arrived (`call::from_shim`): the C struct,
    /// tens of KiB for its text and journal rooms, is not kept.
    Done(Box<Outcome>),
    /// `shim_run` refused the call as malformed (a harness bug or a vector
    /// outside the ABI's limits).
    Malformed,
    /// The call did not return: the worker crashed, hung or was stopped.
    Fault(Fault),
    /// A later step of a scenario (`shim_call.carry`) whose step before did
    /// not return: there is no state to run it on, so it did not run.
    NotRun,
}

/// A fault that was not the vector's: it did not happen again when the
/// call ran alone in a fresh worker, or the worker stopped or stalled
/// outside any call. Never reported as a finding; commands exit 2 on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HarnessFault(pub String);

impl std::fmt::Display for HarnessFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "harness fault, not a finding: {}. Nothing is reported for the vector. \
             On a loaded or slow machine, raise the call limit (--call-timeout or \
             HFI1_CALL_TIMEOUT, seconds) and run again; if it persists, report it with \
             this message",
            self.0
        )
    }
}

impl std::error::Error for HarnessFault {}

impl HarnessFault {
    /// Whether `e` is (or was caused by) a harness fault: such an error
    /// ends the run (exit 2), it is never folded into a verdict.
    pub fn in_chain(e: &anyhow::Error) -> bool {
        e.chain().any(|c| c.is::<HarnessFault>())
    }
}
