//! `cargo xtask coverage`: line and branch coverage of the upstream
//! functions in scope by the corpus, every miss checked against
//! vectors/unreached.toml.

use anyhow::{Context, Result};
use harness::cmd::coverage;
use harness::corpus;
use harness::judge::coverage as measure;

use crate::flags;

pub fn run(a: flags::Coverage) -> Result<u8> {
    let series = &a.kernel.kernel;
    if a.mcdc {
        return mcdc(series);
    }
    let m = coverage::measure(series)?;
    // The HTML report, when lcov is installed: its tools, run as a script
    // would run them.
    let out = measure::out_dir(series);
    let html = out.join("html");
    let drawn = measure::html_tools();
    if drawn {
        let sh = xshell::Shell::new()?;
        let info = out.join("coverage.info");
        let obj = &m.obj;
        sh.create_dir(&out)?;
        xshell::cmd!(
            sh,
            "lcov --quiet --capture --rc lcov_branch_coverage=1 --directory {obj} --output-file {info}"
        )
        .run()
        .context("lcov failed")?;
        xshell::cmd!(
            sh,
            "genhtml --quiet --branch-coverage --output-directory {html} {info}"
        )
        .run()
        .context("genhtml failed")?;
    }
    print!(
        "{}",
        measure::render(&m.tree, &m.cov, drawn.then_some(html.as_path()))
    );

    // Every miss explained, every explanation still needed.
    let explained = coverage::explain(&m.tree, &m.cov, &corpus::corpus_dir())?;
    Ok(say(&explained))
}

/// `--mcdc`: MC/DC per function, its HTML report, every condition not
/// shown checked against vectors/mcdc.toml; then the boundaries of every
/// comparison, each side missed checked against vectors/boundaries.toml.
fn mcdc(series: &str) -> Result<u8> {
    let m = coverage::measure_mcdc(series)?;
    let html = measure::out_dir(series).join("mcdc-html");
    harness::judge::mcdc::html(&m.world, &m.profile, &html)?;
    print!(
        "{}",
        harness::judge::mcdc::render(&m.tree, &m.cov, Some(html.as_path()))
    );
    let explained = coverage::mcdc::explain(&m.tree, &m.cov, &corpus::corpus_dir())?;
    let code = say(&explained);
    // Boundaries of every comparison, checked against vectors/boundaries.toml.
    let (table, bounds) =
        coverage::boundaries::measure_and_explain(&m.world, &corpus::corpus_dir())?;
    print!("\n{table}\n");
    Ok(code.max(say(&bounds)))
}

/// Says whether a measurement and its manifest agree (stdout) or each way
/// they do not (stderr); the exit code.
fn say(explained: &coverage::Explained) -> u8 {
    match explained.agreed() {
        Some(line) => println!("{line}"),
        None => {
            for line in explained.disagreements() {
                eprintln!("{line}");
            }
        }
    }
    explained.exit_code()
}
