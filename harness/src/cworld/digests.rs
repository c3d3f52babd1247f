//! Digests of generated vectors in a world, kept with the world.
//!
//! A comparison of two trees needs the digest of every generated vector in
//! each world; the base of a gate is the same world patch after patch and
//! run after run, so its digests are kept in the world's cache directory
//! and read back instead of recomputed. A kept file is used only by the
//! very program that wrote it (its name holds the running executable's
//! identity: device, inode, size and modification time), since a rebuilt
//! harness may draw other vectors from the same seed. A read-only cache,
//! or a file of the wrong size, is a miss, never an error.

use std::path::PathBuf;

use anyhow::Result;

use super::{BuiltWorld, Worker};
use crate::model::types::Func;

/// The digests of vectors `0..n`: `None` for a vector that did not return.
/// Two values are no outcome's: `Some(0)`, an index the generator gave up
/// on (nothing ran), and [`NOT_RUN`].
pub type Digests = Vec<Option<u64>>;

pub use super::client::NOT_RUN;

/// Where the digests of `f`'s vectors `0..n` from `seed` are kept; none
/// for a world with a switch set (a mutant schemata world's mutant: the
/// world's place is every mutant's).
fn path(world: &BuiltWorld, f: Func, seed: u64, n: u64) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    if world.switch.is_some() {
        return None;
    }
    let me = std::fs::metadata("/proc/self/exe").ok()?;
    let exe = format!(
        "{:x}-{:x}-{:x}-{:x}",
        me.dev(),
        me.ino(),
        me.size(),
        me.mtime_nsec() as u64 ^ (me.mtime() as u64) << 30
    );
    Some(
        world
            .dir
            .join("digests")
            .join(format!("{exe}-{seed}-{n}-{f}.bin")),
    )
}

/// The program identity a kept file's name starts with.
fn identity_of(p: &std::path::Path) -> String {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    name.splitn(5, '-').take(4).collect::<Vec<_>>().join("-")
}

/// Kept digests, if a file of the right size is there.
pub fn load(world: &BuiltWorld, f: Func, seed: u64, n: u64) -> Option<Digests> {
    let bytes = std::fs::read(path(world, f, seed, n)?).ok()?;
    if bytes.len() as u64 != n * 9 {
        return None;
    }
    Some(
        bytes
            .chunks_exact(9)
            .map(|c| {
                let mut d = [0u8; 8];
                d.copy_from_slice(&c[1..]);
                (c[0] == 1).then_some(u64::from_le_bytes(d))
            })
            .collect(),
    )
}

/// Keeps digests for later runs; quietly does nothing where the cache
/// cannot be written, or for a set with vectors not run ([`NOT_RUN`]).
pub fn store(world: &BuiltWorld, f: Func, seed: u64, n: u64, d: &Digests) {
    if d.contains(&Some(NOT_RUN)) {
        return;
    }
    let Some(p) = path(world, f, seed, n) else {
        return;
    };
    let Some(dir) = p.parent() else {
        return;
    };
    let mut bytes = Vec::with_capacity(d.len() * 9);
    for x in d {
        bytes.push(u8::from(x.is_some()));
        bytes.extend_from_slice(&x.unwrap_or(0).to_le_bytes());
    }
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let tmp = dir.join(format!(
        ".tmp-{}-{}",
        std::process::id(),
        WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let ok = std::fs::create_dir_all(dir).is_ok() && std::fs::write(&tmp, &bytes).is_ok();
    if !ok || std::fs::rename(&tmp, &p).is_err() {
        let _ = std::fs::remove_file(&tmp);
        return;
    }
    // Digests another build of the harness kept are never read again.
    let ours = identity_of(&p);
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.starts_with('.') && identity_of(&e.path()) != ours {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

/// Digests of `f`'s vectors `0..n` in one world, computed by `workers` at
/// once (each takes a contiguous share; for a world whose calls keep no
/// state between them, the result does not depend on the number).
pub fn compute(workers: &mut [&mut Worker], f: Func, seed: u64, n: u64) -> Result<Digests> {
    for w in workers.iter_mut() {
        // Started here, in the caller's thread: a sandbox dies with the
        // thread that started it.
        w.ensure_started()?;
    }
    let k = workers.len().max(1) as u64;
    let share = n.div_ceil(k);
    let parts: Vec<Result<Digests>> = std::thread::scope(|s| {
        let handles: Vec<_> = workers
            .iter_mut()
            .enumerate()
            .map(|(i, w)| {
                let start = (i as u64 * share).min(n);
                let count = share.min(n - start);
                s.spawn(move || {
                    if count == 0 {
                        Ok(vec![])
                    } else {
                        w.digests(f, seed, start, count)
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .map_err(|_| anyhow::anyhow!("a digest thread panicked"))?
            })
            .collect()
    });
    let mut out = Vec::with_capacity(n as usize);
    for p in parts {
        out.extend(p?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kept digests read back as written (a fault's `None` included); a
    /// file of another length, another count or another seed is a miss;
    /// a directory that cannot be written is no error.
    #[test]
    fn kept_digests_read_back() {
        let dir = std::env::temp_dir().join(format!("hfi1-digests-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let w = BuiltWorld::unbuilt(&dir);
        let d: Digests = vec![Some(2), None, Some(u64::MAX), Some(0)];
        assert_eq!(load(&w, Func::SetupWqe, 7, 4), None);
        store(&w, Func::SetupWqe, 7, 4, &d);
        assert_eq!(load(&w, Func::SetupWqe, 7, 4), Some(d.clone()));
        assert_eq!(load(&w, Func::SetupWqe, 8, 4), None);
        assert_eq!(load(&w, Func::SetupWqe, 7, 5), None);
        assert_eq!(load(&w, Func::MtuToPathMtu, 7, 4), None);
        // A set with a vector not run is never kept.
        store(&w, Func::MtuToPathMtu, 7, 2, &vec![Some(2), Some(NOT_RUN)]);
        assert_eq!(load(&w, Func::MtuToPathMtu, 7, 2), None);
        let p = path(&w, Func::SetupWqe, 7, 4).expect("a path");
        std::fs::write(&p, [0u8; 10]).expect("truncating");
        assert_eq!(load(&w, Func::SetupWqe, 7, 4), None);
        // Unwritable: the "directory" is a file.
        let blocked = BuiltWorld::unbuilt(&dir.join("libhfi1world.so"));
        std::fs::write(&blocked.dir, b"").expect("a file");
        store(&blocked, Func::SetupWqe, 7, 4, &d);
        assert_eq!(load(&blocked, Func::SetupWqe, 7, 4), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
