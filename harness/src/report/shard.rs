//! Shards: one run split across machines with no coordination, and the
//! merge that joins their reports into the report one run would write.
//!
//! A command's work is a list of *units* every shard computes alike from
//! the same inputs (a function's mutants, a function's generated vectors,
//! a version of a sweep, a patch on a base); shard `K/N` takes the `K`-th
//! of `N` contiguous blocks of it, as `cargo mutants --shard` and
//! `nextest --partition count:` split without talking to each other. A
//! shard's report is the normal report of its units plus a [`Shard`]
//! record: which shard, of what run (the inputs, compared at the merge),
//! the exit code it ended with, and which suites every shard writes a part
//! of (a kernel's suite holding a case per function).
//!
//! [`merge`] puts the blocks back in order: suites a unit owns are
//! concatenated shard by shard, a suite every shard writes a part of gets
//! the parts' cases in shard order, and the totals are counted again. As
//! the blocks are contiguous, that is the order of one run, so the merged
//! report is one run's, byte for byte apart from durations.

use std::ops::Range;

use anyhow::{bail, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Report, Suite};

/// `--shard K/N`: the `K`-th (from 1) of `N` shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardSpec {
    /// Which shard, from 1.
    pub index: usize,
    /// How many.
    pub count: usize,
}

impl ShardSpec {
    /// Parses `K/N` (1 ≤ K ≤ N).
    pub fn parse(s: &str) -> Result<ShardSpec> {
        let parsed = s
            .split_once('/')
            .and_then(|(k, n)| Some((k.trim().parse().ok()?, n.trim().parse().ok()?)));
        match parsed {
            Some((index, count)) if 1 <= index && index <= count => Ok(ShardSpec { index, count }),
            _ => bail!("{s:?} is not a shard: expected K/N with 1 <= K <= N (e.g. 2/4)"),
        }
    }

    /// The units of `0..units` this shard takes: its contiguous block.
    pub fn range(&self, units: usize) -> Range<usize> {
        let at = |k: usize| k * units / self.count;
        at(self.index - 1)..at(self.index)
    }

    /// The record a shard's report carries.
    pub fn record(&self, units: usize, inputs: serde_json::Value, exit_code: u8) -> Shard {
        Shard {
            index: self.index,
            count: self.count,
            units,
            inputs,
            exit_code,
            shared: vec![],
        }
    }
}

impl std::fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A SHA-256 of `text`, hex: how a run's inputs name a large one (a
/// patch) so that shards of different runs are told apart.
pub fn digest(text: &str) -> String {
    use sha2::{Digest, Sha256};
    super::hex(&Sha256::digest(text.as_bytes()))
}

/// What a shard's report says of the shard (absent from a whole run's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Shard {
    /// Which shard, from 1.
    pub index: usize,
    /// Of how many.
    pub count: usize,
    /// How many units the whole run has (this shard took a block of them).
    pub units: usize,
    /// The run's inputs (command, kernels, functions, seed, …): every
    /// shard of one run has the same.
    pub inputs: serde_json::Value,
    /// The exit code the shard ended with.
    pub exit_code: u8,
    /// The suites every shard writes a part of (their cases are split),
    /// by name; every other suite belongs whole to one shard.
    pub shared: Vec<String>,
}

/// Joins the reports of every shard of one run into the report of the
/// whole run, and the highest of the shards' exit codes. Refuses reports
/// that are not shards, shards of different runs, and a set with a shard
/// missing or given twice.
pub fn merge(mut reports: Vec<Report>) -> Result<(Report, u8)> {
    let Some(first) = reports.first() else {
        bail!("no shard reports given: pass the JSON report of every shard");
    };
    let Some(one) = first.shard.clone() else {
        bail!("the first report is not a shard's (it has no `shard` record): run each part with --shard K/N --format json");
    };
    let kind = first.kind.clone();
    for (k, r) in reports.iter().enumerate() {
        let Some(s) = &r.shard else {
            bail!("report {} is not a shard's (no `shard` record)", k + 1);
        };
        if r.kind != kind || s.count != one.count || s.inputs != one.inputs || s.units != one.units
        {
            bail!(
                "report {} is a shard of another run (kind {:?}, {} shards, inputs {}) \
                 than report 1 (kind {kind:?}, {} shards, inputs {})",
                k + 1,
                r.kind,
                s.count,
                s.inputs,
                one.count,
                one.inputs
            );
        }
    }
    reports.sort_by_key(|r| r.shard.as_ref().map_or(0, |s| s.index));
    let have: Vec<usize> = reports
        .iter()
        .filter_map(|r| r.shard.as_ref().map(|s| s.index))
        .collect();
    if have != (1..=one.count).collect::<Vec<_>>() {
        bail!(
            "the shards given are {} of {}: every shard 1..={} is needed, each once",
            have.iter()
                .map(|k| k.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            one.count,
            one.count
        );
    }
    let exit = reports
        .iter()
        .filter_map(|r| r.shard.as_ref().map(|s| s.exit_code))
        .max()
        .unwrap_or(0);
    let parts: Vec<(Vec<String>, Vec<Suite>)> = reports
        .into_iter()
        .map(|r| (r.shard.map(|s| s.shared).unwrap_or_default(), r.suites))
        .collect();
    Ok((Report::new(&kind, join_suites(parts)), exit))
}

/// The suites of every shard in the order of one run: each shard's in its
/// order, a shared suite (named in its shard's `shared`) once, after every
/// suite that comes before it in some shard, with the cases of its parts
/// in shard order. A shard's own suites come before a later shard's unless
/// a shared suite orders them otherwise.
fn join_suites(parts: Vec<(Vec<String>, Vec<Suite>)>) -> Vec<Suite> {
    // Nodes: a shared suite by name, any other by (shard, position).
    let mut nodes: Vec<Suite> = vec![];
    let mut shared_at: Vec<(String, usize)> = vec![];
    let mut chains: Vec<Vec<usize>> = vec![];
    for (shared, suites) in parts {
        let mut chain = vec![];
        for s in suites {
            let is_shared = shared.contains(&s.name);
            let found = shared_at.iter().find(|(n, _)| is_shared && *n == s.name);
            match found {
                Some(&(_, at)) => {
                    let node = &mut nodes[at];
                    node.cases.extend(s.cases);
                    node.seconds += s.seconds;
                    chain.push(at);
                }
                None => {
                    if is_shared {
                        shared_at.push((s.name.clone(), nodes.len()));
                    }
                    chain.push(nodes.len());
                    nodes.push(s);
                }
            }
        }
        chains.push(chain);
    }
    // Every chain's order kept; among suites free to go, the one seen
    // first (node numbers are in order of first sight).
    let mut before: Vec<Vec<usize>> = vec![vec![]; nodes.len()];
    for c in &chains {
        for w in c.windows(2) {
            before[w[1]].push(w[0]);
        }
    }
    let is_shared: Vec<bool> = (0..nodes.len())
        .map(|n| shared_at.iter().any(|(_, at)| *at == n))
        .collect();
    let mut placed = vec![false; nodes.len()];
    let mut order = vec![];
    while order.len() < nodes.len() {
        // A suite a shard owns goes before a shared one free to go too: a
        // shared suite after every owned one (a sweep's `unavailable`) is
        // not in every shard's chain.
        let free = |n: usize| !placed[n] && before[n].iter().all(|&b| placed[b]);
        let owned = (0..nodes.len()).find(|&n| free(n) && !is_shared[n]);
        let free = owned.or_else(|| (0..nodes.len()).find(|&n| free(n)));
        // Shards of one run cannot order two suites both ways; if they
        // do, the rest keep the order they were first seen in.
        let n = free.unwrap_or_else(|| (0..nodes.len()).find(|&n| !placed[n]).unwrap_or(0));
        placed[n] = true;
        order.push(n);
    }
    let mut slots: Vec<Option<Suite>> = nodes.into_iter().map(Some).collect();
    order.into_iter().filter_map(|n| slots[n].take()).collect()
}

#[cfg(test)]
mod tests {
    use super::super::tests::{case, report};
    use super::super::{json, Status};
    use super::*;

    #[test]
    fn parses_k_of_n_and_says_what_it_wants() {
        assert_eq!(
            ShardSpec::parse("2/4").ok(),
            Some(ShardSpec { index: 2, count: 4 })
        );
        for bad in ["0/4", "5/4", "2", "a/b", "2/0", "-1/3"] {
            let e = ShardSpec::parse(bad).err().map(|e| e.to_string());
            assert!(e.is_some_and(|e| e.contains("K/N")), "{bad}");
        }
    }

    /// The blocks of every shard cover every unit once, in order, and
    /// are as even as can be.
    #[test]
    fn blocks_cover_every_unit_once_in_order() {
        for units in 0..40 {
            for count in 1..9 {
                let mut all = vec![];
                for index in 1..=count {
                    let r = ShardSpec { index, count }.range(units);
                    assert!(r.len() <= units.div_ceil(count), "{units} {count} {r:?}");
                    all.extend(r);
                }
                assert_eq!(all, (0..units).collect::<Vec<_>>(), "{units} {count}");
            }
        }
    }

    /// A run whose cases (per kernel suite) and owned suites are split
    /// over three shards merges back to the whole run's JSON.
    fn whole() -> Report {
        let mut r = report();
        r.suites.push(Suite {
            name: "step a".into(),
            cases: vec![case("x::1", Status::Pass)],
            ..Default::default()
        });
        r.suites.push(Suite {
            name: "step b".into(),
            cases: vec![case("x::2", Status::Fail)],
            ..Default::default()
        });
        r.suites.push(Suite {
            name: "unavailable".into(),
            cases: vec![case("u::1", Status::Pass), case("u::2", Status::Pass)],
            ..Default::default()
        });
        Report::new("conformance", r.suites)
    }

    fn shards(whole: &Report) -> Vec<Report> {
        let k = whole.suites[0].clone();
        let part = |cases: std::ops::Range<usize>| Suite {
            cases: k.cases[cases].to_vec(),
            seconds: 0.0,
            ..k.clone()
        };
        let (a, b, u) = (&whole.suites[1], &whole.suites[2], &whole.suites[3]);
        let only = |s: &Suite, cases: std::ops::Range<usize>| Suite {
            cases: s.cases[cases].to_vec(),
            ..s.clone()
        };
        let shared = vec![k.name.clone(), "unavailable".to_owned()];
        let spec = |index| ShardSpec { index, count: 3 };
        let suites = [
            vec![part(0..2), a.clone(), only(u, 0..1)],
            vec![part(2..3), b.clone()],
            vec![part(3..4), only(u, 1..2)],
        ];
        suites
            .into_iter()
            .enumerate()
            .map(|(i, suites)| {
                let mut r = Report::new("conformance", suites);
                let mut s = spec(i + 1).record(7, serde_json::json!({"seed": 1}), i as u8);
                s.shared = shared.clone();
                r.shard = Some(s);
                r
            })
            .collect()
    }

    #[test]
    fn shards_merge_to_the_whole_run() {
        let whole = whole();
        let mut parts = shards(&whole);
        parts.reverse(); // any order on the command line
        let (merged, exit) = merge(parts).expect("merges");
        let zero = |r: &Report| json(r).replace("\"seconds\": 0.5", "\"seconds\": 0.0");
        assert_eq!(zero(&merged), zero(&whole));
        assert_eq!(exit, 2);
        assert_eq!(merged.exit_code(), whole.exit_code());
    }

    #[test]
    fn refuses_a_missing_a_doubled_or_a_foreign_shard() {
        let whole = whole();
        let err = |parts: Vec<Report>| {
            merge(parts)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        let mut parts = shards(&whole);
        parts.pop();
        assert!(err(parts).contains("1, 2 of 3"));
        let mut parts = shards(&whole);
        parts[2] = parts[1].clone();
        assert!(err(parts).contains("1, 2, 2 of 3"));
        let mut parts = shards(&whole);
        if let Some(s) = parts[1].shard.as_mut() {
            s.inputs = serde_json::json!({"seed": 2});
        }
        assert!(err(parts).contains("another run"));
        assert!(err(vec![whole.clone()]).contains("not a shard"));
        assert!(err(vec![]).contains("no shard reports"));
    }
}
