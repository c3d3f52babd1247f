//! Fault injection: damaged caches heal, a world that cannot be loaded is
//! "could not run" with the reason (never a crash per vector), a warm run
//! writes nothing in the cache (so a read-only cache works), and nothing is
//! left behind.
//!
//! These tests change the shared cache (a file of the default series' tree,
//! leftover directories) and the environment, so they run one at a time.

mod common;

use std::path::{Path, PathBuf};

use harness::cmd::conformance;
use harness::corpus;
use harness::cworld::{self, call, BuildOptions, BuiltWorld, Worker};
use harness::kernel::select::KernelArg;
use harness::kernel::{self, KernelTree};
use libtest_mimic::{Arguments, Failed, Trial};

fn err(e: impl std::fmt::Display) -> Failed {
    e.to_string().into()
}

/// A private copy of the default tree, so that its world is this test's
/// alone in the cache (a comment changes the world's key).
fn private_tree(name: &str) -> Result<KernelTree, Failed> {
    let tree = kernel::fetch(kernel::DEFAULT_SERIES).map_err(|e| format!("{e:#}"))?;
    let dir = std::env::temp_dir().join(format!("hfi1-fault-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    common::copy_tree(&tree.root, &dir).map_err(err)?;
    let qp = dir.join("drivers/infiniband/hw/hfi1/qp.c");
    let mut src = std::fs::read_to_string(&qp).map_err(err)?;
    src.push_str(&format!(
        "\n/* fault test {name} {} */\n",
        std::process::id()
    ));
    std::fs::write(&qp, src).map_err(err)?;
    KernelTree::open(&dir).map_err(|e| format!("{e:#}").into())
}

fn runs_the_corpus(world: &BuiltWorld) -> Result<(), Failed> {
    let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(err)?;
    let checks = harness::judge::check::check_all(world, &vectors).map_err(|e| format!("{e:#}"))?;
    let bad = checks.iter().filter(|c| !c.verdict.ok()).count();
    if bad > 0 {
        return Err(format!("{bad} vectors failed on the rebuilt world").into());
    }
    Ok(())
}

/// A truncated or altered cached world is found by its checksum and built
/// again; the run then passes.
fn damaged_world_is_rebuilt() -> Result<(), Failed> {
    let tree = private_tree("world")?;
    let world = cworld::build(&tree, &BuildOptions::default()).map_err(|e| format!("{e:#}"))?;
    let good = std::fs::read(&world.so).map_err(err)?;
    for (what, damage) in [
        ("truncated", good[..good.len() / 2].to_vec()),
        ("altered", {
            let mut b = good.clone();
            let mid = b.len() / 2;
            b[mid] ^= 0xff;
            b
        }),
    ] {
        std::fs::write(&world.so, &damage).map_err(err)?;
        let again = cworld::build(&tree, &BuildOptions::default()).map_err(|e| format!("{e:#}"))?;
        let now = std::fs::read(&again.so).map_err(err)?;
        if now.len() != good.len() {
            return Err(format!("the {what} world was used, not rebuilt").into());
        }
        runs_the_corpus(&again)?;
    }
    let _ = std::fs::remove_dir_all(&world.dir);
    let _ = std::fs::remove_dir_all(&tree.root);
    Ok(())
}

/// Objects kept for reuse (`objects/` in the cache) that were truncated or
/// altered are not used: a world needing them compiles them again, and
/// runs the corpus. Each object damaged is put back as it was after (a
/// cache kept across runs, as CI keeps one, stays whole).
fn damaged_kept_objects_are_not_used() -> Result<(), Failed> {
    let first = private_tree("objects-a")?;
    cworld::build(&first, &BuildOptions::default()).map_err(|e| format!("{e:#}"))?;
    let mut kept = vec![];
    let mut stack = vec![kernel::cache_dir().join("objects")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).map_err(err)?.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "o") {
                let good = std::fs::read(&p).map_err(err)?;
                let mut b = good.clone();
                if kept.len() % 2 == 0 {
                    b.truncate(b.len() / 2);
                } else {
                    let mid = b.len() / 2;
                    b[mid] ^= 0xff;
                }
                std::fs::write(&p, &b).map_err(err)?;
                kept.push((p, good, b));
            }
        }
    }
    if kept.is_empty() {
        return Err("no kept objects to damage".into());
    }
    // Another tree whose units but qp.c are the first one's.
    let second = private_tree("objects-b")?;
    let built = cworld::build(&second, &BuildOptions::default()).map_err(|e| format!("{e:#}"));
    // An object still as damaged (not compiled and kept again) is put back.
    for (p, good, bad) in &kept {
        if std::fs::read(p).is_ok_and(|now| now == *bad) {
            let _ = std::fs::write(p, good);
        }
    }
    runs_the_corpus(&built?)?;
    for t in [&first, &second] {
        let _ = std::fs::remove_dir_all(&t.root);
    }
    Ok(())
}

/// A world that does not load (here: not an ELF object) is "could not
/// run" with the loader's words, not a crash reported per vector.
fn unloadable_world_could_not_run() -> Result<(), Failed> {
    let tree = kernel::fetch(kernel::DEFAULT_SERIES).map_err(|e| format!("{e:#}"))?;
    let real = cworld::build(&tree, &BuildOptions::default()).map_err(|e| format!("{e:#}"))?;
    let dir = std::env::temp_dir().join(format!("hfi1-fault-so-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(err)?;
    let so = dir.join("libhfi1world.so");
    std::fs::write(&so, b"not an ELF object").map_err(err)?;
    let fake = BuiltWorld {
        so: so.clone(),
        dir: dir.clone(),
        ..real
    };
    let mut w = Worker::new(&fake).map_err(|e| format!("{e:#}"))?;
    let c = harness::generate::seeded_call(1, harness::model::types::Func::SetupWqe, 0);
    let r = w.run_batch(&[call::to_shim(&c)]);
    drop(w);
    let _ = std::fs::remove_dir_all(&dir);
    match r {
        Ok(r) => Err(format!("a world that is no ELF object gave {r:?}").into()),
        Err(e) => {
            let msg = format!("{e:#}");
            if msg.contains("could not run the C world") && msg.contains("loading") {
                Ok(())
            } else {
                Err(msg.into())
            }
        }
    }
}

/// A cached tree missing a file is extracted again (from the kept
/// package), and leftover extraction directories are removed.
fn damaged_tree_is_extracted_again() -> Result<(), Failed> {
    let tree = kernel::fetch(kernel::DEFAULT_SERIES).map_err(|e| format!("{e:#}"))?;
    let victim = tree.path("drivers/infiniband/hw/hfi1/qp.h");
    let leftover = kernel::cache_dir()
        .join("kernels")
        .join(format!(".extract-{}-999999999", kernel::DEFAULT_SERIES));
    std::fs::create_dir_all(&leftover).map_err(err)?;
    std::fs::remove_file(&victim).map_err(err)?;
    let again = kernel::fetch(kernel::DEFAULT_SERIES).map_err(|e| format!("{e:#}"))?;
    if !again.path("drivers/infiniband/hw/hfi1/qp.h").is_file() {
        return Err("qp.h is still missing".into());
    }
    if leftover.exists() {
        return Err(format!("{} was left behind", leftover.display()).into());
    }
    Ok(())
}

/// An exact Debian version (`SERIES=VERSION`) is fetched and cached apart
/// from the series' pin; the pin spelled out is the pin's tree.
fn exact_version_is_cached_apart() -> Result<(), Failed> {
    let s = kernel::DEFAULT_SERIES;
    let pin = kernel::pins::pin(s)
        .map_err(|e| format!("{e:#}"))?
        .ok_or("the default series is not pinned")?;
    let pinned = kernel::fetch(s).map_err(|e| format!("{e:#}"))?;
    if pinned.package.as_deref() != Some(pin.version.as_str()) {
        return Err(format!("{s} fetched {:?}, pinned {}", pinned.package, pin.version).into());
    }
    let spelled = kernel::fetch(&format!("{s}={}", pin.version)).map_err(|e| format!("{e:#}"))?;
    if spelled.root != pinned.root {
        return Err(format!("{} vs {}", spelled.root.display(), pinned.root.display()).into());
    }
    let other = kernel::published(&[s.to_owned()])
        .map_err(|e| format!("{e:#}"))?
        .into_iter()
        .find(|p| p.version != pin.version)
        .ok_or("Debian publishes only the pinned version of the default series")?;
    let t = kernel::fetch(&format!("{s}={}", other.version)).map_err(|e| format!("{e:#}"))?;
    if t.root == pinned.root
        || t.package.as_deref() != Some(other.version.as_str())
        || t.version.series() != s
    {
        return Err(format!("{}: {:?} {}", t.root.display(), t.package, t.version).into());
    }
    // The pin's tree is still there, untouched.
    let again = kernel::fetch(s).map_err(|e| format!("{e:#}"))?;
    if again.root != pinned.root || !again.path("drivers/infiniband/hw/hfi1/qp.c").is_file() {
        return Err("the pinned tree moved".into());
    }
    Ok(())
}

/// Every file under `dir` with its size and modification time.
fn listing(dir: &Path, out: &mut Vec<(PathBuf, u64, std::time::SystemTime)>) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if let Ok(m) = std::fs::symlink_metadata(&p) {
                if m.is_dir() {
                    listing(&p, out);
                }
                out.push((p, m.len(), m.modified().unwrap_or(std::time::UNIX_EPOCH)));
            }
        }
    }
}

/// A warm conformance run writes nothing in the cache but the worlds' last-use
/// notes (no lock file, no
/// log, no world): a read-only cache holding the tree and the world works.
/// Worker logs are removed with their workers.
fn warm_run_writes_nothing_in_the_cache() -> Result<(), Failed> {
    let vectors = corpus::load_corpus(&corpus::corpus_dir()).map_err(err)?;
    let sel = KernelArg::Series(kernel::DEFAULT_SERIES.into());
    let opts = BuildOptions::default();
    conformance::run_kernel(&sel, &vectors, &opts, &mut |_| {}).map_err(|e| format!("{e:#}"))?;
    let mut before = vec![];
    listing(&kernel::cache_dir(), &mut before);
    let run = conformance::run_kernel(&sel, &vectors, &opts, &mut |_| {})
        .map_err(|e| format!("{e:#}"))?;
    let mut after = vec![];
    listing(&kernel::cache_dir(), &mut after);
    // The worlds' `used` notes (for eviction) are the one thing a warm
    // run may write, and it goes on without them in a read-only cache.
    before.retain(|x| !x.0.ends_with("used"));
    after.retain(|x| !x.0.ends_with("used"));
    before.sort();
    after.sort();
    if before != after {
        let new: Vec<_> = after
            .iter()
            .filter(|a| !before.contains(a))
            .take(5)
            .collect();
        return Err(format!("a warm run wrote in the cache: {new:?}").into());
    }
    if !run.ok() {
        return Err("the warm run failed".into());
    }
    let logs: Vec<_> = std::fs::read_dir(std::env::temp_dir())
        .map_err(err)?
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("hfi1-conformance-worker-{}-", std::process::id()))
        })
        .map(|e| e.path())
        .collect();
    if !logs.is_empty() {
        return Err(format!("worker logs left behind: {logs:?}").into());
    }
    Ok(())
}

/// Eviction removes the least recently used worlds until the cap holds,
/// and never one used in the last minute or in use by a process.
fn eviction_keeps_the_recent_worlds() -> Result<(), Failed> {
    let root = std::env::temp_dir().join(format!("hfi1-evict-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let day = std::time::Duration::from_secs(86_400);
    let now = std::time::SystemTime::now();
    for (name, age_days) in [("old", 3u32), ("older", 5), ("oldest", 9), ("fresh", 0)] {
        let d = root.join(name);
        std::fs::create_dir_all(&d).map_err(err)?;
        std::fs::write(d.join("libhfi1world.so"), vec![0u8; 1 << 20]).map_err(err)?;
        let used = std::fs::File::create(d.join("used")).map_err(err)?;
        used.set_modified(now - day * age_days).map_err(err)?;
    }
    // Room for two worlds: the oldest two go, whatever their order on disk.
    let removed = cworld::build::evict_in(&root, 2 << 20);
    let left: Vec<bool> = ["old", "older", "oldest", "fresh"]
        .iter()
        .map(|n| root.join(n).exists())
        .collect();
    // A cap of nothing still keeps the world used just now.
    let removed_all = cworld::build::evict_in(&root, 0);
    let fresh_kept = root.join("fresh").exists();
    // And one a process uses, however old (a gate's, a run measuring
    // its counters): it stays while held.
    let measured = root.join("measured");
    std::fs::create_dir_all(&measured).map_err(err)?;
    std::fs::File::create(measured.join("used"))
        .and_then(|f| f.set_modified(now - day * 7))
        .map_err(err)?;
    let lock = measured.join(cworld::build::IN_USE_LOCK);
    let held = harness::kernel::cache_lock::FileLock::acquire_shared(&lock).map_err(err)?;
    let while_held = cworld::build::evict_in(&root, 0);
    let kept_held = measured.exists();
    drop(held);
    let once_free = cworld::build::evict_in(&root, 0);
    let _ = std::fs::remove_dir_all(&root);
    if removed != 2 || left != [true, false, false, true] || removed_all != 1 || !fresh_kept {
        return Err(format!(
            "removed {removed}, left {left:?}, then {removed_all}, fresh {fresh_kept}"
        )
        .into());
    }
    // A world this process has is held so: by the handle the build gave.
    let real = default_world()?;
    let real_held = harness::kernel::cache_lock::FileLock::try_acquire(
        &real.dir.join(cworld::build::IN_USE_LOCK),
    )
    .is_none();
    if !real_held {
        return Err(format!("{} is not held in use while built", real.dir.display()).into());
    }
    if while_held != 0 || !kept_held || once_free != 1 {
        return Err(
            format!("in use: removed {while_held} (kept: {kept_held}), then {once_free}").into(),
        );
    }
    Ok(())
}

/// `HFI1_CONFORMANCE_CACHE=""` means unset, not the current directory.
fn empty_cache_variable_is_unset() -> Result<(), Failed> {
    let old = std::env::var_os("HFI1_CONFORMANCE_CACHE");
    std::env::set_var("HFI1_CONFORMANCE_CACHE", "");
    let dir = kernel::cache_dir();
    match old {
        Some(v) => std::env::set_var("HFI1_CONFORMANCE_CACHE", v),
        None => std::env::remove_var("HFI1_CONFORMANCE_CACHE"),
    }
    if !dir.is_absolute() || !dir.ends_with("hfi1-conformance") {
        return Err(format!("an empty variable gave {}", dir.display()).into());
    }
    Ok(())
}

/// `n` generated `hfi1_setup_wqe` vectors (valid: drawn inside the
/// driver's invariants), as a corpus.
fn generated_corpus(n: u64) -> Vec<corpus::Vector> {
    (0..n)
        .map(|i| corpus::Vector {
            family: "generated".into(),
            name: format!("v{i}"),
            branch: String::new(),
            file: PathBuf::from("generated.toml"),
            line: 1,
            call: harness::generate::seeded_call(11, harness::model::types::Func::SetupWqe, i),
            then: vec![],
        })
        .collect()
}

fn default_world() -> Result<BuiltWorld, Failed> {
    kernel::fetch(kernel::DEFAULT_SERIES)
        .and_then(|t| cworld::build(&t, &BuildOptions::default()))
        .map_err(|e| format!("{e:#}").into())
}

/// A corpus whose batches and replies are many times what a pipe holds
/// runs without a single fault: neither side ever waits on a full pipe
/// while the other does (which, before, showed as a false hang).
fn large_corpus_has_no_false_hang() -> Result<(), Failed> {
    let world = default_world()?;
    let vectors = generated_corpus(20_000);
    let mut w = Worker::new(&world).map_err(err)?;
    // Short, so that a stall would show quickly.
    w.set_call_timeout(std::time::Duration::from_millis(300));
    let t = std::time::Instant::now();
    let checks =
        harness::judge::check::check_all_with(&mut w, &vectors).map_err(|e| format!("{e:#}"))?;
    let faults: Vec<String> = checks
        .iter()
        .enumerate()
        .filter(|(_, c)| matches!(c.verdict, harness::judge::check::Verdict::Fault(_)))
        .map(|(i, c)| format!("{i}: {:?}", c.verdict))
        .take(5)
        .collect();
    if checks.len() != vectors.len() || !faults.is_empty() {
        return Err(format!("{} results, faults: {faults:?}", checks.len()).into());
    }
    if t.elapsed() > std::time::Duration::from_secs(20) {
        return Err(format!("20,000 calls took {:?}", t.elapsed()).into());
    }
    Ok(())
}

/// The processes this process started (and theirs): the sandbox and the
/// worker in it.
fn descendants() -> Vec<i32> {
    fn children(pid: &str, out: &mut Vec<i32>) {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            return;
        };
        for t in tasks.flatten() {
            let text = std::fs::read_to_string(t.path().join("children")).unwrap_or_default();
            for c in text.split_whitespace() {
                if let Ok(p) = c.parse::<i32>() {
                    out.push(p);
                    children(c, out);
                }
            }
        }
    }
    let mut out = vec![];
    children("self", &mut out);
    out
}

/// A worker that reads its requests late (stopped, as on a machine under
/// load, for several call limits while it waits for a request) is no
/// hang: it is outside any call. The batch completes.
fn worker_slow_to_read_is_no_hang() -> Result<(), Failed> {
    let world = default_world()?;
    let vectors = generated_corpus(12_000);
    let calls: Vec<_> = vectors.iter().map(|v| call::to_shim(&v.call)).collect();
    let mut w = Worker::new(&world).map_err(err)?;
    w.set_call_timeout(std::time::Duration::from_millis(200));
    w.ensure_started().map_err(err)?;
    let pids = descendants();
    if pids.is_empty() {
        return Err("no worker process found".into());
    }
    for p in &pids {
        // SAFETY: signals to processes this test started.
        unsafe { libc::kill(*p, libc::SIGSTOP) };
    }
    let resume = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(1500));
        for p in &pids {
            // SAFETY: as above.
            unsafe { libc::kill(*p, libc::SIGCONT) };
        }
    });
    let r = w.run_batch(&calls);
    let _ = resume.join();
    let r = r.map_err(|e| format!("{e:#}"))?;
    let bad = r
        .iter()
        .filter(|x| !matches!(x, cworld::CallResult::Done(_)))
        .count();
    if r.len() != calls.len() || bad > 0 {
        return Err(format!("{} results, {bad} not returned", r.len()).into());
    }
    Ok(())
}

/// A cache that cannot hold a kernel (here a path under a plain file; a
/// read-only mount gives the same): the error names the path and says
/// what to do.
fn unusable_cache_is_named() -> Result<(), Failed> {
    let file = std::env::temp_dir().join(format!("hfi1-not-a-dir-{}", std::process::id()));
    std::fs::write(&file, b"").map_err(err)?;
    let cache = file.join("cache");
    let old = std::env::var_os("HFI1_CONFORMANCE_CACHE");
    std::env::set_var("HFI1_CONFORMANCE_CACHE", &cache);
    let r = kernel::fetch(kernel::DEFAULT_SERIES);
    match old {
        Some(v) => std::env::set_var("HFI1_CONFORMANCE_CACHE", v),
        None => std::env::remove_var("HFI1_CONFORMANCE_CACHE"),
    }
    let _ = std::fs::remove_file(&file);
    let msg = match r {
        Ok(t) => return Err(format!("fetched into a file: {}", t.root.display()).into()),
        Err(e) => format!("{e:#}"),
    };
    let shown = cache.display().to_string();
    for w in [
        shown.as_str(),
        "HFI1_CONFORMANCE_CACHE",
        "writable directory",
    ] {
        if !msg.contains(w) {
            return Err(format!("the error lacks {w:?}: {msg}").into());
        }
    }
    Ok(())
}

/// A fault-injection case.
type Case = fn() -> Result<(), Failed>;

fn main() {
    cworld::worker_main_if_requested();
    let mut args = Arguments::from_args();
    // They share the cache and the environment: one at a time.
    args.test_threads = Some(1);
    let cases: Vec<(&str, Case)> = vec![
        (
            "large_corpus_has_no_false_hang",
            large_corpus_has_no_false_hang,
        ),
        (
            "worker_slow_to_read_is_no_hang",
            worker_slow_to_read_is_no_hang,
        ),
        ("unusable_cache_is_named", unusable_cache_is_named),
        ("damaged_world_is_rebuilt", damaged_world_is_rebuilt),
        (
            "damaged_kept_objects_are_not_used",
            damaged_kept_objects_are_not_used,
        ),
        (
            "unloadable_world_could_not_run",
            unloadable_world_could_not_run,
        ),
        (
            "damaged_tree_is_extracted_again",
            damaged_tree_is_extracted_again,
        ),
        (
            "warm_run_writes_nothing_in_the_cache",
            warm_run_writes_nothing_in_the_cache,
        ),
        (
            "empty_cache_variable_is_unset",
            empty_cache_variable_is_unset,
        ),
        (
            "eviction_keeps_the_recent_worlds",
            eviction_keeps_the_recent_worlds,
        ),
        (
            "exact_version_is_cached_apart",
            exact_version_is_cached_apart,
        ),
    ];
    let trials = cases
        .into_iter()
        .map(|(name, f)| Trial::test(format!("faults::{name}"), f))
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
