//! A tx request of the QP's engine's tx ring or flush list in a vector
//! file: `{ id, next_descq_idx, descs, mode, coalesce, ext, complete,
//! qp_wait, queue_wait }` (the last two: whose iowait `tx->wait` is; at
//! most one), its descriptors named by mapping type (`"none"`, `"single"`,
//! `"page"`, `"map3"`, each with `"+pin"` when it holds a pinning context).

use toml_edit::{Item, Value};

use super::super::source::{boolean, check_keys, uint, Src, R};
use super::{inline_table, TomlField};
use crate::model::types::{DmaTx, TxWait, MAX_TX_DESC};

/// The names of the mapping types, by value (`sdma_mapping_type()`).
const MAPS: [&str; 4] = ["none", "single", "page", "map3"];

/// `descs = [...]`: the descriptors' mapping types and pinning, into
/// `num_desc`, `map` and `pinned`.
fn read_descs(src: &Src, v: &Item, f: &str, tx: &mut DmaTx) -> R<()> {
    let arr = v
        .as_array()
        .ok_or_else(|| src.err(v.span(), f, "expected an array of descriptors"))?;
    if arr.len() > usize::from(MAX_TX_DESC) {
        return Err(src.err(
            v.span(),
            f,
            format!(
                "{} descriptors; a tx request holds at most {MAX_TX_DESC}",
                arr.len()
            ),
        ));
    }
    let (mut map, mut pinned) = (0u16, 0u8);
    for (i, d) in arr.iter().enumerate() {
        let text = d.as_str().ok_or_else(|| {
            src.err(
                d.span(),
                f,
                "expected \"none\", \"single\", \"page\" or \"map3\", with \"+pin\" or not",
            )
        })?;
        let (name, pin) = match text.strip_suffix("+pin") {
            Some(n) => (n, true),
            None => (text, false),
        };
        let m = MAPS.iter().position(|&x| x == name).ok_or_else(|| {
            src.err(
                d.span(),
                f,
                format!("unknown mapping type {name:?}: one of {}", MAPS.join(", ")),
            )
        })?;
        map |= (m as u16) << (2 * i);
        pinned |= u8::from(pin) << i;
    }
    tx.num_desc = arr.len() as u8;
    tx.map = map;
    tx.pinned = pinned;
    Ok(())
}

/// Everything left out is 0, empty or false.
impl TomlField for DmaTx {
    fn read(src: &Src, v: &Item, f: &str, cur: &mut Self) -> R<()> {
        const KEYS: &[&str] = &[
            "id",
            "next_descq_idx",
            "descs",
            "mode",
            "coalesce",
            "ext",
            "complete",
            "qp_wait",
            "queue_wait",
        ];
        let t = v
            .as_table_like()
            .ok_or_else(|| src.err(v.span(), f, format!("expected {{ {} }}", KEYS.join(", "))))?;
        check_keys(src, t, v.span(), f, KEYS)?;
        let mut tx = DmaTx::default();
        let key = |k: &str| format!("{f}.{k}");
        if let Some(x) = t.get("id") {
            tx.id = uint(src, x, &key("id"))?;
        }
        if let Some(x) = t.get("next_descq_idx") {
            tx.next_descq_idx = uint(src, x, &key("next_descq_idx"))?;
        }
        if let Some(x) = t.get("descs") {
            read_descs(src, x, &key("descs"), &mut tx)?;
        }
        if let Some(x) = t.get("mode") {
            tx.mode = uint(src, x, &key("mode"))?;
        }
        for (k, b) in [
            ("coalesce", &mut tx.coalesce),
            ("ext", &mut tx.ext),
            ("complete", &mut tx.complete),
        ] {
            if let Some(x) = t.get(k) {
                *b = boolean(src, x, &key(k))?;
            }
        }
        for (k, wait) in [("qp_wait", TxWait::Qp), ("queue_wait", TxWait::Queue)] {
            let Some(x) = t.get(k) else { continue };
            if !boolean(src, x, &key(k))? {
                continue;
            }
            if tx.wait != TxWait::Null {
                return Err(src.err(
                    x.span(),
                    &key(k),
                    "a tx request has one iowait: qp_wait or queue_wait, not both",
                ));
            }
            tx.wait = wait;
        }
        *cur = tx;
        Ok(())
    }
    fn write(&self) -> Value {
        let descs: toml_edit::Array = (0..self.num_desc.min(MAX_TX_DESC))
            .map(|i| {
                let pin = if self.pinned & 1 << i != 0 {
                    "+pin"
                } else {
                    ""
                };
                Value::from(format!("{}{pin}", MAPS[usize::from(self.map_of(i))]))
            })
            .collect();
        inline_table([
            ("id", Value::from(i64::from(self.id))),
            (
                "next_descq_idx",
                Value::from(i64::from(self.next_descq_idx)),
            ),
            ("descs", Value::Array(descs)),
            ("mode", Value::from(i64::from(self.mode))),
            ("coalesce", Value::from(self.coalesce)),
            ("ext", Value::from(self.ext)),
            ("complete", Value::from(self.complete)),
            ("qp_wait", Value::from(self.wait == TxWait::Qp)),
            ("queue_wait", Value::from(self.wait == TxWait::Queue)),
        ])
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::corpus::{parse_file, Presets, Vector};
    use crate::model::types::{DmaTx, TxWait};

    fn parse(ring: &str) -> Result<Vec<Vector>, crate::corpus::VectorError> {
        let worlds = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/worlds.toml");
        let text = std::fs::read_to_string(&worlds).expect("vectors/worlds.toml");
        let presets = Presets::parse(&worlds, &text).expect("presets parse");
        let text = format!(
            "[defaults]\nfn = \"sdma_flush\"\nqp = {{ type = \"IB_QPT_RC\", num = 1, port = 1, \
             pmtu = 4096, s_sde = 1, sde_descq_cnt = 8, sde_tx_tail = 1 }}\nwqe = {{ length = 0 }}\n\
             \n[[case]]\nname = \"a\"\nqp.sde_tx_ring = [{ring}]\n"
        );
        parse_file(Path::new("vectors/t.toml"), &text, &presets)
    }

    /// Each descriptor's mapping type takes its two bits, `+pin` its bit,
    /// the count is the list's length; written back, the same list.
    #[test]
    fn descriptors_read_by_name_and_write_back() {
        let v =
            parse("{ id = 3, descs = [\"none\", \"page+pin\", \"map3\", \"single\"], ext = true }")
                .expect("parses");
        let tx: DmaTx = v[0].call.qp.sde_tx_ring[0];
        assert_eq!((tx.id, tx.num_desc, tx.ext), (3, 4, true));
        assert_eq!(tx.map, 2 << 2 | 3 << 4 | 1 << 6);
        assert_eq!(tx.pinned, 0b10);
        let written = super::TomlField::write(&tx).to_string();
        assert!(
            written.contains(r#"descs = ["none", "page+pin", "map3", "single"]"#),
            "{written}"
        );
    }

    /// A mapping type the kernel has no name for is an error at its line.
    #[test]
    fn an_unknown_mapping_type_is_located() {
        let e = parse("{ descs = [\"sngle\"] }").expect_err("typo");
        assert_eq!(e.line, 8, "{e}");
        assert!(
            e.to_string().contains("unknown mapping type \"sngle\""),
            "{e}"
        );
    }

    /// A request's iowait is one of the two, read back as written.
    #[test]
    fn one_iowait_a_request() {
        let v = parse("{ id = 1, queue_wait = true }").expect("parses");
        let tx: DmaTx = v[0].call.qp.sde_tx_ring[0];
        assert_eq!(tx.wait, TxWait::Queue);
        let written = super::TomlField::write(&tx).to_string();
        assert!(written.contains("queue_wait = true"), "{written}");
        assert!(written.contains("qp_wait = false"), "{written}");
        let e = parse("{ qp_wait = true, queue_wait = true }").expect_err("both");
        assert!(e.to_string().contains("one iowait"), "{e}");
    }
}
