//! Kernel trees: where upstream code comes from.
//!
//! A tree is any directory laid out like the root of a Linux source tree (a
//! git checkout, an extracted kernel.org tarball, a patched copy, or the
//! part of Debian's `linux-source-SERIES` package this module extracts).
//! Only the files listed in [`REQUIRED_FILES`] and the header directories
//! next to them are ever read.

use fs_err as fs;
use std::fmt;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

pub mod cache_lock;
pub mod cscan;
pub mod kbuild;
pub mod overlay;
pub mod pins;
pub mod select;

/// The series the project pins (`snapshots/kernels.lock`), oldest first.
/// Each has snapshots; `--kernel all` and `HFI1_KERNELS=all` mean these.
pub fn series() -> Vec<String> {
    match pins::pins() {
        Ok(p) => p.into_iter().map(|p| p.series).collect(),
        Err(e) => {
            progress(&format!("{e:#}"));
            vec![]
        }
    }
}

/// The series `cargo xtask conformance` and `cargo test` use by default.
pub const DEFAULT_SERIES: &str = "6.12";

/// Files a tree must have, relative to its root.
pub const REQUIRED_FILES: &[&str] = &[
    "Makefile",
    "drivers/infiniband/hw/hfi1/qp.c",
    "drivers/infiniband/hw/hfi1/qp.h",
    "drivers/infiniband/hw/hfi1/hfi.h",
    "drivers/infiniband/hw/hfi1/iowait.c",
    "drivers/infiniband/hw/hfi1/sdma.c",
    "drivers/infiniband/hw/hfi1/pio.c",
    "drivers/infiniband/hw/hfi1/verbs.c",
    "drivers/infiniband/hw/hfi1/driver.c",
    "drivers/infiniband/sw/rdmavt/qp.c",
    "include/rdma/rdma_vt.h",
    "include/rdma/rdmavt_qp.h",
    "include/rdma/ib_verbs.h",
    "include/uapi/rdma/ib_user_verbs.h",
];

/// What Debian's package is extracted into the cache (tar wildcards below
/// the package's top directory).
const EXTRACT: &[&str] = &[
    "Makefile",
    // Makefile.extrawarn, or Makefile.warn (7.x): `kbuild`.
    "scripts/Makefile.*warn",
    "drivers/infiniband/hw/hfi1/*",
    "drivers/infiniband/sw/rdmavt/*",
    "include/rdma/*",
    "include/uapi/rdma/*",
];

/// `VERSION.PATCHLEVEL.SUBLEVEL` of a tree, from its top Makefile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelVersion {
    pub version: u32,
    pub patchlevel: u32,
    pub sublevel: u32,
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

/// The largest file of a tree the harness reads itself (outside the
/// sandbox): upstream's largest C files are a few hundred KiB.
pub const MAX_TREE_FILE: u64 = 16 << 20;

/// Reads a file of the tree at `root` on the harness's side, where the
/// sandbox does not hold: only a regular file inside the tree (a symlink
/// must resolve inside it), of at most [`MAX_TREE_FILE`] bytes. A FIFO, a
/// device or a link to `/etc/shadow` in a tree someone sent is refused with
/// its name, never read.
pub fn read_tree_file(root: &Path, path: &Path) -> Result<Vec<u8>> {
    let real =
        fs::canonicalize(path).with_context(|| format!("{}: cannot open", path.display()))?;
    let root = fs::canonicalize(root).unwrap_or_else(|_| root.to_owned());
    if !real.starts_with(&root) {
        bail!(
            "{} leads outside the tree (to {}): refused",
            path.display(),
            real.display()
        );
    }
    let meta = fs::metadata(&real).with_context(|| format!("{}: cannot open", path.display()))?;
    if !meta.is_file() {
        bail!("{} is not a regular file: refused", path.display());
    }
    if meta.len() > MAX_TREE_FILE {
        bail!(
            "{} has {} bytes, more than any upstream file ({MAX_TREE_FILE}): refused",
            path.display(),
            meta.len()
        );
    }
    let mut f = fs::File::open(&real).with_context(|| format!("opening {}", path.display()))?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    (&mut f)
        .take(MAX_TREE_FILE + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", path.display()))?;
    Ok(bytes)
}

/// [`read_tree_file`] as text.
pub fn read_tree_text(root: &Path, path: &Path) -> Result<String> {
    String::from_utf8(read_tree_file(root, path)?)
        .with_context(|| format!("{} is not UTF-8 text", path.display()))
}

/// A verified kernel tree.
#[derive(Debug, Clone)]
pub struct KernelTree {
    pub root: PathBuf,
    pub version: KernelVersion,
    /// The Debian package version it was extracted from
    /// (`6.12.117-1~deb12u1`), for a fetched tree.
    pub package: Option<String>,
    /// For a vendor overlay composed on a base ([`overlay::compose`]): its
    /// include directories, force-included headers and macros.
    pub overlay: Option<overlay::OverlayFlags>,
}

impl KernelTree {
    /// Opens and verifies a tree: every required file exists and the top
    /// Makefile names a version.
    pub fn open(root: &Path) -> Result<KernelTree> {
        let root = fs::canonicalize(root)
            .with_context(|| format!("kernel tree {}: no such directory", root.display()))?;
        if !root.is_dir() {
            bail!("kernel tree {}: not a directory", root.display());
        }
        for f in REQUIRED_FILES {
            let p = root.join(f);
            let inside = fs::canonicalize(&p).is_ok_and(|r| r.starts_with(&root));
            if !p.is_file() || !inside {
                if *f == "Makefile" && root.join("drivers/infiniband/hw/hfi1/qp.c").is_file() {
                    bail!(
                        "{} has an hfi1 driver but no top-level kernel Makefile: a vendor tree \
                         (such as opa-hfi1) is an overlay on a kernel; pass it as \
                         `--overlay {} --on SERIES` (or to `cargo xtask diff` as is, with --on)",
                        root.display(),
                        root.display()
                    );
                }
                bail!(
                    "{} is not a usable kernel tree: missing {}\n\
                     (pass the root of a Linux source tree, the directory holding its top Makefile)",
                    root.display(),
                    p.display()
                );
            }
        }
        let makefile = root.join("Makefile");
        let text = read_tree_text(&root, &makefile)?;
        let version = parse_makefile_version(&text)
            .with_context(|| format!("{}: not a kernel Makefile", makefile.display()))?;
        Ok(KernelTree {
            root,
            version,
            package: None,
            overlay: None,
        })
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// A file of this tree, read safely ([`read_tree_text`]).
    pub fn read_to_string(&self, path: &Path) -> Result<String> {
        read_tree_text(&self.root, path)
    }

    /// The flags of the tree's top Makefile that change the meaning of C
    /// code (for example `-funsigned-char`, added in 6.2).
    pub fn semantic_cflags(&self) -> Result<Vec<String>> {
        let text = self.read_to_string(&self.root.join("Makefile"))?;
        let mut flags = vec![];
        for f in [
            "-funsigned-char",
            "-fno-strict-overflow",
            "-fno-delete-null-pointer-checks",
            "-fno-strict-aliasing",
        ] {
            if text.contains(f) {
                flags.push(f.to_owned());
            }
        }
        Ok(flags)
    }

    /// The warning flags the tree's own kbuild compiles C code with
    /// ([`crate::kernel::kbuild::warning_flags`]).
    pub fn warning_cflags(&self) -> Result<Vec<String>> {
        let top = self.read_to_string(&self.root.join("Makefile"))?;
        let mut extrawarn = None;
        for f in crate::kernel::kbuild::WARN_FILES {
            let x = self.root.join("scripts").join(f);
            if x.exists() {
                extrawarn = Some(self.read_to_string(&x)?);
            }
        }
        Ok(crate::kernel::kbuild::warning_flags(
            &top,
            extrawarn.as_deref(),
        ))
    }
}

/// Copies a tree (regular files and directories; links are not followed,
/// so a tree's link out of itself is not copied as what it points at).
pub fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    fs::create_dir_all(to)?;
    for e in fs::read_dir(from)? {
        let e = e?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let t = e.file_type()?;
        if t.is_dir() {
            copy_tree(&src, &dst)?;
        } else if t.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(&src)?, &dst)?;
        } else if t.is_file() {
            fs::copy(&src, &dst)?;
        }
    }
    Ok(())
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

/// Where the project keeps fetched trees and built C worlds:
/// `$HFI1_CONFORMANCE_CACHE`, else `$XDG_CACHE_HOME/hfi1-conformance`, else
/// `~/.cache/hfi1-conformance`.
/// An empty variable counts as unset (as the shell's `${VAR:-…}` does).
pub fn cache_dir() -> PathBuf {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(p) = var("HFI1_CONFORMANCE_CACHE") {
        return PathBuf::from(p);
    }
    if let Some(p) = var("XDG_CACHE_HOME") {
        return PathBuf::from(p).join("hfi1-conformance");
    }
    if let Some(p) = var("HOME") {
        return PathBuf::from(p).join(".cache/hfi1-conformance");
    }
    std::env::temp_dir().join("hfi1-conformance")
}

/// The list of files an extraction wrote, with their sizes, kept in the
/// tree: a cached tree is used only while it still has all of them.
const FILE_LIST: &str = ".hfi1-conformance-files";

/// The first line of a tree's file list: the patterns it was extracted
/// with.
fn extract_header() -> String {
    format!("# extract {}", EXTRACT.join(" "))
}

fn list_files(root: &Path) -> Result<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<()> {
        for e in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
            let e = e?;
            let p = e.path();
            let t = e.file_type()?;
            if t.is_dir() {
                walk(root, &p, out)?;
            } else if t.is_file() {
                let rel = p.strip_prefix(root).unwrap_or(&p).display().to_string();
                if rel != FILE_LIST {
                    out.push(format!("{} {rel}", e.metadata()?.len()));
                }
            }
        }
        Ok(())
    }
    let mut out = vec![];
    walk(root, root, &mut out)?;
    out.sort();
    out.insert(0, extract_header());
    Ok(out.join("\n") + "\n")
}

/// Whether a cached tree is whole: every file its extraction wrote is
/// still there with its size.
fn cached_tree_is_whole(dest: &Path) -> bool {
    let Ok(want) = fs::read_to_string(dest.join(FILE_LIST)) else {
        return false;
    };
    // A tree extracted with other EXTRACT patterns is extracted again.
    let Some((head, want)) = want.split_once('\n') else {
        return false;
    };
    head == extract_header()
        && want.lines().all(|l| {
            l.split_once(' ').is_some_and(|(size, rel)| {
                fs::metadata(dest.join(rel))
                    .is_ok_and(|m| m.is_file() && m.len().to_string() == size)
            })
        })
}

/// A kernel as a user names it: a series (`6.12`, its pinned version) or
/// an exact Debian version of one (`6.1=6.1.180-1~deb11u1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelSpec {
    pub series: String,
    /// `None`: the series' pinned version.
    pub version: Option<String>,
}

impl KernelSpec {
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
                self::series().join(", ")
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

/// The project's private apt configuration: its own sources list (every
/// suite of [`SUITES`]), lists, cache and status file under the cache.
struct PrivateApt {
    dir: PathBuf,
}

impl PrivateApt {
    fn new() -> Result<PrivateApt> {
        let dir = cache_dir().join("apt").join("debian");
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
        Ok(PrivateApt { dir })
    }

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
    fn update(&self, max_age: Option<std::time::Duration>) -> Result<()> {
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
        run(
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
    fn versions(&self, series: &str) -> Result<Vec<(String, String)>> {
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
    fn all_series(&self) -> Result<Vec<String>> {
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
}

fn whoami() -> String {
    std::env::var("USER").unwrap_or_else(|_| "root".into())
}

fn run(cmd: &mut Command, what: &str) -> Result<()> {
    let status = cmd
        .status()
        .with_context(|| format!("{what}: could not start {:?}", cmd.get_program()))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

/// Progress lines go to stderr, so stdout stays machine-readable.
pub(crate) fn progress(msg: &str) {
    eprintln!("[kernel] {msg}");
}

/// One published version of a series, as `cargo xtask kernel list` shows
/// it.
#[derive(Debug, Clone)]
pub struct Published {
    pub series: String,
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

fn sha256_file(path: &Path) -> Result<String> {
    use sha2::{Digest, Sha256};
    let mut f = fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(h.finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>())
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

/// Adds what to do to an error met writing the cache: a read-only,
/// full or misplaced cache is the user's to fix, and the message says how.
pub fn with_cache_hint(e: anyhow::Error) -> anyhow::Error {
    use std::io::ErrorKind as K;
    let cache_fault = e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>().is_some_and(|io| {
            matches!(
                io.kind(),
                K::ReadOnlyFilesystem
                    | K::PermissionDenied
                    | K::NotADirectory
                    | K::AlreadyExists
                    | K::StorageFull
                    | K::QuotaExceeded
            )
        })
    });
    if !cache_fault {
        return e;
    }
    let dir = cache_dir();
    e.context(format!(
        "the cache {} must be a writable directory to fetch a kernel or build a world into \
         it: point HFI1_CONFORMANCE_CACHE at one (or free space there); a read-only cache \
         works once it holds what the run needs (`cargo xtask kernel fetch SERIES` and one \
         run where it is writable)",
        dir.display()
    ))
}

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
    let _lock = crate::kernel::cache_lock::FileLock::acquire(
        &kernels.join(format!(".lock-{}", version.replace(':', "%3a"))),
    )?;
    if cached_tree_is_whole(&dest) {
        return opened(&dest);
    }
    // Extractions happen under this lock: what an interrupted one left is
    // rubbish now.
    let tmp_prefix = format!(".extract-{series}-");
    if let Ok(rd) = fs::read_dir(&kernels) {
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().starts_with(&tmp_prefix) {
                let _ = fs::remove_dir_all(e.path());
            }
        }
    }
    if dest.exists() {
        progress(&format!(
            "the cached tree {} is incomplete or damaged: extracting it again",
            dest.display()
        ));
        fs::remove_dir_all(&dest).with_context(|| format!("removing {}", dest.display()))?;
    }
    let apt = PrivateApt::new()?;
    let debs = apt.dir.join("debs").join(version.replace(':', "%3a"));
    fs::create_dir_all(&debs)?;
    let find_deb = || {
        fs::read_dir(&debs).ok().and_then(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .find(|p| p.extension().is_some_and(|x| x == "deb"))
        })
    };
    let check_sum = |deb: &Path| -> Result<()> {
        let Some(want) = sha256 else { return Ok(()) };
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
    };
    if let Some(deb) = find_deb() {
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
    let pkg = format!("linux-source-{series}");
    // Lists from the last hour are good enough when they carry the
    // version; otherwise they are refreshed once.
    apt.update(Some(std::time::Duration::from_secs(3600)))?;
    if !apt.versions(series)?.iter().any(|(v, _)| v == version) {
        apt.update(None)?;
        let known = apt.versions(series)?;
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
    for e in fs::read_dir(&debs)?.flatten() {
        let _ = fs::remove_file(e.path());
    }
    // apt-get's progress goes to stderr: stdout carries reports only.
    run(
        apt.command("apt-get")
            .args(["-q", "download", &format!("{pkg}={version}")])
            .current_dir(&debs)
            .stdout(std::io::stderr()),
        &format!("apt-get download {pkg}={version}"),
    )
    .with_context(|| {
        format!(
            "Debian's lists name {pkg} {version} but the archive did not hand it over \
             (apt's message above; a superseded security update is often gone from the \
             pool): pick another version from `cargo xtask kernel list {series}`"
        )
    })?;
    let deb = find_deb().with_context(|| {
        format!(
            "apt-get download {pkg}={version} left no .deb in {}",
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

/// Pins `series` to the newest version Debian publishes (adding the
/// series if the project did not pin it): fetches it, hashes the package
/// and rewrites `snapshots/kernels.lock`. Returns the old pin and the
/// new.
pub fn update(series: &str) -> Result<(Option<pins::Pin>, pins::Pin)> {
    KernelSpec::parse(series)?;
    let apt = PrivateApt::new()?;
    apt.update(None)?;
    let newest = apt
        .versions(series)?
        .into_iter()
        .next()
        .map(|(v, _)| v)
        .with_context(|| format!("Debian publishes no linux-source-{series}"))?;
    let old = pins::pin(series)?;
    fetch_version(series, &newest, None)?;
    let debs = apt.dir.join("debs").join(newest.replace(':', "%3a"));
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

fn which(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
}

/// Extracts what the C world needs from a `linux-source-SERIES` .deb into
/// `dest`, atomically: into a temporary directory first, then renamed.
fn extract_deb(deb: &Path, series: &str, dest: &Path) -> Result<()> {
    let member = format!("./usr/src/linux-source-{series}.tar.xz");
    let top = format!("linux-source-{series}");
    // The compressed size, for the progress display.
    let listing = Command::new("dpkg-deb")
        .arg("-c")
        .arg(deb)
        .output()
        .context("dpkg-deb -c")?;
    let total: u64 = String::from_utf8_lossy(&listing.stdout)
        .lines()
        .find(|l| l.ends_with(&member))
        .and_then(|l| l.split_whitespace().nth(2)?.parse().ok())
        .with_context(|| format!("{} has no {member}", deb.display()))?;

    let parent = dest.parent().context("cache path has no parent")?;
    fs::create_dir_all(parent)?;
    let tmp = parent.join(format!(".extract-{series}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir_all(&tmp)?;

    // dpkg-deb --fsys-tarfile | tar -xO MEMBER  →  (this process, counting)
    //   →  xz -dc  |  tar -x PATTERNS
    // An archive is untrusted input too: both halves run in the sandbox,
    // the first seeing only the package, the second only the new tree.
    use crate::sandbox::{Limits, Sandbox, Spec};
    let sb = Sandbox::get()?;
    let sh = Path::new("/bin/sh");
    let mut outer = sb
        .command(&Spec::new(Limits::TOOL).read_only(deb), sh)?
        .arg("-c")
        .arg("dpkg-deb --fsys-tarfile \"$1\" | tar -xO \"$2\"")
        .arg("sh")
        .arg(crate::sandbox::absolute(deb))
        .arg(&member)
        .stdout(Stdio::piped())
        .spawn()
        .context("starting dpkg-deb")?;
    let patterns: Vec<String> = EXTRACT.iter().map(|p| format!("{top}/{p}")).collect();
    let mut inner = sb
        .command(&Spec::new(Limits::TOOL).writable(&tmp), sh)?
        .arg("-c")
        .arg("d=\"$1\"; shift; xz -dc -T0 | tar -x --no-same-owner -C \"$d\" --wildcards \"$@\"")
        .arg("sh")
        .arg(crate::sandbox::absolute(&tmp))
        .args(&patterns)
        .stdin(Stdio::piped())
        .spawn()
        .context("starting xz | tar")?;
    {
        let mut src = outer.stdout.take().context("dpkg-deb stdout")?;
        let mut dst = inner.stdin.take().context("xz stdin")?;
        let mut buf = vec![0u8; 1 << 20];
        let mut done: u64 = 0;
        let mut shown = 0;
        loop {
            let n = src.read(&mut buf)?;
            if n == 0 {
                break;
            }
            dst.write_all(&buf[..n])
                .context("unpacking failed (xz or tar exited early)")?;
            done += n as u64;
            let pct = (done * 100 / total.max(1)).min(100);
            if pct >= shown + 10 || (pct == 100 && shown < 100) {
                shown = pct - pct % 10;
                progress(&format!(
                    "extracting {top}: {pct:3}% of {} MiB",
                    total >> 20
                ));
            }
        }
    }
    let s1 = outer.wait()?;
    let s2 = inner.wait()?;
    if !s1.success() || !s2.success() {
        let _ = fs::remove_dir_all(&tmp);
        bail!("extracting {} failed", deb.display());
    }
    let extracted = tmp.join(&top);
    fs::write(extracted.join(FILE_LIST), list_files(&extracted)?)
        .with_context(|| format!("writing the file list of {}", extracted.display()))?;
    match fs::rename(&extracted, dest) {
        Ok(()) => {}
        // Another process won the race: its tree is as good as ours.
        Err(_) if dest.join("Makefile").is_file() => {}
        Err(e) => {
            let _ = fs::remove_dir_all(&tmp);
            return Err(e).with_context(|| format!("moving the tree to {}", dest.display()));
        }
    }
    let _ = fs::remove_dir_all(&tmp);
    Ok(())
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

    #[test]
    fn a_directory_without_qp_c_is_named() {
        let dir = std::env::temp_dir().join(format!("hfi1-notree-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("tmp");
        fs::write(
            dir.join("Makefile"),
            "VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\n",
        )
        .expect("write");
        let e = KernelTree::open(&dir).expect_err("not a tree");
        assert!(
            e.to_string().contains("missing") && e.to_string().contains("hfi1/qp.c"),
            "{e}"
        );
        let _ = fs::remove_dir_all(&dir);
    }

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

    #[test]
    fn unknown_series_says_what_to_do() {
        let e = fetch("5.4").expect_err("unknown");
        assert!(e.to_string().contains("--kernel-src"), "{e}");
    }
}
