//! An exclusive lock file, so that processes sharing the cache (parallel
//! test processes under nextest, two terminals) build or fetch one thing
//! once instead of racing.

use std::fs::{File, OpenOptions};
use std::os::unix::io::AsRawFd;
use std::path::Path;

use anyhow::{Context, Result};

/// Held until dropped.
#[derive(Debug)]
pub struct FileLock {
    file: File,
}

impl FileLock {
    /// Blocks until `path` is locked by this process.
    pub fn acquire(path: &Path) -> Result<FileLock> {
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p).with_context(|| format!("creating {}", p.display()))?;
        }
        FileLock::lock(path, libc::LOCK_EX)
    }

    /// Blocks until `path` is locked by this process shared with other
    /// such holders: not while someone holds it alone ([`FileLock::acquire`],
    /// [`FileLock::try_acquire`]), who cannot while it is held so.
    pub fn acquire_shared(path: &Path) -> Result<FileLock> {
        FileLock::lock(path, libc::LOCK_SH)
    }

    /// `path` (made if missing, its directory not) locked with `flock`
    /// operation `op`, waiting as long as it takes.
    fn lock(path: &Path, op: libc::c_int) -> Result<FileLock> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .with_context(|| format!("opening lock {}", path.display()))?;
        // SAFETY: flock on a valid descriptor we own.
        let rc = unsafe { libc::flock(file.as_raw_fd(), op) };
        if rc != 0 {
            return Err(std::io::Error::last_os_error())
                .with_context(|| format!("locking {}", path.display()));
        }
        Ok(FileLock { file })
    }

    /// Whether the file locked is still the one at `path` (not removed
    /// with its directory, nor replaced, while this lock waited).
    pub fn is_at(&self, path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        match (self.file.metadata(), std::fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }

    /// Locks `path` when no one holds it and it exists; `None` when it is
    /// held (or cannot be opened): never waits, never creates it.
    pub fn try_acquire(path: &Path) -> Option<FileLock> {
        let file = OpenOptions::new().write(true).open(path).ok()?;
        // SAFETY: flock on a valid descriptor we own.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        (rc == 0).then_some(FileLock { file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lock whose file was removed (its directory rebuilt) while it was
    /// held is no longer the one at its path; a fresh lock is, and no
    /// one can take it meanwhile.
    #[test]
    fn a_removed_lock_file_is_not_the_lock() {
        let dir = std::env::temp_dir().join(format!("hfi1-lock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("w").join(".lock");
        let old = FileLock::acquire(&path).unwrap();
        assert!(old.is_at(&path));
        assert!(FileLock::try_acquire(&path).is_none(), "held");
        std::fs::remove_dir_all(dir.join("w")).unwrap();
        assert!(!old.is_at(&path));
        let new = FileLock::acquire(&path).unwrap();
        assert!(new.is_at(&path) && !old.is_at(&path));
        drop(new);
        assert!(FileLock::try_acquire(&path).is_some(), "released");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
