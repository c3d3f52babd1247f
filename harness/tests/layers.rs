//! The library's layers, read from its source with `syn`: each module uses
//! only the layers below its own, a command never uses another command, and
//! no two sibling modules use each other, directly or round a longer circle
//! (a module and its own submodules are one unit: those edges are not
//! counted).
//!
//! A use is a path naming a module of the crate, in `use` items or in code
//! (macros: their paths, and arguments that parse as expressions). One
//! through a re-export (`pub use`, or a private `use` a child names as
//! `super::name`) uses its source too; a glob, all its module imports.
//! Code under `#[cfg(test)]` may reach anywhere and is not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use syn::punctuated::Punctuated;
use syn::visit::Visit;
use syn::{Attribute, Item, Token, UseTree};

/// Top to bottom; a layer may use the ones after it.
const LAYERS: &[&str] = &[
    "cmd",
    "judge",
    "report",
    "cworld",
    "generate",
    "corpus",
    "kernel",
    "sandbox",
    // The model and what the crate root holds.
    "implementation",
];

/// What the crate root holds: the model re-exports, `project_path` and
/// `canonical`.
const ROOT_ITEMS: &[&str] = &["model", "outcome", "project_path", "canonical"];

/// How many re-exports a path is followed through (they may go round).
const MAX_HOPS: usize = 8;

fn rank(layer: &str) -> Option<usize> {
    let root = ROOT_ITEMS.contains(&layer).then_some(LAYERS.len());
    root.or_else(|| LAYERS.iter().position(|l| *l == layer))
}

/// Every `.rs` file under `dir`: its module path (under `src`) and text.
fn sources(src: &Path, dir: &Path, out: &mut Vec<(ModPath, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(src, &p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&p)
                .unwrap_or_else(|e| panic!("reading {}: {e}", p.display()));
            out.push((module_of(src, &p), text));
        }
    }
}

/// The module path of a source file (`cworld/ffi/mod.rs` -> `cworld::ffi`).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

type ModPath = Vec<String>;

/// What a module holds. Paths are kept as written, but those beginning
/// with `crate`, `self` or `super` are made absolute, led by `crate`.
#[derive(Default)]
struct Module {
    /// The names it defines: items, `mod`s, macros.
    items: BTreeSet<String>,
    /// Its module-level imports by the name they bind, and whether public.
    named: BTreeMap<String, (ModPath, bool)>,
    /// The modules it glob-imports at module level, and whether public.
    globs: Vec<(ModPath, bool)>,
    /// Every path it names, and whether it is a glob's.
    uses: Vec<(ModPath, bool)>,
}

#[derive(Default)]
struct Crate {
    modules: BTreeMap<ModPath, Module>,
    /// Modules only compiled for tests (`#[cfg(test)] mod x;`).
    test_only: Vec<ModPath>,
    /// Where the reading is: the module, and how deep in blocks (items
    /// there are not the module's).
    module: ModPath,
    blocks: usize,
}

/// Whether attributes hold `#[cfg(test)]`.
fn test_only(attrs: &[Attribute]) -> bool {
    let test = |a: &Attribute| a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test");
    attrs.iter().any(|a| a.path().is_ident("cfg") && test(a))
}

/// An item's attributes and the name it defines in its module.
fn attrs_and_name(item: &Item) -> (&[Attribute], Option<&syn::Ident>) {
    match item {
        Item::Const(i) => (&i.attrs, Some(&i.ident)),
        Item::Enum(i) => (&i.attrs, Some(&i.ident)),
        Item::Fn(i) => (&i.attrs, Some(&i.sig.ident)),
        Item::Impl(i) => (&i.attrs, None),
        Item::Macro(i) => (&i.attrs, i.ident.as_ref()),
        Item::Mod(i) => (&i.attrs, Some(&i.ident)),
        Item::Static(i) => (&i.attrs, Some(&i.ident)),
        Item::Struct(i) => (&i.attrs, Some(&i.ident)),
        Item::Trait(i) => (&i.attrs, Some(&i.ident)),
        Item::Type(i) => (&i.attrs, Some(&i.ident)),
        Item::Union(i) => (&i.attrs, Some(&i.ident)),
        Item::Use(i) => (&i.attrs, None),
        _ => (&[], None),
    }
}

/// Each path of a `use` tree with the name it binds (`None`: a glob).
fn use_paths(tree: &UseTree, prefix: &mut ModPath, out: &mut Vec<(ModPath, Option<String>)>) {
    let with = |name: &syn::Ident| [&prefix[..], &[name.to_string()]].concat();
    match tree {
        UseTree::Name(n) if n.ident == "self" => out.push((prefix.clone(), prefix.last().cloned())),
        UseTree::Name(n) => out.push((with(&n.ident), Some(n.ident.to_string()))),
        UseTree::Rename(r) => out.push((with(&r.ident), Some(r.rename.to_string()))),
        UseTree::Glob(_) => out.push((prefix.clone(), None)),
        UseTree::Group(g) => g.items.iter().for_each(|t| use_paths(t, prefix, out)),
        UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_paths(&p.tree, prefix, out);
            prefix.pop();
        }
    }
}

/// Reads a file's items into the crate, module by module.
impl<'ast> Visit<'ast> for Crate {
    fn visit_item(&mut self, item: &'ast Item) {
        let (attrs, name) = attrs_and_name(item);
        if test_only(attrs) {
            if let Item::Mod(m) = item {
                let path = [&self.module[..], &[m.ident.to_string()]].concat();
                self.test_only.push(path);
            }
            return;
        }
        if let Some(name) = name.filter(|_| self.blocks == 0) {
            self.here().items.insert(name.to_string());
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let Some((_, items)) = &m.content else {
            return;
        };
        self.module.push(m.ident.to_string());
        let blocks = std::mem::take(&mut self.blocks);
        self.here();
        items.iter().for_each(|item| self.visit_item(item));
        self.blocks = blocks;
        self.module.pop();
    }

    fn visit_block(&mut self, b: &'ast syn::Block) {
        self.blocks += 1;
        syn::visit::visit_block(self, b);
        self.blocks -= 1;
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if u.leading_colon.is_some() {
            return; // `use ::other_crate::…`
        }
        let public = !matches!(u.vis, syn::Visibility::Inherited);
        let mut paths = vec![];
        use_paths(&u.tree, &mut vec![], &mut paths);
        for (segs, name) in paths {
            let path = self.reference(&segs);
            let (blocks, m) = (self.blocks, self.here());
            m.uses.push((path.clone(), name.is_none()));
            match name.filter(|_| blocks == 0) {
                Some(name) => drop(m.named.insert(name, (path, public))),
                None if blocks == 0 => m.globs.push((path, public)),
                None => {}
            }
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.leading_colon.is_none() {
            let segs: ModPath = p.segments.iter().map(|s| s.ident.to_string()).collect();
            let path = self.reference(&segs);
            self.here().uses.push((path, false));
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.visit_path(&mac.path);
        let args = Punctuated::<syn::Expr, Token![,]>::parse_terminated;
        if let Ok(args) = mac.parse_body_with(args) {
            args.iter().for_each(|e| self.visit_expr(e));
        }
    }
}

impl Crate {
    fn here(&mut self) -> &mut Module {
        self.modules.entry(self.module.clone()).or_default()
    }

    /// `segs` as written here, made absolute when it begins with `crate`,
    /// `self` or `super` (repeated).
    fn reference(&self, segs: &[String]) -> ModPath {
        let (mut base, mut rest) = match segs.first().map(String::as_str) {
            Some("crate") => (vec![], &segs[1..]),
            Some("self") => (self.module.clone(), &segs[1..]),
            Some("super") => (self.module.clone(), segs),
            _ => return segs.to_vec(),
        };
        while rest.first().is_some_and(|s| s == "super") {
            base.pop();
            rest = &rest[1..];
        }
        [vec!["crate".to_owned()], base, rest.to_vec()].concat()
    }

    /// Reads the files (module path, source text).
    fn read(files: &[(ModPath, String)]) -> Crate {
        let mut krate = Crate::default();
        for (module, text) in files {
            let file = syn::parse_file(text)
                .unwrap_or_else(|e| panic!("parsing `{}`: {e}", module.join("::")));
            if test_only(&file.attrs) {
                krate.test_only.push(module.clone());
            }
            krate.module.clone_from(module);
            krate.here();
            file.items.iter().for_each(|item| krate.visit_item(item));
        }
        krate
    }

    /// The absolute path that `path`, written in module `from`, stands for;
    /// `None` when it names nothing of the crate (std, a crate, a local).
    fn absolute(&self, from: &[String], path: &[String], hops: usize) -> Option<ModPath> {
        let (first, rest) = path.split_first()?;
        if first == "crate" {
            return Some(rest.to_vec());
        }
        let m = self.modules.get(from)?;
        let local = [from, std::slice::from_ref(first)].concat();
        let found = if self.modules.contains_key(&local) || m.items.contains(first) {
            local
        } else if hops >= MAX_HOPS {
            return None;
        } else if let Some((alias, _)) = m.named.get(first) {
            self.absolute(from, alias, hops + 1)?
        } else {
            // A name a glob brings in.
            let src = m.globs.iter().find_map(|(g, _)| {
                let src = self.absolute(from, g, hops + 1)?;
                self.provides(&src, first, hops + 1).then_some(src)
            })?;
            [src, vec![first.clone()]].concat()
        };
        Some([found, rest.to_vec()].concat())
    }

    /// Whether module `path` defines or imports `name`.
    fn provides(&self, path: &[String], name: &str, hops: usize) -> bool {
        let Some(m) = self.modules.get(path) else {
            return false;
        };
        let child = [path, &[name.to_owned()]].concat();
        m.items.contains(name)
            || m.named.contains_key(name)
            || self.modules.contains_key(&child)
            || (hops < MAX_HOPS
                && m.globs.iter().any(|(g, _)| {
                    self.absolute(path, g, hops + 1)
                        .is_some_and(|src| self.provides(&src, name, hops + 1))
                }))
    }

    /// Into `out`, the modules absolute `path` (used by module `by`) leads
    /// to: the deepest it names and, through re-exports, where its item
    /// comes from; for a glob, all its module's imports that `by` sees.
    fn follow(&self, path: &[String], glob: bool, by: &[String], out: &mut Uses, hops: usize) {
        let mut cut = path.to_vec();
        while !cut.is_empty() && !self.modules.contains_key(&cut) {
            cut.pop();
        }
        match path.first() {
            _ if !cut.is_empty() => out.insert(cut.clone()),
            // An item of the crate root (`crate::project_path`).
            Some(first) => out.insert(vec![first.clone()]),
            None => return,
        };
        let Some(m) = self.modules.get(&cut).filter(|_| hops < MAX_HOPS) else {
            return;
        };
        let rest = &path[cut.len()..];
        let abs = |p: &[String], tail: &[String]| {
            Some([self.absolute(&cut, p, 0)?, tail.to_vec()].concat())
        };
        let next: Vec<(Option<ModPath>, bool)> = match rest.split_first() {
            Some((name, _)) if m.items.contains(name) => vec![],
            Some((name, tail)) => match m.named.get(name) {
                Some((src, _)) => vec![(abs(src, tail), glob)],
                // The globs re-export it if their modules have it.
                None => m
                    .globs
                    .iter()
                    .filter_map(|(g, _)| self.absolute(&cut, g, 0))
                    .filter(|src| self.provides(src, name, 0))
                    .map(|src| (Some([src, rest.to_vec()].concat()), glob))
                    .collect(),
            },
            None if glob => (m.named.values().map(|n| (n, false)))
                .chain(m.globs.iter().map(|g| (g, true)))
                .filter(|((_, public), _)| *public || by.starts_with(&cut))
                .map(|((p, _), glob)| (abs(p, &[]), glob))
                .collect(),
            None => vec![],
        };
        for (path, glob) in next.into_iter().filter_map(|(p, glob)| Some((p?, glob))) {
            self.follow(&path, glob, by, out, hops + 1);
        }
    }
}

type Uses = BTreeSet<ModPath>;

/// The edge `from -> to` between the two sibling units holding them (the
/// children of their deepest common ancestor), or none when one holds the
/// other.
fn sibling_edge(from: &[String], to: &[String]) -> Option<(ModPath, ModPath)> {
    let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    if common == from.len() || common == to.len() {
        return None;
    }
    Some((from[..=common].to_vec(), to[..=common].to_vec()))
}

type Edges = BTreeMap<ModPath, BTreeSet<ModPath>>;

/// What `module` (its layer ranked `own`) using `used` breaks; its sibling
/// edge goes into `edges`.
fn check_use(module: &[String], own: usize, used: &[String], edges: &mut Edges) -> Vec<String> {
    let mut wrong = vec![];
    let Some(other) = rank(&used[0]) else {
        return vec![format!("`{}` is in no layer: add it to LAYERS", used[0])];
    };
    let (m, u) = (module.join("::"), used.join("::"));
    if other < own {
        wrong.push(format!("`{m}` uses `{u}`, a layer above it"));
    }
    // `cmd` itself is no command: it holds what they share.
    let command = |p: &[String]| p.len() > 1 && p[0] == "cmd";
    if command(module) && command(used) && used[1] != module[1] {
        wrong.push(format!(
            "command `{m}` uses command `{u}`: move what they share down a layer"
        ));
    }
    if let Some((a, b)) = sibling_edge(module, used) {
        edges.entry(a).or_default().insert(b);
    }
    wrong
}

/// A circle: a path from a unit back to itself, shown from its least member
/// so that each circle is told once.
fn circles(edges: &Edges) -> Vec<String> {
    let mut wrong = vec![];
    for start in edges.keys() {
        let mut stack = vec![(start.clone(), vec![start.join("::")])];
        let mut seen = BTreeSet::new();
        while let Some((m, trail)) = stack.pop() {
            for next in edges.get(&m).into_iter().flatten() {
                if next == start {
                    wrong.push(format!("a circle: {} -> {}", trail.join(" -> "), trail[0]));
                } else if next > start && seen.insert(next.clone()) {
                    let mut t = trail.clone();
                    t.push(next.join("::"));
                    stack.push((next.clone(), t));
                }
            }
        }
    }
    wrong
}

/// What breaks the layers among `files` (module path, source text).
fn broken(files: &[(ModPath, String)]) -> Vec<String> {
    let krate = Crate::read(files);
    let mut edges = Edges::new();
    let mut wrong = vec![];
    for (module, m) in &krate.modules {
        if krate.test_only.iter().any(|t| module.starts_with(t)) {
            continue;
        }
        let Some(layer) = module.first() else {
            continue; // lib.rs declares the layers
        };
        let Some(own) = rank(layer) else {
            wrong.push(format!("module `{layer}` is in no layer: add it to LAYERS"));
            continue;
        };
        let mut used = Uses::new();
        for (path, glob) in &m.uses {
            if let Some(path) = krate.absolute(module, path, 0) {
                krate.follow(&path, *glob, module, &mut used, 0);
            }
        }
        for used in used {
            wrong.extend(check_use(module, own, &used, &mut edges));
        }
    }
    wrong.extend(circles(&edges));
    wrong.sort();
    wrong.dedup();
    wrong
}

#[test]
fn layers_use_only_what_is_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![];
    sources(&src, &src, &mut files);
    let wrong = broken(&files).join("\n");
    assert!(wrong.is_empty(), "the layers are broken:\n{wrong}");
}

fn m(path: &str) -> ModPath {
    path.split("::").map(String::from).collect()
}

#[test]
fn an_upward_use_a_command_using_another_and_a_circle_are_seen() {
    let files: Vec<(ModPath, String)> = [
        "kernel: use crate::{cmd::gate::run, model::types::Func};",
        "cmd::gate: fn f() { crate::cmd::random::run(); }",
        "cmd::random: ",
        "cworld::a: use super::b::X;",
        "cworld::b::c: fn f() { crate::cworld::a::y() }",
        "cworld::b: use crate::cworld::b::c;",
        "judge: use crate::kernel;\n#[cfg(test)]\nmod tests { use crate::cmd::gate; }",
        // (a) Nested groups are read to their end.
        "corpus: use crate::{sandbox::{X}, cmd::gate};",
        // (b) A circle through a parent's glob re-export.
        "cworld::ffi: mod bindings; pub mod abi; pub use bindings::*;",
        "cworld::ffi::bindings: pub use crate::cworld::ffi::abi::{shim_qp};",
        "cworld::ffi::abi: use crate::cworld::ffi::*;",
        // (c) A command reaching another through their parent: a `pub use`,
        // and a private `use` a child names as `super::name`.
        "cmd: pub mod gate; pub use gate::run as g; use self::random::z;",
        "cmd::sweep: use super::g;",
        "cmd::bench: fn f() -> super::z { todo!() }",
        // (d) Code after the unit tests, and in a macro's arguments.
        "report: #[cfg(test)]\nmod tests {}\nfn f() { print!(\"{}\", crate::cmd::random::run()) }",
        // (e) Comments and strings name nothing; `super` in an inline module.
        "generate: // crate::cmd::gate\n fn f() -> &'static str { \"crate::judge::x\" }",
        "sandbox: mod inner { use super::confine::X; }",
        "sandbox::confine: ",
        "implementation: mod inner { fn f(_: super::super::cworld::A) {} }",
    ]
    .iter()
    .map(|file| {
        let (path, text) = file.split_once(": ").expect("module: source");
        (m(path), text.to_owned())
    })
    .collect();
    assert_eq!(
        broken(&files),
        [
            "`corpus` uses `cmd::gate`, a layer above it",
            "`implementation::inner` uses `cworld`, a layer above it",
            "`kernel` uses `cmd::gate`, a layer above it",
            "`report` uses `cmd::random`, a layer above it",
            "a circle: cworld::a -> cworld::b -> cworld::a",
            "a circle: cworld::ffi::abi -> cworld::ffi::bindings -> cworld::ffi::abi",
            "command `cmd::bench` uses command `cmd::random`: move what they share down a layer",
            "command `cmd::gate` uses command `cmd::random`: move what they share down a layer",
            "command `cmd::sweep` uses command `cmd::gate`: move what they share down a layer",
        ]
    );
}
