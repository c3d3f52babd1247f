//! The recorder and its reader end to end: a made-up C function compiled
//! with clang 19's trace-cmp beside `c-shim/measure/cmp.c`, run, and read
//! back as the measuring world's tables are.

use std::path::Path;
use std::process::Command;

use super::sites::{self, Place};
use super::*;

/// Made-up C (not upstream code): one comparison of each kind the reader
/// must tell apart.
const PROGRAM: &str = "\
#define unlikely(x) __builtin_expect(!!(x), 0)
int f(int a, int b, unsigned char c, long d)
{
\tint r = 0;

\tif (a >= b)
\t\tr++;
\tif (a<b)
\t\tr += c >> 1;
\tif (c <= 3)
\t\tr--;
\tif (7 < d)
\t\tr++;
\tif (unlikely(d > a + 4))
\t\tr++;
\treturn r;
}
";

const MAIN: &str = "\
int f(int a, int b, unsigned char c, long d);
int main(void)
{
\treturn f(3, 3, 3, 8) + f(2, 3, 4, 8) > 100;
}
";

/// A scratch directory, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(cmd: &mut Command) {
    let o = cmd.output().expect("running the compiler");
    assert!(
        o.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Builds `libt.so` (the program with trace-cmp, and the recorder) and
/// runs a main linked to it, which writes its table under `dir/tables`.
fn build_and_run(cc: &str, dir: &Path) {
    let kcompat = crate::cworld::build::cshim_dir().join("kcompat/include");
    let include = Command::new(cc)
        .arg("-print-file-name=include")
        .output()
        .expect("asking clang for its headers");
    let include = String::from_utf8_lossy(&include.stdout).trim().to_owned();
    std::fs::write(dir.join("t.c"), PROGRAM).unwrap();
    std::fs::write(dir.join("main.c"), MAIN).unwrap();
    run(Command::new(cc)
        .args([
            "-g",
            "-O0",
            "-fPIC",
            "-nostdinc",
            "-ffreestanding",
            "-Wall",
            "-Werror",
        ])
        .args(["-isystem", &include, "-D__KERNEL__", "-include"])
        .arg(kcompat.join("linux/kconfig.h"))
        .arg("-I")
        .arg(&kcompat)
        .arg("-I")
        .arg(kcompat.join("uapi"))
        .arg("-c")
        .arg(crate::cworld::build::cshim_dir().join("measure/cmp.c"))
        .arg("-o")
        .arg(dir.join("cmp.o")));
    run(Command::new(cc)
        .args(["-g", "-O0", "-fPIC"])
        .args(crate::cworld::build::TRACE_CMP_FLAGS)
        .arg("-c")
        .arg(dir.join("t.c"))
        .arg("-o")
        .arg(dir.join("t.o")));
    run(Command::new(cc)
        .args(["-shared", "-Wl,-z,defs", "-o"])
        .arg(dir.join("libt.so"))
        .arg(dir.join("t.o"))
        .arg(dir.join("cmp.o")));
    run(Command::new(cc)
        .arg(dir.join("main.c"))
        .arg("-o")
        .arg(dir.join("main"))
        .arg(dir.join("libt.so"))
        .arg(format!("-Wl,-rpath,{}", dir.display())));
    std::fs::create_dir_all(dir.join("tables")).unwrap();
    let o = Command::new(dir.join("main"))
        .env(crate::cworld::build::CMP_DIR_ENV, dir.join("tables"))
        .output()
        .expect("running the test program");
    assert!(o.status.success(), "{o:?}");
}

#[test]
fn the_recorder_sees_each_side_and_the_reader_finds_each_operator() {
    let cc = crate::cworld::build::measuring_cc();
    if crate::cworld::build::measuring_cc_major() < 19 {
        eprintln!("note: {cc} is not clang 19 or later; the comparison recorder is not tried");
        return;
    }
    let tmp =
        Scratch(std::env::temp_dir().join(format!("hfi1-boundaries-test-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&tmp.0);
    std::fs::create_dir_all(&tmp.0).unwrap();
    let dir = tmp.0.as_path();
    build_and_run(&cc, dir);
    let seen = sites::read_tables(&dir.join("tables")).unwrap();
    let so = dir.join("libt.so");
    let returns = sites::call_sites(&so).unwrap();
    // Every site that ran is one the disassembly found.
    assert!(
        seen.keys().all(|pc| returns.contains(pc)),
        "{seen:?} {returns:?}"
    );
    let places = sites::symbolize(&so, &returns).unwrap();
    let src: Vec<String> = PROGRAM.lines().map(str::to_owned).collect();
    let mut groups: BTreeMap<Place, Vec<u64>> = BTreeMap::new();
    for (pc, p) in returns.iter().zip(places) {
        groups.entry(p.expect("a place")).or_default().push(*pc);
    }
    let mut got = vec![];
    for (p, pcs) in &groups {
        assert!(p.file.ends_with("t.c"), "{p:?}");
        for (_, line, col, op, pcs) in comparisons_at(&src, p, pcs) {
            let text = &src[line - 1];
            let sides = pcs
                .iter()
                .map(|pc| oriented(seen.get(pc).copied().unwrap_or_default(), text, col, op))
                .fold(0, |a, b| a | b);
            got.push((line, expression_at(text, col - 1, op), sides));
        }
    }
    got.sort();
    let want = vec![
        (6, "a >= b".to_owned(), EQUAL | BELOW),
        (8, "a < b".to_owned(), EQUAL | BELOW),
        (10, "c <= 3".to_owned(), EQUAL | ABOVE),
        // The constant written on the left: 7 == 8 - 1.
        (12, "7 < d".to_owned(), BELOW),
        // In a macro's argument, before the macro's own `!!` test.
        (14, "d > a + 4".to_owned(), ABOVE),
    ];
    assert_eq!(got, want);
}
