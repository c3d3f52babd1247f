//! An exclusive lock file, so that processes sharing the cache (parallel
//! test processes under nextest, two terminals) build or fetch one thing
//! once instead of racing.

use std::fs::{File, OpenOptions};
use std::os::unix::io::AsRawFd;
use std::path::Path;

use anyhow::{Context, Result};

/// Held until dropped.
pub struct FileLock {
    _file: File,
}

impl FileLock {
    /// Blocks until `path` is locked by this process.
    pub fn acquire(path: &Path) -> Result<FileLock> {
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p).with_context(|| format!("creating {}", p.display()))?;
        }
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .with_context(|| format!("opening lock {}", path.display()))?;
        // SAFETY: flock on a valid descriptor we own.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        if rc != 0 {
            return Err(std::io::Error::last_os_error())
                .with_context(|| format!("locking {}", path.display()));
        }
        Ok(FileLock { _file: file })
    }

    /// Locks `path` when no one holds it and it exists; `None` when it is
    /// held (or cannot be opened): never waits, never creates it.
    pub fn try_acquire(path: &Path) -> Option<FileLock> {
        let file = OpenOptions::new().write(true).open(path).ok()?;
        // SAFETY: flock on a valid descriptor we own.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        (rc == 0).then_some(FileLock { _file: file })
    }
}
