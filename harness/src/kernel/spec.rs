//! Kernels as a user names them: a series (`6.12`, its pinned version)
//! or an exact Debian version of one (`6.1=6.1.180-1~deb11u1`).

use std::fmt;

use anyhow::{bail, Result};

use super::pins;
use super::version::version_fits_series;

/// The series `cargo xtask conformance` and `cargo test` use by default.
pub const DEFAULT_SERIES: &str = "6.12";

/// A kernel as a user names it: a series (`6.12`, its pinned version) or
/// an exact Debian version of one (`6.1=6.1.180-1~deb11u1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelSpec {
    /// `6.12`.
    pub series: String,
    /// `None`: the series' pinned version.
    pub version: Option<String>,
}

impl KernelSpec {
    /// Reads a kernel's name; an error says what a name may be.
    pub fn parse(s: &str) -> Result<KernelSpec> {
        let (series, version) = match s.split_once('=') {
            Some((a, b)) => (a.trim(), Some(b.trim())),
            None => (s.trim(), None),
        };
        let numeric = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
        let ok_series = series
            .split_once('.')
            .is_some_and(|(a, b)| numeric(a) && numeric(b));
        if !ok_series {
            bail!(
                "{s:?} is not a kernel: name a series (one of {}) or an exact Debian version \
                 as SERIES=VERSION (say 6.1=6.1.180-1~deb11u1; `cargo xtask kernel list` shows \
                 them); for any other tree pass --kernel-src PATH",
                pins::series().join(", ")
            );
        }
        if let Some(v) = version {
            let allowed = |c: char| c.is_ascii_alphanumeric() || ".+~:-".contains(c);
            if v.is_empty()
                || !v.chars().all(allowed)
                || !v.starts_with(|c: char| c.is_ascii_digit())
            {
                bail!("{v:?} is not a Debian version (e.g. 6.1.180-1~deb11u1)");
            }
            if !version_fits_series(v, series) {
                bail!("{v:?} is not a version of series {series} (it should start with {series}.)");
            }
        }
        Ok(KernelSpec {
            series: series.to_owned(),
            version: version.map(str::to_owned),
        })
    }
}

impl fmt::Display for KernelSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.version {
            Some(v) => write!(f, "{}={v}", self.series),
            None => write!(f, "{}", self.series),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::version::series_order;

    #[test]
    fn kernel_names() {
        let p = |s: &str| KernelSpec::parse(s).map(|k| k.to_string());
        assert_eq!(p("6.12").ok().as_deref(), Some("6.12"));
        assert_eq!(
            p("6.1=6.1.180-1~deb11u1").ok().as_deref(),
            Some("6.1=6.1.180-1~deb11u1")
        );
        assert_eq!(
            p("7.3=7.3~rc7-1~exp1").ok().as_deref(),
            Some("7.3=7.3~rc7-1~exp1")
        );
        // A version of another series, a path, a shell word: refused.
        for bad in ["6.1=6.12.1-1", "6.1=", "../x", "6", "6.1=6.1.1;rm", "all"] {
            assert!(p(bad).is_err(), "{bad}");
        }
        assert!(version_fits_series("5.10.262-1", "5.10"));
        assert!(!version_fits_series("5.100.1-1", "5.10"));
        assert!(series_order("5.10") < series_order("6.1"));
        assert!(series_order("6.1") < series_order("6.12"));
    }
}
