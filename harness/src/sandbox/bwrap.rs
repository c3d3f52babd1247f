//! bubblewrap's command line for a step: the namespaces, what the step
//! sees mounted where, and (as root) the second, unprivileged stage.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use super::{base_env, is_root, Spec, SANDBOX_ID};

/// `program` run by `bwrap` in the sandbox `spec` describes; with
/// `setpriv` (running as root), in the two-stage form: the outer
/// bubblewrap mounts, `setpriv` drops to the sandbox uid, the inner
/// bubblewrap makes the user namespace.
pub(super) fn command(
    bwrap: &Path,
    setpriv: Option<&Path>,
    spec: &Spec,
    program: &Path,
) -> Result<Command> {
    for w in &spec.writable {
        hand_over(w)?;
    }
    let mut c = Command::new(bwrap);
    c.env_clear();
    base_env(&mut c);
    namespaces(&mut c, setpriv.is_none());
    mounts(&mut c, spec);
    if let Some(d) = &spec.cwd {
        c.arg("--chdir").arg(d);
    }
    match setpriv {
        None => {
            for (k, v) in &spec.env {
                c.arg("--setenv").arg(k).arg(v);
            }
            c.arg("--").arg(program);
        }
        Some(setpriv) => unprivileged_stage(&mut c, bwrap, setpriv, spec, program),
    }
    Ok(c)
}

/// The namespaces of a step (a user namespace here unless `setpriv`'s
/// inner stage makes it), its own `/dev`, `/proc` and a small `/tmp`.
fn namespaces(c: &mut Command, user_namespace: bool) {
    c.args([
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-pid",
    ])
    .args(["--unshare-cgroup-try", "--die-with-parent", "--new-session"]);
    if user_namespace {
        c.args(["--unshare-user", "--disable-userns", "--cap-drop", "ALL"]);
    }
    c.args(["--dev", "/dev", "--proc", "/proc"]);
    c.args(["--size", &(256u64 << 20).to_string(), "--perms", "01777"])
        .args(["--tmpfs", "/tmp"]);
}

/// What a step sees: the toolchain and `spec`'s paths bound read-only or
/// writable at their own paths, the directories on the way to them, and
/// the usual links into `/usr`.
fn mounts(c: &mut Command, spec: &Spec) {
    let system: Vec<PathBuf> = ["/usr/bin", "/usr/lib", "/usr/libexec", "/usr/lib64"]
        .iter()
        .chain(["/etc/ld.so.cache"].iter())
        .map(PathBuf::from)
        .filter(|p| p.exists())
        .collect();
    let mut binds: Vec<(&PathBuf, &str)> = system
        .iter()
        .chain(spec.read_only.iter())
        .map(|p| (p, "--ro-bind"))
        .chain(spec.writable.iter().map(|p| (p, "--bind")))
        .collect();
    binds.sort();
    // Mount points are made by bubblewrap as root with mode 0700,
    // which the sandbox uid could not walk through: make every
    // directory on the way explicitly, parents first.
    let mut dirs = std::collections::BTreeSet::new();
    for (t, _) in &binds {
        for a in t.ancestors().skip(1) {
            let special = ["/", "/tmp", "/dev", "/proc"]
                .iter()
                .any(|s| a == Path::new(s));
            if !special && !binds.iter().any(|(b, _)| a.starts_with(b)) {
                dirs.insert(a.to_owned());
            }
        }
    }
    for d in &dirs {
        c.args(["--perms", "0755", "--dir"]).arg(d);
    }
    for (p, how) in &binds {
        let src = spec
            .sources
            .iter()
            .find(|(d, _)| d == *p)
            .map_or(p.as_path(), |(_, s)| s.as_path());
        c.arg(how).arg(src).arg(p);
    }
    for (link, to) in [
        ("/bin", "usr/bin"),
        ("/lib", "usr/lib"),
        ("/lib64", "usr/lib64"),
        ("/sbin", "usr/bin"),
    ] {
        c.args(["--symlink", to, link]);
    }
}

/// The second stage, run as root's step: `setpriv` drops to the sandbox
/// uid with no capabilities, then an inner bubblewrap makes the user
/// namespace (so the kernel accounts the step's processes to that uid)
/// and runs `program` with `spec`'s environment.
fn unprivileged_stage(c: &mut Command, bwrap: &Path, setpriv: &Path, spec: &Spec, program: &Path) {
    let id = SANDBOX_ID.to_string();
    c.arg("--").arg(setpriv);
    c.args(["--reuid", &id, "--regid", &id, "--clear-groups"])
        .args(["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]);
    c.arg("--").arg(bwrap);
    c.args([
        "--unshare-user",
        "--disable-userns",
        "--uid",
        &id,
        "--gid",
        &id,
    ])
    .args(["--cap-drop", "ALL", "--die-with-parent", "--bind", "/", "/"]);
    if let Some(d) = &spec.cwd {
        c.arg("--chdir").arg(d);
    }
    for (k, v) in &spec.env {
        c.arg("--setenv").arg(k).arg(v);
    }
    c.arg("--").arg(program);
}

/// Gives a writable directory (and what is in it) to the sandbox uid, when
/// running as root: the sandbox cannot write anything root keeps.
fn hand_over(path: &Path) -> Result<()> {
    if !is_root() {
        return Ok(());
    }
    fn chown(p: &Path) -> Result<()> {
        std::os::unix::fs::lchown(p, Some(SANDBOX_ID), Some(SANDBOX_ID))
            .with_context(|| format!("handing {} to the sandbox uid", p.display()))?;
        if p.is_dir() && !p.is_symlink() {
            for e in std::fs::read_dir(p)? {
                chown(&e?.path())?;
            }
        }
        Ok(())
    }
    chown(path)
}
