//! The toolchain a world is built with, and running it in the sandbox.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, PoisonError};

use anyhow::{bail, Context, Result};

use super::BuildOptions;
use crate::sandbox::{Sandbox, Spec};

/// The C compiler of ordinary worlds: `$CC`, else `gcc`.
fn default_cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "gcc".into())
}

/// The C compiler of a world built with `opts`: a fuzz world's is
/// `$HFI1_FUZZ_CC`, else `clang`; a measuring world's [`measuring_cc`].
pub(super) fn compiler(opts: &BuildOptions) -> String {
    if opts.measure {
        measuring_cc()
    } else if opts.fuzz {
        std::env::var("HFI1_FUZZ_CC").unwrap_or_else(|_| "clang".into())
    } else {
        default_cc()
    }
}

/// The compiler of measuring worlds (MC/DC needs clang 19): `$HFI1_MEASURE_CC`,
/// else `clang-19` (Debian's name), else `clang`.
pub fn measuring_cc() -> String {
    if let Ok(cc) = std::env::var("HFI1_MEASURE_CC") {
        return cc;
    }
    if crate::sandbox::which("clang-19").is_some() {
        "clang-19".into()
    } else {
        "clang".into()
    }
}

/// The LLVM tool `name` (`llvm-cov`, `llvm-profdata`) of the measuring
/// compiler's own release: the one beside its real program
/// (`/usr/lib/llvm-19/bin/`), else `name-MAJOR`, else `name` on PATH.
pub fn llvm_tool(name: &str) -> PathBuf {
    let cc = measuring_cc();
    let real = program_path(std::ffi::OsStr::new(&cc));
    if let Ok(real) = std::fs::canonicalize(real) {
        if let Some(p) = real.parent().map(|d| d.join(name)).filter(|p| p.is_file()) {
            return p;
        }
    }
    if let Some(major) = cc.rsplit_once('-').map(|(_, v)| v) {
        if let Some(p) = crate::sandbox::which(&format!("{name}-{major}")) {
            return p;
        }
    }
    program_path(std::ffi::OsStr::new(name))
}

/// The major version of the measuring compiler (0 when it cannot say):
/// MC/DC needs 19.
pub fn measuring_cc_major() -> u32 {
    let v = version_of(&measuring_cc());
    v.split("clang version ")
        .nth(1)
        .and_then(|r| r.split('.').next())
        .and_then(|m| m.trim().parse().ok())
        .unwrap_or(0)
}

/// What `ask(cc)` answers, asked once a process for each compiler: a
/// world's cache key and command need the compiler's answers every time
/// a world is opened, and each question is a process run.
fn once_per_compiler<T: Clone + Send + 'static>(
    answers: &'static Mutex<Vec<(String, T)>>,
    cc: &str,
    ask: impl FnOnce(&str) -> Result<T>,
) -> Result<T> {
    let mut known = answers.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, t)) = known.iter().find(|(c, _)| c == cc) {
        return Ok(t.clone());
    }
    let t = ask(cc)?;
    known.push((cc.to_owned(), t.clone()));
    Ok(t)
}

/// The `cc` crate's settings that depend only on the compiler, one value
/// per compiler a process uses. Its clones share the crate's cache of
/// what it asked the compiler (its family, the flags it supports), so a
/// world's command is made without running the compiler again.
pub(super) fn cc_base(cc: &str) -> cc::Build {
    static BASE: Mutex<Vec<(String, cc::Build)>> = Mutex::new(Vec::new());
    once_per_compiler(&BASE, cc, |cc| Ok(new_cc_base(cc))).unwrap_or_else(|_| new_cc_base(cc))
}

fn new_cc_base(cc: &str) -> cc::Build {
    let target = env!("HARNESS_TARGET");
    let mut b = cc::Build::new();
    b.cargo_metadata(false)
        .cargo_warnings(false)
        .extra_warnings(false)
        .target(target)
        .host(target)
        .opt_level(2)
        .debug(true)
        .pic(true)
        .compiler(cc);
    b
}

/// The compiler's own header directory (`stddef.h` and the like), the
/// one system directory a world's `-nostdinc` build searches.
pub(super) fn compiler_include_dir(cc: &str) -> Result<PathBuf> {
    static DIRS: Mutex<Vec<(String, PathBuf)>> = Mutex::new(Vec::new());
    once_per_compiler(&DIRS, cc, ask_include_dir)
}

fn ask_include_dir(cc: &str) -> Result<PathBuf> {
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
    static VERSIONS: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());
    let ask = |cc: &str| {
        Ok(Command::new(cc)
            .arg("--version")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default())
    };
    once_per_compiler(&VERSIONS, cc, ask).unwrap_or_default()
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
