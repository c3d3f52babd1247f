//! `cargo xtask snapshots diff A B`: where upstream outcomes differ
//! between two series' snapshots, or a series' snapshots and a tree.

use anyhow::Result;
use harness::cmd::snapshots::{self, Side};

use crate::flags;

pub fn diff(a: &str, b: &str) -> Result<u8> {
    let ta = snapshots::tables(&side(a)?, &mut progress)?;
    let tb = snapshots::tables(&side(b)?, &mut progress)?;
    let d = snapshots::diff(ta, tb);
    print!("{}", d.render());
    Ok(d.exit_code())
}

/// A side as named: a pinned series' snapshots, or a tree.
fn side(s: &str) -> Result<Side> {
    Ok(if snapshots::committed(s) {
        Side::Committed(s.to_owned())
    } else {
        Side::Tree(s.to_owned(), flags::tree(s)?)
    })
}

fn progress(m: &str) {
    eprintln!("[snapshots] {m}");
}
