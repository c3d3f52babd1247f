//! `cargo xtask kernel fetch|list|update`: kernel trees from Debian.

use anyhow::Result;
use harness::cmd::conformance;
use harness::corpus;
use harness::cworld::BuildOptions;
use harness::kernel::{self, select::KernelArg};
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
    for s in only {
        kernel::KernelSpec::parse(s)?;
    }
    let all = kernel::published(only)?;
    let w = all.iter().map(|p| p.version.len()).max().unwrap_or(8);
    for p in &all {
        let mut marks = vec![];
        if p.pinned {
            marks.push("pinned");
        }
        if p.cached {
            marks.push("cached");
        }
        let line = format!(
            "{:6} {:w$}  {:40} {}",
            p.series,
            p.version,
            p.suites,
            marks.join(" ")
        );
        println!("{}", line.trim_end());
    }
    if all.is_empty() {
        eprintln!("[kernel] Debian publishes no linux-source package of {only:?}");
        return Ok(exit_code::FINDING);
    }
    Ok(exit_code::SUCCESS)
}

/// Pins `series` to Debian's newest version, then prints the upgrade
/// report: the corpus on the new version against the series' snapshots.
fn update(series: &str) -> Result<u8> {
    let (old, new) = kernel::update(series)?;
    match &old {
        Some(o) if o.version == new.version => {
            eprintln!("[kernel] {series} is pinned to {}, the newest", new.version);
            return Ok(exit_code::SUCCESS);
        }
        Some(o) => eprintln!(
            "[kernel] {series}: {} -> {} (snapshots/kernels.lock)",
            o.version, new.version
        ),
        None => eprintln!(
            "[kernel] {series} pinned to {} (snapshots/kernels.lock)",
            new.version
        ),
    }
    let vectors = corpus::load_corpus(&corpus::corpus_dir())?;
    let sel = KernelArg::Series(series.to_owned());
    let run = conformance::run_kernel(&sel, &vectors, &BuildOptions::default(), &mut |m| {
        eprintln!("[kernel] {m}")
    })?;
    let (against, mismatches) = match &run.stand_in {
        Some((other, ms)) => (other.clone(), ms),
        None => (series.to_owned(), &run.snapshots),
    };
    let changed: usize = mismatches.iter().map(|m| m.rows.len()).sum();
    for m in mismatches {
        for (n, a, b) in &m.rows {
            println!("{}::{n}\n  snapshot: {a}\n  {}: {b}", m.family, new.version);
        }
    }
    println!(
        "{changed} vector(s) of {} behave differently on {} than in snapshots/{against}/{}; \
         `HFI1_KERNELS={series} cargo test` then `cargo insta review` writes the snapshots \
         of {series}; commit them with snapshots/kernels.lock",
        vectors.len(),
        new.version,
        if against == series {
            String::new()
        } else {
            format!(" (series {series} has no snapshots yet)")
        }
    );
    Ok(exit_code::SUCCESS)
}
