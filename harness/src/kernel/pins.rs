//! `snapshots/kernels.lock`: the exact Debian version (and the package's
//! SHA-256) each series stands for. Fetching a series obeys it, so a
//! Debian point release cannot change a result without a commit; the
//! snapshots of a series belong to its pinned version. Moving a pin is
//! `cargo xtask kernel update SERIES`, a reviewed commit whose snapshot
//! diff is the upgrade report.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use toml_edit::{value, DocumentMut, Item, Table};

use super::version::{series_order, version_fits_series};

/// One pinned series.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    /// `6.12`.
    pub series: String,
    /// Debian's version of `linux-source-SERIES`: `6.12.117-1~deb12u1`.
    pub version: String,
    /// SHA-256 of the `.deb`, lower-case hex.
    pub sha256: String,
}

/// The lock file, `snapshots/kernels.lock`.
pub fn lock_path() -> PathBuf {
    crate::project_path("snapshots/kernels.lock")
}

/// The lock file, as a document to read or edit.
fn read() -> Result<DocumentMut> {
    let path = lock_path();
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("reading {} (the pinned kernel versions)", path.display()))?;
    text.parse::<DocumentMut>()
        .with_context(|| format!("{}: not valid TOML", path.display()))
}

/// The series the project pins (`snapshots/kernels.lock`), oldest first.
/// Each has snapshots; `--kernel all` and `HFI1_KERNELS=all` mean these.
pub fn series() -> Vec<String> {
    match pins() {
        Ok(p) => p.into_iter().map(|p| p.series).collect(),
        Err(e) => {
            super::progress(&format!("{e:#}"));
            vec![]
        }
    }
}

/// The pins, in the file's order.
pub fn pins() -> Result<Vec<Pin>> {
    let doc = read()?;
    let path = lock_path();
    let Some(series) = doc.get("series").and_then(Item::as_table) else {
        bail!("{}: no [series.\"X.Y\"] tables", path.display());
    };
    let mut out = vec![];
    for (name, item) in series.iter() {
        let field = |k: &str| -> Result<String> {
            item.get(k)
                .and_then(Item::as_str)
                .map(str::to_owned)
                .with_context(|| format!("{}: series {name:?} has no {k} string", path.display()))
        };
        let pin = Pin {
            series: name.to_owned(),
            version: field("version")?,
            sha256: field("sha256")?,
        };
        if !version_fits_series(&pin.version, &pin.series) {
            bail!(
                "{}: version {:?} is not of series {name:?}",
                path.display(),
                pin.version
            );
        }
        out.push(pin);
    }
    Ok(out)
}

/// The pin of `series`, if the project pins it.
pub fn pin(series: &str) -> Result<Option<Pin>> {
    Ok(pins()?.into_iter().find(|p| p.series == series))
}

/// Writes `pin` into the lock file (replacing the series' pin or adding
/// it, in version order), keeping comments and the rest as they are.
pub fn write(pin: &Pin) -> Result<()> {
    let mut doc = read()?;
    if doc.get("series").and_then(Item::as_table).is_none() {
        let mut t = Table::new();
        t.set_implicit(true);
        doc["series"] = Item::Table(t);
    }
    let series = doc["series"]
        .as_table_mut()
        .context("[series] is not a table")?;
    let mut t = Table::new();
    t["version"] = value(&pin.version);
    t["sha256"] = value(&pin.sha256);
    series.insert(&pin.series, Item::Table(t));
    series.sort_values_by(|a, _, b, _| series_order(a.get()).cmp(&series_order(b.get())));
    let path = lock_path();
    std::fs::write(&path, doc.to_string()).with_context(|| format!("writing {}", path.display()))
}
