//! Where the time of one differential check goes (in-process, release):
//! `cargo run --release -p harness --example profile_check`.
use std::time::Instant;

use harness::cworld::{self, call, BuildOptions, Loaded};
use harness::ffi::shim_outcome;
use harness::model::{self, types::Func};

fn main() -> anyhow::Result<()> {
    let tree = harness::kernel::fetch("6.12")?;
    let world = cworld::build(&tree, &BuildOptions::default())?;
    let lib = Loaded::open(&world.so)?;
    for func in [Func::SetupWqe, Func::QpToSdmaEngine] {
        let n = 100_000u64;
        let calls: Vec<_> = (0..n)
            .map(|i| harness::generate::seeded_call(1, func, i))
            .collect();
        let t = Instant::now();
        let shims: Vec<_> = calls.iter().map(call::to_shim).collect();
        let t_to = t.elapsed();
        let mut out = shim_outcome::default();
        let t = Instant::now();
        let mut outs = Vec::with_capacity(calls.len());
        for s in &shims {
            lib.call(s, &mut out);
            outs.push(call::from_shim(&out));
        }
        let t_c = t.elapsed();
        let t = Instant::now();
        for s in &shims {
            lib.call(s, &mut out);
        }
        let t_c_only = t.elapsed();
        let t = Instant::now();
        let rs: Vec<_> = calls.iter().map(model::run).collect();
        let t_r = t.elapsed();
        let t = Instant::now();
        let same = outs
            .iter()
            .zip(&rs)
            .filter(|(c, r)| r.as_ref().is_ok_and(|r| *r == **c))
            .count();
        let t_cmp = t.elapsed();
        let per = |d: std::time::Duration| d.as_nanos() as f64 / n as f64;
        // The worker's loop, stage by stage, on the same vector.
        let (mut a, mut b, mut c2, mut d) = (0u128, 0u128, 0u128, 0u128);
        for c in &calls {
            let t0 = Instant::now();
            let s = call::to_shim(c);
            let t1 = Instant::now();
            lib.call(&s, &mut out);
            let t2 = Instant::now();
            let r = model::run(c);
            let t3 = Instant::now();
            let _ = r.is_ok_and(|r| call::from_shim(&out) == r);
            let t4 = Instant::now();
            a += (t1 - t0).as_nanos();
            b += (t2 - t1).as_nanos();
            c2 += (t3 - t2).as_nanos();
            d += (t4 - t3).as_nanos();
        }
        println!(
            "  in-loop: to_shim {:.0} ns, C {:.0} ns, model {:.0} ns, from_shim+compare {:.0} ns",
            a as f64 / n as f64,
            b as f64 / n as f64,
            c2 as f64 / n as f64,
            d as f64 / n as f64
        );
        println!(
            "{func}: to_shim {:.0} ns, shim_run {:.0} ns (+from_shim {:.0} ns), model {:.0} ns, compare {:.0} ns; {same}/{n} agree; sizeof(shim_call) = {}",
            per(t_to),
            per(t_c_only),
            per(t_c) - per(t_c_only),
            per(t_r),
            per(t_cmp),
            std::mem::size_of::<harness::ffi::shim_call>()
        );
    }
    Ok(())
}
