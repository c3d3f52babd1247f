//! How each field type of a record reads from a vector file and writes
//! to one ([`TomlField`]): integers, names, flag sets, tables of fixed
//! capacity, engine maps, address handles, the queues. A record's fields
//! are read through it in `corpus::records` and written in
//! `corpus::write`, each from the record's schema.

mod dma_tx;
mod user_sde;

use toml_edit::{Item, Value};

use super::source::{
    boolean, check_keys, int, item_opt_index, names, opt_index, small_index, symbol, uint,
    value_u64, value_uint, Src, R,
};
use crate::model::types::*;

/// How a field's type is read from a vector file and written to one (the
/// schema's fields are read and written through it: `record_read!` in
/// `corpus::records`, `record_write!` in `corpus::write`).
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
toml_symbols!(QpType, QpState, MigState, WrOpcode, Leg, ScType, SdmaState, SdmaEvent, PioCb);

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

/// Another iowait on the QP's engine's wait list: `{ priority,
/// starved_cnt, num_desc, after_qp, on_list }` (0, 0, 0, false and true
/// when left out: a waiter of a vector is on the list unless it says not).
impl TomlField for Waiter {
    fn read(src: &Src, v: &Item, f: &str, cur: &mut Self) -> R<()> {
        const KEYS: &[&str] = &["priority", "starved_cnt", "num_desc", "after_qp", "on_list"];
        let t = v
            .as_table_like()
            .ok_or_else(|| src.err(v.span(), f, format!("expected {{ {} }}", KEYS.join(", "))))?;
        check_keys(src, t, v.span(), f, KEYS)?;
        let n = |k: &str| -> R<i64> {
            t.get(k)
                .map_or(Ok(0), |x| uint(src, x, &format!("{f}.{k}")))
        };
        let b = |k: &str, d: bool| -> R<bool> {
            t.get(k)
                .map_or(Ok(d), |x| boolean(src, x, &format!("{f}.{k}")))
        };
        let conv = |k: &str| -> R<u16> {
            let x = n(k)?;
            u16::try_from(x).map_err(|_| {
                src.err(
                    t.get(k).and_then(|x| x.span()),
                    f,
                    format!("{x} is out of range"),
                )
            })
        };
        let small = |k: &str| -> R<u8> {
            let x = conv(k)?;
            u8::try_from(x).map_err(|_| {
                src.err(
                    t.get(k).and_then(|x| x.span()),
                    f,
                    format!("{x} is out of range"),
                )
            })
        };
        *cur = Waiter {
            priority: small("priority")?,
            starved_cnt: small("starved_cnt")?,
            num_desc: conv("num_desc")?,
            after_qp: b("after_qp", false)?,
            on_list: b("on_list", true)?,
        };
        Ok(())
    }
    fn write(&self) -> Value {
        inline_table([
            ("priority", Value::from(i64::from(self.priority))),
            ("starved_cnt", Value::from(i64::from(self.starved_cnt))),
            ("num_desc", Value::from(i64::from(self.num_desc))),
            ("after_qp", Value::from(self.after_qp)),
            ("on_list", Value::from(self.on_list)),
        ])
    }
}

/// Key `k` of table `t` (field `f`) into `cur`, when it is there.
fn get<T: TomlField>(
    src: &Src,
    t: &dyn toml_edit::TableLike,
    f: &str,
    k: &str,
    cur: &mut T,
) -> R<()> {
    match t.get(k) {
        Some(x) => T::read(src, x, &format!("{f}.{k}"), cur),
        None => Ok(()),
    }
}

/// A descriptor of the QP's engine's ring: `{ idx, qw0, qw1 }` (0 when
/// left out).
impl TomlField for DescqEntry {
    fn read(src: &Src, v: &Item, f: &str, cur: &mut Self) -> R<()> {
        const KEYS: &[&str] = &["idx", "qw0", "qw1"];
        let t = v
            .as_table_like()
            .ok_or_else(|| src.err(v.span(), f, format!("expected {{ {} }}", KEYS.join(", "))))?;
        check_keys(src, t, v.span(), f, KEYS)?;
        let mut d = DescqEntry::default();
        get(src, t, f, "idx", &mut d.idx)?;
        get(src, t, f, "qw0", &mut d.qw0)?;
        get(src, t, f, "qw1", &mut d.qw1)?;
        *cur = d;
        Ok(())
    }
    fn write(&self) -> Value {
        inline_table([
            ("idx", self.idx.write()),
            ("qw0", self.qw0.write()),
            ("qw1", self.qw1.write()),
        ])
    }
}

/// Another QP on the QP's send context's piowait list: `{ num, s_flags,
/// priv_flags, iowait_flags, refcount, priority, starved_cnt, after_qp,
/// on_list }` (refcount 1 and on_list true when left out, the rest 0,
/// empty or false).
impl TomlField for PioWaiter {
    fn read(src: &Src, v: &Item, f: &str, cur: &mut Self) -> R<()> {
        const KEYS: &[&str] = &[
            "num",
            "s_flags",
            "priv_flags",
            "iowait_flags",
            "refcount",
            "priority",
            "starved_cnt",
            "after_qp",
            "on_list",
        ];
        let t = v
            .as_table_like()
            .ok_or_else(|| src.err(v.span(), f, format!("expected {{ {} }}", KEYS.join(", "))))?;
        check_keys(src, t, v.span(), f, KEYS)?;
        let mut p = PioWaiter {
            refcount: 1,
            on_list: true,
            ..PioWaiter::default()
        };
        get(src, t, f, "num", &mut p.num)?;
        get(src, t, f, "s_flags", &mut p.s_flags)?;
        get(src, t, f, "priv_flags", &mut p.priv_flags)?;
        get(src, t, f, "iowait_flags", &mut p.iowait_flags)?;
        get(src, t, f, "refcount", &mut p.refcount)?;
        get(src, t, f, "priority", &mut p.priority)?;
        get(src, t, f, "starved_cnt", &mut p.starved_cnt)?;
        get(src, t, f, "after_qp", &mut p.after_qp)?;
        get(src, t, f, "on_list", &mut p.on_list)?;
        *cur = p;
        Ok(())
    }
    fn write(&self) -> Value {
        inline_table([
            ("num", self.num.write()),
            ("s_flags", self.s_flags.write()),
            ("priv_flags", self.priv_flags.write()),
            ("iowait_flags", self.iowait_flags.write()),
            ("refcount", self.refcount.write()),
            ("priority", self.priority.write()),
            ("starved_cnt", self.starved_cnt.write()),
            ("after_qp", self.after_qp.write()),
            ("on_list", self.on_list.write()),
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

/// A value per engine or send context: a table of `index = value` for
/// the entries off their default (`engines.sc_credit_intr_count = { 3 = 1
/// }`), over the entries already set; written as the table.
impl<T: TomlField + Copy + Default + PartialEq, const N: usize> TomlField for PerIndex<T, N> {
    fn read(src: &Src, v: &Item, field: &str, cur: &mut Self) -> R<()> {
        let t = v.as_table_like().ok_or_else(|| {
            src.err(
                v.span(),
                field,
                "expected a table of index = value (`{ 3 = 1 }`)",
            )
        })?;
        for (k, e) in t.iter() {
            let i: usize = k
                .parse()
                .map_err(|_| src.err(v.span(), field, format!("key {k:?} is not an index")))?;
            if i >= N {
                return Err(src.err(
                    e.span().or(v.span()),
                    field,
                    format!("index {i} is out of range (0..{N})"),
                ));
            }
            let mut x = cur.get(i);
            T::read(src, e, &format!("{field}[{i}]"), &mut x)?;
            cur.set(i, x).map_err(|_| {
                src.err(
                    v.span(),
                    field,
                    format!("more than {PER_INDEX_SLOTS} entries off their default"),
                )
            })?;
        }
        Ok(())
    }
    fn write(&self) -> Value {
        let mut t = toml_edit::InlineTable::new();
        for (i, x) in self.iter() {
            t.insert(i.to_string(), x.write());
        }
        Value::InlineTable(t)
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

/// An engine map (see its [`TomlField`] impl), its indices made by `mk`.
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
                    let _ = elems.push(map_elem(src, el, &ef, &mk)?);
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

/// One element of an engine map: `"none"` (NULL) or `{ mask, entries }`,
/// named `ef` in errors.
fn map_elem<T: TableIdx>(
    src: &Src,
    el: &Value,
    ef: &str,
    mk: &impl Fn(u8) -> T,
) -> R<Option<MapElem<T>>> {
    if el.as_str() == Some("none") {
        return Ok(None);
    }
    let it = el
        .as_inline_table()
        .ok_or_else(|| src.err(el.span(), ef, "expected \"none\" or { mask, entries }"))?;
    let mut emask = None;
    let mut entries = Slots::new();
    for (ek, ev) in it.iter() {
        match ek {
            "mask" => emask = Some(value_uint::<u32>(src, ev, ef)?),
            "entries" => {
                let ea = ev
                    .as_array()
                    .ok_or_else(|| src.err(ev.span(), ef, "entries: expected an array"))?;
                for x in ea.iter() {
                    let v = NullableIdx::new(opt_index(src, x, ef)?.map(mk)).ok_or_else(|| {
                        src.err(x.span(), ef, "entries: 255 is no engine or send context")
                    })?;
                    if entries.push(v).is_err() {
                        return Err(src.err(
                            x.span(),
                            ef,
                            "entries: at most 16 (an element has one per engine)",
                        ));
                    }
                }
            }
            other => {
                return Err(src.err(
                    ev.span(),
                    ef,
                    format!("unknown key {other:?} (expected mask, entries)"),
                ))
            }
        }
    }
    let emask = emask.ok_or_else(|| src.err(el.span(), ef, "missing mask"))?;
    Ok(Some(MapElem {
        mask: emask,
        entries,
    }))
}

/// An address-vector argument: `{ sl, port }`.
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

/// The keys of a walked QP.
const ITER_KEYS: &[&str] = &["type", "num", "port", "state", "sl", "last_wqe"];

/// A QP a walk visits (see its [`TomlField`] impl).
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

/// An inline table of `pairs`, in their order.
fn inline_table<'a>(pairs: impl IntoIterator<Item = (&'a str, Value)>) -> Value {
    let mut t = toml_edit::InlineTable::new();
    for (k, v) in pairs {
        t.insert(k, v);
    }
    Value::InlineTable(t)
}
