//! MC/DC of a patch's changed decisions: of the decisions (conditions
//! joined by `&&`/`||`) on the lines a patch changes inside functions in
//! scope, which conditions the vectors show flipping their decision on
//! their own, measured in a measuring world of the patched tree (clang 19,
//! [`crate::judge::mcdc`]).

use anyhow::Result;

use super::Options;
use crate::corpus::Vector;
use crate::cworld;
use crate::judge::mcdc::{self, FuncMcdc};
use crate::kernel::KernelTree;
use crate::model::types::Func;
use crate::report::PatchMcdc;

/// MC/DC of the decisions on `lines` (tree-relative file, line) in the
/// patched tree `tree` (placed: a measuring world is bound to its tree's
/// place): the corpus first, the generated vectors only when a condition
/// is still not shown. `None` when no changed line holds a decision (no
/// world is built then: the cheap check is the gcc coverage's lines,
/// which the caller has; here a measuring world is built once to find the
/// decisions).
pub(super) fn patch_mcdc(
    tree: &KernelTree,
    lines: &[(String, usize)],
    vectors: &[Vector],
    opts: &Options,
    funcs: &[Func],
) -> Result<Option<PatchMcdc>> {
    // The same code before and after, or nothing that returns: nothing
    // runs the changed decisions' new code to measure.
    if lines.is_empty() || funcs.is_empty() {
        return Ok(None);
    }
    if let Err(e) = mcdc::require_clang() {
        return Ok(Some(PatchMcdc {
            unmeasured: Some(format!("{e:#}")),
            ..Default::default()
        }));
    }
    let vectors: Vec<Vector> = vectors
        .iter()
        .filter(|v| v.steps().any(|c| funcs.contains(&c.func())))
        .cloned()
        .collect();
    let mut files: Vec<String> = lines.iter().map(|(f, _)| f.clone()).collect();
    files.sort();
    files.dedup();
    let world = mcdc::collect(tree, &vectors, Some(files))?;
    let measured = changed(
        &mcdc::report(&world, &mcdc::merge_profiles(&world)?)?,
        lines,
    );
    if measured.conditions == 0 || measured.shown == measured.conditions {
        return Ok((measured.conditions > 0).then_some(measured));
    }
    // Profiles add up across workers: the generated vectors too, shared
    // between two workers.
    let mut w1 = cworld::Worker::new(&world)?;
    let mut w2 = cworld::Worker::new(&world)?;
    w1.presume_hangs(1);
    w2.presume_hangs(1);
    // Nor the rest of a crash storm's vectors (what ran counts).
    w1.cut_fault_storms();
    w2.cut_fault_storms();
    for f in funcs {
        cworld::digests::compute(&mut [&mut w1, &mut w2], *f, opts.seed, opts.random)?;
    }
    drop((w1, w2)); // the workers exit: their profiles are written
    let profile = mcdc::merge_profiles(&world)?;
    Ok(Some(changed(&mcdc::report(&world, &profile)?, lines)))
}

/// The conditions of the decisions `cov` holds that touch `lines`.
fn changed(cov: &[FuncMcdc], lines: &[(String, usize)]) -> PatchMcdc {
    let mut out = PatchMcdc::default();
    for f in cov {
        let touched = |l: &usize| lines.iter().any(|(p, x)| *p == f.at.file && x == l);
        for d in f
            .decisions
            .iter()
            .filter(|d| (d.line..=d.end).any(|l| touched(&l)))
        {
            let name = f.at.file.rsplit('/').next().unwrap_or(&f.at.file);
            out.decisions += 1;
            for c in &d.conditions {
                out.conditions += 1;
                if c.shown {
                    out.shown += 1;
                } else {
                    out.not_shown
                        .push(format!("`{}` of `{}` at {name}:{}", c.text, d.text, d.line));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::coverage::Extent;
    use crate::judge::mcdc::{Condition, Decision};

    fn decision(line: usize, end: usize, shown: &[bool]) -> Decision {
        Decision {
            line,
            end,
            text: format!("if (d{line})"),
            conditions: shown
                .iter()
                .enumerate()
                .map(|(i, s)| Condition {
                    text: format!("c{i}"),
                    shown: *s,
                })
                .collect(),
        }
    }

    #[test]
    fn only_decisions_on_changed_lines_count() {
        let qp = "drivers/infiniband/hw/hfi1/qp.c";
        let cov = [FuncMcdc {
            at: Extent {
                file: qp.into(),
                name: "f".into(),
                start: 1,
                end: 40,
            },
            decisions: vec![
                decision(10, 10, &[true, false]),
                decision(20, 22, &[true, true, false]),
                decision(30, 30, &[false, false]),
            ],
        }];
        // Line 21 is inside the second decision; line 10 is the first;
        // nothing on line 30 changed; the same line of another file is not
        // this one.
        let lines = [
            (qp.to_string(), 10),
            (qp.to_string(), 21),
            ("drivers/infiniband/hw/hfi1/sdma.c".to_string(), 30),
        ];
        let pm = changed(&cov, &lines);
        assert_eq!((pm.decisions, pm.conditions, pm.shown), (2, 5, 3));
        assert_eq!(
            pm.not_shown,
            [
                "`c1` of `if (d10)` at qp.c:10",
                "`c2` of `if (d20)` at qp.c:20"
            ]
        );
        assert_eq!(changed(&cov, &[(qp.to_string(), 5)]).conditions, 0);
    }
}
