//! The project's own apt configuration for Debian's archive: its sources
//! (every suite that carries `linux-source-*`, on the system's mirror),
//! lists and cache under the project's cache, never the system's state.

use fs_err as fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use super::cache::cache_dir;
use super::progress;
use super::spec::KernelSpec;
use super::version::series_order;
use crate::sandbox::which;

/// The Debian suites searched for `linux-source-*` (with whether each is
/// on the security archive): every version Debian still publishes, from
/// 5.10 (bullseye) to experimental's release candidates.
const SUITES: &[(&str, bool)] = &[
    ("bullseye", false),
    ("bullseye-security", true),
    ("bookworm", false),
    ("bookworm-security", true),
    ("bookworm-backports", false),
    ("trixie", false),
    ("trixie-security", true),
    ("sid", false),
    ("experimental", false),
];

/// The system's Debian mirror and security mirror, read from its apt
/// sources (only the host is reused; the system's apt state is never
/// touched).
fn mirrors() -> (String, String) {
    let mut main = None;
    let mut security = None;
    let mut texts = vec![];
    if let Ok(t) = fs::read_to_string("/etc/apt/sources.list") {
        texts.push(t);
    }
    if let Ok(rd) = fs::read_dir("/etc/apt/sources.list.d") {
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "sources" || x == "list") {
                if let Ok(t) = fs::read_to_string(&p) {
                    texts.push(t);
                }
            }
        }
    }
    for t in &texts {
        for l in t.lines() {
            let l = l.trim();
            let uri = if let Some(u) = l.strip_prefix("URIs:") {
                u.split_whitespace().next()
            } else if l.starts_with("deb ") {
                l.split_whitespace().find(|w| w.starts_with("http"))
            } else {
                None
            };
            let Some(uri) = uri else { continue };
            let uri = uri.trim_end_matches('/').to_owned();
            if uri.ends_with("/debian-security") {
                security.get_or_insert(uri);
            } else if uri.ends_with("/debian") {
                main.get_or_insert(uri);
            }
        }
    }
    let main = main.unwrap_or_else(|| "http://deb.debian.org/debian".into());
    let security = security.unwrap_or_else(|| format!("{main}-security"));
    (main, security)
}

/// The private apt configuration's directory in the cache.
fn apt_dir() -> PathBuf {
    cache_dir().join("apt").join("debian")
}

/// Where the package of Debian version `version` is kept (no apt work: no
/// lock).
pub(super) fn debs_dir(version: &str) -> PathBuf {
    apt_dir().join("debs").join(version.replace(':', "%3a"))
}

/// The project's private apt configuration: its own sources list (every
/// suite of [`SUITES`]), lists, cache and status file under the cache.
/// apt runs with its own locking off, so one `PrivateApt` exists at a time
/// (across processes and threads: it holds the directory's lock while it
/// lives); keep one no longer than its apt work.
pub(super) struct PrivateApt {
    /// Its directory in the cache.
    dir: PathBuf,
    /// Held while it lives.
    _lock: super::cache_lock::FileLock,
}

impl PrivateApt {
    /// The configuration, written into the cache if it changed.
    pub(super) fn new() -> Result<PrivateApt> {
        let dir = apt_dir();
        let lock = super::cache_lock::FileLock::acquire(&dir.join(".lock-apt"))?;
        for d in ["etc", "lists/partial", "archives/partial", "cache", "debs"] {
            fs::create_dir_all(dir.join(d))
                .with_context(|| format!("creating {}", dir.join(d).display()))?;
        }
        let (main, security) = mirrors();
        let mut list = String::new();
        for (suite, sec) in SUITES {
            let uri = if *sec { &security } else { &main };
            list.push_str(&format!("deb {uri} {suite} main\n"));
        }
        let sources = dir.join("etc/sources.list");
        if fs::read_to_string(&sources).ok().as_deref() != Some(list.as_str()) {
            fs::write(&sources, list)?;
            // Lists of other sources are stale.
            let _ = fs::remove_file(dir.join("updated"));
        }
        let status = dir.join("status");
        if !status.exists() {
            fs::write(&status, "")?;
        }
        Ok(PrivateApt { dir, _lock: lock })
    }

    /// `tool` (`apt-get`, `apt-cache`) run with this configuration.
    fn command(&self, tool: &str) -> Command {
        let d = |p: &str| self.dir.join(p).display().to_string();
        let mut c = Command::new(tool);
        for (k, v) in [
            ("Dir::Etc::SourceList", d("etc/sources.list")),
            ("Dir::Etc::SourceParts", "/dev/null".into()),
            ("Dir::State::Lists", d("lists")),
            ("Dir::State::status", d("status")),
            ("Dir::Cache", d("cache")),
            ("Dir::Cache::Archives", d("archives")),
            ("Debug::NoLocking", "1".into()),
            ("APT::Sandbox::User", whoami()),
        ] {
            c.arg("-o").arg(format!("{k}={v}"));
        }
        c
    }

    /// `apt-get update`, unless it ran in the last `max_age` (`None`:
    /// always).
    pub(super) fn update(&self, max_age: Option<std::time::Duration>) -> Result<()> {
        let stamp = self.dir.join("updated");
        let fresh = fs::metadata(&stamp)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .zip(max_age)
            .is_some_and(|(age, max)| age < max);
        if fresh {
            return Ok(());
        }
        if which("apt-get").is_none() || which("dpkg-deb").is_none() {
            bail!(
                "apt-get and dpkg-deb are needed to fetch linux-source packages and this machine \
                 has no Debian packaging tools; pass a kernel tree with --kernel-src PATH instead"
            );
        }
        progress(&format!(
            "refreshing Debian's package lists ({} suites, private configuration in {})",
            SUITES.len(),
            self.dir.display()
        ));
        run_checked(
            self.command("apt-get")
                .args(["-q", "update"])
                .stdout(Stdio::null()),
            "apt-get update (private configuration)",
        )?;
        fs::write(&stamp, "")?;
        Ok(())
    }

    /// `(version, suite)` of every published `linux-source-SERIES`, newest
    /// first (apt's order).
    pub(super) fn versions(&self, series: &str) -> Result<Vec<(String, String)>> {
        let out = self
            .command("apt-cache")
            .args(["madison", &format!("linux-source-{series}")])
            .output()
            .context("running apt-cache madison")?;
        let mut v: Vec<(String, String)> = vec![];
        for l in String::from_utf8_lossy(&out.stdout).lines() {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            if cells.len() < 3 {
                continue;
            }
            // "http://… bookworm-security/main amd64 Packages"
            let suite = cells[2]
                .split_whitespace()
                .nth(1)
                .and_then(|s| s.split('/').next())
                .unwrap_or("")
                .to_owned();
            match v.iter_mut().find(|(ver, _)| ver == cells[1]) {
                Some((_, s)) => {
                    s.push(',');
                    s.push_str(&suite);
                }
                None => v.push((cells[1].to_owned(), suite)),
            }
        }
        Ok(v)
    }

    /// Every `linux-source-X.Y` Debian publishes.
    pub(super) fn all_series(&self) -> Result<Vec<String>> {
        let out = self
            .command("apt-cache")
            .args(["pkgnames", "linux-source-"])
            .output()
            .context("running apt-cache pkgnames")?;
        let mut v: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.trim().strip_prefix("linux-source-"))
            .filter(|s| KernelSpec::parse(s).is_ok() && !s.contains('='))
            .map(str::to_owned)
            .collect();
        v.sort_by_key(|s| series_order(s));
        v.dedup();
        Ok(v)
    }

    /// Downloads `linux-source-SERIES` at `version` into `debs` (emptied
    /// first), once the lists say Debian publishes it.
    pub(super) fn download(&self, series: &str, version: &str, debs: &Path) -> Result<()> {
        let pkg = format!("linux-source-{series}");
        // Lists from the last hour are good enough when they carry the
        // version; otherwise they are refreshed once.
        self.update(Some(std::time::Duration::from_secs(3600)))?;
        if !self.versions(series)?.iter().any(|(v, _)| v == version) {
            self.update(None)?;
            let known = self.versions(series)?;
            if !known.iter().any(|(v, _)| v == version) {
                bail!(
                    "Debian does not publish {pkg} {version} (any more): it has {}; \
                     `cargo xtask kernel update {series}` pins the newest",
                    if known.is_empty() {
                        "no version of it".to_owned()
                    } else {
                        known
                            .iter()
                            .map(|(v, _)| v.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                );
            }
        }
        progress(&format!("downloading {pkg} {version}"));
        for e in fs::read_dir(debs)?.flatten() {
            let _ = fs::remove_file(e.path());
        }
        // apt-get's progress goes to stderr: stdout carries reports only.
        run_checked(
            self.command("apt-get")
                .args(["-q", "download", &format!("{pkg}={version}")])
                .current_dir(debs)
                .stdout(std::io::stderr()),
            &format!("apt-get download {pkg}={version}"),
        )
        .with_context(|| {
            format!(
                "Debian's lists name {pkg} {version} but the archive did not hand it over \
                 (apt's message above; a superseded security update is often gone from the \
                 pool): pick another version from `cargo xtask kernel list {series}`"
            )
        })
    }
}

/// The user apt's sandbox runs as: this one.
fn whoami() -> String {
    std::env::var("USER").unwrap_or_else(|_| "root".into())
}

/// Runs `cmd`; an error names `what` failed, and how.
fn run_checked(cmd: &mut Command, what: &str) -> Result<()> {
    let status = cmd
        .status()
        .with_context(|| format!("{what}: could not start {:?}", cmd.get_program()))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}
