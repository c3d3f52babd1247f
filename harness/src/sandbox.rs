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

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use anyhow::{bail, Context, Result};

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

    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Spec {
        self.env.push((key.into(), value.into()));
        self
    }

    pub fn cwd(mut self, dir: impl AsRef<Path>) -> Spec {
        self.cwd = Some(absolute(dir.as_ref()));
        self
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }
}

pub fn absolute(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| {
        if p.is_absolute() {
            p.to_owned()
        } else {
            std::env::current_dir().unwrap_or_default().join(p)
        }
    })
}

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
        bwrap: PathBuf,
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

pub(crate) fn which(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
}

pub(crate) fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

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
            Sandbox::Off => {
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
            Sandbox::Bwrap { bwrap, setpriv } => {
                for w in &spec.writable {
                    hand_over(w)?;
                }
                let mut c = Command::new(bwrap);
                c.env_clear();
                base_env(&mut c);
                c.args([
                    "--unshare-net",
                    "--unshare-ipc",
                    "--unshare-uts",
                    "--unshare-pid",
                ])
                .args([
                    "--unshare-cgroup-try",
                    "--die-with-parent",
                    "--new-session",
                ]);
                if setpriv.is_none() {
                    c.args(["--unshare-user", "--disable-userns", "--cap-drop", "ALL"]);
                }
                c.args(["--dev", "/dev", "--proc", "/proc"]);
                c.args(["--size", &(256u64 << 20).to_string(), "--perms", "01777"])
                    .args(["--tmpfs", "/tmp"]);
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
                    Some(setpriv) => {
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
                        .args([
                            "--cap-drop",
                            "ALL",
                            "--die-with-parent",
                            "--bind",
                            "/",
                            "/",
                        ]);
                        if let Some(d) = &spec.cwd {
                            c.arg("--chdir").arg(d);
                        }
                        for (k, v) in &spec.env {
                            c.arg("--setenv").arg(k).arg(v);
                        }
                        c.arg("--").arg(program);
                    }
                }
                c
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

fn base_env(c: &mut Command) {
    c.env("PATH", "/usr/bin:/bin")
        .env("LC_ALL", "C")
        .env("TMPDIR", "/tmp");
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

/// The environment variable that tells a worker to confine itself.
pub const CONFINE_ENV: &str = "HFI1_CONFORMANCE_CONFINE";

/// The system calls a worker refuses, with the name a report gives them.
/// Upstream code and the shim need none of them; each is a way out of the
/// sandbox or a way around its accounting.
const DENIED: &[(&str, libc::c_long)] = &[
    ("socket", libc::SYS_socket),
    ("socketpair", libc::SYS_socketpair),
    ("connect", libc::SYS_connect),
    ("bind", libc::SYS_bind),
    ("listen", libc::SYS_listen),
    ("accept", libc::SYS_accept),
    ("accept4", libc::SYS_accept4),
    ("execve", libc::SYS_execve),
    ("execveat", libc::SYS_execveat),
    ("fork", libc::SYS_fork),
    ("vfork", libc::SYS_vfork),
    ("ptrace", libc::SYS_ptrace),
    ("process_vm_readv", libc::SYS_process_vm_readv),
    ("process_vm_writev", libc::SYS_process_vm_writev),
    ("mount", libc::SYS_mount),
    ("umount2", libc::SYS_umount2),
    ("pivot_root", libc::SYS_pivot_root),
    ("chroot", libc::SYS_chroot),
    ("unshare", libc::SYS_unshare),
    ("setns", libc::SYS_setns),
    ("bpf", libc::SYS_bpf),
    ("perf_event_open", libc::SYS_perf_event_open),
    ("keyctl", libc::SYS_keyctl),
    ("add_key", libc::SYS_add_key),
    ("request_key", libc::SYS_request_key),
    ("init_module", libc::SYS_init_module),
    ("finit_module", libc::SYS_finit_module),
    ("delete_module", libc::SYS_delete_module),
    ("kexec_load", libc::SYS_kexec_load),
    ("io_uring_setup", libc::SYS_io_uring_setup),
    ("userfaultfd", libc::SYS_userfaultfd),
    ("personality", libc::SYS_personality),
];

/// The name of a denied system call.
pub fn denied_name(nr: libc::c_long) -> Option<&'static str> {
    if nr == libc::SYS_clone {
        return Some("clone (a new process)");
    }
    DENIED.iter().find(|d| d.1 == nr).map(|d| d.0)
}

/// The line a confined worker writes to stderr when it stops on a denied
/// system call; `cworld` finds it in the worker's log.
pub const DENIED_MARK: &str = "hfi1 worker: denied: ";

extern "C" fn on_sigsys(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // The kernel's siginfo for SIGSYS: si_syscall is an int at offset 24 on
    // x86-64 and aarch64 (after si_call_addr); the libc crate has no
    // accessor.
    // SAFETY: the kernel passes a valid siginfo_t to an SA_SIGINFO handler.
    let nr = unsafe { *(info as *const u8).add(24).cast::<libc::c_int>() } as libc::c_long;
    let name = denied_name(nr).unwrap_or("a system call the sandbox refuses");
    let mut buf = [0u8; 128];
    let mut n = 0;
    for part in [DENIED_MARK.as_bytes(), name.as_bytes(), b"\n"] {
        for b in part {
            if n < buf.len() {
                buf[n] = *b;
                n += 1;
            }
        }
    }
    // SAFETY: write and _exit are async-signal-safe.
    unsafe {
        libc::write(2, buf.as_ptr().cast(), n);
        libc::_exit(125);
    }
}

/// Confines this (worker) process before it loads a world: a seccomp filter
/// that stops the process on every system call in [`DENIED`] and on `clone`
/// without `CLONE_THREAD` (threads stay possible: ASan's RSS limit uses
/// one), after writing `hfi1 worker: denied: NAME` to stderr; `clone3`
/// fails with ENOSYS so that the C library falls back to `clone`, whose
/// flags a filter can see.
pub fn confine_worker() -> Result<()> {
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule,
    };
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|e| anyhow::anyhow!("seccomp on {}: {e:?}", std::env::consts::ARCH))?;
    let mut rules: std::collections::BTreeMap<i64, Vec<SeccompRule>> =
        DENIED.iter().map(|(_, nr)| (*nr, vec![])).collect();
    let new_process = SeccompCondition::new(
        0,
        SeccompCmpArgLen::Qword,
        SeccompCmpOp::MaskedEq(libc::CLONE_THREAD as u64),
        0,
    )
    .map_err(|e| anyhow::anyhow!("seccomp condition: {e:?}"))?;
    rules.insert(
        libc::SYS_clone,
        vec![SeccompRule::new(vec![new_process])
            .map_err(|e| anyhow::anyhow!("seccomp rule: {e:?}"))?],
    );
    let trap: BpfProgram =
        SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Trap, arch)
            .and_then(|f| f.try_into())
            .map_err(|e| anyhow::anyhow!("seccomp filter: {e:?}"))?;
    let clone3: BpfProgram = SeccompFilter::new(
        [(libc::SYS_clone3, vec![])].into_iter().collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )
    .and_then(|f| f.try_into())
    .map_err(|e| anyhow::anyhow!("seccomp filter: {e:?}"))?;
    // SAFETY: installs a handler for SIGSYS that only uses
    // async-signal-safe calls.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_sigsys as *const () as usize;
        sa.sa_flags = libc::SA_SIGINFO;
        if libc::sigaction(libc::SIGSYS, &sa, std::ptr::null_mut()) != 0 {
            bail!("sigaction(SIGSYS): {}", std::io::Error::last_os_error());
        }
    }
    seccompiler::apply_filter(&clone3).map_err(|e| anyhow::anyhow!("seccomp: {e}"))?;
    seccompiler::apply_filter(&trap).map_err(|e| anyhow::anyhow!("seccomp: {e}"))?;
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

    #[test]
    fn every_denied_call_has_a_name() {
        for (name, nr) in DENIED {
            assert_eq!(denied_name(*nr), Some(*name));
        }
        assert_eq!(denied_name(libc::SYS_read), None);
    }
}
