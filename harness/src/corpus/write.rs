//! Writes a call as a vector file the corpus loads: every field explicit,
//! so the file stands alone (it needs only `worlds.toml`'s `default` to
//! exist). Used for minimised findings of `--random`. The TOML is made by
//! toml_edit (quoting and escaping are its job), with the corpus's layout:
//! one `[[case]]`, dotted `world.` / `qp.` / `wqe.` / `engines.` keys. Each record is
//! written from its schema, each field as its type writes
//! (`TomlField::write`).

use toml_edit::{value, ArrayOfTables, DocumentMut, Item, Table};

use super::fields::TomlField;
use crate::model::types::*;

/// From a record's schema: writing every field of it.
macro_rules! record_write {
    ([$ty:ty, $write:ident]
     $( $(#[doc = $doc:literal])* $key:literal $f:ident : $t:ty $([$($rule:tt)*])?
        = $d:expr $(=> $c:ident)? , )*) => {
        /// Every field into a (dotted) table.
        pub(crate) fn $write(r: &$ty, t: &mut Table) {
            $( t[$key] = Item::Value(TomlField::write(&r.$f)); )*
        }
    };
}
crate::model::qp_schema!(record_write [Qp, write_qp]);
crate::model::wqe_schema!(record_write [Wqe, write_wqe]);
crate::model::world_schema!(record_write [World, write_world]);
crate::model::engines_schema!(record_write [Engines, write_engines]);

/// From the call schema: each function's argument record written (a
/// module per function), and the dispatch over [`Args`].
macro_rules! args_write {
    ([] $( $(#[doc = $doc:literal])* $v:ident $c:ident { $($fields:tt)* } )*) => {
        $(
            #[allow(non_snake_case, unused_imports, unused_variables)]
            mod $v {
                use super::*;
                record_write! { [args::$v, write] $($fields)* }
            }
        )*

        /// Every argument into a case table.
        pub(crate) fn write_args(a: &Args, t: &mut Table) {
            match a { $( Args::$v(x) => $v::write(x, t), )* }
        }
    };
}
crate::model::call_schema!(args_write []);

/// One `[[case]]` table for `c`.
pub fn case_toml(c: &Call, name: &str, branch: &str) -> String {
    let w = &c.world;
    let q = &c.qp;
    let mut t = Table::new();
    t["name"] = value(name);
    t["branch"] = value(branch);
    t["fn"] = value(c.func().to_string());
    t["preset"] = value("default");
    write_args(&c.args, &mut t);

    let mut wt = Table::new();
    wt.set_dotted(true);
    write_world(w, &mut wt);
    t["world"] = Item::Table(wt);

    let mut qt = Table::new();
    qt.set_dotted(true);
    write_qp(q, &mut qt);
    t["qp"] = Item::Table(qt);

    let mut wq = Table::new();
    wq.set_dotted(true);
    write_wqe(&c.wqe, &mut wq);
    t["wqe"] = Item::Table(wq);

    let mut et = Table::new();
    et.set_dotted(true);
    write_engines(&c.engines, &mut et);
    t["engines"] = Item::Table(et);

    let mut cases = ArrayOfTables::new();
    cases.push(t);
    let mut doc = DocumentMut::new();
    doc.insert("case", Item::ArrayOfTables(cases));
    doc.to_string()
}

/// [`case_toml`] of a scenario: its first call, then `then = [{ fn = ...,
/// ARG = ... }, ...]`, each later step's function and arguments (and its
/// `world.alloc_fail` where it is not the first step's).
pub fn scenario_toml(first: &Call, then: &[Call], name: &str, branch: &str) -> String {
    let text = case_toml(first, name, branch);
    if then.is_empty() {
        return text;
    }
    let mut doc: DocumentMut = match text.parse() {
        Ok(d) => d,
        Err(_) => return text,
    };
    let mut steps = toml_edit::Array::new();
    for c in then {
        let mut t = Table::new();
        t["fn"] = value(c.func().to_string());
        write_args(&c.args, &mut t);
        if c.world.alloc_fail != first.world.alloc_fail {
            let mut w = toml_edit::InlineTable::new();
            w.set_dotted(true);
            w.insert("alloc_fail", TomlField::write(&c.world.alloc_fail));
            t["world"] = Item::Value(toml_edit::Value::InlineTable(w));
        }
        steps.push(toml_edit::Value::InlineTable(t.into_inline_table()));
    }
    if let Some(case) = doc
        .get_mut("case")
        .and_then(Item::as_array_of_tables_mut)
        .and_then(|a| a.get_mut(0))
    {
        // Before the dotted world, QP, swqe and engines keys.
        case.insert("then", Item::Value(toml_edit::Value::Array(steps)));
        case.sort_values_by(|a, _, b, _| {
            let rank = |k: &toml_edit::Key| {
                ["name", "branch", "fn", "preset", "then"]
                    .iter()
                    .position(|x| *x == k.get())
                    .unwrap_or(5)
            };
            rank(a).cmp(&rank(b))
        });
    }
    doc.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{parse_file, Presets};
    use crate::generate::seeded_call;
    use std::path::Path;

    /// Every generated call survives being written out and read back.
    #[test]
    fn written_vectors_read_back_equal() {
        let presets =
            Presets::load(&crate::corpus::corpus_dir().join("worlds.toml")).expect("worlds.toml");
        for f in Func::ALL {
            for i in 0..20 {
                let c = seeded_call(5, *f, i);
                let text = case_toml(&c, "x", "generated");
                let v = parse_file(Path::new("found.toml"), &text, &presets)
                    .unwrap_or_else(|e| panic!("{e}\n{text}"));
                assert_eq!(v[0].call, c, "{f} #{i}\n{text}");
            }
        }
    }

    /// A scenario written with its `then` steps reads back equal.
    #[test]
    fn written_scenarios_read_back_equal() {
        let presets =
            Presets::load(&crate::corpus::corpus_dir().join("worlds.toml")).expect("worlds.toml");
        let mut with_steps = 0;
        for i in 0..60 {
            let (first, then) = crate::generate::seeded_scenario(7, i);
            with_steps += usize::from(!then.is_empty());
            let text = scenario_toml(&first, &then, "x", "generated");
            let v = parse_file(Path::new("found.toml"), &text, &presets)
                .unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(v[0].call, first, "#{i}\n{text}");
            assert_eq!(v[0].then, then, "#{i}\n{text}");
            // A step failing allocations of its own reads back so.
            if let Some(last) = then.len().checked_sub(1) {
                let mut own = then.clone();
                own[last].world.alloc_fail = first.world.alloc_fail ^ (2 << (i % 60));
                let text = scenario_toml(&first, &own, "x", "generated");
                let v = parse_file(Path::new("found.toml"), &text, &presets)
                    .unwrap_or_else(|e| panic!("{e}\n{text}"));
                assert!(text.contains("world.alloc_fail"), "{text}");
                assert_eq!(v[0].then, own, "#{i}\n{text}");
            }
        }
        assert!(with_steps > 20, "{with_steps} of 60 have later steps");
    }

    /// Names and branches are quoted by toml_edit: any text survives.
    #[test]
    fn any_branch_text_survives() {
        let presets =
            Presets::load(&crate::corpus::corpus_dir().join("worlds.toml")).expect("worlds.toml");
        let c = seeded_call(5, Func::SetupWqe, 0);
        let branch = "a \"quoted\" \\ branch # with\ttab";
        let text = case_toml(&c, "x", branch);
        let v = parse_file(Path::new("found.toml"), &text, &presets).expect("parses");
        assert_eq!(v[0].branch, branch, "{text}");
    }
}
