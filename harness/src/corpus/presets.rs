//! The named worlds of `vectors/worlds.toml`: a case's world starts from
//! one (`preset = "no-sdma"`, else `default`), and a preset may start from
//! one above it (`base = "default"`).

use std::collections::BTreeMap;
use std::path::Path;

use super::records::apply_world;
use super::source::{read_text, string, Src, VectorError};
use crate::model::types::*;

/// The named worlds of `vectors/worlds.toml`.
pub struct Presets {
    worlds: BTreeMap<String, World>,
}

impl Presets {
    /// Reads and parses a `worlds.toml`.
    pub fn load(path: &Path) -> Result<Presets, VectorError> {
        let text = read_text(path)?;
        Presets::parse(path, &text)
    }

    /// Parses the text of a `worlds.toml` (`path` names it in errors): a
    /// table per world, which must include `default`.
    pub fn parse(path: &Path, text: &str) -> Result<Presets, VectorError> {
        let src = Src::new(path, text);
        let doc = src.parse()?;
        let mut worlds: BTreeMap<String, World> = BTreeMap::new();
        // Presets are resolved in file order: a base must come first.
        for (name, item) in doc.as_table().iter() {
            let t = item
                .as_table_like()
                .ok_or_else(|| src.err(item.span(), name, "expected a table of world fields"))?;
            let mut w = match t.get("base") {
                Some(b) => {
                    let bn = string(&src, b, &format!("{name}.base"))?;
                    worlds.get(bn).cloned().ok_or_else(|| {
                        src.err(
                            b.span(),
                            &format!("{name}.base"),
                            format!("no preset {bn:?} above this one"),
                        )
                    })?
                }
                None => World::blank(),
            };
            apply_world(&src, t, &mut w, &format!("{name}."))?;
            worlds.insert(name.to_owned(), w);
        }
        if !worlds.contains_key("default") {
            return Err(src.err(None, "", "no [default] world"));
        }
        Ok(Presets { worlds })
    }

    /// The world named `name`.
    pub fn get(&self, name: &str) -> Option<&World> {
        self.worlds.get(name)
    }

    /// Every world's name, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.worlds.keys().map(String::as_str).collect()
    }
}
