//! `cargo xtask coverage`: line and branch coverage of the upstream
//! functions in scope by the corpus, every miss checked against
//! vectors/unreached.toml.

use anyhow::{Context, Result};
use harness::cmd::coverage;
use harness::corpus;
use harness::judge::coverage::{self as measure, Tracefile};
use harness::kernel;

use crate::flags;

pub fn run(a: flags::Coverage) -> Result<u8> {
    let series = &a.kernel.kernel;
    let tree = kernel::fetch(series)?;
    let vectors = corpus::load_corpus(&corpus::corpus_dir())?;
    let out = measure::out_dir(series);
    let world = measure::collect(&tree, &vectors)?;
    let obj = world.dir.join("obj");
    let cov = measure::report(&world, &Tracefile::capture(&obj)?)?;
    // The HTML report, when lcov is installed: its tools, run as a script
    // would run them.
    let html = out.join("html");
    let drawn = measure::html_tools();
    if drawn {
        let sh = xshell::Shell::new()?;
        let info = out.join("coverage.info");
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
        measure::render(&tree, &cov, drawn.then_some(html.as_path()))
    );

    // Every miss explained, every explanation still needed.
    let explained = coverage::explain(&tree, &cov, &corpus::corpus_dir())?;
    let shown = explained.manifest.display();
    if explained.problems.is_empty() {
        println!(
            "every miss above is explained by {shown} ({} entries)",
            explained.entries
        );
    } else {
        for p in &explained.problems {
            match p.line {
                0 => eprintln!("error: {}", p.msg),
                l => eprintln!("{shown}:{l}: {}", p.msg),
            }
        }
        eprintln!(
            "{} disagreement(s) between the measurement and {shown}",
            explained.problems.len()
        );
    }
    Ok(explained.exit_code())
}
