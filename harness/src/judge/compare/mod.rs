//! C against C: two worlds (two trees, or a tree before and after a patch)
//! run on the same calls — the committed corpus and `n` generated vectors
//! per function — and every call whose outcome differs is found, grouped by
//! the shape of the difference (the function and which fields differ, or
//! which fault), and each group gets one minimal reproducer. No model is
//! involved, so this works for any two trees, including ones that already
//! differ from the model. Generated vectors are compared by digests the
//! workers compute (see `Worker::digests`): only the differing ones travel
//! whole, to be grouped and minimised. `cargo xtask diff`, the patch
//! gate, `sweep` and `mutants` are built on it.

use anyhow::Result;

use crate::corpus::Vector;
use crate::cworld::{call, digests, reach, BuiltWorld, CallResult, Fault, Worker};
use crate::generate::seeded_call;
use crate::model::types::{Call, Func};
use crate::outcome::Outcome;

mod explain;
mod failslab;
mod fields;
mod report;
use explain::{reads, trim};
use failslab::{failing_each_allocation, failing_each_step_allocation, StepFailing};
pub use fields::{fields, mark_span, shape};
pub use report::report;

/// What one side did with a call.
#[derive(Debug, Clone, Eq)]
pub enum Seen {
    /// The call returned this outcome.
    Done(Box<Outcome>),
    /// The call did not return.
    Fault(Fault),
    /// The shim refused the call.
    Malformed,
    /// A scenario's later step whose step before did not return.
    NotRun,
}

impl Seen {
    /// The call did not return (crashed, hung, was denied).
    pub fn faulted(&self) -> bool {
        matches!(self, Seen::Fault(_))
    }
}

/// Two sides did the same when both returned the same outcome, or both
/// faulted the same way ([`Fault::same_kind`]: a hang is a hang, whatever
/// limit found it or whether it was presumed).
impl PartialEq for Seen {
    fn eq(&self, other: &Seen) -> bool {
        match (self, other) {
            (Seen::Done(a), Seen::Done(b)) => a == b,
            (Seen::Fault(a), Seen::Fault(b)) => a.same_kind(b),
            (Seen::Malformed, Seen::Malformed) | (Seen::NotRun, Seen::NotRun) => true,
            _ => false,
        }
    }
}

impl Seen {
    fn of(r: &CallResult) -> Seen {
        match r {
            CallResult::Done(o) => Seen::Done(o.clone()),
            CallResult::Fault(f) => Seen::Fault(f.clone()),
            CallResult::Malformed => Seen::Malformed,
            CallResult::NotRun => Seen::NotRun,
        }
    }

    fn kind(&self) -> String {
        match self {
            Seen::Done(_) => "returned".into(),
            Seen::Fault(f) => f.word().into(),
            Seen::Malformed => "malformed".into(),
            Seen::NotRun => "not run".into(),
        }
    }

    /// One line for reports.
    pub fn text(&self) -> String {
        match self {
            Seen::Done(o) => o.to_string(),
            Seen::Fault(f) => f.to_string(),
            Seen::Malformed => "refused by the shim".into(),
            Seen::NotRun => "not run: a step before it did not return".into(),
        }
    }
}

/// Where a differing call came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallOrigin {
    /// A vector of the corpus, by id (`family::name`).
    Corpus(String),
    /// A vector of the corpus (by id) with its `n`-th allocation failing
    /// (the failslab sweep).
    Failslab {
        /// The corpus vector's id.
        id: String,
        /// Which allocation fails, from 1.
        n: u32,
    },
    /// Step `step` (from 2) of a scenario of the corpus, by id: the first
    /// of its steps whose outcomes differ (the steps before it did the
    /// same on both sides); with `failing`, of the scenario run with one
    /// allocation of one step failing (the failslab sweep; then `step`
    /// may be 1).
    Scenario {
        /// The scenario's id.
        id: String,
        /// Its step that differs, from 1.
        step: usize,
        /// The allocation that fails, if the sweep failed one.
        failing: Option<StepFailing>,
    },
    /// Generated vector `index` of its function from `seed`.
    Generated {
        /// The seed it was drawn from.
        seed: u64,
        /// Its index among the function's generated vectors.
        index: u64,
    },
}

impl std::fmt::Display for CallOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallOrigin::Corpus(id) => write!(f, "{id}"),
            CallOrigin::Failslab { id, n } => write!(f, "{id} with allocation {n} failing"),
            CallOrigin::Scenario {
                id,
                step,
                failing: None,
            } => write!(f, "{id}, step {step}"),
            CallOrigin::Scenario {
                id,
                step,
                failing: Some(s),
            } => write!(
                f,
                "{id}, step {step}, with allocation {} of step {} failing",
                s.n, s.step
            ),
            CallOrigin::Generated { seed, index } => write!(f, "generated #{index} (seed {seed})"),
        }
    }
}

/// The calls that differ in one way.
#[derive(Debug, Clone)]
pub struct Group {
    /// The function called.
    pub func: Func,
    /// How the calls differ ([`shape`]).
    pub shape: Vec<String>,
    /// How many calls differ this way.
    pub count: u64,
    /// The first of them.
    pub first: CallOrigin,
    /// It, minimised while it still differs the same way.
    pub minimal: Call,
    /// The minimal call, field by field: `(field, A, B)`.
    pub fields: Vec<(String, String, String)>,
    /// The reproducer as a `[[case]]` for `family`: only the keys that
    /// matter, the rest left at that file's `[defaults]`.
    pub case: Option<String>,
    /// The corpus file the case belongs in (the first holding a vector of
    /// the function).
    pub family: Option<std::path::PathBuf>,
    /// The world fields the minimal call's outcome depends on, on either
    /// side (`world.KEY = VALUE`): a field is listed when giving it
    /// another value changes what A or B does.
    pub reads: Vec<String>,
}

/// The progress line of what [`reach`] found.
fn reach_line(r: &reach::Reach) -> String {
    let total = r.affected.len() + r.same_code.len();
    if let Some(why) = &r.fallback {
        return format!("comparing every function ({why})");
    }
    let shown: Vec<&str> = r.changed.iter().take(4).map(String::as_str).collect();
    let more = r.changed.len().saturating_sub(shown.len());
    format!(
        "{} of {total} functions reach code that differs ({}{})",
        r.affected.len(),
        if shown.is_empty() {
            "none".to_owned()
        } else {
            shown.join(", ")
        },
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    )
}

/// What a comparison found.
#[derive(Debug, Clone, Default)]
pub struct Comparison {
    /// `(function, calls compared, calls that differ)`, every function.
    pub per_func: Vec<(Func, u64, u64)>,
    /// The functions not run: no code or data they reach differs between
    /// the worlds ([`reach`]).
    pub same_code: Vec<Func>,
    /// Per function, the differing generated calls past the first
    /// [`GROUPED`]: counted as differing, in no group.
    pub ungrouped: Vec<(Func, u64)>,
    /// Per function, the generated calls not run: a side had faulted
    /// [`FAULT_PROOFS`](crate::cworld::FAULT_PROOFS) times on them
    /// already ([`digests::NOT_RUN`]); neither compared nor counted.
    pub not_run: Vec<(Func, u64)>,
    /// The calls that differ, a group per function and shape.
    pub groups: Vec<Group>,
    /// The functions asked for that one tree lacks or both do (boundary.toml's
    /// `optional`): not run, each with what a patch from `a` to `b` did
    /// to it.
    pub not_in_tree: Vec<(Func, Presence)>,
    /// Wall time of the comparison, in seconds.
    pub seconds: f64,
}

/// What a function of the comparison one side lacks is to a patch from
/// side `a` to side `b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// In `a`'s tree, not in `b`'s: the patch removes it.
    Removed,
    /// In `b`'s tree, not in `a`'s: the patch adds it.
    Added,
    /// In neither.
    Neither,
}

impl Presence {
    /// How a patch's verdict names it: `removed`, `added`, `in neither tree`.
    pub fn word(self) -> &'static str {
        match self {
            Presence::Removed => "removed",
            Presence::Added => "added",
            Presence::Neither => "in neither tree",
        }
    }
}

impl Comparison {
    /// Whether any call differs.
    pub fn differs(&self) -> bool {
        !self.groups.is_empty() || !self.ungrouped.is_empty()
    }

    /// The functions some of whose generated calls were not run
    /// ([`Comparison::not_run`]) and none of whose calls differ: judged in
    /// part only. With how many not run.
    pub fn judged_in_part(&self) -> Vec<(Func, u64)> {
        let differing = self.differing_functions();
        self.not_run
            .iter()
            .filter(|(f, _)| !differing.contains(f))
            .copied()
            .collect()
    }

    /// The functions with a call that differs, grouped or only counted.
    pub fn differing_functions(&self) -> Vec<Func> {
        let mut f: Vec<Func> = self.groups.iter().map(|g| g.func).collect();
        f.extend(self.ungrouped.iter().map(|u| u.0));
        f.sort();
        f.dedup();
        f
    }
}

/// Both sides' outcomes of every step of `vectors`, per vector.
fn run_both_vectors(
    a: &mut Worker,
    b: &mut Worker,
    vectors: &[Vector],
) -> Result<Vec<Vec<(Seen, Seen)>>> {
    let flat = crate::judge::check::flat_calls(vectors);
    let (ra, rb) = (a.run_batch(&flat)?, b.run_batch(&flat)?);
    let mut seen = ra.iter().zip(&rb).map(|(x, y)| (Seen::of(x), Seen::of(y)));
    Ok(vectors
        .iter()
        .map(|v| seen.by_ref().take(1 + v.then.len()).collect())
        .collect())
}

/// Both sides' outcomes of `calls`.
fn run_both(a: &mut Worker, b: &mut Worker, calls: &[Call]) -> Result<Vec<(Seen, Seen)>> {
    let flat: Vec<_> = calls.iter().map(call::to_shim).collect();
    let (ra, rb) = (a.run_batch(&flat)?, b.run_batch(&flat)?);
    Ok(ra
        .iter()
        .zip(&rb)
        .map(|(x, y)| (Seen::of(x), Seen::of(y)))
        .collect())
}

/// How many differing generated calls of a function are run again whole
/// to be grouped by shape: a patch that changes every call is not held up
/// sorting all of them.
pub const GROUPED: usize = 4096;

/// How long each step of explaining one group of differing calls may
/// take (minimising it; trimming it to a case and the `reading:` probes
/// once one of their runs has faulted): a patch that changes many
/// functions, or makes one hang, is not held up by explaining them; each
/// group gets the smallest call found in that time.
pub const EXPLAIN_BUDGET: std::time::Duration = std::time::Duration::from_millis(1500);

/// Shrinks `c` while the two worlds still differ on it with `want`'s
/// shape, until `deadline`.
fn minimise(
    a: &mut Worker,
    b: &mut Worker,
    c: &Call,
    want: &[String],
    deadline: std::time::Instant,
) -> Result<Call> {
    crate::judge::shrink::shrink(c, Some(deadline), |cand| {
        let r = run_both(a, b, std::slice::from_ref(cand))?;
        Ok(r.first()
            .is_some_and(|(x, y)| x != y && shape(x, y) == want))
    })
}

/// Compares world `a` with world `b` on `vectors` and on `n` generated
/// vectors of each of `funcs` from `seed`; each group of differing calls
/// is explained (minimised, trimmed to a case, the world fields it reads).
pub fn compare(
    a: &BuiltWorld,
    b: &BuiltWorld,
    vectors: &[Vector],
    funcs: &[Func],
    n: u64,
    seed: u64,
    progress: &mut dyn FnMut(&str),
) -> Result<Comparison> {
    let how = How {
        explain: true,
        selection: Selection::Reached,
    };
    compare_calls((a, b), vectors, (funcs, None), (n, seed), how, progress)
}

/// Which functions a comparison runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// Those whose calls reach code that differs ([`reach`]); the others
    /// are the same on both sides without a run.
    Reached,
    /// Every function asked for (the check that [`reach`] misses none).
    Every,
}

/// [`compare`] without the explanations: the counts and the groups as
/// first seen (what a mutant's verdict needs; explaining is the costly
/// part).
pub fn count_differences(
    a: &BuiltWorld,
    b: &BuiltWorld,
    vectors: &[Vector],
    funcs: &[Func],
    (n, seed): (u64, u64),
    selection: Selection,
) -> Result<Comparison> {
    let how = How {
        explain: false,
        selection,
    };
    compare_calls((a, b), vectors, (funcs, None), (n, seed), how, &mut |_| {})
}

/// [`count_differences`] (or, `explain`, [`compare`]) running the
/// functions of `funcs` `reach` found affected: for worlds whose
/// difference is known without comparing their objects, as a mutant
/// schemata world's switch is ([`reach::reaching`]).
pub fn compare_reaching(
    (a, b): (&BuiltWorld, &BuiltWorld),
    vectors: &[Vector],
    (funcs, reach): (&[Func], reach::Reach),
    (n, seed): (u64, u64),
    explain: bool,
) -> Result<Comparison> {
    let how = How {
        explain,
        selection: Selection::Reached,
    };
    let given = (funcs, Some(reach));
    compare_calls((a, b), vectors, given, (n, seed), how, &mut |_| {})
}

/// How [`compare_calls`] compares.
#[derive(Debug, Clone, Copy)]
struct How {
    /// Minimise and explain each group of differing calls.
    explain: bool,
    selection: Selection,
}

fn compare_calls(
    (a, b): (&BuiltWorld, &BuiltWorld),
    vectors: &[Vector],
    (funcs, given): (&[Func], Option<reach::Reach>),
    (n, seed): (u64, u64),
    how: How,
    progress: &mut dyn FnMut(&str),
) -> Result<Comparison> {
    let started = std::time::Instant::now();
    let explain = how.explain;
    let mut reach = selected((a, b), funcs, given, how.selection);
    let not_in_tree = set_aside_absent((a, b), funcs, &mut reach);
    let lacks = |f: Func| a.lacks(f) || b.lacks(f);
    progress(&reach_line(&reach));
    let mut sides = Sides::new(a, b)?;
    // Checking the selection trusts nothing kept: every digest computed.
    sides.use_kept = how.selection == Selection::Reached;
    let mut tally = Tally {
        per_func: funcs
            .iter()
            .filter(|f| !lacks(**f))
            .map(|f| (*f, 0, 0))
            .collect(),
        ..Default::default()
    };
    let vectors: Vec<Vector> = vectors
        .iter()
        .filter(|v| v.steps().any(|c| reach.affected.contains(&c.func())))
        .filter(|v| !v.steps().any(|c| lacks(c.func())))
        .cloned()
        .collect();
    progress(&format!("{} corpus vectors", vectors.len()));
    let (mut failslab, mut failslab_steps) = (vec![], vec![]);
    for chunk in vectors.chunks(4096) {
        for (v, steps) in chunk.iter().zip(sides.run_vectors(chunk)?) {
            if let [(x, y)] = &steps[..] {
                failslab.extend(failing_each_allocation(v, x, y));
                tally.note(v.call.func(), CallOrigin::Corpus(v.id()), &v.call, x, y);
                continue;
            }
            failslab_steps.extend(failing_each_step_allocation(v, &steps));
            note_scenario(&mut tally, v, &steps, None);
        }
    }
    if !failslab.is_empty() || !failslab_steps.is_empty() {
        progress(&format!(
            "{} corpus vectors again, each allocation they make failing in turn ({} of them \
             scenarios, an allocation of one step failing)",
            failslab.len() + failslab_steps.len(),
            failslab_steps.len()
        ));
    }
    for chunk in failslab.chunks(4096) {
        let calls: Vec<Call> = chunk.iter().map(|(_, c)| c.clone()).collect();
        for ((origin, c), (x, y)) in chunk.iter().zip(sides.run(&calls)?) {
            tally.note(c.func(), origin.clone(), c, &x, &y);
        }
    }
    for chunk in failslab_steps.chunks(4096) {
        let variants: Vec<Vector> = chunk.iter().map(|(_, v)| v.clone()).collect();
        for ((f, v), steps) in chunk.iter().zip(sides.run_vectors(&variants)?) {
            note_scenario(&mut tally, v, &steps, Some(f));
        }
    }
    for &f in &reach.same_code {
        // The same code on both sides: `b`'s digests are `a`'s, kept for
        // when `b` is the base (the gate's next patch).
        if let (Some(d), true) = (digests::load(a, f, seed, n), explain && n > 0) {
            digests::store(b, f, seed, n, &d);
        }
    }
    for &f in &reach.affected {
        if n == 0 {
            continue;
        }
        progress(&format!("{n} generated vectors of {f}"));
        sides.generated(f, seed, n, explain, &mut tally)?;
    }
    if explain {
        for g in tally.groups.iter_mut() {
            progress(&format!("minimising {} {}", g.func, g.shape.join(", ")));
            sides.explain(g, &vectors, seed)?;
        }
    }
    Ok(Comparison {
        per_func: tally.per_func,
        same_code: reach.same_code,
        ungrouped: tally.ungrouped,
        not_run: tally.not_run,
        groups: tally.groups,
        not_in_tree,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Notes a scenario's steps up to the first that differs (what follows a
/// difference is its consequence). Of a failslab variant (`failing`), the
/// steps from the one whose allocation fails: those before it are the
/// scenario's own, noted already.
fn note_scenario(
    tally: &mut Tally,
    v: &Vector,
    steps: &[(Seen, Seen)],
    failing: Option<&StepFailing>,
) {
    let from = failing.map_or(1, |f| f.step);
    for (i, (c, (x, y))) in v.steps().zip(steps).enumerate() {
        let step = i + 1;
        if step >= from {
            let origin = match (step, failing) {
                (1, None) => CallOrigin::Corpus(v.id()),
                _ => CallOrigin::Scenario {
                    id: v.id(),
                    step,
                    failing: failing.cloned(),
                },
            };
            tally.note(c.func(), origin, c, x, y);
        }
        if x != y {
            break;
        }
    }
}

/// The functions of `funcs` a comparison runs: `given`, or as `selection`
/// says.
fn selected(
    (a, b): (&BuiltWorld, &BuiltWorld),
    funcs: &[Func],
    given: Option<reach::Reach>,
    selection: Selection,
) -> reach::Reach {
    match (given, selection) {
        (Some(r), _) => r,
        (None, Selection::Reached) => reach::affected(a, b, funcs),
        (None, Selection::Every) => reach::Reach {
            affected: funcs.to_vec(),
            fallback: Some("asked to".into()),
            ..Default::default()
        },
    }
}

/// The functions of `funcs` one side lacks, or both: they cannot be
/// compared, so they are named and taken out of `reach`.
fn set_aside_absent(
    (a, b): (&BuiltWorld, &BuiltWorld),
    funcs: &[Func],
    reach: &mut reach::Reach,
) -> Vec<(Func, Presence)> {
    let lacks = |f: Func| a.lacks(f) || b.lacks(f);
    reach.affected.retain(|f| !lacks(*f));
    reach.same_code.retain(|f| !lacks(*f));
    funcs
        .iter()
        .filter(|f| lacks(**f))
        .map(|&f| {
            let p = match (a.lacks(f), b.lacks(f)) {
                (false, true) => Presence::Removed,
                (true, false) => Presence::Added,
                _ => Presence::Neither,
            };
            (f, p)
        })
        .collect()
}

/// The differing calls found so far, grouped by function and shape, and
/// per function how many calls were compared and how many differ.
#[derive(Default)]
struct Tally {
    groups: Vec<Group>,
    ungrouped: Vec<(Func, u64)>,
    not_run: Vec<(Func, u64)>,
    per_func: Vec<(Func, u64, u64)>,
}

impl Tally {
    /// Counts a call of `func` that did `x` on one side and `y` on the
    /// other; a difference joins its group (the first of a shape starts
    /// one).
    fn note(&mut self, func: Func, src: CallOrigin, call: &Call, x: &Seen, y: &Seen) {
        if let Some(p) = self.per_func.iter_mut().find(|p| p.0 == func) {
            p.1 += 1;
            if x != y {
                p.2 += 1;
            }
        }
        if x == y {
            return;
        }
        let s = shape(x, y);
        match self
            .groups
            .iter_mut()
            .find(|g| g.func == func && g.shape == s)
        {
            Some(g) => g.count += 1,
            None => self.groups.push(Group {
                func,
                shape: s,
                count: 1,
                first: src,
                minimal: call.clone(),
                fields: fields(x, y),
                case: None,
                family: None,
                reads: vec![],
            }),
        }
    }
}

/// The two worlds compared, and their workers.
struct Sides<'a> {
    a: &'a BuiltWorld,
    b: &'a BuiltWorld,
    wa: Worker,
    wb: Worker,
    /// A second worker on `b`, for when `a`'s digests are kept.
    wb2: Option<Worker>,
    /// Whether digests kept with a world are used (else computed).
    use_kept: bool,
}

impl<'a> Sides<'a> {
    fn new(a: &'a BuiltWorld, b: &'a BuiltWorld) -> Result<Sides<'a>> {
        let (mut wa, mut wb) = (Worker::new(a)?, Worker::new(b)?);
        for w in [&mut wa, &mut wb] {
            w.presume_hangs(crate::cworld::HANG_PROOFS);
            w.cut_fault_storms();
        }
        Ok(Sides {
            a,
            b,
            wa,
            wb,
            wb2: None,
            use_kept: true,
        })
    }

    /// Both sides' outcomes of `calls`.
    fn run(&mut self, calls: &[Call]) -> Result<Vec<(Seen, Seen)>> {
        run_both(&mut self.wa, &mut self.wb, calls)
    }

    /// Both sides' outcomes of every step of `vectors`, per vector.
    fn run_vectors(&mut self, vectors: &[Vector]) -> Result<Vec<Vec<(Seen, Seen)>>> {
        run_both_vectors(&mut self.wa, &mut self.wb, vectors)
    }

    /// Compares `n` generated vectors of `f` from `seed` by their digests;
    /// only those whose digests differ are run again whole, to be noted.
    fn generated(
        &mut self,
        f: Func,
        seed: u64,
        n: u64,
        explain: bool,
        tally: &mut Tally,
    ) -> Result<()> {
        let (da, db) = self.digests(f, seed, n, explain)?;
        // A vector one side did not run (a crash storm cut short) is
        // neither compared nor counted: running it again would be the
        // storm again.
        let skipped = |k: usize| {
            da.get(k) == Some(&Some(digests::NOT_RUN)) || db.get(k) == Some(&Some(digests::NOT_RUN))
        };
        let not_run = (0..n as usize).filter(|k| skipped(*k)).count() as u64;
        if not_run > 0 {
            tally.not_run.push((f, not_run));
        }
        let odd: Vec<u64> = (0..n)
            .filter(|k| {
                let k = *k as usize;
                !skipped(k) && (da.get(k) != db.get(k) || da.get(k).is_some_and(|d| d.is_none()))
            })
            .collect();
        // Equal digests: the same outcome on both sides. Differing ones
        // past the first GROUPED are counted, not run again: two returned
        // outcomes whose digests differ differ (a fault has no digest and
        // is always run again).
        let (mut rerun, mut counted) = (vec![], 0u64);
        for k in odd {
            let fault = da.get(k as usize).is_some_and(|d| d.is_none())
                || db.get(k as usize).is_some_and(|d| d.is_none());
            if fault || rerun.len() < GROUPED {
                rerun.push(k);
            } else {
                counted += 1;
            }
        }
        // An index the generator gave up on digests 0 in both worlds
        // (serve_digest: nothing ran): neither compared nor counted.
        let undrawn = da
            .iter()
            .zip(&db)
            .filter(|(a, b)| **a == Some(0) && **b == Some(0))
            .count() as u64;
        if let Some(p) = tally.per_func.iter_mut().find(|p| p.0 == f) {
            p.1 += n - rerun.len() as u64 - undrawn - not_run;
            p.2 += counted;
        }
        if counted > 0 {
            tally.ungrouped.push((f, counted));
        }
        for part in rerun.chunks(4096) {
            let calls: Vec<Call> = part.iter().map(|k| seeded_call(seed, f, *k)).collect();
            for (pos, (x, y)) in self.run(&calls)?.into_iter().enumerate() {
                let src = CallOrigin::Generated {
                    seed,
                    index: part[pos],
                };
                tally.note(f, src, &calls[pos], &x, &y);
            }
        }
        Ok(())
    }

    /// Digests of both worlds: each world's kept ones where it has them
    /// (the base of a gate, run after run), else computed — both worlds
    /// at once, one worker each, or `b` alone with two.
    fn digests(
        &mut self,
        f: Func,
        seed: u64,
        n: u64,
        explain: bool,
    ) -> Result<(digests::Digests, digests::Digests)> {
        let (a, b) = (self.a, self.b);
        let load = |w: &BuiltWorld| {
            if self.use_kept {
                digests::load(w, f, seed, n)
            } else {
                None
            }
        };
        match (load(a), load(b)) {
            (Some(da), Some(db)) => Ok((da, db)),
            (Some(da), None) => {
                let w2 = match &mut self.wb2 {
                    Some(w) => w,
                    None => {
                        let mut w = Worker::new(b)?;
                        w.presume_hangs(crate::cworld::HANG_PROOFS);
                        w.cut_fault_storms();
                        self.wb2.insert(w)
                    }
                };
                let db = digests::compute(&mut [&mut self.wb, w2], f, seed, n)?;
                if explain {
                    digests::store(b, f, seed, n, &db);
                }
                Ok((da, db))
            }
            (kept_a, kept_b) => {
                let (wa, wb) = (&mut self.wa, &mut self.wb);
                let (da, db) = std::thread::scope(|s| {
                    let ta = kept_a
                        .is_none()
                        .then(|| s.spawn(move || digests::compute(&mut [wa], f, seed, n)));
                    let tb = kept_b
                        .is_none()
                        .then(|| s.spawn(move || digests::compute(&mut [wb], f, seed, n)));
                    let joined = |t: Option<std::thread::ScopedJoinHandle<'_, Result<_>>>| {
                        t.map(|t| {
                            t.join()
                                .map_err(|_| anyhow::anyhow!("a comparison thread panicked"))?
                        })
                        .transpose()
                    };
                    (joined(ta), joined(tb))
                });
                let (da, db) = (da?, db?);
                if let Some(d) = &da {
                    digests::store(a, f, seed, n, d);
                }
                // `b` is kept for later comparisons when explained (the
                // gate's patched world is the next patch's base); a
                // mutant's world is never compared again.
                if let (Some(d), true) = (&db, explain) {
                    digests::store(b, f, seed, n, d);
                }
                Ok((
                    kept_a.or(da).unwrap_or_default(),
                    kept_b.or(db).unwrap_or_default(),
                ))
            }
        }
    }

    /// Explains group `g`: its call minimised, then trimmed to a case of
    /// its family's file, its fields again, and the world fields it reads.
    fn explain(&mut self, g: &mut Group, vectors: &[Vector], seed: u64) -> Result<()> {
        // A scenario's step is its scenario's: it reproduces only after
        // the steps before it, so its reproducer is the scenario up to it,
        // written whole, not minimised.
        if let CallOrigin::Scenario { id, step, failing } = &g.first {
            if let Some(v) = vectors.iter().find(|v| v.id() == *id) {
                let (v, branch) = match failing {
                    Some(f) => (
                        f.apply(v),
                        format!(
                            "{id}, steps 1 to {step}, allocation {} of step {} failing",
                            f.n, f.step
                        ),
                    ),
                    None => (v.clone(), format!("{id}, steps 1 to {step}")),
                };
                let then = &v.then[..(step - 1).min(v.then.len())];
                g.case = Some(crate::corpus::write::scenario_toml(
                    &v.call, then, &v.name, &branch,
                ));
            }
            return Ok(());
        }
        let (wa, wb) = (&mut self.wa, &mut self.wb);
        let deadline = std::time::Instant::now() + EXPLAIN_BUDGET;
        g.minimal = minimise(wa, wb, &g.minimal, &g.shape, deadline)?;
        // Then as a case of its family's file, only the keys that matter.
        g.family = vectors
            .iter()
            .find(|v| v.call.func() == g.func)
            .map(|v| v.file.clone());
        if let Some(file) = g.family.clone() {
            let name = format!("diff_{}", g.func);
            let deadline = std::time::Instant::now() + EXPLAIN_BUDGET;
            let it = (&g.minimal, &g.shape[..]);
            if let Some((c, case)) = trim(wa, wb, it, (&file, &name), deadline)? {
                g.minimal = c;
                g.case = Some(case);
            }
        }
        if let Some((x, y)) = run_both(wa, wb, std::slice::from_ref(&g.minimal))?.first() {
            g.fields = fields(x, y);
        }
        if let Some(file) = &g.family {
            let deadline = std::time::Instant::now() + EXPLAIN_BUDGET;
            g.reads = reads(wa, wb, &g.minimal, file, seed, deadline)?;
        }
        Ok(())
    }
}
