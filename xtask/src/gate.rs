//! `cargo xtask gate PATCH...`: a verdict per patch and base, C against C.

use std::path::PathBuf;

use anyhow::{Context, Result};
use harness::cmd::gate::{self, Patch};
use harness::corpus;
use harness::cworld;
use harness::kernel::select::KernelArg;
use harness::model::types::Func;
use harness::report::shard;

use crate::flags;

pub fn run(a: flags::Gate) -> Result<u8> {
    let mut patches = vec![];
    for p in &a.patches {
        patches.extend(read_patches(p)?);
    }
    if patches.is_empty() {
        anyhow::bail!(
            "no patch to judge in {}: only a cover letter; pass the series' patches too \
             (b4 am -o DIR writes them to the .mbx beside the .cover)",
            a.patches.join(" ")
        );
    }
    let bases = flags::kernels(&a.base, &a.kernel_src.kernel_src);
    let opts = gate::Options {
        random: a.generated.random,
        seed: a.generated.seed,
        funcs: Func::ALL.to_vec(),
        expect: a.expect_change.clone(),
        depth: !a.no_depth,
        suggest: a.suggest,
    };
    let vectors = corpus::load_corpus(&corpus::corpus_dir())?;
    // The units: each patch on each base, base by base.
    let units = bases.len() * patches.len();
    let mine = a.sharding.shard.map_or(0..units, |s| s.range(units));
    let mut judged = vec![];
    for (i, b) in bases.iter().enumerate() {
        let first = i * patches.len();
        let only = mine.start.clamp(first, first + patches.len()) - first
            ..mine.end.clamp(first, first + patches.len()) - first;
        if only.is_empty() {
            continue;
        }
        let tree = b.open()?;
        let name = if matches!(b, KernelArg::Series(_)) {
            tree.version.series()
        } else {
            format!("{} (tree {})", tree.version.series(), i + 1)
        };
        judged.extend(gate::judge_part(
            &tree,
            &name,
            &patches,
            only,
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
    let mut report = gate::report(&judged);
    // `--base all` asks about every series the patch applies to; the
    // report still lists the ones it does not.
    let base_all = a.base.iter().any(|b| b == "all");
    let verdicts = gate::verdicts_of(&report, base_all);
    let exit = gate::exit_code_of(&verdicts);
    eprintln!("patchwork: {}", gate::patchwork_line_of(&verdicts));
    let inputs = serde_json::json!({
        "command": "gate",
        "bases": a.base,
        "kernel_src": a.kernel_src.kernel_src,
        "patches": patches.iter().map(|p| (&p.subject, shard::digest(&p.text))).collect::<Vec<_>>(),
        "random": opts.random,
        "seed": opts.seed,
        "expect": opts.expect,
    });
    a.sharding.mark(&mut report, units, inputs, exit, vec![]);
    print!("{}", a.output.render(&report));
    Ok(exit)
}

/// The patches of one argument: a file, or `-` for stdin. A cover
/// letter (b4's `.cover`, or the `[PATCH 0/N]` of an mbox) names the
/// series and is not judged.
pub(crate) fn read_patches(p: &str) -> Result<Vec<Patch>> {
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
    let found = gate::read(&text, &name);
    if let Some(cover) = &found.cover {
        eprintln!(
            "[gate] series \"{cover}\": {p} holds its cover letter (not a patch, not judged)"
        );
    } else if found.patches.is_empty() {
        anyhow::bail!(
            "{p}: no patch in it (expected a diff, a git format-patch file, an mbox \
             or b4 am's .mbx and .cover)"
        );
    }
    let mut patches = found.patches;
    for x in &mut patches {
        x.source = p.to_owned();
    }
    Ok(patches)
}
