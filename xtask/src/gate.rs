//! `cargo xtask gate PATCH...`: a verdict per patch and base, C against C.

use std::path::PathBuf;

use anyhow::{Context, Result};
use harness::cmd::gate::{self, Patch};
use harness::corpus;
use harness::cworld;
use harness::kernel::select::KernelArg;
use harness::model::types::Func;

use crate::flags;

pub fn run(a: flags::Gate) -> Result<u8> {
    let mut patches = vec![];
    for p in &a.patches {
        patches.extend(read_patches(p)?);
    }
    let bases = flags::kernels(&a.base, &a.kernel_src.kernel_src);
    let opts = gate::Options {
        random: a.generated.random,
        seed: a.generated.seed,
        funcs: Func::ALL.to_vec(),
        expect: a.expect_change.clone(),
    };
    let vectors = corpus::load_corpus(&corpus::corpus_dir())?;
    let mut judged = vec![];
    for (i, b) in bases.iter().enumerate() {
        let tree = b.open()?;
        let name = if matches!(b, KernelArg::Series(_)) {
            tree.version.series()
        } else {
            format!("{} (tree {})", tree.version.series(), i + 1)
        };
        judged.extend(gate::judge(
            &tree,
            &name,
            &patches,
            &vectors,
            &opts,
            &mut |m| eprintln!("[gate] {m}"),
        )?);
    }
    for j in &judged {
        eprintln!(
            "[gate] {}: {}: {}",
            j.base,
            j.patch.subject,
            j.verdict.word()
        );
        if a.timings {
            let phases: Vec<String> = j
                .timings
                .iter()
                .map(|(p, s)| format!("{p} {s:.2} s"))
                .collect();
            eprintln!(
                "[timings] {}: {}: {}",
                j.base,
                j.patch.subject,
                phases.join(", ")
            );
        }
    }
    // Worlds built for patches pile up: keep the cache under its cap.
    let evicted = cworld::build::evict(cworld::build::worlds_cap());
    if evicted > 0 {
        eprintln!("[gate] evicted {evicted} least recently used world(s) from the cache");
    }
    let report = gate::report(&judged);
    print!("{}", a.output.render(&report));
    // `--base all` asks about every series the patch applies to; the
    // report above still lists the ones it does not.
    let verdicts = if a.base.iter().any(|b| b == "all") {
        gate::where_it_applies(&judged)
    } else {
        judged
    };
    eprintln!("patchwork: {}", gate::patchwork_line(&verdicts));
    Ok(gate::exit_code(&verdicts))
}

/// The patches of one argument: a file, or `-` for stdin.
fn read_patches(p: &str) -> Result<Vec<Patch>> {
    let (text, name) = if p == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .context("reading the patch from stdin")?;
        (s, "stdin".to_owned())
    } else {
        let path = PathBuf::from(p);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading the patch {}", path.display()))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| p.to_owned());
        (text, name)
    };
    let found = gate::parse(&text, &name);
    if found.is_empty() {
        anyhow::bail!("{p}: no patch in it (expected a diff, a git format-patch file or an mbox)");
    }
    Ok(found)
}
