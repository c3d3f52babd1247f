//! Where the project keeps what it fetches and builds, and what to tell
//! the user when that place cannot be written.

use std::path::PathBuf;

/// Where the project keeps fetched trees and built C worlds:
/// `$HFI1_CONFORMANCE_CACHE`, else `$XDG_CACHE_HOME/hfi1-conformance`, else
/// `~/.cache/hfi1-conformance`.
/// An empty variable counts as unset (as the shell's `${VAR:-…}` does).
pub fn cache_dir() -> PathBuf {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(p) = var("HFI1_CONFORMANCE_CACHE") {
        return PathBuf::from(p);
    }
    if let Some(p) = var("XDG_CACHE_HOME") {
        return PathBuf::from(p).join("hfi1-conformance");
    }
    if let Some(p) = var("HOME") {
        return PathBuf::from(p).join(".cache/hfi1-conformance");
    }
    std::env::temp_dir().join("hfi1-conformance")
}

/// Adds what to do to an error met writing the cache: a read-only,
/// full or misplaced cache is the user's to fix, and the message says how.
pub fn with_cache_hint(e: anyhow::Error) -> anyhow::Error {
    use std::io::ErrorKind as K;
    let cache_fault = e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>().is_some_and(|io| {
            matches!(
                io.kind(),
                K::ReadOnlyFilesystem
                    | K::PermissionDenied
                    | K::NotADirectory
                    | K::AlreadyExists
                    | K::StorageFull
                    | K::QuotaExceeded
            )
        })
    });
    if !cache_fault {
        return e;
    }
    let dir = cache_dir();
    e.context(format!(
        "the cache {} must be a writable directory to fetch a kernel or build a world into \
         it: point HFI1_CONFORMANCE_CACHE at one (or free space there); a read-only cache \
         works once it holds what the run needs (`cargo xtask kernel fetch SERIES` and one \
         run where it is writable)",
        dir.display()
    ))
}
