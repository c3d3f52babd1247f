//! A kernel's version, read from its top Makefile, and the order and
//! membership of series (`6.1` before `6.12`; `6.1.180-1` is of `6.1`).

use std::fmt;

use anyhow::{Context, Result};

/// `VERSION.PATCHLEVEL.SUBLEVEL` of a tree, from its top Makefile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelVersion {
    /// `VERSION` (6).
    pub version: u32,
    /// `PATCHLEVEL` (12).
    pub patchlevel: u32,
    /// `SUBLEVEL` (117).
    pub sublevel: u32,
    /// `EXTRAVERSION` (`-rc1`, often empty).
    pub extraversion: String,
}

impl KernelVersion {
    /// `"6.12"`: the series whose snapshots apply to this tree.
    pub fn series(&self) -> String {
        format!("{}.{}", self.version, self.patchlevel)
    }
}

impl fmt::Display for KernelVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{}.{}{}",
            self.version, self.patchlevel, self.sublevel, self.extraversion
        )
    }
}

/// Parses `VERSION = 6` … `EXTRAVERSION =` from a top-level Makefile.
pub fn parse_makefile_version(text: &str) -> Result<KernelVersion> {
    let get = |key: &str| -> Option<String> {
        text.lines().find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == key).then(|| v.trim().to_owned())
        })
    };
    let num = |key: &str| -> Result<u32> {
        let v = get(key).with_context(|| format!("no {key} line"))?;
        v.parse()
            .with_context(|| format!("{key} = {v:?} is not a number"))
    };
    Ok(KernelVersion {
        version: num("VERSION")?,
        patchlevel: num("PATCHLEVEL")?,
        sublevel: num("SUBLEVEL")?,
        extraversion: get("EXTRAVERSION").unwrap_or_default(),
    })
}

/// Whether Debian version `v` is one of `series` (`6.1.180-1` and
/// `7.3~rc7-1~exp1` are; `6.12.1-1` is not of 6.1).
pub(crate) fn version_fits_series(v: &str, series: &str) -> bool {
    v.strip_prefix(series)
        .is_some_and(|rest| rest.starts_with(['.', '~', '-']))
}

/// A series name as a sortable pair (`5.10` before `6.1`).
pub fn series_order(s: &str) -> (u32, u32) {
    let (a, b) = s.split_once('.').unwrap_or((s, "0"));
    (a.parse().unwrap_or(u32::MAX), b.parse().unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_makefile_version() {
        let v = parse_makefile_version(
            "# SPDX\nVERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 117\nEXTRAVERSION = -rc1\nNAME = Baby Opossum\n",
        )
        .expect("parses");
        assert_eq!(v.to_string(), "6.12.117-rc1");
        assert_eq!(v.series(), "6.12");
    }

    #[test]
    fn a_makefile_without_version_is_an_error() {
        let e = parse_makefile_version("all:\n\techo\n").expect_err("no version");
        assert!(e.to_string().contains("no VERSION line"), "{e}");
    }
}
