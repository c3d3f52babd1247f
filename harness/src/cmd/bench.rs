//! `cargo xtask bench`: what one raw upstream call costs against what the
//! whole differential check of a vector costs, both measured in the
//! (sandboxed) worker, on one core.

use std::fmt;

use anyhow::Result;

use crate::cworld::Worker;
use crate::model::types::Func;

/// What is measured: a function, or a pair of functions checked together.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// The name printed above the figures.
    pub label: &'static str,
    /// The function whose raw call and check are timed.
    pub func: Func,
    /// A second function whose check is added to `func`'s (the engine
    /// selection: an SDMA engine and a send context).
    pub pair: Option<Func>,
}

/// What `cargo xtask bench` measures, in order.
pub const TARGETS: [Target; 2] = [
    Target {
        label: "hfi1_setup_wqe",
        func: Func::SetupWqe,
        pair: None,
    },
    Target {
        label: "engine selection (sdma + pio)",
        func: Func::QpToSdmaEngine,
        pair: Some(Func::QpToSendContext),
    },
];

/// The figures of one target, each the best of several repetitions (the
/// machine is shared: the minimum is the cost).
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// The target's label.
    pub label: &'static str,
    /// Nanoseconds one raw upstream call takes.
    pub raw_ns: f64,
    /// The checksum the raw calls returned (it keeps them from being
    /// optimised away).
    pub checksum: u64,
    /// Nanoseconds the whole check of one vector takes.
    pub check_ns: f64,
    /// Vectors on which C and Rust disagreed while timing the check.
    pub disagreements: u64,
    /// Nanoseconds drawing one vector takes.
    pub generation_ns: f64,
    /// Nanoseconds a vector takes in the generate-and-check loop, whole.
    pub whole_ns: f64,
    /// For a pair: nanoseconds the check of both functions takes, and the
    /// disagreements of both.
    pub pair: Option<(f64, u64)>,
}

/// The machine the figures are from: `N cpus, CPU MODEL`.
pub fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown cpu".into());
    format!("{cpus} cpus, {model}")
}

/// Measures `target` in `worker`: `iters` raw calls in all (best of five
/// runs of a fifth each), then the check of `count` generated vectors (best
/// of three).
pub fn measure(worker: &mut Worker, target: &Target, count: u64, iters: u64) -> Result<Measured> {
    // Raw: a typical vector's world built once, the call repeated.
    let (mut raw_ns, mut checksum) = (f64::MAX, 0);
    for _ in 0..5 {
        let (ns, sum) = worker.bench_raw(target.func, 1, iters / 5)?;
        checksum = sum;
        raw_ns = raw_ns.min(ns as f64 / (iters / 5) as f64);
    }
    // Warm the worker, then time the check inside it.
    worker.bench(target.func, 2, 1000)?;
    let mut m = Measured {
        label: target.label,
        raw_ns,
        checksum,
        check_ns: f64::MAX,
        disagreements: 0,
        generation_ns: f64::MAX,
        whole_ns: f64::MAX,
        pair: None,
    };
    for _ in 0..3 {
        let r = worker.bench(target.func, 1, count)?;
        let n = r.vectors as f64;
        m.check_ns = m.check_ns.min(r.check_ns as f64 / n);
        m.generation_ns = m.generation_ns.min(r.generation_ns as f64 / n);
        m.whole_ns = m.whole_ns.min(r.loop_ns as f64 / n);
        m.disagreements = r.disagreements;
    }
    if let Some(other) = target.pair {
        let (mut other_ns, mut bad) = (f64::MAX, 0);
        for _ in 0..3 {
            let r = worker.bench(other, 1, count)?;
            other_ns = other_ns.min(r.check_ns as f64 / r.vectors as f64);
            bad = r.disagreements;
        }
        m.pair = Some((m.check_ns + other_ns, m.disagreements + bad));
    }
    Ok(m)
}

/// The figures as `cargo xtask bench` prints them: per call or vector, per
/// second, and the ratio of check to raw call.
impl fmt::Display for Measured {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let per_s = |ns: f64| 1e9 / ns;
        writeln!(f, "{}", self.label)?;
        writeln!(
            f,
            "  raw upstream:    {:>8.1} ns/call          {:>12.0} calls/s  (checksum {})",
            self.raw_ns,
            per_s(self.raw_ns),
            self.checksum
        )?;
        writeln!(
            f,
            "  check:           {:>8.1} ns/vector        {:>12.0} vectors/s ratio {:.1}x  \
             ({} disagreements)",
            self.check_ns,
            per_s(self.check_ns),
            self.check_ns / self.raw_ns,
            self.disagreements
        )?;
        if let Some((ns, bad)) = self.pair {
            writeln!(
                f,
                "  check (pair):    {:>8.1} ns/vector pair  {:>12.0} pairs/s   ratio {:.1}x  \
                 ({} disagreements)",
                ns,
                per_s(ns),
                ns / self.raw_ns,
                bad
            )?;
        }
        writeln!(
            f,
            "  generation:      {:>8.1} ns/vector",
            self.generation_ns
        )?;
        writeln!(
            f,
            "  generate+check:  {:>8.1} ns/vector        {:>12.0} vectors/s (one core)",
            self.whole_ns,
            per_s(self.whole_ns)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_print_one_line_each() {
        let m = Measured {
            label: "engine selection (sdma + pio)",
            raw_ns: 12.5,
            checksum: 7,
            check_ns: 250.0,
            disagreements: 0,
            generation_ns: 40.0,
            whole_ns: 300.0,
            pair: Some((500.0, 1)),
        };
        assert_eq!(
            m.to_string(),
            "engine selection (sdma + pio)\n  \
             raw upstream:        12.5 ns/call              80000000 calls/s  (checksum 7)\n  \
             check:              250.0 ns/vector             4000000 vectors/s ratio 20.0x  \
             (0 disagreements)\n  \
             check (pair):       500.0 ns/vector pair       2000000 pairs/s   ratio 40.0x  \
             (1 disagreements)\n  \
             generation:          40.0 ns/vector\n  \
             generate+check:     300.0 ns/vector             3333333 vectors/s (one core)\n"
        );
    }
}
