//! The schema: each record the harness exchanges (today the QP) is
//! declared once, field by field, as a list macro (`qp_schema!` in
//! [`crate::types`]); every other form of it is derived from that list by
//! a macro that receives it. Here: the model's struct, its defaults and
//! its field table ([`record!`](crate::record)). In the harness: TOML
//! reading and writing, generation, the flat ABI struct (generated into
//! `c-shim/schema.h`) and its fill code.
//!
//! A field is written
//!
//! ```text
//! /// What it is, in the kernel's words (`qp->timeout`).
//! "key" name: Type [draw] = default => c,
//! ```
//!
//! `"key"` is its name in vector files, `name` its Rust (and ABI) name,
//! `default` its value when a vector leaves it out. `=> qp` or `=> priv`
//! (optional) says the shim copies it unchanged into `struct rvt_qp` or
//! `struct hfi1_qp_priv` under the same name; without it the shim's world
//! builder places it by hand. `[draw]` (optional) is the field's domain
//! when generated: a range (`[0..=15]`) or the name of a rule in the
//! harness's `generate::rules` (`[ring]`), where the invariants that
//! relate a field to the world or to other fields are; without it the
//! type's own domain is drawn. How a field's type is read, written, drawn
//! and passed to C is the type's business (traits in the harness), so a
//! field of an existing type is one line here.

/// One field of a record, for tables and generated code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// Its key in vector files.
    pub key: &'static str,
    /// Its Rust and ABI name.
    pub name: &'static str,
    /// Its doc comment, lines joined by spaces.
    pub doc: &'static str,
    /// Where the shim puts it: for the QP, the struct it is copied into
    /// unchanged (`"qp"`, `"priv"`, or `""`); for the engines' state, the
    /// object its entries are of (`"sc"`, `"sde"`).
    pub copy: &'static str,
}

/// Defines the struct of a record from its schema list: `pub` fields with
/// their docs, `blank()` with every default, and `FIELDS`.
#[macro_export]
macro_rules! record {
    ([$(#[$sm:meta])* $name:ident]
     $( $(#[doc = $doc:literal])* $key:literal $f:ident : $t:ty $([$($rule:tt)*])?
        = $d:expr $(=> $c:ident)? , )*) => {
        $(#[$sm])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub struct $name {
            $(
                $(#[doc = $doc])*
                #[doc = ""]
                #[doc = concat!("Key `", $key, "` in vector files.")]
                pub $f: $t,
            )*
        }

        impl $name {
            /// Every field at its default.
            pub fn blank() -> $name {
                $name { $( $f: $d, )* }
            }

            /// `(key, self's value, other's value)` for every field that
            /// differs, in declaration order.
            #[allow(unused_mut, unused_variables)]
            pub fn changes(&self, other: &$name) -> Vec<(&'static str, String, String)> {
                use $crate::schema::FieldText;
                let mut d = vec![];
                $( if self.$f != other.$f {
                    d.push(($key, self.$f.text(), other.$f.text()));
                } )*
                d
            }

            /// Sets field `i` (in declaration order) to its default; false
            /// when there is no field `i`.
            #[allow(unused_mut, unused_assignments, unused_variables)]
            pub fn reset(&mut self, i: usize) -> bool {
                let mut k = 0;
                $( if k == i {
                    self.$f = $d;
                    return true;
                }
                k += 1; )*
                false
            }

            /// `(key, value)` of every field, in declaration order.
            pub fn texts(&self) -> Vec<(&'static str, String)> {
                use $crate::schema::FieldText;
                vec![$( ($key, self.$f.text()), )*]
            }

            /// The schema's fields, in declaration order.
            pub const FIELDS: &'static [$crate::schema::Field] = &[
                $( $crate::schema::Field {
                    key: $key,
                    name: stringify!($f),
                    doc: concat!($($doc, " ",)* ""),
                    copy: concat!($(stringify!($c))?),
                }, )*
            ];
        }
    };
}

/// How a field's value is written in reports and snapshots: compactly, in
/// the kernel's names.
pub trait FieldText {
    /// The value as reports and snapshots write it.
    fn text(&self) -> String;
}

macro_rules! text_display {
    ($($t:ty),*) => {$(
        impl FieldText for $t {
            fn text(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
text_display!(u8, u16, u32, i8, i32, bool);

/// 64-bit fields are GID halves: in hex, as vector files write them.
impl FieldText for u64 {
    fn text(&self) -> String {
        format!("0x{self:x}")
    }
}

impl<T: crate::types::Symbol> FieldText for crate::types::Flags<T> {
    fn text(&self) -> String {
        let names: Vec<&str> = self.iter().map(|f| f.name()).collect();
        format!("{{{}}}", names.join(","))
    }
}

impl FieldText for Option<crate::types::EngineIdx> {
    fn text(&self) -> String {
        self.map_or("NULL".into(), |e| format!("sde#{}", e.0))
    }
}

impl FieldText for Option<crate::types::SendCtxIdx> {
    fn text(&self) -> String {
        self.map_or("NULL".into(), |s| format!("sc#{}", s.0))
    }
}

impl FieldText for Option<u32> {
    fn text(&self) -> String {
        self.map_or("none".into(), |n| n.to_string())
    }
}

impl FieldText for Option<[crate::types::AckEntry; 8]> {
    fn text(&self) -> String {
        match self {
            None => "none".into(),
            Some(a) => {
                let e: Vec<String> = a
                    .iter()
                    .map(|e| format!("{}:{}-{}", e.opcode, e.psn, e.lpsn))
                    .collect();
                format!("[{}]", e.join(" "))
            }
        }
    }
}

impl FieldText for [crate::types::SendQueueEntry; 16] {
    fn text(&self) -> String {
        let e: Vec<String> = self
            .iter()
            .map(|e| format!("{}:{}", e.opcode.name(), e.ssn))
            .collect();
        format!("[{}]", e.join(" "))
    }
}

macro_rules! text_symbols {
    ($($t:ty),*) => {$(
        impl FieldText for $t {
            fn text(&self) -> String {
                self.name().into()
            }
        }
    )*};
}
text_symbols!(
    crate::types::QpType,
    crate::types::QpState,
    crate::types::MigState,
    crate::types::WrOpcode,
    crate::types::Leg,
    crate::types::ScType,
    crate::types::SdmaState,
    crate::types::SdmaEvent,
    crate::types::PioCb
);

impl FieldText for crate::types::Sc {
    fn text(&self) -> String {
        self.0.to_string()
    }
}

impl FieldText for crate::types::Vl {
    fn text(&self) -> String {
        self.0.to_string()
    }
}

impl FieldText for Option<crate::types::MigState> {
    fn text(&self) -> String {
        self.map_or("none".into(), |m| m.name().into())
    }
}

impl FieldText for Option<crate::types::AttrAh> {
    fn text(&self) -> String {
        self.map_or("none".into(), |a| {
            format!("{{sl={} port={}}}", a.sl, a.port)
        })
    }
}

impl FieldText for crate::types::IterQp {
    fn text(&self) -> String {
        format!(
            "{{{} 0x{:x} port={} {} sl={} last_wqe={}}}",
            self.qp_type.name(),
            self.num,
            self.port,
            self.state.name(),
            self.remote_sl,
            self.error_qp_ret
        )
    }
}

impl FieldText for crate::types::Waiter {
    fn text(&self) -> String {
        format!(
            "{{prio={} starved={} desc={} {}{}}}",
            self.priority,
            self.starved_cnt,
            self.num_desc,
            if self.after_qp { "after" } else { "before" },
            if self.on_list { "" } else { " off" }
        )
    }
}

impl FieldText for crate::types::DmaTx {
    fn text(&self) -> String {
        let descs: Vec<String> = (0..self.num_desc.min(crate::types::MAX_TX_DESC))
            .map(|i| {
                let map = ["none", "single", "page", "map3"][usize::from(self.map_of(i))];
                let pin = if self.pinned & 1 << i != 0 {
                    "+pin"
                } else {
                    ""
                };
                format!("{map}{pin}")
            })
            .collect();
        format!(
            "{{dtx#{} next={} descs=[{}] mode={}{}{}{}{}}}",
            self.id,
            self.next_descq_idx,
            descs.join(" "),
            self.mode,
            if self.coalesce { " coalesce" } else { "" },
            if self.ext { " ext" } else { "" },
            if self.complete { " complete" } else { "" },
            match self.wait {
                crate::types::TxWait::Null => "",
                crate::types::TxWait::Qp => " qp_wait",
                crate::types::TxWait::Queue => " queue_wait",
            },
        )
    }
}

impl FieldText for crate::types::DescqEntry {
    fn text(&self) -> String {
        format!("{{descq#{} 0x{:x} 0x{:x}}}", self.idx, self.qw0, self.qw1)
    }
}

impl FieldText for crate::types::PioWaiter {
    fn text(&self) -> String {
        format!(
            "{{qp#0x{:x} s={} priv={} iowait={} refcount={} prio={} starved={} {}{}}}",
            self.num,
            self.s_flags.text(),
            self.priv_flags.text(),
            self.iowait_flags.text(),
            self.refcount,
            self.priority,
            self.starved_cnt,
            if self.after_qp { "after" } else { "before" },
            if self.on_list { "" } else { " off" }
        )
    }
}

/// A table of fixed capacity: its allocated entries.
impl<T: FieldText, const N: usize> FieldText for crate::types::Slots<T, N> {
    fn text(&self) -> String {
        let e: Vec<String> = self.iter().map(FieldText::text).collect();
        format!("[{}]", e.join(" "))
    }
}

/// A fixed array: every entry.
impl<T: FieldText, const N: usize> FieldText for [T; N] {
    fn text(&self) -> String {
        let e: Vec<String> = self.iter().map(FieldText::text).collect();
        format!("[{}]", e.join(" "))
    }
}

/// A value per engine or send context: the entries off their default,
/// `{index=value ...}`.
impl<T: FieldText + Copy + Default + PartialEq, const N: usize> FieldText
    for crate::types::PerIndex<T, N>
{
    fn text(&self) -> String {
        let e: Vec<String> = self
            .iter()
            .map(|(i, v)| format!("{i}={}", v.text()))
            .collect();
        format!("{{{}}}", e.join(" "))
    }
}

impl FieldText for crate::types::CpuMask {
    fn text(&self) -> String {
        format!("0x{:x}", self.0)
    }
}

/// A short text, quoted.
impl FieldText for crate::types::ShortText {
    fn text(&self) -> String {
        format!("{self:?}")
    }
}

/// A map of the user engine table: where it is, its counts, and its slots
/// up to the last that is not NULL (`{cpu2.vl1 ctr=2 mask=1 [0,3]}`).
impl FieldText for crate::types::UserSdeMap {
    fn text(&self) -> String {
        let sde: Vec<String> = self
            .used()
            .iter()
            .map(|i| i.get().map_or("NULL".into(), |i| i.0.to_string()))
            .collect();
        format!(
            "{{cpu{}.vl{} ctr={} mask={} [{}]}}",
            self.cpu,
            self.vl,
            self.ctr,
            self.mask,
            sde.join(",")
        )
    }
}

/// An engine map: its mask and each element (`mask:[entries]`, `NULL`).
impl<T: crate::types::TableIdx> FieldText for Option<crate::types::VlMap<T>> {
    fn text(&self) -> String {
        let Some(m) = self else {
            return "NULL".into();
        };
        let elems: Vec<String> = m
            .elems
            .iter()
            .map(|e| match e {
                None => "NULL".into(),
                Some(e) => {
                    let x: Vec<String> = e
                        .entries
                        .iter()
                        .map(|i| i.get().map_or("NULL".into(), |i| i.as_u8().to_string()))
                        .collect();
                    format!("{}:[{}]", e.mask, x.join(","))
                }
            })
            .collect();
        format!("{{mask={} {}}}", m.mask, elems.join(" "))
    }
}

impl FieldText for Option<crate::types::Ah> {
    fn text(&self) -> String {
        self.map_or("none".into(), |a| {
            format!("{{log_pmtu={} sl={} port={}}}", a.log_pmtu, a.sl.0, a.port)
        })
    }
}
