//! Which functions' calls two worlds can answer differently, read from
//! their objects before anything runs.
//!
//! Every unit of a world is compiled with a section per function and
//! variable, so an object is a graph: a section's relocations are its edges
//! (calls, tail calls, addresses taken, data that points at code). Two
//! worlds' sections are matched by object and section name and compared by
//! their bytes and relocations, as kpatch-build's create-diff-object
//! compares a kernel before and after a patch. A call of `F` can behave
//! differently only if, in either world, the sections it can reach hold
//! one that differs: from the ABI entries a comparison calls (`shim_run`
//! ...), the constructors, and `F`'s own dispatch function in the shim
//! (`shim_call_F`), never through another function's dispatch. Such a call
//! is then run on both sides; every other call has the same code and data
//! on both sides, and needs no run.
//!
//! Whatever this cannot read with certainty (an object that does not
//! parse, a dispatch function or entry not found) makes every function
//! affected: the fallback is the full comparison, never a skipped one.
//! Objects are read with a memory-safe parser (`object`), in this process:
//! they come from code under review, but reading them executes nothing.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use object::{Object, ObjectSection, ObjectSymbol, RelocationTarget, SectionIndex, SymbolKind};
use sha2::{Digest, Sha256};

use super::BuiltWorld;
use crate::model::types::Func;

/// The ABI entries a worker calls while comparing (`ffi/bindings.rs`;
/// `shim_bench` is the benchmark's alone). Not `shim_prepare`, run once
/// at load: what it reaches (qp_priv_alloc and the iowait callbacks it
/// installs) changes an outcome only through a callback a call invokes,
/// and every function that invokes one reaches them itself (its
/// `shim_prep_callbacks`), so a root there would make a change to any
/// callback reach every function.
const ENTRIES: &[&str] = &[
    "shim_run",
    "shim_abi_version",
    "shim_abi_sizes",
    "shim_kernel_version",
];

/// The section of the allocation sites kcompat's allocators pass
/// (`__kcompat_site`, "FILE:LINE" for a leak's note): never compared, and a
/// reference to it names no place in it, so a patch that moves an
/// allocation's line changes no function.
const SITES: &str = ".kcompat_site";

/// The prefix of the shim's dispatch functions, one per [`Func`]
/// (`c-shim/shim.c`'s `SHIM_CALL`).
const DISPATCH: &str = "shim_call_";

/// Which functions two worlds can answer differently.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    /// The functions whose calls may differ: run them on both sides.
    pub affected: Vec<Func>,
    /// The functions whose calls reach no section that differs.
    pub same_code: Vec<Func>,
    /// The sections that differ, as `object: section` (upstream ones
    /// first), for a progress line.
    pub changed: Vec<String>,
    /// Why every function is affected without reading the graphs, when
    /// the objects could not be read with certainty.
    pub fallback: Option<String>,
}

/// Which of `funcs` worlds `a` and `b` can answer differently.
pub fn affected(a: &BuiltWorld, b: &BuiltWorld, funcs: &[Func]) -> Reach {
    match (
        Graph::load(&a.dir.join("obj")),
        Graph::load(&b.dir.join("obj")),
    ) {
        (Ok(ga), Ok(gb)) => between(&ga, &gb, funcs),
        (Err(e), _) | (_, Err(e)) => Reach {
            affected: funcs.to_vec(),
            fallback: Some(e),
            ..Reach::default()
        },
    }
}

/// Which of `funcs` can reach each of `symbols` in `world` (one [`Reach`]
/// per symbol, in order): the functions whose calls can reach the section
/// defining it (code that reads it has a relocation naming it), read from
/// the world's objects alone. A mutant schemata world's switch
/// (`hfi1_mutant__F`) is read by every copy of `F`'s dispatcher, inlined
/// or not, and by nothing else: the functions that reach it are those
/// whose calls can run a mutant of `F`, and a compiler that dropped every
/// read of it found the mutants equivalent to `F`. A symbol the world does
/// not define, or objects that cannot be read with certainty, make every
/// function reach it.
pub fn reaching(world: &BuiltWorld, symbols: &[String], funcs: &[Func]) -> Vec<Reach> {
    let g = Graph::load(&world.dir.join("obj"));
    reaching_in(g.as_ref(), symbols, funcs)
}

/// [`reaching`] in a world's graph.
fn reaching_in(g: Result<&Graph, &String>, symbols: &[String], funcs: &[Func]) -> Vec<Reach> {
    let every = |why: String| Reach {
        affected: funcs.to_vec(),
        fallback: Some(why),
        ..Reach::default()
    };
    let g = match g {
        Ok(g) => g,
        Err(e) => return symbols.iter().map(|_| every(e.clone())).collect(),
    };
    let seen: Vec<Option<BTreeSet<usize>>> = funcs.iter().map(|&f| g.reach(f)).collect();
    symbols
        .iter()
        .map(|s| {
            let Some(defs) = g.globals.get(s) else {
                return every(format!("no {s} in the world"));
            };
            let mut r = Reach {
                changed: defs
                    .iter()
                    .map(|&i| format!("{}: {}", g.nodes[i].object, g.nodes[i].name))
                    .collect(),
                ..Reach::default()
            };
            for (&f, seen) in funcs.iter().zip(&seen) {
                let hit = seen
                    .as_ref()
                    .is_none_or(|seen| defs.iter().any(|i| seen.contains(i)));
                if hit {
                    r.affected.push(f);
                } else {
                    r.same_code.push(f);
                }
            }
            r
        })
        .collect()
}

/// [`affected`] on two worlds' graphs.
fn between(a: &Graph, b: &Graph, funcs: &[Func]) -> Reach {
    let (ca, cb) = (a.differing(b), b.differing(a));
    let mut r = Reach::default();
    for n in ca
        .iter()
        .map(|&i| &a.nodes[i])
        .chain(cb.iter().map(|&i| &b.nodes[i]))
    {
        let s = format!("{}: {}", n.object, n.name);
        if !r.changed.contains(&s) {
            r.changed.push(s);
        }
    }
    r.changed
        .sort_by_key(|s| (!s.starts_with("upstream-"), s.clone()));
    for &f in funcs {
        let hit = |g: &Graph, changed: &BTreeSet<usize>| match g.reach(f) {
            Some(seen) => seen.iter().any(|i| changed.contains(i)),
            None => true,
        };
        if hit(a, &ca) || hit(b, &cb) {
            r.affected.push(f);
        } else {
            r.same_code.push(f);
        }
    }
    r
}

/// A section of a world's object that is loaded (`SHF_ALLOC`).
#[derive(Debug)]
struct Node {
    /// The object's file name (`upstream-qp.o`).
    object: String,
    /// The section's name (`.text.hfi1_setup_wqe`).
    name: String,
    /// Which of the object's sections of that name it is (0: the first).
    nth: usize,
    /// Bytes, flags and relocations (targets named, not placed).
    print: [u8; 32],
}

/// One world's loaded sections and the edges their relocations make.
#[derive(Debug, Default)]
struct Graph {
    nodes: Vec<Node>,
    /// `(object, section name, k)` (the k-th of that name) → node.
    index: HashMap<(String, String, usize), usize>,
    edges: Vec<Vec<usize>>,
    /// The roots every call has: the entries' sections, constructors.
    roots: Vec<usize>,
    /// Each function's dispatch sections, by the function's name.
    dispatch: BTreeMap<String, Vec<usize>>,
    /// The sections defining each global symbol.
    globals: HashMap<String, Vec<usize>>,
}

/// A relocation's target before the objects are joined.
enum Target {
    Node(usize),
    Global(String),
}

impl Graph {
    /// Reads every `*.o` of a world's `obj` directory.
    fn load(dir: &Path) -> Result<Graph, String> {
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "o"))
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(format!("{}: no objects", dir.display()));
        }
        let mut g = Graph::default();
        // Every definition of a name (a weak one and a strong one both).
        let mut globals: HashMap<String, Vec<usize>> = HashMap::new();
        let mut pending: Vec<(usize, Target)> = vec![];
        for path in &files {
            let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            g.add_object(&name, &data, &mut globals, &mut pending)
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        g.edges = vec![vec![]; g.nodes.len()];
        for (from, t) in pending {
            match t {
                Target::Node(i) => g.edges[from].push(i),
                Target::Global(s) => {
                    let defs = globals.get(&s).map(Vec::as_slice).unwrap_or_default();
                    g.edges[from].extend(defs);
                }
            }
        }
        for e in ENTRIES {
            match globals.get(*e) {
                Some(defs) => g.roots.extend(defs),
                None => return Err(format!("{}: no {e}", dir.display())),
            }
        }
        g.globals = globals;
        for (i, n) in g.nodes.iter().enumerate() {
            if [
                ".init_array",
                ".preinit_array",
                ".fini_array",
                ".ctors",
                ".dtors",
            ]
            .iter()
            .any(|p| n.name.starts_with(p))
            {
                g.roots.push(i);
            }
            if let Some(f) = dispatch_of(&n.name) {
                g.dispatch.entry(f.to_owned()).or_default().push(i);
            }
        }
        Ok(g)
    }

    /// Adds the loaded sections of one object; their relocations wait in
    /// `pending` until every object's globals are known.
    fn add_object(
        &mut self,
        object: &str,
        data: &[u8],
        globals: &mut HashMap<String, Vec<usize>>,
        pending: &mut Vec<(usize, Target)>,
    ) -> Result<(), String> {
        let file = object::File::parse(data).map_err(|e| e.to_string())?;
        let mut node_of: HashMap<SectionIndex, usize> = HashMap::new();
        let mut seen: HashMap<String, usize> = HashMap::new();
        for s in file.sections() {
            let object::SectionFlags::Elf { sh_flags, .. } = s.flags() else {
                return Err("not an ELF object".into());
            };
            let name = s.name().map_err(|e| e.to_string())?.to_owned();
            if !sh_flags.contains(object::elf::SHF_ALLOC) || name == SITES {
                continue;
            }
            let k = seen.entry(name.clone()).or_default();
            let i = self.nodes.len();
            self.index.insert((object.to_owned(), name.clone(), *k), i);
            node_of.insert(s.index(), i);
            self.nodes.push(Node {
                object: object.to_owned(),
                name,
                nth: *k,
                print: [0; 32],
            });
            *k += 1;
        }
        // What each section defines is part of it: a symbol that moves to
        // another section (an alias, a merged function) changes both.
        let mut defines: HashMap<usize, Vec<String>> = HashMap::new();
        for sym in file.symbols() {
            let name = sym.name().map_err(|e| e.to_string())?;
            if sym.is_undefined() || sym.kind() == SymbolKind::File {
                continue;
            }
            let node = sym.section_index().and_then(|s| node_of.get(&s)).copied();
            if sym.is_global() {
                match node {
                    Some(i) if sym.is_definition() => {
                        globals.entry(name.to_owned()).or_default().push(i)
                    }
                    // TLS, IFUNC, COMMON, absolute: not followed with
                    // certainty, so every function runs.
                    _ => {
                        return Err(format!(
                            "{object}: global {name} defined as {:?}",
                            sym.kind()
                        ))
                    }
                }
            }
            if let Some(i) = node {
                defines.entry(i).or_default().push(format!(
                    "{name} {:?} {:?} {} {}",
                    sym.kind(),
                    sym.flags(),
                    sym.address(),
                    sym.size()
                ));
            }
        }
        for s in file.sections() {
            let Some(&i) = node_of.get(&s.index()) else {
                continue;
            };
            let mut h = Sha256::new();
            h.update(format!(
                "{:?} {:?} {} {}\n",
                s.kind(),
                s.flags(),
                s.align(),
                s.size()
            ));
            if s.kind() != object::SectionKind::UninitializedData {
                h.update(s.data().map_err(|e| e.to_string())?);
            }
            let mut defined = defines.remove(&i).unwrap_or_default();
            defined.sort();
            for d in defined {
                h.update(format!("\ndefines {d}"));
            }
            let mut relocs: Vec<_> = s.relocations().collect();
            relocs.sort_by_key(|(off, _)| *off);
            for (off, r) in relocs {
                let (named, target) = self.target(&file, &node_of, r.target())?;
                // A site's place in its section is no part of the code.
                let addend = if named == SITES { 0 } else { r.addend() };
                h.update(format!("\n{off} {:?} {addend} {named}", r.flags()));
                if let Some(t) = target {
                    pending.push((i, t));
                }
            }
            self.nodes[i].print = h.finalize().into();
        }
        Ok(())
    }

    /// A relocation's target as the fingerprint names it (a local by its
    /// section and place, a global by its name) and as an edge.
    fn target(
        &self,
        file: &object::File<'_>,
        node_of: &HashMap<SectionIndex, usize>,
        t: RelocationTarget,
    ) -> Result<(String, Option<Target>), String> {
        if is_site(file, t) {
            return Ok((SITES.into(), None));
        }
        let in_section = |s: Option<SectionIndex>, at: u64| match s.and_then(|s| node_of.get(&s)) {
            Some(&n) => (
                format!("{}#{}+{at}", self.nodes[n].name, self.nodes[n].nth),
                Some(Target::Node(n)),
            ),
            // A section that is not loaded (debug info).
            None => (format!("unloaded+{at}"), None),
        };
        Ok(match t {
            RelocationTarget::Section(s) => in_section(Some(s), 0),
            RelocationTarget::Symbol(si) => {
                let sym = file.symbol_by_index(si).map_err(|e| e.to_string())?;
                let name = sym.name().map_err(|e| e.to_string())?;
                if sym.is_undefined() {
                    (
                        format!("extern {name}"),
                        Some(Target::Global(name.to_owned())),
                    )
                } else if sym.is_global() {
                    // Every definition of the name: the linker may pick
                    // another object's (a weak one here, a strong one there).
                    (
                        format!("global {name}"),
                        Some(Target::Global(name.to_owned())),
                    )
                } else if sym.kind() == SymbolKind::Section {
                    in_section(sym.section_index(), 0)
                } else {
                    in_section(sym.section_index(), sym.address())
                }
            }
            _ => ("absolute".into(), None),
        })
    }

    /// The nodes that have no identical counterpart in `other`.
    fn differing(&self, other: &Graph) -> BTreeSet<usize> {
        (0..self.nodes.len())
            .filter(|&i| {
                let n = &self.nodes[i];
                let key = (n.object.clone(), n.name.clone(), n.nth);
                other
                    .index
                    .get(&key)
                    .is_none_or(|&j| other.nodes[j].print != n.print)
            })
            .collect()
    }

    /// The sections a call of `f` can reach; `None` when `f` has no
    /// dispatch function here (then every section is taken as reached).
    fn reach(&self, f: Func) -> Option<BTreeSet<usize>> {
        let own = self.dispatch.get(f.name())?;
        let cut: BTreeSet<usize> = self
            .dispatch
            .iter()
            .filter(|(g, _)| g.as_str() != f.name())
            .flat_map(|(_, v)| v.iter().copied())
            .collect();
        let mut seen = BTreeSet::new();
        let mut stack: Vec<usize> = self.roots.iter().chain(own).copied().collect();
        while let Some(i) = stack.pop() {
            if cut.contains(&i) || !seen.insert(i) {
                continue;
            }
            stack.extend(self.edges[i].iter().copied());
        }
        Some(seen)
    }
}

/// Whether a relocation points into [`SITES`] (by its section or a symbol
/// defined there).
fn is_site(file: &object::File<'_>, t: RelocationTarget) -> bool {
    let section = match t {
        RelocationTarget::Section(s) => Some(s),
        RelocationTarget::Symbol(si) => file
            .symbol_by_index(si)
            .ok()
            .and_then(|sym| sym.section_index()),
        _ => None,
    };
    section
        .and_then(|s| file.section_by_index(s).ok())
        .is_some_and(|s| s.name() == Ok(SITES))
}

/// The function a dispatch section runs: `.text.shim_call_F` and its
/// parts (`.text.shim_call_F.cold`, `.text.unlikely.shim_call_F`) are
/// `F`'s.
fn dispatch_of(section: &str) -> Option<&str> {
    let rest = section.strip_prefix(".text.")?;
    let rest = ["unlikely.", "hot.", "startup.", "exit."]
        .iter()
        .find_map(|p| rest.strip_prefix(p))
        .unwrap_or(rest);
    let name = rest.strip_prefix(DISPATCH)?;
    Some(name.split('.').next().unwrap_or(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shim like c-shim/shim.c's: a dispatch function per function,
    /// called through a table from the one entry.
    const SHIM: &str = r#"
int hfi1_setup_wqe(int); int mtu_to_path_mtu(int); int qp_to_sdma_engine(int);
__attribute__((noipa)) static int shim_call_hfi1_setup_wqe(int x) { return hfi1_setup_wqe(x); }
__attribute__((noipa)) static int shim_call_mtu_to_path_mtu(int x) { return mtu_to_path_mtu(x); }
__attribute__((noipa)) static int shim_call_qp_to_sdma_engine(int x) { return qp_to_sdma_engine(x); }
static int (*const calls[])(int) = {
    shim_call_hfi1_setup_wqe, shim_call_mtu_to_path_mtu, shim_call_qp_to_sdma_engine };
int shim_run(int f, int x) { return calls[f % 3](x); }
unsigned shim_abi_version(void) { return 1; }
unsigned long shim_abi_sizes(void) { return 2; }
const char *shim_kernel_version(void) { return "t"; }
"#;

    /// Upstream: a helper only hfi1_setup_wqe calls, a function only
    /// reached through a table of pointers (mtu_to_path_mtu), a variable
    /// a constructor sets, read by qp_to_sdma_engine.
    const UPSTREAM: &str = r#"
#ifdef SWITCH
int hfi1_mutant__helper;
__attribute__((noipa)) static int helper(int x) { return hfi1_mutant__helper ? x : x + HELPER; }
#else
__attribute__((noipa)) static int helper(int x) { return x + HELPER; }
#endif
__attribute__((noipa)) static int even(int x) { return x * TABLE; }
__attribute__((noipa)) static int odd(int x) { return x - 1; }
static int (*const ops[])(int) = { even, odd };
static int g;
__attribute__((constructor)) static void init(void) { g = INIT; }
int hfi1_setup_wqe(int x) { return helper(x); }
int mtu_to_path_mtu(int x) { return ops[x % 2](x); }
int qp_to_sdma_engine(int x) { return x + g; }
"#;

    /// A world's `obj/` with the shim and upstream built with `defines`.
    fn world(dir: &Path, defines: &[&str]) -> Graph {
        let obj = dir.join("obj");
        std::fs::create_dir_all(&obj).unwrap();
        for (name, src) in [("shim-shim", SHIM), ("upstream-qp", UPSTREAM)] {
            let c = dir.join(format!("{name}.c"));
            std::fs::write(&c, src).unwrap();
            let out = std::process::Command::new("cc")
                .args([
                    "-c",
                    "-O2",
                    "-fPIC",
                    "-ffunction-sections",
                    "-fdata-sections",
                ])
                .args(defines.iter().map(|d| format!("-D{d}")))
                .arg(&c)
                .arg("-o")
                .arg(obj.join(format!("{name}.o")))
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Graph::load(&obj).unwrap()
    }

    #[test]
    fn a_call_runs_when_what_it_reaches_differs() {
        let tmp = std::env::temp_dir().join(format!("hfi1-reach-test-{}", std::process::id()));
        let base = ["HELPER=1", "TABLE=2", "INIT=5"];
        let a = world(&tmp.join("a"), &base);
        let funcs = [Func::SetupWqe, Func::MtuToPathMtu, Func::QpToSdmaEngine];
        let cases: [(&[&str], &[Func]); 4] = [
            (&base, &[]),
            (&["HELPER=2", "TABLE=2", "INIT=5"], &[Func::SetupWqe]),
            // Through the table of pointers in data.
            (&["HELPER=1", "TABLE=3", "INIT=5"], &[Func::MtuToPathMtu]),
            // A constructor runs before every call.
            (&["HELPER=1", "TABLE=2", "INIT=6"], &funcs),
        ];
        for (k, (defines, want)) in cases.iter().enumerate() {
            let b = world(&tmp.join(format!("b{k}")), defines);
            let r = between(&a, &b, &funcs);
            assert_eq!(r.affected, *want, "{defines:?}: {:?}", r.changed);
        }
        let _ = std::fs::remove_dir_all(&tmp);
    }

    /// A switch only hfi1_setup_wqe's helper reads is reached by its calls
    /// alone; a symbol the world lacks, by every function's.
    #[test]
    fn a_switch_is_reached_by_the_calls_that_read_it() {
        let tmp = std::env::temp_dir().join(format!("hfi1-reaching-test-{}", std::process::id()));
        let g = world(&tmp, &["SWITCH", "HELPER=1", "TABLE=2", "INIT=5"]);
        let funcs = [Func::SetupWqe, Func::MtuToPathMtu, Func::QpToSdmaEngine];
        let symbols = [
            "hfi1_mutant__helper".to_owned(),
            "hfi1_mutant__no".to_owned(),
        ];
        let r = reaching_in(Ok(&g), &symbols, &funcs);
        assert_eq!(r[0].affected, [Func::SetupWqe], "{:?}", r[0]);
        assert_eq!(r[0].same_code, [Func::MtuToPathMtu, Func::QpToSdmaEngine]);
        assert!(r[0].fallback.is_none());
        assert_eq!(r[1].affected, funcs);
        assert!(r[1].fallback.is_some());
        let _ = std::fs::remove_dir_all(&tmp);
    }

    #[test]
    fn dispatch_sections_are_named_for_their_function() {
        assert_eq!(
            dispatch_of(".text.shim_call_hfi1_setup_wqe"),
            Some("hfi1_setup_wqe")
        );
        assert_eq!(
            dispatch_of(".text.shim_call__hfi1_schedule_send"),
            Some("_hfi1_schedule_send")
        );
        assert_eq!(
            dispatch_of(".text.unlikely.shim_call_iowait_sleep.cold"),
            Some("iowait_sleep")
        );
        assert_eq!(dispatch_of(".text.shim_run"), None);
        assert_eq!(dispatch_of(".rodata.shim_call_x"), None);
    }
}
