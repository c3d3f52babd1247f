//! `cargo xtask scope`: what the gate judges in each tree named.

use anyhow::Result;
use harness::cmd::scope;
use harness::report::exit_code;

use crate::flags;

pub fn run(a: flags::Scope) -> Result<u8> {
    let mut statements = vec![];
    for k in flags::kernels(&a.kernel, &a.kernel_src.kernel_src) {
        statements.push(scope::statement(&k.open()?)?);
    }
    match a.format {
        flags::ScopeFormat::Human => print!("{}", scope::human(&statements)),
        flags::ScopeFormat::Json => print!("{}", scope::json(&statements)?),
    }
    Ok(exit_code::SUCCESS)
}
