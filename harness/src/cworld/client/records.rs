//! What each function has done in a world, in this process: its
//! confirmed faults and hangs, and whether any call of it returned. A
//! function shown to hang runs under a shortened limit; one that never
//! returned and faulted often enough may be presumed to fault again.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use super::{fn_name, Worker};
use crate::cworld::fault::Fault;
use crate::cworld::limits::short_limit;

/// What a function has done in a world, in this process: its confirmed
/// faults (the last kept) and hangs, and whether any call returned.
#[derive(Debug, Default, Clone)]
pub(super) struct FuncRecord {
    pub(super) faults: u64,
    pub(super) hangs: u64,
    pub(super) returned: bool,
    pub(super) last: Option<Fault>,
}

/// A world as its records know it: its object and its mutant switch (a
/// schemata object with one switch on is another world than with
/// another: what one mutant's function did says nothing of another's).
pub(super) type WorldKey = (PathBuf, Option<(String, i32)>);

/// Records by world, then function index.
static RECORDS: Mutex<BTreeMap<WorldKey, BTreeMap<u32, FuncRecord>>> = Mutex::new(BTreeMap::new());

/// After this many confirmed faults of a function that never returned in
/// a world, a comparison of two worlds no longer runs its calls
/// ([`Worker::presume_hangs`]): each proof costs a fresh worker, and eight
/// hangs each confirmed alone leave no doubt.
pub const HANG_PROOFS: u64 = 8;

/// After this many confirmed faults of a function in one request for
/// digests, a comparison of two worlds runs none of that request's
/// further vectors of it ([`crate::cworld::digests::NOT_RUN`]): a patch
/// or mutant that crashes most calls of a function would otherwise cost
/// two fresh workers per call (docs/benchmarks.md has what that came to),
/// and the verdict needs no more.
pub const FAULT_PROOFS: u64 = 64;

/// The digest of a vector a comparison did not run ([`FAULT_PROOFS`]);
/// never kept with a world's digests. No outcome's: digests are FNV
/// hashes, and `0` is the generator's give-up.
pub const NOT_RUN: u64 = 1;

impl Worker {
    /// The limit of one call of function `f` (by index): shortened once
    /// the function has been shown to hang in this world.
    pub(super) fn limit_for(&self, f: u32) -> Duration {
        if self.record(f).hangs > 0 {
            short_limit(self.call_limit)
        } else {
            self.call_limit
        }
    }

    /// What function `f` has done in this world, in this process.
    fn record(&self, f: u32) -> FuncRecord {
        RECORDS
            .lock()
            .map(|r| {
                r.get(&self.world)
                    .and_then(|w| w.get(&f))
                    .cloned()
                    .unwrap_or_default()
            })
            .unwrap_or_default()
    }

    /// Changes the record of function `f` in this world.
    pub(super) fn update_record(&self, f: u32, change: impl FnOnce(&mut FuncRecord)) {
        if let Ok(mut r) = RECORDS.lock() {
            let world = match r.get_mut(&self.world) {
                Some(w) => w,
                None => r.entry(self.world.clone()).or_default(),
            };
            change(world.entry(f).or_default());
        }
    }

    /// Notes that calls of these functions returned.
    pub(super) fn note_returned(&self, fs: impl Iterator<Item = u32>) {
        let mut fs: Vec<u32> = fs.collect();
        fs.sort_unstable();
        fs.dedup();
        for f in fs {
            if !self.record(f).returned {
                self.update_record(f, |r| r.returned = true);
            }
        }
    }

    /// Once a function that never returned in this world has faulted
    /// `after` times, each confirmed alone, its further calls are not run
    /// but reported as that fault, "presumed" in its text. For
    /// comparisons of two worlds (gate, diff, sweep, mutants:
    /// [`HANG_PROOFS`]) and measurements (coverage, the gate's model
    /// check: 1), whose verdict needs no more proof: a tree whose function
    /// never returns costs seconds, not a call limit for each of its
    /// generated vectors. A function that returned even once is always
    /// run. Runs that report each vector (the corpus, `--random`) never
    /// presume.
    pub fn presume_hangs(&mut self, after: u64) {
        self.presume = Some(after.max(1));
    }

    /// Once a request for digests has had [`FAULT_PROOFS`] faults of its
    /// function confirmed, its further vectors are not run ([`NOT_RUN`]):
    /// comparisons of two worlds (which say which functions they judged
    /// only in part) and the gate's coverage and MC/DC of a patch.
    pub fn cut_fault_storms(&mut self) {
        self.cut_storms = true;
    }

    /// The fault a call of function `f` is presumed to have, if it is not
    /// to be run ([`Worker::presume_hangs`]).
    pub(super) fn presumed_fault(&self, f: u32) -> Option<Fault> {
        let after = self.presume?;
        let r = self.record(f);
        if r.returned || r.faults < after {
            return None;
        }
        let why = format!(
            "presumed, not run: {} never returned in this world and faulted so on {} \
             vectors, each confirmed alone",
            fn_name(f),
            r.faults
        );
        Some(match r.last? {
            Fault::Hung(_) => Fault::Hung(why),
            Fault::Crashed(_) => Fault::Crashed(why),
            Fault::Denied(call) => Fault::Denied(call),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cworld::BuiltWorld;

    /// A schemata object is one world per switch: a function proven to
    /// crash with one mutant on is not presumed to crash with another on,
    /// nor with none (a presumption carried across them killed mutants
    /// whose change the compiler never saw).
    #[test]
    fn records_are_per_world_and_switch() {
        let dir = std::env::temp_dir().join(format!("hfi1-records-test-{}", std::process::id()));
        let world = BuiltWorld::unbuilt(&dir);
        let worker = |w: &BuiltWorld| {
            let mut k = Worker::new(w).expect("a worker (not started)");
            k.presume_hangs(HANG_PROOFS);
            k
        };
        let one = worker(&world.switched("hfi1_mutant__f", 1));
        let two = worker(&world.switched("hfi1_mutant__g", 1));
        let none = worker(&world);
        one.update_record(3, |r| {
            r.faults = HANG_PROOFS;
            r.last = Some(Fault::Crashed("SIGSEGV".into()));
        });
        assert!(one.presumed_fault(3).is_some());
        assert_eq!(two.presumed_fault(3), None);
        assert_eq!(none.presumed_fault(3), None);
        assert_eq!(one.presumed_fault(4), None);
    }
}
