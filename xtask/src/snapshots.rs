//! `cargo xtask snapshots diff A B`: where upstream outcomes differ
//! between two series' snapshots, or a series' snapshots and a tree.

use anyhow::{Context, Result};
use harness::cmd::conformance;
use harness::corpus;
use harness::cworld::BuildOptions;
use harness::judge::snapshot;
use harness::kernel;
use harness::report::exit_code;

use crate::flags;

pub fn diff(a: &str, b: &str) -> Result<u8> {
    let ((na, ta), (nb, tb)) = (tables(a)?, tables(b)?);
    let rows = snapshot::diff_tables(&ta, &tb);
    let (a, b) = (na.as_str(), nb.as_str());
    if rows.is_empty() {
        println!("{a} and {b} agree on every vector");
        return Ok(exit_code::SUCCESS);
    }
    for (fam, name, ra, rb) in &rows {
        println!("{fam}::{name}\n  {a}: {ra}\n  {b}: {rb}");
    }
    println!("{} vector(s) differ", rows.len());
    Ok(exit_code::FINDING)
}

/// The outcomes of `s`, and its name in the output. A pinned series is its
/// committed snapshots; anything else (a path, an exact version) is a tree
/// whose outcomes are computed now.
fn tables(s: &str) -> Result<(String, snapshot::Tables)> {
    if kernel::series().iter().any(|x| x == s) && !std::path::Path::new(s).exists() {
        let t = snapshot::series_tables(s).with_context(|| format!("reading snapshots/{s}"))?;
        return Ok((format!("snapshots/{s}"), t));
    }
    let sel = flags::tree(s)?;
    let vectors = corpus::load_corpus(&corpus::corpus_dir())?;
    let run = conformance::run_kernel(&sel, &vectors, &BuildOptions::default(), &mut |m| {
        eprintln!("[snapshots] {m}")
    })?;
    Ok((
        format!("{} ({})", s, run.version),
        snapshot::checked_tables(&vectors, &run.checks),
    ))
}
