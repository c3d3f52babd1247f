//! The parent side of a worker: starting it in the sandbox, sending
//! requests, reading replies, and telling a vector's fault from the
//! harness's own.
//!
//! A call blamed for a fault (it crashed the worker, hung, or made a
//! system call the sandbox refuses) is run again alone in a fresh worker
//! before it is reported: only a fault that happens again the same way is
//! the vector's finding. One that does not is a [`HarnessFault`], an error
//! (exit 2) that names both runs. After a function's first confirmed hang,
//! its later calls in the same world run under a [shortened
//! limit](short_limit): they cannot prove more than the first did, and a
//! looping tree costs a fraction of a second a vector instead of seconds.

use std::collections::BTreeMap;
use std::sync::Mutex;

use super::channel::{self, Channel, Stall};
use super::heartbeat::Beat;
use super::*;

/// A started worker: its process and its pipes.
type Running = (Child, Channel);

/// A worker process serving one C world, in the sandbox.
pub struct Worker {
    so: PathBuf,
    world_dir: PathBuf,
    exe: PathBuf,
    opts: BuildOptions,
    child: Option<Running>,
    /// Extra environment for the worker (for example LD_PRELOAD for ASan).
    env: Vec<(String, String)>,
    /// Where the worker's stderr goes, to quote it when it dies: a private
    /// file of this process (never in the cache, which may be read-only),
    /// removed with the worker.
    log: PathBuf,
    heartbeat: Arc<Heartbeat>,
    call_limit: Duration,
    /// See [`Worker::presume_hangs`].
    presume: Option<u64>,
}

/// Why a request did not come back.
enum Lost {
    /// The worker stopped; where its heartbeat was then.
    Died(Beat),
    /// Call `index` of the request ran for its whole `limit`.
    Hung { index: u64, limit: Duration },
    /// The worker made no progress outside any call: the harness's fault.
    Stalled,
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

/// The limit of a call of a function already shown to hang in its world:
/// a fortieth of the call limit, at least 50 ms (calls take microseconds;
/// a call still running after 50 ms of a function that loops elsewhere is
/// taken for a hang, then confirmed alone under the same limit).
pub fn short_limit(limit: Duration) -> Duration {
    (limit / 40).max(Duration::from_millis(50)).min(limit)
}

/// How long a worker may make no progress outside any call before the
/// harness gives up on it (its own fault): ten call limits, at least 30 s.
fn idle_limit(call_limit: Duration) -> Duration {
    (call_limit * 10).max(Duration::from_secs(30))
}

/// What a function has done in a world, in this process: its confirmed
/// faults (the last kept) and hangs, and whether any call returned.
#[derive(Debug, Default, Clone)]
struct Record {
    faults: u64,
    hangs: u64,
    returned: bool,
    last: Option<Fault>,
}

/// Records by world and function index.
static RECORDS: Mutex<BTreeMap<(PathBuf, u32), Record>> = Mutex::new(BTreeMap::new());

/// After this many confirmed faults of a function that never returned in
/// a world, a comparison of two worlds no longer runs its calls
/// ([`Worker::presume_hangs`]).
pub const HANG_PROOFS: u64 = 64;

fn func_index(f: crate::model::types::Func) -> u32 {
    crate::model::types::Symbol::index(f)
}

/// What a lost request says about where the worker was.
fn lost_of(e: &std::io::Error, hb: &Heartbeat, ch: Option<&Channel>) -> Lost {
    match channel::stall_of(e) {
        Some(Stall::Call(index)) => Lost::Hung {
            index,
            limit: ch.map_or(Duration::ZERO, |c| c.limit_of(index)),
        },
        Some(Stall::Idle) => Lost::Stalled,
        None => Lost::Died(Beat::decode(hb.get())),
    }
}

fn lost_of_any(e: &anyhow::Error, hb: &Heartbeat, ch: Option<&Channel>) -> Lost {
    match e.downcast_ref::<std::io::Error>() {
        Some(io) => lost_of(io, hb, ch),
        None => Lost::Died(Beat::decode(hb.get())),
    }
}
static WORKERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Worker {
    /// A worker for `world`, started on first use.
    pub fn new(world: &BuiltWorld) -> Result<Worker> {
        let mut env = vec![];
        if world.opts.sanitize {
            // The sanitizer runtime must come first in a process that was
            // not built with it.
            let out =
                std::process::Command::new(std::env::var("CC").unwrap_or_else(|_| "gcc".into()))
                    .arg("-print-file-name=libasan.so")
                    .output()
                    .context("locating libasan")?;
            let asan = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            env.push(("LD_PRELOAD".to_owned(), asan));
            // ASan's shadow needs terabytes of address space, so RLIMIT_AS
            // cannot bound its memory: its own allocator limit and RSS
            // limit do. No symbolizer: it would be a new process.
            let mb = Limits::WORKER.address_space.unwrap_or(4 << 30) >> 20;
            env.push((
                "ASAN_OPTIONS".to_owned(),
                format!(
                    "detect_leaks=0:abort_on_error=1:symbolize=0:malloc_limit_mb={mb}:max_allocation_size_mb={mb}:\
                     hard_rss_limit_mb={mb}:allocator_may_return_null=0"
                ),
            ));
            env.push((
                "UBSAN_OPTIONS".to_owned(),
                "halt_on_error=1:abort_on_error=1:print_stacktrace=1:symbolize=0".to_owned(),
            ));
        }
        let n = WORKERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if n == 0 {
            remove_stale_logs();
        }
        let log = std::env::temp_dir().join(format!(
            "hfi1-conformance-worker-{}-{n}.log",
            std::process::id()
        ));
        Ok(Worker {
            so: world.so.clone(),
            world_dir: world.dir.clone(),
            exe: running_exe()?,
            opts: world.opts.clone(),
            child: None,
            env,
            log,
            heartbeat: Arc::new(Heartbeat::new()?),
            call_limit: call_timeout(&world.opts),
            presume: None,
        })
    }

    /// Changes the call limit of this worker (tests of the watchdog).
    pub fn set_call_timeout(&mut self, d: Duration) {
        self.call_limit = d;
        if let Some((_, ch)) = self.child.as_mut() {
            ch.call_limit = d;
            ch.idle_limit = idle_limit(d);
        }
    }

    /// The limit of one call of function `f` (by index): shortened once
    /// the function has been shown to hang in this world.
    fn limit_for(&self, f: u32) -> Duration {
        if self.hangs(f) > 0 {
            short_limit(self.call_limit)
        } else {
            self.call_limit
        }
    }

    /// What function `f` has done in this world, in this process.
    fn record(&self, f: u32) -> Record {
        RECORDS
            .lock()
            .map(|r| r.get(&(self.so.clone(), f)).cloned().unwrap_or_default())
            .unwrap_or_default()
    }

    fn update(&self, f: u32, change: impl FnOnce(&mut Record)) {
        if let Ok(mut r) = RECORDS.lock() {
            change(r.entry((self.so.clone(), f)).or_default());
        }
    }

    /// Notes that calls of these functions returned.
    fn returned(&self, fs: impl Iterator<Item = u32>) {
        let mut fs: Vec<u32> = fs.collect();
        fs.sort_unstable();
        fs.dedup();
        for f in fs {
            if !self.record(f).returned {
                self.update(f, |r| r.returned = true);
            }
        }
    }

    /// Confirmed hangs of function `f` in this world, in this process.
    fn hangs(&self, f: u32) -> u64 {
        self.record(f).hangs
    }

    /// Once a function that never returned in this world has faulted
    /// `after` times, each confirmed alone, its further calls are not run
    /// but reported as that fault, "presumed" in its text. For
    /// comparisons of two worlds (gate, diff, sweep, mutants:
    /// [`HANG_PROOFS`]) and measurements (coverage, the gate's model
    /// check: 1), whose verdict needs no more proof: a tree whose function
    /// never returns costs seconds, not a call limit for each of 80,000
    /// vectors. A function that returned even once is always run. Runs
    /// that report each vector (the corpus, `--random`) never presume.
    pub fn presume_hangs(&mut self, after: u64) {
        self.presume = Some(after.max(1));
    }

    fn presumed(&self, f: u32) -> Option<Fault> {
        let after = self.presume?;
        let r = self.record(f);
        if r.returned || r.faults < after {
            return None;
        }
        let why = format!(
            "presumed, not run: {} never returned in this world and faulted so on {} \
             vectors, each confirmed alone",
            fn_name(f),
            r.faults
        );
        Some(match r.last? {
            Fault::Hung(_) => Fault::Hung(why),
            Fault::Crashed(_) => Fault::Crashed(why),
            Fault::Denied(call) => Fault::Denied(call),
        })
    }

    fn channel(&mut self) -> Result<&mut Channel> {
        Ok(&mut self.child.as_mut().context("worker not running")?.1)
    }

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

    fn start(&mut self) -> Result<()> {
        let sb = Sandbox::get()?;
        let log = std::fs::File::create(&self.log)
            .with_context(|| format!("creating the worker log {}", self.log.display()))?;
        let mut limits = Limits::WORKER;
        if self.opts.sanitize {
            limits.address_space = None;
        }
        // The worker runs this very program, even when a rebuild has
        // replaced the file at its path (a bot upgraded while a long sweep
        // runs): then a private copy of it is bound there.
        let mut spec = Spec::new(limits)
            .read_only_from(&self.exe, exe_source(&self.exe)?)
            .env(WORKER_ENV, &self.so)
            .env(HEARTBEAT_ENV, HEARTBEAT_FD.to_string());
        // A coverage world's counters are written next to its objects.
        spec = if self.opts.coverage {
            spec.writable(&self.world_dir)
        } else {
            spec.read_only(&self.world_dir)
        };
        if sb.is_on() {
            spec = spec.env(sandbox::CONFINE_ENV, "1");
        }
        for (k, v) in &self.env {
            spec = spec.env(k, v);
        }
        let mut cmd = sb.command(&spec, &self.exe)?;
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log));
        let fd = self.heartbeat.fd();
        // SAFETY: dup2 and fcntl are async-signal-safe; they hand the heartbeat over as
        // descriptor 3, without close-on-exec.
        unsafe {
            use std::os::unix::process::CommandExt;
            cmd.pre_exec(move || {
                // dup2 onto itself would keep close-on-exec.
                let rc = if fd == HEARTBEAT_FD {
                    libc::fcntl(fd, libc::F_SETFD, 0)
                } else {
                    libc::dup2(fd, HEARTBEAT_FD)
                };
                if rc < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        self.heartbeat.set(0);
        let mut child = spawn_from_keeper(cmd)
            .with_context(|| format!("starting a worker ({})", self.exe.display()))?;
        let pipe = child.stdin.take().context("stdin")?;
        {
            use std::os::fd::AsRawFd;
            // A blocking write of a large request into the pipe of a worker
            // stuck in a call would never return: writes are non-blocking
            // and watched.
            let fd = pipe.as_raw_fd();
            // SAFETY: fcntl on a descriptor this process owns.
            let ok = unsafe {
                let fl = libc::fcntl(fd, libc::F_GETFL);
                fl >= 0 && libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK) == 0
            };
            if !ok {
                bail!(
                    "making the worker's pipe non-blocking: {}",
                    std::io::Error::last_os_error()
                );
            }
        }
        let from = child.stdout.take().context("stdout")?;
        // Starting a sandbox and loading a world take milliseconds; a world
        // whose load-time code never returns is stopped.
        let load_limit = self.call_limit * 2 + Duration::from_secs(3);
        let ch = Channel::new(
            pipe,
            from,
            self.heartbeat.clone(),
            self.call_limit,
            load_limit,
        );
        self.child = Some((child, ch));
        let mut ready = [0u8; 1];
        let r = self
            .child
            .as_mut()
            .context("worker")?
            .1
            .read_exact(&mut ready);
        match r {
            Ok(()) if ready[0] == READY => {
                if let Some((_, ch)) = self.child.as_mut() {
                    ch.idle_limit = idle_limit(self.call_limit);
                }
                Ok(())
            }
            Ok(()) => {
                let _ = self.kill();
                bail!(
                    "the worker for {} answered {:#x} instead of ready",
                    self.so.display(),
                    ready[0]
                )
            }
            Err(e) => {
                let hung = channel::stall_of(&e).is_some();
                let fault = self.stop(hung.then_some(load_limit));
                let why = match fault {
                    Fault::Hung(_) => "its load-time code did not return".to_owned(),
                    Fault::Denied(call) => {
                        format!("its load-time code made a system call the sandbox refuses: {call}")
                    }
                    Fault::Crashed(why) => format!("the worker stopped while loading it: {why}"),
                };
                // The world, not a vector, failed: the tree cannot be judged.
                Err(build::CannotJudge(format!(
                    "could not run the C world {}: {why}",
                    self.so.display()
                ))
                .into())
            }
        }
    }

    /// Starts the worker unless it is running. A worker that stopped
    /// between requests (killed from outside, or with the thread that
    /// started it: the sandbox dies with its parent thread) is started
    /// again; nothing is blamed on a call.
    pub fn ensure_started(&mut self) -> Result<()> {
        if let Some((child, _)) = self.child.as_mut() {
            if matches!(child.try_wait(), Ok(Some(_)) | Err(_)) {
                self.child = None;
            }
        }
        if self.child.is_none() {
            self.start()?;
        }
        Ok(())
    }

    /// Ends a worker that is between requests: its request pipe closed,
    /// it exits.
    fn retire(&mut self) {
        if let Some((mut child, ch)) = self.child.take() {
            drop(ch);
            let _ = child.wait();
        }
    }

    fn kill(&mut self) -> Option<Child> {
        let (mut child, _) = self.child.take()?;
        let _ = child.kill();
        Some(child)
    }

    /// Stops the worker (killing it if it `hung` past that limit) and says
    /// what happened.
    fn stop(&mut self, hung: Option<Duration>) -> Fault {
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
            return Fault::Hung(if limit < self.call_limit {
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
            });
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

    /// Stops the worker after a lost request and names the call to blame:
    /// `(index in the request, fault)`. A worker that stopped or stalled
    /// outside any call is the harness's fault.
    fn blame(&mut self, lost: Lost, request: &str) -> Result<(u64, Fault)> {
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
    fn confirm(
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
                self.update(func, |r| {
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

    fn run_batch_with(&mut self, calls: &[shim_call], confirm: bool) -> Result<Vec<CallResult>> {
        let mut out = Vec::with_capacity(calls.len());
        while out.len() < calls.len() {
            let base = out.len();
            let rest = &calls[base..];
            if let Some(f) = self.presumed(rest[0].fn_) {
                out.push(CallResult::Fault(f));
                continue;
            }
            let upto = rest
                .iter()
                .position(|c| self.presumed(c.fn_).is_some())
                .unwrap_or(rest.len());
            let rest = &rest[..upto];
            let lost = self.try_batch(rest, &mut out)?;
            let came = out.len() - base;
            self.returned(rest[..came].iter().map(|c| c.fn_));
            let Some(lost) = lost else {
                continue;
            };
            let (index, fault) = self.blame(lost, "a batch of calls")?;
            let culprit = (index as usize).min(rest.len() - 1);
            // Replies before the culprit may not have arrived.
            let got = out.len() - base;
            if got < culprit {
                let again = self.run_batch_with(&rest[got..culprit], confirm)?;
                out.extend(again);
            }
            out.truncate(base + culprit);
            let call = &rest[culprit];
            let fault = if confirm {
                let what = format!("call {} of a batch ({})", base + culprit, fn_name(call.fn_));
                self.confirm(call.fn_, fault, &what, |w| {
                    Ok(
                        match w.try_batch(std::slice::from_ref(call), &mut vec![])? {
                            None => Ok(()),
                            Some(lost) => Err(lost),
                        },
                    )
                })?
            } else {
                fault
            };
            out.push(CallResult::Fault(fault));
        }
        Ok(out)
    }

    /// One request; replies are appended to `out` as they arrive. `Ok(None)`:
    /// all came back.
    fn try_batch(
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
        let sent: std::io::Result<()> = (|| {
            ch.write_all(&[TAG_CALLS])?;
            ch.write_all(&(calls.len() as u32).to_le_bytes())?;
            for c in calls {
                ch.write_all(ffi::as_bytes(c))?;
            }
            ch.flush()
        })();
        if let Err(e) = sent {
            return Ok(Some(lost_of(&e, &hb, Some(ch))));
        }
        let mut head = [0u8; OUTCOME_HEAD];
        for _ in calls {
            if let Err(e) = ch.read_exact(&mut head) {
                return Ok(Some(lost_of(&e, &hb, Some(ch))));
            }
            let u32_at =
                |i: usize| u32::from_le_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]);
            let mut o = shim_outcome::default();
            ffi::as_bytes_mut(&mut o)[..OUTCOME_FIXED].copy_from_slice(&head[1..1 + OUTCOME_FIXED]);
            let tlen = u32_at(1 + OUTCOME_FIXED) as usize;
            let jlen = u32_at(5 + OUTCOME_FIXED) as usize;
            if tlen > o.text.len() || jlen > o.journal.len() {
                bail!("worker sent a text of {tlen} or a journal of {jlen} bytes");
            }
            let mut t = vec![0u8; tlen];
            let mut j = vec![0u8; jlen];
            if let Err(e) = ch.read_exact(&mut t).and_then(|()| ch.read_exact(&mut j)) {
                return Ok(Some(lost_of(&e, &hb, Some(ch))));
            }
            for (d, s) in o.text.iter_mut().zip(&t) {
                *d = *s as std::os::raw::c_char;
            }
            o.text_len = tlen as u32;
            for (d, s) in o.journal.iter_mut().zip(&j) {
                *d = *s as std::os::raw::c_char;
            }
            o.journal_len = jlen as u32;
            out.push(if head[0] == 1 {
                CallResult::Done(Box::new(o))
            } else {
                CallResult::Malformed
            });
        }
        Ok(None)
    }

    /// One request whose reply is read by `reply`, every call of it under
    /// `limit`; `Err(Lost)` when the worker stopped or hung on the way.
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
        Ok(r.map_err(|e| lost_of_any(&e, &hb, Some(ch))))
    }

    /// A request for generated vectors `start..start + count` of `func`.
    fn range_request(tag: u8, f: u32, seed: u64, start: u64, count: u64) -> Vec<u8> {
        let mut req = vec![tag];
        req.extend_from_slice(&f.to_le_bytes());
        req.extend_from_slice(&seed.to_le_bytes());
        req.extend_from_slice(&start.to_le_bytes());
        req.extend_from_slice(&count.to_le_bytes());
        req
    }

    fn random_once(
        &mut self,
        f: u32,
        seed: u64,
        start: u64,
        count: u64,
    ) -> Result<Result<Vec<RandomFinding>, Lost>> {
        let req = Self::range_request(TAG_RANDOM, f, seed, start, count);
        let limit = self.limit_for(f);
        let r = self.roundtrip(&req, limit, |rd| {
            let n = read_u32(rd)?;
            let mut v = vec![];
            for _ in 0..n {
                let index = read_u64(rd)?;
                let mut k = [0u8; 1];
                rd.read_exact(&mut k)?;
                v.push(RandomFinding { index, kind: k[0] });
            }
            Ok(v)
        })?;
        if r.is_ok() && count > 0 {
            self.returned(std::iter::once(f));
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
        func: crate::model::types::Func,
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
            let lost = match self.random_once(f, seed, at, n)? {
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
                Ok(w.random_once(f, seed, at + culprit, 1)?.map(|_| ()))
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

    /// The raw upstream call, in the worker: generated vector 0 of `func`
    /// built once and called `iters` times: (elapsed ns, checksum). The
    /// call limit covers the whole loop: keep `iters` to seconds.
    pub fn bench_raw(
        &mut self,
        func: crate::model::types::Func,
        seed: u64,
        iters: u64,
    ) -> Result<(u64, u64)> {
        let f = func_index(func);
        let mut req = vec![TAG_RAW];
        req.extend_from_slice(&f.to_le_bytes());
        req.extend_from_slice(&seed.to_le_bytes());
        req.extend_from_slice(&iters.to_le_bytes());
        let limit = self.call_limit;
        match self.roundtrip(&req, limit, |rd| Ok((read_u64(rd)?, read_u64(rd)?)))? {
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

    fn digests_once(
        &mut self,
        f: u32,
        seed: u64,
        start: u64,
        count: u64,
    ) -> Result<Result<Vec<Option<u64>>, Lost>> {
        let req = Self::range_request(TAG_DIGEST, f, seed, start, count);
        let limit = self.limit_for(f);
        let r = self.roundtrip(&req, limit, |rd| {
            (0..count).map(|_| Ok(Some(read_u64(rd)?))).collect()
        })?;
        if r.is_ok() && count > 0 {
            self.returned(std::iter::once(f));
        }
        Ok(r)
    }

    /// Digests of generated vectors `start..start + count` of `func` from
    /// `seed` in this world (see `digest`); `None` for a vector that did
    /// not return, its fault confirmed alone (and found again when the
    /// vector is run alone).
    pub fn digests(
        &mut self,
        func: crate::model::types::Func,
        seed: u64,
        start: u64,
        count: u64,
    ) -> Result<Vec<Option<u64>>> {
        let f = func_index(func);
        let mut out = Vec::with_capacity(count as usize);
        let (mut at, end) = (start, start + count);
        while at < end {
            if self.presumed(f).is_some() {
                out.resize(count as usize, None);
                break;
            }
            let n = end - at;
            let lost = match self.digests_once(f, seed, at, n)? {
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
                Ok(w.digests_once(f, seed, at + culprit, 1)?.map(|_| ()))
            })?;
            if culprit > 0 {
                out.extend(self.digests(func, seed, at, culprit)?);
            }
            out.push(None);
            at += culprit + 1;
        }
        Ok(out)
    }

    /// The in-worker benchmark (`serve_bench`).
    pub fn bench(
        &mut self,
        func: crate::model::types::Func,
        seed: u64,
        count: u64,
    ) -> Result<BenchReply> {
        let f = func_index(func);
        let mut req = vec![TAG_BENCH];
        req.extend_from_slice(&f.to_le_bytes());
        req.extend_from_slice(&seed.to_le_bytes());
        req.extend_from_slice(&count.to_le_bytes());
        let limit = self.call_limit;
        match self.roundtrip(&req, limit, |rd| {
            Ok(BenchReply {
                check_ns: read_u64(rd)?,
                vectors: read_u64(rd)?,
                disagreements: read_u64(rd)?,
                generation_ns: read_u64(rd)?,
                loop_ns: read_u64(rd)?,
            })
        })? {
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

/// The name of function number `f`, for messages.
fn fn_name(f: u32) -> String {
    crate::model::types::Func::ALL
        .get(f as usize)
        .map_or_else(|| format!("function #{f}"), |x| x.to_string())
}

/// What one in-worker benchmark measured: `vectors` generated vectors run
/// through the `--random` loop.
#[derive(Debug, Clone, Copy)]
pub struct BenchReply {
    /// The whole check of each, its batch drawn beforehand.
    pub check_ns: u64,
    pub vectors: u64,
    pub disagreements: u64,
    /// Drawing them.
    pub generation_ns: u64,
    /// The loop, whole.
    pub loop_ns: u64,
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.retire();
        let _ = std::fs::remove_file(&self.log);
    }
}
