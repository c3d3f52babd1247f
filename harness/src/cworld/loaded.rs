//! A world's shared object loaded into this process: what a worker calls.

use std::path::Path;

use anyhow::{bail, Context, Result};

use super::ffi::{self, shim_call, shim_outcome};

/// A world's shared object loaded into this process. Only workers (and the
/// raw-call benchmark) do this. Its entry points are bindgen's
/// (`ffi::ShimWorld`, from `c-shim/shim.h`), not retyped here.
pub struct Loaded {
    world: ffi::ShimWorld,
}

impl Loaded {
    /// Loads a world into this process.
    ///
    /// # Safety
    ///
    /// Loading runs the object's constructors and its calls run upstream
    /// code, unsandboxed: `so` must be a world this project built from a
    /// tree whose code is trusted, and a crash in it takes this process.
    /// Workers (sandboxed, confined) are where worlds are loaded; the
    /// fuzz target and the profiling example are the exceptions, on the
    /// Debian trees.
    pub unsafe fn open(so: &Path) -> Result<Loaded> {
        // SAFETY: the caller's promise, passed on.
        unsafe { Loaded::open_switched(so, None) }
    }

    /// [`Loaded::open`], then the world's `int` variable `switch.0` set to
    /// `switch.1` before any call (a mutant schemata world's switch).
    ///
    /// # Safety
    ///
    /// As [`Loaded::open`]; and `switch.0`, if given, must name an `int`.
    pub unsafe fn open_switched(so: &Path, switch: Option<(&str, i32)>) -> Result<Loaded> {
        // SAFETY: the caller's promise above.
        let library = unsafe { libloading::Library::new(so) }
            .with_context(|| format!("loading {}", so.display()))?;
        if let Some((name, value)) = switch {
            // SAFETY: the caller's promise that the symbol is an int; it
            // lives as long as `library`, which the world keeps.
            unsafe {
                let var = library
                    .get::<*mut std::ffi::c_int>(name.as_bytes())
                    .with_context(|| {
                        format!(
                            "{} has no switch {name}: build its world again",
                            so.display()
                        )
                    })?;
                (*var).write(value);
            }
        }
        // SAFETY: the symbols' types are shim.h's, as bindgen read them.
        let world = unsafe { ffi::ShimWorld::from_library(library) }
            .with_context(|| format!("loading {}", so.display()))?;
        // SAFETY: both take no arguments and only return a constant.
        let (abi, sizes) = unsafe { (world.shim_abi_version(), world.shim_abi_sizes()) };
        if abi != ffi::SHIM_ABI_VERSION {
            bail!(
                "{} speaks shim ABI {abi}, this harness {}: rebuild it",
                so.display(),
                ffi::SHIM_ABI_VERSION
            );
        }
        let ours = ((std::mem::size_of::<shim_call>() as u64) << 32)
            | std::mem::size_of::<shim_outcome>() as u64;
        if sizes != ours {
            bail!(
                "{} has a shim_call of {} bytes and a shim_outcome of {}, this harness {} and {}: \
                 c-shim/schema.h or the bindings are stale; run `cargo xtask codegen` and rebuild",
                so.display(),
                sizes >> 32,
                sizes & 0xffff_ffff,
                std::mem::size_of::<shim_call>(),
                std::mem::size_of::<shim_outcome>()
            );
        }
        // SAFETY: no argument; it runs upstream's qp_priv_alloc() once on
        // the world's own storage, before any call.
        unsafe { world.shim_prepare() };
        Ok(Loaded { world })
    }

    /// The raw benchmark: `call`'s world built once, its function run
    /// `iters` times. Returns the shim's checksum.
    pub fn bench(&self, call: &shim_call, iters: u64) -> u64 {
        // SAFETY: a valid call; the shim only reads it.
        unsafe { self.world.shim_bench(call, iters) }
    }

    /// Writes a coverage or measuring world's counters out (a no-op in
    /// other worlds): a worker that crashes later loses only what ran
    /// after. Whether the world has counters.
    pub fn flush_counters(&self) -> bool {
        // SAFETY: no argument; it only writes the counters' files.
        unsafe { self.world.shim_flush_counters() != 0 }
    }

    /// The world's counter flush as a plain function, for a signal
    /// handler (the library stays loaded while `self` lives).
    pub fn counter_flusher(&self) -> unsafe extern "C" fn() -> std::os::raw::c_int {
        self.world.shim_flush_counters
    }

    /// Runs one call. Returns false when the shim refused it.
    pub fn call(&self, call: &shim_call, out: &mut shim_outcome) -> bool {
        // SAFETY: both pointers are valid for the duration of the call.
        unsafe { self.world.shim_run(call, out) == 0 }
    }
}
