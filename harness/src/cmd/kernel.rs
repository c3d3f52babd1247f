//! `cargo xtask kernel list|update`: what Debian publishes, and a series'
//! pin moved to its newest version with the upgrade report (the corpus on
//! the new version against the series' snapshots). Fetching is
//! [`crate::kernel::fetch`].

use anyhow::Result;

use crate::corpus;
use crate::cworld::BuildOptions;
use crate::judge::snapshot::SnapshotMismatch;
use crate::kernel::{self, select::KernelArg, Published};
use crate::report::exit_code;

/// The versions Debian publishes of the series named (every series when
/// none is), as `kernel list` shows them.
#[derive(Debug, Clone)]
pub struct Listing {
    /// The series asked about.
    pub only: Vec<String>,
    /// Every version published, by series.
    pub published: Vec<Published>,
}

/// Asks Debian (through the private apt configuration) what it publishes
/// of `only`; an error names a series that is not one.
pub fn list(only: &[String]) -> Result<Listing> {
    for s in only {
        kernel::KernelSpec::parse(s)?;
    }
    Ok(Listing {
        only: only.to_vec(),
        published: kernel::published(only)?,
    })
}

impl Listing {
    /// A line per version: series, version, suites, and whether it is the
    /// pin and cached.
    pub fn table(&self) -> String {
        let w = self
            .published
            .iter()
            .map(|p| p.version.len())
            .max()
            .unwrap_or(8);
        let mut out = String::new();
        for p in &self.published {
            let mut marks = vec![];
            if p.pinned {
                marks.push("pinned");
            }
            if p.cached {
                marks.push("cached");
            }
            let line = format!(
                "{:6} {:w$}  {:40} {}",
                p.series,
                p.version,
                p.suites,
                marks.join(" ")
            );
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }

    /// What to say when Debian publishes none of the series asked about.
    pub fn nothing(&self) -> Option<String> {
        self.published.is_empty().then(|| {
            format!(
                "Debian publishes no linux-source package of {:?}",
                self.only
            )
        })
    }

    /// [`exit_code::FINDING`] when nothing is published, else
    /// [`exit_code::SUCCESS`].
    pub fn exit_code(&self) -> u8 {
        if self.published.is_empty() {
            exit_code::FINDING
        } else {
            exit_code::SUCCESS
        }
    }
}

/// How the corpus on a series' new version differs from the series'
/// snapshots (or the nearest series' when it has none).
#[derive(Debug, Clone)]
pub struct Upgrade {
    /// The series updated.
    pub series: String,
    /// The version it is pinned to now.
    pub version: String,
    /// The series whose snapshots the run was compared with.
    pub against: String,
    /// Where the new version's outcomes differ from those snapshots.
    pub mismatches: Vec<SnapshotMismatch>,
    /// How many vectors ran.
    pub vectors: usize,
}

/// Pins `series` to Debian's newest version (saying so through
/// `progress`), then runs the committed corpus on it against the series'
/// snapshots: the upgrade report, or none when the pin was already the
/// newest.
pub fn update(series: &str, progress: &mut dyn FnMut(&str)) -> Result<Option<Upgrade>> {
    let (old, new) = kernel::update(series)?;
    match &old {
        Some(o) if o.version == new.version => {
            progress(&format!(
                "{series} is pinned to {}, the newest",
                new.version
            ));
            return Ok(None);
        }
        Some(o) => progress(&format!(
            "{series}: {} -> {} (snapshots/kernels.lock)",
            o.version, new.version
        )),
        None => progress(&format!(
            "{series} pinned to {} (snapshots/kernels.lock)",
            new.version
        )),
    }
    let vectors = corpus::load_corpus(&corpus::corpus_dir())?;
    let sel = KernelArg::Series(series.to_owned());
    let run = super::run_kernel(&sel, &vectors, &BuildOptions::default(), progress)?;
    let (against, mismatches) = match run.stand_in {
        Some((other, ms)) => (other, ms),
        None => (series.to_owned(), run.snapshots),
    };
    Ok(Some(Upgrade {
        series: series.to_owned(),
        version: new.version,
        against,
        mismatches,
        vectors: vectors.len(),
    }))
}

impl Upgrade {
    /// The report: each changed vector, then what changed and how to
    /// accept it.
    pub fn render(&self) -> String {
        let (series, version) = (&self.series, &self.version);
        let mut out = String::new();
        for m in &self.mismatches {
            for (n, a, b) in &m.rows {
                out.push_str(&format!(
                    "{}::{n}\n  snapshot: {a}\n  {version}: {b}\n",
                    m.family
                ));
            }
        }
        let changed: usize = self.mismatches.iter().map(|m| m.rows.len()).sum();
        out.push_str(&format!(
            "{} vector(s) of {} behave differently on {version} than in snapshots/{}/{}; \
             `HFI1_KERNELS={series} cargo test` then `cargo insta review` writes the snapshots \
             of {series}; commit them with snapshots/kernels.lock\n",
            changed,
            self.vectors,
            self.against,
            if self.against == *series {
                String::new()
            } else {
                format!(" (series {series} has no snapshots yet)")
            }
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listing_aligns_versions_and_marks_the_pin() {
        let p = |version: &str, pinned: bool| Published {
            series: "6.12".into(),
            version: version.into(),
            suites: "trixie".into(),
            pinned,
            cached: false,
        };
        let l = Listing {
            only: vec!["6.12".into()],
            published: vec![p("6.12.118-1", false), p("6.12.117-1~deb12u1", true)],
        };
        let pad = " ".repeat(34);
        assert_eq!(
            l.table(),
            format!(
                "6.12   6.12.118-1          trixie\n\
                 6.12   6.12.117-1~deb12u1  trixie{pad} pinned\n"
            )
        );
        assert_eq!((l.nothing(), l.exit_code()), (None, exit_code::SUCCESS));
        let none = Listing {
            only: vec!["9.9".into()],
            published: vec![],
        };
        assert_eq!(
            none.nothing().as_deref(),
            Some("Debian publishes no linux-source package of [\"9.9\"]")
        );
        assert_eq!(none.exit_code(), exit_code::FINDING);
    }

    #[test]
    fn the_upgrade_report_names_each_row_and_the_snapshots_used() {
        let u = Upgrade {
            series: "7.2".into(),
            version: "7.2.1-1".into(),
            against: "6.12".into(),
            mismatches: vec![SnapshotMismatch {
                family: "mtu".into(),
                path: "snapshots/6.12/mtu.snap".into(),
                rows: vec![("v1".into(), "old".into(), "new".into())],
            }],
            vectors: 10,
        };
        assert_eq!(
            u.render(),
            "mtu::v1\n  snapshot: old\n  7.2.1-1: new\n\
             1 vector(s) of 10 behave differently on 7.2.1-1 than in snapshots/6.12/ \
             (series 7.2 has no snapshots yet); `HFI1_KERNELS=7.2 cargo test` then \
             `cargo insta review` writes the snapshots of 7.2; commit them with \
             snapshots/kernels.lock\n"
        );
    }
}
