//! A survivor written as a reviewer wants it: the vector that would kill
//! it, where the generator finds one (generated vectors of the functions
//! reaching the mutant's switch, mutant against base, the first
//! difference minimised and trimmed to a `[[case]]` by the comparison's
//! shrink loop), else "equivalent?" with what to check.

use anyhow::Result;

use super::{Mutant, Schemata};
use crate::corpus::Vector;
use crate::cworld::{BuiltWorld, HarnessFault};
use crate::judge::compare;
use crate::model::types::Func;

/// What a reviewer is told of a surviving mutant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Suggestion {
    /// A generated vector tells the mutant from the base: this case (of
    /// `family`, when the corpus has a file of the function) kills it.
    Vector {
        /// The corpus file the case belongs in.
        family: Option<String>,
        /// The minimised vector, as a `[[case]]` table.
        case: String,
    },
    /// No generated vector told it apart: maybe equivalent, with what to
    /// check.
    Equivalent(String),
    /// No vector was tried, and why (a mutant built alone).
    NotTried(String),
}

impl Suggestion {
    /// The suggestion in a few lines: `add this vector to FILE to kill
    /// it:` and the case, or `equivalent? …`.
    pub fn text(&self) -> String {
        match self {
            Suggestion::Vector { family, case } => format!(
                "add this vector{} to kill it:\n{}",
                family
                    .as_ref()
                    .map(|f| format!(" to {f}"))
                    .unwrap_or_default(),
                case.trim_end()
            ),
            Suggestion::Equivalent(why) => format!("equivalent? {why}"),
            Suggestion::NotTried(why) => format!("no vector tried: {why}"),
        }
    }
}

/// The seed suggestions draw from: `seed + 1`, vectors the judging (from
/// `seed`) did not try.
pub fn seed_of(seed: u64) -> u64 {
    seed.wrapping_add(1)
}

/// Tries `n` generated vectors (from [`seed_of`]`(seed)`) of each function
/// reaching surviving mutant `k`, `m`, of `s`, against `base`; the
/// corpus (`vectors`) runs too and names the family a case belongs in.
pub fn suggest(
    base: &BuiltWorld,
    s: &Schemata,
    (k, m): (usize, &Mutant),
    vectors: &[Vector],
    (n, seed): (u64, u64),
) -> Result<Suggestion> {
    let Some((world, reach)) = s.mutant(k, m) else {
        return Ok(Suggestion::NotTried(
            "built alone, outside the schemata world".into(),
        ));
    };
    let funcs: Vec<Func> = reach.affected.clone();
    let names: Vec<&str> = funcs.iter().map(|f| f.name()).collect();
    let seed = seed_of(seed);
    if funcs.is_empty() {
        return Ok(Suggestion::Equivalent(format!(
            "{}: no function in scope calls {} (nothing can kill it)",
            what(m),
            m.function
        )));
    }
    let c = compare::compare_reaching((base, &world), vectors, (Func::ALL, reach), (n, seed), true);
    let c = match c {
        Ok(c) => c,
        // A call of the mutant's world that faulted in a batch and not
        // alone is the mutant's undefined behaviour, as its judging says
        // (no suggestion, the run goes on); any other harness fault ends
        // the run.
        Err(e) => {
            let e = super::unreproducible(e, &world);
            if HarnessFault::in_chain(&e) {
                return Err(e);
            }
            return Ok(Suggestion::NotTried(format!("{e:#}")));
        }
    };
    let Some(g) = c.groups.first() else {
        return Ok(Suggestion::Equivalent(format!(
            "{}: {n} generated vectors each of {} (seed {seed}) never told it apart from \
             the original: check whether the change can be observed",
            what(m),
            names.join(", ")
        )));
    };
    let case = g.case.clone().unwrap_or_else(|| {
        crate::corpus::write::case_toml(&g.minimal, &format!("kill_{}", g.func), "mutant")
    });
    Ok(Suggestion::Vector {
        family: g.family.as_ref().map(|f| {
            let root = crate::project_path("");
            f.strip_prefix(&root).unwrap_or(f).display().to_string()
        }),
        case: case.replace(
            &format!("name = \"diff_{}\"", g.func),
            &format!("name = \"kill_{}\"", g.func),
        ),
    })
}

/// What a mutant changed: `` `<` → `<=` at qp.c:LINE (`SITE`) ``.
fn what(m: &Mutant) -> String {
    format!(
        "{} at {}:{} (`{}`)",
        change_of(&m.operator),
        m.file,
        m.line,
        m.site
    )
}

/// An operator as a reviewer reads it: `` `<` → `<=` ``, `` `!` dropped
/// ``, `literal + 1`, `statement deleted`.
pub fn change_of(operator: &str) -> String {
    match operator.split_once(" -> ") {
        Some((a, b)) => format!("`{a}` → `{b}`"),
        None if operator == "drop !" => "`!` dropped".into(),
        None if operator == "delete statement" => "statement deleted".into(),
        None => operator.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_read_as_changes() {
        assert_eq!(change_of("< -> <="), "`<` → `<=`");
        assert_eq!(change_of("drop !"), "`!` dropped");
        assert_eq!(change_of("delete statement"), "statement deleted");
        assert_eq!(change_of("literal + 1"), "literal + 1");
    }
}
