//! Writes a call as a vector file the corpus loads: every field explicit,
//! so the file stands alone (it needs only `worlds.toml`'s `default` to
//! exist). Used for minimised findings of `--random`. The TOML is made by
//! toml_edit (quoting and escaping are its job), with the corpus's layout:
//! one `[[case]]`, dotted `world.` / `qp.` / `wqe.` keys.

use toml_edit::{value, Array, ArrayOfTables, DocumentMut, Item, Table, Value};

use crate::model::types::*;
use crate::vector::inline_table;

fn strings<T: std::fmt::Display>(v: impl IntoIterator<Item = T>) -> Value {
    Value::Array(v.into_iter().map(|x| x.to_string()).collect::<Array>())
}

/// Integers (not bools, which `Into<i64>` would also take).
fn ints<T: Copy + Into<i64> + IsInt>(v: &[T]) -> Value {
    Value::Array(v.iter().map(|x| (*x).into()).collect::<Array>())
}

/// The integer types written as TOML integers.
trait IsInt {}
impl IsInt for u8 {}
impl IsInt for u16 {}
impl IsInt for u32 {}
impl IsInt for i32 {}

/// An index, or `"none"` for NULL.
fn idx(v: Option<u8>) -> Value {
    v.map_or_else(|| Value::from("none"), |i| Value::from(i64::from(i)))
}

fn map<T: TableIdx>(m: &Option<VlMap<T>>, f: impl Fn(T) -> u8) -> Value {
    let Some(m) = m else {
        return Value::from("none");
    };
    let elems: Array = m
        .elems
        .iter()
        .map(|e| match e {
            None => Value::from("none"),
            Some(e) => inline_table([
                ("mask", Value::from(i64::from(e.mask))),
                (
                    "entries",
                    Value::Array(e.entries.iter().map(|x| idx(x.get().map(&f))).collect()),
                ),
            ]),
        })
        .collect();
    inline_table([
        ("mask", Value::from(i64::from(m.mask))),
        ("elems", Value::Array(elems)),
    ])
}

fn hex(v: u64) -> Value {
    Value::from(format!("0x{v:x}"))
}

/// One `[[case]]` table for `c`.
pub fn case_toml(c: &Call, name: &str, branch: &str) -> String {
    let w = &c.world;
    let q = &c.qp;
    let mut t = Table::new();
    t["name"] = value(name);
    t["branch"] = value(branch);
    t["fn"] = value(c.func().to_string());
    t["preset"] = value("default");
    crate::vector::write_args(&c.args, &mut t);

    let mut wt = Table::new();
    wt.set_dotted(true);
    wt["dev_flags"] = Item::Value(strings(&w.dev_flags));
    wt["qos_shift"] = value(i64::from(w.qos_shift));
    wt["num_vls"] = value(i64::from(w.num_vls));
    wt["piothreshold"] = value(i64::from(w.piothreshold));
    wt["node"] = value(i64::from(w.node));
    let cpus: Vec<u32> = (0..64).filter(|i| w.node_cpus & (1 << i) != 0).collect();
    wt["node_cpus"] = Item::Value(ints(&cpus));
    wt["sc_to_vl"] = Item::Value(ints(&w.sc_to_vl));
    wt["vl_mtu"] = Item::Value(ints(&w.vl_mtu));
    wt["vl_sc"] = Item::Value(Value::Array(
        w.vl_sc.iter().map(|x| idx(x.map(|i| i.0))).collect(),
    ));
    wt["sdma_cpus"] = Item::Value(ints(&w.sdma_cpus));
    wt["num_send_contexts"] = value(i64::from(w.num_send_contexts));
    wt["sdma_map"] = Item::Value(map(&w.sdma_map, |e| e.0));
    wt["pio_map"] = Item::Value(map(&w.pio_map, |e| e.0));
    wt["sl_to_sc"] = Item::Value(Value::Array(w.sl_to_sc.iter().map(|t| ints(t)).collect()));
    wt["port_ibmtu"] = Item::Value(ints(&w.port_ibmtu));
    wt["port_lid"] = Item::Value(ints(&w.port_lid));
    wt["port_gid_prefix"] = Item::Value(Value::Array(
        w.port_gid_prefix.iter().map(|p| hex(*p)).collect(),
    ));
    let bools = |v: &[bool]| Value::Array(v.iter().map(|b| Value::from(*b)).collect());
    wt["port_qp0"] = Item::Value(bools(&w.port_qp0));
    wt["port_qp1"] = Item::Value(bools(&w.port_qp1));
    wt["max_rdma_atomic"] = value(i64::from(w.max_rdma_atomic));
    wt["extra_rdma_atomic"] = value(i64::from(w.extra_rdma_atomic));
    wt["queue_work_ret"] = value(w.queue_work_ret);
    wt["tid_send_ret"] = value(w.tid_send_ret);
    wt["cancel_work_ret"] = value(w.cancel_work_ret);
    wt["alloc_fail"] = value(i64::from(w.alloc_fail));
    t["world"] = Item::Table(wt);

    let mut qt = Table::new();
    qt.set_dotted(true);
    crate::vector::write_qp(q, &mut qt);
    t["qp"] = Item::Table(qt);

    let mut wq = Table::new();
    wq.set_dotted(true);
    crate::vector::write_wqe(&c.wqe, &mut wq);
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
    use crate::generate::seeded_call;
    use crate::vector::{parse_file, Presets};
    use std::path::Path;

    /// Every generated call survives being written out and read back.
    #[test]
    fn written_vectors_read_back_equal() {
        let presets =
            Presets::load(&crate::vector::corpus_dir().join("worlds.toml")).expect("worlds.toml");
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
            Presets::load(&crate::vector::corpus_dir().join("worlds.toml")).expect("worlds.toml");
        let c = seeded_call(5, Func::SetupWqe, 0);
        let branch = "a \"quoted\" \\ branch # with\ttab";
        let text = case_toml(&c, "x", branch);
        let v = parse_file(Path::new("found.toml"), &text, &presets).expect("parses");
        assert_eq!(v[0].branch, branch, "{text}");
    }
}
