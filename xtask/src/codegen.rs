//! `cargo xtask codegen`: the generated files the repository commits,
//! written, or (`--check`) compared with what they would be.
//!
//! - `c-shim/schema.h`: the model's schema as C
//!   (`harness::cworld::ffi::abi::schema_header`);
//! - `harness/report.schema.json`: the JSON schema of the reports
//!   (`harness::report::json_schema`);
//! - `harness/src/cworld/ffi/bindings.rs`: bindgen's reading of
//!   `c-shim/shim.h`, which includes schema.h (so it is made after it).
//!   Needs libclang; where it is missing, `--check` checks the others and
//!   says the bindings were skipped.
//!
//! The tests `schema_header_is_fresh`, `committed_schema_is_fresh`
//! (harness) and `bindings_are_fresh` (below) check the same.

use anyhow::{Context, Result};
use harness::report::exit_code;

/// One generated file.
struct Generated {
    /// Its path in the project.
    path: &'static str,
    /// What it is generated from: what changed when it is stale.
    from: &'static str,
    /// Made by bindgen: needs libclang.
    bindgen: bool,
    /// Its text.
    make: fn() -> Result<String>,
}

/// Every generated file, in the order they are made.
const FILES: [Generated; 3] = [
    Generated {
        path: "c-shim/schema.h",
        from: "the schema (harness/model/src/types/, harness/src/cworld/ffi/abi.rs)",
        bindgen: false,
        make: || Ok(harness::cworld::ffi::abi::schema_header()),
    },
    Generated {
        path: "harness/report.schema.json",
        from: "the report types (harness/src/report)",
        bindgen: false,
        make: || Ok(harness::report::json_schema()),
    },
    Generated {
        path: "harness/src/cworld/ffi/bindings.rs",
        from: "c-shim/shim.h",
        bindgen: true,
        make: bindings,
    },
];

/// Writes every generated file, or (`check`) compares each with what is
/// committed: [`exit_code::FINDING`] when any is stale.
pub fn run(check: bool) -> Result<u8> {
    let mut stale = vec![];
    for f in &FILES {
        let path = harness::project_path(f.path);
        if f.bindgen && check {
            if let Err(e) = libclang() {
                eprintln!(
                    "skipped {}: {e} (apt-get install libclang-dev)",
                    path.display()
                );
                continue;
            }
        }
        let text = (f.make)().with_context(|| format!("generating {}", path.display()))?;
        if !check {
            std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
            println!("wrote {}", path.display());
        } else if std::fs::read_to_string(&path).unwrap_or_default() == text {
            println!("{} is fresh", path.display());
        } else {
            stale.push((path, f.from));
        }
    }
    for (path, from) in &stale {
        eprintln!(
            "error: {} is stale: {from} changed; run `cargo xtask codegen` and commit the result",
            path.display()
        );
    }
    Ok(if stale.is_empty() {
        exit_code::SUCCESS
    } else {
        exit_code::FINDING
    })
}

/// Whether libclang can be loaded (bindgen panics where it cannot: this
/// says so as an error first).
fn libclang() -> Result<()> {
    if !clang_sys::is_loaded() {
        clang_sys::load().map_err(|e| anyhow::anyhow!("libclang not found: {e}"))?;
    }
    Ok(())
}

/// bindgen cannot see that `shim_call` and `shim_outcome` (which hold the
/// schema's `shim_qp`, declared in Rust) are plain data: says so.
#[derive(Debug)]
struct PlainCall;

impl bindgen::callbacks::ParseCallbacks for PlainCall {
    fn add_derives(&self, info: &bindgen::callbacks::DeriveInfo<'_>) -> Vec<String> {
        if info.name == "shim_call" || info.name == "shim_outcome" {
            ["Debug", "Copy", "Clone", "PartialEq", "Eq"]
                .map(String::from)
                .to_vec()
        } else {
            vec![]
        }
    }
}

/// The text of harness/src/cworld/ffi/bindings.rs: bindgen on
/// c-shim/shim.h (as it is on disk, with the schema.h beside it).
fn bindings() -> Result<String> {
    libclang().context("bindgen needs libclang: on Debian, `apt-get install libclang-dev`")?;
    let header = harness::project_path("c-shim/shim.h");
    let b = bindgen::Builder::default()
        .header(header.display().to_string())
        .allowlist_type("shim_.*")
        .allowlist_function("shim_.*")
        // The entry points as a struct that loads a world's shared object
        // (libloading), every symbol required: the harness calls them
        // through it instead of retyping their signatures.
        .dynamic_library_name("ShimWorld")
        .dynamic_link_require_all(true)
        .allowlist_var("SHIM_.*")
        // Declared from the schema in harness/src/cworld/ffi/abi.rs.
        .blocklist_type("shim_qp")
        .blocklist_type("shim_wqe")
        .blocklist_type("shim_world")
        .blocklist_type("shim_args(_.*)?")
        .parse_callbacks(Box::new(PlainCall))
        .default_enum_style(bindgen::EnumVariation::Consts)
        .prepend_enum_name(false)
        .derive_default(true)
        .derive_eq(true)
        .impl_debug(false)
        // Not as compile-time asserts: they would stop the harness from
        // compiling after a schema change, before this command can run.
        // A world reports its sizes at load (shim_abi_sizes) instead.
        .layout_tests(false)
        // Every byte a field: the structs cross the worker pipe as bytes
        // (ffi::Plain), and implicit padding would be uninitialised memory.
        .explicit_padding(true)
        .generate_comments(true)
        .raw_line("//! Generated by `cargo xtask codegen` from c-shim/shim.h. Do not edit.")
        .raw_line("#![allow(non_camel_case_types, non_upper_case_globals, dead_code, clippy::all)]")
        .raw_line("pub use crate::cworld::ffi::abi::{shim_args, shim_qp, shim_world, shim_wqe};")
        .generate()
        .map_err(|e| anyhow::anyhow!("bindgen failed on {}: {e}", header.display()))?;
    Ok(b.to_string())
}

#[cfg(test)]
mod tests {
    /// The committed bindings match c-shim/shim.h. Needs libclang: where it
    /// is missing the test says so and passes, unless
    /// HFI1_REQUIRE_LIBCLANG=1 (CI installs libclang and sets it).
    #[test]
    fn bindings_are_fresh() {
        let fresh = match super::bindings() {
            Ok(t) => t,
            Err(e) => {
                assert!(
                    std::env::var("HFI1_REQUIRE_LIBCLANG").is_err(),
                    "bindgen could not run: {e:#}"
                );
                eprintln!("SKIPPED bindings_are_fresh: {e:#} (apt-get install libclang-dev)");
                return;
            }
        };
        let path = harness::project_path("harness/src/cworld/ffi/bindings.rs");
        let committed = std::fs::read_to_string(&path).expect("the bindings are committed");
        assert!(
            committed == fresh,
            "{} is stale: run `cargo xtask codegen` and commit it",
            path.display()
        );
    }

    /// c-shim/schema.h, which bindgen reads, is made before the bindings;
    /// every generated file is where the list says.
    #[test]
    fn schema_header_is_made_before_the_bindings() {
        let at = |p: &str| super::FILES.iter().position(|f| f.path == p);
        assert!(at("c-shim/schema.h") < at("harness/src/cworld/ffi/bindings.rs"));
        assert!(super::FILES
            .iter()
            .all(|f| harness::project_path(f.path).exists()));
    }
}
