//! C worlds: building them ([`build`]) and running calls in them, out of
//! harm's way.
//!
//! Upstream code given a hostile vector may crash, and patched code under
//! review is untrusted, so a world's shared object is only ever loaded in a
//! worker process: the running program re-executes itself with
//! [`WORKER_ENV`] set (every binary that runs C worlds calls
//! [`worker_main_if_requested`] first thing in `main`). Calls travel in
//! batches over pipes; a crash costs the worker, which is restarted, and is
//! reported for the one vector that caused it.
//!
//! The worker runs in the [`sandbox`](crate::sandbox) and confines itself
//! with a seccomp filter before it loads the world. A *heartbeat* (a shared
//! memory word the worker sets to `i + 1` before call `i` of a request)
//! gives every call a deadline without a system call per call: the parent
//! waits on the pipe, and when the heartbeat has not moved for the call
//! limit ([`call_timeout`]), the worker is killed and the call it was in is
//! a [`Fault::Hung`] finding; the run goes on in a new worker. The same
//! heartbeat names the call that crashed a worker.

pub mod abi;
pub mod build;
pub mod call;
mod heartbeat;

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};

use crate::ffi::{self, shim_call, shim_outcome};
use crate::sandbox::{self, Limits, Sandbox, Spec};
use heartbeat::Heartbeat;

pub use build::{build, BuildOptions, BuiltWorld};

/// Set to a world's .so path in the environment of a worker process.
pub const WORKER_ENV: &str = "HFI1_CONFORMANCE_WORKER";

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
    /// The function returned; this is what it did.
    Done(Box<shim_outcome>),
    /// `shim_run` refused the call as malformed (a harness bug or a vector
    /// outside the ABI's limits).
    Malformed,
    /// The call did not return: the worker crashed, hung or was stopped.
    Fault(Fault),
}

/// The environment variable naming the heartbeat's file descriptor.
const HEARTBEAT_ENV: &str = "HFI1_CONFORMANCE_HEARTBEAT";
/// The descriptor the heartbeat is handed over as.
const HEARTBEAT_FD: i32 = 3;
/// What a worker writes when its world is loaded and it serves calls.
const READY: u8 = b'R';

static CALL_TIMEOUT_MS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Sets the call limit for every later worker (the xtask's
/// `--call-timeout`); otherwise `HFI1_CALL_TIMEOUT` (seconds) or the
/// default, 2 s, scaled for the build.
pub fn set_call_timeout(d: Duration) {
    CALL_TIMEOUT_MS.store(
        d.as_millis().max(1) as u64,
        std::sync::atomic::Ordering::SeqCst,
    );
}

/// The longest a single call may run in a world built with `opts`: the
/// base limit, times 4 for a coverage world (-O0, counters) and 10 under
/// the sanitizers. Calls take microseconds; the limit is for code that
/// never returns.
pub fn call_timeout(opts: &BuildOptions) -> Duration {
    let set = CALL_TIMEOUT_MS.load(std::sync::atomic::Ordering::SeqCst);
    let base = if set > 0 {
        Duration::from_millis(set)
    } else {
        std::env::var("HFI1_CALL_TIMEOUT")
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| *s > 0.0)
            .map(Duration::from_secs_f64)
            .unwrap_or(Duration::from_secs(2))
    };
    let factor = if opts.sanitize {
        10
    } else if opts.coverage {
        4
    } else {
        1
    };
    base * factor
}

/// If this process was started as a worker, serve calls and exit;
/// otherwise return at once. Call it first thing in `main`.
pub fn worker_main_if_requested() {
    let Some(so) = std::env::var_os(WORKER_ENV) else {
        return;
    };
    let code = match start_serving(Path::new(&so)) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("hfi1 worker: {e:#}");
            3
        }
    };
    std::process::exit(code);
}

/// A world's shared object loaded into this process. Only workers (and the
/// raw-call benchmark) do this. Its entry points are bindgen's
/// (`ffi::ShimWorld`, from `c-shim/shim.h`), not retyped here.
pub struct Loaded {
    world: ffi::ShimWorld,
}

impl Loaded {
    /// Loads a world into this process.
    ///
    /// # Safety
    ///
    /// Loading runs the object's constructors and its calls run upstream
    /// code, unsandboxed: `so` must be a world this project built from a
    /// tree whose code is trusted, and a crash in it takes this process.
    /// Workers (sandboxed, confined) are where worlds are loaded; the
    /// fuzz target and the profiling example are the exceptions, on the
    /// Debian trees.
    pub unsafe fn open(so: &Path) -> Result<Loaded> {
        // SAFETY: the caller's promise above; the symbols' types are
        // shim.h's, as bindgen read them.
        let world = unsafe { ffi::ShimWorld::new(so) }
            .with_context(|| format!("loading {}", so.display()))?;
        // SAFETY: both take no arguments and only return a constant.
        let (abi, sizes) = unsafe { (world.shim_abi_version(), world.shim_abi_sizes()) };
        if abi != ffi::SHIM_ABI_VERSION {
            bail!(
                "{} speaks shim ABI {abi}, this harness {}: rebuild it",
                so.display(),
                ffi::SHIM_ABI_VERSION
            );
        }
        let ours = ((std::mem::size_of::<shim_call>() as u64) << 32)
            | std::mem::size_of::<shim_outcome>() as u64;
        if sizes != ours {
            bail!(
                "{} has a shim_call of {} bytes and a shim_outcome of {}, this harness {} and {}: \
                 c-shim/schema.h or the bindings are stale; run `cargo xtask bindgen` and rebuild",
                so.display(),
                sizes >> 32,
                sizes & 0xffff_ffff,
                std::mem::size_of::<shim_call>(),
                std::mem::size_of::<shim_outcome>()
            );
        }
        Ok(Loaded { world })
    }

    /// The raw benchmark: `call`'s world built once, its function run
    /// `iters` times. Returns the shim's checksum.
    pub fn bench(&self, call: &shim_call, iters: u64) -> u64 {
        // SAFETY: a valid call; the shim only reads it.
        unsafe { self.world.shim_bench(call, iters) }
    }

    /// Runs one call. Returns false when the shim refused it.
    pub fn call(&self, call: &shim_call, out: &mut shim_outcome) -> bool {
        // SAFETY: both pointers are valid for the duration of the call.
        unsafe { self.world.shim_run(call, out) == 0 }
    }
}

/// The fixed part of an outcome: every field before the text (return
/// value, pointers, flags, the post-call QP), sent as it is; the text and
/// the journal follow, only their used bytes.
const OUTCOME_FIXED: usize = std::mem::offset_of!(shim_outcome, text_len);

/// An outcome on the wire: whether the shim took the call, the fixed
/// part, the text's and the journal's lengths.
const OUTCOME_HEAD: usize = 1 + OUTCOME_FIXED + 4 + 4;

/// Worker requests (first byte of each message).
const TAG_CALLS: u8 = 0;
const TAG_RANDOM: u8 = 1;
const TAG_BENCH: u8 = 2;
const TAG_RAW: u8 = 3;
const TAG_DIGEST: u8 = 4;

/// A digest of everything an outcome holds (FNV-1a over its fields and
/// the used part of its text and journal): two worlds agree on a call when
/// their digests are equal.
fn digest(ok: bool, o: &shim_outcome) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: &[u8]| {
        for x in b {
            h ^= u64::from(*x);
            h = h.wrapping_mul(0x100_0000_01b3);
        }
    };
    eat(&[u8::from(ok)]);
    eat(&ffi::as_bytes(o)[..OUTCOME_FIXED]);
    let tlen = (o.text_len as usize).min(o.text.len());
    let jlen = (o.journal_len as usize).min(o.journal.len());
    eat(&ffi::as_bytes(&o.text)[..tlen]);
    eat(&[0xff]);
    eat(&ffi::as_bytes(&o.journal)[..jlen]);
    h
}

/// What a random range gave: the vectors where C and Rust parted, and the
/// vectors that did not return, each with its fault.
pub type RandomReply = (Vec<RandomFinding>, Vec<(u64, Fault)>);

/// What a random range found: the index and how C and Rust parted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RandomFinding {
    pub index: u64,
    /// 0: they differ; 1: the model calls it undefined; 2: malformed.
    pub kind: u8,
}

/// The worker: heartbeat attached, confined, world loaded, then serving.
fn start_serving(so: &Path) -> Result<()> {
    if let Some(fd) = std::env::var(HEARTBEAT_ENV)
        .ok()
        .and_then(|v| v.parse::<i32>().ok())
    {
        heartbeat::attach(fd)?;
    }
    if std::env::var_os(sandbox::CONFINE_ENV).is_some() {
        sandbox::confine_worker()?;
    }
    // SAFETY: this is a worker: sandboxed and confined, here to run it.
    let lib = unsafe { Loaded::open(so)? };
    serve(&lib)
}

fn serve(lib: &Loaded) -> Result<()> {
    let stdin = std::io::stdin();
    let mut rd = BufReader::with_capacity(1 << 20, stdin.lock());
    let stdout = std::io::stdout();
    let mut wr = BufWriter::with_capacity(1 << 20, stdout.lock());
    wr.write_all(&[READY])?;
    wr.flush()?;
    loop {
        let mut tag = [0u8; 1];
        if rd.read_exact(&mut tag).is_err() {
            return Ok(()); // parent closed the pipe
        }
        match tag[0] {
            TAG_CALLS => serve_calls(lib, &mut rd, &mut wr)?,
            TAG_RANDOM => serve_random(lib, &mut rd, &mut wr)?,
            TAG_BENCH => serve_bench(lib, &mut rd, &mut wr)?,
            TAG_RAW => serve_raw(lib, &mut rd, &mut wr)?,
            TAG_DIGEST => serve_digest(lib, &mut rd, &mut wr)?,
            t => bail!("unknown request {t}"),
        }
        wr.flush()?;
    }
}

fn read_u32(rd: &mut impl Read) -> Result<u32> {
    let mut b = [0u8; 4];
    rd.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

fn read_u64(rd: &mut impl Read) -> Result<u64> {
    let mut b = [0u8; 8];
    rd.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

fn func_at(i: u32) -> Result<crate::model::types::Func> {
    crate::model::types::Func::ALL
        .get(i as usize)
        .copied()
        .with_context(|| format!("no function #{i}"))
}

/// Runs one generated call (its world named `world` by the generator) on
/// both sides in this (worker) process and judges it. `flat` is the
/// flat-call buffer reused from vector to vector.
fn check_here(
    imp: &dyn crate::implementation::Implementation,
    lib: &Loaded,
    c: &crate::model::types::Call,
    world: Option<crate::generate::WorldId>,
    flat: &mut call::Flat,
    out: &mut shim_outcome,
    seen: &mut crate::outcome::Outcome,
) -> Option<u8> {
    let s = flat.fill(c, world);
    if !lib.call(s, out) {
        return Some(2);
    }
    match imp.run(c) {
        Ok(r) => call::differs(out, &r, seen).then_some(0),
        Err(_) => Some(1),
    }
}

/// A request for generated vectors: function, seed, first index, count.
fn read_range(rd: &mut impl Read) -> Result<(crate::model::types::Func, u64, u64, u64)> {
    Ok((
        func_at(read_u32(rd)?)?,
        read_u64(rd)?,
        read_u64(rd)?,
        read_u64(rd)?,
    ))
}

/// Generated vectors `start..start + count` of a function, run in this
/// world only; replies one digest per vector.
fn serve_digest(lib: &Loaded, rd: &mut impl Read, wr: &mut impl Write) -> Result<()> {
    let (func, seed, start, count) = read_range(rd)?;
    let mut out = shim_outcome::default();
    let mut flat = call::Flat::default();
    let mut c = crate::generate::blank(func);
    for i in start..start + count {
        let world = crate::generate::seeded_call_into(seed, func, i, &mut c);
        let s = flat.fill(&c, world);
        heartbeat::beat(i - start + 1);
        let ok = lib.call(s, &mut out);
        wr.write_all(&digest(ok, &out).to_le_bytes())?;
    }
    Ok(())
}

/// The loop of `--random`: generated vectors `start..start + count` of
/// `func`, drawn a batch at a time into reused calls and checked;
/// `found(index, kind)` for each that is not an agreement. Returns the
/// nanoseconds spent drawing and checking (two clock reads a batch).
fn check_generated(
    lib: &Loaded,
    func: crate::model::types::Func,
    seed: u64,
    start: u64,
    count: u64,
    mut found: impl FnMut(u64, u8),
) -> (u64, u64) {
    let mut out = shim_outcome::default();
    let mut flat = call::Flat::default();
    let mut seen = crate::outcome::Outcome::new();
    let imp = crate::implementation::get();
    // A batch drawn, then checked: each side's working set (the C world's
    // objects, the generator's) stays in cache for a whole batch
    // (`cargo xtask bench`, generate+check: 1050 ns a vector one at a time,
    // 965 in batches of 8, 935 of 32 or 64).
    const BATCH: usize = 32;
    let mut calls: Vec<_> = (0..BATCH).map(|_| crate::generate::blank(func)).collect();
    let mut worlds = [None; BATCH];
    let (mut gen_ns, mut check_ns) = (0u64, 0u64);
    let mut t = std::time::Instant::now();
    let mut i = start;
    while i < start + count {
        let n = (start + count - i).min(BATCH as u64) as usize;
        for (k, c) in calls.iter_mut().take(n).enumerate() {
            worlds[k] = crate::generate::seeded_call_into(seed, func, i + k as u64, c);
        }
        let drawn = std::time::Instant::now();
        for (k, c) in calls.iter().take(n).enumerate() {
            let index = i + k as u64;
            heartbeat::beat(index - start + 1);
            if let Some(kind) = check_here(imp, lib, c, worlds[k], &mut flat, &mut out, &mut seen) {
                found(index, kind);
            }
        }
        let checked = std::time::Instant::now();
        gen_ns += (drawn - t).as_nanos() as u64;
        check_ns += (checked - drawn).as_nanos() as u64;
        t = checked;
        i += n as u64;
    }
    (gen_ns, check_ns)
}

fn serve_random(lib: &Loaded, rd: &mut impl Read, wr: &mut impl Write) -> Result<()> {
    let (func, seed, start, count) = read_range(rd)?;
    let mut found = vec![];
    let _ = check_generated(lib, func, seed, start, count, |index, kind| {
        found.push(RandomFinding { index, kind })
    });
    wr.write_all(&(found.len() as u32).to_le_bytes())?;
    for f in found {
        wr.write_all(&f.index.to_le_bytes())?;
        wr.write_all(&[f.kind])?;
    }
    Ok(())
}

/// Benchmark: the `--random` loop (`check_generated`) over `count`
/// vectors, timed whole and by part: drawing each batch, and the whole
/// check of each vector of a batch drawn beforehand (flat call built from
/// the vector, C world built and called, model called, outcomes compared).
/// Replies the check's nanoseconds, the count, the disagreements, the
/// drawing's nanoseconds and the loop's.
fn serve_bench(lib: &Loaded, rd: &mut impl Read, wr: &mut impl Write) -> Result<()> {
    let func = func_at(read_u32(rd)?)?;
    let seed = read_u64(rd)?;
    let count = read_u64(rd)?;
    let mut bad = 0u64;
    let t = std::time::Instant::now();
    let (gen_ns, check_ns) = check_generated(lib, func, seed, 0, count, |_, _| bad += 1);
    let loop_ns = t.elapsed().as_nanos() as u64;
    wr.write_all(&check_ns.to_le_bytes())?;
    wr.write_all(&count.to_le_bytes())?;
    wr.write_all(&bad.to_le_bytes())?;
    wr.write_all(&gen_ns.to_le_bytes())?;
    wr.write_all(&loop_ns.to_le_bytes())?;
    Ok(())
}

/// Benchmark of the raw upstream call: generated vector 0 of `func` from
/// `seed`, its world built once, the call repeated `iters` times. Replies
/// the elapsed nanoseconds and the shim's checksum.
fn serve_raw(lib: &Loaded, rd: &mut impl Read, wr: &mut impl Write) -> Result<()> {
    let func = func_at(read_u32(rd)?)?;
    let seed = read_u64(rd)?;
    let iters = read_u64(rd)?;
    let shim = call::to_shim(&crate::generate::seeded_call(seed, func, 0));
    heartbeat::beat(1);
    let t = std::time::Instant::now();
    let sum = lib.bench(&shim, iters);
    let ns = t.elapsed().as_nanos() as u64;
    wr.write_all(&ns.to_le_bytes())?;
    wr.write_all(&sum.to_le_bytes())?;
    Ok(())
}

fn serve_calls(lib: &Loaded, rd: &mut impl Read, wr: &mut impl Write) -> Result<()> {
    let size = std::mem::size_of::<shim_call>();
    let mut buf = vec![0u8; size];
    let mut out = shim_outcome::default();
    for i in 0..read_u32(rd)? {
        rd.read_exact(&mut buf)?;
        let call: shim_call = ffi::from_bytes(&buf).context("short call")?;
        heartbeat::beat(u64::from(i) + 1);
        let ok = lib.call(&call, &mut out);
        // Compact outcome: head, then the text and journal bytes only.
        let tlen = (out.text_len as usize).min(out.text.len());
        let jlen = (out.journal_len as usize).min(out.journal.len());
        let mut head = [0u8; OUTCOME_HEAD];
        head[0] = u8::from(ok);
        head[1..1 + OUTCOME_FIXED].copy_from_slice(&ffi::as_bytes(&out)[..OUTCOME_FIXED]);
        head[1 + OUTCOME_FIXED..][..4].copy_from_slice(&(tlen as u32).to_le_bytes());
        head[5 + OUTCOME_FIXED..][..4].copy_from_slice(&(jlen as u32).to_le_bytes());
        wr.write_all(&head)?;
        let t: &[u8] = ffi::as_bytes(&out.text);
        wr.write_all(&t[..tlen])?;
        let j: &[u8] = ffi::as_bytes(&out.journal);
        wr.write_all(&j[..jlen])?;
    }
    Ok(())
}

/// A started worker: its process and its two watched pipes.
type Running = (
    Child,
    BufWriter<Watched<ChildStdin>>,
    BufReader<Watched<ChildStdout>>,
);

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
}

/// Why a request did not come back.
enum Lost {
    /// The worker stopped: the heartbeat's value then.
    Died(u64),
    /// The heartbeat stood still for the call limit: its value.
    Hung(u64),
}

/// A pipe to or from the worker, used with the watchdog: a read or write
/// waits for the pipe in slices of a quarter of the limit and fails with
/// `TimedOut` once the heartbeat has not moved for the whole limit (a
/// worker stuck in a call neither answers nor reads its requests).
struct Watched<P> {
    pipe: P,
    heartbeat: Arc<Heartbeat>,
    limit: Duration,
}

impl<P: std::os::fd::AsRawFd> Watched<P> {
    fn wait(&self, events: libc::c_short) -> std::io::Result<()> {
        let slice = (self.limit / 4).clamp(Duration::from_millis(5), Duration::from_millis(250));
        let mut last = self.heartbeat.get();
        let mut since = std::time::Instant::now();
        loop {
            let mut p = libc::pollfd {
                fd: self.pipe.as_raw_fd(),
                events,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            let n = unsafe { libc::poll(&mut p, 1, slice.as_millis() as i32) };
            if n > 0 {
                return Ok(());
            }
            if n < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
            let now = self.heartbeat.get();
            if now != last {
                last = now;
                since = std::time::Instant::now();
            } else if since.elapsed() >= self.limit {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "the worker's heartbeat stood still",
                ));
            }
        }
    }
}

impl Read for Watched<ChildStdout> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.wait(libc::POLLIN)?;
        self.pipe.read(buf)
    }
}

impl Write for Watched<ChildStdin> {
    /// The pipe is non-blocking (see `start`): a write takes what fits.
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        loop {
            self.wait(libc::POLLOUT)?;
            match self.pipe.write(buf) {
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
                r => return r,
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.pipe.flush()
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
        })
    }

    /// Changes the call limit of this worker (tests of the watchdog).
    pub fn set_call_timeout(&mut self, d: Duration) {
        self.call_limit = d;
        if let Some((_, wr, rd)) = self.child.as_mut() {
            wr.get_mut().limit = d;
            rd.get_mut().limit = d;
        }
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
        let stdin = BufWriter::with_capacity(
            1 << 20,
            Watched {
                pipe,
                heartbeat: self.heartbeat.clone(),
                limit: self.call_limit,
            },
        );
        let stdout = BufReader::with_capacity(
            1 << 20,
            Watched {
                pipe: child.stdout.take().context("stdout")?,
                heartbeat: self.heartbeat.clone(),
                // Starting a sandbox and loading a world take milliseconds;
                // a world whose load-time code never returns is stopped.
                limit: self.call_limit * 2 + Duration::from_secs(3),
            },
        );
        self.child = Some((child, stdin, stdout));
        let mut ready = [0u8; 1];
        let r = self
            .child
            .as_mut()
            .context("worker")?
            .2
            .read_exact(&mut ready);
        match r {
            Ok(()) if ready[0] == READY => {
                if let Some((_, _, rd)) = self.child.as_mut() {
                    rd.get_mut().limit = self.call_limit;
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
                let hung = e.kind() == std::io::ErrorKind::TimedOut;
                let fault = self.stop(hung);
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
        if let Some((child, _, _)) = self.child.as_mut() {
            if matches!(child.try_wait(), Ok(Some(_)) | Err(_)) {
                self.child = None;
            }
        }
        if self.child.is_none() {
            self.start()?;
        }
        Ok(())
    }

    fn kill(&mut self) -> Option<Child> {
        let (mut child, _, _) = self.child.take()?;
        let _ = child.kill();
        Some(child)
    }

    /// Stops the worker (killing it if `hung`) and says what happened.
    fn stop(&mut self, hung: bool) -> Fault {
        let child = if hung {
            self.kill()
        } else {
            self.child.take().map(|(c, _, _)| c)
        };
        let Some(mut child) = child else {
            return Fault::Crashed("worker not running".into());
        };
        let status = child.wait();
        if hung {
            return Fault::Hung(format!(
                "no return within {:.1} s (the call limit; --call-timeout or HFI1_CALL_TIMEOUT \
                 changes it); the worker was killed",
                self.call_limit.as_secs_f64()
            ));
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

    /// Runs `calls` in one round trip. A call that crashes the worker, hangs
    /// or is refused by the sandbox is found by the heartbeat; the worker is
    /// restarted and the rest of the batch run, so that exactly that call
    /// is reported as a [`CallResult::Fault`].
    pub fn run_batch(&mut self, calls: &[shim_call]) -> Result<Vec<CallResult>> {
        let mut out = Vec::with_capacity(calls.len());
        while out.len() < calls.len() {
            let rest = &calls[out.len()..];
            match self.try_batch(rest, &mut out)? {
                None => {}
                Some(lost) => {
                    let (beat, hung) = match lost {
                        Lost::Died(b) => (b, false),
                        Lost::Hung(b) => (b, true),
                    };
                    let fault = self.stop(hung);
                    // The heartbeat is i + 1 during call i of the request;
                    // replies before it may not have arrived.
                    let culprit = (beat as usize).saturating_sub(1).min(rest.len() - 1);
                    let base = calls.len() - rest.len();
                    let got = out.len() - base;
                    if got < culprit {
                        let again = self.run_batch(&rest[got..culprit])?;
                        out.extend(again);
                    }
                    out.truncate(base + culprit);
                    out.push(CallResult::Fault(fault));
                }
            }
        }
        Ok(out)
    }

    /// One request; replies are appended to `out` as they arrive. `Ok(None)`:
    /// all came back.
    #[allow(clippy::field_reassign_with_default)]
    fn try_batch(
        &mut self,
        calls: &[shim_call],
        out: &mut Vec<CallResult>,
    ) -> Result<Option<Lost>> {
        self.ensure_started()?;
        self.heartbeat.set(0);
        let (_, stdin, stdout) = self.child.as_mut().context("worker")?;
        let sent: std::io::Result<()> = (|| {
            stdin.write_all(&[TAG_CALLS])?;
            stdin.write_all(&(calls.len() as u32).to_le_bytes())?;
            for c in calls {
                stdin.write_all(ffi::as_bytes(c))?;
            }
            stdin.flush()
        })();
        let lost = |e: &std::io::Error, hb: &Heartbeat| {
            if e.kind() == std::io::ErrorKind::TimedOut {
                Lost::Hung(hb.get())
            } else {
                Lost::Died(hb.get())
            }
        };
        if let Err(e) = sent {
            return Ok(Some(lost(&e, &self.heartbeat)));
        }
        let mut head = [0u8; OUTCOME_HEAD];
        for _ in calls {
            if let Err(e) = stdout.read_exact(&mut head) {
                return Ok(Some(lost(&e, &self.heartbeat)));
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
            if let Err(e) = stdout
                .read_exact(&mut t)
                .and_then(|()| stdout.read_exact(&mut j))
            {
                return Ok(Some(lost(&e, &self.heartbeat)));
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
}

impl Worker {
    /// One request whose reply is read by `reply`; `Err(Lost)` when the
    /// worker stopped or hung on the way.
    fn roundtrip<T>(
        &mut self,
        request: &[u8],
        reply: impl FnOnce(&mut BufReader<Watched<ChildStdout>>) -> Result<T>,
    ) -> Result<Result<T, Lost>> {
        self.ensure_started()?;
        self.heartbeat.set(0);
        let (_, stdin, stdout) = self.child.as_mut().context("worker")?;
        let r = stdin
            .write_all(request)
            .and_then(|()| stdin.flush())
            .map_err(anyhow::Error::from)
            .and_then(|()| reply(stdout));
        Ok(r.map_err(|e| {
            let timed_out = e
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::TimedOut);
            if timed_out {
                Lost::Hung(self.heartbeat.get())
            } else {
                Lost::Died(self.heartbeat.get())
            }
        }))
    }

    /// Generated vectors `start..start + count` of `func` from `seed`, run
    /// and judged inside the worker. A vector that crashes the worker, hangs
    /// or is refused by the sandbox is found by the heartbeat; the worker
    /// is restarted and the rest of the range run, so that exactly those
    /// vectors come back as faults.
    pub fn run_random(
        &mut self,
        func: crate::model::types::Func,
        seed: u64,
        start: u64,
        count: u64,
    ) -> Result<RandomReply> {
        let f = crate::model::types::Symbol::index(func);
        let mut req = vec![TAG_RANDOM];
        req.extend_from_slice(&f.to_le_bytes());
        req.extend_from_slice(&seed.to_le_bytes());
        req.extend_from_slice(&start.to_le_bytes());
        req.extend_from_slice(&count.to_le_bytes());
        let r = self.roundtrip(&req, |rd| {
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
        let lost = match r {
            Ok(v) => return Ok((v, vec![])),
            Err(lost) => lost,
        };
        let (beat, hung) = match lost {
            Lost::Died(b) => (b, false),
            Lost::Hung(b) => (b, true),
        };
        let fault = self.stop(hung);
        let culprit = beat.saturating_sub(1).min(count.saturating_sub(1));
        let (mut found, mut faults) = (vec![], vec![]);
        for (from, n) in [(start, culprit), (start + culprit + 1, count - culprit - 1)] {
            if n > 0 {
                let (f, c) = self.run_random(func, seed, from, n)?;
                found.extend(f);
                faults.extend(c);
            }
        }
        faults.push((start + culprit, fault));
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
        let f = crate::model::types::Symbol::index(func);
        let mut req = vec![TAG_RAW];
        req.extend_from_slice(&f.to_le_bytes());
        req.extend_from_slice(&seed.to_le_bytes());
        req.extend_from_slice(&iters.to_le_bytes());
        match self.roundtrip(&req, |rd| Ok((read_u64(rd)?, read_u64(rd)?)))? {
            Ok(r) => Ok(r),
            Err(lost) => {
                let fault = self.stop(matches!(lost, Lost::Hung(_)));
                bail!("the worker stopped during the benchmark: {fault}")
            }
        }
    }

    /// Digests of generated vectors `start..start + count` of `func` from
    /// `seed` in this world (see `digest`); `None` for a vector that did
    /// not return (its fault is found again when it is run alone).
    pub fn digests(
        &mut self,
        func: crate::model::types::Func,
        seed: u64,
        start: u64,
        count: u64,
    ) -> Result<Vec<Option<u64>>> {
        let f = crate::model::types::Symbol::index(func);
        let mut req = vec![TAG_DIGEST];
        req.extend_from_slice(&f.to_le_bytes());
        req.extend_from_slice(&seed.to_le_bytes());
        req.extend_from_slice(&start.to_le_bytes());
        req.extend_from_slice(&count.to_le_bytes());
        let r = self.roundtrip(&req, |rd| {
            (0..count).map(|_| Ok(Some(read_u64(rd)?))).collect()
        })?;
        let lost = match r {
            Ok(v) => return Ok(v),
            Err(lost) => lost,
        };
        let (beat, hung) = match lost {
            Lost::Died(b) => (b, false),
            Lost::Hung(b) => (b, true),
        };
        self.stop(hung);
        let culprit = beat.saturating_sub(1).min(count.saturating_sub(1));
        let mut out = if culprit > 0 {
            self.digests(func, seed, start, culprit)?
        } else {
            vec![]
        };
        out.push(None);
        if culprit + 1 < count {
            out.extend(self.digests(func, seed, start + culprit + 1, count - culprit - 1)?);
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
        let f = crate::model::types::Symbol::index(func);
        let mut req = vec![TAG_BENCH];
        req.extend_from_slice(&f.to_le_bytes());
        req.extend_from_slice(&seed.to_le_bytes());
        req.extend_from_slice(&count.to_le_bytes());
        match self.roundtrip(&req, |rd| {
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
                let fault = self.stop(matches!(lost, Lost::Hung(_)));
                bail!("the worker stopped during the benchmark: {fault}")
            }
        }
    }
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
        if let Some((mut child, stdin, _)) = self.child.take() {
            drop(stdin);
            let _ = child.wait();
        }
        let _ = std::fs::remove_file(&self.log);
    }
}

/// Spawns `cmd` from one thread that lives as long as the process. A
/// sandbox dies with its parent (`--die-with-parent`), and Linux counts the
/// parent *thread*: a worker spawned by a short-lived thread (a scoped
/// thread of `--random` or of a comparison) would be killed when that
/// thread ends, and its next call would look like a crash.
fn spawn_from_keeper(cmd: std::process::Command) -> std::io::Result<Child> {
    type Job = (
        std::process::Command,
        std::sync::mpsc::Sender<std::io::Result<Child>>,
    );
    static KEEPER: std::sync::OnceLock<std::sync::Mutex<std::sync::mpsc::Sender<Job>>> =
        std::sync::OnceLock::new();
    let keeper = KEEPER.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("hfi1-worker-keeper".into())
            .spawn(move || {
                for (mut cmd, reply) in rx {
                    let _ = reply.send(cmd.spawn());
                }
            })
            .map(|_| ())
            .unwrap_or(());
        std::sync::Mutex::new(tx)
    });
    let (tx, rx) = std::sync::mpsc::channel();
    let sent = keeper
        .lock()
        .map_err(|_| std::io::Error::other("the worker keeper's lock is poisoned"))?
        .send((cmd, tx));
    if sent.is_err() {
        return Err(std::io::Error::other("the worker keeper thread is gone"));
    }
    rx.recv()
        .map_err(|_| std::io::Error::other("the worker keeper thread is gone"))?
}

/// Removes the worker logs of processes that no longer run (a harness
/// killed before it could remove its own).
fn remove_stale_logs() {
    let Ok(rd) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix("hfi1-conformance-worker-") else {
            continue;
        };
        let pid = rest.split('-').next().and_then(|p| p.parse::<u32>().ok());
        if pid.is_some_and(|p| !Path::new(&format!("/proc/{p}")).exists()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

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

/// The file holding the running program: its path while that is still
/// the same file (same inode), else a copy of `/proc/self/exe` made once per
/// process in the temporary directory (removed with the worker logs once
/// the process is gone).
fn exe_source(path: &Path) -> Result<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    static COPY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let me = std::fs::metadata("/proc/self/exe").context("reading /proc/self/exe")?;
    let same = std::fs::metadata(path).is_ok_and(|m| m.ino() == me.ino() && m.dev() == me.dev());
    if same {
        return Ok(path.to_owned());
    }
    if let Some(p) = COPY.get() {
        return Ok(p.clone());
    }
    let copy = std::env::temp_dir().join(format!(
        "hfi1-conformance-worker-{}-exe",
        std::process::id()
    ));
    std::fs::copy("/proc/self/exe", &copy)
        .with_context(|| format!("copying the running program to {}", copy.display()))?;
    Ok(COPY.get_or_init(|| copy).clone())
}

/// The running program's path (without the " (deleted)" Linux appends
/// once a rebuild has replaced the file).
fn running_exe() -> Result<PathBuf> {
    let p = std::env::current_exe().context("locating this executable")?;
    let s = p.to_string_lossy();
    Ok(match s.strip_suffix(" (deleted)") {
        Some(stripped) => PathBuf::from(stripped),
        None => p,
    })
}
