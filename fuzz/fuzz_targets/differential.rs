//! Differential fuzzing: libFuzzer's bytes become a call (any function in
//! scope, world and arguments drawn from those bytes by the generator,
//! inside the invariants, exactly as `--random` draws them), run on
//! upstream C and on the Rust model; any difference is a crash libFuzzer saves and minimises.
//!
//! The C world is built with clang `-fsanitize=fuzzer-no-link`, so edges
//! of upstream code guide the fuzzer as well as the model's. The world runs
//! in this process: libFuzzer's own crash handling is the isolation here.
//! See docs/vectors.md ("Fuzzing") for how to run it and turn a finding into a
//! vector.
#![no_main]

use std::sync::OnceLock;

use harness::cworld::{self, call, BuildOptions, Loaded};
use harness::generate::draw::Draw;
use harness::cworld::ffi::shim_outcome;
use harness::model::{self, types::Func};
use libfuzzer_sys::fuzz_target;

/// The loaded world, and the built one it came from (what its tree lacks).
static WORLD: OnceLock<(Loaded, cworld::BuiltWorld)> = OnceLock::new();

fn world() -> &'static (Loaded, cworld::BuiltWorld) {
    WORLD.get_or_init(|| {
        let series = std::env::var("HFI1_FUZZ_KERNEL").unwrap_or_else(|_| "6.12".into());
        let tree = harness::kernel::fetch(&series).expect("kernel tree");
        let built = cworld::build(
            &tree,
            &BuildOptions {
                fuzz: true,
                ..Default::default()
            },
        )
        .expect("fuzzing C world");
        // SAFETY: the default series' Debian tree; libFuzzer needs the
        // world in-process (its crash handling is the isolation, its
        // -timeout the watchdog). Not for untrusted trees.
        let loaded = unsafe { Loaded::open(&built.so) }.expect("loading the C world");
        (loaded, built)
    })
}

fuzz_target!(
    init: {
        world();
    },
    |data: &[u8]| {
        let mut u = Draw::new(data);
        let func = u.choose(Func::ALL);
        let (loaded, built) = world();
        if built.lacks(*func) {
            return; // the tree has no such function
        }
        let Ok(c) = harness::generate::call(*func, &mut u) else { return };
        let mut out = shim_outcome::default();
        assert!(loaded.call(&call::to_shim(&c), &mut out), "the shim refused a valid call");
        if let Ok(r) = model::run(&c) {
            let cout = call::from_shim(&out);
            let diff = call::model_diff(&cout, &r);
            assert!(
                diff.is_empty(),
                "C and Rust differ on {func}: {diff:?}\n{}",
                harness::corpus::write::case_toml(&c, "fuzz_finding", "fuzz finding")
            );
        }
    }
);
