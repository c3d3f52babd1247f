//! `cargo xtask merge`: the shards' JSON reports joined into the whole
//! run's report and exit code.

use anyhow::{Context, Result};
use harness::cmd::gate;
use harness::report::{shard, Report};

use crate::flags;

pub fn run(a: flags::Merge) -> Result<u8> {
    let mut reports = vec![];
    for p in &a.reports {
        let text = if p == "-" {
            std::io::read_to_string(std::io::stdin()).context("reading a report from stdin")?
        } else {
            std::fs::read_to_string(p).with_context(|| format!("reading the shard report {p}"))?
        };
        let r: Report = serde_json::from_str(&text).with_context(|| {
            format!("{p}: not a JSON report (write each shard's with --format json)")
        })?;
        reports.push(r);
    }
    let n = reports.len();
    let inputs = reports
        .first()
        .and_then(|r| r.shard.as_ref())
        .map(|s| s.inputs.clone());
    let (report, mut exit) = shard::merge(reports)?;
    if report.kind == "gate" {
        let base_all = inputs
            .as_ref()
            .and_then(|i| i["bases"].as_array())
            .is_some_and(|b| b.iter().any(|b| b == "all"));
        let verdicts = gate::verdicts_of(&report, base_all);
        exit = gate::exit_code_of(&verdicts);
        eprintln!("patchwork: {}", gate::patchwork_line_of(&verdicts));
    }
    print!("{}", a.output.render(&report));
    eprintln!(
        "[merge] {n} shard(s) of a {} run joined: {} tests, {} passed (exit {exit})",
        report.kind, report.totals.tests, report.totals.passed
    );
    Ok(exit)
}
