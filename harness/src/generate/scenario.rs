//! Generated scenarios: scenario `i` of a run seeded `S` is a first call,
//! drawn as a generated vector of one of [`STEP_FUNCS`], then one to three
//! later steps, each a function of [`STEP_FUNCS`] with the arguments drawn
//! for one of its own generated vectors and failing allocations of its own
//! (`world.alloc_fail`, by the generator's rule, from a stream of the step:
//! vectors share a world eight at a time, so a vector's mask would repeat
//! across steps). A step is kept only while
//! the state the model says the step before left, with the step's
//! function and arguments, keeps the invariants
//! ([`crate::corpus::validate`]); the first that does not ends the
//! scenario. Deterministic in `(S, i)`.

use super::draw::{Draw, Stream, WyRand};
use super::seeded::{seeded_call, SplitMix64};
use crate::corpus::invariants::steps_keep_invariants;
use crate::model::types::*;

/// What a scenario's steps call: the functions that act on what lives
/// between calls (the QP's place on its engine's and send context's wait
/// lists, its tx requests, the rings and credits, its reference, the tx
/// request a caller builds, its engine's state machine).
pub const STEP_FUNCS: &[Func] = &[
    Func::IowaitSleep,
    Func::SdmaSendTxreq,
    Func::SdmaSendTxlist,
    Func::SdmaDescAvail,
    Func::SdmaFlush,
    Func::SdmaEngineInterrupt,
    Func::SdmaProcessEvent,
    Func::SdmaEngineError,
    Func::SdmaSwCleanUpTask,
    Func::SdmaHwCleanUpTask,
    Func::SdmaErrHaltWait,
    Func::SdmaErrProgressCheck,
    Func::FlushQpWaiters,
    Func::IowaitWakeup,
    Func::IowaitSdmaDrained,
    Func::QpWakeup,
    Func::QpUnbusy,
    Func::HfiScheduleSend,
    Func::StopSendQueue,
    Func::QuiesceQp,
    Func::ScPiobufavail,
    Func::ScWantPiobufIntr,
    Func::ScReturnCredits,
    Func::ScBufferAlloc,
    Func::ScReleaseUpdate,
    Func::ScGroupReleaseUpdate,
    Func::ScDisable,
    Func::ScEnable,
    Func::ScStop,
    Func::ScRestart,
    Func::ScHalted,
    Func::SdmaTxinitAhg,
    Func::SdmaTxaddPage,
    Func::SdmaTxaddKvaddr,
    Func::SdmaTxaddDaddr,
];

/// The most later steps a generated scenario has.
pub const MAX_LATER_STEPS: u64 = 3;

/// Scenario `index` of a run seeded `seed`: its first call and its later
/// steps (each step's call holds the first's world, QP and engines, as a
/// corpus scenario's does, with its own failing allocations).
pub fn seeded_scenario(seed: u64, index: u64) -> (Call, Vec<Call>) {
    let mut r = SplitMix64::new(seed ^ 0x7363_656e_6172_696f ^ index.wrapping_mul(0x9E37));
    let mut pick = || STEP_FUNCS[(r.next_u64() % STEP_FUNCS.len() as u64) as usize];
    // A first call the generator gave up on (its stand-in need not keep
    // the invariants) is drawn again of another function, a few times.
    let mut first = seeded_call(seed, pick(), index);
    for _ in 0..8 {
        if crate::corpus::invariants::validate(&first).is_ok() {
            break;
        }
        first = seeded_call(seed, pick(), index);
    }
    let later = 1 + index % MAX_LATER_STEPS;
    let mut then = vec![];
    for k in 0..later {
        let f = pick();
        let at = index * MAX_LATER_STEPS + k;
        let mut step = Call {
            args: seeded_call(seed ^ 0x5745_5053, f, at).args,
            ..first.clone()
        };
        let mut u = Draw::stream(Stream::new(
            WyRand::new(SplitMix64::new(seed ^ 0x616c_6c6f_635f_6661 ^ at).next_u64()),
            usize::MAX,
        ));
        step.world.alloc_fail = super::rules::alloc_fail(&mut u, &first.world);
        then.push(step);
        if steps_keep_invariants(&first, &then).is_err() {
            then.pop();
            break;
        }
    }
    (first, then)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenarios_are_deterministic_and_mostly_have_steps() {
        let all: Vec<_> = (0..300).map(|i| seeded_scenario(3, i)).collect();
        assert_eq!(all[17], seeded_scenario(3, 17));
        let with_steps = all.iter().filter(|(_, t)| !t.is_empty()).count();
        let three = all.iter().filter(|(_, t)| t.len() == 3).count();
        assert!(with_steps > 150, "{with_steps} of 300 have a later step");
        assert!(three > 20, "{three} of 300 have three later steps");
        // Every step's function is one of the step functions, and every
        // scenario keeps the invariants step by step (what lets it run).
        for (first, then) in &all {
            assert!(STEP_FUNCS.contains(&first.func()));
            assert!(then.iter().all(|s| STEP_FUNCS.contains(&s.func())));
            assert_eq!(steps_keep_invariants(first, then), Ok(()));
        }
        // A later step fails allocations of its own, not the first's.
        let own = all
            .iter()
            .flat_map(|(f, t)| t.iter().map(move |s| (f, s)))
            .filter(|(f, s)| s.world.alloc_fail != f.world.alloc_fail)
            .count();
        assert!(own > 20, "{own} later steps fail allocations of their own");
        // Drawn for each step: a step's mask does not follow its neighbour's.
        let steps: Vec<u64> = all
            .iter()
            .flat_map(|(_, t)| t.iter().map(|s| s.world.alloc_fail))
            .collect();
        let failing = steps.iter().filter(|m| **m != 0).count();
        let repeated = steps
            .windows(2)
            .filter(|w| w[0] != 0 && w[0] == w[1])
            .count();
        assert!(
            repeated * 4 < failing,
            "{repeated} of {failing} failing masks repeat the step before"
        );
    }
}
