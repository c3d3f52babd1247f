//! `cargo xtask`: the project's build system (rust-analyzer style). This
//! file parses the command line ([`flags`]) and hands each command to its
//! own file, which calls the library (`harness::cmd`, `harness::judge`).
//! Run `cargo xtask --help` for the commands.

mod bench;
mod codegen;
mod conformance;
mod coverage;
mod diff;
mod flags;
mod gate;
mod kernel;
mod merge;
mod mutants;
mod scope;
mod snapshots;
mod sweep;

use std::process::ExitCode;

use anyhow::Result;
use clap::Parser;
use flags::{Cmd, SnapshotsCmd};
use harness::cworld;
use harness::report::exit_code;

fn main() -> ExitCode {
    cworld::worker_main_if_requested();
    let cli = flags::Xtask::parse();
    if let Some(s) = cli.sandbox.call_timeout {
        cworld::set_call_timeout(std::time::Duration::from_secs_f64(s));
    }
    if cli.sandbox.no_sandbox {
        harness::sandbox::allow_unsandboxed();
    }
    match dispatch(cli.cmd) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(exit_code::CANNOT_JUDGE)
        }
    }
}

/// Runs a command; its exit code, one of [`exit_code`]'s.
fn dispatch(cmd: Cmd) -> Result<u8> {
    if let Some(o) = cmd.output() {
        // A bad HFI1_KCIDB_ORIGIN stops the run before it starts.
        o.origin()?;
    }
    match cmd {
        Cmd::Conformance(a) => conformance::run(a),
        Cmd::Kernel { cmd } => kernel::run(cmd),
        Cmd::Snapshots {
            cmd: SnapshotsCmd::Diff { a, b },
        } => snapshots::diff(&a, &b),
        Cmd::Codegen(a) => codegen::run(a.check),
        Cmd::Gate(a) => gate::run(a),
        Cmd::Diff(a) => diff::run(a),
        Cmd::Sweep(a) => sweep::run(a),
        Cmd::Mutants(a) => mutants::run(a),
        Cmd::Coverage(a) => coverage::run(a),
        Cmd::Bench(a) => bench::run(a),
        Cmd::Scope(a) => scope::run(a),
        Cmd::Merge(a) => merge::run(a),
    }
}
