mod bindgen;

use std::path::PathBuf;

fn main() -> anyhow::Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("bindgen") => bindgen::run(&root, args.iter().any(|a| a == "--check")),
        _ => anyhow::bail!("usage: cargo xtask bindgen [--check]"),
    }
}
