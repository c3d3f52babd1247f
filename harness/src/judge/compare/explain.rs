//! Explaining a group of differing calls: its minimal call written as a
//! case of its family's file with only the keys that matter
//! ([`trim`]), and the world fields either side reads ([`reads`]).

use anyhow::Result;

use super::{run_both, shape};
use crate::corpus::validate;
use crate::cworld::Worker;
use crate::model::types::Call;

/// A corpus file's head (its `[defaults]`, before the first case) and the
/// presets it may name: what a case written for it is read against.
struct Family {
    file: std::path::PathBuf,
    head: String,
    presets: crate::corpus::Presets,
}

impl Family {
    fn load(file: &std::path::Path) -> Result<Family> {
        let text = std::fs::read_to_string(file)?;
        let head = text.find("[[case]]").map_or(&text[..], |i| &text[..i]);
        let dir = file.parent().unwrap_or(std::path::Path::new("."));
        Ok(Family {
            file: file.to_owned(),
            head: head.to_owned(),
            presets: crate::corpus::Presets::load(&dir.join("worlds.toml"))?,
        })
    }

    /// The call of one `[[case]]` (its text) read as a case of this file.
    fn parse(&self, case: &str) -> Option<Call> {
        crate::corpus::parse_file(&self.file, &format!("{}\n{case}", self.head), &self.presets)
            .ok()?
            .into_iter()
            .next()
            .map(|v| v.call)
    }
}

/// How many `reading:` probes run in one batch between two looks at the
/// deadline.
const PROBES_AT_ONCE: usize = 4;

/// The `key = value` lines of a written case, without its header keys.
fn key_lines(case: &str) -> Vec<String> {
    case.lines()
        .filter(|l| {
            !l.is_empty()
                && !l.starts_with("[[case]]")
                && !["name ", "branch ", "fn ", "preset "]
                    .iter()
                    .any(|k| l.starts_with(k))
        })
        .map(str::to_owned)
        .collect()
}

/// Writes `call` as a case of the corpus file `file` holding only the keys
/// that differ from that file's `[defaults]`, then drops each of those keys
/// that the difference (`want`) does not need; past `deadline`, once a
/// run has faulted (calls that return take microseconds: their case never
/// depends on the machine's speed), it stops with the keys it has (each
/// dropped was run without: the case still differs so). `None` when the
/// file's defaults cannot express the call (it is then written whole).
pub(super) fn trim(
    a: &mut Worker,
    b: &mut Worker,
    (call, want): (&Call, &[String]),
    (file, name): (&std::path::Path, &str),
    deadline: std::time::Instant,
) -> Result<Option<(Call, String)>> {
    let family = Family::load(file)?;
    let header = {
        let full = crate::corpus::write::case_toml(call, name, "reproducer");
        full.lines()
            .filter(|l| {
                l.starts_with("[[case]]")
                    || ["name ", "branch ", "fn "].iter().any(|k| l.starts_with(k))
            })
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    };
    let parse = |keys: &[String]| -> Option<Call> {
        family.parse(&format!("{header}{}\n", keys.join("\n")))
    };
    let Some(base) = parse(&[]) else {
        return Ok(None);
    };
    let base_lines = key_lines(&crate::corpus::write::case_toml(&base, name, "reproducer"));
    let mut kept: Vec<String> =
        key_lines(&crate::corpus::write::case_toml(call, name, "reproducer"))
            .into_iter()
            .filter(|l| !base_lines.contains(l))
            .collect();
    if parse(&kept).as_ref() != Some(call) {
        return Ok(None);
    }
    let (mut i, mut faulted) = (0, false);
    while i < kept.len() && !(faulted && std::time::Instant::now() >= deadline) {
        let mut cand = kept.clone();
        cand.remove(i);
        if let Some(c) = parse(&cand) {
            if let Some((x, y)) = run_both(a, b, std::slice::from_ref(&c))?.first() {
                faulted |= x.faulted() || y.faulted();
                if x != y && shape(x, y) == want {
                    kept = cand;
                    continue;
                }
            }
        }
        i += 1;
    }
    let Some(c) = parse(&kept) else {
        return Ok(None);
    };
    Ok(Some((c, format!("{header}{}\n", kept.join("\n")))))
}

/// The `world.*` keys of `call` whose value matters to either world:
/// each is given, alone, the value other calls of the function have (a few
/// generated ones, and the family's `[defaults]`), and is listed when that
/// changes the outcome of A or of B. The world is flat plain data, so
/// this is the dynamic answer to "which world state did the call read".
/// Past `deadline`, once a probe has faulted, the keys found by then.
pub(super) fn reads(
    a: &mut Worker,
    b: &mut Worker,
    call: &Call,
    file: &std::path::Path,
    seed: u64,
    deadline: std::time::Instant,
) -> Result<Vec<String>> {
    let family = Family::load(file)?;
    let full = crate::corpus::write::case_toml(call, "reads", "reads");
    let parse = |case: &str| family.parse(case);
    let Some(same) = parse(&full) else {
        return Ok(vec![]);
    };
    let Some((x0, y0)) = run_both(a, b, std::slice::from_ref(&same))?
        .into_iter()
        .next()
    else {
        return Ok(vec![]);
    };
    let lines: Vec<&str> = full.lines().collect();
    // Other values for each key: from generated calls of the function,
    // one per world group (the vectors of a group share their world).
    let others: Vec<String> = (0..6)
        .map(|k| {
            crate::corpus::write::case_toml(
                &crate::generate::seeded_call(
                    seed ^ 0x5eed,
                    call.func(),
                    k * crate::generate::WORLD_RUN,
                ),
                "reads",
                "reads",
            )
        })
        .collect();
    let key = |l: &str| l.split_once(" = ").map(|(k, _)| k.trim().to_owned());
    // Every key's variants, run in one batch: (line, variant call).
    let mut probes: Vec<(usize, Call)> = vec![];
    for (i, l) in lines.iter().enumerate() {
        if std::time::Instant::now() >= deadline {
            break;
        }
        let Some(k) = key(l).filter(|k| k.starts_with("world.")) else {
            continue;
        };
        let mut cands: Vec<&str> = vec![];
        for o in &others {
            if let Some(alt) = o.lines().find(|x| key(x).as_deref() == Some(k.as_str())) {
                if alt != *l && !cands.contains(&alt) {
                    cands.push(alt);
                }
            }
        }
        for alt in cands {
            let mut ls = lines.clone();
            ls[i] = alt;
            if let Some(c) = parse(&(ls.join("\n") + "\n")).filter(|c| validate(c).is_ok()) {
                probes.push((i, c));
            }
        }
    }
    // Run a few at a time, until the deadline once one has faulted: a
    // probe that faults costs a call limit and a new worker or two, and a
    // patch that makes a function hang makes every probe of it hang (in
    // one batch, 35 s a group: docs/benchmarks.md).
    let (mut read, mut faulted) = (vec![], x0.faulted() || y0.faulted());
    for chunk in probes.chunks(PROBES_AT_ONCE) {
        if faulted && std::time::Instant::now() >= deadline {
            break;
        }
        let calls: Vec<Call> = chunk.iter().map(|(_, c)| c.clone()).collect();
        for ((i, _), (x, y)) in chunk.iter().zip(run_both(a, b, &calls)?) {
            faulted |= x.faulted() || y.faulted();
            if x != x0 || y != y0 {
                read.push(*i);
            }
        }
    }
    read.dedup();
    Ok(read.into_iter().map(|i| lines[i].to_string()).collect())
}
