//! The failslab sweep of a corpus vector (the kernel's fault injection:
//! the N-th allocation of a call fails), which C against C runs besides
//! each vector that fails nothing itself: of a single call, each of its
//! allocations failing alone; of a scenario, each allocation of each of
//! its steps failing alone (the other steps failing none).

use super::{CallOrigin, Seen};
use crate::corpus::invariants::steps_keep_invariants;
use crate::corpus::Vector;
use crate::model::types::Call;

/// The allocations failslab counts, by their journal lines: the
/// kmalloc family's, `alloc_percpu`'s and `dma_alloc_coherent`'s
/// (c-shim/mocks/alloc.c; the rhashtable's bucket table is not counted).
const FAILSLAB_COUNTED: [&str; 3] = ["kmalloc(", "alloc_percpu(", "dma_alloc_coherent("];

/// The failslab sweep of corpus vector `v` (the kernel's fault injection:
/// the N-th allocation of a call fails): one variant per allocation
/// either side's call made (up to the 64 `world.alloc_fail` names), that
/// allocation failing alone; none when the vector chooses its failures
/// itself.
pub(super) fn failing_each_allocation(v: &Vector, x: &Seen, y: &Seen) -> Vec<(CallOrigin, Call)> {
    if v.call.world.alloc_fail != 0 {
        return vec![];
    }
    let n = allocations(x).max(allocations(y));
    (0..n)
        .map(|k| {
            let mut c = v.call.clone();
            c.world.alloc_fail = 1 << k;
            let origin = CallOrigin::Failslab {
                id: v.id(),
                n: k + 1,
            };
            (origin, c)
        })
        .collect()
}

/// The allocations failslab counts in what a side did (up to the 64
/// `world.alloc_fail` names).
fn allocations(s: &Seen) -> u32 {
    match s {
        Seen::Done(o) => o
            .journal
            .iter()
            .filter(|l| FAILSLAB_COUNTED.iter().any(|p| l.starts_with(p)))
            .count()
            .min(64) as u32,
        _ => 0,
    }
}

/// A scenario run with allocation `n` of its step `step` (both from one)
/// failing alone: the scenario with that step's `world.alloc_fail` naming
/// it, every other step's naming none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepFailing {
    /// The step whose allocation fails, from 1.
    pub step: usize,
    /// Which of its allocations fails, from 1.
    pub n: u32,
}

impl StepFailing {
    /// `v` with this step's allocation failing.
    pub fn apply(&self, v: &Vector) -> Vector {
        let mut out = v.clone();
        for (i, c) in std::iter::once(&mut out.call)
            .chain(out.then.iter_mut())
            .enumerate()
        {
            c.world.alloc_fail = if i + 1 == self.step {
                1 << (self.n - 1)
            } else {
                0
            };
        }
        out
    }
}

/// The failslab sweep of scenario `v`, whose steps did `steps` on the
/// two sides: one variant per allocation a step made on either side,
/// failing alone, for each step both sides ran up to the first that
/// differs (a step after a difference is that difference's consequence);
/// none when a step chooses its failures itself. A variant runs only as
/// far as its steps keep the invariants: an allocation failing can leave
/// a state a later step may not run on (a request cleaned, its array
/// freed), which upstream's callers never give it; such a variant ends
/// before that step, or is dropped when it is the failing step itself.
pub(super) fn failing_each_step_allocation(
    v: &Vector,
    steps: &[(Seen, Seen)],
) -> Vec<(StepFailing, Vector)> {
    if v.steps().any(|c| c.world.alloc_fail != 0) {
        return vec![];
    }
    let mut out = vec![];
    for (i, (x, y)) in steps.iter().enumerate() {
        for n in 1..=allocations(x).max(allocations(y)) {
            let f = StepFailing { step: i + 1, n };
            let mut variant = f.apply(v);
            if let Err((k, _)) = steps_keep_invariants(&variant.call, &variant.then) {
                if k <= f.step {
                    continue;
                }
                variant.then.truncate(k - 2);
            }
            out.push((f, variant));
        }
        if x != y {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::types::Func;
    use crate::outcome::Outcome;

    /// A corpus vector of `call` and its later steps `then`.
    fn vector(call: Call, then: Vec<Call>) -> Vector {
        Vector {
            family: "f".into(),
            name: "n".into(),
            branch: String::new(),
            file: std::path::PathBuf::from("f.toml"),
            line: 1,
            call,
            then,
        }
    }

    /// A side that returned, journalling `lines`.
    fn seen(lines: &[&str]) -> Seen {
        let mut o = Outcome::new();
        o.journal = lines.iter().map(|l| l.to_string()).collect();
        Seen::Done(Box::new(o))
    }

    /// The sweep fails each allocation failslab counts, alone: the
    /// kmalloc family's, alloc_percpu's and dma_alloc_coherent's (the
    /// larger count of the two sides), up to the 64 a world names.
    #[test]
    fn the_failslab_sweep_fails_each_counted_allocation_alone() {
        let mut v = vector(crate::generate::seeded_call(1, Func::ScAlloc, 0), vec![]);
        v.call.world.alloc_fail = 0;
        let x = seen(&[
            "kmalloc(node=0)",
            "alloc_percpu()",
            "write_csr(X, 0x1)",
            "kmalloc(node=0)",
        ]);
        let y = seen(&["dma_alloc_coherent(node=0, 64)"]);
        let swept: Vec<u64> = failing_each_allocation(&v, &x, &y)
            .iter()
            .map(|(_, c)| c.world.alloc_fail)
            .collect();
        assert_eq!(swept, [1, 2, 4]);
        let many: Vec<String> = (0..70).map(|_| "kmalloc(node=-1)".to_string()).collect();
        let many = seen(&many.iter().map(String::as_str).collect::<Vec<_>>());
        let swept = failing_each_allocation(&v, &many, &Seen::Malformed);
        assert_eq!(swept.len(), 64);
        assert_eq!(swept[63].1.world.alloc_fail, 1 << 63);
        // A vector that chooses its failures is not swept.
        v.call.world.alloc_fail = 2;
        assert!(failing_each_allocation(&v, &x, &y).is_empty());
    }

    /// A variant runs only as far as its steps keep the invariants: the
    /// 63rd slot's coalesce buffer failing cleans the request and frees
    /// its array, which the next add would write (a use after free no
    /// caller makes), so that variant stops before it.
    #[test]
    fn a_scenarios_variant_keeps_the_invariants() {
        let all = crate::corpus::load_corpus(&crate::corpus::corpus_dir()).expect("the corpus");
        let v = all
            .iter()
            .find(|v| v.id() == "txbuild::build_coalesced_tail")
            .expect("build_coalesced_tail");
        assert_eq!(v.then.len(), 1);
        let done = seen(&["kmalloc(node=-1)"]);
        let steps = [(done.clone(), done.clone()), (done.clone(), done)];
        let swept = failing_each_step_allocation(v, &steps);
        assert_eq!(swept.len(), 2);
        let (f, cut) = &swept[0];
        assert_eq!((f.step, f.n), (1, 1));
        assert!(cut.then.is_empty(), "{:?}", cut.then);
        let failing_at_one = f.apply(v);
        assert!(steps_keep_invariants(&failing_at_one.call, &failing_at_one.then).is_err());
        // Failing the second step's allocation leaves both steps.
        assert_eq!((swept[1].0.step, swept[1].1.then.len()), (2, 1));
        for (_, variant) in &swept {
            assert_eq!(steps_keep_invariants(&variant.call, &variant.then), Ok(()));
        }
    }

    /// A scenario's sweep fails each allocation of each step alone, the
    /// other steps failing none, up to the first step that differs.
    #[test]
    fn a_scenarios_sweep_fails_each_steps_allocations_alone() {
        let (first, then) = crate::generate::seeded_scenario(3, 2);
        let mut v = vector(first, then[..2.min(then.len())].to_vec());
        while v.then.len() < 3 {
            v.then.push(v.call.clone());
        }
        for c in std::iter::once(&mut v.call).chain(v.then.iter_mut()) {
            c.world.alloc_fail = 0;
        }
        let two = seen(&["kmalloc(node=0)", "kfree", "dma_alloc_coherent(node=0, 64)"]);
        let none = seen(&["write_csr(X, 0x1)"]);
        let one = seen(&["kmalloc(node=-1)"]);
        // Steps 1 and 3 allocate; step 3 differs (one allocation on one
        // side); step 4 follows the difference and is not swept.
        let steps = [
            (two.clone(), two.clone()),
            (none.clone(), none.clone()),
            (one.clone(), none.clone()),
            (two.clone(), two.clone()),
        ];
        let swept = failing_each_step_allocation(&v, &steps);
        let which: Vec<(usize, u32)> = swept.iter().map(|(f, _)| (f.step, f.n)).collect();
        assert_eq!(which, [(1, 1), (1, 2), (3, 1)]);
        for (f, variant) in &swept {
            let masks: Vec<u64> = variant.steps().map(|c| c.world.alloc_fail).collect();
            let mut want = vec![0u64; 4];
            want[f.step - 1] = 1 << (f.n - 1);
            assert_eq!(masks, want);
            // Only the masks change.
            assert_eq!(variant.then[1].args, v.then[1].args);
        }
        // A scenario whose step chooses its failures is not swept.
        v.then[1].world.alloc_fail = 1;
        assert!(failing_each_step_allocation(&v, &steps).is_empty());
    }
}
