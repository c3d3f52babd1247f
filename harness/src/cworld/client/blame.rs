//! When a request does not come back: where the worker was (the
//! heartbeat), what became of it (its exit, its log's last words), which
//! call is to blame, and whether that call faults again alone.

use std::time::Duration;

use anyhow::Result;

use super::Worker;
use crate::cworld::channel::{self, Channel, Stall};
use crate::cworld::fault::{Fault, HarnessFault};
use crate::cworld::heartbeat::{Beat, Heartbeat};
use crate::cworld::limits::idle_limit;
use crate::sandbox;

/// Why a request did not come back.
pub(super) enum Lost {
    /// The worker stopped; where its heartbeat was then.
    Died(Beat),
    /// Call `index` of the request ran for its whole `limit`.
    Hung {
        /// The call's place in the request.
        index: u64,
        /// The limit it ran for.
        limit: Duration,
    },
    /// The worker made no progress outside any call: the harness's fault.
    Stalled,
}

/// What an I/O error on a worker's pipes says about where the worker was.
pub(super) fn lost_from_io(e: &std::io::Error, hb: &Heartbeat, ch: Option<&Channel>) -> Lost {
    match channel::stall_of(e) {
        Some(Stall::Call(index)) => Lost::Hung {
            index,
            limit: ch.map_or(Duration::ZERO, |c| c.limit_of(index)),
        },
        Some(Stall::Idle) => Lost::Stalled,
        None => Lost::Died(Beat::decode(hb.get())),
    }
}

/// An error met sending a request or reading its reply: an I/O error is
/// a lost request (`Ok`); any other, a reply that breaks the protocol, is
/// the harness's own error (`Err`).
pub(super) fn lost_or_error(
    e: anyhow::Error,
    hb: &Heartbeat,
    ch: Option<&Channel>,
) -> Result<Lost> {
    match e.downcast::<std::io::Error>() {
        Ok(io) => Ok(lost_from_io(&io, hb, ch)),
        Err(e) => Err(e),
    }
}

impl Worker {
    /// The lines of the worker log that say why it stopped: a denied
    /// system call, the sanitizer's report, the worker's own error.
    fn last_words(&self) -> (Option<String>, Option<String>) {
        let Ok(text) = std::fs::read_to_string(&self.log) else {
            return (None, None);
        };
        let denied = text
            .lines()
            .find_map(|l| l.strip_prefix(sandbox::DENIED_MARK))
            .map(str::to_owned);
        let interesting: Vec<&str> = text
            .lines()
            .filter(|l| {
                l.contains("runtime error")
                    || l.contains("ERROR: AddressSanitizer")
                    || l.contains("SUMMARY:")
                    || l.starts_with("hfi1 worker:")
                    || l.contains("error while loading shared libraries")
                    || l.starts_with("bwrap:")
                    || l.starts_with("setpriv:")
            })
            .collect();
        (
            denied,
            (!interesting.is_empty()).then(|| interesting.join(" | ")),
        )
    }

    /// Stops the worker (killing it if it `hung` past that limit) and says
    /// what happened.
    pub(super) fn stop(&mut self, hung: Option<Duration>) -> Fault {
        let child = if hung.is_some() {
            self.kill()
        } else {
            self.child.take().map(|(c, _)| c)
        };
        let Some(mut child) = child else {
            return Fault::Crashed("worker not running".into());
        };
        let status = child.wait();
        if let Some(limit) = hung {
            return Fault::Hung(self.hang_text(limit));
        }
        let (denied, words) = self.last_words();
        if let Some(call) = denied {
            return Fault::Denied(call);
        }
        let why = match status {
            Ok(st) => {
                use std::os::unix::process::ExitStatusExt;
                // bubblewrap reports its child's death by signal N as
                // exit status 128 + N (the worker itself never exits so).
                match st
                    .signal()
                    .or(st.code().filter(|c| *c > 128).map(|c| c - 128))
                {
                    Some(sig) => format!("killed by signal {sig} ({})", signal_name(sig)),
                    None => format!("worker exited with {st}"),
                }
            }
            Err(e) => format!("worker lost: {e}"),
        };
        Fault::Crashed(match words {
            Some(w) => format!("{why}: {w}"),
            None => why,
        })
    }

    /// What a hang past `limit` is reported as.
    fn hang_text(&self, limit: Duration) -> String {
        if limit < self.call_limit {
            format!(
                "no return within {:.2} s (the shortened limit of a function already shown \
                 to hang in this run); the worker was killed",
                limit.as_secs_f64()
            )
        } else {
            format!(
                "no return within {:.1} s (the call limit; --call-timeout or \
                 HFI1_CALL_TIMEOUT changes it); the worker was killed",
                limit.as_secs_f64()
            )
        }
    }

    /// Stops the worker after a lost request and names the call to blame:
    /// `(index in the request, fault)`. A worker that stopped or stalled
    /// outside any call is the harness's fault.
    pub(super) fn blame(&mut self, lost: Lost, request: &str) -> Result<(u64, Fault)> {
        match lost {
            Lost::Hung { index, limit } => Ok((index, self.stop(Some(limit)))),
            Lost::Died(Beat::InCall(index)) => Ok((index, self.stop(None))),
            Lost::Died(Beat::Between) => {
                let f = self.stop(None);
                Err(HarnessFault(format!(
                    "the worker for {} stopped outside any call during {request} ({f})",
                    self.so.display()
                ))
                .into())
            }
            Lost::Stalled => {
                let limit = idle_limit(self.call_limit);
                self.kill();
                Err(HarnessFault(format!(
                    "the worker for {} made no progress outside any call for {:.0} s during \
                     {request}",
                    self.so.display(),
                    limit.as_secs_f64()
                ))
                .into())
            }
        }
    }

    /// Runs the call blamed for `first` again, alone, in a fresh worker
    /// (`again` makes the request; `Ok(())`: it returned). The fault is
    /// the vector's only if it happens again the same way; a confirmed
    /// hang shortens the function's later calls in this world.
    pub(super) fn confirm(
        &mut self,
        func: u32,
        first: Fault,
        what: &str,
        again: impl FnOnce(&mut Worker) -> Result<Result<(), Lost>>,
    ) -> Result<Fault> {
        // A fresh worker: nothing run before can matter.
        self.retire();
        let second = match again(self)? {
            Ok(()) => None,
            Err(lost) => Some(self.blame(lost, &format!("the re-run of {what}"))?.1),
        };
        match second {
            Some(f) if f.same_kind(&first) => {
                self.update_record(func, |r| {
                    r.faults += 1;
                    r.hangs += u64::from(matches!(first, Fault::Hung(_)));
                    r.last = Some(first.clone());
                });
                Ok(first)
            }
            second => Err(HarnessFault(format!(
                "{what} in {}: first run, in a batch: {first}; run again alone in a fresh \
                 worker: {}. {}",
                self.so.display(),
                match second {
                    Some(f) => f.to_string(),
                    None => "it returned".to_owned(),
                },
                match first {
                    Fault::Hung(_) => "A call that hangs only sometimes points at a loaded machine",
                    _ => {
                        "A fault that needs the calls before it in the same worker points at \
                         state that outlives a call (in the tree or in the harness's reset)"
                    }
                }
            ))
            .into()),
        }
    }
}

/// The name of signal `sig`, for a crash's report.
fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGILL => "SIGILL",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSYS => "SIGSYS",
        libc::SIGXCPU => "SIGXCPU: CPU time limit",
        libc::SIGXFSZ => "SIGXFSZ: file size limit",
        _ => "signal",
    }
}
