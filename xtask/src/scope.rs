//! `cargo xtask scope`: what the gate judges in each tree named.

use anyhow::Result;
use harness::cmd::scope;
use harness::judge::scope::Unjudged;
use harness::report::exit_code;

use crate::flags;

pub fn run(a: flags::Scope) -> Result<u8> {
    let list = Unjudged::load()?;
    let mut statements = vec![];
    for k in flags::kernels(&a.kernel, &a.kernel_src.kernel_src) {
        statements.push(scope::statement(&k.open()?, &list)?);
    }
    match a.format {
        flags::ScopeFormat::Human => print!("{}", scope::human(&statements)),
        flags::ScopeFormat::Json => print!("{}", scope::json(&statements)?),
    }
    if !a.check {
        return Ok(exit_code::SUCCESS);
    }
    let problems = scope::check(&statements, &list);
    for p in &problems {
        eprintln!("error: {p}");
    }
    if problems.is_empty() {
        let listed: usize = list.unjudged.iter().map(|r| r.functions.len()).sum();
        eprintln!(
            "[scope] every definition of {} is judged or listed with why ({listed} listed)",
            list.files.join(", ")
        );
        Ok(exit_code::SUCCESS)
    } else {
        eprintln!(
            "[scope] {} disagreement(s) between the worlds and {}",
            problems.len(),
            Unjudged::path().display()
        );
        Ok(exit_code::FINDING)
    }
}
