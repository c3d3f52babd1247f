//! The worker's side: a process started with [`WORKER_ENV`] attaches its
//! heartbeat, confines itself, loads its world and answers requests
//! ([`protocol`](super::protocol)) until the parent closes the pipe.

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};

use super::call;
use super::ffi::{self, shim_call, shim_outcome};
use super::heartbeat;
use super::loaded::Loaded;
use super::protocol::{
    self, BenchReply, CallStatus, FindingKind, RandomFinding, Range, Repeat, RequestKind,
    OUTCOME_FIXED, READY, SWITCH_ENV, WORKER_ENV,
};
use crate::generate::{self, WorldId};
use crate::implementation::{self, Implementation};
use crate::model::types::{Call, Func};
use crate::outcome::Outcome;
use crate::sandbox;

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

/// The worker: heartbeat attached, confined, world loaded, then serving.
fn start_serving(so: &Path) -> Result<()> {
    if let Some(fd) = std::env::var(heartbeat::HANDOVER_ENV)
        .ok()
        .and_then(|v| v.parse::<i32>().ok())
    {
        heartbeat::attach(fd)?;
    }
    if std::env::var_os(sandbox::CONFINE_ENV).is_some() {
        sandbox::confine_worker()?;
    }
    let switch = std::env::var(SWITCH_ENV).ok();
    let switch = match switch.as_deref().map(|s| s.split_once('=')) {
        None => None,
        Some(Some((name, value))) => Some((
            name,
            value
                .parse::<i32>()
                .with_context(|| format!("{SWITCH_ENV}: `{value}` is not an int"))?,
        )),
        Some(None) => anyhow::bail!("{SWITCH_ENV} is not SYMBOL=VALUE"),
    };
    // SAFETY: this is a worker: sandboxed and confined, here to run it;
    // a world's switch is an int (the parent read it from the world).
    let lib = unsafe { Loaded::open_switched(so, switch)? };
    if lib.flush_counters() {
        flush_counters_when_dying(&lib);
    }
    serve(&lib)
}

/// The flush of the loaded world's counters, for [`dying`].
static FLUSH: std::sync::OnceLock<unsafe extern "C" fn() -> std::os::raw::c_int> =
    std::sync::OnceLock::new();

/// A coverage or measuring worker killed by a fault (a crash upstream)
/// writes the counters of the request it dies in first, as it would have
/// at exit: what ran before the crash ran. The handler is reset as it
/// runs (`SA_RESETHAND`) and runs on an alternate stack of its own (a
/// stack overflow still reaches it): the fault, returned to, kills the
/// worker by the same signal, as without it. Writing the counters is not
/// async-signal-safe (stdio, malloc): a fault inside the allocator may
/// leave it stuck, so an alarm ends the worker a second later (killed by
/// SIGALRM: a crash all the same). SIGABRT, which glibc raises from
/// inside the allocator, is left alone (upstream's BUG() writes the
/// counters before it aborts). Only in worlds with counters:
/// elsewhere the sanitizers' and Rust's own handlers stay.
fn flush_counters_when_dying(lib: &Loaded) {
    let _ = FLUSH.set(lib.counter_flusher());
    // The runtime's alternate stack is a few KiB; writing counters needs
    // more (stdio, the profile writers): one of its own, for this thread,
    // kept for the worker's life.
    const ALT_STACK: usize = 256 << 10;
    let stack: &'static mut [u8] = Box::leak(vec![0u8; ALT_STACK].into_boxed_slice());
    let ss = libc::stack_t {
        ss_sp: stack.as_mut_ptr().cast(),
        ss_flags: 0,
        ss_size: ALT_STACK,
    };
    // SAFETY: a valid, leaked (never freed) region of ALT_STACK bytes.
    unsafe { libc::sigaltstack(&ss, std::ptr::null_mut()) };
    for sig in [libc::SIGSEGV, libc::SIGBUS, libc::SIGFPE, libc::SIGILL] {
        // SAFETY: a zeroed sigaction with a valid handler and flags; the
        // handler only arms an alarm, calls the world's flush and returns.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = dying as extern "C" fn(libc::c_int) as usize;
            sa.sa_flags = libc::SA_RESETHAND | libc::SA_ONSTACK;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

extern "C" fn dying(_sig: libc::c_int) {
    if let Some(flush) = FLUSH.get() {
        // SAFETY: alarm() is async-signal-safe; the world stays loaded
        // for the worker's life.
        unsafe {
            libc::alarm(1);
            flush();
        }
    }
}

/// Says it is ready, then answers requests until the parent closes the
/// pipe.
fn serve(lib: &Loaded) -> Result<()> {
    let stdin = std::io::stdin();
    let mut rd = BufReader::with_capacity(1 << 20, stdin.lock());
    let stdout = std::io::stdout();
    let mut wr = BufWriter::with_capacity(1 << 20, stdout.lock());
    wr.write_all(&[READY])?;
    wr.flush()?;
    while let Some(kind) = protocol::read_request_kind(&mut rd)? {
        match kind {
            RequestKind::Calls => serve_calls(lib, &mut rd, &mut wr)?,
            RequestKind::Random => serve_random(lib, &mut rd, &mut wr)?,
            RequestKind::Bench => serve_bench(lib, &mut rd, &mut wr)?,
            RequestKind::Raw => serve_raw(lib, &mut rd, &mut wr)?,
            RequestKind::Digest => serve_digest(lib, &mut rd, &mut wr)?,
        }
        // Before the reply: when it arrives, the counters are on disk.
        lib.flush_counters();
        wr.flush()?;
    }
    Ok(())
}

/// Function number `i`.
fn func_at(i: u32) -> Result<Func> {
    Func::ALL
        .get(i as usize)
        .copied()
        .with_context(|| format!("no function #{i}"))
}

/// The calls that follow, each run under the heartbeat and its outcome
/// sent as soon as it returned.
fn serve_calls(lib: &Loaded, rd: &mut impl Read, wr: &mut impl Write) -> Result<()> {
    let mut buf = vec![0u8; std::mem::size_of::<shim_call>()];
    let mut out = shim_outcome::default();
    for i in 0..protocol::read_u32(rd)? {
        let call = protocol::read_call(rd, &mut buf)?;
        heartbeat::enter(u64::from(i));
        let ok = lib.call(&call, &mut out);
        heartbeat::leave(u64::from(i));
        let status = if ok {
            CallStatus::Ran
        } else {
            CallStatus::Refused
        };
        protocol::write_outcome(wr, status, &out)?;
    }
    Ok(())
}

/// A digest of everything an outcome holds but its notes, which no
/// comparison reads (FNV-1a over its fields and the used part of its text
/// and journal, eight bytes a step: the engines' state makes the fixed
/// part about 2 KiB): two worlds agree on a call when their digests are
/// equal.
fn digest(ok: bool, o: &shim_outcome) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: &[u8]| {
        let words = b.chunks_exact(8);
        let tail = words.remainder();
        for w in words {
            let mut x = [0u8; 8];
            x.copy_from_slice(w);
            h ^= u64::from_le_bytes(x);
            h = h.wrapping_mul(0x100_0000_01b3);
            h ^= h >> 29;
        }
        for x in tail {
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

/// Generated vectors of a [`Range`], run in this world only; replies one
/// digest per vector.
fn serve_digest(lib: &Loaded, rd: &mut impl Read, wr: &mut impl Write) -> Result<()> {
    let Range {
        func,
        seed,
        start,
        count,
    } = Range::read(rd)?;
    let func = func_at(func)?;
    let mut out = shim_outcome::default();
    let mut flat = call::Flat::default();
    let mut c = generate::blank(func);
    for i in start..start + count {
        let world = generate::seeded_call_into(seed, func, i, &mut c);
        if world.is_none() {
            // The generator gave up on this index (its fallback may not
            // keep the invariants): not run, alike in every world.
            wr.write_all(&0u64.to_le_bytes())?;
            continue;
        }
        let s = flat.fill(&c, world);
        heartbeat::enter(i - start);
        let ok = lib.call(s, &mut out);
        heartbeat::leave(i - start);
        wr.write_all(&digest(ok, &out).to_le_bytes())?;
    }
    Ok(())
}

/// Generated vectors of a [`Range`], judged here against the model;
/// replies those that are not agreements.
fn serve_random(lib: &Loaded, rd: &mut impl Read, wr: &mut impl Write) -> Result<()> {
    let Range {
        func,
        seed,
        start,
        count,
    } = Range::read(rd)?;
    let mut found = vec![];
    let _ = check_generated(lib, func_at(func)?, seed, start, count, |index, kind| {
        found.push(RandomFinding::new(index, kind))
    });
    protocol::write_findings(wr, &found)
}

/// Benchmark: the `--random` loop (`check_generated`) over `times`
/// vectors, timed whole and by part: drawing each batch, and the whole
/// check of each vector of a batch drawn beforehand (flat call built from
/// the vector, C world built and called, model called, outcomes compared).
fn serve_bench(lib: &Loaded, rd: &mut impl Read, wr: &mut impl Write) -> Result<()> {
    let Repeat { func, seed, times } = Repeat::read(rd)?;
    let (mut bad, mut not_drawn) = (0u64, 0u64);
    let t = Instant::now();
    let (generation_ns, check_ns) =
        check_generated(lib, func_at(func)?, seed, 0, times, |_, kind| {
            if kind == FindingKind::NotDrawn {
                not_drawn += 1;
            } else {
                bad += 1;
            }
        });
    let loop_ns = t.elapsed().as_nanos() as u64;
    BenchReply {
        check_ns,
        vectors: times - not_drawn,
        disagreements: bad,
        generation_ns,
        loop_ns,
    }
    .write(wr)
}

/// Benchmark of the raw upstream call: generated vector 0, its world
/// built once, the call repeated `times` times. Replies the elapsed
/// nanoseconds and the shim's checksum.
fn serve_raw(lib: &Loaded, rd: &mut impl Read, wr: &mut impl Write) -> Result<()> {
    let Repeat { func, seed, times } = Repeat::read(rd)?;
    let shim = call::to_shim(&generate::seeded_call(seed, func_at(func)?, 0));
    heartbeat::enter(0);
    let t = Instant::now();
    let sum = lib.bench(&shim, times);
    let ns = t.elapsed().as_nanos() as u64;
    heartbeat::leave(0);
    wr.write_all(&ns.to_le_bytes())?;
    wr.write_all(&sum.to_le_bytes())?;
    Ok(())
}

/// What the worker reuses from vector to vector while it checks generated
/// vectors: the flat-call buffer, the C outcome, the model's outcome read
/// back from it.
struct Scratch {
    flat: call::Flat,
    out: shim_outcome,
    seen: Outcome,
}

/// Runs one generated call (its world named `world` by the generator) on
/// both sides in this (worker) process and judges it: `None` when they
/// agree. `index` is the call's place in the request, for the heartbeat.
fn check_in_worker(
    imp: &dyn Implementation,
    lib: &Loaded,
    c: &Call,
    world: Option<WorldId>,
    scratch: &mut Scratch,
    index: u64,
) -> Option<FindingKind> {
    let s = scratch.flat.fill(c, world);
    // Only the upstream call is under the heartbeat: a model that never
    // returned would be the harness's fault, not the vector's.
    heartbeat::enter(index);
    let returned = lib.call(s, &mut scratch.out);
    heartbeat::leave(index);
    if !returned {
        return Some(FindingKind::Malformed);
    }
    match imp.run(c) {
        Ok(r) => call::differs(&scratch.out, &r, &mut scratch.seen).then_some(FindingKind::Differ),
        Err(_) => Some(FindingKind::Undefined),
    }
}

/// The loop of `--random`: generated vectors `start..start + count` of
/// `func`, drawn a batch at a time into reused calls and checked;
/// `found(index, kind)` for each that is not an agreement (`NotDrawn` for
/// an index the generator gave up on, which is not run). Returns the
/// nanoseconds spent drawing and checking (two clock reads a batch).
fn check_generated(
    lib: &Loaded,
    func: Func,
    seed: u64,
    start: u64,
    count: u64,
    mut found: impl FnMut(u64, FindingKind),
) -> (u64, u64) {
    let mut scratch = Scratch {
        flat: call::Flat::default(),
        out: shim_outcome::default(),
        seen: Outcome::new(),
    };
    let imp = implementation::get();
    // A batch drawn, then checked: each side's working set (the C world's
    // objects, the generator's) stays in cache for a whole batch, which
    // `cargo xtask bench` shows is faster than one vector at a time.
    const BATCH: usize = 32;
    let mut calls: Vec<_> = (0..BATCH).map(|_| generate::blank(func)).collect();
    let mut worlds = [None; BATCH];
    let (mut gen_ns, mut check_ns) = (0u64, 0u64);
    let mut t = Instant::now();
    let mut i = start;
    while i < start + count {
        let n = (start + count - i).min(BATCH as u64) as usize;
        for (k, c) in calls.iter_mut().take(n).enumerate() {
            worlds[k] = generate::seeded_call_into(seed, func, i + k as u64, c);
        }
        let drawn = Instant::now();
        for (k, c) in calls.iter().take(n).enumerate() {
            let index = i + k as u64;
            if worlds[k].is_none() {
                // The generator gave up on this index: not run, and said.
                found(index, FindingKind::NotDrawn);
                continue;
            }
            let kind = check_in_worker(imp, lib, c, worlds[k], &mut scratch, index - start);
            if let Some(kind) = kind {
                found(index, kind);
            }
        }
        let checked = Instant::now();
        gen_ns += (drawn - t).as_nanos() as u64;
        check_ns += (checked - drawn).as_nanos() as u64;
        t = checked;
        i += n as u64;
    }
    (gen_ns, check_ns)
}
