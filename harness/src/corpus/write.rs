//! Writes a call as a vector file the corpus loads: every field explicit,
//! so the file stands alone (it needs only `worlds.toml`'s `default` to
//! exist). Used for minimised findings of `--random`. The TOML is made by
//! toml_edit (quoting and escaping are its job), with the corpus's layout:
//! one `[[case]]`, dotted `world.` / `qp.` / `wqe.` keys.

use toml_edit::{value, ArrayOfTables, DocumentMut, Item, Table};

use crate::model::types::*;

/// One `[[case]]` table for `c`.
pub fn case_toml(c: &Call, name: &str, branch: &str) -> String {
    let w = &c.world;
    let q = &c.qp;
    let mut t = Table::new();
    t["name"] = value(name);
    t["branch"] = value(branch);
    t["fn"] = value(c.func().to_string());
    t["preset"] = value("default");
    crate::corpus::write_args(&c.args, &mut t);

    let mut wt = Table::new();
    wt.set_dotted(true);
    crate::corpus::write_world(w, &mut wt);
    t["world"] = Item::Table(wt);

    let mut qt = Table::new();
    qt.set_dotted(true);
    crate::corpus::write_qp(q, &mut qt);
    t["qp"] = Item::Table(qt);

    let mut wq = Table::new();
    wq.set_dotted(true);
    crate::corpus::write_wqe(&c.wqe, &mut wq);
    t["wqe"] = Item::Table(wq);

    let mut cases = ArrayOfTables::new();
    cases.push(t);
    let mut doc = DocumentMut::new();
    doc.insert("case", Item::ArrayOfTables(cases));
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
