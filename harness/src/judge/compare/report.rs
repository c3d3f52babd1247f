//! The report of a comparison (`diff`, the gate, `sweep`).

use super::{Comparison, Group};
use crate::model::types::Func;

/// What a case's message says of `k` generated calls not run.
fn not_run_note(k: u64) -> String {
    format!(
        " ({k} generated calls not run: a side had faulted {} times on this \
         function's, each confirmed alone)",
        crate::cworld::FAULT_PROOFS
    )
}

/// The report of a comparison: one suite (`A vs B`), a case per function
/// (`diff::FUNCTION`), failing with its groups: how many calls, the first,
/// the minimal reproducer as a ready-to-commit `[[case]]`, and A against B
/// field by field.
pub fn report(name: &str, a: &str, b: &str, c: &Comparison) -> crate::report::Report {
    use crate::report::{Case, Difference, Report, Status, Suite};
    let mut cases: Vec<Case> = c
        .per_func
        .iter()
        .map(|&(f, compared, differing)| {
            let groups: Vec<&Group> = c.groups.iter().filter(|g| g.func == f).collect();
            let not_run = c.not_run.iter().find(|u| u.0 == f).map(|u| u.1);
            let detail = (!groups.is_empty()).then(|| {
                let mut d = detail(f, &groups, a, b);
                if let Some(k) = not_run {
                    d.push_str(&format!("  and{}\n", not_run_note(k)));
                }
                d
            });
            Case {
                name: format!("diff::{f}"),
                function: f.to_string(),
                status: if !groups.is_empty() {
                    Status::Fail
                } else if not_run.is_some() {
                    // Not compared past the faults both sides had alike.
                    Status::Skip
                } else {
                    Status::Pass
                },
                message: if !groups.is_empty() {
                    let mut seen = match c.ungrouped.iter().find(|u| u.0 == f) {
                        Some((_, k)) => format!(" ({k} more generated calls not sorted into ways)"),
                        None => String::new(),
                    };
                    if let Some(k) = not_run {
                        seen.push_str(&not_run_note(k));
                    }
                    Some(format!(
                        "{differing} of {compared} calls differ between {a} and {b}, in {} way(s){seen}",
                        groups.len()
                    ))
                } else if let Some(k) = not_run {
                    Some(format!("no call of {compared} differs{}", not_run_note(k)))
                } else if c.same_code.contains(&f) {
                    Some(format!(
                        "not run: the code and data its calls reach are the same in {a} and {b}"
                    ))
                } else {
                    None
                },
                detail,
                differences: groups
                    .iter()
                    .flat_map(|g| g.fields.iter())
                    .map(|(field, x, y)| Difference {
                        field: field.clone(),
                        c: x.clone(),
                        rust: y.clone(),
                    })
                    .collect(),
                vectors: compared,
                failed: differing,
                ..Default::default()
            }
        })
        .collect();
    // A function one tree lacks: nothing to compare (a patch that removes
    // a function cannot change what its callers do: a tree whose code
    // still calls it does not build).
    // (One neither tree has is not a case: the series lacks it.)
    cases.extend(c.not_in_tree.iter().filter_map(|&(f, p)| {
        let why = match p {
            super::Presence::Removed => format!("not run: in {a}, not in {b} (removed)"),
            super::Presence::Added => format!("not run: in {b}, not in {a} (added)"),
            super::Presence::Neither => return None,
        };
        Some(Case {
            name: format!("diff::{f}"),
            function: f.to_string(),
            status: Status::Skip,
            message: Some(why),
            ..Default::default()
        })
    }));
    Report::new(
        "diff",
        vec![Suite {
            name: name.to_owned(),
            kernel: format!("{a} vs {b}"),
            cases,
            seconds: c.seconds,
            ..Default::default()
        }],
    )
}

/// The detail of a function's differing groups: each group's count,
/// first call, the world state it reads, A against B field by field and
/// its minimal reproducer.
fn detail(f: Func, groups: &[&Group], a: &str, b: &str) -> String {
    let mut d = String::new();
    for g in groups {
        d.push_str(&format!(
            "{} call(s) of {f} differ in {} (first: {})\n",
            g.count,
            g.shape.join(", "),
            g.first
        ));
        d.push_str(&format!(
            "  call: {}\n",
            crate::judge::check::describe_call(&g.minimal)
        ));
        if !g.reads.is_empty() {
            d.push_str(&format!("  reading: {}\n", g.reads.join(", ")));
        }
        for (field, x, y) in &g.fields {
            d.push_str(&format!("  {field}\n    {a}: {x}\n    {b}: {y}\n"));
        }
        d.push_str("  minimal reproducer:\n");
        let name = format!(
            "diff_{f}_{}",
            g.shape.join("_").replace([' ', '>', '-'], "")
        );
        let case = match (&g.case, &g.family) {
            (Some(case), Some(file)) => {
                d.push_str(&format!(
                    "    (for {}; its [defaults] give every key not written)\n",
                    crate::report::shown_path(file)
                ));
                case.clone()
            }
            // A scenario's steps up to the one that differs, written whole.
            (Some(case), None) => case.clone(),
            _ => crate::corpus::write::case_toml(&g.minimal, &name, &format!("{a} vs {b}")),
        };
        for l in case.lines() {
            d.push_str(&format!("    {l}\n"));
        }
    }
    d
}
