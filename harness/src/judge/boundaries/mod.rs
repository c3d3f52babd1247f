//! Boundaries of every relational comparison of upstream code in scope
//! (`cargo xtask coverage --mcdc`): whether the committed corpus makes the
//! operands of each `<`, `<=`, `>`, `>=` equal, one apart below (`a ==
//! b - 1`) and one apart above (`a == b + 1`). MC/DC never asks for `a ==
//! b` where the code says `a >= b`; a mutant turning `>=` into `>` lives
//! exactly there.
//!
//! The measuring world's upstream units call `c-shim/measure/cmp.c` before
//! every integer comparison with both operands (SanitizerCoverage's
//! trace-cmp); per call site it keeps the sides seen, and the workers write
//! their tables at exit. Here every comparison call site of the shared
//! object is found by disassembly (so a comparison the corpus never runs
//! is there too: *not reached*), placed in the source by its debug
//! location, and kept when the source has a relational operator at that
//! column. Only integer comparisons are instrumented: pointer comparisons
//! are not measured, nor comparisons the compiler folds away.
//!
//! Code expanded from a macro is placed at the macro's name: a comparison
//! written in a macro call's arguments (`unlikely(a >= b)`, `WARN_ON(n >
//! max)`) is found among the call's sites in order (the argument is
//! evaluated before the macro's own tests: `!!(x)`), and comparisons only
//! the macro's body writes (`min()`, `time_after()`) are the macro's, not
//! counted. A constant operand reaches the recorder first whichever side
//! it was written on; the recorder takes it as the right one, and a
//! comparison whose left operand reads as a constant (a number, names in
//! capitals) has its sides turned round here.

mod sites;
mod source;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;

pub use sites::{parse_table, Seen};
pub use source::{expression_at, operator_at};

use crate::cworld::BuiltWorld;
use crate::judge::coverage::{same_file, scope_functions, Extent};
use crate::judge::mcdc::LineMap;
use crate::kernel::KernelTree;
use sites::{Place, ABOVE, BELOW, CONST, EQUAL};

/// A side of a comparison's boundary, `a OP b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    /// `a == b - 1`.
    Below,
    /// `a == b`.
    Equal,
    /// `a == b + 1`.
    Above,
}

impl Side {
    /// All three, in order.
    pub const ALL: [Side; 3] = [Side::Below, Side::Equal, Side::Above];

    /// How `vectors/boundaries.toml` names it.
    pub fn name(self) -> &'static str {
        match self {
            Side::Below => "below",
            Side::Equal => "equal",
            Side::Above => "above",
        }
    }

    /// The side `vectors/boundaries.toml` names `name`.
    pub fn named(name: &str) -> Option<Side> {
        Side::ALL.into_iter().find(|s| s.name() == name)
    }

    fn bit(self) -> u32 {
        match self {
            Side::Below => BELOW,
            Side::Equal => EQUAL,
            Side::Above => ABOVE,
        }
    }
}

/// One relational comparison of an upstream function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    /// Its upstream line.
    pub line: usize,
    /// The operator's 1-based byte column there.
    pub col: usize,
    /// That line's text, trimmed (how `vectors/boundaries.toml` names it).
    pub text: String,
    /// `<`, `<=`, `>` or `>=`.
    pub op: &'static str,
    /// The comparison as written (`qp->s_last >= qp->s_size`).
    pub expr: String,
    /// The sides seen (`Side` bits).
    pub sides: u32,
    /// How often it ran (0: not reached).
    pub runs: u64,
}

impl Comparison {
    /// Whether the corpus made its operands meet `side`.
    pub fn seen(&self, side: Side) -> bool {
        self.sides & side.bit() != 0
    }

    /// The sides never seen.
    pub fn missed(&self) -> Vec<Side> {
        Side::ALL.into_iter().filter(|s| !self.seen(*s)).collect()
    }
}

/// The comparisons of one upstream function.
#[derive(Debug, Clone)]
pub struct FuncBoundaries {
    /// The function and where it is.
    pub at: Extent,
    /// Its comparisons, by line and column.
    pub comparisons: Vec<Comparison>,
    /// The relational operators its text writes that no call site is at
    /// (pointer comparisons, comparisons of constants the compiler
    /// folds, code the preprocessor leaves out): `(line, expression)`.
    pub unmeasured: Vec<(usize, String)>,
}

impl FuncBoundaries {
    /// (comparisons seen at all three sides, comparisons).
    pub fn complete(&self) -> (usize, usize) {
        let all = self.comparisons.len();
        let done = self
            .comparisons
            .iter()
            .filter(|c| c.missed().is_empty())
            .count();
        (done, all)
    }
}

/// Reads back what the corpus did at every comparison of the measuring
/// world `world` (after `judge::mcdc::collect` ran it), per upstream
/// function in scope.
pub fn report(world: &BuiltWorld) -> Result<Vec<FuncBoundaries>> {
    let seen = sites::read_tables(&world.dir.join("profiles"))?;
    let mut returns: BTreeSet<u64> = sites::call_sites(&world.so)?.into_iter().collect();
    // A site the disassembly missed but a worker ran is measured anyway.
    returns.extend(seen.keys().copied());
    let returns: Vec<u64> = returns.into_iter().collect();
    let places = sites::symbolize(&world.so, &returns)?;
    let placed: Vec<(u64, Place)> = returns
        .into_iter()
        .zip(places)
        .filter_map(|(pc, p)| Some((pc, p?)))
        .collect();
    place(&world.tree, &placed, &seen)
}

/// A source file's lines, read once.
#[derive(Default)]
struct Sources(BTreeMap<String, Vec<String>>);

impl Sources {
    fn lines(&mut self, file: &str) -> &[String] {
        self.0.entry(file.to_owned()).or_insert_with(|| {
            std::fs::read_to_string(file)
                .unwrap_or_default()
                .lines()
                .map(str::to_owned)
                .collect()
        })
    }
}

/// A comparison found at a call site, before copies are merged:
/// (file as compiled, line, operator's column, operator, the sites).
type Found = (String, usize, usize, &'static str, Vec<u64>);

/// The relational comparisons among the call sites at one place of one
/// copy (`pcs`, in address order): the one at the column, or those a
/// macro call's arguments write, paired with the sites in order.
fn comparisons_at(src: &[String], p: &Place, pcs: &[u64]) -> Vec<Found> {
    let Some(line) = src.get(p.line.wrapping_sub(1)) else {
        return vec![];
    };
    if let Some(op) = operator_at(line, p.col) {
        return vec![(p.file.clone(), p.line, p.col, op, pcs.to_vec())];
    }
    let rest: Vec<&str> = src[p.line..].iter().take(20).map(String::as_str).collect();
    let Some((args, off)) = source::macro_arguments(line, &rest, p.col) else {
        return vec![];
    };
    source::operators_in(&args)
        .into_iter()
        .zip(pcs)
        .map(|((at, op), pc)| {
            let before = &args[..at];
            let nl = before.matches('\n').count();
            let col = match before.rfind('\n') {
                Some(n) => at - n,
                None => off + at + 1,
            };
            (p.file.clone(), p.line + nl, col, op, vec![*pc])
        })
        .collect()
}

/// The sides a site saw, turned round when the recorder took a constant
/// for the right operand but the source writes it on the left.
fn oriented(s: Seen, line: &str, col: usize, op: &str) -> u32 {
    let at = col - 1;
    let (left, _) = source::operands(line, at, op);
    let mut sides = s.sides & (EQUAL | BELOW | ABOVE);
    if s.sides & CONST != 0 && source::looks_constant(&left) {
        sides = (sides & EQUAL)
            | if sides & BELOW != 0 { ABOVE } else { 0 }
            | if sides & ABOVE != 0 { BELOW } else { 0 };
    }
    sides
}

/// The comparisons placed upstream, per function in scope. A comparison
/// compiled more than once (an inline helper of a header, in every unit
/// that calls it) is one, a side seen when any copy saw it.
fn place(
    tree: &KernelTree,
    placed: &[(u64, Place)],
    seen: &BTreeMap<u64, Seen>,
) -> Result<Vec<FuncBoundaries>> {
    let scope = scope_functions(tree)?;
    let root = tree.root.display().to_string();
    let in_scope = |file: &str| {
        scope
            .iter()
            .any(|e| same_file(file, &format!("{root}/{}", e.file)))
    };
    // Sites by place and copy, in address order.
    let mut groups: BTreeMap<&Place, Vec<u64>> = BTreeMap::new();
    for (pc, p) in placed {
        groups.entry(p).or_default().push(*pc);
    }
    let mut files = Sources::default();
    let mut merged: BTreeMap<(String, usize, usize), Comparison> = BTreeMap::new();
    for (p, pcs) in &mut groups {
        pcs.sort_unstable();
        let src = files.lines(&p.file).to_vec();
        let map = LineMap::of(&src.join("\n"));
        for (file, line, col, op, pcs) in comparisons_at(&src, p, pcs) {
            let (up, up_line) = map.place(&file, line);
            if !in_scope(&up) {
                continue;
            }
            let text = src.get(line - 1).cloned().unwrap_or_default();
            let mut sides = 0;
            let mut runs = 0;
            for pc in &pcs {
                let s = seen.get(pc).copied().unwrap_or_default();
                sides |= oriented(s, &text, col, op);
                runs += s.runs;
            }
            let c = merged
                .entry((up, up_line, col))
                .or_insert_with(|| Comparison {
                    line: up_line,
                    col,
                    text: text.trim().to_owned(),
                    op,
                    expr: expression_at(&text, col - 1, op),
                    sides: 0,
                    runs: 0,
                });
            c.sides |= sides;
            c.runs += runs;
        }
    }
    let mut out = vec![];
    for at in scope {
        let path = format!("{root}/{}", at.file);
        let comparisons: Vec<Comparison> = merged
            .iter()
            .filter(|((f, l, _), _)| same_file(f, &path) && (at.start..=at.end).contains(l))
            .map(|(_, c)| c.clone())
            .collect();
        let unmeasured = written(files.lines(&path), &at)
            .into_iter()
            .filter(|(l, c, _)| !comparisons.iter().any(|m| m.line == *l && m.col == *c))
            .map(|(l, _, e)| (l, e))
            .collect();
        out.push(FuncBoundaries {
            at,
            comparisons,
            unmeasured,
        });
    }
    Ok(out)
}

/// The relational operators the text of the function at `at` writes, as
/// `(line, column, expression)`.
fn written(src: &[String], at: &Extent) -> Vec<(usize, usize, String)> {
    let lines = src.get(at.start.saturating_sub(1)..at.end.min(src.len()));
    let text = lines.unwrap_or_default().join("\n");
    let mut starts = vec![0];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    source::operators_in(&text)
        .into_iter()
        .map(|(i, op)| {
            let n = starts.partition_point(|s| *s <= i) - 1;
            let line = &text[starts[n]..];
            let line = line.split('\n').next().unwrap_or_default();
            let col = i - starts[n];
            (at.start + n, col + 1, expression_at(line, col, op))
        })
        .collect()
}

/// The sides of a comparison as the report says them.
pub fn sides_text(sides: &[Side]) -> String {
    let v: Vec<&str> = sides.iter().map(|s| s.name()).collect();
    v.join(", ")
}

/// The per-function table (comparisons seen at all three sides / all) and
/// every comparison that misses a side.
pub fn render(tree: &KernelTree, cov: &[FuncBoundaries]) -> String {
    let mut s = format!(
        "Comparison boundaries of upstream functions on {} (a == b-1, a == b, a == b+1)\n",
        tree.version
    );
    let w = cov
        .iter()
        .map(|c| c.at.name.len())
        .max()
        .unwrap_or(8)
        .max(8);
    s.push_str(&format!("{:w$}  {:>11}  file\n", "function", "comparisons"));
    let (mut done, mut all) = (0, 0);
    for c in cov.iter().filter(|c| !c.comparisons.is_empty()) {
        let (d, a) = c.complete();
        done += d;
        all += a;
        s.push_str(&format!(
            "{:w$}  {:>11}  {}:{}\n",
            c.at.name,
            format!("{d}/{a}"),
            c.at.file.rsplit('/').next().unwrap_or(&c.at.file),
            c.at.start
        ));
    }
    s.push_str(&format!(
        "{:w$}  {:>11}\n",
        "total",
        format!("{done}/{all}")
    ));
    let mut missed = vec![];
    for c in cov {
        let f = c.at.file.rsplit('/').next().unwrap_or(&c.at.file);
        for m in c.comparisons.iter().filter(|m| !m.missed().is_empty()) {
            let how = if m.runs == 0 {
                "not reached".to_owned()
            } else {
                format!("missed {}", sides_text(&m.missed()))
            };
            missed.push(format!(
                "  {}: {f}:{} `{}`: {how}\n",
                c.at.name, m.line, m.expr
            ));
        }
    }
    if !missed.is_empty() {
        s.push_str("\ncomparisons missing a side (function: file:line `comparison`):\n");
        s.extend(missed);
    }
    let unmeasured: Vec<String> = cov
        .iter()
        .flat_map(|c| {
            let f = c.at.file.rsplit('/').next().unwrap_or(&c.at.file);
            c.unmeasured
                .iter()
                .map(move |(l, e)| format!("  {}: {f}:{l} `{e}`\n", c.at.name))
        })
        .collect();
    if !unmeasured.is_empty() {
        s.push_str(
            "\nwritten but not measured (no integer comparison there: pointers, constants \
             folded, code left out by the preprocessor):\n",
        );
        s.extend(unmeasured);
    }
    s
}
