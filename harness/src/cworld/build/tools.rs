//! The toolchain a world is built with, and running it in the sandbox.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use super::BuildOptions;
use crate::sandbox::{Sandbox, Spec};

/// The C compiler of ordinary worlds: `$CC`, else `gcc`.
fn default_cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "gcc".into())
}

/// The C compiler of a world built with `opts`: a fuzz world's is
/// `$HFI1_FUZZ_CC`, else `clang`.
pub(super) fn compiler(opts: &BuildOptions) -> String {
    if opts.fuzz {
        std::env::var("HFI1_FUZZ_CC").unwrap_or_else(|_| "clang".into())
    } else {
        default_cc()
    }
}

/// The compiler's own header directory (`stddef.h` and the like), the
/// one system directory a world's `-nostdinc` build searches.
pub(super) fn compiler_include_dir(cc: &str) -> Result<PathBuf> {
    let out = Command::new(cc)
        .arg("-print-file-name=include")
        .output()
        .with_context(|| format!("running {cc} (is a C compiler installed?)"))?;
    let p = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    if !p.join("stddef.h").is_file() {
        bail!(
            "{cc} -print-file-name=include gave {}, which has no stddef.h",
            p.display()
        );
    }
    Ok(p)
}

/// What the default compiler says its version is (part of a world's
/// cache key).
pub(super) fn compiler_version() -> String {
    version_of(&default_cc())
}

/// What compiler `cc` says its version is (`--version`; empty when it
/// cannot be run).
pub(super) fn version_of(cc: &str) -> String {
    Command::new(cc)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// The absolute path of a program named on PATH (or already absolute).
pub(super) fn program_path(program: &std::ffi::OsStr) -> PathBuf {
    let p = Path::new(program);
    if p.is_absolute() {
        return p.to_owned();
    }
    crate::sandbox::which(&p.to_string_lossy()).unwrap_or_else(|| p.to_owned())
}

/// `cmd` (a program and its arguments) run in the sandbox of `spec`.
pub(super) fn sandboxed(sb: &Sandbox, spec: &Spec, cmd: &Command) -> Result<Command> {
    let mut c = sb.command(spec, &program_path(cmd.get_program()))?;
    c.args(cmd.get_args());
    Ok(c)
}
