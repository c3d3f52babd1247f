//! The parent's end of a worker's two pipes, with the watchdog.
//!
//! Deadlock-free by construction: whenever the parent waits — to write a
//! request or to read a reply — it polls both pipes and reads every reply
//! byte the worker has written into an inbox. So the worker, which writes
//! its replies as it goes, never blocks for long on a full reply pipe, and
//! the two sides are never both blocked on writes, whatever the sizes of a
//! request and its replies. (A writer thread would do the same with a
//! thread per worker; bounding requests by what the reply pipe holds would
//! tie every request kind to the size of its replies.)
//!
//! The watchdog reads the [heartbeat](super::heartbeat): a call that has
//! been running for its limit is a hang ([`Stall::Call`]); a worker that
//! makes no progress *between* calls for [`Channel::idle_limit`] is the
//! harness's own fault ([`Stall::Idle`]), never a vector's.

use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::process::{ChildStdin, ChildStdout};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::heartbeat::{Beat, Heartbeat};

/// Why the watchdog gave up waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stall {
    /// Call `index` of the request ran for its whole limit.
    Call(u64),
    /// The worker made no progress outside any call for the idle limit.
    Idle,
}

/// The error kind a stall is reported with: [`std::io::ErrorKind::TimedOut`],
/// its payload a [`Stall`].
fn stalled(s: Stall) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::TimedOut, StallError(s))
}

#[derive(Debug)]
struct StallError(Stall);

impl std::fmt::Display for StallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Stall::Call(i) => write!(f, "call {i} of the request ran past its limit"),
            Stall::Idle => write!(f, "the worker made no progress between calls"),
        }
    }
}

impl std::error::Error for StallError {}

/// The stall an I/O error reports, if it is one.
pub fn stall_of(e: &std::io::Error) -> Option<Stall> {
    e.get_ref()
        .and_then(|x| x.downcast_ref::<StallError>())
        .map(|s| s.0)
}

/// The parent's end of a worker's pipes. Writes are buffered until
/// [`Write::flush`] or the next read; reads come from the inbox first.
pub struct Channel {
    to: ChildStdin,
    from: ChildStdout,
    outbox: Vec<u8>,
    sent: usize,
    inbox: Vec<u8>,
    taken: usize,
    eof: bool,
    heartbeat: Arc<Heartbeat>,
    /// The limit of a call of the current request, by index.
    per_call: Vec<Duration>,
    /// The limit of any call `per_call` does not name.
    pub call_limit: Duration,
    /// The shortest limit of the request: the watchdog looks at the
    /// heartbeat at least four times in it.
    shortest: Duration,
    /// How long the worker may make no progress outside a call.
    pub idle_limit: Duration,
}

/// How much is read from the reply pipe at once.
const READ_CHUNK: usize = 1 << 16;

impl Channel {
    /// `to` must be non-blocking.
    pub fn new(
        to: ChildStdin,
        from: ChildStdout,
        heartbeat: Arc<Heartbeat>,
        call_limit: Duration,
        idle_limit: Duration,
    ) -> Channel {
        Channel {
            to,
            from,
            outbox: Vec::new(),
            sent: 0,
            inbox: Vec::new(),
            taken: 0,
            eof: false,
            heartbeat,
            per_call: Vec::new(),
            call_limit,
            shortest: call_limit,
            idle_limit,
        }
    }

    /// The limits of the next request's calls: `per_call` by index, any
    /// other `default`.
    pub fn set_call_limits(&mut self, default: Duration, per_call: Vec<Duration>) {
        self.call_limit = default;
        self.shortest = per_call.iter().copied().fold(default, Duration::min);
        self.per_call = per_call;
    }

    /// The limit of call `index` of the current request.
    pub fn limit_of(&self, index: u64) -> Duration {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.per_call.get(i))
            .copied()
            .unwrap_or(self.call_limit)
    }

    /// Moves bytes both ways until the outbox is sent and, if `need_input`,
    /// the inbox holds a byte; reply bytes are read whenever there are any.
    fn pump(&mut self, need_input: bool) -> std::io::Result<()> {
        let mut last = self.heartbeat.get();
        let mut since = Instant::now();
        loop {
            let out_pending = self.sent < self.outbox.len();
            let in_ready = self.taken < self.inbox.len();
            if !out_pending {
                self.outbox.clear();
                self.sent = 0;
                if !need_input || in_ready {
                    return Ok(());
                }
            }
            if self.eof && need_input && !in_ready {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            let limit = match Beat::decode(last) {
                Beat::InCall(i) => self.limit_of(i),
                Beat::Between => self.idle_limit,
            };
            // The heartbeat may move into a call of the shortest limit
            // while poll waits: wake often enough for that one.
            let slice = (limit.min(self.shortest) / 4)
                .clamp(Duration::from_millis(2), Duration::from_millis(250));
            let mut fds = [
                libc::pollfd {
                    fd: if self.eof { -1 } else { self.from.as_raw_fd() },
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: if out_pending { self.to.as_raw_fd() } else { -1 },
                    events: libc::POLLOUT,
                    revents: 0,
                },
            ];
            // SAFETY: two valid pollfds (a negative fd is ignored by poll).
            let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, slice.as_millis() as i32) };
            if n < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
            if n > 0 && fds[0].revents != 0 {
                self.fill()?;
            }
            if n > 0 && fds[1].revents != 0 {
                match self.to.write(&self.outbox[self.sent..]) {
                    Ok(k) => self.sent += k,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            let now = self.heartbeat.get();
            if now != last {
                last = now;
                since = Instant::now();
            } else if since.elapsed() >= limit {
                return Err(stalled(match Beat::decode(now) {
                    Beat::InCall(i) => Stall::Call(i),
                    Beat::Between => Stall::Idle,
                }));
            }
        }
    }

    /// Reads what the reply pipe holds into the inbox.
    fn fill(&mut self) -> std::io::Result<()> {
        if self.taken == self.inbox.len() {
            self.inbox.clear();
            self.taken = 0;
        }
        let have = self.inbox.len();
        self.inbox.resize(have + READ_CHUNK, 0);
        let r = self.from.read(&mut self.inbox[have..]);
        match r {
            Ok(0) => {
                self.inbox.truncate(have);
                self.eof = true;
                Ok(())
            }
            Ok(k) => {
                self.inbox.truncate(have + k);
                Ok(())
            }
            Err(e) => {
                self.inbox.truncate(have);
                match e.kind() {
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted => Ok(()),
                    _ => Err(e),
                }
            }
        }
    }
}

impl Read for Channel {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.taken == self.inbox.len() {
            match self.pump(true) {
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(0),
                r => r?,
            }
        }
        let k = buf.len().min(self.inbox.len() - self.taken);
        buf[..k].copy_from_slice(&self.inbox[self.taken..self.taken + k]);
        self.taken += k;
        Ok(k)
    }
}

impl Write for Channel {
    /// Buffers; nothing reaches the worker before [`Write::flush`].
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.outbox.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.pump(false)
    }
}
