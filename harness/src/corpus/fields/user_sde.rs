//! A map of the user engine table (`world.sdma_rht`) in a vector file,
//! and the text a caller writes to a sysfs file.

use toml_edit::{Item, Value};

use super::super::source::{check_keys, opt_index, uint, Src, R};
use super::{inline_table, TomlField};
use crate::model::types::{EngineIdx, NullableIdx, ShortText, UserSdeMap, MAP_SLOTS, SHORT_TEXT};

/// A map of the user engine table: `{ cpu, vl, ctr, mask, sde = [index
/// or "none", ...] }` (`ctr` and `mask` 0 when left out; the slots past
/// those given NULL).
impl TomlField for UserSdeMap {
    fn read(src: &Src, v: &Item, field: &str, cur: &mut Self) -> R<()> {
        let t = v.as_table_like().ok_or_else(|| {
            src.err(
                v.span(),
                field,
                "expected { cpu, vl, ctr, mask, sde = [...] }",
            )
        })?;
        check_keys(
            src,
            t,
            v.span(),
            field,
            &["cpu", "vl", "ctr", "mask", "sde"],
        )?;
        let mut m = UserSdeMap::default();
        for (k, e) in t.iter() {
            let f = format!("{field}.{k}");
            match k {
                "cpu" => m.cpu = uint(src, e, &f)?,
                "vl" => m.vl = uint(src, e, &f)?,
                "ctr" => m.ctr = uint(src, e, &f)?,
                "mask" => m.mask = uint(src, e, &f)?,
                _ => {
                    let a = e
                        .as_array()
                        .ok_or_else(|| src.err(e.span(), &f, "expected an array"))?;
                    if a.len() > MAP_SLOTS {
                        return Err(src.err(e.span(), &f, "at most 16 (a slot per engine)"));
                    }
                    for (slot, x) in m.sde.iter_mut().zip(a.iter()) {
                        *slot = NullableIdx::new(opt_index(src, x, &f)?.map(EngineIdx))
                            .ok_or_else(|| src.err(x.span(), &f, "255 is no engine"))?;
                    }
                }
            }
        }
        *cur = m;
        Ok(())
    }
    fn write(&self) -> Value {
        let sde = self
            .used()
            .iter()
            .map(|x| {
                x.get()
                    .map_or_else(|| Value::from("none"), |i| Value::from(i64::from(i.0)))
            })
            .collect();
        inline_table([
            ("cpu", Value::from(i64::from(self.cpu))),
            ("vl", Value::from(i64::from(self.vl))),
            ("ctr", Value::from(i64::from(self.ctr))),
            ("mask", Value::from(i64::from(self.mask))),
            ("sde", Value::Array(sde)),
        ])
    }
}

/// A string of at most 31 bytes, no NUL.
impl TomlField for ShortText {
    fn read(src: &Src, v: &Item, field: &str, cur: &mut Self) -> R<()> {
        let s = v
            .as_str()
            .ok_or_else(|| src.err(v.span(), field, "expected a string"))?;
        *cur = ShortText::new(s.as_bytes()).ok_or_else(|| {
            src.err(
                v.span(),
                field,
                format!("at most {SHORT_TEXT} bytes and no NUL"),
            )
        })?;
        Ok(())
    }
    fn write(&self) -> Value {
        Value::from(String::from_utf8_lossy(self.as_bytes()).into_owned())
    }
}
