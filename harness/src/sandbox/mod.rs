//! The sandbox every untrusted step runs in: compiling and linking a C
//! world, reading its objects, unpacking a Debian package, and the worker
//! process that loads the world and calls upstream.
//!
//! The mechanism is [bubblewrap] (Debian's `bubblewrap`, Flatpak's
//! sandbox): a maintained, small, setuid-free tool that builds namespaces
//! and bind mounts from a command line, so this module only decides *what*
//! a step may see. A step sees:
//!
//! - the toolchain read-only (`/usr/bin`, `/usr/lib`, `/usr/libexec`,
//!   `/usr/lib64`, `/etc/ld.so.cache`), nothing else of `/etc`, no `$HOME`;
//! - the paths its [`Spec`] names, at their own absolute paths (so compiler
//!   messages name the real files), read-only unless said otherwise;
//! - a private `/tmp` (a small tmpfs), `/dev` with only the null-type
//!   devices, its own `/proc`;
//! - its own network namespace (no interface but a down loopback), IPC,
//!   UTS and PID namespaces; `--new-session` (no terminal injection);
//!   `--die-with-parent`.
//!
//! **No privileges.** A step runs as an unprivileged uid inside a user
//! namespace with every capability dropped and `no_new_privs` set. As a
//! normal user that is bubblewrap's default: the user namespace maps the
//! sandbox onto the user's own uid. As root (CI, many users) a user
//! namespace alone would map the sandbox onto root's kuid 0, which the
//! kernel exempts from `RLIMIT_NPROC`; so the outer bubblewrap (privileged,
//! it makes the mounts, which root can see) runs `setpriv` to become
//! `nobody` (65534) with an empty bounding set, and an inner bubblewrap
//! makes the user namespace. The uid is then `nobody` both inside and in the
//! kernel's accounting, and the process limit holds.
//!
//! **Limits** ([`Limits`]) are resource limits set on the outermost process
//! and inherited: address space (not under ASan, whose shadow memory needs
//! terabytes of address space: the worker passes ASan's own allocation and
//! RSS limits instead, see `cworld`), CPU seconds, file size, and (as root)
//! the process count of the sandbox uid; no core files.
//!
//! **Fail closed.** When bubblewrap is missing or cannot build a sandbox
//! here, [`Sandbox::get`] says why and what to install; only an explicit
//! [`allow_unsandboxed`] (the xtask's loud `--no-sandbox`) runs steps bare.
//!
//! The worker adds a seccomp filter of its own before it loads a world
//! ([`confine_worker`]): upstream code never opens sockets, starts
//! programs, forks, traces or mounts, so those system calls stop the worker
//! with a report naming the call (`denied: connect`), which the harness
//! turns into a finding for the vector (or a world that cannot be judged,
//! when load-time code does it).
//!
//! [bubblewrap]: https://github.com/containers/bubblewrap
//!
//! By job: this module decides what a step sees ([`Spec`], [`Limits`]) and
//! finds the sandbox ([`Sandbox::get`]); `bwrap` writes bubblewrap's
//! command line; `confine` is the worker's seccomp filter.

mod bwrap;
mod confine;

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use anyhow::{bail, Context, Result};

pub use confine::{confine_worker, denied_name, CONFINE_ENV, DENIED_MARK};

/// The uid and gid a step runs as when the harness runs as root.
pub const SANDBOX_ID: u32 = 65534;

/// What a step may use.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Address-space bytes (`RLIMIT_AS`); `None` under ASan.
    pub address_space: Option<u64>,
    /// CPU seconds (`RLIMIT_CPU`).
    pub cpu_seconds: u64,
    /// Largest file the step may write (`RLIMIT_FSIZE`).
    pub file_size: u64,
    /// Processes of the sandbox uid (`RLIMIT_NPROC`), applied when running
    /// as root (where the uid is `nobody`'s alone).
    pub processes: u64,
}

impl Limits {
    /// A compiler, linker or archive tool.
    pub const TOOL: Limits = Limits {
        address_space: Some(4 << 30),
        cpu_seconds: 600,
        file_size: 1 << 30,
        processes: 256,
    };
    /// A worker: one process, calls of microseconds (the per-call watchdog
    /// catches a hang long before the CPU limit, which bounds a whole run).
    pub const WORKER: Limits = Limits {
        address_space: Some(4 << 30),
        cpu_seconds: 4 * 3600,
        file_size: 256 << 20,
        processes: 256,
    };
}

/// One sandboxed step: what it sees and may use.
#[derive(Debug, Clone)]
pub struct Spec {
    read_only: Vec<PathBuf>,
    /// Where a bind's content comes from when it is not its own path
    /// (destination, source).
    sources: Vec<(PathBuf, PathBuf)>,
    writable: Vec<PathBuf>,
    env: Vec<(OsString, OsString)>,
    cwd: Option<PathBuf>,
    limits: Limits,
}

impl Spec {
    /// A step that sees only the toolchain, under `limits`.
    pub fn new(limits: Limits) -> Spec {
        Spec {
            read_only: vec![],
            sources: vec![],
            writable: vec![],
            env: vec![],
            cwd: None,
            limits,
        }
    }

    /// Makes `path` (a file or directory) visible read-only at its own
    /// absolute path.
    pub fn read_only(mut self, path: impl AsRef<Path>) -> Spec {
        self.read_only.push(absolute(path.as_ref()));
        self
    }

    /// Makes the file `source` visible read-only at `path` (say the running
    /// executable, bound from `/proc/PID/exe`, which stays the same file
    /// when a rebuild replaces the one at its path).
    pub fn read_only_from(mut self, path: impl AsRef<Path>, source: impl AsRef<Path>) -> Spec {
        let path = absolute(path.as_ref());
        self.sources
            .push((path.clone(), source.as_ref().to_owned()));
        self.read_only.push(path);
        self
    }

    /// Makes `path` visible and writable at its own absolute path. When the
    /// harness runs as root it is handed to the sandbox uid first.
    pub fn writable(mut self, path: impl AsRef<Path>) -> Spec {
        self.writable.push(absolute(path.as_ref()));
        self
    }

    /// Sets an environment variable of the step (its environment is
    /// these alone, with `PATH`, `LC_ALL` and `TMPDIR`).
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Spec {
        self.env.push((key.into(), value.into()));
        self
    }

    /// The directory the step starts in.
    pub fn cwd(mut self, dir: impl AsRef<Path>) -> Spec {
        self.cwd = Some(absolute(dir.as_ref()));
        self
    }

    /// What the step may use.
    pub fn limits(&self) -> Limits {
        self.limits
    }
}

/// `p` as an absolute path: canonical if it exists, else joined to the
/// current directory.
pub fn absolute(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| {
        if p.is_absolute() {
            p.to_owned()
        } else {
            std::env::current_dir().unwrap_or_default().join(p)
        }
    })
}

/// Set by [`allow_unsandboxed`].
static UNSANDBOXED: AtomicBool = AtomicBool::new(false);

/// Runs every later step without a sandbox (the xtask's `--no-sandbox`).
/// Says so on stderr: it is only for trees whose code you have reviewed.
pub fn allow_unsandboxed() {
    if !UNSANDBOXED.swap(true, Ordering::SeqCst) {
        eprintln!(
            "WARNING: --no-sandbox: compiling and running C worlds with this user's rights, \
             network and files. Only do this for trees whose code you have read."
        );
    }
}

/// How steps are contained on this machine.
#[derive(Debug)]
pub enum Sandbox {
    /// bubblewrap; with `setpriv` (running as root): the two-stage form
    /// described above.
    Bwrap {
        /// The `bwrap` program.
        bwrap: PathBuf,
        /// The `setpriv` program, when running as root.
        setpriv: Option<PathBuf>,
    },
    /// `--no-sandbox`.
    Off,
}

/// Where the kernel's `bwrap` is; `HFI1_BWRAP` names another one.
fn find_bwrap() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("HFI1_BWRAP") {
        return Some(PathBuf::from(p));
    }
    // Run by setpriv or from inside a namespace: at its real place, not at
    // a link in a directory the unprivileged stage may not reach.
    which("bwrap").map(|p| std::fs::canonicalize(&p).unwrap_or(p))
}

/// Where `tool` is on `PATH`.
pub(crate) fn which(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
}

/// Whether this process runs as root.
pub(crate) fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// What to install, for the errors that say the sandbox is missing.
const INSTALL: &str = "install bubblewrap (Debian: apt-get install bubblewrap)";

impl Sandbox {
    /// The sandbox of this process, set up and tried once. An error says
    /// why it cannot be had and what to do; callers must not run a tree
    /// then (fail closed).
    pub fn get() -> Result<&'static Sandbox> {
        if UNSANDBOXED.load(Ordering::SeqCst) {
            static OFF: Sandbox = Sandbox::Off;
            return Ok(&OFF);
        }
        static PROBED: OnceLock<Result<Sandbox, String>> = OnceLock::new();
        PROBED
            .get_or_init(|| Sandbox::probe(find_bwrap()).map_err(|e| format!("{e:#}")))
            .as_ref()
            .map_err(|e| anyhow::anyhow!("{e}"))
    }

    /// Sets up the sandbox with `bwrap` (installing bubblewrap as root if
    /// there is none) and tries it once.
    fn probe(bwrap: Option<PathBuf>) -> Result<Sandbox> {
        let bwrap = match bwrap {
            Some(b) if b.is_file() => b,
            Some(b) => bail!(
                "the sandbox for untrusted C code cannot be set up: {} does not exist; {INSTALL}, \
                 or pass --no-sandbox to run trees you have reviewed without it",
                b.display()
            ),
            None if is_root() && which("apt-get").is_some() => {
                eprintln!("[sandbox] bubblewrap is missing: apt-get install bubblewrap");
                let ok = Command::new("apt-get")
                    .args([
                        "install",
                        "-y",
                        "-q",
                        "--no-install-recommends",
                        "bubblewrap",
                    ])
                    .env("DEBIAN_FRONTEND", "noninteractive")
                    .stdin(Stdio::null())
                    .stdout(std::io::stderr())
                    .status()
                    .map(|s| s.success())
                    .unwrap_or(false);
                match find_bwrap() {
                    Some(b) if ok => b,
                    _ => bail!(
                        "the sandbox for untrusted C code needs bubblewrap, and `apt-get install \
                         bubblewrap` failed; {INSTALL} by hand (after `apt-get update`), or pass \
                         --no-sandbox to run trees you have reviewed without it"
                    ),
                }
            }
            None => bail!(
                "the sandbox for untrusted C code needs bubblewrap (`bwrap` is not on PATH): \
                 {INSTALL}, or pass --no-sandbox to run trees you have reviewed without it"
            ),
        };
        let setpriv =
            if is_root() {
                // Run inside the sandbox: at its real place, which the
                // sandbox binds, not at a link in a directory it may not.
                Some(which("setpriv").map(|p| std::fs::canonicalize(&p).unwrap_or(p)).context(
                "running as root, the sandbox drops to an unprivileged uid with setpriv, \
                 which is missing: apt-get install util-linux",
            )?)
            } else {
                None
            };
        let sb = Sandbox::Bwrap { bwrap, setpriv };
        // Try it: user namespaces may be off (kernel.unprivileged_userns_clone
        // or user.max_user_namespaces = 0), or a container may forbid mounts.
        let out = sb
            .command(&Spec::new(Limits::TOOL), Path::new("/usr/bin/true"))?
            .stdin(Stdio::null())
            .output()
            .context("starting bwrap")?;
        if !out.status.success() {
            bail!(
                "the sandbox for untrusted C code cannot be set up on this machine ({}): {}\n\
                 bubblewrap needs user namespaces (sysctl user.max_user_namespaces > 0, and on \
                 Debian kernel.unprivileged_userns_clone = 1); fix that, or pass --no-sandbox to \
                 run trees you have reviewed without it",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(sb)
    }

    /// Whether steps are contained.
    pub fn is_on(&self) -> bool {
        matches!(self, Sandbox::Bwrap { .. })
    }

    /// A command running `program` (an absolute path) inside the sandbox
    /// `spec` describes. Add arguments, stdio and spawn as usual; the
    /// environment is `spec`'s alone (plus `PATH`, `LC_ALL=C`, `TMPDIR`).
    pub fn command(&self, spec: &Spec, program: &Path) -> Result<Command> {
        let limits = spec.limits;
        let mut cmd = match self {
            Sandbox::Off => bare_command(spec, program),
            Sandbox::Bwrap { bwrap, setpriv } => {
                bwrap::command(bwrap, setpriv.as_deref(), spec, program)?
            }
        };
        let nproc = is_root() && self.is_on();
        // SAFETY: the closure only calls setrlimit, which is
        // async-signal-safe, between fork and exec.
        unsafe {
            cmd.pre_exec(move || set_limits(&limits, nproc));
        }
        Ok(cmd)
    }
}

/// `program` run bare (`--no-sandbox`), with `spec`'s environment and
/// directory.
fn bare_command(spec: &Spec, program: &Path) -> Command {
    let mut c = Command::new(program);
    c.env_clear();
    base_env(&mut c);
    for (k, v) in &spec.env {
        c.env(k, v);
    }
    if let Some(d) = &spec.cwd {
        c.current_dir(d);
    }
    c
}

/// The environment every step starts with.
fn base_env(c: &mut Command) {
    c.env("PATH", "/usr/bin:/bin")
        .env("LC_ALL", "C")
        .env("TMPDIR", "/tmp");
}

/// Sets the resource limits `l` on this process (between fork and exec);
/// the process count only if `nproc`.
fn set_limits(l: &Limits, nproc: bool) -> std::io::Result<()> {
    fn set(res: libc::__rlimit_resource_t, v: u64) -> std::io::Result<()> {
        let r = libc::rlimit {
            rlim_cur: v,
            rlim_max: v,
        };
        // SAFETY: a valid rlimit structure.
        if unsafe { libc::setrlimit(res, &r) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
    if let Some(a) = l.address_space {
        set(libc::RLIMIT_AS, a)?;
    }
    set(libc::RLIMIT_CPU, l.cpu_seconds)?;
    set(libc::RLIMIT_FSIZE, l.file_size)?;
    set(libc::RLIMIT_CORE, 0)?;
    if nproc {
        set(libc::RLIMIT_NPROC, l.processes)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fail closed: no bubblewrap, no sandbox, and the error says what to
    /// install and how to opt out.
    #[test]
    fn a_missing_bwrap_is_an_error_that_says_what_to_do() {
        let e = Sandbox::probe(Some(PathBuf::from("/nonexistent/bwrap")))
            .expect_err("no sandbox without bwrap");
        let msg = format!("{e:#}");
        assert!(msg.contains("apt-get install bubblewrap"), "{msg}");
        assert!(msg.contains("--no-sandbox"), "{msg}");
    }

    /// A bwrap that cannot build a sandbox (here: one that always fails) is
    /// refused too, with its words.
    #[test]
    fn a_bwrap_that_fails_is_an_error() {
        let e = Sandbox::probe(Some(PathBuf::from("/usr/bin/false")))
            .expect_err("a failing bwrap is no sandbox");
        assert!(format!("{e:#}").contains("cannot be set up"), "{e:#}");
    }
}
