//! Times vector generation alone: `cargo run --release -p harness --example
//! gen_profile -- [FUNCTION] [COUNT]` (for a profiler such as callgrind).
use harness::generate::{seeded_call, seeded_call_into};
use harness::model::types::Func;

fn main() {
    let mut args = std::env::args().skip(1);
    let func = args
        .next()
        .and_then(|f| Func::from_name(&f))
        .unwrap_or(Func::SetupWqe);
    let n: u64 = args.next().and_then(|n| n.parse().ok()).unwrap_or(100_000);
    let t = std::time::Instant::now();
    let mut sum = 0u64;
    // As the worker draws them: into one reused call.
    let mut c = seeded_call(1, func, 0);
    for i in 0..n {
        seeded_call_into(1, func, i, &mut c);
        sum = sum.wrapping_add(u64::from(c.qp.num));
    }
    let ns = t.elapsed().as_nanos() as f64 / n as f64;
    println!("{func}: {ns:.1} ns/vector (checksum {sum})");
}
