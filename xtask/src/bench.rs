//! `cargo xtask bench`: the raw upstream call against the whole check.

use anyhow::Result;
use harness::cmd::bench;
use harness::cworld::{self, BuildOptions};
use harness::kernel;
use harness::report::exit_code;

use crate::flags;

pub fn run(a: flags::Bench) -> Result<u8> {
    let tree = kernel::fetch(&a.kernel.kernel)?;
    let world = cworld::build(&tree, &BuildOptions::default())?;
    println!("machine: {}", bench::machine());
    println!("kernel: {}", tree.version);
    let mut worker = cworld::Worker::new(&world)?;
    for target in &bench::TARGETS {
        print!(
            "{}",
            bench::measure(&mut worker, target, a.vectors, a.iters)?
        );
    }
    Ok(exit_code::SUCCESS)
}
