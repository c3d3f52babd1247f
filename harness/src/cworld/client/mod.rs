//! The parent side of a worker: starting it in the sandbox ([`launch`]),
//! sending requests and reading replies ([`requests`]), and telling a
//! vector's fault from the harness's own ([`blame`], with what each
//! function has done so far: [`records`]).
//!
//! A call blamed for a fault (it crashed the worker, hung, or made a
//! system call the sandbox refuses) is run again alone in a fresh worker
//! before it is reported: only a fault that happens again the same way is
//! the vector's finding. One that does not is a
//! [`HarnessFault`](crate::cworld::fault::HarnessFault), an error (exit 2)
//! that names both runs. After a function's first confirmed hang, its
//! later calls in the same world run under a [shortened
//! limit](crate::cworld::limits::short_limit): they cannot prove more than
//! the first did, and a looping tree costs a fraction of a second a vector
//! instead of seconds.

mod blame;
mod launch;
mod records;
mod requests;

use std::path::PathBuf;
use std::process::Child;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};

use crate::cworld::build::{BuildOptions, BuiltWorld};
use crate::cworld::channel::Channel;
use crate::cworld::heartbeat::Heartbeat;
use crate::cworld::limits::{call_timeout, idle_limit};
use crate::cworld::protocol::SWITCH_ENV;
use crate::model::types::{Func, Symbol};

pub use records::{FAULT_PROOFS, HANG_PROOFS, NOT_RUN};
pub use requests::RandomReply;

/// A started worker: its process and its pipes.
type Running = (Child, Channel);

/// A worker process serving one C world, in the sandbox.
pub struct Worker {
    so: PathBuf,
    /// The object and its mutant switch ([`BuiltWorld::switch`]): what the
    /// world is (one object holds a schemata's every mutant), as its
    /// records are kept.
    world: records::WorldKey,
    world_dir: PathBuf,
    exe: PathBuf,
    opts: BuildOptions,
    child: Option<Running>,
    /// Extra environment for the worker (for example LD_PRELOAD for ASan).
    env: Vec<(String, String)>,
    /// Where the worker's stderr goes, to quote it when it dies: a private
    /// file of this process (never in the cache, which may be read-only),
    /// removed with the worker.
    log: PathBuf,
    heartbeat: Arc<Heartbeat>,
    call_limit: Duration,
    /// See [`Worker::presume_hangs`].
    presume: Option<u64>,
    /// See [`Worker::cut_fault_storms`].
    cut_storms: bool,
    /// The world's [`BuiltWorld::absent`].
    absent: Vec<String>,
}

/// How many workers this process has made (each gets its own log).
static WORKERS: AtomicU64 = AtomicU64::new(0);

impl Worker {
    /// A worker for `world`, started on first use.
    pub fn new(world: &BuiltWorld) -> Result<Worker> {
        let mut env = launch::sanitizer_env(&world.opts)?;
        if let Some((name, value)) = &world.switch {
            env.push((SWITCH_ENV.to_owned(), format!("{name}={value}")));
        }
        let n = WORKERS.fetch_add(1, Ordering::Relaxed);
        if n == 0 {
            launch::remove_stale_logs();
        }
        Ok(Worker {
            so: world.so.clone(),
            world: (world.so.clone(), world.switch.clone()),
            world_dir: world.dir.clone(),
            exe: launch::running_exe()?,
            opts: world.opts.clone(),
            child: None,
            env,
            log: launch::log_path(n),
            heartbeat: Arc::new(Heartbeat::new()?),
            call_limit: call_timeout(&world.opts),
            presume: None,
            cut_storms: false,
            absent: world.absent.clone(),
        })
    }

    /// Whether the world's tree lacks function `f` ([`BuiltWorld::lacks`]):
    /// a call of it is refused, its vectors are skipped.
    pub fn lacks(&self, f: crate::model::types::Func) -> bool {
        crate::cworld::build::lacks_in(&self.absent, f)
    }

    /// Changes the call limit of this worker (tests of the watchdog).
    pub fn set_call_timeout(&mut self, d: Duration) {
        self.call_limit = d;
        if let Some((_, ch)) = self.child.as_mut() {
            ch.call_limit = d;
            ch.idle_limit = idle_limit(d);
        }
    }

    /// Starts the worker unless it is running. A worker that stopped
    /// between requests (killed from outside, or with the thread that
    /// started it: the sandbox dies with its parent thread) is started
    /// again; nothing is blamed on a call.
    pub fn ensure_started(&mut self) -> Result<()> {
        if let Some((child, _)) = self.child.as_mut() {
            if matches!(child.try_wait(), Ok(Some(_)) | Err(_)) {
                self.child = None;
            }
        }
        if self.child.is_none() {
            self.start()?;
        }
        Ok(())
    }

    /// The pipes of the running worker.
    fn channel(&mut self) -> Result<&mut Channel> {
        Ok(&mut self.child.as_mut().context("worker not running")?.1)
    }

    /// Ends a worker that is between requests: its request pipe closed,
    /// it exits.
    fn retire(&mut self) {
        if let Some((mut child, ch)) = self.child.take() {
            drop(ch);
            let _ = child.wait();
        }
    }

    /// Kills the worker; returns its process to wait for.
    fn kill(&mut self) -> Option<Child> {
        let (mut child, _) = self.child.take()?;
        let _ = child.kill();
        Some(child)
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.retire();
        let _ = std::fs::remove_file(&self.log);
    }
}

/// A function's number on the wire (its index in `Func::ALL`).
fn func_index(f: Func) -> u32 {
    Symbol::index(f)
}

/// The name of function number `f`, for messages.
fn fn_name(f: u32) -> String {
    Func::ALL
        .get(f as usize)
        .map_or_else(|| format!("function #{f}"), |x| x.to_string())
}
