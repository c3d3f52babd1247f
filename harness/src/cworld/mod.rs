//! C worlds: building them and running calls in them, out of harm's way.
//!
//! Upstream code given a hostile vector may crash, and patched code under
//! review is untrusted, so a world's shared object is only ever loaded in a
//! worker process: the running program re-executes itself with
//! [`WORKER_ENV`] set (every binary that runs C worlds calls
//! [`worker_main_if_requested`] first thing in `main`). Calls travel in
//! batches over pipes; a crash costs the worker, which is restarted, and is
//! reported for the one vector that caused it.
//!
//! The worker runs in the [`sandbox`](crate::sandbox) and confines itself
//! with a seccomp filter before it loads the world. A *heartbeat* (a shared
//! memory word the worker sets to `i + 1` before call `i` of a request)
//! gives every call a deadline without a system call per call: the parent
//! waits on the pipe, and when the heartbeat has not moved for the call
//! limit ([`call_timeout`]), the worker is killed and the call it was in is
//! a [`Fault::Hung`] finding; the run goes on in a new worker. The same
//! heartbeat names the call that crashed a worker.
//!
//! The layer, by job:
//!
//! - [`build`]: compiling a tree's world (one shared object, cached);
//! - [`ffi`], [`call`]: the one C ABI, and the model's calls and outcomes
//!   in it;
//! - `loaded`: a world loaded into this process ([`Loaded`]);
//! - `protocol`: what crosses the pipes between a parent and its worker;
//! - `serve`: the worker's side, which answers requests;
//! - `client`: the parent's side ([`Worker`]), which starts workers, sends
//!   requests and blames faults; `channel` its end of the pipes, with the
//!   watchdog, and `heartbeat` the shared word both ends read;
//! - `fault`: how a call ends ([`CallResult`], [`Fault`],
//!   [`HarnessFault`]); `limits`: how long it may take;
//! - [`digests`]: the digests of a world's generated vectors, kept with it;
//! - [`reach`]: which functions two worlds can answer differently, read
//!   from their objects.

pub mod build;
pub mod call;
mod channel;
mod client;
pub mod digests;
mod fault;
pub mod ffi;
mod heartbeat;
mod limits;
mod loaded;
mod protocol;
pub mod reach;
mod serve;

pub use build::{build, BuildOptions, BuiltWorld};
pub use client::{RandomReply, Worker, FAULT_PROOFS, HANG_PROOFS};
pub use fault::{CallResult, Fault, HarnessFault};
pub use limits::{call_timeout, set_call_timeout, short_limit};
pub use loaded::Loaded;
pub use protocol::{BenchReply, FindingKind, RandomFinding, UnknownCode, WORKER_ENV};
pub use serve::worker_main_if_requested;
