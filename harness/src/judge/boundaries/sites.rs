//! The binary side of comparison boundaries: the recorder's tables the
//! workers wrote (`c-shim/measure/cmp.c`), every comparison call site of
//! the world's shared object (`llvm-objdump`), and where each is in the
//! source (`llvm-symbolizer`, one run for all of them).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use crate::cworld;

/// `a == b` seen (`cmp.h`'s `CMP_EQUAL`).
pub const EQUAL: u32 = 1;
/// `a == b - 1` seen.
pub const BELOW: u32 = 2;
/// `a == b + 1` seen.
pub const ABOVE: u32 = 4;
/// One operand was a constant, which the compiler passes first: the
/// recorder took it to be the right-hand one.
pub const CONST: u32 = 8;

/// The first word of a table (`cmp.h`'s `CMP_TABLE_MAGIC`).
const MAGIC: &str = "hfi1-cmp-1";

/// What the recorder saw at one call site, summed over workers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Seen {
    /// The sides seen (`EQUAL`, `BELOW`, `ABOVE`, and `CONST`).
    pub sides: u32,
    /// How often it ran.
    pub runs: u64,
}

/// Reads one table: `(return address, seen)` per call site and the call
/// sites it had no room for.
pub fn parse_table(text: &str) -> Result<(Vec<(u64, Seen)>, u64)> {
    let mut lines = text.lines();
    let head = lines.next().unwrap_or_default();
    let dropped = match head.split_once(' ') {
        Some((MAGIC, n)) => n.trim().parse::<u64>().ok(),
        _ => None,
    };
    let Some(dropped) = dropped else {
        bail!("not a comparison table (its first line is {head:?}, not \"{MAGIC} N\")");
    };
    let mut out = vec![];
    for (i, l) in lines.enumerate() {
        let f: Vec<&str> = l.split_whitespace().collect();
        let parsed = match f[..] {
            [pc, sides, runs] => u64::from_str_radix(pc, 16)
                .ok()
                .zip(sides.parse::<u32>().ok())
                .zip(runs.parse::<u64>().ok()),
            _ => None,
        };
        let Some(((pc, sides), runs)) = parsed else {
            bail!("line {}: {l:?} is not \"OFFSET SIDES RUNS\"", i + 2);
        };
        out.push((pc, Seen { sides, runs }));
    }
    Ok((out, dropped))
}

/// Every table under `dir` (`cmp-*.txt`, one per worker), summed per
/// call site.
pub fn read_tables(dir: &Path) -> Result<BTreeMap<u64, Seen>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("cmp-") && n.ends_with(".txt"))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        bail!(
            "no comparison tables in {}: the measuring world's worker wrote none (it writes \
             one when it exits normally; is c-shim/measure/cmp.c linked in?)",
            dir.display()
        );
    }
    let mut out: BTreeMap<u64, Seen> = BTreeMap::new();
    for f in files {
        let text =
            std::fs::read_to_string(&f).with_context(|| format!("reading {}", f.display()))?;
        let (sites, dropped) = parse_table(&text).with_context(|| format!("{}", f.display()))?;
        if dropped > 0 {
            bail!(
                "{}: {dropped} comparison call sites found the recorder's table full: raise \
                 CMP_SLOTS in c-shim/measure/cmp.c",
                f.display()
            );
        }
        for (pc, s) in sites {
            let e = out.entry(pc).or_default();
            e.sides |= s.sides;
            e.runs += s.runs;
        }
    }
    Ok(out)
}

/// The return address of every call to a comparison callback in a
/// disassembly (`llvm-objdump -d --no-show-raw-insn`): the address of the
/// instruction after the call, which is what the recorder keeps.
pub fn parse_disassembly(text: &str) -> Vec<u64> {
    let mut out = vec![];
    let mut after_call = false;
    for l in text.lines() {
        let Some((addr, insn)) = l.trim_start().split_once(':') else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr.trim(), 16) else {
            continue;
        };
        if after_call {
            out.push(addr);
        }
        after_call = insn.contains("call") && is_cmp_callback(insn);
    }
    out
}

/// Whether a call instruction's text names a comparison callback
/// (`<__sanitizer_cov_trace_cmp4@plt>`, `..._const_cmp8`), not the
/// switch one.
fn is_cmp_callback(insn: &str) -> bool {
    let Some(at) = insn.find("<__sanitizer_cov_trace_") else {
        return false;
    };
    let name = &insn[at + "<__sanitizer_cov_trace_".len()..];
    let name = name.strip_prefix("const_").unwrap_or(name);
    name.strip_prefix("cmp")
        .and_then(|r| r.chars().next())
        .is_some_and(|c| matches!(c, '1' | '2' | '4' | '8'))
}

/// Every comparison call site of `so`, by return address (sorted).
pub fn call_sites(so: &Path) -> Result<Vec<u64>> {
    let tool = cworld::build::llvm_tool("llvm-objdump");
    let o = Command::new(&tool)
        .args(["-d", "--no-show-raw-insn"])
        .arg(so)
        .output()
        .with_context(|| format!("running {} (apt-get install llvm-19)", tool.display()))?;
    if !o.status.success() {
        bail!(
            "{} -d {} failed: {}",
            tool.display(),
            so.display(),
            String::from_utf8_lossy(&o.stderr).trim_end()
        );
    }
    let mut sites = parse_disassembly(&String::from_utf8_lossy(&o.stdout));
    sites.sort_unstable();
    sites.dedup();
    Ok(sites)
}

/// Where a call site is in the source: the innermost frame (an inlined
/// function's own line) of the call instruction.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Place {
    /// The file as compiled (absolute).
    pub file: String,
    /// 1-based line, as the debug information says (after `#line`).
    pub line: usize,
    /// 1-based byte column.
    pub col: usize,
    /// The start address of the function holding the site (its
    /// outermost frame): one copy of a header's inline function.
    pub copy: u64,
}

/// One answer of `llvm-symbolizer --output-style=JSON`.
#[derive(Deserialize)]
struct Answer {
    #[serde(rename = "Symbol", default)]
    symbol: Vec<Frame>,
}

#[derive(Deserialize)]
struct Frame {
    #[serde(rename = "FileName", default)]
    file: String,
    #[serde(rename = "Line", default)]
    line: usize,
    #[serde(rename = "Column", default)]
    col: usize,
    #[serde(rename = "StartAddress", default)]
    start: String,
}

/// Reads `llvm-symbolizer --output-style=JSON`'s answers, one a line, in
/// the order asked.
pub fn parse_symbolized(text: &str) -> Result<Vec<Option<Place>>> {
    let mut out = vec![];
    for l in text.lines().filter(|l| !l.trim().is_empty()) {
        let a: Answer = serde_json::from_str(l)
            .with_context(|| format!("reading llvm-symbolizer's answer {l:?}"))?;
        let (Some(inner), Some(outer)) = (a.symbol.first(), a.symbol.last()) else {
            out.push(None);
            continue;
        };
        let copy = u64::from_str_radix(outer.start.trim_start_matches("0x"), 16).unwrap_or(0);
        out.push((inner.line > 0 && !inner.file.is_empty()).then(|| Place {
            file: inner.file.clone(),
            line: inner.line,
            col: inner.col,
            copy,
        }));
    }
    Ok(out)
}

/// Where each return address of `so` is in the source: the call before it
/// (`pc - 1`), all in one run of `llvm-symbolizer`.
pub fn symbolize(so: &Path, returns: &[u64]) -> Result<Vec<Option<Place>>> {
    let tool = cworld::build::llvm_tool("llvm-symbolizer");
    let mut child = Command::new(&tool)
        .args(["--output-style=JSON", "--inlines", "--obj"])
        .arg(so)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("running {} (apt-get install llvm-19)", tool.display()))?;
    let mut input = String::new();
    for pc in returns {
        input.push_str(&format!("0x{:x}\n", pc.saturating_sub(1)));
    }
    let mut stdin = child.stdin.take().context("llvm-symbolizer's stdin")?;
    // Written from a thread: the answers fill the other pipe meanwhile.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let o = child
        .wait_with_output()
        .context("waiting for llvm-symbolizer")?;
    writer
        .join()
        .map_err(|_| anyhow::anyhow!("writing to llvm-symbolizer panicked"))?
        .context("writing addresses to llvm-symbolizer")?;
    if !o.status.success() {
        bail!(
            "{} failed: {}",
            tool.display(),
            String::from_utf8_lossy(&o.stderr).trim_end()
        );
    }
    let places = parse_symbolized(&String::from_utf8_lossy(&o.stdout))?;
    if places.len() != returns.len() {
        bail!(
            "{} answered {} of {} addresses",
            tool.display(),
            places.len(),
            returns.len()
        );
    }
    Ok(places)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_read_and_bad_lines_named() {
        let (s, d) = parse_table("hfi1-cmp-1 0\n120c 3 2\n125f 12 7\n").unwrap();
        assert_eq!(d, 0);
        assert_eq!(s[1], (0x125f, Seen { sides: 12, runs: 7 }));
        let e = parse_table("hfi1-cmp-1 0\n120c x 2\n").unwrap_err();
        assert!(format!("{e:#}").contains("line 2"), "{e:#}");
        assert!(parse_table("something else\n").is_err());
    }

    #[test]
    fn the_disassembly_gives_the_return_address_of_comparison_calls_only() {
        let text = "\
    1207:      \tcallq\t0x1090 <__sanitizer_cov_trace_cmp4@plt>
    120c:      \tmovl\t-0x38(%rbp), %ecx
    1220:      \tcallq\t0x10a0 <__sanitizer_cov_trace_switch@plt>
    1225:      \tnop
    125a:      \tcallq\t0x10a0 <__sanitizer_cov_trace_const_cmp8@plt>
    125f:      \tmovq\t-0x48(%rbp), %rax
";
        assert_eq!(parse_disassembly(text), vec![0x120c, 0x125f]);
    }

    #[test]
    fn the_innermost_frame_places_a_site_and_the_outermost_names_its_copy() {
        let text = r#"{"Address":"0x120b","ModuleName":"x.so","Symbol":[{"Column":8,"FileName":"/t/h.h","FunctionName":"g","Line":5,"StartAddress":"0x11c0"},{"Column":3,"FileName":"/t/a.c","FunctionName":"f","Line":9,"StartAddress":"0x11b0"}]}
{"Address":"0x1","ModuleName":"x.so","Symbol":[{"Column":0,"FileName":"","FunctionName":"??","Line":0}]}
"#;
        let p = parse_symbolized(text).unwrap();
        assert_eq!(
            p[0],
            Some(Place {
                file: "/t/h.h".into(),
                line: 5,
                col: 8,
                copy: 0x11b0
            })
        );
        assert_eq!(p[1], None);
    }
}
