//! A vector file's cases: each `[[case]]` is its `[defaults]` with the
//! case's own keys over them, read into a [`Vector`] — the function, the
//! world (a preset, then `world.` keys), the QP, the swqe, the engines'
//! state and the arguments — that keeps the invariants ([`validate`]).

use std::path::{Path, PathBuf};

use toml_edit::{Item, Table};

use super::invariants::validate;
use super::presets::Presets;
use super::records::{
    all_arg_keys, apply_args, apply_engines, apply_qp, apply_world, apply_wqe, arg_keys,
    ENGINES_KEYS, QP_KEYS, WQE_KEYS,
};
use super::source::{check_keys, string, symbol, uint, Src, R};
use crate::model::types::*;

/// A vector: one named call with the file and line it came from, or a
/// *scenario*: that call, then more calls (`then`) on the state each
/// leaves (one world, built whole once, carried from step to step).
#[derive(Debug, Clone)]
pub struct Vector {
    /// The family (the file's stem): `setup_wqe`, `engine`, …
    pub family: String,
    /// The case's name, unique in its file.
    pub name: String,
    /// The branch of the upstream function this case is meant to reach.
    pub branch: String,
    /// The file it came from.
    pub file: PathBuf,
    /// The line of its `[[case]]`.
    pub line: usize,
    /// What it calls, with everything the call reads.
    pub call: Call,
    /// A scenario's later steps, in order: each runs on the world, QP and
    /// engines the step before it left; only its function, arguments and
    /// failing allocations (`world.alloc_fail`) are its own (its other
    /// fields are the first step's, unread).
    pub then: Vec<Call>,
}

impl Vector {
    /// `FAMILY::NAME`, the trial name.
    pub fn id(&self) -> String {
        format!("{}::{}", self.family, self.name)
    }

    /// Every step's call, the first one first.
    pub fn steps(&self) -> impl Iterator<Item = &Call> {
        std::iter::once(&self.call).chain(&self.then)
    }
}

/// Looks `key` up in the case, then in the file's defaults.
fn lookup<'a>(case: &'a Table, defaults: Option<&'a Table>, key: &str) -> Option<&'a Item> {
    case.get(key).or_else(|| defaults.and_then(|d| d.get(key)))
}

/// Looks `table.key` up in the case, then in the defaults (dotted keys are
/// merged field by field).
fn lookup2<'a>(
    case: &'a Table,
    defaults: Option<&'a Table>,
    table: &str,
    key: &str,
) -> Option<&'a Item> {
    let sub = |t: &'a Table| t.get(table)?.as_table_like()?.get(key);
    sub(case).or_else(|| defaults.and_then(sub))
}

/// `it`, or an error that `field` is missing.
fn require<'a>(src: &Src, case: &Table, it: Option<&'a Item>, field: &str) -> R<&'a Item> {
    it.ok_or_else(|| {
        src.err(
            case.span(),
            field,
            "missing (set it in the case or in [defaults])",
        )
    })
}

/// The keys of a case that are not its function's arguments (those are
/// the argument record's keys, `call_schema!`).
const CASE_KEYS: &[&str] = &[
    "name", "branch", "fn", "preset", "qp", "wqe", "world", "engines", "then",
];

/// Reads one `[[case]]` of a file, over the file's `[defaults]`.
fn parse_case(
    src: &Src,
    family: &str,
    case: &Table,
    defaults: Option<&Table>,
    presets: &Presets,
) -> R<Vector> {
    check_case_keys(src, case, defaults)?;
    let name_item = require(src, case, case.get("name"), "name")?;
    let name = string(src, name_item, "name")?.to_owned();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(src.err(
            name_item.span(),
            "name",
            "use letters, digits and _ only (it becomes a test name)",
        ));
    }
    let line = src.line_of(case.span().or(name_item.span()));
    let branch = match case.get("branch") {
        Some(b) => string(src, b, "branch")?.to_owned(),
        None => String::new(),
    };
    let func = symbol(
        src,
        require(src, case, lookup(case, defaults, "fn"), "fn")?,
        "fn",
        Func::from_name,
        Func::names,
    )?;
    let world = case_world(src, case, defaults, presets)?;
    let qp = case_qp(src, case, defaults)?;
    let wqe = case_wqe(src, case, defaults)?;
    let engines = case_engines(src, case, defaults)?;
    let args = case_args(src, case, defaults, func)?;
    let call = Call {
        args,
        world,
        qp,
        wqe,
        engines,
    };
    validate(&call).map_err(|m| src.err(case.span().or(name_item.span()), "", m))?;
    let then = case_then(src, case, defaults, &call)?;
    if !then.is_empty() {
        super::invariants::steps_keep_invariants(&call, &then).map_err(|(k, m)| {
            src.err(
                case.get("then").and_then(|t| t.span()).or(case.span()),
                "then",
                format!("step {k} leaves the invariants on the state the step before left: {m}"),
            )
        })?;
    }
    Ok(Vector {
        family: family.to_owned(),
        name,
        branch,
        file: src.file().to_owned(),
        line,
        call,
        then,
    })
}

/// What `then` must be.
const STEPS: &str = "expected a list of steps, each a table: then = [{ fn = \"sdma_flush\" }]";

/// What a later step's `world` may hold.
const STEP_WORLD: &str =
    "a later step's world is the one its scenario built; it sets only which of \
                          its own allocations fail: world.alloc_fail = \"0x2\"";

/// A scenario's later steps (`then = [{ fn = "sdma_flush" }, ...]`): each
/// names its function and may set that function's arguments (over the
/// file's `[defaults]`) and which of its own allocations fail
/// (`world.alloc_fail`, the first step's when not set), nothing else —
/// the state is the one the step before it left.
fn case_then(src: &Src, case: &Table, defaults: Option<&Table>, first: &Call) -> R<Vec<Call>> {
    let Some(item) = case.get("then") else {
        return Ok(vec![]);
    };
    let steps: Vec<&dyn toml_edit::TableLike> = match (item.as_array_of_tables(), item.as_array()) {
        (Some(a), _) => a.iter().map(|t| t as &dyn toml_edit::TableLike).collect(),
        (None, Some(a)) => a
            .iter()
            .map(|v| v.as_inline_table().map(|t| t as &dyn toml_edit::TableLike))
            .collect::<Option<_>>()
            .ok_or_else(|| src.err(item.span(), "then", STEPS))?,
        _ => return Err(src.err(item.span(), "then", STEPS)),
    };
    if steps.is_empty() {
        return Err(src.err(
            item.span(),
            "then",
            "a scenario needs at least one more step",
        ));
    }
    let mut out = vec![];
    for step in steps {
        let f = step
            .get("fn")
            .ok_or_else(|| src.err(item.span(), "then.fn", "missing: each step names its fn"))?;
        let func = symbol(src, f, "then.fn", Func::from_name, Func::names)?;
        if let Some((k, v)) = step
            .iter()
            .find(|(k, _)| !["fn", "world"].contains(k) && !arg_keys(func).contains(k))
        {
            return Err(src.err(
                v.span().or(item.span()),
                k,
                format!(
                    "a later step sets only its function's arguments ({func} takes: {}) and \
                     world.alloc_fail; the state is the one the step before it left",
                    arg_keys(func).join(", ")
                ),
            ));
        }
        let mut args = Args::blank(func);
        if let Some(d) = defaults {
            apply_args(src, d, &mut args)?;
        }
        apply_args(src, step, &mut args)?;
        let mut world = first.world;
        if let Some(w) = step.get("world") {
            let wt = w
                .as_table_like()
                .ok_or_else(|| src.err(w.span(), "then.world", STEP_WORLD))?;
            if let Some((k, v)) = wt.iter().find(|(k, _)| *k != "alloc_fail") {
                return Err(src.err(v.span().or(w.span()), &format!("world.{k}"), STEP_WORLD));
            }
            apply_world(src, wt, &mut world, "world.")?;
        }
        out.push(Call {
            args,
            world,
            ..first.clone()
        });
    }
    Ok(out)
}

/// Refuses a key that is not a case's, nor an argument (of the case's
/// function, checked in [`case_args`]; of any function in `[defaults]`),
/// nor a field of `qp` or `wqe`.
fn check_case_keys(src: &Src, case: &Table, defaults: Option<&Table>) -> R<()> {
    for (t, args) in [(Some(case), None), (defaults, Some(all_arg_keys()))] {
        let Some(t) = t else { continue };
        let args = match args {
            Some(a) => a,
            // A case's function is known once "fn" is read; its keys are
            // checked against its arguments there.
            None => t
                .iter()
                .map(|(k, _)| k)
                .filter(|k| !CASE_KEYS.contains(k))
                .collect(),
        };
        let allowed: Vec<&str> = CASE_KEYS.iter().copied().chain(args).collect();
        check_keys(src, t, t.span(), "case", &allowed)?;
        for (k, allowed) in [
            ("qp", QP_KEYS),
            ("wqe", WQE_KEYS),
            ("engines", ENGINES_KEYS),
        ] {
            if let Some(sub) = t.get(k) {
                let tl = sub
                    .as_table_like()
                    .ok_or_else(|| src.err(sub.span(), k, "expected a table"))?;
                check_keys(src, tl, sub.span(), k, allowed)?;
            }
        }
    }
    Ok(())
}

/// The case's world: its preset (or `default`), then the `world.` keys of
/// `[defaults]` and of the case.
fn case_world(src: &Src, case: &Table, defaults: Option<&Table>, presets: &Presets) -> R<World> {
    let preset = match lookup(case, defaults, "preset") {
        Some(p) => {
            let n = string(src, p, "preset")?;
            presets.get(n).ok_or_else(|| {
                src.err(
                    p.span(),
                    "preset",
                    format!(
                        "no world {n:?} in worlds.toml (have: {})",
                        presets.names().join(", ")
                    ),
                )
            })?
        }
        None => presets
            .get("default")
            .ok_or_else(|| src.err(None, "preset", "no default world"))?,
    };
    let mut world = *preset;
    for t in [defaults, Some(case)].into_iter().flatten() {
        if let Some(w) = t.get("world") {
            let wt = w
                .as_table_like()
                .ok_or_else(|| src.err(w.span(), "world", "expected a table of world fields"))?;
            apply_world(src, wt, &mut world, "world.")?;
        }
    }
    Ok(world)
}

/// The case's QP: `type`, `num`, `port` and `pmtu` required, then the
/// `qp.` keys of `[defaults]` and of the case.
fn case_qp(src: &Src, case: &Table, defaults: Option<&Table>) -> R<Qp> {
    let q = |k: &str| lookup2(case, defaults, "qp", k);
    let mut qp = Qp::new(
        symbol(
            src,
            require(src, case, q("type"), "qp.type")?,
            "qp.type",
            QpType::from_name,
            QpType::names,
        )?,
        uint(src, require(src, case, q("num"), "qp.num")?, "qp.num")?,
        uint(src, require(src, case, q("port"), "qp.port")?, "qp.port")?,
        uint(src, require(src, case, q("pmtu"), "qp.pmtu")?, "qp.pmtu")?,
        match q("state") {
            Some(v) => symbol(src, v, "qp.state", QpState::from_name, QpState::names)?,
            None => QpState::Rts,
        },
    );
    for t in [defaults, Some(case)].into_iter().flatten() {
        if let Some(x) = t.get("qp").and_then(|x| x.as_table_like()) {
            apply_qp(src, x, &mut qp, "qp.")?;
        }
    }
    Ok(qp)
}

/// The case's swqe: the `wqe.` keys of `[defaults]` and of the case.
fn case_wqe(src: &Src, case: &Table, defaults: Option<&Table>) -> R<Wqe> {
    // wqe.length is required: every function reads the call whole.
    require(
        src,
        case,
        lookup2(case, defaults, "wqe", "length"),
        "wqe.length",
    )?;
    let mut wqe = Wqe::blank();
    for t in [defaults, Some(case)].into_iter().flatten() {
        if let Some(x) = t.get("wqe").and_then(|x| x.as_table_like()) {
            apply_wqe(src, x, &mut wqe, "wqe.")?;
        }
    }
    Ok(wqe)
}

/// The engines' state: every field at its default, then the `engines.`
/// keys of `[defaults]` and of the case.
fn case_engines(src: &Src, case: &Table, defaults: Option<&Table>) -> R<Engines> {
    let mut e = Engines::blank();
    for t in [defaults, Some(case)].into_iter().flatten() {
        if let Some(x) = t.get("engines").and_then(|x| x.as_table_like()) {
            apply_engines(src, x, &mut e, "engines.")?;
        }
    }
    Ok(e)
}

/// The function's arguments: [defaults] first (only those it takes),
/// then the case, which may name no other.
fn case_args(src: &Src, case: &Table, defaults: Option<&Table>, func: Func) -> R<Args> {
    let mut args = Args::blank(func);
    let takes = arg_keys(func);
    if let Some(k) = case
        .iter()
        .map(|(k, _)| k)
        .find(|k| !CASE_KEYS.contains(k) && !takes.contains(k))
    {
        let item = case.get(k);
        return Err(src.err(
            item.and_then(|i| i.span()),
            k,
            format!(
                "{func} takes no argument {k:?} (its arguments: {})",
                if takes.is_empty() {
                    "none".to_owned()
                } else {
                    takes.join(", ")
                }
            ),
        ));
    }
    for t in [defaults, Some(case)].into_iter().flatten() {
        apply_args(src, t, &mut args)?;
    }
    Ok(args)
}

/// Parses one vector file.
pub fn parse_file(path: &Path, text: &str, presets: &Presets) -> R<Vec<Vector>> {
    let src = Src::new(path, text);
    let doc = src.parse()?;
    let family = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let top = doc.as_table();
    for (k, v) in top.iter() {
        if !["defaults", "case"].contains(&k) {
            return Err(src.err(
                v.span(),
                k,
                "unknown top-level key (expected [defaults] and [[case]])",
            ));
        }
    }
    let defaults = match top.get("defaults") {
        Some(d) => Some(
            d.as_table()
                .ok_or_else(|| src.err(d.span(), "defaults", "expected a [defaults] table"))?,
        ),
        None => None,
    };
    let cases = top
        .get("case")
        .ok_or_else(|| src.err(None, "case", "no [[case]] in this file"))?
        .as_array_of_tables()
        .ok_or_else(|| src.err(None, "case", "expected [[case]] tables"))?;
    let mut out: Vec<Vector> = vec![];
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for c in cases.iter() {
        let v = parse_case(&src, &family, c, defaults, presets)?;
        if let Some(prev) = seen.get(&v.name) {
            return Err(src.err(
                c.span(),
                "name",
                format!(
                    "{:?} is already the name of the case at line {prev}",
                    v.name
                ),
            ));
        }
        seen.insert(v.name.clone(), v.line);
        out.push(v);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORLDS: &str = r#"
[default]
dev_flags = ["HFI1_HAS_SEND_DMA"]
num_vls = 8
piothreshold = 256
sdma_cpus = [0]
num_send_contexts = 1
vl_sc = { 0 = 0 }
port_ibmtu = [4096]
sl_to_sc = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]]
"#;

    fn presets() -> Presets {
        Presets::parse(Path::new("worlds.toml"), WORLDS).expect("presets parse")
    }

    fn parse(text: &str) -> R<Vec<Vector>> {
        parse_file(Path::new("vectors/t.toml"), text, &presets())
    }

    const HEAD: &str = "[defaults]\nfn = \"hfi1_setup_wqe\"\nqp = { type = \"IB_QPT_RC\", num = 1, port = 1, pmtu = 4096 }\nwqe = { length = 1 }\n";

    /// Loading is linear in the file's size: 10 times the cases take about
    /// 10 times as long, not 100 (the line of each case and the duplicate
    /// check used to scan the file and the cases so far).
    #[test]
    fn loading_is_linear() {
        let file = |n: usize| {
            let mut t = HEAD.to_owned();
            for i in 0..n {
                t.push_str(&format!(
                    "\n[[case]]\nname = \"c{i}\"\nwqe.length = {}\n",
                    i % 64
                ));
            }
            t
        };
        let time = |n: usize| {
            let t = file(n);
            let start = std::time::Instant::now();
            let v = parse(&t).expect("parses");
            assert_eq!(v.len(), n);
            assert_eq!(v[n - 1].line, 6 + 4 * (n - 1));
            start.elapsed().as_secs_f64()
        };
        let small = time(2_000).max(1e-4);
        let large = time(20_000);
        assert!(
            large < small * 30.0,
            "2,000 cases in {small:.3}s, 20,000 in {large:.3}s: not linear"
        );
    }

    #[test]
    fn a_scenario_has_its_steps_and_nothing_else_in_them() {
        let v = parse(&format!(
            "{HEAD}call_send = true\n[[case]]\nname = \"s\"\nwqe.length = 7\n\
             then = [{{ fn = \"qp_to_sdma_engine\", sc5 = 3 }}, {{ fn = \"hfi1_setup_wqe\" }}]\n"
        ))
        .expect("parses");
        let then = &v[0].then;
        assert_eq!(then.len(), 2);
        assert_eq!(then[0].func(), Func::QpToSdmaEngine);
        assert_eq!(then[0].args.texts(), vec![("sc5", "3".to_owned())]);
        // The file's defaults give a step's arguments; the rest is the
        // first step's call.
        assert_eq!(then[1].args.texts(), vec![("call_send", "true".to_owned())]);
        assert_eq!(then[1].wqe.length, 7);
        assert_eq!(v[0].steps().count(), 3);
        // A step's failing allocations are its own, the first's when unset.
        let v = parse(&format!(
            "{HEAD}\n[[case]]\nname = \"s\"\nworld.alloc_fail = \"0x1\"\n\
             then = [{{ fn = \"qp_to_sdma_engine\", world.alloc_fail = \"0x4\" }}, \
             {{ fn = \"hfi1_setup_wqe\" }}]\n"
        ))
        .expect("parses");
        let fails: Vec<u64> = v[0].steps().map(|c| c.world.alloc_fail).collect();
        assert_eq!(fails, [1, 4, 1]);
        assert_eq!(v[0].then[0].world.qos_shift, v[0].call.world.qos_shift);
        let err = |t: &str| {
            parse(&format!("{HEAD}\n[[case]]\nname = \"s\"\n{t}\n"))
                .expect_err("refused")
                .to_string()
        };
        let e = err("then = [{ fn = \"hfi1_setup_wqe\", qp = { refcount = 1 } }]");
        assert!(
            e.contains("qp") && e.contains("only its function's arguments"),
            "{e}"
        );
        let e = err("then = [{ fn = \"hfi1_setup_wqe\", world.qos_shift = 1 }]");
        assert!(
            e.contains("world.qos_shift") && e.contains("world.alloc_fail"),
            "{e}"
        );
        let e = err("then = [{ sc5 = 1 }]");
        assert!(e.contains("then.fn"), "{e}");
        let e = err("then = []");
        assert!(e.contains("at least one more step"), "{e}");
        let e = err("then = 3");
        assert!(e.contains("list of steps"), "{e}");
        // A later step outside the invariants on the state it runs on: the
        // QP has no engine to flush.
        let e = err("then = [{ fn = \"sdma_flush\" }]");
        assert!(e.contains("step 2 leaves the invariants"), "{e}");
    }

    #[test]
    fn a_case_overrides_one_field() {
        let v = parse(&format!(
            "{HEAD}\n[[case]]\nname = \"a\"\nwqe.length = 7\nworld.qos_shift = 3\n"
        ))
        .expect("parses");
        assert_eq!(v[0].call.wqe.length, 7);
        assert_eq!(v[0].call.qp.pmtu, 4096);
        assert_eq!(v[0].call.world.qos_shift, 3);
        assert_eq!(v[0].call.world.piothreshold, 256);
        assert_eq!(v[0].line, 6);
        assert_eq!(v[0].id(), "t::a");
    }

    #[test]
    fn an_unknown_name_is_located() {
        let e = parse(&format!(
            "{HEAD}\n[[case]]\nname = \"a\"\nqp.type = \"IB_QPT_XRC\"\n"
        ))
        .expect_err("unknown qp type");
        assert_eq!(e.line, 8);
        assert_eq!(e.field, "qp.type");
        assert!(
            e.msg.contains("IB_QPT_XRC") && e.msg.contains("IB_QPT_UD"),
            "{e}"
        );
        assert!(
            e.to_string().starts_with("vectors/t.toml:8: qp.type:"),
            "{e}"
        );
    }

    #[test]
    fn an_unknown_field_is_located() {
        let e =
            parse(&format!("{HEAD}\n[[case]]\nname = \"a\"\nwqe.lenght = 3\n")).expect_err("typo");
        assert_eq!(e.line, 8);
        assert_eq!(e.field, "wqe.lenght");
    }

    /// A case takes its function's arguments, under their names, and no
    /// other; `[defaults]` may set those of several functions, each case
    /// taking the ones of its own.
    #[test]
    fn a_case_takes_its_functions_arguments() {
        let e = parse(&format!("{HEAD}\n[[case]]\nname = \"a\"\nsc5 = 3\n"))
            .expect_err("setup_wqe takes no sc5");
        assert_eq!((e.line, e.field.as_str()), (8, "sc5"));
        assert!(
            e.msg.contains("hfi1_setup_wqe") && e.msg.contains("its arguments: call_send"),
            "{e}"
        );
        let e = parse(&format!(
            "{HEAD}\n[[case]]\nname = \"a\"\nfn = \"free_all_qps\"\ncall_send = true\n"
        ))
        .expect_err("free_all_qps takes none");
        assert!(e.msg.contains("its arguments: none"), "{e}");
        let e = parse(&format!(
            "{HEAD}\n[[case]]\nname = \"a\"\nfn = \"hfi1_qp_unbusy\"\nleg = \"IOWAIT_XX\"\n"
        ))
        .expect_err("no such leg");
        assert!(e.msg.contains("IOWAIT_TID_SE"), "{e}");
        let text = "[defaults]\nqp = { type = \"IB_QPT_RC\", num = 1, port = 1, pmtu = 4096 }\n\
                    wqe = { length = 1 }\nsc5 = 7\nselector = 9\n\n\
                    [[case]]\nname = \"a\"\nfn = \"qp_to_sdma_engine\"\n\n\
                    [[case]]\nname = \"b\"\nfn = \"sdma_select_engine_vl\"\nvl = 2\n";
        let v = parse(text).expect("defaults of two functions");
        assert_eq!(
            v[0].call.args,
            Args::QpToSdmaEngine(args::QpToSdmaEngine { sc5: Sc(7) })
        );
        assert_eq!(
            v[1].call.args,
            Args::SdmaSelectEngineVl(args::SdmaSelectEngineVl {
                selector: 9,
                vl: Vl(2)
            })
        );
        let e = parse(&format!("{HEAD}selectr = 1\n\n[[case]]\nname = \"a\"\n"))
            .expect_err("a defaults key no function takes");
        assert_eq!(e.field, "case.selectr");
    }

    #[test]
    fn malformed_toml_is_located() {
        let e = parse("[defaults]\nfn = \n").expect_err("bad toml");
        assert_eq!(e.line, 2);
        assert!(e.msg.contains("not valid TOML"), "{e}");
    }

    #[test]
    fn out_of_range_values_are_errors() {
        let e = parse(&format!(
            "{HEAD}\n[[case]]\nname = \"a\"\nwqe.length = 0x100000000\n"
        ))
        .expect_err("u32 overflow");
        assert_eq!(e.field, "wqe.length");
        let e = parse(&format!(
            "{HEAD}\n[[case]]\nname = \"a\"\nworld.piothreshold = 65536\n"
        ))
        .expect_err("u16 overflow");
        assert_eq!(e.field, "world.piothreshold");
    }

    #[test]
    fn invariants_are_enforced_with_their_reason() {
        let e = parse(&format!("{HEAD}\n[[case]]\nname = \"a\"\nqp.port = 2\n"))
            .expect_err("port 2 does not exist");
        assert!(e.msg.contains("to_iport"), "{e}");
        let e = parse(&format!(
            "{HEAD}\n[[case]]\nname = \"a\"\nqp.type = \"IB_QPT_UD\"\n"
        ))
        .expect_err("UD without AH");
        assert!(e.msg.contains("wqe.ah"), "{e}");
        let e = parse(&format!(
            "{HEAD}\n[[case]]\nname = \"a\"\nworld.sdma_map = {{ mask = 1, elems = [ {{ mask = 0, entries = [0] }} ] }}\n"
        ))
        .expect_err("mask past the elements");
        assert!(e.msg.contains("reaches past"), "{e}");
        let entries = vec!["0"; 17].join(", ");
        let e = parse(&format!(
            "{HEAD}\n[[case]]\nname = \"a\"\nworld.sdma_map = {{ mask = 0, elems = [ {{ mask = 0, entries = [{entries}] }} ] }}\n"
        ))
        .expect_err("17 entries");
        assert!(e.msg.contains("at most 16"), "{e}");
        assert_eq!(e.line, 8, "{e}");
        let elems = vec!["\"none\""; 17].join(", ");
        let e = parse(&format!(
            "{HEAD}\n[[case]]\nname = \"a\"\nworld.sdma_map = {{ mask = 0, elems = [{elems}] }}\n"
        ))
        .expect_err("17 elements");
        assert!(e.msg.contains("at most 16 elements"), "{e}");
        let e = parse(&format!(
            "{HEAD}\n[[case]]\nname = \"a\"\nworld.sdma_map = {{ mask = 0, elems = [ {{ mask = 0, entries = [255] }} ] }}\n"
        ))
        .expect_err("index 255");
        assert!(e.msg.contains("255 is no engine"), "{e}");
    }

    #[test]
    fn duplicate_names_are_errors() {
        let e = parse(&format!(
            "{HEAD}\n[[case]]\nname = \"a\"\n\n[[case]]\nname = \"a\"\n"
        ))
        .expect_err("duplicate");
        assert!(e.msg.contains("line 6"), "{e}");
    }
}
