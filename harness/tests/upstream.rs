//! Smoke tests of the C world alone, and proof that it runs the tree's code.
//!
//! The smoke tests call upstream functions through the shim with small
//! hand-built worlds and assert outcomes derived by reading the C (the line
//! read is quoted above each assertion) — not from the Rust model.
//!
//! The mutation tests copy a tree, change one comparison in its source,
//! and show that the outcome changes and that the conformance run (the code
//! behind `cargo xtask conformance --kernel-src COPY`) fails, naming the
//! vectors that caught it.
//!
//! Kernels: every series in `HFI1_KERNELS` (default 6.12), like the
//! conformance suite.
//!
//! Each kind of test has its file under `upstream/`: `smoke`, `isolation`,
//! `gate` (and its child `lockdep`), `depth` (the gate's depth line),
//! `mutants` (hand-made ones, `cargo xtask mutants`' and `diff`'s),
//! `vendor`.

mod common;
#[path = "upstream/depth.rs"]
mod depth;
#[path = "upstream/gate.rs"]
mod gate;
#[path = "upstream/isolation.rs"]
mod isolation;
#[path = "upstream/mutants.rs"]
mod mutants;
#[path = "upstream/smoke.rs"]
mod smoke;
#[path = "upstream/vendor.rs"]
mod vendor;

use harness::cworld::{self, BuildOptions, Worker};
use harness::kernel;
use libtest_mimic::{Arguments, Failed, Trial};
use std::sync::Arc;

/// A series' world, built on first use by whichever trial needs it first.
type WorldOf = dyn Fn() -> Result<cworld::BuiltWorld, Failed> + Send + Sync;

fn main() {
    cworld::worker_main_if_requested();
    let args = Arguments::from_args();
    let series: Vec<String> = match std::env::var("HFI1_KERNELS") {
        Ok(k) if k.trim() == "all" => kernel::series(),
        Ok(k) if !k.trim().is_empty() => k.split(',').map(|s| s.trim().to_string()).collect(),
        _ => vec![kernel::DEFAULT_SERIES.to_string()],
    };
    // The trials of the harness's own abilities (the gate, diff, mutants,
    // vendor overlays) run on the oldest and the newest series selected:
    // the harness is the same for every series, and the two ends bracket
    // what differs between trees (headers, extracted code, Makefiles);
    // and on the default series, which the README's test command runs
    // alone (a stable tree's backports are no end: 6.12.117 has v7.0's
    // typed allocators). Every series runs the smoke and isolation trials
    // of its own world.
    let ends = [series.first().cloned(), series.last().cloned()];
    let mut trials = vec![];
    for s in series {
        let abilities = ends.iter().flatten().any(|e| *e == s) || s == kernel::DEFAULT_SERIES;
        let built =
            std::sync::Arc::new(std::sync::OnceLock::<Result<cworld::BuiltWorld, String>>::new());
        let get = {
            let (built, s) = (built.clone(), s.clone());
            move || -> Result<cworld::BuiltWorld, Failed> {
                built
                    .get_or_init(|| {
                        let t = kernel::fetch(&s).map_err(|e| format!("{e:#}"))?;
                        cworld::build(&t, &BuildOptions::default()).map_err(|e| format!("{e:#}"))
                    })
                    .clone()
                    .map_err(Failed::from)
            }
        };
        let get: Arc<WorldOf> = Arc::new(get);
        for (name, f) in smoke::smoke_tests() {
            let get = get.clone();
            trials.push(trial(format!("{s}::smoke::{name}"), move || {
                let world = get()?;
                let mut w = Worker::new(&world).map_err(|e| format!("{e:#}"))?;
                f(&mut w)
            }));
        }
        {
            let get = get.clone();
            trials.push(trial(
                format!("{s}::isolation::crash_is_a_finding"),
                move || isolation::crash_is_a_finding(&get()?),
            ));
        }
        {
            let get = get.clone();
            trials.push(trial(
                format!("{s}::isolation::first_call_sees_the_whole_world"),
                move || isolation::first_call_sees_the_whole_world(&get()?),
            ));
        }
        {
            let get = get.clone();
            trials.push(trial(
                format!("{s}::isolation::ubsan_reports_upstream_ub"),
                move || isolation::ubsan_reports_upstream_ub(&get()?.tree),
            ));
        }
        {
            let get = get.clone();
            trials.push(trial(
                format!("{s}::isolation::sanitize_poisons_past_declared_ports"),
                move || isolation::sanitize_poisons_past_declared_ports(&get()?.tree),
            ));
        }
        {
            let get = get.clone();
            trials.push(trial(
                format!("{s}::isolation::reused_flat_call_buffer"),
                move || isolation::reused_flat_call_buffer(&get()?),
            ));
        }
        {
            let get = get.clone();
            trials.push(trial(
                format!("{s}::isolation::scenario_steps_carry_only_kept_state"),
                move || isolation::scenario_steps_carry_only_kept_state(&get()?),
            ));
        }
        if abilities {
            let newest = ends[1].as_deref() == Some(s.as_str());
            trials.extend(ability_trials(&s, &get, newest));
        }
        // The gate's depth lines on three series: the two ends and the
        // default one.
        if abilities {
            let get = get.clone();
            trials.push(trial(format!("{s}::gate::depth"), move || {
                depth::depth_of_changed_lines(&get()?.tree)
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

/// A trial; with `HFI1_TRIAL_TIMES` set, it says on stderr how long it
/// took (`[time] 12.3 s NAME`), to find the trials that make CI slow.
fn trial<F>(name: String, f: F) -> Trial
where
    F: FnOnce() -> Result<(), Failed> + Send + 'static,
{
    if std::env::var_os("HFI1_TRIAL_TIMES").is_none() {
        return Trial::test(name, f);
    }
    Trial::test(name.clone(), move || {
        let t = std::time::Instant::now();
        let r = f();
        eprintln!("[time] {:.1} s {name}", t.elapsed().as_secs_f64());
        r
    })
}

/// The trials of the harness's own abilities on series `s` (`newest`:
/// the newest series selected).
/// The abilities judged on one tree, by name.
type TreeTrial = fn(&kernel::KernelTree) -> Result<(), Failed>;
const TREE_TRIALS: &[(&str, TreeTrial)] = &[
    ("gate::verdicts", gate::gate_verdicts),
    ("gate::not_judged", gate::gate_not_judged),
    ("gate::lock_order", gate::lockdep::gate_lock_order),
    ("gate::irq_safety", gate::lockdep::gate_irq_safety),
    ("gate::recursive_lock", gate::lockdep::gate_recursive_lock),
    ("gate::rcu_free", gate::lockdep::gate_rcu_free),
    (
        "gate::newer_interface",
        gate::interfaces::gate_newer_interface,
    ),
    (
        "gate::missing_stand_in",
        gate::interfaces::gate_missing_stand_in,
    ),
    ("gate::tree_lacks", gate::interfaces::gate_tree_lacks),
    ("gate::scoped_guard", gate::interfaces::gate_scoped_guard),
    (
        "gate::generic_helpers",
        gate::interfaces::gate_generic_helpers,
    ),
    ("gate::bh_workqueue", gate::interfaces::gate_bh_workqueue),
    ("gate::write_past_block", gate::gate_write_past_block),
    ("gate::write_after_free", gate::gate_write_after_free),
    ("gate::crash_storm", gate::gate_crash_storm),
    ("diff::finds_the_mutant", mutants::diff_finds_the_mutant),
    ("failslab::sweep", mutants::failslab_sweep),
    ("leaks::found", mutants::leaks_are_found),
    ("scope::statement", gate::scope_statement),
    (
        "mutants::extracted_function",
        mutants::mutants_of_an_extracted_function,
    ),
];

fn ability_trials(s: &str, get: &Arc<WorldOf>, newest: bool) -> Vec<Trial> {
    let mut trials = vec![];
    for &(name, f) in TREE_TRIALS {
        let get = get.clone();
        trials.push(trial(format!("{s}::{name}"), move || f(&get()?.tree)));
    }
    // Schemata against mutants built alone, and the reach of mutants
    // against their differences: a minute of builds each, on the newest
    // series only (the mechanism is the harness's, not a tree's).
    if newest {
        let get2 = get.clone();
        let get3 = get.clone();
        trials.push(trial(format!("{s}::reach::sound"), move || {
            mutants::reach_is_sound(&get3()?.tree)
        }));
        let (get, again) = (get.clone(), get.clone());
        trials.push(trial(
            format!("{s}::mutants::schemata_agree_with_alone"),
            move || mutants::schemata_agree_with_alone(&get()?.tree),
        ));
        let get = again;
        trials.push(trial(
            format!("{s}::mutants::schemata_reach_sound"),
            move || mutants::schemata_reach_is_sound(&get()?.tree),
        ));
        let get = get2.clone();
        trials.push(trial(
            format!("{s}::isolation::measurements_do_not_mix"),
            move || isolation::measurements_do_not_mix(&get()?.tree),
        ));
    }
    {
        let get = get.clone();
        trials.push(trial(format!("{s}::vendor::overlay"), move || {
            vendor::vendor_overlay(&get()?.tree)
        }));
    }
    for m in mutants::MUTATIONS {
        let get = get.clone();
        trials.push(trial(format!("{s}::mutant::{}", m.name), move || {
            let world = get()?;
            mutants::mutate(&world.tree, m)
        }));
    }
    trials
}
