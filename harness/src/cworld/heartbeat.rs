//! The heartbeat between a worker and its parent: one 64-bit word in a
//! shared memory file (`memfd`). The worker stores `i + 1` before call `i`
//! of a request and `(i + 1) | BETWEEN` once it returned (plain stores, no
//! system call); the parent reads it to see that calls move on, to name
//! the call a worker died or hung in, and to tell a call that does not
//! return from a worker that is slow outside any call.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

use anyhow::{bail, Result};

/// The size of the shared memory file (one page; the word is its first
/// eight bytes).
const SIZE: usize = 4096;

/// The environment variable naming the heartbeat's descriptor in a worker.
pub const HANDOVER_ENV: &str = "HFI1_CONFORMANCE_HEARTBEAT";

/// The descriptor a worker is handed the heartbeat as.
pub const HANDOVER_FD: i32 = 3;

/// The parent's side: owns the memory file and its mapping.
pub struct Heartbeat {
    fd: OwnedFd,
    word: NonNull<AtomicU64>,
}

// SAFETY: the mapping is only accessed through an AtomicU64.
unsafe impl Send for Heartbeat {}
// SAFETY: as above.
unsafe impl Sync for Heartbeat {}

/// Maps the word of the memory file `fd`.
fn map(fd: RawFd) -> Result<NonNull<AtomicU64>> {
    // SAFETY: maps SIZE bytes of a descriptor sized to at least SIZE.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            SIZE,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            fd,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        bail!("mapping the heartbeat: {}", std::io::Error::last_os_error());
    }
    NonNull::new(p.cast::<AtomicU64>()).ok_or_else(|| anyhow::anyhow!("heartbeat mapped at 0"))
}

impl Heartbeat {
    /// A new heartbeat, its word 0 (no call started).
    pub fn new() -> Result<Heartbeat> {
        // SAFETY: a NUL-terminated name; the descriptor is owned below.
        let raw = unsafe { libc::memfd_create(c"hfi1-heartbeat".as_ptr(), libc::MFD_CLOEXEC) };
        if raw < 0 {
            bail!("memfd_create: {}", std::io::Error::last_os_error());
        }
        // SAFETY: a fresh descriptor nobody else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: a valid descriptor.
        if unsafe { libc::ftruncate(fd.as_raw_fd(), SIZE as libc::off_t) } != 0 {
            bail!("sizing the heartbeat: {}", std::io::Error::last_os_error());
        }
        let word = map(fd.as_raw_fd())?;
        Ok(Heartbeat { fd, word })
    }

    /// The descriptor to hand to a worker.
    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// The word as the worker last stored it.
    pub fn get(&self) -> u64 {
        // SAFETY: the mapping lives as long as self.
        unsafe { self.word.as_ref() }.load(Ordering::Relaxed)
    }

    /// Stores `v` (0 before each request: no call started).
    pub fn set(&self, v: u64) {
        // SAFETY: as above.
        unsafe { self.word.as_ref() }.store(v, Ordering::Relaxed)
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        // SAFETY: unmaps the mapping made in new(); nothing refers to it.
        unsafe { libc::munmap(self.word.as_ptr().cast(), SIZE) };
    }
}

/// The worker's side: the word, once attached.
static WORD: AtomicPtr<AtomicU64> = AtomicPtr::new(std::ptr::null_mut());

/// Maps the heartbeat handed over as `fd` (in a worker).
pub fn attach(fd: RawFd) -> Result<()> {
    let word = map(fd)?;
    WORD.store(word.as_ptr(), Ordering::Release);
    Ok(())
}

/// The bit set in the word while the worker is outside any call.
const BETWEEN: u64 = 1 << 63;

/// What the word says the worker is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Beat {
    /// Running call `i` of the request.
    InCall(u64),
    /// Outside any call: reading a request, writing replies, drawing
    /// vectors, starting.
    Between,
}

impl Beat {
    /// What a heartbeat word says.
    pub fn decode(word: u64) -> Beat {
        if word == 0 || word & BETWEEN != 0 {
            Beat::Between
        } else {
            Beat::InCall(word - 1)
        }
    }
}

/// Stores `v` in the attached word (nothing before [`attach`]).
fn store(v: u64) {
    let p = WORD.load(Ordering::Relaxed);
    if !p.is_null() {
        // SAFETY: set once by attach() to a mapping that is never unmapped
        // in the worker.
        unsafe { &*p }.store(v, Ordering::Relaxed);
    }
}

/// Tells the parent that call `i` of the request starts.
#[inline]
pub fn enter(i: u64) {
    store(i + 1);
}

/// Tells the parent that call `i` of the request returned.
#[inline]
pub fn leave(i: u64) {
    store((i + 1) | BETWEEN);
}
