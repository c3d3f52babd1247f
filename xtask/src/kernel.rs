//! `cargo xtask kernel fetch|list|update`: kernel trees from Debian.

use anyhow::Result;
use harness::cmd::kernel as cmd;
use harness::kernel;
use harness::report::exit_code;

use crate::flags::KernelCmd;

pub fn run(cmd: KernelCmd) -> Result<u8> {
    match cmd {
        KernelCmd::Fetch { series } => fetch(&series),
        KernelCmd::List { series } => list(&series),
        KernelCmd::Update { series } => update(&series),
    }
}

fn fetch(series: &str) -> Result<u8> {
    let t = std::time::Instant::now();
    let tree = kernel::fetch(series)?;
    eprintln!(
        "[kernel] {} ready in {:.1}s",
        tree.version,
        t.elapsed().as_secs_f64()
    );
    println!("{}", tree.root.display());
    Ok(exit_code::SUCCESS)
}

fn list(only: &[String]) -> Result<u8> {
    let listing = cmd::list(only)?;
    print!("{}", listing.table());
    if let Some(m) = listing.nothing() {
        eprintln!("[kernel] {m}");
    }
    Ok(listing.exit_code())
}

/// Pins `series` to Debian's newest version, then prints the upgrade
/// report.
fn update(series: &str) -> Result<u8> {
    let upgrade = cmd::update(series, &mut |m| eprintln!("[kernel] {m}"))?;
    if let Some(u) = upgrade {
        print!("{}", u.render());
    }
    Ok(exit_code::SUCCESS)
}
