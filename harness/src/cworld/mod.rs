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

pub mod build;
pub mod call;
mod channel;
mod client;
pub mod digests;
pub mod ffi;
mod heartbeat;

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};

use crate::sandbox::{self, Limits, Sandbox, Spec};
use ffi::{shim_call, shim_outcome};
use heartbeat::Heartbeat;

pub use build::{build, BuildOptions, BuiltWorld};
pub use client::{short_limit, BenchReply, HarnessFault, Worker, HANG_PROOFS};

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
#[allow(clippy::too_many_arguments)]
fn check_here(
    imp: &dyn crate::implementation::Implementation,
    lib: &Loaded,
    c: &crate::model::types::Call,
    world: Option<crate::generate::WorldId>,
    flat: &mut call::Flat,
    out: &mut shim_outcome,
    seen: &mut crate::outcome::Outcome,
    index: u64,
) -> Option<u8> {
    let s = flat.fill(c, world);
    // Only the upstream call is under the heartbeat: a model that never
    // returned would be the harness's fault, not the vector's.
    heartbeat::enter(index);
    let returned = lib.call(s, out);
    heartbeat::leave(index);
    if !returned {
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
        heartbeat::enter(i - start);
        let ok = lib.call(s, &mut out);
        heartbeat::leave(i - start);
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
            let kind = check_here(
                imp,
                lib,
                c,
                worlds[k],
                &mut flat,
                &mut out,
                &mut seen,
                index - start,
            );
            if let Some(kind) = kind {
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
    heartbeat::enter(0);
    let t = std::time::Instant::now();
    let sum = lib.bench(&shim, iters);
    let ns = t.elapsed().as_nanos() as u64;
    heartbeat::leave(0);
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
        heartbeat::enter(u64::from(i));
        let ok = lib.call(&call, &mut out);
        heartbeat::leave(u64::from(i));
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
