//! The generic headers the extracted files include themselves: the unit
//! of extracted definitions includes those kcompat stands in for, as the
//! files do (a patch adding `#include <linux/bitfield.h>` for
//! `FIELD_PREP` gets it).

use std::path::PathBuf;

use anyhow::Result;

use super::manifest::{cshim_dir, Manifest};
use crate::kernel::KernelTree;

/// The `#include` lines of the extracted files' own generic headers that
/// kcompat stands in for, each once, in order. One kcompat lacks is left
/// out (the tree's own generic headers are not on the path, only its
/// rdma and uapi ones); what the file then uses of it is undeclared,
/// which the build's blame reads as a missing stand-in, never the
/// patch's fault.
pub(super) fn own_includes(tree: &KernelTree, manifest: &Manifest) -> Result<String> {
    let kcompat = kcompat_dir();
    let mut seen = vec![];
    let mut out = String::new();
    for e in &manifest.upstream.extract {
        let src = tree.read_to_string(&tree.path(&e.file))?;
        for h in angle_includes(&src) {
            if !seen.contains(&h) && kcompat.join(&h).is_file() {
                out.push_str(&format!("#include <{h}>\n"));
                seen.push(h);
            }
        }
    }
    out.push('\n');
    Ok(out)
}

/// kcompat's headers, first on every world's include path.
pub(super) fn kcompat_dir() -> PathBuf {
    cshim_dir().join("kcompat/include")
}

/// The headers `src` includes by `#include <...>` outside any
/// conditional group (an include under `#ifdef CONFIG_X` is left to the
/// file: the worlds include it unconditionally or not at all), in order.
fn angle_includes(src: &str) -> Vec<String> {
    let mut depth = 0usize;
    let mut out = vec![];
    for l in src.lines() {
        let Some(d) = l.trim_start().strip_prefix('#').map(str::trim_start) else {
            continue;
        };
        if d.starts_with("if") {
            depth += 1;
        } else if d.starts_with("endif") {
            depth = depth.saturating_sub(1);
        } else if depth == 0 {
            if let Some(h) = angle_include(l) {
                out.push(h.to_owned());
            }
        }
    }
    out
}

/// The header of an `#include <...>` line: a relative path of plain
/// names (no `..`: nothing outside kcompat's directory).
fn angle_include(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("include")?.trim_start();
    let h = rest.strip_prefix('<')?.split_once('>')?.0;
    let plain = h
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/_-.".contains(c));
    let inside = h
        .split('/')
        .all(|part| !part.is_empty() && part != "." && part != "..");
    (plain && inside).then_some(h)
}

#[cfg(test)]
mod tests {
    use super::{angle_includes, kcompat_dir};

    /// Top-level includes only, in order; none under a conditional, none
    /// that leaves kcompat's directory, quoted ones left to the build.
    #[test]
    fn the_files_own_includes_are_its_top_level_ones() {
        let src = "#include <linux/delay.h>\n#include \"hfi.h\"\n\
                   #ifdef CONFIG_X\n#include <linux/bitfield.h>\n#if 0\n#endif\n#endif\n\
                   # include <linux/minmax.h>\n#include <../mocks/journal.h>\n\
                   #include <linux/./x.h>\n";
        assert_eq!(angle_includes(src), ["linux/delay.h", "linux/minmax.h"]);
    }

    /// kcompat's time conversions are the kernel's for HZ=250: rounded up
    /// (a timeout is never shorter than asked), a negative millisecond
    /// count the longest timeout, as is a microsecond count past what a
    /// jiffy count can say. (Time stands still in the worlds; a patch
    /// testing a converted timeout's value would still see a truncating
    /// stand-in's 2 jiffies for 9 ms where the kernel has 3.)
    #[test]
    fn kcompat_time_conversions_round_up_as_the_kernel_does() {
        let dir = std::env::temp_dir().join(format!("hfi1-jiffies-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let src = dir.join("t.c");
        std::fs::write(
            &src,
            "#include <linux/jiffies.h>\n\
             int main(void)\n{\n\
             \treturn !(msecs_to_jiffies(0) == 0 && msecs_to_jiffies(1) == 1 &&\n\
             \t\t msecs_to_jiffies(4) == 1 && msecs_to_jiffies(5) == 2 &&\n\
             \t\t msecs_to_jiffies(10) == 3 && msecs_to_jiffies(-1) == MAX_JIFFY_OFFSET &&\n\
             \t\t usecs_to_jiffies(0) == 0 && usecs_to_jiffies(1) == 1 &&\n\
             \t\t usecs_to_jiffies(4000) == 1 && usecs_to_jiffies(4001) == 2 &&\n\
             \t\t usecs_to_jiffies(4294959296u) == 1073740 &&\n\
             \t\t usecs_to_jiffies(4294959297u) == MAX_JIFFY_OFFSET &&\n\
             \t\t jiffies_to_msecs(MAX_JIFFY_OFFSET) == 0xfffffff8u &&\n\
             \t\t secs_to_jiffies(2) == 500);\n}\n",
        )
        .expect("writing the test program");
        let exe = dir.join("t");
        let cc = super::super::tools::compiler(&crate::cworld::BuildOptions::default());
        let built = std::process::Command::new(cc)
            .arg("-I")
            .arg(kcompat_dir())
            .arg("-o")
            .arg(&exe)
            .arg(&src)
            .status()
            .expect("running the C compiler");
        let ran = built
            .success()
            .then(|| std::process::Command::new(&exe).status());
        let _ = std::fs::remove_dir_all(&dir);
        let ran = ran
            .expect("kcompat's <linux/jiffies.h> builds alone")
            .expect("running the test program");
        assert!(ran.success(), "a time conversion differs from the kernel's");
    }
}
