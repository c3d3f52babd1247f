//! `vectors/mutants.toml`, the survivors the project accepts, and a run's
//! tally against it.

use std::path::Path;

use anyhow::{bail, Context, Result};

use super::{Fate, Mutant, Options};
use crate::report::exit_code;

/// A surviving mutant the project accepts, from `vectors/mutants.toml`:
/// equivalent to upstream, or unreachable from a single-threaded world,
/// with the reason a reviewer accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Line of the entry in the manifest, for messages.
    pub at: usize,
    /// The mutant's stable id ([`Mutant::id`]).
    pub id: String,
    /// Why it is accepted.
    pub reason: String,
    /// `--sanitize` kills it (the entry does not apply there).
    pub sanitize_kills: bool,
    /// Its fate depends on the run (it reads memory nothing initialised:
    /// what earlier calls left): accepted whether it survives or dies.
    pub unstable: bool,
    /// The entry applies to trees older than this series (`before =
    /// "7.2"`): upstream changed the code there, and from it on the mutant
    /// is to be killed.
    pub before: Option<(u32, u32)>,
}

/// The committed manifest of accepted survivors.
pub fn manifest_path() -> std::path::PathBuf {
    crate::corpus::corpus_dir().join("mutants.toml")
}

/// Reads the committed manifest ([`manifest_path`], [`parse_manifest`]).
pub fn read_manifest() -> Result<Vec<Listed>> {
    let path = manifest_path();
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    parse_manifest(&path, &text)
}

/// Reads the manifest (`[[survivor]]` tables: `id`, or `ids` for several
/// mutants of one reason, `reason`, optionally `sanitize_kills = true`,
/// `unstable = true` and `before = "SERIES"`); errors name the manifest's
/// line.
pub fn parse_manifest(path: &Path, text: &str) -> Result<Vec<Listed>> {
    let line = |span: Option<std::ops::Range<usize>>| {
        span.map_or(1, |s| {
            text[..s.start.min(text.len())].matches('\n').count() + 1
        })
    };
    let doc: toml_edit::ImDocument<&str> = toml_edit::ImDocument::parse(text)
        .map_err(|e| anyhow::anyhow!("{}:{}: {}", path.display(), line(e.span()), e.message()))?;
    let mut out = vec![];
    let Some(item) = doc.get("survivor") else {
        return Ok(out);
    };
    let tables = item.as_array_of_tables().ok_or_else(|| {
        anyhow::anyhow!(
            "{}:{}: expected [[survivor]] tables",
            path.display(),
            line(item.span())
        )
    })?;
    for t in tables.iter() {
        let at = line(t.span());
        for (k, _) in t.iter() {
            if ![
                "id",
                "ids",
                "reason",
                "sanitize_kills",
                "unstable",
                "before",
            ]
            .contains(&k)
            {
                bail!(
                    "{}:{at}: unknown key {k:?} (expected id or ids, reason, sanitize_kills, \
                     unstable, before)",
                    path.display()
                );
            }
        }
        let flag = |k: &str| -> Result<bool> {
            match t.get(k) {
                None => Ok(false),
                Some(v) => v.as_bool().ok_or_else(|| {
                    anyhow::anyhow!("{}:{at}: `{k}` must be true or false", path.display())
                }),
            }
        };
        let text_of = |k: &str| -> Result<String> {
            t.get(k)
                .and_then(|v| v.as_str())
                .filter(|s| !s.trim().is_empty())
                .map(str::to_owned)
                .ok_or_else(|| {
                    anyhow::anyhow!("{}:{at}: `{k}` must be a non-empty string", path.display())
                })
        };
        let ids = match (t.get("id"), t.get("ids")) {
            (Some(_), None) => vec![text_of("id")?],
            (None, Some(v)) => v
                .as_array()
                .filter(|a| !a.is_empty())
                .and_then(|a| {
                    a.iter()
                        .map(|x| {
                            x.as_str()
                                .filter(|s| !s.trim().is_empty())
                                .map(str::to_owned)
                        })
                        .collect::<Option<Vec<_>>>()
                })
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "{}:{at}: `ids` must be a non-empty array of non-empty strings",
                        path.display()
                    )
                })?,
            _ => bail!("{}:{at}: give `id` or `ids` (one of them)", path.display()),
        };
        let reason = text_of("reason")?;
        let (sanitize_kills, unstable) = (flag("sanitize_kills")?, flag("unstable")?);
        let before = match t.get("before") {
            None => None,
            Some(_) => Some(series(&text_of("before")?).ok_or_else(|| {
                anyhow::anyhow!(
                    "{}:{at}: `before` must be a series, as \"7.2\"",
                    path.display()
                )
            })?),
        };
        out.extend(ids.into_iter().map(|id| Listed {
            at,
            id,
            reason: reason.clone(),
            sanitize_kills,
            unstable,
            before,
        }));
    }
    Ok(out)
}

/// `"7.2"` as `(7, 2)`.
fn series(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.split_once('.')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// Where the manifest and a run part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// A mutant survived that the manifest does not list.
    Unlisted {
        /// The file of the mutant, its path in the tree.
        file: String,
        /// The mutant's line there.
        line: usize,
        /// The mutant's id.
        id: String,
    },
    /// A listed mutant is killed now.
    KilledNow {
        /// The entry's line in the manifest.
        at: usize,
        /// The mutant's id.
        id: String,
    },
    /// In a run of every mutant: a listed mutant the tree does not have.
    Gone {
        /// The entry's line in the manifest.
        at: usize,
        /// The mutant's id.
        id: String,
    },
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Unlisted { file, line, id } => write!(
                f,
                "{file}:{line}: survived and not listed in vectors/mutants.toml: {id} \
                 (add a vector that kills it, or an entry saying why none can)"
            ),
            Problem::KilledNow { at, id } => write!(
                f,
                "vectors/mutants.toml:{at}: {id} is killed now: remove the entry (or its id from the entry's ids)"
            ),
            Problem::Gone { at, id } => write!(
                f,
                "vectors/mutants.toml:{at}: no mutant {id} in this tree: remove the entry \
                 (or the site changed)"
            ),
        }
    }
}

/// Where the manifest and a run part, either way: a survivor it does not
/// list, or an entry whose mutant was killed (or, in a run of every
/// mutant, does not exist). Entries that do not apply under `--sanitize`
/// are left out there.
pub fn check_manifest(
    listed: &[Listed],
    results: &[(Mutant, Fate)],
    every_mutant: bool,
    sanitize: bool,
) -> Vec<Problem> {
    let applies: Vec<&Listed> = listed
        .iter()
        .filter(|l| !(sanitize && l.sanitize_kills))
        .collect();
    let mut problems = vec![];
    for (m, f) in results {
        let id = m.id();
        let entry = applies.iter().find(|l| l.id == id);
        match (f, entry) {
            (Fate::Survived, None) => problems.push(Problem::Unlisted {
                file: m.file.clone(),
                line: m.line,
                id,
            }),
            (Fate::Killed { .. }, Some(l)) if !l.unstable => {
                problems.push(Problem::KilledNow { at: l.at, id })
            }
            _ => {}
        }
    }
    if every_mutant {
        for l in &applies {
            if !results.iter().any(|(m, _)| m.id() == l.id) {
                problems.push(Problem::Gone {
                    at: l.at,
                    id: l.id.clone(),
                });
            }
        }
    }
    problems
}

/// A run's counts, and where it parts from the manifest.
#[derive(Debug, Clone)]
pub struct Tally {
    /// Mutants that compiled and were judged.
    pub judged: usize,
    /// Judged mutants some vector kills.
    pub killed: usize,
    /// Survivors the manifest accepts (as it applies to the run).
    pub accepted: usize,
    /// Mutants that did not compile (or could not be judged).
    pub stillborn: usize,
    /// Every disagreement with the manifest ([`check_manifest`]).
    pub problems: Vec<Problem>,
}

/// Counts a run's mutants and checks them against the manifest.
pub fn tally(listed: &[Listed], results: &[(Mutant, Fate)], opts: &Options) -> Tally {
    let count = |f: fn(&Fate) -> bool| results.iter().filter(|(_, x)| f(x)).count();
    let judged = count(|f| !matches!(f, Fate::Stillborn(_)));
    let killed = count(|f| matches!(f, Fate::Killed { .. }));
    let problems = check_manifest(listed, results, opts.every_mutant(), opts.sanitize);
    let unlisted = problems
        .iter()
        .filter(|p| matches!(p, Problem::Unlisted { .. }))
        .count();
    Tally {
        judged,
        killed,
        accepted: judged - killed - unlisted,
        stillborn: results.len() - judged,
        problems,
    }
}

impl Tally {
    /// One line: the mutation score, and how long the run took.
    pub fn summary(&self, seconds: f64) -> String {
        let (killed, accepted) = (self.killed, self.accepted);
        let judged = self.judged.max(1) as f64;
        format!(
            "{killed} of {} mutants killed ({:.1}%), {accepted} accepted \
             ({:.1}% killed or accepted), {} did not compile or were not reproducible, \
             in {seconds:.1}s",
            self.judged,
            100.0 * killed as f64 / judged,
            100.0 * (killed + accepted) as f64 / judged,
            self.stillborn,
        )
    }

    /// [`exit_code::SUCCESS`] when the run and the manifest agree,
    /// [`exit_code::FINDING`] when they part.
    pub fn exit_code(&self) -> u8 {
        if self.problems.is_empty() {
            exit_code::SUCCESS
        } else {
            exit_code::FINDING
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mutant(site: &str, op: &str) -> Mutant {
        Mutant {
            function: "pick".into(),
            file: "pick.c".into(),
            line: 4,
            site: site.into(),
            operator: op.into(),
            nth: 0,
            at: 0..0,
            replacement: String::new(),
        }
    }

    /// The manifest and a run are compared both ways: an unlisted survivor
    /// and a listed mutant that is killed are both errors; an entry whose
    /// mutant is not in the tree is one only when every mutant ran; under
    /// --sanitize, `sanitize_kills` entries do not apply.
    #[test]
    fn the_manifest_and_the_run_part_either_way() {
        let text = "[[survivor]]\nid = \"pick: `a <= b` [<= -> <#0]\"\nreason = \"equivalent\"\n\n\
                    [[survivor]]\nid = \"pick: `gone` [drop !#0]\"\nreason = \"old\"\nsanitize_kills = true\n";
        let listed = parse_manifest(Path::new("m.toml"), text).expect("parses");
        assert_eq!(listed.len(), 2);
        assert_eq!((listed[1].at, listed[1].sanitize_kills), (5, true));
        let survived = vec![(mutant("a <= b", "<= -> <"), Fate::Survived)];
        assert!(check_manifest(&listed, &survived, false, false).is_empty());
        let p = check_manifest(&listed, &survived, true, false);
        assert!(
            matches!(&p[..], [Problem::Gone { at: 5, .. }])
                && p[0].to_string().contains(":5: no mutant"),
            "{p:?}"
        );
        assert!(check_manifest(&listed, &survived, true, true).is_empty());
        let killed = vec![(mutant("a <= b", "<= -> <"), Fate::Killed { calls: 3 })];
        let p = check_manifest(&listed, &killed, false, false);
        assert!(
            matches!(&p[..], [Problem::KilledNow { at: 1, .. }])
                && p[0].to_string().contains("is killed now"),
            "{p:?}"
        );
        // An unstable entry is accepted either way.
        let unstable = parse_manifest(
            Path::new("m.toml"),
            "[[survivor]]\nid = \"pick: `a <= b` [<= -> <#0]\"\nreason = \"stack\"\nunstable = true\n",
        )
        .expect("parses");
        assert!(unstable[0].unstable);
        assert!(check_manifest(&unstable, &killed, false, false).is_empty());
        assert!(check_manifest(&unstable, &survived, false, false).is_empty());

        let other = vec![(mutant("a && b", "&& -> ||"), Fate::Survived)];
        let p = check_manifest(&listed, &other, false, false);
        assert!(
            matches!(&p[..], [Problem::Unlisted { line: 4, .. }])
                && p[0]
                    .to_string()
                    .starts_with("pick.c:4: survived and not listed"),
            "{p:?}"
        );
        // Malformed entries name their line.
        let e = parse_manifest(Path::new("m.toml"), "[[survivor]]\nid = \"x\"\n")
            .expect_err("no reason");
        assert!(e.to_string().contains("m.toml:1: `reason`"), "{e}");
        let e = parse_manifest(
            Path::new("m.toml"),
            "[[survivor]]\nid = \"x\"\nreason = \"r\"\nwhy = 1\n",
        )
        .expect_err("unknown key");
        assert!(e.to_string().contains("unknown key \"why\""), "{e}");
        // Several mutants of one reason: an entry each, each checked.
        let grouped = parse_manifest(
            Path::new("m.toml"),
            "[[survivor]]\nids = [\"pick: `a <= b` [<= -> <#0]\", \"pick: `a && b` [&& -> ||#0]\"]\nreason = \"printing only\"\n",
        )
        .expect("parses");
        assert_eq!(grouped.len(), 2);
        assert!(grouped
            .iter()
            .all(|l| l.at == 1 && l.reason == "printing only"));
        let both = vec![
            (mutant("a <= b", "<= -> <"), Fate::Survived),
            (mutant("a && b", "&& -> ||"), Fate::Survived),
        ];
        assert!(check_manifest(&grouped, &both, false, false).is_empty());
        let p = check_manifest(&grouped, &killed, false, false);
        assert!(
            matches!(&p[..], [Problem::KilledNow { at: 1, .. }]),
            "{p:?}"
        );
        for bad in [
            "[[survivor]]\nids = []\nreason = \"r\"\n",
            "[[survivor]]\nid = \"x\"\nids = [\"y\"]\nreason = \"r\"\n",
            "[[survivor]]\nreason = \"r\"\n",
        ] {
            let e = parse_manifest(Path::new("m.toml"), bad).expect_err(bad);
            assert!(e.to_string().starts_with("m.toml:1:"), "{e}");
        }
    }

    /// The tally counts the fates, the survivors the manifest accepts, and
    /// fails the run on any disagreement with it.
    #[test]
    fn the_tally_counts_fates_and_decides_the_exit_code() {
        let text = "[[survivor]]\nid = \"pick: `a <= b` [<= -> <#0]\"\nreason = \"equivalent\"\n";
        let listed = parse_manifest(Path::new("m.toml"), text).expect("parses");
        let opts = Options {
            functions: vec!["pick".into()],
            sample: 0,
            seed: 1,
            random: 0,
            sanitize: false,
            shard: None,
            alone: false,
            ..Default::default()
        };
        let mut results = vec![
            (mutant("a <= b", "<= -> <"), Fate::Survived),
            (mutant("a && b", "&& -> ||"), Fate::Killed { calls: 2 }),
            (mutant("x", "drop !"), Fate::Stillborn("error".into())),
        ];
        let t = tally(&listed, &results, &opts);
        assert_eq!((t.judged, t.killed, t.accepted, t.stillborn), (2, 1, 1, 1));
        assert_eq!(t.exit_code(), exit_code::SUCCESS);
        assert_eq!(
            t.summary(2.0),
            "1 of 2 mutants killed (50.0%), 1 accepted (100.0% killed or accepted), \
             1 did not compile or were not reproducible, in 2.0s"
        );
        results.push((mutant("b", "literal + 1"), Fate::Survived));
        let t = tally(&listed, &results, &opts);
        assert_eq!((t.judged, t.killed, t.accepted), (3, 1, 1));
        assert!(matches!(&t.problems[..], [Problem::Unlisted { .. }]));
        assert_eq!(t.exit_code(), exit_code::FINDING);
    }

    /// The committed manifest reads.
    #[test]
    fn the_committed_manifest_reads() {
        let path = manifest_path();
        let text = std::fs::read_to_string(&path).expect("vectors/mutants.toml");
        let listed = parse_manifest(&path, &text).expect("parses");
        assert!(!listed.is_empty());
    }

    /// An entry for trees before a series applies to 6.12, not to 7.2,
    /// where its mutant killed is no problem and surviving is one.
    #[test]
    fn an_entry_before_a_series() {
        let survived = vec![(mutant("a <= b", "<= -> <"), Fate::Survived)];
        let killed = vec![(mutant("a <= b", "<= -> <"), Fate::Killed { calls: 3 })];
        let before = parse_manifest(
            Path::new("m.toml"),
            "[[survivor]]\nid = \"pick: `a <= b` [<= -> <#0]\"\nreason = \"bug\"\nbefore = \"7.2\"\n",
        )
        .expect("parses");
        assert_eq!(before[0].before, Some((7, 2)));
        let v = |version, patchlevel| crate::kernel::KernelVersion {
            version,
            patchlevel,
            sublevel: 0,
            extraversion: String::new(),
        };
        let old = super::super::listed_for_tree(&before, &v(6, 12));
        assert!(check_manifest(&old, &survived, false, false).is_empty());
        let new = super::super::listed_for_tree(&before, &v(7, 2));
        assert!(check_manifest(&new, &killed, false, false).is_empty());
        assert_eq!(check_manifest(&new, &survived, false, false).len(), 1);
        assert!(parse_manifest(
            Path::new("m.toml"),
            "[[survivor]]\nid = \"x\"\nreason = \"r\"\nbefore = \"seven\"\n"
        )
        .is_err());
    }
}
