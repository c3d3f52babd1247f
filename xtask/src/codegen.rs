//! `cargo xtask codegen`: the generated files the repository commits,
//! written, or (`--check`) compared with what they would be.
//!
//! - `c-shim/schema.h`: the model's schema as C
//!   (`harness::cworld::ffi::abi::schema_header`);
//! - `harness/report.schema.json`: the JSON schema of the reports
//!   (`harness::report::json_schema`);
//! - `harness/src/cworld/ffi/types.rs` and `harness/src/cworld/ffi/bindings.rs`:
//!   bindgen's reading of `c-shim/shim.h`, which includes schema.h (so they
//!   are made after it), split where the header is: `types.rs` the value
//!   types declared before `#include "schema.h"` (which the schema's records
//!   hold), `bindings.rs` the rest (`shim_call`, `shim_outcome`, the entry
//!   points), which holds the records. In Rust as in C: types, then the
//!   records (`abi.rs`), then the call; no module uses one above it.
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
const FILES: [Generated; 4] = [
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
        path: "harness/src/cworld/ffi/types.rs",
        from: "c-shim/shim.h",
        bindgen: true,
        make: types,
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

/// What bindgen cannot see of the types declared elsewhere in Rust.
///
/// `shim_call` and `shim_outcome` hold the schema's records (`shim_qp`,
/// declared in abi.rs): they are plain data all the same.
///
/// In bindings.rs the value types (in types.rs, blocklisted there) derive
/// what types.rs derives for them, as bindgen would see were they in the
/// same file: the structs holding them (the anonymous tables of
/// `shim_world`) derive the same traits as ever.
#[derive(Debug)]
struct PlainCall {
    /// The value types of shim.h ([`value_types`]).
    value_types: Vec<String>,
}

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

    fn blocklisted_type_implements_trait(
        &self,
        name: &str,
        derive: bindgen::callbacks::DeriveTrait,
    ) -> Option<bindgen::callbacks::ImplementsTrait> {
        use bindgen::callbacks::{DeriveTrait, ImplementsTrait};
        // What types.rs derives (derive_default, derive_eq; not Hash).
        let derived = matches!(
            derive,
            DeriveTrait::Copy
                | DeriveTrait::Debug
                | DeriveTrait::Default
                | DeriveTrait::PartialEqOrPartialOrd
        );
        (derived && self.value_types.iter().any(|t| t == name)).then_some(ImplementsTrait::Yes)
    }
}

/// The line of c-shim/shim.h after the value types and before the call.
const SCHEMA_INCLUDE: &str = "#include \"schema.h\"";

/// The names shim.h declares before it includes schema.h: its value types
/// (typedefs, structs) and constants (object-like macros), which go in
/// `types.rs`. Read from the top-level lines of the header's own style
/// (`typedef ... name;`, `struct name {`, `#define NAME value`); any other
/// top-level `struct`, `union` or `enum` line there is an error, rather
/// than a type left in the wrong file.
fn value_types(header: &str) -> Result<Vec<String>> {
    let (before, _) = header
        .split_once(&format!("\n{SCHEMA_INCLUDE}\n"))
        .with_context(|| format!("c-shim/shim.h has no line `{SCHEMA_INCLUDE}`"))?;
    let mut names: Vec<String> = vec![];
    // Top-level lines only: not a struct's members, not a comment's.
    for line in before
        .lines()
        .filter(|l| !l.starts_with(char::is_whitespace))
    {
        let words: Vec<&str> = line.split_whitespace().collect();
        let name = match words.as_slice() {
            ["typedef", .., last] if last.ends_with(';') => last.trim_end_matches(';'),
            ["struct" | "union" | "enum", name, "{"] => name,
            ["struct" | "union" | "enum", ..] | ["typedef", ..] => anyhow::bail!(
                "c-shim/shim.h: cannot tell what `{line}` declares \
                 (write `struct name {{` or `typedef ... name;` on one line)"
            ),
            ["#define", name, _value, ..] if !name.contains('(') => name,
            _ => continue,
        };
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    Ok(names)
}

/// bindgen on c-shim/shim.h (as it is on disk, with the schema.h beside
/// it), with the options both generated files share, then `configure`'s.
fn generate(
    value_types: &[String],
    configure: impl FnOnce(bindgen::Builder) -> bindgen::Builder,
) -> Result<String> {
    libclang().context("bindgen needs libclang: on Debian, `apt-get install libclang-dev`")?;
    let header = harness::project_path("c-shim/shim.h");
    let b = bindgen::Builder::default()
        .header(header.display().to_string())
        .parse_callbacks(Box::new(PlainCall {
            value_types: value_types.to_vec(),
        }))
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
        .generate_comments(true);
    let b = configure(b)
        .generate()
        .map_err(|e| anyhow::anyhow!("bindgen failed on {}: {e}", header.display()))?;
    Ok(b.to_string())
}

/// The value types of c-shim/shim.h (see [`value_types`]).
fn shim_value_types() -> Result<Vec<String>> {
    let path = harness::project_path("c-shim/shim.h");
    let header =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    value_types(&header)
}

/// The text of harness/src/cworld/ffi/types.rs: the value types of
/// c-shim/shim.h, below the schema's records (`abi.rs`), which hold them.
fn types() -> Result<String> {
    let names = shim_value_types()?;
    generate(&names, |b| {
        names
            .iter()
            .fold(b, |b, n| b.allowlist_item(n))
            .raw_line(concat!(
                "//! Generated by `cargo xtask codegen` from c-shim/shim.h ",
                "(its value types). Do not edit."
            ))
    })
}

/// The text of harness/src/cworld/ffi/bindings.rs: the rest of
/// c-shim/shim.h (the call, the outcome, the entry points), above the
/// value types and the schema's records, which it imports.
fn bindings() -> Result<String> {
    let names = shim_value_types()?;
    generate(&names, |b| {
        let b = b
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
            .blocklist_type("shim_engines")
            .blocklist_type("shim_args(_.*)?");
        // In types.rs.
        names
            .iter()
            .fold(b, |b, n| b.blocklist_item(n))
            .raw_line("//! Generated by `cargo xtask codegen` from c-shim/shim.h. Do not edit.")
            .raw_line("use super::abi::{shim_args, shim_engines, shim_qp, shim_world, shim_wqe};")
            .raw_line("use super::types::*;")
    })
}

#[cfg(test)]
mod tests {
    /// The committed bindings (types.rs and bindings.rs) match
    /// c-shim/shim.h. Needs libclang: where it is missing the test says so
    /// and passes, unless HFI1_REQUIRE_LIBCLANG=1 (CI installs libclang and
    /// sets it).
    #[test]
    fn bindings_are_fresh() {
        if let Err(e) = super::libclang() {
            assert!(
                std::env::var("HFI1_REQUIRE_LIBCLANG").is_err(),
                "bindgen could not run: {e:#}"
            );
            eprintln!("SKIPPED bindings_are_fresh: {e:#} (apt-get install libclang-dev)");
            return;
        }
        let files: Vec<_> = super::FILES.iter().filter(|f| f.bindgen).collect();
        assert_eq!(files.len(), 2, "types.rs and bindings.rs");
        for f in files {
            let fresh = (f.make)().unwrap_or_else(|e| panic!("generating {}: {e:#}", f.path));
            let path = harness::project_path(f.path);
            let committed = std::fs::read_to_string(&path).expect("the bindings are committed");
            assert!(
                committed == fresh,
                "{} is stale: run `cargo xtask codegen` and commit it",
                path.display()
            );
        }
    }

    /// c-shim/schema.h, which bindgen reads, is made before the bindings;
    /// every generated file is where the list says.
    #[test]
    fn schema_header_is_made_before_the_bindings() {
        let at = |p: &str| super::FILES.iter().position(|f| f.path == p);
        for f in super::FILES.iter().filter(|f| f.bindgen) {
            assert!(at("c-shim/schema.h") < at(f.path), "{}", f.path);
        }
        assert!(super::FILES
            .iter()
            .all(|f| harness::project_path(f.path).exists()));
    }

    /// The value types are what shim.h declares before schema.h: those the
    /// schema's records hold, not the call, the outcome or an entry point.
    #[test]
    fn value_types_are_those_before_the_schema() {
        let names = super::shim_value_types().expect("c-shim/shim.h reads");
        for n in [
            "shim_u8",
            "shim_i32",
            "shim_u64",
            "shim_opt_u32",
            "shim_ack_queue",
            "shim_swqe",
            "shim_opt_ah",
            "shim_iter_list",
            "shim_map",
            "shim_map_elem",
            "SHIM_NONE",
            "SHIM_MAX_SWQE",
            "SHIM_ABI_VERSION",
        ] {
            assert!(names.iter().any(|x| x == n), "{n} not in {names:?}");
        }
        for n in [
            "shim_call",
            "shim_outcome",
            "shim_run",
            "shim_qp",
            "HFI1_CONFORMANCE_SHIM_H",
        ] {
            assert!(!names.iter().any(|x| x == n), "{n} in {names:?}");
        }
        let read = |h: &str| super::value_types(h).map_err(|e| e.to_string());
        let h = "typedef int a;\n#define B 1\n#define C(x) x\nstruct d {\n\tstruct d2 x;\n};\n\
                 #include \"schema.h\"\nstruct e {\n};\n";
        assert_eq!(read(h), Ok(vec!["a".into(), "B".into(), "d".into()]));
        assert!(read("struct a\n{\n};\n#include \"schema.h\"\n").is_err());
        assert!(read("struct a {\n};\n").is_err());
    }
}
