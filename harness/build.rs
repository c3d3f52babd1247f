//! Passes the target triple to the library: C worlds are compiled at run
//! time with the `cc` crate, which needs to know what it compiles for.
fn main() {
    let target = std::env::var("TARGET").unwrap_or_else(|_| "x86_64-unknown-linux-gnu".into());
    println!("cargo:rustc-env=HARNESS_TARGET={target}");
    println!("cargo:rerun-if-changed=build.rs");
}
