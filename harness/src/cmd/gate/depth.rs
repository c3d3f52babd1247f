//! Depth: would the vectors have noticed a mistake in the lines a patch
//! adds? The mutants of those lines (cargo-mutants' `--in-diff`), all in
//! one schemata world of the patched tree, each judged against the
//! patched tree's world on the corpus and the gate's generated vectors;
//! each survivor named with the command that reproduces it and what a
//! reviewer can do about it ([`suggest`]).

use std::time::Instant;

use anyhow::Result;

use super::Options;
use crate::corpus::Vector;
use crate::cworld::BuiltWorld;
use crate::judge::mutate::{self, suggest, Fate, Judging, Mutant};
use crate::kernel::patch::{added_lines_merged, Patch};
use crate::kernel::KernelTree;
use crate::report::{Depth, Survivor};

/// What the reproduce command names: the base as the gate was given it,
/// and the patch files up to and including the one judged.
pub(super) struct Origin<'a> {
    /// The base tree.
    pub base: &'a KernelTree,
    /// The patches of the series up to and including the one judged.
    pub patches: &'a [Patch],
    /// Whether the series holds patches after the one judged: its files
    /// may hold them too (an mbox), so the command names how many to take.
    pub later: bool,
}

impl Origin<'_> {
    /// `cargo xtask mutants --kernel 6.12 --in-diff PATCH --id 'ID'`, with
    /// the gate's generated vectors (`--random N --seed S`) when it ran
    /// any.
    fn reproduce(&self, id: &str, opts: &Options) -> String {
        let kernel = if self.base.package.is_some() && self.base.overlay.is_none() {
            format!("--kernel {}", self.base.version.series())
        } else {
            format!(
                "--kernel-src {}",
                quoted(&self.base.root.display().to_string())
            )
        };
        let mut files: Vec<String> = vec![];
        for p in self.patches {
            let f = match p.source.as_str() {
                "" | "-" => "PATCH".to_owned(),
                f => quoted(f),
            };
            if !files.contains(&f) {
                files.push(f);
            }
        }
        let diffs: String = files.iter().map(|f| format!(" --in-diff {f}")).collect();
        let random = if opts.random > 0 {
            format!(" --random {} --seed {}", opts.random, opts.seed)
        } else {
            String::new()
        };
        let first = if self.later {
            format!(" --in-diff-patches {}", self.patches.len())
        } else {
            String::new()
        };
        format!(
            "cargo xtask mutants {kernel}{diffs}{first}{random} --id {}",
            quoted(id)
        )
    }
}

/// `s` as one shell word.
fn quoted(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_./=+,:".contains(c))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The depth of patch `p` applied in `tree` (`world` its world): its
/// added lines' mutants judged against `world`.
pub(super) fn depth(
    (tree, world): (&KernelTree, &BuiltWorld),
    p: &Patch,
    origin: &Origin,
    vectors: &[Vector],
    opts: &Options,
    progress: &mut dyn FnMut(&str),
) -> Result<Depth> {
    let started = Instant::now();
    let added = added_lines_merged(&p.text);
    let all: Vec<Mutant> = mutate::in_diff(tree, &[], &added)?;
    progress(&format!("{} mutants of the changed lines", all.len()));
    let how = Judging {
        random: opts.random,
        seed: opts.seed,
        ..Default::default()
    };
    let (results, schemata) = mutate::judge(tree, world, all, vectors, &how, progress)?;
    let mut d = Depth::default();
    for (k, (m, fate)) in results.iter().enumerate() {
        match fate {
            Fate::Stillborn(_) => d.not_judged += 1,
            Fate::Killed { .. } => {
                d.mutants += 1;
                d.killed += 1;
            }
            Fate::Survived => {
                d.mutants += 1;
                let s = if opts.suggest > 0 {
                    suggest::suggest(world, &schemata, (k, m), vectors, (opts.suggest, opts.seed))?
                        .text()
                } else {
                    String::new()
                };
                d.survivors.push(Survivor {
                    at: format!("{}:{}", short(&m.file), m.line),
                    change: suggest::change_of(&m.operator),
                    id: m.id(),
                    reproduce: origin.reproduce(&m.id(), opts),
                    suggestion: s,
                });
            }
        }
    }
    d.seconds = started.elapsed().as_secs_f64();
    Ok(d)
}

/// A path of the hfi1 driver by its file name.
fn short(path: &str) -> &str {
    path.strip_prefix("drivers/infiniband/hw/hfi1/")
        .unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reproduce_command_quotes_what_the_shell_would_split() {
        assert_eq!(quoted("a/0001-x.patch"), "a/0001-x.patch");
        assert_eq!(
            quoted("f: `if (a <= b)` [<= -> <#0]"),
            "'f: `if (a <= b)` [<= -> <#0]'"
        );
        assert_eq!(quoted("it's"), r"'it'\''s'");
    }

    /// Patch 2 of a series read from one mbox: the command takes the
    /// first two patches of it, not the whole series; the last patch of
    /// a series needs no count.
    #[test]
    fn the_reproduce_command_stops_where_the_series_was_judged() {
        let base = KernelTree {
            root: "/k".into(),
            version: crate::kernel::KernelVersion {
                version: 6,
                patchlevel: 12,
                sublevel: 117,
                extraversion: String::new(),
            },
            package: Some("6.12.117-1".into()),
            overlay: None,
        };
        let patch = |source: &str| Patch {
            subject: "x".into(),
            declared: vec![],
            files: vec![],
            text: String::new(),
            source: source.into(),
        };
        let mbox = [patch("s.mbx"), patch("s.mbx")];
        let opts = Options {
            random: 0,
            seed: 1,
            funcs: vec![],
            expect: vec![],
            depth: true,
            suggest: 0,
        };
        let at = |patches, later| Origin {
            base: &base,
            patches,
            later,
        };
        assert_eq!(
            at(&mbox, true).reproduce("m", &opts),
            "cargo xtask mutants --kernel 6.12 --in-diff s.mbx --in-diff-patches 2 --id m"
        );
        assert_eq!(
            at(&mbox, false).reproduce("m", &opts),
            "cargo xtask mutants --kernel 6.12 --in-diff s.mbx --id m"
        );
    }
}
