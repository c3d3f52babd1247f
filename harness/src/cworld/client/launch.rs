//! Starting a worker: this very program, re-executed in the sandbox with
//! its world to load and the heartbeat handed over, then waited for until
//! it says it is ready.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use anyhow::{bail, Context, Result};

use super::Worker;
use crate::cworld::build::{BuildOptions, CannotJudge, CMP_DIR_ENV};
use crate::cworld::channel::{self, Channel};
use crate::cworld::fault::Fault;
use crate::cworld::heartbeat::{HANDOVER_ENV, HANDOVER_FD};
use crate::cworld::limits::{idle_limit, load_limit};
use crate::cworld::protocol::{READY, WORKER_ENV};
use crate::sandbox::{self, Limits, Sandbox, Spec};

impl Worker {
    /// Starts the worker and waits until its world is loaded.
    pub(super) fn start(&mut self) -> Result<()> {
        let mut cmd = self.sandboxed_command()?;
        hand_over_heartbeat(&mut cmd, self.heartbeat.fd());
        self.heartbeat.set(0);
        let mut child = spawn_from_keeper(cmd)
            .with_context(|| format!("starting a worker ({})", self.exe.display()))?;
        let pipe = child.stdin.take().context("stdin")?;
        // A blocking write of a large request into the pipe of a worker
        // stuck in a call would never return: writes are non-blocking and
        // watched.
        make_nonblocking(&pipe)?;
        let from = child.stdout.take().context("stdout")?;
        let load_limit = load_limit(self.call_limit);
        let ch = Channel::new(
            pipe,
            from,
            self.heartbeat.clone(),
            self.call_limit,
            load_limit,
        );
        self.child = Some((child, ch));
        self.await_ready(load_limit)
    }

    /// The worker's command: this program, in the sandbox, told which
    /// world to serve, its stderr into the worker log.
    fn sandboxed_command(&self) -> Result<Command> {
        let sb = Sandbox::get()?;
        let log = std::fs::File::create(&self.log)
            .with_context(|| format!("creating the worker log {}", self.log.display()))?;
        let mut limits = Limits::WORKER;
        if self.opts.sanitize {
            limits.address_space = None;
        }
        // The worker runs this very program, even when a rebuild has
        // replaced the file at its path (a bot upgraded while a long sweep
        // runs): then a private copy of it is bound there.
        let mut spec = Spec::new(limits)
            .read_only_from(&self.exe, exe_source(&self.exe)?)
            .env(WORKER_ENV, &self.so)
            .env(HANDOVER_ENV, HANDOVER_FD.to_string());
        // A coverage world's counters are written next to its objects, a
        // measuring world's profiles under its `profiles/` (one per worker).
        spec = if self.opts.instruments() {
            spec.writable(&self.world_dir)
        } else {
            spec.read_only(&self.world_dir)
        };
        if self.opts.measure {
            // In the sandbox's PID namespace every worker is the same pid:
            // a name of its own, or each would overwrite the last's.
            static STARTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let n = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let name = format!("profiles/{}-{n}-%p.profraw", std::process::id());
            let profile = self.world_dir.join(name);
            spec = spec.env("LLVM_PROFILE_FILE", profile.display().to_string());
            // And the comparison recorder's table (c-shim/measure/cmp.c).
            let tables = self.world_dir.join("profiles");
            spec = spec.env(CMP_DIR_ENV, tables.display().to_string());
        }
        if sb.is_on() {
            spec = spec.env(sandbox::CONFINE_ENV, "1");
        }
        for (k, v) in &self.env {
            spec = spec.env(k, v);
        }
        let mut cmd = sb.command(&spec, &self.exe)?;
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log));
        Ok(cmd)
    }

    /// Waits for the worker's ready byte: its world is loaded. A world
    /// that cannot be loaded, or whose load-time code crashes, hangs past
    /// `load_limit` or is refused a system call, cannot be judged.
    fn await_ready(&mut self, load_limit: Duration) -> Result<()> {
        let mut ready = [0u8; 1];
        let r = self.channel()?.read_exact(&mut ready);
        match r {
            Ok(()) if ready[0] == READY => {
                if let Some((_, ch)) = self.child.as_mut() {
                    ch.idle_limit = idle_limit(self.call_limit);
                }
                Ok(())
            }
            Ok(()) => {
                let _ = self.kill();
                bail!(
                    "the worker for {} answered {:#x} instead of ready",
                    self.so.display(),
                    ready[0]
                )
            }
            Err(e) => {
                let hung = channel::stall_of(&e).is_some();
                let fault = self.stop(hung.then_some(load_limit));
                let why = match fault {
                    Fault::Hung(_) => "its load-time code did not return".to_owned(),
                    Fault::Denied(call) => {
                        format!("its load-time code made a system call the sandbox refuses: {call}")
                    }
                    Fault::Crashed(why) => format!("the worker stopped while loading it: {why}"),
                };
                // The world, not a vector, failed: the tree cannot be judged.
                Err(CannotJudge(format!(
                    "could not run the C world {}: {why}",
                    self.so.display()
                ))
                .into())
            }
        }
    }
}

/// Hands the heartbeat `fd` to the worker as descriptor
/// [`HANDOVER_FD`], without close-on-exec.
fn hand_over_heartbeat(cmd: &mut Command, fd: i32) {
    // SAFETY: dup2 and fcntl are async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            // dup2 onto itself would keep close-on-exec.
            let rc = if fd == HANDOVER_FD {
                libc::fcntl(fd, libc::F_SETFD, 0)
            } else {
                libc::dup2(fd, HANDOVER_FD)
            };
            if rc < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Makes writes into the worker's request pipe non-blocking.
fn make_nonblocking(pipe: &ChildStdin) -> Result<()> {
    use std::os::fd::AsRawFd;
    let fd = pipe.as_raw_fd();
    // SAFETY: fcntl on a descriptor this process owns.
    let ok = unsafe {
        let fl = libc::fcntl(fd, libc::F_GETFL);
        fl >= 0 && libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK) == 0
    };
    if !ok {
        bail!(
            "making the worker's pipe non-blocking: {}",
            std::io::Error::last_os_error()
        );
    }
    Ok(())
}

/// The environment a worker of a world built with `opts` needs besides
/// its own: for a sanitizer world, the sanitizer runtime preloaded and
/// its options.
pub(super) fn sanitizer_env(opts: &BuildOptions) -> Result<Vec<(String, String)>> {
    let mut env = vec![];
    if !opts.sanitize {
        return Ok(env);
    }
    // The sanitizer runtime must come first in a process that was not
    // built with it.
    let out = Command::new(std::env::var("CC").unwrap_or_else(|_| "gcc".into()))
        .arg("-print-file-name=libasan.so")
        .output()
        .context("locating libasan")?;
    let asan = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    env.push(("LD_PRELOAD".to_owned(), asan));
    // ASan's shadow needs terabytes of address space, so RLIMIT_AS cannot
    // bound its memory: its own allocator limit and RSS limit do. No
    // symbolizer: it would be a new process.
    let mb = Limits::WORKER.address_space.unwrap_or(4 << 30) >> 20;
    env.push((
        "ASAN_OPTIONS".to_owned(),
        format!(
            "detect_leaks=0:abort_on_error=1:symbolize=0:malloc_limit_mb={mb}:max_allocation_size_mb={mb}:\
             hard_rss_limit_mb={mb}:allocator_may_return_null=0"
        ),
    ));
    env.push((
        "UBSAN_OPTIONS".to_owned(),
        "halt_on_error=1:abort_on_error=1:print_stacktrace=1:symbolize=0".to_owned(),
    ));
    Ok(env)
}

/// The prefix of the files this process keeps in the temporary directory
/// for its workers (logs, a copy of the program).
const TEMP_PREFIX: &str = "hfi1-conformance-worker-";

/// The log of this process's worker number `n`.
pub(super) fn log_path(n: u64) -> PathBuf {
    std::env::temp_dir().join(format!("{TEMP_PREFIX}{}-{n}.log", std::process::id()))
}

/// Spawns `cmd` from one thread that lives as long as the process. A
/// sandbox dies with its parent (`--die-with-parent`), and Linux counts the
/// parent *thread*: a worker spawned by a short-lived thread (a scoped
/// thread of `--random` or of a comparison) would be killed when that
/// thread ends, and its next call would look like a crash.
fn spawn_from_keeper(cmd: Command) -> std::io::Result<Child> {
    type Job = (Command, mpsc::Sender<std::io::Result<Child>>);
    static KEEPER: OnceLock<Mutex<mpsc::Sender<Job>>> = OnceLock::new();
    let keeper = KEEPER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("hfi1-worker-keeper".into())
            .spawn(move || {
                for (mut cmd, reply) in rx {
                    let _ = reply.send(cmd.spawn());
                }
            })
            .map(|_| ())
            .unwrap_or(());
        Mutex::new(tx)
    });
    let (tx, rx) = mpsc::channel();
    let sent = keeper
        .lock()
        .map_err(|_| std::io::Error::other("the worker keeper's lock is poisoned"))?
        .send((cmd, tx));
    if sent.is_err() {
        return Err(std::io::Error::other("the worker keeper thread is gone"));
    }
    rx.recv()
        .map_err(|_| std::io::Error::other("the worker keeper thread is gone"))?
}

/// Removes the worker logs of processes that no longer run (a harness
/// killed before it could remove its own).
pub(super) fn remove_stale_logs() {
    let Ok(rd) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(TEMP_PREFIX) else {
            continue;
        };
        let pid = rest.split('-').next().and_then(|p| p.parse::<u32>().ok());
        if pid.is_some_and(|p| !Path::new(&format!("/proc/{p}")).exists()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// The file holding the running program: its path while that is still
/// the same file (same inode), else a copy of `/proc/self/exe` made once per
/// process in the temporary directory (removed with the worker logs once
/// the process is gone).
fn exe_source(path: &Path) -> Result<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    static COPY: OnceLock<PathBuf> = OnceLock::new();
    let me = std::fs::metadata("/proc/self/exe").context("reading /proc/self/exe")?;
    let same = std::fs::metadata(path).is_ok_and(|m| m.ino() == me.ino() && m.dev() == me.dev());
    if same {
        return Ok(path.to_owned());
    }
    if let Some(p) = COPY.get() {
        return Ok(p.clone());
    }
    let copy = std::env::temp_dir().join(format!("{TEMP_PREFIX}{}-exe", std::process::id()));
    std::fs::copy("/proc/self/exe", &copy)
        .with_context(|| format!("copying the running program to {}", copy.display()))?;
    Ok(COPY.get_or_init(|| copy).clone())
}

/// The running program's path (without the " (deleted)" Linux appends
/// once a rebuild has replaced the file).
pub(super) fn running_exe() -> Result<PathBuf> {
    let p = std::env::current_exe().context("locating this executable")?;
    let s = p.to_string_lossy();
    Ok(match s.strip_suffix(" (deleted)") {
        Some(stripped) => PathBuf::from(stripped),
        None => p,
    })
}
