//! Coverage of upstream code by the committed corpus (`cargo xtask
//! coverage`): the C world built with gcov instrumentation, the corpus run
//! in a worker, lcov's tracefile read back per upstream function.
//!
//! A function's extent is taken from the tree itself with the definition
//! extractor, so the report is per function of qp.c, the extracted
//! sdma.c/pio.c/verbs.c/driver.c definitions, and the inline helpers of
//! the driver's headers that the corpus reaches.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::cworld::{self, BuildOptions, BuiltWorld};
use crate::extract;
use crate::kernel::KernelTree;
use crate::runner;
use crate::vector::Vector;

/// One source line's data from an lcov tracefile.
#[derive(Debug, Default, Clone)]
struct FileData {
    /// line -> hits
    lines: BTreeMap<usize, u64>,
    /// line -> [(block, branch, taken)]
    branches: BTreeMap<usize, Vec<(String, u64)>>,
}

/// Coverage of one upstream function.
#[derive(Debug, Clone)]
pub struct FuncCoverage {
    pub file: String,
    pub name: String,
    pub start: usize,
    pub end: usize,
    pub lines_hit: usize,
    pub lines: usize,
    pub branches_taken: usize,
    pub branches: usize,
    /// Lines with a branch never taken: (line, taken/total there).
    pub missed_branches: Vec<(usize, usize, usize)>,
    pub missed_lines: Vec<usize>,
}

fn parse_info(text: &str) -> BTreeMap<String, FileData> {
    let mut out: BTreeMap<String, FileData> = BTreeMap::new();
    let mut cur: Option<String> = None;
    for l in text.lines() {
        if let Some(f) = l.strip_prefix("SF:") {
            cur = Some(f.to_owned());
            out.entry(f.to_owned()).or_default();
        } else if let (Some(d), Some(f)) = (l.strip_prefix("DA:"), &cur) {
            let mut it = d.split(',');
            if let (Some(Ok(line)), Some(Ok(hits))) = (
                it.next().map(str::parse::<usize>),
                it.next().map(str::parse::<u64>),
            ) {
                let e = out.entry(f.clone()).or_default();
                *e.lines.entry(line).or_default() += hits;
            }
        } else if let (Some(d), Some(f)) = (l.strip_prefix("BRDA:"), &cur) {
            let p: Vec<&str> = d.split(',').collect();
            if p.len() == 4 {
                if let Ok(line) = p[0].parse::<usize>() {
                    let taken = p[3].parse::<u64>().unwrap_or(0);
                    let key = format!("{}:{}", p[1], p[2]);
                    let e = out.entry(f.clone()).or_default();
                    let v = e.branches.entry(line).or_default();
                    match v.iter_mut().find(|(k, _)| *k == key) {
                        Some(x) => x.1 += taken,
                        None => v.push((key, taken)),
                    }
                }
            }
        } else if l == "end_of_record" {
            cur = None;
        }
    }
    out
}

/// The upstream functions in scope, by file (relative to the tree) and
/// name: every definition of qp.c, the extracted selection functions, and
/// the inline helpers of the headers that the functions in scope reach.
pub fn in_scope() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![
        ("drivers/infiniband/hw/hfi1/qp.c", vec![]), // every function
        (
            "drivers/infiniband/hw/hfi1/sdma.c",
            vec!["sdma_select_engine_vl", "sdma_select_engine_sc"],
        ),
        (
            "drivers/infiniband/hw/hfi1/pio.c",
            vec!["pio_select_send_context_vl", "pio_select_send_context_sc"],
        ),
        ("drivers/infiniband/hw/hfi1/verbs.c", vec!["ah_to_sc"]),
        ("drivers/infiniband/hw/hfi1/driver.c", vec!["mtu_to_enum"]),
        (
            "drivers/infiniband/hw/hfi1/qp.h",
            vec!["hfi1_send_ok", "clear_ahg"],
        ),
        (
            "drivers/infiniband/hw/hfi1/tid_rdma.h",
            vec!["hfi1_setup_tid_rdma_wqe"],
        ),
        (
            "drivers/infiniband/hw/hfi1/hfi.h",
            vec![
                "sc_to_vlt",
                "to_iport",
                "hfi1_update_ah_attr",
                "hfi1_make_opa_lid",
                "hfi1_get_packet_type",
                "hfi1_get_hdr_type",
                "hfi1_check_mcast",
                "__opa_get_lid",
            ],
        ),
        (
            "drivers/infiniband/hw/hfi1/iowait.c",
            vec!["iowait_init", "iowait_cancel_work", "iowait_set_work_flag"],
        ),
    ]
}

/// Builds the instrumented world and runs `vectors` in it; when this
/// returns, the worker has exited and written its `.gcda` counters next to
/// the objects (`world.dir/obj`), ready for lcov.
pub fn collect(tree: &KernelTree, vectors: &[Vector]) -> Result<BuiltWorld> {
    let world = cworld::build(
        tree,
        &BuildOptions {
            coverage: true,
            ..Default::default()
        },
    )?;
    let obj = world.dir.join("obj");
    // Fresh counters for this run.
    for e in std::fs::read_dir(&obj)?.flatten() {
        if e.path().extension().is_some_and(|x| x == "gcda") {
            let _ = std::fs::remove_file(e.path());
        }
    }
    let checks = runner::check_all(&world, vectors)?;
    let bad = checks.iter().filter(|c| !c.verdict.ok()).count();
    if bad > 0 {
        eprintln!("[coverage] note: {bad} vectors disagree (coverage is still measured)");
    }
    Ok(world)
}

/// Line hits of the source file whose path ends with `rel`, from an lcov
/// tracefile: line -> hits, executable lines only.
pub fn line_hits(info: &str, rel: &str) -> BTreeMap<usize, u64> {
    parse_info(info)
        .into_iter()
        .filter(|(f, _)| f.ends_with(&format!("/{rel}")))
        .flat_map(|(_, d)| d.lines)
        .collect()
}

/// Reads an lcov tracefile back per upstream function in scope.
pub fn report(world: &BuiltWorld, info: &str) -> Result<Vec<FuncCoverage>> {
    let data = parse_info(info);
    let tree = &world.tree;
    let mut out = vec![];
    for (rel, names) in in_scope() {
        let path = tree.path(rel);
        let src = tree.read_to_string(&path)?;
        let key = path.display().to_string();
        let fd = data.get(&key).cloned().unwrap_or_default();
        let defs = extract::definitions(&src).map_err(|e| anyhow::anyhow!("{rel}: {e}"))?;
        for d in defs {
            let is_fn = d.text.trim_end().ends_with('}') && d.text.contains('(');
            if !is_fn || (!names.is_empty() && !names.contains(&d.name.as_str())) {
                continue;
            }
            if names.is_empty() && !d.text.contains('{') {
                continue;
            }
            let start = d.line;
            let end = start + d.text.lines().count().saturating_sub(1);
            let lines: Vec<(&usize, &u64)> = fd.lines.range(start..=end).collect();
            let mut f = FuncCoverage {
                file: rel.to_owned(),
                name: d.name.clone(),
                start,
                end,
                lines_hit: lines.iter().filter(|(_, h)| **h > 0).count(),
                lines: lines.len(),
                branches_taken: 0,
                branches: 0,
                missed_branches: vec![],
                missed_lines: lines
                    .iter()
                    .filter(|(_, h)| **h == 0)
                    .map(|(l, _)| **l)
                    .collect(),
            };
            for (line, brs) in fd.branches.range(start..=end) {
                let taken = brs.iter().filter(|(_, t)| *t > 0).count();
                f.branches += brs.len();
                f.branches_taken += taken;
                if taken < brs.len() {
                    f.missed_branches.push((*line, taken, brs.len()));
                }
            }
            out.push(f);
        }
    }
    Ok(out)
}

/// The per-function table and the list of what was missed.
pub fn render(tree: &KernelTree, cov: &[FuncCoverage], html: &Path) -> String {
    let mut s = format!("coverage of upstream functions on {}\n", tree.version);
    let w = cov.iter().map(|c| c.name.len()).max().unwrap_or(8).max(8);
    s.push_str(&format!(
        "{:w$}  {:>12}  {:>12}  file\n",
        "function", "lines", "branches"
    ));
    let (mut lh, mut lt, mut bh, mut bt) = (0, 0, 0, 0);
    for c in cov {
        lh += c.lines_hit;
        lt += c.lines;
        bh += c.branches_taken;
        bt += c.branches;
        let pct = |a: usize, b: usize| match (a * 100).checked_div(b) {
            None => "-".to_string(),
            Some(p) => format!("{a}/{b} {p:>3}%"),
        };
        s.push_str(&format!(
            "{:w$}  {:>12}  {:>12}  {}:{}\n",
            c.name,
            pct(c.lines_hit, c.lines),
            pct(c.branches_taken, c.branches),
            c.file.rsplit('/').next().unwrap_or(&c.file),
            c.start
        ));
    }
    s.push_str(&format!(
        "{:w$}  {:>12}  {:>12}\n",
        "total",
        format!("{lh}/{lt}"),
        format!("{bh}/{bt}")
    ));
    let missed: Vec<&FuncCoverage> = cov
        .iter()
        .filter(|c| !c.missed_branches.is_empty() || !c.missed_lines.is_empty())
        .collect();
    if !missed.is_empty() {
        s.push_str("\nnot reached (file:line):\n");
        for c in missed {
            let f = c.file.rsplit('/').next().unwrap_or(&c.file);
            let lines: Vec<String> = c.missed_lines.iter().map(|l| format!("{f}:{l}")).collect();
            let brs: Vec<String> = c
                .missed_branches
                .iter()
                .map(|(l, t, n)| format!("{f}:{l} ({t}/{n} branches)"))
                .collect();
            s.push_str(&format!(
                "  {}: lines [{}] branches [{}]\n",
                c.name,
                lines.join(", "),
                brs.join(", ")
            ));
        }
    }
    s.push_str(&format!(
        "\nHTML report: {}\n",
        html.join("index.html").display()
    ));
    s
}

/// Where `cargo xtask coverage` writes its reports.
pub fn out_dir(series: &str) -> PathBuf {
    crate::project_path("target/coverage").join(series)
}
