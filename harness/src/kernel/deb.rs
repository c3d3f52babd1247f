//! Debian's `linux-source-SERIES` package, unpacked: what of it a tree
//! keeps, unpacking it in the sandbox, and the file list that tells a
//! whole cached tree from a damaged one.

use fs_err as fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};

use anyhow::{bail, Context, Result};

use super::{names, progress};
use crate::sandbox::{self, Limits, Sandbox, Spec};

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

/// Whether `path` (relative to a tree's root) is in the part of the
/// kernel the harness extracts ([`EXTRACT`], `*` matching any run of
/// characters, `/` included, as tar's member wildcards do).
pub fn extracted(path: &str) -> bool {
    fn glob(p: &[u8], s: &[u8]) -> bool {
        match p.split_first() {
            None => s.is_empty(),
            Some((b'*', rest)) => (0..=s.len()).any(|i| glob(rest, &s[i..])),
            Some((c, rest)) => s.first() == Some(c) && glob(rest, &s[1..]),
        }
    }
    EXTRACT.iter().any(|p| glob(p.as_bytes(), path.as_bytes()))
}

/// The list of files an extraction wrote, with their sizes, kept in the
/// tree: a cached tree is used only while it still has all of them.
const FILE_LIST: &str = ".hfi1-conformance-files";

/// The first line of a tree's file list: the patterns it was extracted
/// with, and that it has an index of its headers' names.
fn file_list_header() -> String {
    format!("# extract {} + {}", EXTRACT.join(" "), names::INDEX_HEADER)
}

/// The file list of the tree at `root`: its header, then every file's
/// size and path.
fn file_list(root: &Path) -> Result<String> {
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
    out.insert(0, file_list_header());
    Ok(out.join("\n") + "\n")
}

/// Whether a cached tree is whole: every file its extraction wrote is
/// still there with its size.
pub(super) fn cached_tree_is_whole(dest: &Path) -> bool {
    let Ok(want) = fs::read_to_string(dest.join(FILE_LIST)) else {
        return false;
    };
    // A tree extracted with other EXTRACT patterns is extracted again.
    let Some((head, want)) = want.split_once('\n') else {
        return false;
    };
    head == file_list_header()
        && want.lines().all(|l| {
            l.split_once(' ').is_some_and(|(size, rel)| {
                fs::metadata(dest.join(rel))
                    .is_ok_and(|m| m.is_file() && m.len().to_string() == size)
            })
        })
}

/// The SHA-256 of a file, lower-case hex.
pub(super) fn sha256_file(path: &Path) -> Result<String> {
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

/// Extracts what the C world needs from a `linux-source-SERIES` .deb into
/// `dest`, atomically: into a temporary directory first, then renamed.
pub(super) fn extract_deb(deb: &Path, series: &str, dest: &Path) -> Result<()> {
    let member = format!("./usr/src/linux-source-{series}.tar.xz");
    let top = format!("linux-source-{series}");
    // The compressed size, for the progress display.
    let total = member_size(deb, &member)?;
    let parent = dest.parent().context("cache path has no parent")?;
    fs::create_dir_all(parent)?;
    let tmp = parent.join(format!(".extract-{series}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir_all(&tmp)?;

    // dpkg-deb --fsys-tarfile | tar -xO MEMBER  →  (this process, counting)
    //   →  xz -dc  |  tar -x PATTERNS
    // An archive is untrusted input too: both halves run in the sandbox,
    // the first seeing only the package, the second only the new tree.
    let sb = Sandbox::get()?;
    let sh = Path::new("/bin/sh");
    let mut outer = sb
        .command(&Spec::new(Limits::TOOL).read_only(deb), sh)?
        .arg("-c")
        .arg("dpkg-deb --fsys-tarfile \"$1\" | tar -xO \"$2\"")
        .arg("sh")
        .arg(sandbox::absolute(deb))
        .arg(&member)
        .stdout(Stdio::piped())
        .spawn()
        .context("starting dpkg-deb")?;
    // The generic headers too, for the index of their names; they are
    // removed once it is written.
    let patterns: Vec<String> = EXTRACT
        .iter()
        .map(|p| format!("{top}/{p}"))
        .chain(names::HEADER_DIRS.iter().map(|d| format!("{top}/{d}/*")))
        .collect();
    let mut inner = sb
        .command(&Spec::new(Limits::TOOL).writable(&tmp), sh)?
        .arg("-c")
        .arg("d=\"$1\"; shift; xz -dc -T0 | tar -x --no-same-owner -C \"$d\" --wildcards \"$@\"")
        .arg("sh")
        .arg(sandbox::absolute(&tmp))
        .args(&patterns)
        .stdin(Stdio::piped())
        .spawn()
        .context("starting xz | tar")?;
    let src = outer.stdout.take().context("dpkg-deb stdout")?;
    let dst = inner.stdin.take().context("xz stdin")?;
    pass_with_progress(src, dst, total, &top)?;
    let s1 = outer.wait()?;
    let s2 = inner.wait()?;
    if !s1.success() || !s2.success() {
        let _ = fs::remove_dir_all(&tmp);
        bail!("extracting {} failed", deb.display());
    }
    let extracted = tmp.join(&top);
    names::write_index(&extracted, &self::extracted)
        .with_context(|| format!("indexing the headers of {}", extracted.display()))?;
    prune(&extracted, &extracted)?;
    fs::write(extracted.join(FILE_LIST), file_list(&extracted)?)
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

/// Removes what of the tree at `root` (from `dir` down) is neither
/// [`extracted`] nor its index of names: the headers the index was made
/// from. Directories left empty go too.
fn prune(root: &Path, dir: &Path) -> Result<()> {
    for e in fs::read_dir(dir)? {
        let e = e?;
        let p = e.path();
        if e.file_type()?.is_dir() {
            prune(root, &p)?;
            if fs::read_dir(&p)?.next().is_none() {
                fs::remove_dir(&p)?;
            }
            continue;
        }
        let rel = p.strip_prefix(root).unwrap_or(&p).to_string_lossy();
        if rel != names::INDEX_FILE && !extracted(&rel) {
            fs::remove_file(&p)?;
        }
    }
    Ok(())
}

/// The size of `member` in the package `deb`, as `dpkg-deb -c` lists it.
fn member_size(deb: &Path, member: &str) -> Result<u64> {
    let listing = Command::new("dpkg-deb")
        .arg("-c")
        .arg(deb)
        .output()
        .context("dpkg-deb -c")?;
    String::from_utf8_lossy(&listing.stdout)
        .lines()
        .find(|l| l.ends_with(member))
        .and_then(|l| l.split_whitespace().nth(2)?.parse().ok())
        .with_context(|| format!("{} has no {member}", deb.display()))
}

/// Passes the compressed tree from `src` to `dst`, saying every tenth of
/// `total` bytes how far it got; `dst` is closed at the end, so that the
/// unpacker sees the end of its input.
fn pass_with_progress(
    mut src: ChildStdout,
    mut dst: ChildStdin,
    total: u64,
    top: &str,
) -> Result<()> {
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
    Ok(())
}

/// The package kept in `debs` (the directory of one version), if any.
pub(super) fn kept_deb(debs: &Path) -> Option<PathBuf> {
    fs::read_dir(debs).ok().and_then(|rd| {
        rd.flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "deb"))
    })
}

#[cfg(test)]
mod tests {
    use super::extracted;

    #[test]
    fn the_extracted_part_is_what_tar_extracts() {
        for p in [
            "Makefile",
            "drivers/infiniband/hw/hfi1/qp.c",
            "drivers/infiniband/sw/rdmavt/qp.h",
            "include/uapi/rdma/ib_user_verbs.h",
            "scripts/Makefile.extrawarn",
        ] {
            assert!(extracted(p), "{p}");
        }
        for p in [
            "drivers/infiniband/hw/hfi1",
            "drivers/infiniband/hw/hfi1x/a.c",
            "include/linux/list.h",
            "scripts/checkpatch.pl",
            "Makefile.old",
        ] {
            assert!(!extracted(p), "{p}");
        }
    }
}
