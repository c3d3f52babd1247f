//! The requests a parent makes of its worker: batches of calls, ranges of
//! generated vectors judged or digested in the worker, and benchmarks.
//! Each finds the call to blame when the worker does not answer, confirms
//! it alone, and goes on with the rest in a fresh worker.

use std::io::Write;
use std::time::Duration;

use anyhow::{bail, Result};

use super::blame::{lost_from_io, lost_or_error, Lost};
use super::records::{FAULT_PROOFS, NOT_RUN};
use super::{fn_name, func_index, Worker};
use crate::cworld::channel::Channel;
use crate::cworld::fault::{CallResult, Fault};
use crate::cworld::ffi::{shim_call, shim_outcome};
use crate::cworld::protocol::{
    self, BenchReply, CallStatus, RandomFinding, Range, Repeat, RequestKind,
};
use crate::model::types::Func;

/// What a random range gave: the vectors where C and Rust parted, and the
/// vectors that did not return, each with its fault.
pub type RandomReply = (Vec<RandomFinding>, Vec<(u64, Fault)>);

impl Worker {
    /// Runs `calls` in one round trip. A call that crashes the worker, hangs
    /// or is refused by the sandbox is found by the heartbeat and confirmed
    /// alone in a fresh worker; the worker is restarted and the rest of the
    /// batch run, so that exactly that call is reported as a
    /// [`CallResult::Fault`].
    pub fn run_batch(&mut self, calls: &[shim_call]) -> Result<Vec<CallResult>> {
        self.run_batch_with(calls, true)
    }

    /// One call, a fault not confirmed (a step of a minimisation, whose
    /// result is confirmed once at the end).
    pub fn run_unconfirmed(&mut self, call: &shim_call) -> Result<CallResult> {
        let mut r = self.run_batch_with(std::slice::from_ref(call), false)?;
        r.pop()
            .ok_or_else(|| anyhow::anyhow!("the worker gave no result for the call"))
    }

    /// [`Worker::run_batch`], a fault confirmed alone only if `confirm`.
    ///
    /// A call with `SHIM_STEP_CARRIED` set is a scenario's later step: it runs on the
    /// state the call before it left in the same worker. A batch may not
    /// begin with one; one whose step before did not return is
    /// [`CallResult::NotRun`]; one blamed for a fault is confirmed with its
    /// scenario's steps before it, in a fresh worker.
    fn run_batch_with(&mut self, calls: &[shim_call], confirm: bool) -> Result<Vec<CallResult>> {
        if calls.first().is_some_and(carries) {
            bail!("a batch of calls begins with a later step of a scenario (carry set)");
        }
        let mut out = Vec::with_capacity(calls.len());
        while out.len() < calls.len() {
            let base = out.len();
            let rest = &calls[base..];
            if carries(&rest[0]) && !matches!(out.last(), Some(CallResult::Done(_))) {
                out.push(CallResult::NotRun);
                continue;
            }
            if let Some(f) = self.presumed_fault(rest[0].fn_) {
                out.push(CallResult::Fault(f));
                continue;
            }
            let upto = rest
                .iter()
                .position(|c| self.presumed_fault(c.fn_).is_some())
                .unwrap_or(rest.len());
            let rest = &rest[..upto];
            let lost = self.send_batch(rest, &mut out)?;
            let came = out.len() - base;
            self.note_returned(rest[..came].iter().map(|c| c.fn_));
            let Some(lost) = lost else {
                continue;
            };
            let (index, fault) = self.blame(lost, "a batch of calls")?;
            let culprit = (index as usize).min(rest.len() - 1);
            // Replies before the culprit may not have arrived: they run
            // again in a fresh worker, from their scenario's first step.
            let got = out.len() - base;
            if got < culprit {
                let from = scenario_start(rest, got);
                let again = self.run_batch_with(&rest[from..culprit], confirm)?;
                out.extend(again.into_iter().skip(got - from));
            }
            out.truncate(base + culprit);
            let call = &rest[culprit];
            let fault = if confirm {
                let what = format!("call {} of a batch ({})", base + culprit, fn_name(call.fn_));
                // Alone: with the steps of its scenario before it, if any.
                let alone = &rest[scenario_start(rest, culprit)..=culprit];
                self.confirm(call.fn_, fault, &what, |w| {
                    Ok(match w.send_batch(alone, &mut vec![])? {
                        None => Ok(()),
                        Some(lost) => Err(lost),
                    })
                })?
            } else {
                fault
            };
            out.push(CallResult::Fault(fault));
        }
        Ok(out)
    }

    /// One request of calls; replies are appended to `out` as they arrive.
    /// Its first call must not carry (the worker may be a fresh one).
    /// `Ok(None)`: all came back.
    fn send_batch(
        &mut self,
        calls: &[shim_call],
        out: &mut Vec<CallResult>,
    ) -> Result<Option<Lost>> {
        self.ensure_started()?;
        self.heartbeat.set(0);
        let limits: Vec<Duration> = calls.iter().map(|c| self.limit_for(c.fn_)).collect();
        let call_limit = self.call_limit;
        let hb = self.heartbeat.clone();
        let ch = self.channel()?;
        ch.set_call_limits(call_limit, limits);
        if let Err(e) = protocol::write_calls(ch, calls) {
            return Ok(Some(lost_from_io(&e, &hb, Some(ch))));
        }
        // One C outcome read into, each read as the model's outcome at
        // once: a batch keeps no C struct per call.
        let mut raw = Box::<shim_outcome>::default();
        for _ in calls {
            let status = match protocol::read_outcome_into(ch, &mut raw) {
                Ok(status) => status,
                Err(e) => return lost_or_error(e, &hb, Some(ch)).map(Some),
            };
            out.push(match status {
                CallStatus::Ran => CallResult::Done(Box::new(crate::cworld::call::from_shim(&raw))),
                CallStatus::Refused => CallResult::Malformed,
            });
        }
        Ok(None)
    }

    /// One request whose reply is read by `reply`, every call of it under
    /// `limit`; `Ok(Err(Lost))` when the worker stopped or hung on the way.
    fn roundtrip<T>(
        &mut self,
        request: &[u8],
        limit: Duration,
        reply: impl FnOnce(&mut Channel) -> Result<T>,
    ) -> Result<Result<T, Lost>> {
        self.ensure_started()?;
        self.heartbeat.set(0);
        let hb = self.heartbeat.clone();
        let ch = self.channel()?;
        ch.set_call_limits(limit, vec![]);
        let r = ch
            .write_all(request)
            .and_then(|()| ch.flush())
            .map_err(anyhow::Error::from)
            .and_then(|()| reply(ch));
        match r {
            Ok(t) => Ok(Ok(t)),
            Err(e) => lost_or_error(e, &hb, Some(ch)).map(Err),
        }
    }

    /// One [`RequestKind::Random`] request.
    fn random_once(&mut self, range: Range) -> Result<Result<Vec<RandomFinding>, Lost>> {
        let limit = self.limit_for(range.func);
        let r = self.roundtrip(
            &range.request(RequestKind::Random),
            limit,
            protocol::read_findings,
        )?;
        if r.is_ok() && range.count > 0 {
            self.note_returned(std::iter::once(range.func));
        }
        Ok(r)
    }

    /// Generated vectors `start..start + count` of `func` from `seed`, run
    /// and judged inside the worker. A vector that crashes the worker, hangs
    /// or is refused by the sandbox is found by the heartbeat and confirmed
    /// alone; the worker is restarted and the rest of the range run, so
    /// that exactly those vectors come back as faults.
    pub fn run_random(
        &mut self,
        func: Func,
        seed: u64,
        start: u64,
        count: u64,
    ) -> Result<RandomReply> {
        let f = func_index(func);
        let (mut found, mut faults) = (vec![], vec![]);
        let (mut at, end) = (start, start + count);
        // A loop, not a recursion: a tree that faults on every vector
        // costs one round a vector, not a stack frame.
        while at < end {
            let n = end - at;
            let range = |start, count| Range {
                func: f,
                seed,
                start,
                count,
            };
            let lost = match self.random_once(range(at, n))? {
                Ok(v) => {
                    found.extend(v);
                    break;
                }
                Err(lost) => lost,
            };
            let (index, fault) = self.blame(lost, "generated vectors")?;
            let culprit = index.min(n - 1);
            let what = format!("generated vector {} of {func} (seed {seed})", at + culprit);
            let fault = self.confirm(f, fault, &what, |w| {
                Ok(w.random_once(range(at + culprit, 1))?.map(|_| ()))
            })?;
            // The vectors before it returned, but their verdicts went
            // with the worker.
            if culprit > 0 {
                let (fd, fl) = self.run_random(func, seed, at, culprit)?;
                found.extend(fd);
                faults.extend(fl);
            }
            faults.push((at + culprit, fault));
            at += culprit + 1;
        }
        faults.sort_by_key(|x| x.0);
        Ok((found, faults))
    }

    /// One [`RequestKind::Digest`] request.
    fn digests_once(&mut self, range: Range) -> Result<Result<Vec<Option<u64>>, Lost>> {
        let limit = self.limit_for(range.func);
        let r = self.roundtrip(&range.request(RequestKind::Digest), limit, |rd| {
            (0..range.count)
                .map(|_| Ok(Some(protocol::read_u64(rd)?)))
                .collect()
        })?;
        if r.is_ok() && range.count > 0 {
            self.note_returned(std::iter::once(range.func));
        }
        Ok(r)
    }

    /// Digests of generated vectors `start..start + count` of `func` from
    /// `seed` in this world (equal digests: equal outcomes); `None` for a
    /// vector that did not return, its fault confirmed alone (and found
    /// again when the vector is run alone).
    pub fn digests(
        &mut self,
        func: Func,
        seed: u64,
        start: u64,
        count: u64,
    ) -> Result<Vec<Option<u64>>> {
        let f = func_index(func);
        let mut out = Vec::with_capacity(count as usize);
        let (mut at, end) = (start, start + count);
        let mut confirmed = 0u64;
        while at < end {
            if self.presumed_fault(f).is_some() {
                out.resize(count as usize, None);
                break;
            }
            if self.cut_storms && confirmed >= FAULT_PROOFS {
                out.resize(count as usize, Some(NOT_RUN));
                break;
            }
            let n = end - at;
            let range = |start, count| Range {
                func: f,
                seed,
                start,
                count,
            };
            let lost = match self.digests_once(range(at, n))? {
                Ok(v) => {
                    out.extend(v);
                    break;
                }
                Err(lost) => lost,
            };
            let (index, fault) = self.blame(lost, "digests of generated vectors")?;
            let culprit = index.min(n - 1);
            let what = format!("generated vector {} of {func} (seed {seed})", at + culprit);
            self.confirm(f, fault, &what, |w| {
                Ok(w.digests_once(range(at + culprit, 1))?.map(|_| ()))
            })?;
            if culprit > 0 {
                out.extend(self.digests(func, seed, at, culprit)?);
            }
            out.push(None);
            confirmed += 1;
            at += culprit + 1;
        }
        Ok(out)
    }

    /// The raw upstream call, in the worker: generated vector 0 of `func`
    /// built once and called `iters` times: (elapsed ns, checksum). The
    /// call limit covers the whole loop: keep `iters` to seconds.
    pub fn bench_raw(&mut self, func: Func, seed: u64, iters: u64) -> Result<(u64, u64)> {
        let req = Repeat {
            func: func_index(func),
            seed,
            times: iters,
        }
        .request(RequestKind::Raw);
        let limit = self.call_limit;
        let r = self.roundtrip(&req, limit, |rd| {
            Ok((protocol::read_u64(rd)?, protocol::read_u64(rd)?))
        })?;
        self.benchmark_reply(r)
    }

    /// The in-worker benchmark of the `--random` loop over `count`
    /// generated vectors of `func`.
    pub fn bench(&mut self, func: Func, seed: u64, count: u64) -> Result<BenchReply> {
        let req = Repeat {
            func: func_index(func),
            seed,
            times: count,
        }
        .request(RequestKind::Bench);
        let limit = self.call_limit;
        let r = self.roundtrip(&req, limit, BenchReply::read)?;
        self.benchmark_reply(r)
    }

    /// A benchmark's reply, or an error saying why the worker stopped.
    fn benchmark_reply<T>(&mut self, r: Result<T, Lost>) -> Result<T> {
        match r {
            Ok(r) => Ok(r),
            Err(lost) => {
                let fault = match self.blame(lost, "the benchmark") {
                    Ok((_, f)) => f.to_string(),
                    Err(e) => format!("{e:#}"),
                };
                bail!("the worker stopped during the benchmark: {fault}")
            }
        }
    }
}

/// The index of the first step of the scenario `calls[i]` belongs to (`i`
/// itself for a call that does not carry); a batch begins with one.
fn scenario_start(calls: &[shim_call], i: usize) -> usize {
    (0..=i).rev().find(|&j| !carries(&calls[j])).unwrap_or(0)
}

/// Whether `c` is a scenario's later step (it runs on the state the call
/// before it kept).
fn carries(c: &shim_call) -> bool {
    c.carry & crate::cworld::ffi::SHIM_STEP_CARRIED != 0
}
