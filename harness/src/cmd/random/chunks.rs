//! How `--random` and `--scenarios` share a range out: indices `0..n` cut
//! into chunks, every worker taking the next chunk in a thread of its own
//! until none is left, each chunk's result collected in index order, so
//! what a run finds does not depend on how many workers ran it.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{ensure, Result};

use crate::cworld::Worker;

/// Indices `0..n`, in chunks of at most `max` indices, each run by `job`
/// on whichever worker is free; `progress(done, n)` after each chunk.
/// The chunks' results in the order of their indices, or the first error
/// a chunk met.
pub fn in_chunks<T: Send>(
    workers: &mut [Worker],
    n: u64,
    max: u64,
    job: impl Fn(&mut Worker, Range<u64>) -> Result<T> + Sync,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Vec<T>> {
    ensure!(!workers.is_empty(), "a run of {n} needs a worker");
    // Chunks small enough to keep every worker busy (eight a worker: a
    // run of a few hundred vectors that hang is shared too), large enough
    // that a request's round trip is noise (tens of microseconds).
    let chunk = (n / (workers.len() as u64 * 8)).clamp(1, max);
    // Started here, in the caller's thread: a sandbox dies with the thread
    // that started it, and these threads end with this function.
    for w in workers.iter_mut() {
        w.ensure_started()?;
    }
    let chunks = n.div_ceil(chunk);
    let next = AtomicU64::new(0);
    let (tx, rx) = std::sync::mpsc::channel();
    let mut parts = vec![];
    std::thread::scope(|s| -> Result<()> {
        for w in workers.iter_mut() {
            let (tx, next, job) = (tx.clone(), &next, &job);
            s.spawn(move || loop {
                let c = next.fetch_add(1, Ordering::Relaxed);
                if c >= chunks {
                    break;
                }
                let range = c * chunk..(c * chunk + chunk).min(n);
                let r = job(w, range.clone());
                let failed = r.is_err();
                if tx.send((range, r)).is_err() || failed {
                    break;
                }
            });
        }
        drop(tx);
        let mut done = 0;
        for (range, r) in rx {
            parts.push((range.start, r?));
            done += range.end - range.start;
            progress(done, n);
        }
        Ok(())
    })?;
    parts.sort_by_key(|p| p.0);
    Ok(parts.into_iter().map(|p| p.1).collect())
}
