//! What the options name: each option's value checked and turned into
//! the library's terms (clap's `value_parser`s), and the kernels a
//! command's `--kernel`/`--kernel-src` name.

use std::path::{Path, PathBuf};

use anyhow::Result;
use harness::kernel::{self, select::KernelArg};
use harness::model::types::Func;
use harness::report::{self, ShardSpec};

/// `--kcidb-origin`'s value, checked.
pub(super) fn kcidb_origin(s: &str) -> Result<report::Origin, String> {
    report::Origin::new(s)
}

pub(super) fn shard(s: &str) -> std::result::Result<ShardSpec, String> {
    ShardSpec::parse(s).map_err(|e| e.to_string())
}

pub(super) fn seconds(s: &str) -> std::result::Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|v| *v > 0.0 && v.is_finite())
        .ok_or_else(|| format!("{s:?} is not a number of seconds (e.g. 2 or 0.5)"))
}

/// A kernel name: a pinned series (`6.12`) or an exact Debian version
/// of a series (`6.1=6.1.180-1~deb11u1`).
pub(super) fn series(s: &str) -> std::result::Result<String, String> {
    let spec = kernel::KernelSpec::parse(s).map_err(|e| format!("{e:#}"))?;
    if spec.version.is_some() || kernel::series().contains(&spec.series) {
        Ok(s.to_owned())
    } else {
        Err(format!(
            "series {} is not pinned (pinned: {}; name an exact version as {}=VERSION, \
             see `cargo xtask kernel list {}`; for another tree use --kernel-src PATH)",
            spec.series,
            kernel::series().join(", "),
            spec.series,
            spec.series
        ))
    }
}

pub(super) fn series_or_all(s: &str) -> std::result::Result<String, String> {
    if s == "all" {
        Ok(s.to_owned())
    } else {
        series(s).map_err(|e| e.replace("(expected ", "(expected all, "))
    }
}

/// A C identifier (`mutants --function`: the library says whether the
/// worlds compile it).
pub(super) fn c_name(s: &str) -> std::result::Result<String, String> {
    let mut chars = s.chars();
    let first = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if first && chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        Ok(s.to_owned())
    } else {
        Err("not a C identifier".into())
    }
}

pub(super) fn function(s: &str) -> std::result::Result<String, String> {
    Func::from_name(s)
        .map(|_| s.to_owned())
        .ok_or_else(|| format!("unknown function (expected one of {})", Func::names()))
}

/// A tree named on the command line: a series, or else a path.
pub fn tree(s: &str) -> Result<KernelArg> {
    if Path::new(s).exists() {
        return Ok(KernelArg::Path(PathBuf::from(s)));
    }
    match series(s) {
        Ok(_) => Ok(KernelArg::Series(s.to_owned())),
        // Looks like a kernel name, is not a directory: say why it is
        // neither.
        Err(e) if kernel::KernelSpec::parse(s).is_ok() => anyhow::bail!("{s}: {e}"),
        Err(_) => anyhow::bail!(
            "{s}: no such directory, and not a kernel name (a pinned series such as {}, or \
             SERIES=VERSION)",
            kernel::DEFAULT_SERIES
        ),
    }
}

/// The kernels named by `--kernel`/`--base` (series, or `all`) and
/// `--kernel-src` (paths), in that order; the default series when none.
pub fn kernels(series: &[String], paths: &[PathBuf]) -> Vec<KernelArg> {
    let mut out: Vec<KernelArg> = vec![];
    for k in series {
        if k == "all" {
            out.extend(kernel::series().into_iter().map(KernelArg::Series));
        } else {
            out.push(KernelArg::Series(k.clone()));
        }
    }
    out.extend(paths.iter().cloned().map(KernelArg::Path));
    if out.is_empty() {
        out.push(KernelArg::Series(kernel::DEFAULT_SERIES.into()));
    }
    out
}
