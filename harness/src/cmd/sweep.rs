//! `cargo xtask sweep`: every published Debian version of each series,
//! oldest to newest, each compared with the one before it, C against C
//! (the gate's and `diff`'s comparison: the corpus and generated
//! vectors). A stable update that changes the behaviour of a function in
//! scope shows up as the pair of versions where it changed, with grouped
//! minimal reproducers.

use std::ops::Range;

use anyhow::Result;

use crate::corpus::Vector;
use crate::cworld::{self, BuildOptions};
use crate::judge::compare::{self, Comparison};
use crate::kernel::{self, Published};
use crate::model::types::Func;
use crate::report::{BuildStatus, Case, Report, ShardSpec, Status, Suite, Tree};

/// What to sweep.
#[derive(Debug, Clone)]
pub struct Options {
    /// The series (default: the pinned ones).
    pub series: Vec<String>,
    /// At most this many versions per series, the newest (0: all).
    pub limit: usize,
    /// Generated vectors per function, besides the corpus.
    pub random: u64,
    /// The seed they are drawn from.
    pub seed: u64,
    /// The functions whose generated vectors run.
    pub funcs: Vec<Func>,
    /// Sweep only this shard's block of the versions (each compared with
    /// the one before it, as in the whole sweep).
    pub shard: Option<ShardSpec>,
}

/// One step of a sweep: version `from` to version `to` of a series.
#[derive(Debug, Clone)]
pub struct Step {
    /// The series.
    pub series: String,
    /// The version before (empty when none before `to` was built).
    pub from: String,
    /// The version after.
    pub to: String,
    /// The comparison, or why it could not be made (a version that does
    /// not build: a finding too).
    pub result: std::result::Result<Comparison, String>,
    /// The two versions' trees and worlds as reports record them
    /// (`before`, `after`; only `after` when none before it was built).
    pub trees: Vec<Tree>,
}

/// The versions a sweep visits, per series oldest first.
pub fn plan(opts: &Options) -> Result<Vec<(String, Vec<Published>)>> {
    let series = if opts.series.is_empty() {
        kernel::series()
    } else {
        opts.series.clone()
    };
    let all = kernel::published(&series)?;
    let mut out = vec![];
    for s in series {
        let mut v: Vec<Published> = all.iter().filter(|p| p.series == s).cloned().collect();
        // apt lists newest first.
        if opts.limit > 0 {
            v.truncate(opts.limit);
        }
        v.reverse();
        out.push((s, v));
    }
    Ok(out)
}

/// What a sweep did.
#[derive(Debug, Clone, Default)]
pub struct Sweep {
    /// Each step, in order.
    pub steps: Vec<Step>,
    /// `(series, version, why)`: published versions the archive would not
    /// hand over (a package listed but gone from the pool). They are left
    /// out of the chain, not counted as failures.
    pub unavailable: Vec<(String, String, String)>,
    /// The versions of the whole sweep, per series oldest first (a
    /// shard's inputs).
    pub planned: Vec<(String, Vec<String>)>,
}

/// The suite listing the versions the archive would not hand over.
pub const UNAVAILABLE: &str = "unavailable";

/// Runs a sweep: fetch and build each version, compare it with the
/// previous one of its series that could be built. A version that does
/// not build is a failed step (a finding); one that cannot be downloaded
/// is listed and skipped. A shard does the versions of its block of the
/// run's units (every version of every series, in order).
pub fn run(opts: &Options, vectors: &[Vector], progress: &mut dyn FnMut(&str)) -> Result<Sweep> {
    let plan = plan(opts)?;
    let units: usize = plan.iter().map(|(_, v)| v.len()).sum();
    let mine = opts.shard.map_or(0..units, |s| s.range(units));
    let mut out = Sweep {
        planned: plan
            .iter()
            .map(|(s, v)| (s.clone(), v.iter().map(|p| p.version.clone()).collect()))
            .collect(),
        ..Default::default()
    };
    let mut first = 0;
    for (series, versions) in plan {
        let at = first;
        first += versions.len();
        let only = mine.start.clamp(at, first) - at..mine.end.clamp(at, first) - at;
        if only.is_empty() {
            continue;
        }
        progress(&format!(
            "series {series}: {} version(s): {}",
            only.len(),
            versions[only.clone()]
                .iter()
                .map(|p| p.version.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        let names: Vec<String> = versions.iter().map(|p| p.version.clone()).collect();
        // Both steps say how they go; one at a time.
        let said = std::cell::RefCell::new(&mut *progress);
        // Each version's tree and world as reports record them.
        let mut records: std::collections::HashMap<String, Tree> = Default::default();
        let chain = walk(
            &names,
            only,
            &mut |k| {
                let (got, record) =
                    fetched_and_built(&series, &versions[k], &mut **said.borrow_mut());
                if let Some(r) = record {
                    records.insert(names[k].clone(), r);
                }
                got
            },
            &mut |(from, before), (to, after)| {
                let mut progress = said.borrow_mut();
                progress(&format!("{series}: {from} -> {to}"));
                let c = compare::compare(
                    before,
                    after,
                    vectors,
                    &opts.funcs,
                    opts.random,
                    opts.seed,
                    &mut **progress,
                );
                c.map_err(|e| format!("{e:#}"))
            },
        );
        for link in chain {
            match link {
                Link::Unavailable(version, why) => {
                    out.unavailable.push((series.clone(), version, why));
                }
                Link::Step(from, to, result) => {
                    let before = records.get(&from).map(|t| Tree {
                        role: "before".into(),
                        ..t.clone()
                    });
                    let trees = before
                        .into_iter()
                        .chain(records.get(&to).cloned())
                        .collect();
                    out.steps.push(Step {
                        series: series.clone(),
                        from,
                        to,
                        result,
                        trees,
                    })
                }
            }
        }
    }
    Ok(out)
}

/// What a version of a sweep adds to it.
#[derive(Debug, PartialEq)]
enum Link<R> {
    /// `(version, why)`: it could not be fetched.
    Unavailable(String, String),
    /// `(from, to, result)`: compared with the one before it that built
    /// (`from` empty: none did), or why not.
    Step(String, String, std::result::Result<R, String>),
}

/// Compares two versions, each `(version, world)`: a result or why not.
type Compare<'a, W, R> = dyn FnMut((&str, &W), (&str, &W)) -> std::result::Result<R, String> + 'a;

/// The links of `versions[only]` (a series, oldest first), as a sweep of
/// every version makes them: each version fetched and built by `get`
/// (its index) and compared by `compare` with the last version before it
/// that was. The version before `only` is found by walking back, as the
/// whole sweep would have left it.
fn walk<W, R>(
    versions: &[String],
    only: Range<usize>,
    get: &mut dyn FnMut(usize) -> std::result::Result<W, Missing>,
    compare: &mut Compare<'_, W, R>,
) -> Vec<Link<R>> {
    let mut prev: Option<(usize, W)> = (0..only.start)
        .rev()
        .find_map(|k| get(k).ok().map(|w| (k, w)));
    let mut out = vec![];
    for k in only {
        let to = versions[k].clone();
        let from = prev.as_ref().map(|p| versions[p.0].clone());
        match get(k) {
            Err(Missing::Unavailable(why)) => out.push(Link::Unavailable(to, why)),
            Err(Missing::DoesNotBuild(why)) => {
                out.push(Link::Step(from.unwrap_or_default(), to, Err(why)));
            }
            Ok(world) => {
                if let (Some((_, before)), Some(from)) = (&prev, from) {
                    let result = compare((&from, before), (&to, &world));
                    out.push(Link::Step(from, to, result));
                }
                prev = Some((k, world));
            }
        }
    }
    out
}

/// Why a published version has no world.
enum Missing {
    /// The archive would not hand it over.
    Unavailable(String),
    /// It does not build (a finding).
    DoesNotBuild(String),
}

/// A published version fetched and built, and its tree and world as
/// reports record them (as `after`; none when it could not be fetched).
fn fetched_and_built(
    series: &str,
    p: &Published,
    progress: &mut dyn FnMut(&str),
) -> (
    std::result::Result<cworld::BuiltWorld, Missing>,
    Option<Tree>,
) {
    progress(&format!("{series}: fetching and building {}", p.version));
    let tree = match kernel::fetch_version(series, &p.version, None) {
        Ok(t) => t,
        Err(e) => {
            progress(&format!("{series}: {} is not available: {e:#}", p.version));
            return (Err(Missing::Unavailable(format!("{e:#}"))), None);
        }
    };
    let opts = BuildOptions::default();
    let record =
        |status, error| super::tree_record("after", &p.version, &tree, &opts, status, error);
    match cworld::build(&tree, &opts) {
        Ok(w) => (Ok(w), Some(record(BuildStatus::Built, None))),
        Err(e) => (
            Err(Missing::DoesNotBuild(format!("{}: {e:#}", p.version))),
            Some(record(BuildStatus::Failed, Some(format!("{e:#}")))),
        ),
    }
}

/// The sweep's report: a suite per step (`6.1: 6.1.176-1 -> 6.1.177-1`),
/// with `diff`'s cases (one per function, failing with its groups when
/// the function's behaviour changed between the two versions), and a note
/// per version the archive would not hand over.
pub fn report(sweep: &Sweep) -> Report {
    let mut suites = vec![];
    for s in &sweep.steps {
        let name = format!("{}: {} -> {}", s.series, s.from, s.to);
        match &s.result {
            Ok(c) => {
                let mut r = compare::report(&name, &s.from, &s.to, c);
                for suite in &mut r.suites {
                    suite.trees = s.trees.clone();
                }
                suites.append(&mut r.suites);
            }
            Err(e) => suites.push(Suite {
                name: name.clone(),
                kernel: name,
                error: Some(e.clone()),
                trees: s.trees.clone(),
                ..Default::default()
            }),
        }
    }
    if !sweep.unavailable.is_empty() {
        suites.push(Suite {
            name: UNAVAILABLE.into(),
            kernel: UNAVAILABLE.into(),
            cases: sweep
                .unavailable
                .iter()
                .map(|(series, version, why)| Case {
                    name: format!("unavailable::{series}={version}"),
                    function: "(unavailable)".into(),
                    status: Status::Pass,
                    message: Some(format!(
                        "{series}={version} is listed by Debian but could not be fetched \
                         (left out of the sweep): {why}"
                    )),
                    vectors: 0,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        });
    }
    Report::new("sweep", suites)
}

/// Per function, the steps where its behaviour changed: the summary a
/// sweep ends with.
pub fn changes(sweep: &Sweep) -> Vec<(Func, Vec<String>)> {
    let mut out: Vec<(Func, Vec<String>)> = vec![];
    for s in &sweep.steps {
        let Ok(c) = &s.result else { continue };
        for g in &c.groups {
            let at = format!("{} -> {}", s.from, s.to);
            match out.iter_mut().find(|(f, _)| *f == g.func) {
                Some((_, v)) if v.contains(&at) => {}
                Some((_, v)) => v.push(at),
                None => out.push((g.func, vec![at])),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{kcidb, Build, Origin};

    /// Every shard's links, joined in order, are the whole sweep's, for
    /// series where some versions cannot be fetched or do not build.
    #[test]
    fn shards_walk_back_to_the_version_the_whole_sweep_compares_with() {
        // 0 builds, 1 unavailable, 2 does not build.
        let patterns: [&[u8]; 5] = [
            &[0, 0, 0, 0, 0],
            &[1, 0, 2, 0, 0, 1],
            &[2, 2, 0, 1, 0],
            &[1, 1, 1],
            &[0, 2, 1, 2, 0, 0, 2],
        ];
        for pattern in patterns {
            let versions: Vec<String> = (0..pattern.len()).map(|k| format!("v{k}")).collect();
            let sweep = |only: Range<usize>| {
                walk(
                    &versions,
                    only,
                    &mut |k| match pattern[k] {
                        0 => Ok(k),
                        1 => Err(Missing::Unavailable(format!("gone {k}"))),
                        _ => Err(Missing::DoesNotBuild(format!("broken {k}"))),
                    },
                    &mut |(from, a), (to, b)| Ok::<_, String>(format!("{from}={a}->{to}={b}")),
                )
            };
            let whole = sweep(0..versions.len());
            for count in 1..=versions.len() + 1 {
                let joined: Vec<Link<String>> = (1..=count)
                    .flat_map(|index| sweep(ShardSpec { index, count }.range(versions.len())))
                    .collect();
                assert_eq!(joined, whole, "{pattern:?} in {count} shards");
            }
        }
        // The whole sweep of the second: v0 is listed, v2 fails (after
        // v1), v3 is compared with v1, v5 is listed.
        let versions: Vec<String> = (0..6).map(|k| format!("v{k}")).collect();
        let links = walk(
            &versions,
            0..6,
            &mut |k| match [1, 0, 2, 0, 0, 1][k] {
                0 => Ok(()),
                1 => Err(Missing::Unavailable("gone".into())),
                _ => Err(Missing::DoesNotBuild("broken".into())),
            },
            &mut |(from, _), (to, _)| Ok::<_, String>(format!("{from}->{to}")),
        );
        let want = vec![
            Link::Unavailable("v0".into(), "gone".into()),
            Link::Step("v1".into(), "v2".into(), Err("broken".into())),
            Link::Step("v1".into(), "v3".into(), Ok("v1->v3".into())),
            Link::Step("v3".into(), "v4".into(), Ok("v3->v4".into())),
            Link::Unavailable("v5".into(), "gone".into()),
        ];
        assert_eq!(links, want);
    }

    /// A Debian tree of `version`, its world built as `status`.
    fn tree(role: &str, version: &str, status: BuildStatus) -> Tree {
        Tree {
            role: role.into(),
            kernel: version.into(),
            version: version.split('-').next().unwrap_or(version).into(),
            package: Some(version.into()),
            digest: format!("digest of {version}"),
            valid: Some(true),
            build: Some(Build {
                recipe: crate::cworld::build::Recipe {
                    compiler: "gcc (Debian 12.2.0-14) 12.2.0".into(),
                    command: "gcc".into(),
                    flags: vec!["-O2".into(), "-std=gnu11".into()],
                    architecture: "x86_64".into(),
                    config: "plain".into(),
                    key: format!("key of {version}"),
                },
                status,
                error: (status == BuildStatus::Failed).then(|| "qp.c:1:1: error: x".into()),
            }),
            ..Default::default()
        }
    }

    /// A sweep's report as KCIDB has it: each step's versions a checkout
    /// and a build, the step's cases tests of the newer one's build; a
    /// version that does not build a failed build; one the archive would
    /// not hand over a skipped test. A real sweep downloads every version
    /// (about 150 MB each), so CI validates this one with kcidb-io: with
    /// `HFI1_KCIDB_SAMPLES=DIR` it is written to `DIR/sweep.kcidb`.
    #[test]
    fn a_sweep_report_in_kcidb_form() {
        let built = BuildStatus::Built;
        let (a, b, c) = ("6.1.1-1", "6.1.2-1", "6.1.3-1");
        let f = Func::ALL[0];
        let sweep = Sweep {
            steps: vec![
                Step {
                    series: "6.1".into(),
                    from: a.into(),
                    to: b.into(),
                    result: Ok(Comparison {
                        per_func: vec![(f, 40, 0)],
                        ..Default::default()
                    }),
                    trees: vec![tree("before", a, built), tree("after", b, built)],
                },
                Step {
                    series: "6.1".into(),
                    from: b.into(),
                    to: c.into(),
                    result: Err(format!("{c}: qp.c:1:1: error: x")),
                    trees: vec![
                        tree("before", b, built),
                        tree("after", c, BuildStatus::Failed),
                    ],
                },
            ],
            unavailable: vec![("6.1".into(), "6.1.0-1".into(), "gone from the pool".into())],
            ..Default::default()
        };
        let text = kcidb(&report(&sweep), &Origin::default());
        let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let list = |k: &str| v[k].as_array().cloned().unwrap_or_default();
        // a, b and c once each (b is in both steps), and the unavailable
        // suite's, named by its suite alone.
        assert_eq!(list("checkouts").len(), 4);
        let statuses: Vec<_> = list("builds").iter().map(|b| b["status"].clone()).collect();
        assert_eq!(statuses[..3], ["PASS", "PASS", "FAIL"]);
        let tests = list("tests");
        let st: Vec<(&str, &str)> = tests
            .iter()
            .map(|t| {
                (
                    t["status"].as_str().unwrap_or(""),
                    t["path"].as_str().unwrap_or(""),
                )
            })
            .collect();
        let path = format!("hfi1.qp.{f}.diff");
        assert_eq!(
            st,
            [
                ("PASS", path.as_str()),
                ("SKIP", "hfi1.qp.unavailable.6_1_6_1_0-1")
            ],
            "a failed build is no test"
        );
        assert_eq!(tests[0]["build_id"], list("builds")[1]["id"]);
        assert_eq!(
            tests[0]["misc"]["baseline_build_id"],
            list("builds")[0]["id"]
        );
        if let Ok(dir) = std::env::var("HFI1_KCIDB_SAMPLES") {
            let p = std::path::Path::new(&dir).join("sweep.kcidb");
            fs_err::write(&p, &text).expect("writing the sample");
        }
    }
}
