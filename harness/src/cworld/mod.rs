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

pub mod build;
pub mod call;

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use anyhow::{bail, Context, Result};

use crate::ffi::{self, shim_call, shim_outcome};

pub use build::{build, BuildOptions, BuiltWorld};

/// Set to a world's .so path in the environment of a worker process.
pub const WORKER_ENV: &str = "HFI1_CONFORMANCE_WORKER";

/// What running one call in a C world gave.
#[derive(Debug, Clone)]
pub enum CallResult {
    /// The function returned; this is what it did.
    Done(Box<shim_outcome>),
    /// `shim_run` refused the call as malformed (a harness bug or a vector
    /// outside the ABI's limits).
    Malformed,
    /// The worker died running this call (signal or exit status).
    Crashed(String),
}

/// If this process was started as a worker, serve calls and exit;
/// otherwise return at once. Call it first thing in `main`.
pub fn worker_main_if_requested() {
    let Some(so) = std::env::var_os(WORKER_ENV) else {
        return;
    };
    let code = match serve(Path::new(&so)) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("hfi1 worker: {e:#}");
            3
        }
    };
    std::process::exit(code);
}

type RunFn = unsafe extern "C" fn(*const shim_call, *mut shim_outcome) -> i32;
type BenchFn = unsafe extern "C" fn(*const shim_call, u64) -> u64;
type AbiFn = unsafe extern "C" fn() -> u32;

/// A world's shared object loaded into this process. Only workers (and the
/// raw-call benchmark) do this.
pub struct Loaded {
    _lib: libloading::Library,
    run: RunFn,
    bench: BenchFn,
}

impl Loaded {
    pub fn open(so: &Path) -> Result<Loaded> {
        // SAFETY: loading runs the object's constructors; it is built by
        // this project from c-shim and upstream sources, and only loaded in
        // a worker process (or a benchmark) that may crash.
        let lib = unsafe { libloading::Library::new(so) }
            .with_context(|| format!("loading {}", so.display()))?;
        // SAFETY: the symbols' types are those declared in c-shim/shim.h.
        let (abi, run, bench) = unsafe {
            let abi: libloading::Symbol<AbiFn> = lib.get(b"shim_abi_version\0")?;
            let run: libloading::Symbol<RunFn> = lib.get(b"shim_run\0")?;
            let bench: libloading::Symbol<BenchFn> = lib.get(b"shim_bench\0")?;
            (abi(), *run, *bench)
        };
        if abi != ffi::SHIM_ABI_VERSION {
            bail!(
                "{} speaks shim ABI {abi}, this harness {}: rebuild it",
                so.display(),
                ffi::SHIM_ABI_VERSION
            );
        }
        Ok(Loaded {
            _lib: lib,
            run,
            bench,
        })
    }

    /// The raw benchmark: `call`'s world built once, its function run
    /// `iters` times. Returns the shim's checksum.
    pub fn bench(&self, call: &shim_call, iters: u64) -> u64 {
        // SAFETY: a valid call; the shim only reads it.
        unsafe { (self.bench)(call, iters) }
    }

    /// Runs one call. Returns false when the shim refused it.
    pub fn call(&self, call: &shim_call, out: &mut shim_outcome) -> bool {
        // SAFETY: both pointers are valid for the duration of the call.
        unsafe { (self.run)(call, out) == 0 }
    }
}

/// ret, call_send, sde, sc, s_flags, s_flags_unknown, priv_flags,
/// iowait_flags, text_len, journal_len.
const OUTCOME_HEAD: usize = 4 + 1 + 2 + 2 + 4 * 4 + 4 + 4;

/// Worker requests (first byte of each message).
const TAG_CALLS: u8 = 0;
const TAG_RANDOM: u8 = 1;
const TAG_BENCH: u8 = 2;

/// What a random range found: the index and how C and Rust parted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RandomFinding {
    pub index: u64,
    /// 0: they differ; 1: the model calls it undefined; 2: malformed.
    pub kind: u8,
}

fn serve(so: &Path) -> Result<()> {
    let lib = Loaded::open(so)?;
    let stdin = std::io::stdin();
    let mut rd = BufReader::with_capacity(1 << 20, stdin.lock());
    let stdout = std::io::stdout();
    let mut wr = BufWriter::with_capacity(1 << 20, stdout.lock());
    loop {
        let mut tag = [0u8; 1];
        if rd.read_exact(&mut tag).is_err() {
            return Ok(()); // parent closed the pipe
        }
        match tag[0] {
            TAG_CALLS => serve_calls(&lib, &mut rd, &mut wr)?,
            TAG_RANDOM => serve_random(&lib, &mut rd, &mut wr)?,
            TAG_BENCH => serve_bench(&lib, &mut rd, &mut wr)?,
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

/// Runs one call on both sides in this (worker) process and judges it.
/// `s` is a flat-call buffer reused from vector to vector.
fn check_here(
    lib: &Loaded,
    c: &crate::model::types::Call,
    s: &mut shim_call,
    out: &mut shim_outcome,
) -> Option<u8> {
    call::fill_shim(c, s);
    if !lib.call(s, out) {
        return Some(2);
    }
    match crate::model::run(c) {
        // Allocation-free first; from_shim only to confirm a difference.
        Ok(r) => (!call::agrees(out, &r) && call::from_shim(out) != r).then_some(0),
        Err(_) => Some(1),
    }
}

fn serve_random(lib: &Loaded, rd: &mut impl Read, wr: &mut impl Write) -> Result<()> {
    let func = func_at(read_u32(rd)?)?;
    let seed = read_u64(rd)?;
    let start = read_u64(rd)?;
    let count = read_u64(rd)?;
    let mut out = shim_outcome::default();
    let mut buf = Box::<shim_call>::default();
    let mut found = vec![];
    for i in start..start + count {
        let c = crate::generate::seeded_call(seed, func, i);
        if let Some(kind) = check_here(lib, &c, &mut buf, &mut out) {
            found.push(RandomFinding { index: i, kind });
        }
    }
    wr.write_all(&(found.len() as u32).to_le_bytes())?;
    for f in found {
        wr.write_all(&f.index.to_le_bytes())?;
        wr.write_all(&[f.kind])?;
    }
    Ok(())
}

/// Benchmark: vectors generated in chunks of 64 (not timed), then the
/// whole check of each chunk timed: flat call built from the vector, C
/// world built and called, model called, outcomes compared. Chunks keep
/// the vectors in cache, as a stream of generated or parsed vectors would.
/// Replies the elapsed nanoseconds, the count and the disagreements.
fn serve_bench(lib: &Loaded, rd: &mut impl Read, wr: &mut impl Write) -> Result<()> {
    let func = func_at(read_u32(rd)?)?;
    let seed = read_u64(rd)?;
    let count = read_u64(rd)?;
    let mut out = shim_outcome::default();
    let mut buf = Box::<shim_call>::default();
    let mut ns = 0u64;
    let mut bad = 0u64;
    let mut i = 0u64;
    while i < count {
        let n = 64.min(count - i);
        let calls: Vec<_> = (i..i + n)
            .map(|k| crate::generate::seeded_call(seed, func, k))
            .collect();
        let t = std::time::Instant::now();
        for c in &calls {
            if check_here(lib, c, &mut buf, &mut out).is_some() {
                bad += 1;
            }
        }
        ns += t.elapsed().as_nanos() as u64;
        i += n;
    }
    wr.write_all(&ns.to_le_bytes())?;
    wr.write_all(&count.to_le_bytes())?;
    wr.write_all(&bad.to_le_bytes())?;
    Ok(())
}

fn serve_calls(lib: &Loaded, rd: &mut impl Read, wr: &mut impl Write) -> Result<()> {
    let size = std::mem::size_of::<shim_call>();
    let mut buf = vec![0u8; size];
    let mut out = shim_outcome::default();
    for _ in 0..read_u32(rd)? {
        rd.read_exact(&mut buf)?;
        let call: shim_call = ffi::from_bytes(&buf).context("short call")?;
        let ok = lib.call(&call, &mut out);
        // Compact outcome: head, then the text and journal bytes only.
        let tlen = (out.text_len as usize).min(out.text.len());
        let jlen = (out.journal_len as usize).min(out.journal.len());
        let mut head = [0u8; 1 + OUTCOME_HEAD];
        head[0] = u8::from(ok);
        head[1..5].copy_from_slice(&out.ret.to_le_bytes());
        head[5] = out.call_send;
        head[6..8].copy_from_slice(&out.sdma_engine.to_le_bytes());
        head[8..10].copy_from_slice(&out.send_context.to_le_bytes());
        head[10..14].copy_from_slice(&out.s_flags.to_le_bytes());
        head[14..18].copy_from_slice(&out.s_flags_unknown.to_le_bytes());
        head[18..22].copy_from_slice(&out.priv_flags.to_le_bytes());
        head[22..26].copy_from_slice(&out.iowait_flags.to_le_bytes());
        head[26..30].copy_from_slice(&(tlen as u32).to_le_bytes());
        head[30..34].copy_from_slice(&(jlen as u32).to_le_bytes());
        wr.write_all(&head)?;
        let t: &[u8] = ffi::as_bytes(&out.text);
        wr.write_all(&t[..tlen])?;
        let j: &[u8] = ffi::as_bytes(&out.journal);
        wr.write_all(&j[..jlen])?;
    }
    Ok(())
}

/// A worker process serving one C world.
pub struct Worker {
    so: PathBuf,
    exe: PathBuf,
    child: Option<(Child, BufWriter<ChildStdin>, BufReader<ChildStdout>)>,
    /// Extra environment for the worker (for example LD_PRELOAD for ASan).
    env: Vec<(String, String)>,
    /// Where the worker's stderr goes, to quote it when it dies.
    log: PathBuf,
}

impl Worker {
    /// A worker for `world`, started on first use.
    pub fn new(world: &BuiltWorld) -> Result<Worker> {
        let mut env = vec![];
        if world.sanitize {
            // The sanitizer runtime must come first in a process that was
            // not built with it.
            let out = Command::new(std::env::var("CC").unwrap_or_else(|_| "gcc".into()))
                .arg("-print-file-name=libasan.so")
                .output()
                .context("locating libasan")?;
            let asan = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            env.push(("LD_PRELOAD".to_owned(), asan));
            env.push((
                "ASAN_OPTIONS".to_owned(),
                "detect_leaks=0:abort_on_error=1".to_owned(),
            ));
            env.push((
                "UBSAN_OPTIONS".to_owned(),
                "halt_on_error=1:abort_on_error=1:print_stacktrace=1".to_owned(),
            ));
        }
        let log = world.dir.join(format!("worker-{}.log", std::process::id()));
        Ok(Worker {
            so: world.so.clone(),
            exe: std::env::current_exe().context("locating this executable")?,
            child: None,
            env,
            log,
        })
    }

    /// The sanitizer's (or the C library's) last words in the worker log.
    fn last_words(&self) -> Option<String> {
        let text = std::fs::read_to_string(&self.log).ok()?;
        let interesting: Vec<&str> = text
            .lines()
            .filter(|l| {
                l.contains("runtime error")
                    || l.contains("ERROR: AddressSanitizer")
                    || l.contains("SUMMARY:")
            })
            .collect();
        (!interesting.is_empty()).then(|| interesting.join(" | "))
    }

    fn start(&mut self) -> Result<()> {
        let mut cmd = Command::new(&self.exe);
        let log = std::fs::File::create(&self.log)
            .with_context(|| format!("creating {}", self.log.display()))?;
        cmd.env(WORKER_ENV, &self.so)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log));
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .spawn()
            .with_context(|| format!("starting worker {}", self.exe.display()))?;
        let stdin = BufWriter::with_capacity(1 << 20, child.stdin.take().context("stdin")?);
        let stdout = BufReader::with_capacity(1 << 20, child.stdout.take().context("stdout")?);
        self.child = Some((child, stdin, stdout));
        Ok(())
    }

    fn reap(&mut self) -> String {
        let Some((mut child, _, _)) = self.child.take() else {
            return "worker not running".into();
        };
        let why = match child.wait() {
            Ok(st) => {
                use std::os::unix::process::ExitStatusExt;
                match st.signal() {
                    Some(sig) => format!("killed by signal {sig} ({})", signal_name(sig)),
                    None => format!("worker exited with {st}"),
                }
            }
            Err(e) => format!("worker lost: {e}"),
        };
        match self.last_words() {
            Some(w) => format!("{why}: {w}"),
            None => why,
        }
    }

    /// Runs `calls` in one round trip. If the worker dies, it is restarted
    /// and the batch is re-run one call at a time, so that exactly the
    /// calls that crash it are reported as [`CallResult::Crashed`].
    pub fn run_batch(&mut self, calls: &[shim_call]) -> Result<Vec<CallResult>> {
        match self.try_batch(calls) {
            Ok(r) => Ok(r),
            Err(_) if calls.len() > 1 => {
                let _ = self.reap();
                let mut out = Vec::with_capacity(calls.len());
                for c in calls {
                    out.extend(self.run_batch(std::slice::from_ref(c))?);
                }
                Ok(out)
            }
            Err(_) => {
                let why = self.reap();
                Ok(vec![CallResult::Crashed(why)])
            }
        }
    }

    #[allow(clippy::field_reassign_with_default)]
    fn try_batch(&mut self, calls: &[shim_call]) -> Result<Vec<CallResult>> {
        if self.child.is_none() {
            self.start()?;
        }
        let (_, stdin, stdout) = self.child.as_mut().context("worker")?;
        stdin.write_all(&[TAG_CALLS])?;
        stdin.write_all(&(calls.len() as u32).to_le_bytes())?;
        for c in calls {
            stdin.write_all(ffi::as_bytes(c))?;
        }
        stdin.flush()?;
        let mut results = Vec::with_capacity(calls.len());
        let mut head = [0u8; 1 + OUTCOME_HEAD];
        for _ in calls {
            stdout.read_exact(&mut head)?;
            let u32_at =
                |i: usize| u32::from_le_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]);
            let mut o = shim_outcome::default();
            o.ret = u32_at(1) as i32;
            o.call_send = head[5];
            o.sdma_engine = i16::from_le_bytes([head[6], head[7]]);
            o.send_context = i16::from_le_bytes([head[8], head[9]]);
            o.s_flags = u32_at(10);
            o.s_flags_unknown = u32_at(14);
            o.priv_flags = u32_at(18);
            o.iowait_flags = u32_at(22);
            let tlen = u32_at(26) as usize;
            let jlen = u32_at(30) as usize;
            if tlen > o.text.len() || jlen > o.journal.len() {
                bail!("worker sent a text of {tlen} or a journal of {jlen} bytes");
            }
            let mut t = vec![0u8; tlen];
            stdout.read_exact(&mut t)?;
            for (d, s) in o.text.iter_mut().zip(&t) {
                *d = *s as std::os::raw::c_char;
            }
            o.text_len = tlen as u32;
            let mut j = vec![0u8; jlen];
            stdout.read_exact(&mut j)?;
            for (d, s) in o.journal.iter_mut().zip(&j) {
                *d = *s as std::os::raw::c_char;
            }
            o.journal_len = jlen as u32;
            results.push(if head[0] == 1 {
                CallResult::Done(Box::new(o))
            } else {
                CallResult::Malformed
            });
        }
        Ok(results)
    }
}

impl Worker {
    fn roundtrip<T>(
        &mut self,
        request: &[u8],
        reply: impl FnOnce(&mut BufReader<ChildStdout>) -> Result<T>,
    ) -> Result<T> {
        if self.child.is_none() {
            self.start()?;
        }
        let (_, stdin, stdout) = self.child.as_mut().context("worker")?;
        stdin.write_all(request)?;
        stdin.flush()?;
        reply(stdout)
    }

    /// Generated vectors `start..start + count` of `func` from `seed`, run
    /// and judged inside the worker. A crash restarts the worker and
    /// re-runs the range one vector at a time, so that exactly the
    /// crashing vectors come back, each with the reason.
    #[allow(clippy::type_complexity)]
    pub fn run_random(
        &mut self,
        func: crate::model::types::Func,
        seed: u64,
        start: u64,
        count: u64,
    ) -> Result<(Vec<RandomFinding>, Vec<(u64, String)>)> {
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
        });
        match r {
            Ok(v) => Ok((v, vec![])),
            Err(_) => {
                let why = self.reap();
                if count == 1 {
                    return Ok((vec![], vec![(start, why)]));
                }
                let (mut found, mut crashed) = (vec![], vec![]);
                for i in start..start + count {
                    let (f, c) = self.run_random(func, seed, i, 1)?;
                    found.extend(f);
                    crashed.extend(c);
                }
                Ok((found, crashed))
            }
        }
    }

    /// The in-worker benchmark: (elapsed ns, vectors, disagreements).
    pub fn bench(
        &mut self,
        func: crate::model::types::Func,
        seed: u64,
        count: u64,
    ) -> Result<(u64, u64, u64)> {
        let f = crate::model::types::Symbol::index(func);
        let mut req = vec![TAG_BENCH];
        req.extend_from_slice(&f.to_le_bytes());
        req.extend_from_slice(&seed.to_le_bytes());
        req.extend_from_slice(&count.to_le_bytes());
        self.roundtrip(&req, |rd| Ok((read_u64(rd)?, read_u64(rd)?, read_u64(rd)?)))
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if let Some((mut child, stdin, _)) = self.child.take() {
            drop(stdin);
            let _ = child.wait();
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
        _ => "signal",
    }
}
