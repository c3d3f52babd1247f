//! The C world is dlopen()ed: its coverage hooks call libFuzzer's
//! `__sanitizer_cov_*` functions, which live in this binary and must be
//! exported to it.
fn main() {
    println!("cargo:rustc-link-arg=-rdynamic");
}
