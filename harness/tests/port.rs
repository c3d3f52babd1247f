//! A Rust port of the driver, as its developers would plug it in: an
//! [`Implementation`] of their own, set first thing in `main` (so that the
//! workers, which re-execute this program, judge it too), then the
//! harness's corpus run and random run against upstream C.
//!
//! The "port" here is the project's model with one deliberate bug: it
//! never asks the caller to send (`call_send` always false) from
//! hfi1_setup_wqe. The harness must report exactly that function — on the
//! corpus vectors where upstream says true, and in the worker's random run
//! — and nothing else.

use harness::cmd::random;
use harness::corpus;
use harness::cworld::{self, BuildOptions};
use harness::implementation::{self, Implementation};
use harness::judge::check;
use harness::kernel;
use harness::model::types::{Call, Func};
use harness::model::{Model, Undefined};
use harness::outcome::Outcome;
use libtest_mimic::{Arguments, Failed, Trial};

struct BuggyPort;

impl Implementation for BuggyPort {
    fn name(&self) -> &str {
        "a port that never sets call_send"
    }

    fn run(&self, call: &Call) -> Result<Outcome, Undefined> {
        let mut o = Model.run(call)?;
        if call.func() == Func::SetupWqe {
            o.call_send = false;
        }
        Ok(o)
    }
}

fn corpus_and_random() -> Result<(), Failed> {
    let e = |e: anyhow::Error| Failed::from(format!("{e:#}"));
    if implementation::get().name() != BuggyPort.name() {
        return Err("the port is not the implementation in use".into());
    }
    let tree = kernel::fetch(kernel::DEFAULT_SERIES).map_err(e)?;
    let world = cworld::build(&tree, &BuildOptions::default()).map_err(e)?;
    let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(|x| x.to_string())?;
    let checks = check::check_all(&world, &vectors).map_err(e)?;
    let mut bad: Vec<String> = vec![];
    for (v, c) in vectors.iter().zip(&checks) {
        let upstream_sends = c.c.as_ref().is_some_and(|o| o.call_send);
        let expected_bad = v.call.func() == Func::SetupWqe && upstream_sends;
        if c.verdict.ok() == expected_bad {
            bad.push(format!("{}: {:?}", v.id(), c.verdict));
        }
    }
    if !bad.is_empty() {
        return Err(format!("judged wrongly: {bad:?}").into());
    }
    // The random run checks in the workers: they judge the port too.
    let run = random::run_jobs(
        &world,
        &[Func::SetupWqe, Func::QpToSdmaEngine],
        2000,
        3,
        2,
        &mut |_, _, _| {},
    )
    .map_err(e)?;
    let by = |f: Func| run.per_func.iter().find(|p| p.0 == f).map_or(0, |p| p.2);
    if by(Func::SetupWqe) == 0 || by(Func::QpToSdmaEngine) != 0 {
        return Err(format!("random run: {:?}", run.per_func).into());
    }
    Ok(())
}

fn main() {
    // First: the implementation, then the worker hand-off.
    if implementation::set(Box::new(BuggyPort)).is_err() {
        eprintln!("an implementation was already chosen");
        std::process::exit(2);
    }
    cworld::worker_main_if_requested();
    let args = Arguments::from_args();
    let trials = vec![Trial::test(
        "port::a_ports_bug_is_found_in_its_function_only",
        corpus_and_random,
    )];
    libtest_mimic::run(&args, trials).exit();
}
