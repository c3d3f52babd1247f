//! Where the time of one differential check goes (in-process, release):
//!
//! ```text
//! cargo run --release -p harness --example profile_check -- [MODE] [OPTIONS]
//!   MODE     --whole (default): fill + C + model + compare, as the worker does
//!            --stages: the same, timed stage by stage (adds ~4 clock reads)
//!            --c-only: shim_run alone, over calls filled beforehand
//!            --fill-only: call::fill_shim alone
//!   OPTIONS  --engine (qp_to_sdma_engine instead of hfi1_setup_wqe)
//!            --no-maps (worlds without engine maps: what maps cost)
//!            -n N (vectors, default 200000)
//! ```
//!
//! Vectors are generated 64 at a time outside the timed region (the worker
//! draws and checks batches of 32 the same way); run it under `perf record`
//! to see functions.
use std::time::Instant;

use harness::cworld::ffi::{shim_call, shim_outcome};
use harness::cworld::{self, call, BuildOptions, Loaded};
use harness::model::{self, types::Func};

/// The command line.
struct Opts {
    mode: String,
    func: Func,
    no_maps: bool,
    n: u64,
}

fn parse_args() -> anyhow::Result<Opts> {
    let mut o = Opts {
        mode: "--whole".to_string(),
        func: Func::SetupWqe,
        no_maps: false,
        n: 200_000,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--whole" | "--stages" | "--c-only" | "--fill-only" => o.mode = a,
            "--engine" => o.func = Func::QpToSdmaEngine,
            "--no-maps" => o.no_maps = true,
            "-n" => {
                o.n = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or_else(|| anyhow::anyhow!("-n needs a number"))?
            }
            other => anyhow::bail!("unknown argument {other:?} (see the file's doc comment)"),
        }
    }
    Ok(o)
}

fn main() -> anyhow::Result<()> {
    let Opts {
        mode,
        func,
        no_maps,
        n,
    } = parse_args()?;
    let tree = harness::kernel::fetch(harness::kernel::DEFAULT_SERIES)?;
    let world = cworld::build(&tree, &BuildOptions::default())?;
    // SAFETY: the default series' Debian tree, loaded in-process to be
    // profiled (the profiler needs the calls in this process).
    let lib = unsafe { Loaded::open(&world.so)? };
    let mut out = shim_outcome::default();
    let mut seen = harness::outcome::Outcome::new();
    let mut s = Box::<shim_call>::default();
    let (mut ns, mut bad, mut stages) = (0u128, 0u64, [0u128; 4]);
    let mut i = 0;
    while i < n {
        let mut calls: Vec<_> = (i..i + 64)
            .map(|k| harness::generate::seeded_call(1, func, k))
            .collect();
        if no_maps {
            for c in &mut calls {
                c.world.sdma_map = None;
                c.world.pio_map = None;
            }
        }
        i += 64;
        match mode.as_str() {
            "--c-only" => {
                let shims: Vec<_> = calls.iter().map(call::to_shim).collect();
                let t = Instant::now();
                for sc in &shims {
                    lib.call(sc, &mut out);
                }
                ns += t.elapsed().as_nanos();
            }
            "--fill-only" => {
                let t = Instant::now();
                for c in &calls {
                    call::fill_shim(c, &mut s);
                    std::hint::black_box(&s);
                }
                ns += t.elapsed().as_nanos();
            }
            "--stages" => {
                for c in &calls {
                    let t0 = Instant::now();
                    call::fill_shim(c, &mut s);
                    let t1 = Instant::now();
                    lib.call(&s, &mut out);
                    let t2 = Instant::now();
                    let r = model::run(c);
                    let t3 = Instant::now();
                    if !r.is_ok_and(|r| !call::differs(&out, &r, &mut seen)) {
                        bad += 1;
                    }
                    let t4 = Instant::now();
                    for (k, d) in [t1 - t0, t2 - t1, t3 - t2, t4 - t3].iter().enumerate() {
                        stages[k] += d.as_nanos();
                    }
                    ns += (t4 - t0).as_nanos();
                }
            }
            _ => {
                let t = Instant::now();
                for c in &calls {
                    call::fill_shim(c, &mut s);
                    lib.call(&s, &mut out);
                    let r = model::run(c);
                    if !r.is_ok_and(|r| !call::differs(&out, &r, &mut seen)) {
                        bad += 1;
                    }
                }
                ns += t.elapsed().as_nanos();
            }
        }
    }
    let per = |x: u128| x as f64 / n as f64;
    if mode == "--stages" {
        println!(
            "fill {:.0} ns, C {:.0} ns, model {:.0} ns, compare {:.0} ns",
            per(stages[0]),
            per(stages[1]),
            per(stages[2]),
            per(stages[3])
        );
    }
    println!(
        "{func} {mode}{}: {:.1} ns/vector over {n} vectors ({bad} disagreements); sizeof(shim_call) = {}",
        if no_maps { " --no-maps" } else { "" },
        per(ns),
        std::mem::size_of::<shim_call>()
    );
    Ok(())
}
