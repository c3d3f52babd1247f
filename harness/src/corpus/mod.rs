//! Vectors: the hand-written corpus in `vectors/*.toml`.
//!
//! A vector file holds one function family. Its `[defaults]` table states
//! a full call once; each `[[case]]` states only what differs, with dotted
//! keys (`wqe.length = 4097`, `world.qos_shift = 2`). Worlds start from a
//! named preset of `vectors/worlds.toml` (`preset = "no-sdma"`). Names are
//! the kernel's own (`"IB_QPT_UD"`, `"HFI1_HAS_SEND_DMA"`). Every error names
//! the file, the line and the field; nothing here panics on bad input.
//!
//! Every vector, hand-written or generated, passes [`validate`]: the
//! invariants the driver relies on, written down once with their upstream
//! reason.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use toml_edit::{ImDocument, Item, Table, Value};

use crate::model::types::*;

pub mod invariants;
pub mod write;

pub use invariants::validate;

/// A vector: one named call with the file and line it came from.
#[derive(Debug, Clone)]
pub struct Vector {
    /// The family (the file's stem): `setup_wqe`, `engine`, …
    pub family: String,
    pub name: String,
    /// The branch of the upstream function this case is meant to reach.
    pub branch: String,
    pub file: PathBuf,
    pub line: usize,
    pub call: Call,
}

impl Vector {
    /// `FAMILY::NAME`, the trial name.
    pub fn id(&self) -> String {
        format!("{}::{}", self.family, self.name)
    }
}

/// A bad vector file, located.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VectorError {
    pub file: PathBuf,
    pub line: usize,
    pub field: String,
    pub msg: String,
}

impl fmt::Display for VectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}:{}: {}", self.file.display(), self.line, self.msg)
        } else {
            write!(
                f,
                "{}:{}: {}: {}",
                self.file.display(),
                self.line,
                self.field,
                self.msg
            )
        }
    }
}

impl std::error::Error for VectorError {}

pub(crate) type R<T> = Result<T, VectorError>;

/// A parsed file and the means to locate its errors.
pub(crate) struct Src<'a> {
    file: &'a Path,
    text: &'a str,
    /// Byte offsets where lines start: a line is found by binary search,
    /// so locating every case of a large file stays linear overall.
    starts: Vec<usize>,
}

impl<'a> Src<'a> {
    fn new(file: &'a Path, text: &'a str) -> Src<'a> {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Src { file, text, starts }
    }

    fn line_of(&self, span: Option<Range<usize>>) -> usize {
        span.map_or(1, |s| {
            let at = s.start.min(self.text.len());
            self.starts.partition_point(|&l| l <= at)
        })
    }

    fn err(&self, span: Option<Range<usize>>, field: &str, msg: impl Into<String>) -> VectorError {
        VectorError {
            file: self.file.to_owned(),
            line: self.line_of(span),
            field: field.to_owned(),
            msg: msg.into(),
        }
    }

    fn parse(&self) -> R<ImDocument<&str>> {
        ImDocument::parse(self.text).map_err(|e| {
            let msg = e.message().to_owned();
            self.err(e.span(), "", format!("not valid TOML: {msg}"))
        })
    }
}

fn int(src: &Src, v: &Item, field: &str) -> R<i64> {
    v.as_integer()
        .ok_or_else(|| src.err(v.span(), field, "expected an integer"))
}

fn uint<T: TryFrom<i64>>(src: &Src, v: &Item, field: &str) -> R<T> {
    let i = int(src, v, field)?;
    T::try_from(i).map_err(|_| {
        src.err(
            v.span(),
            field,
            format!("{i} is out of range for {}", std::any::type_name::<T>()),
        )
    })
}

fn value_uint<T: TryFrom<i64>>(src: &Src, v: &Value, field: &str) -> R<T> {
    let i = v
        .as_integer()
        .ok_or_else(|| src.err(v.span(), field, "expected an integer"))?;
    T::try_from(i).map_err(|_| {
        src.err(
            v.span(),
            field,
            format!("{i} is out of range for {}", std::any::type_name::<T>()),
        )
    })
}

fn boolean(src: &Src, v: &Item, field: &str) -> R<bool> {
    v.as_bool()
        .ok_or_else(|| src.err(v.span(), field, "expected true or false"))
}

fn string<'a>(src: &Src, v: &'a Item, field: &str) -> R<&'a str> {
    v.as_str()
        .ok_or_else(|| src.err(v.span(), field, "expected a string"))
}

fn symbol<T>(
    src: &Src,
    v: &Item,
    field: &str,
    parse: impl Fn(&str) -> Option<T>,
    names: impl Fn() -> String,
) -> R<T> {
    let s = string(src, v, field)?;
    parse(s).ok_or_else(|| {
        src.err(
            v.span(),
            field,
            format!("unknown name {s:?} (expected one of: {})", names()),
        )
    })
}

/// An entry that is an index or the string "none" (NULL).
/// A 64-bit field (a GID half): TOML integers are signed 64-bit, so a value
/// like fe80:: is written as a hex string.
fn value_u64(src: &Src, v: &Value, field: &str) -> R<u64> {
    match (v.as_integer(), v.as_str()) {
        (Some(i), _) => {
            u64::try_from(i).map_err(|_| src.err(v.span(), field, format!("{i} is negative")))
        }
        (None, Some(t)) => t
            .strip_prefix("0x")
            .and_then(|h| u64::from_str_radix(h, 16).ok())
            .ok_or_else(|| {
                src.err(
                    v.span(),
                    field,
                    format!("{t:?}: expected \"0x\" and hex digits"),
                )
            }),
        _ => Err(src.err(v.span(), field, "expected an integer or \"0x...\"")),
    }
}

fn opt_index(src: &Src, v: &Value, field: &str) -> R<Option<u8>> {
    if v.as_str() == Some("none") {
        return Ok(None);
    }
    value_uint(src, v, field).map(Some)
}

fn vl_map<T: TableIdx>(
    src: &Src,
    v: &Item,
    field: &str,
    mk: impl Fn(u8) -> T,
) -> R<Option<VlMap<T>>> {
    if v.as_str() == Some("none") {
        return Ok(None);
    }
    let t = v.as_table_like().ok_or_else(|| {
        src.err(
            v.span(),
            field,
            "expected \"none\" or { mask = N, elems = [...] }",
        )
    })?;
    let mut mask = None;
    let mut elems = Slots::new();
    for (k, e) in t.iter() {
        let f = format!("{field}.{k}");
        match k {
            "mask" => mask = Some(uint::<u32>(src, e, &f)?),
            "elems" => {
                let a = e
                    .as_array()
                    .ok_or_else(|| src.err(e.span(), &f, "expected an array"))?;
                for (i, el) in a.iter().enumerate() {
                    let ef = format!("{f}[{i}]");
                    if elems.len() == MAP_SLOTS {
                        return Err(src.err(el.span(), &ef, "at most 16 elements"));
                    }
                    if el.as_str() == Some("none") {
                        let _ = elems.push(None);
                        continue;
                    }
                    let it = el.as_inline_table().ok_or_else(|| {
                        src.err(el.span(), &ef, "expected \"none\" or { mask, entries }")
                    })?;
                    let mut emask = None;
                    let mut entries = Slots::new();
                    for (ek, ev) in it.iter() {
                        match ek {
                            "mask" => emask = Some(value_uint::<u32>(src, ev, &ef)?),
                            "entries" => {
                                let ea = ev.as_array().ok_or_else(|| {
                                    src.err(ev.span(), &ef, "entries: expected an array")
                                })?;
                                for x in ea.iter() {
                                    let v = NullableIdx::new(opt_index(src, x, &ef)?.map(&mk))
                                        .ok_or_else(|| {
                                            src.err(
                                                x.span(),
                                                &ef,
                                                "entries: 255 is no engine or send context",
                                            )
                                        })?;
                                    if entries.push(v).is_err() {
                                        return Err(src.err(
                                            x.span(),
                                            &ef,
                                            "entries: at most 16 (an element has one per engine)",
                                        ));
                                    }
                                }
                            }
                            other => {
                                return Err(src.err(
                                    ev.span(),
                                    &ef,
                                    format!("unknown key {other:?} (expected mask, entries)"),
                                ))
                            }
                        }
                    }
                    let emask = emask.ok_or_else(|| src.err(el.span(), &ef, "missing mask"))?;
                    let _ = elems.push(Some(MapElem {
                        mask: emask,
                        entries,
                    }));
                }
            }
            other => {
                return Err(src.err(
                    e.span(),
                    &f,
                    format!("unknown key {other:?} (expected mask, elems)"),
                ))
            }
        }
    }
    let mask = mask.ok_or_else(|| src.err(v.span(), field, "missing mask"))?;
    Ok(Some(VlMap { mask, elems }))
}

/// The named worlds of `vectors/worlds.toml`.
pub struct Presets {
    worlds: BTreeMap<String, World>,
}

impl Presets {
    pub fn load(path: &Path) -> Result<Presets, VectorError> {
        let text = read_text(path)?;
        Presets::parse(path, &text)
    }

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

    pub fn get(&self, name: &str) -> Option<&World> {
        self.worlds.get(name)
    }

    pub fn names(&self) -> Vec<&str> {
        self.worlds.keys().map(String::as_str).collect()
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

fn require<'a>(src: &Src, case: &Table, it: Option<&'a Item>, field: &str) -> R<&'a Item> {
    it.ok_or_else(|| {
        src.err(
            case.span(),
            field,
            "missing (set it in the case or in [defaults])",
        )
    })
}

fn check_keys(
    src: &Src,
    t: &dyn toml_edit::TableLike,
    span: Option<Range<usize>>,
    field: &str,
    allowed: &[&str],
) -> R<()> {
    for (k, v) in t.iter() {
        if !allowed.contains(&k) {
            return Err(src.err(
                v.span().or(span.clone()),
                &format!("{field}.{k}"),
                format!("unknown field (expected one of: {})", allowed.join(", ")),
            ));
        }
    }
    Ok(())
}

/// The keys of a case that are not its function's arguments (those are
/// the argument record's keys, `call_schema!`).
const CASE_KEYS: &[&str] = &["name", "branch", "fn", "preset", "qp", "wqe", "world"];
/// A list of symbolic names, sorted and deduplicated.
fn names<T: Ord + Copy>(
    src: &Src,
    v: &Item,
    field: &str,
    parse: impl Fn(&str) -> Option<T>,
    all: impl Fn() -> String,
) -> R<Vec<T>> {
    let a = v
        .as_array()
        .ok_or_else(|| src.err(v.span(), field, "expected an array of names"))?;
    let mut out = vec![];
    for e in a.iter() {
        let s = e
            .as_str()
            .ok_or_else(|| src.err(e.span(), field, "expected a name"))?;
        out.push(parse(s).ok_or_else(|| {
            src.err(
                e.span(),
                field,
                format!("unknown name {s:?} (expected one of: {})", all()),
            )
        })?);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn item_opt_index(src: &Src, v: &Item, field: &str) -> R<Option<u8>> {
    match v.as_value() {
        Some(x) => opt_index(src, x, field),
        None => Err(src.err(v.span(), field, "expected an index or \"none\"")),
    }
}

fn small_index(src: &Src, k: &str, v: &Item, field: &str, n: usize) -> R<usize> {
    k.parse()
        .ok()
        .filter(|i| *i < n)
        .ok_or_else(|| src.err(v.span(), field, format!("{k:?} is not an index 0..{n}")))
}

/// How a field's type is read from a vector file and written to one (the
/// schema's fields are read and written through it: `qp_toml!`).
pub(crate) trait TomlField {
    /// Reads `v` into `cur`; a table may patch part of an array.
    fn read(src: &Src, v: &Item, field: &str, cur: &mut Self) -> R<()>;
    /// The value as a vector file writes it; reads back equal.
    fn write(&self) -> Value;
}

macro_rules! toml_ints {
    ($($t:ty),*) => {$(
        impl TomlField for $t {
            fn read(src: &Src, v: &Item, field: &str, cur: &mut Self) -> R<()> {
                *cur = uint(src, v, field)?;
                Ok(())
            }
            fn write(&self) -> Value {
                Value::from(i64::from(*self))
            }
        }
    )*};
}
toml_ints!(u8, u16, u32, i8, i32);

/// 64-bit fields are GID halves: written in hex (TOML integers are signed).
impl TomlField for u64 {
    fn read(src: &Src, v: &Item, field: &str, cur: &mut Self) -> R<()> {
        let x = v
            .as_value()
            .ok_or_else(|| src.err(v.span(), field, "expected an integer or \"0x...\""))?;
        *cur = value_u64(src, x, field)?;
        Ok(())
    }
    fn write(&self) -> Value {
        Value::from(format!("0x{self:x}"))
    }
}

impl TomlField for bool {
    fn read(src: &Src, v: &Item, field: &str, cur: &mut Self) -> R<()> {
        *cur = boolean(src, v, field)?;
        Ok(())
    }
    fn write(&self) -> Value {
        Value::from(*self)
    }
}

macro_rules! toml_symbols {
    ($($t:ty),*) => {$(
        impl TomlField for $t {
            fn read(src: &Src, v: &Item, field: &str, cur: &mut Self) -> R<()> {
                *cur = symbol(src, v, field, <$t>::from_name, <$t>::names)?;
                Ok(())
            }
            fn write(&self) -> Value {
                Value::from(self.name())
            }
        }
    )*};
}
toml_symbols!(QpType, QpState, MigState, WrOpcode, Leg);

/// A byte newtype argument.
macro_rules! toml_bytes {
    ($($t:ident),*) => {$(
        impl TomlField for $t {
            fn read(src: &Src, v: &Item, field: &str, cur: &mut Self) -> R<()> {
                *cur = $t(uint(src, v, field)?);
                Ok(())
            }
            fn write(&self) -> Value {
                Value::from(i64::from(self.0))
            }
        }
    )*};
}
toml_bytes!(Sc, Vl);

/// An optional state: its name, or `"none"` (not in `attr_mask`).
impl TomlField for Option<MigState> {
    fn read(src: &Src, v: &Item, field: &str, cur: &mut Self) -> R<()> {
        *cur = match v.as_str() {
            Some("none") => None,
            _ => Some(symbol(src, v, field, MigState::from_name, MigState::names)?),
        };
        Ok(())
    }
    fn write(&self) -> Value {
        Value::from(self.map_or("none", |m| m.name()))
    }
}

/// An address-vector argument: `{ sl, port }` (sl 0 and port 1 when
/// left out), or `"none"` (not in `attr_mask`).
impl TomlField for Option<AttrAh> {
    fn read(src: &Src, v: &Item, field: &str, cur: &mut Self) -> R<()> {
        *cur = match v.as_str() {
            Some("none") => None,
            _ => Some(parse_attr_ah(src, v, field)?),
        };
        Ok(())
    }
    fn write(&self) -> Value {
        match self {
            None => Value::from("none"),
            Some(a) => inline_table([
                ("sl", Value::from(i64::from(a.sl))),
                ("port", Value::from(i64::from(a.port))),
            ]),
        }
    }
}

/// A QP a walk visits: `{ type, num, port, state, sl, last_wqe }`.
impl TomlField for IterQp {
    fn read(src: &Src, v: &Item, field: &str, cur: &mut Self) -> R<()> {
        *cur = iter_qp(src, v, field)?;
        Ok(())
    }
    fn write(&self) -> Value {
        inline_table([
            ("type", Value::from(self.qp_type.to_string())),
            ("num", Value::from(i64::from(self.num))),
            ("port", Value::from(i64::from(self.port))),
            ("state", Value::from(self.state.to_string())),
            ("sl", Value::from(i64::from(self.remote_sl))),
            ("last_wqe", Value::from(self.error_qp_ret)),
        ])
    }
}

/// A table of fixed capacity: an array of its entries, or a table
/// patching the first entry (`world.sl_to_sc = { 3 = 15 }`: port 1).
impl<T: TomlField + Copy + Default, const N: usize> TomlField for Slots<T, N> {
    fn read(src: &Src, v: &Item, field: &str, cur: &mut Self) -> R<()> {
        if let Some(a) = v.as_array() {
            cur.clear();
            for (i, e) in a.iter().enumerate() {
                let mut x = T::default();
                T::read(
                    src,
                    &Item::Value(e.clone()),
                    &format!("{field}[{i}]"),
                    &mut x,
                )?;
                cur.push(x)
                    .map_err(|_| src.err(e.span(), field, format!("at most {N} entries")))?;
            }
            return Ok(());
        }
        if v.is_table_like() {
            let first = cur
                .first_mut()
                .ok_or_else(|| src.err(v.span(), field, "no entry to patch (give an array)"))?;
            return T::read(src, v, &format!("{field}[0]"), first);
        }
        Err(src.err(v.span(), field, "expected an array"))
    }
    fn write(&self) -> Value {
        Value::Array(self.iter().map(TomlField::write).collect())
    }
}

/// A fixed array: all `N` entries, or a table patching some by index
/// (`world.vl_sc = { 15 = "none" }`).
impl<T: TomlField, const N: usize> TomlField for [T; N] {
    fn read(src: &Src, v: &Item, field: &str, cur: &mut Self) -> R<()> {
        if let Some(a) = v.as_array() {
            if a.len() != N {
                return Err(src.err(
                    v.span(),
                    field,
                    format!("expected {N} entries, found {}", a.len()),
                ));
            }
            for (i, e) in a.iter().enumerate() {
                T::read(
                    src,
                    &Item::Value(e.clone()),
                    &format!("{field}[{i}]"),
                    &mut cur[i],
                )?;
            }
            return Ok(());
        }
        if let Some(t) = v.as_table_like() {
            for (k, e) in t.iter() {
                let i: usize = k
                    .parse()
                    .map_err(|_| src.err(v.span(), field, format!("key {k:?} is not an index")))?;
                let slot = cur.get_mut(i).ok_or_else(|| {
                    src.err(
                        e.span().or(v.span()),
                        field,
                        format!("index {i} is out of range (0..{N})"),
                    )
                })?;
                T::read(src, e, &format!("{field}[{i}]"), slot)?;
            }
            return Ok(());
        }
        Err(src.err(
            v.span(),
            field,
            format!("expected an array of {N} or a table of index = value"),
        ))
    }
    fn write(&self) -> Value {
        Value::Array(self.iter().map(TomlField::write).collect())
    }
}

/// A node's CPUs: the list of cpu numbers (0..63).
impl TomlField for CpuMask {
    fn read(src: &Src, v: &Item, field: &str, cur: &mut Self) -> R<()> {
        let a = v
            .as_array()
            .ok_or_else(|| src.err(v.span(), field, "expected an array of cpu numbers"))?;
        let mut m = 0u64;
        for e in a.iter() {
            let c: u8 = value_uint(src, e, field)?;
            if c >= 64 {
                return Err(src.err(e.span(), field, "cpus are 0..63"));
            }
            m |= 1 << c;
        }
        *cur = CpuMask(m);
        Ok(())
    }
    fn write(&self) -> Value {
        Value::Array((0..64i64).filter(|i| self.0 & (1 << i) != 0).collect())
    }
}

/// An engine map: `"none"` (NULL) or `{ mask, elems = [...] }`, each
/// element `"none"` or `{ mask, entries = [index or "none", ...] }`.
impl<T: TableIdx> TomlField for Option<VlMap<T>> {
    fn read(src: &Src, v: &Item, field: &str, cur: &mut Self) -> R<()> {
        *cur = vl_map(src, v, field, T::from_u8)?;
        Ok(())
    }
    fn write(&self) -> Value {
        let Some(m) = self else {
            return Value::from("none");
        };
        let idx = |x: &NullableIdx<T>| {
            x.get().map_or_else(
                || Value::from("none"),
                |i| Value::from(i64::from(i.as_u8())),
            )
        };
        let elems: toml_edit::Array = m
            .elems
            .iter()
            .map(|e| match e {
                None => Value::from("none"),
                Some(e) => inline_table([
                    ("mask", Value::from(i64::from(e.mask))),
                    ("entries", Value::Array(e.entries.iter().map(idx).collect())),
                ]),
            })
            .collect();
        inline_table([
            ("mask", Value::from(i64::from(m.mask))),
            ("elems", Value::Array(elems)),
        ])
    }
}

impl<T: Symbol + Ord> TomlField for Flags<T> {
    fn read(src: &Src, v: &Item, field: &str, cur: &mut Self) -> R<()> {
        let by_name = |s: &str| T::ALL.iter().copied().find(|x| x.name() == s);
        let all = || {
            T::ALL
                .iter()
                .map(|x| x.name())
                .collect::<Vec<_>>()
                .join(", ")
        };
        *cur = names(src, v, field, by_name, all)?.into();
        Ok(())
    }
    fn write(&self) -> Value {
        Value::Array(self.iter().map(|x| x.name()).collect())
    }
}

macro_rules! toml_indices {
    ($($t:ident),*) => {$(
        /// An index of the world's table, or `"none"` for NULL.
        impl TomlField for Option<$t> {
            fn read(src: &Src, v: &Item, field: &str, cur: &mut Self) -> R<()> {
                *cur = item_opt_index(src, v, field)?.map($t);
                Ok(())
            }
            fn write(&self) -> Value {
                self.map_or_else(|| Value::from("none"), |i| Value::from(i64::from(i.0)))
            }
        }
    )*};
}
toml_indices!(EngineIdx, SendCtxIdx);

/// A count behind a pointer that may be NULL: `"none"` or the count.
impl TomlField for Option<u32> {
    fn read(src: &Src, v: &Item, field: &str, cur: &mut Self) -> R<()> {
        *cur = if v.as_str() == Some("none") {
            None
        } else {
            Some(uint(src, v, field)?)
        };
        Ok(())
    }
    fn write(&self) -> Value {
        self.map_or_else(|| Value::from("none"), |n| Value::from(i64::from(n)))
    }
}

pub(crate) fn inline_table<'a>(pairs: impl IntoIterator<Item = (&'a str, Value)>) -> Value {
    let mut t = toml_edit::InlineTable::new();
    for (k, v) in pairs {
        t.insert(k, v);
    }
    Value::InlineTable(t)
}

/// The ack queue: `"none"` (NULL), or a table of `index = { opcode, psn,
/// lpsn }` (entries left out are zero).
impl TomlField for Option<[AckEntry; 8]> {
    fn read(src: &Src, v: &Item, f: &str, cur: &mut Self) -> R<()> {
        if v.as_str() == Some("none") {
            *cur = None;
            return Ok(());
        }
        let mut q = [AckEntry::default(); 8];
        let tl = v.as_table_like().ok_or_else(|| {
            src.err(
                v.span(),
                f,
                "expected \"none\" or a table of index = { opcode, psn, lpsn }",
            )
        })?;
        for (ik, iv) in tl.iter() {
            let i = small_index(src, ik, iv, f, 8)?;
            let e = iv
                .as_table_like()
                .ok_or_else(|| src.err(iv.span(), f, "expected { opcode, psn, lpsn }"))?;
            check_keys(src, e, iv.span(), f, &["opcode", "psn", "lpsn"])?;
            let g = |k: &str| -> R<u32> {
                e.get(k)
                    .map_or(Ok(0), |x| uint(src, x, &format!("{f}.{k}")))
            };
            q[i] = AckEntry {
                opcode: e.get("opcode").map_or(Ok(0), |x| uint(src, x, f))?,
                psn: g("psn")?,
                lpsn: g("lpsn")?,
            };
        }
        *cur = Some(q);
        Ok(())
    }
    fn write(&self) -> Value {
        let Some(a) = self else {
            return Value::from("none");
        };
        let mut it = toml_edit::InlineTable::new();
        for (i, e) in a.iter().enumerate() {
            it.insert(
                i.to_string(),
                inline_table([
                    ("opcode", Value::from(i64::from(e.opcode))),
                    ("psn", Value::from(i64::from(e.psn))),
                    ("lpsn", Value::from(i64::from(e.lpsn))),
                ]),
            );
        }
        Value::InlineTable(it)
    }
}

/// The send queue: a table of `index = { opcode, ssn }` patching entries.
impl TomlField for [SendQueueEntry; 16] {
    fn read(src: &Src, v: &Item, f: &str, cur: &mut Self) -> R<()> {
        let tl = v
            .as_table_like()
            .ok_or_else(|| src.err(v.span(), f, "expected a table of index = { opcode, ssn }"))?;
        for (ik, iv) in tl.iter() {
            let i = small_index(src, ik, iv, f, 16)?;
            let e = iv
                .as_table_like()
                .ok_or_else(|| src.err(iv.span(), f, "expected { opcode, ssn }"))?;
            check_keys(src, e, iv.span(), f, &["opcode", "ssn"])?;
            if let Some(o) = e.get("opcode") {
                cur[i].opcode = symbol(src, o, f, WrOpcode::from_name, WrOpcode::names)?;
            }
            if let Some(x) = e.get("ssn") {
                cur[i].ssn = uint(src, x, f)?;
            }
        }
        Ok(())
    }
    fn write(&self) -> Value {
        let mut sq = toml_edit::InlineTable::new();
        for (i, e) in self.iter().enumerate() {
            sq.insert(
                i.to_string(),
                inline_table([
                    ("opcode", Value::from(e.opcode.name())),
                    ("ssn", Value::from(i64::from(e.ssn))),
                ]),
            );
        }
        Value::InlineTable(sq)
    }
}

/// From a record's schema: its keys, reading its fields from a table of
/// the vector (`prefix.key`), and writing them all (`write`).
macro_rules! record_toml {
    ([$ty:ty, $keys:ident, $apply:ident, $write:ident]
     $( $(#[doc = $doc:literal])* $key:literal $f:ident : $t:ty $([$($rule:tt)*])?
        = $d:expr $(=> $c:ident)? , )*) => {
        pub(crate) const $keys: &[&str] = &[$($key),*];

        /// Applies the fields of one table (its keys named `PREFIXkey`
        /// in errors); keys of no field are left to the caller.
        pub(crate) fn $apply(
            src: &Src,
            t: &dyn toml_edit::TableLike,
            r: &mut $ty,
            prefix: &str,
        ) -> R<()> {
            for (k, v) in t.iter() {
                match k {
                    $( $key => <$t as TomlField>::read(
                        src, v, &format!("{prefix}{k}"), &mut r.$f)?, )*
                    _ => {}
                }
            }
            Ok(())
        }

        /// Every field into a (dotted) table.
        pub(crate) fn $write(r: &$ty, t: &mut Table) {
            $( t[$key] = Item::Value(TomlField::write(&r.$f)); )*
        }
    };
}
crate::model::qp_schema!(record_toml [Qp, QP_KEYS, apply_qp, write_qp]);
crate::model::wqe_schema!(record_toml [Wqe, WQE_KEYS, apply_wqe, write_wqe]);
crate::model::world_schema!(record_toml [World, WORLD_KEYS, apply_world_fields, write_world]);

/// Applies a table of world fields (a preset's, or a case's `world`),
/// naming them `PREFIXkey` in errors.
fn apply_world(src: &Src, t: &dyn toml_edit::TableLike, w: &mut World, prefix: &str) -> R<()> {
    for (k, v) in t.iter() {
        // "base" names the preset a preset starts from (Presets::parse).
        if k != "base" && !WORLD_KEYS.contains(&k) {
            return Err(src.err(
                v.span(),
                &format!("{prefix}{k}"),
                format!(
                    "unknown world field {k:?} (expected one of: {})",
                    WORLD_KEYS.join(", ")
                ),
            ));
        }
    }
    apply_world_fields(src, t, w, prefix)
}

/// From the call schema: each function's argument record in a case (a
/// module per function), and the dispatch over [`Args`].
macro_rules! args_toml {
    ([] $( $(#[doc = $doc:literal])* $v:ident $c:ident { $($fields:tt)* } )*) => {
        $(
            #[allow(non_snake_case, unused_imports, unused_variables, unused_mut)]
            mod $v {
                use super::*;
                record_toml! { [args::$v, KEYS, apply, write] $($fields)* }
            }
        )*

        /// The argument keys of `f`.
        pub(crate) fn arg_keys(f: Func) -> &'static [&'static str] {
            match f { $( Func::$v => $v::KEYS, )* }
        }

        /// Applies the argument keys of a case (or `[defaults]`) table;
        /// other keys are not arguments.
        fn apply_args(src: &Src, t: &dyn toml_edit::TableLike, a: &mut Args) -> R<()> {
            match a { $( Args::$v(x) => $v::apply(src, t, x, ""), )* }
        }

        /// Every argument into a case table.
        pub(crate) fn write_args(a: &Args, t: &mut Table) {
            match a { $( Args::$v(x) => $v::write(x, t), )* }
        }
    };
}
crate::model::call_schema!(args_toml []);

/// Every function's argument keys: what a `[defaults]` table may set
/// (each case takes those of its function).
fn all_arg_keys() -> Vec<&'static str> {
    let mut k: Vec<&str> = Func::ALL
        .iter()
        .flat_map(|f| arg_keys(*f).iter().copied())
        .collect();
    k.sort_unstable();
    k.dedup();
    k
}

/// An address handle: `"none"` (NULL) or `{ log_pmtu, sl, port }`, all
/// three given.
impl TomlField for Option<Ah> {
    fn read(src: &Src, v: &Item, f: &str, cur: &mut Self) -> R<()> {
        if v.as_str() == Some("none") {
            *cur = None;
            return Ok(());
        }
        let t = v
            .as_table_like()
            .ok_or_else(|| src.err(v.span(), f, "expected { log_pmtu, sl, port } or \"none\""))?;
        check_keys(src, t, v.span(), f, &["log_pmtu", "sl", "port"])?;
        let get = |k: &str| {
            t.get(k)
                .ok_or_else(|| src.err(v.span(), &format!("{f}.{k}"), "missing"))
        };
        *cur = Some(Ah {
            log_pmtu: uint(src, get("log_pmtu")?, &format!("{f}.log_pmtu"))?,
            sl: Sl(uint(src, get("sl")?, &format!("{f}.sl"))?),
            port: uint(src, get("port")?, &format!("{f}.port"))?,
        });
        Ok(())
    }
    fn write(&self) -> Value {
        match self {
            None => Value::from("none"),
            Some(a) => inline_table([
                ("log_pmtu", Value::from(i64::from(a.log_pmtu))),
                ("sl", Value::from(i64::from(a.sl.0))),
                ("port", Value::from(i64::from(a.port))),
            ]),
        }
    }
}

fn parse_attr_ah(src: &Src, v: &Item, field: &str) -> R<AttrAh> {
    let t = v
        .as_table_like()
        .ok_or_else(|| src.err(v.span(), field, "expected { sl, port }"))?;
    check_keys(src, t, v.span(), field, &["sl", "port"])?;
    Ok(AttrAh {
        sl: t.get("sl").map_or(Ok(0), |x| uint(src, x, field))?,
        port: t.get("port").map_or(Ok(1), |x| uint(src, x, field))?,
    })
}

const ITER_KEYS: &[&str] = &["type", "num", "port", "state", "sl", "last_wqe"];

fn iter_qp(src: &Src, e: &Item, field: &str) -> R<IterQp> {
    let t = e.as_table_like().ok_or_else(|| {
        src.err(
            e.span(),
            field,
            "expected { type, num, port, state, sl, last_wqe }",
        )
    })?;
    for (k, x) in t.iter() {
        if !ITER_KEYS.contains(&k) {
            return Err(src.err(
                x.span(),
                &format!("{field}.{k}"),
                format!("unknown field (expected one of: {})", ITER_KEYS.join(", ")),
            ));
        }
    }
    let ty = t
        .get("type")
        .ok_or_else(|| src.err(e.span(), &format!("{field}.type"), "missing"))?;
    let qp_type = symbol(
        src,
        ty,
        &format!("{field}.type"),
        QpType::from_name,
        QpType::names,
    )?;
    let state = match t.get("state") {
        Some(s) => symbol(
            src,
            s,
            &format!("{field}.state"),
            QpState::from_name,
            QpState::names,
        )?,
        None => QpState::Rts,
    };
    let get = |k: &str, d: i64| -> R<i64> {
        match t.get(k) {
            Some(x) => int(src, x, &format!("{field}.{k}")),
            None => Ok(d),
        }
    };
    let conv = |k: &str, i: i64| -> R<u32> {
        u32::try_from(i).map_err(|_| {
            src.err(
                t.get(k).and_then(|x| x.span()),
                &format!("{field}.{k}"),
                format!("{i} is out of range"),
            )
        })
    };
    Ok(IterQp {
        qp_type,
        num: conv("num", get("num", 0)?)?,
        port: conv("port", get("port", 1)?)?,
        state,
        remote_sl: u8::try_from(get("sl", 0)?).map_err(|_| {
            src.err(
                t.get("sl").and_then(|x| x.span()),
                &format!("{field}.sl"),
                "out of range for u8",
            )
        })?,
        error_qp_ret: match t.get("last_wqe") {
            Some(x) => boolean(src, x, &format!("{field}.last_wqe"))?,
            None => false,
        },
    })
}

fn parse_case(
    src: &Src,
    family: &str,
    case: &Table,
    defaults: Option<&Table>,
    presets: &Presets,
) -> R<Vector> {
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
        for (k, allowed) in [("qp", QP_KEYS), ("wqe", WQE_KEYS)] {
            if let Some(sub) = t.get(k) {
                let tl = sub
                    .as_table_like()
                    .ok_or_else(|| src.err(sub.span(), k, "expected a table"))?;
                check_keys(src, tl, sub.span(), k, allowed)?;
            }
        }
    }
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
    // The function's arguments: [defaults] first (only those it takes),
    // then the case, which may name no other.
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
    let call = Call {
        args,
        world,
        qp,
        wqe,
    };
    validate(&call).map_err(|m| src.err(case.span().or(name_item.span()), "", m))?;
    Ok(Vector {
        family: family.to_owned(),
        name,
        branch,
        file: src.file.to_owned(),
        line,
        call,
    })
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

/// Reads a vector file: a regular file (a FIFO or a device would block or
/// never end, and is refused at once), in UTF-8 (an invalid byte is named
/// by its line).
pub fn read_text(path: &Path) -> Result<String, VectorError> {
    let err = |line: usize, msg: String| VectorError {
        file: path.to_owned(),
        line,
        field: String::new(),
        msg,
    };
    let meta = std::fs::metadata(path).map_err(|e| err(0, format!("cannot read: {e}")))?;
    if !meta.is_file() {
        let t = meta.file_type();
        use std::os::unix::fs::FileTypeExt;
        let what = if t.is_fifo() {
            "a FIFO"
        } else if t.is_char_device() || t.is_block_device() {
            "a device"
        } else if t.is_socket() {
            "a socket"
        } else if t.is_dir() {
            "a directory"
        } else {
            "not a regular file"
        };
        return Err(err(0, format!("is {what}, not a vector file: refused")));
    }
    let bytes = std::fs::read(path).map_err(|e| err(0, format!("cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let good = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..good].iter().filter(|b| **b == b'\n').count() + 1;
        err(
            line,
            format!("not UTF-8: an invalid byte at offset {good} (vector files are UTF-8 TOML)"),
        )
    })
}

/// The committed corpus directory.
pub fn corpus_dir() -> PathBuf {
    crate::project_path("vectors")
}

/// The files of a corpus directory that are not vector files: the named
/// worlds and the two manifests (coverage, mutants).
pub const NOT_VECTORS: [&str; 3] = ["worlds.toml", "unreached.toml", "mutants.toml"];

/// Loads every `*.toml` of a corpus directory but [`NOT_VECTORS`], sorted
/// by file name.
pub fn load_corpus(dir: &Path) -> Result<Vec<Vector>, VectorError> {
    let presets = Presets::load(&dir.join("worlds.toml"))?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| VectorError {
            file: dir.to_owned(),
            line: 0,
            field: String::new(),
            msg: format!("cannot read the vector directory: {e}"),
        })?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "toml")
                && p.file_name()
                    .is_some_and(|n| !NOT_VECTORS.iter().any(|x| n == *x))
        })
        .collect();
    files.sort();
    let mut all = vec![];
    for f in files {
        let text = read_text(&f)?;
        all.extend(parse_file(&f, &text, &presets)?);
    }
    Ok(all)
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

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("hfi1-vec-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("scratch dir");
        d
    }

    #[test]
    fn a_fifo_is_refused_at_once() {
        let d = scratch("fifo");
        let f = d.join("pipe.toml");
        let c = std::ffi::CString::new(f.to_string_lossy().as_bytes()).expect("path");
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
        // Nobody writes the FIFO: reading it would block forever.
        let e = read_text(&f).expect_err("a FIFO is no vector file");
        assert!(e.to_string().contains("a FIFO"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn invalid_utf8_names_its_line() {
        let d = scratch("utf8");
        let f = d.join("bad.toml");
        std::fs::write(&f, b"[defaults]\n\n# caf\xe9\n").expect("write");
        let e = read_text(&f).expect_err("not UTF-8");
        assert_eq!(e.line, 3, "{e}");
        assert!(e.to_string().contains("not UTF-8"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }

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

    /// A per-port field may not describe a port the device lacks.
    #[test]
    fn per_port_fields_stop_at_the_declared_ports() {
        let mut c = crate::generate::seeded_call(1, Func::FreeAllQps, 0);
        c.world.sl_to_sc.truncate(1);
        c.world.port_ibmtu.truncate(1);
        c.world.port_gid_prefix.truncate(1);
        c.world.port_qp0.truncate(1);
        c.world.port_qp1.truncate(1);
        c.world.port_lid.truncate(1);
        c.qp.port = 1;
        c.qp.alt_port = 1;
        assert_eq!(validate(&c), Ok(()));
        c.world.port_lid.push(7).expect("two ports fit");
        let e = validate(&c).expect_err("a second port's LID on a one-port device");
        assert!(
            e.contains("world.port_lid") && e.contains("1 port(s)"),
            "{e}"
        );
        c.world.port_lid.clear();
        assert_eq!(validate(&c), Ok(()), "short per-port fields read 0");
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

    #[test]
    fn the_committed_corpus_loads() {
        let v = load_corpus(&corpus_dir()).expect("the corpus is valid");
        assert!(v.len() > 50);
    }

    #[test]
    fn every_branch_is_listed_and_covered() {
        let readme =
            std::fs::read_to_string(corpus_dir().join("README.md")).expect("vectors/README.md");
        let listed: std::collections::BTreeSet<String> = readme
            .lines()
            .filter_map(|l| {
                l.strip_prefix("- `")?
                    .split_once('`')
                    .map(|(b, _)| b.to_owned())
            })
            .collect();
        let vectors = load_corpus(&corpus_dir()).expect("corpus");
        let named: std::collections::BTreeSet<String> =
            vectors.iter().map(|v| v.branch.clone()).collect();
        let unnamed: Vec<String> = vectors
            .iter()
            .filter(|v| v.branch.is_empty())
            .map(|v| v.id())
            .collect();
        assert!(unnamed.is_empty(), "vectors without a branch: {unnamed:?}");
        let uncovered: Vec<_> = listed.difference(&named).collect();
        let unlisted: Vec<_> = named.difference(&listed).collect();
        assert!(
            uncovered.is_empty(),
            "branches in vectors/README.md with no vector: {uncovered:?}"
        );
        assert!(
            unlisted.is_empty(),
            "vectors name branches missing from vectors/README.md: {unlisted:?}"
        );
    }
}
