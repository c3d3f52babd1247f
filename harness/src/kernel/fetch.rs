//! Fetching a kernel a user names: the tree of Debian's
//! `linux-source-SERIES` at a version, from the cache or unpacked into
//! it, checked against the pin; moving a pin; listing what Debian
//! publishes.

use fs_err as fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::apt::{debs_dir, PrivateApt};
use super::cache::{cache_dir, with_cache_hint};
use super::cache_lock::FileLock;
use super::deb::{cached_tree_is_whole, extract_deb, kept_deb, sha256_file};
use super::pins::{self, series};
use super::progress;
use super::spec::KernelSpec;
use super::tree::KernelTree;
use crate::sandbox::which;

/// One published version of a series, as `cargo xtask kernel list` shows
/// it.
#[derive(Debug, Clone)]
pub struct Published {
    /// `6.12`.
    pub series: String,
    /// Debian's version of `linux-source-SERIES`.
    pub version: String,
    /// The suites carrying it (`bookworm-security,trixie`).
    pub suites: String,
    /// It is the series' pin.
    pub pinned: bool,
    /// Its tree is in the cache.
    pub cached: bool,
}

/// Every version of every series Debian publishes (`only`: of these
/// series), newest first within a series; the lists are refreshed when
/// older than a day.
pub fn published(only: &[String]) -> Result<Vec<Published>> {
    let apt = PrivateApt::new()?;
    apt.update(Some(std::time::Duration::from_secs(24 * 3600)))?;
    let pins = pins::pins()?;
    let names = if only.is_empty() {
        apt.all_series()?
    } else {
        only.to_vec()
    };
    let mut out = vec![];
    for s in names {
        for (version, suites) in apt.versions(&s)? {
            out.push(Published {
                pinned: pins.iter().any(|p| p.series == s && p.version == version),
                cached: cached_tree_is_whole(&tree_dir(&version)),
                series: s.clone(),
                version,
                suites,
            });
        }
    }
    Ok(out)
}

/// Where the tree of Debian version `version` is cached.
fn tree_dir(version: &str) -> PathBuf {
    cache_dir()
        .join("kernels")
        .join(version.replace(':', "%3a"))
}

/// Returns the tree a kernel name stands for ([`KernelSpec`]): a series
/// at its pinned version (checked against the pin's SHA-256), or an exact
/// Debian version, each cached apart; fetching and extracting the package
/// first if it is not cached yet.
pub fn fetch(name: &str) -> Result<KernelTree> {
    let spec = KernelSpec::parse(name)?;
    let pin = pins::pin(&spec.series)?;
    let (version, sha) = match (&spec.version, &pin) {
        (Some(v), Some(p)) if *v == p.version => (v.clone(), Some(p.sha256.clone())),
        (Some(v), _) => (v.clone(), None),
        (None, Some(p)) => (p.version.clone(), Some(p.sha256.clone())),
        (None, None) => bail!(
            "the project does not pin kernel series {}: it pins {}; name an exact version \
             ({}=VERSION, see `cargo xtask kernel list {}`), pin the series with \
             `cargo xtask kernel update {}`, or pass --kernel-src PATH",
            spec.series,
            series().join(", "),
            spec.series,
            spec.series,
            spec.series
        ),
    };
    fetch_version(&spec.series, &version, sha.as_deref())
}

/// The tree of `linux-source-SERIES` at Debian version `version`;
/// `sha256`, when given, is what the package must hash to.
pub fn fetch_version(series: &str, version: &str, sha256: Option<&str>) -> Result<KernelTree> {
    fetch_version_into(series, version, sha256).map_err(with_cache_hint)
}

/// [`fetch_version`], its errors without the hint: the cached tree if it
/// is whole, else the package unpacked again (kept, or downloaded), one
/// process at a time.
fn fetch_version_into(series: &str, version: &str, sha256: Option<&str>) -> Result<KernelTree> {
    let kernels = cache_dir().join("kernels");
    let dest = tree_dir(version);
    let opened = |dest: &Path| -> Result<KernelTree> {
        let mut t = KernelTree::open(dest)?;
        t.package = Some(version.to_owned());
        Ok(t)
    };
    if cached_tree_is_whole(&dest) {
        return opened(&dest);
    }
    fs::create_dir_all(&kernels)?;
    let _lock = FileLock::acquire(&kernels.join(format!(".lock-{}", version.replace(':', "%3a"))))?;
    if cached_tree_is_whole(&dest) {
        return opened(&dest);
    }
    // Extractions happen under this lock: what an interrupted one left is
    // rubbish now.
    remove_interrupted_extractions(&kernels, series);
    if dest.exists() {
        progress(&format!(
            "the cached tree {} is incomplete or damaged: extracting it again",
            dest.display()
        ));
        fs::remove_dir_all(&dest).with_context(|| format!("removing {}", dest.display()))?;
    }
    let debs = debs_dir(version);
    fs::create_dir_all(&debs)?;
    let check_sum = |deb: &Path| check_pinned_sum(deb, series, version, sha256);
    if let Some(deb) = kept_deb(&debs) {
        progress(&format!("unpacking the kept {}", deb.display()));
        if check_sum(&deb).is_ok() && extract_deb(&deb, series, &dest).is_ok() {
            if let Ok(tree) = opened(&dest) {
                if tree.version.series() == series {
                    return Ok(tree);
                }
            }
        }
        let _ = fs::remove_dir_all(&dest);
        let _ = fs::remove_file(&deb);
    }
    if which("xz").is_none() {
        bail!("xz is needed to unpack linux-source-{series}: install xz-utils, or pass --kernel-src PATH");
    }
    // The private apt only for the download: unpacking runs beside other
    // fetches.
    PrivateApt::new()?.download(series, version, &debs)?;
    let deb = kept_deb(&debs).with_context(|| {
        format!(
            "apt-get download linux-source-{series}={version} left no .deb in {}",
            debs.display()
        )
    })?;
    check_sum(&deb)?;
    extract_deb(&deb, series, &dest)?;
    let tree = opened(&dest)?;
    if tree.version.series() != series {
        bail!(
            "{} is version {}, not a {series} kernel",
            deb.display(),
            tree.version
        );
    }
    // The package is kept (under the cache's apt directory), so that a
    // damaged tree is unpacked again without a download.
    Ok(tree)
}

/// Removes what interrupted extractions of `series` left in `kernels`.
fn remove_interrupted_extractions(kernels: &Path, series: &str) {
    let tmp_prefix = format!(".extract-{series}-");
    if let Ok(rd) = fs::read_dir(kernels) {
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().starts_with(&tmp_prefix) {
                let _ = fs::remove_dir_all(e.path());
            }
        }
    }
}

/// Checks that the package `deb` hashes to `want`, the pin's SHA-256 of
/// `linux-source-SERIES` at `version` (no pin: nothing to check).
fn check_pinned_sum(deb: &Path, series: &str, version: &str, want: Option<&str>) -> Result<()> {
    let Some(want) = want else { return Ok(()) };
    let got = sha256_file(deb)?;
    if got != want {
        bail!(
            "{} has SHA-256 {got}, but snapshots/kernels.lock pins {want} for \
             linux-source-{series} {version}: the archive changed the package; \
             `cargo xtask kernel update {series}` pins what it publishes now (review \
             the snapshot diff it prints)",
            deb.display()
        );
    }
    Ok(())
}

/// Pins `series` to the newest version Debian publishes (adding the
/// series if the project did not pin it): fetches it, hashes the package
/// and rewrites `snapshots/kernels.lock`. Returns the old pin and the
/// new.
pub fn update(series: &str) -> Result<(Option<pins::Pin>, pins::Pin)> {
    KernelSpec::parse(series)?;
    let newest = {
        // Let go of the private apt before the fetch takes it again.
        let apt = PrivateApt::new()?;
        apt.update(None)?;
        apt.versions(series)?
            .into_iter()
            .next()
            .map(|(v, _)| v)
            .with_context(|| format!("Debian publishes no linux-source-{series}"))?
    };
    let old = pins::pin(series)?;
    fetch_version(series, &newest, None)?;
    let debs = debs_dir(&newest);
    let deb = fs::read_dir(&debs)?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "deb"))
        .with_context(|| format!("no kept package in {}", debs.display()))?;
    let new = pins::Pin {
        series: series.to_owned(),
        version: newest,
        sha256: sha256_file(&deb)?,
    };
    pins::write(&new)?;
    Ok((old, new))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_series_says_what_to_do() {
        let e = fetch("5.4").expect_err("unknown");
        assert!(e.to_string().contains("--kernel-src"), "{e}");
    }
}
