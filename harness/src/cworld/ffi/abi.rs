//! How the schema's records cross the shim ABI. Each field's type says,
//! through [`Abi`], how it is declared in C and how it fills the bindgen
//! field; from the schema list come `c-shim/schema.h` (the flat
//! `struct shim_qp`, the shim's symbolic enumerations and the lists of
//! fields the shim copies unchanged: [`schema_header`], written by
//! `cargo xtask codegen`, checked fresh by a test) and the fill code
//! ([`fill_qp`]).

use super::types::*;
use crate::model::types::*;

/// A schema field's type at the ABI.
pub trait Abi {
    /// The bindgen type of the field.
    type C;
    /// The C declaration of a field called `name`.
    fn c_decl(name: &str) -> String;
    /// Writes the value into its field.
    fn fill(&self, out: &mut Self::C);
    /// Reads a field back (the post-call state); `None` when the C value
    /// has no name in the model (an unknown symbol, a foreign pointer).
    fn read(c: &Self::C) -> Option<Self>
    where
        Self: Sized;
}

macro_rules! abi_plain {
    ($($t:ty => $c:literal),*) => {$(
        impl Abi for $t {
            type C = $t;
            fn c_decl(name: &str) -> String {
                format!("{} {name}", $c)
            }
            #[inline]
            fn fill(&self, out: &mut $t) {
                *out = *self;
            }
            #[inline]
            fn read(c: &$t) -> Option<$t> {
                Some(*c)
            }
        }
    )*};
}
abi_plain!(u8 => "shim_u8", u16 => "shim_u16", u32 => "shim_u32", u64 => "shim_u64",
           i8 => "shim_i8", i32 => "shim_i32");

impl Abi for bool {
    type C = u8;
    fn c_decl(name: &str) -> String {
        format!("shim_u8 {name}")
    }
    #[inline]
    fn fill(&self, out: &mut u8) {
        *out = u8::from(*self);
    }
    #[inline]
    fn read(c: &u8) -> Option<bool> {
        Some(*c != 0)
    }
}

/// A symbol crosses as its index: the shim's enumerations are generated
/// from the model's lists ([`schema_header`]), so the index is the
/// enumerator.
macro_rules! abi_symbols {
    ($($t:ty),*) => {$(
        impl Abi for $t {
            type C = u32;
            fn c_decl(name: &str) -> String {
                format!("shim_u32 {name}")
            }
            #[inline]
            fn fill(&self, out: &mut u32) {
                *out = self.index();
            }
            #[inline]
            fn read(c: &u32) -> Option<$t> {
                <$t>::ALL.get(*c as usize).copied()
            }
        }
    )*};
}
abi_symbols!(QpType, QpState, MigState, WrOpcode, Leg, ScType, SdmaState, SdmaEvent, PioCb);

/// A flag set: bit `i` for the flag of index `i`, the enumerator.
impl<T: Symbol> Abi for Flags<T> {
    type C = u32;
    fn c_decl(name: &str) -> String {
        format!("shim_u32 {name}")
    }
    #[inline]
    fn fill(&self, out: &mut u32) {
        *out = self.bits();
    }
    #[inline]
    fn read(c: &u32) -> Option<Flags<T>> {
        (*c >> T::ALL.len() == 0).then(|| Flags::from_bits(*c))
    }
}

/// A table index, or `SHIM_NONE` for NULL.
macro_rules! abi_indices {
    ($($t:ident),*) => {$(
        impl Abi for Option<$t> {
            type C = i16;
            fn c_decl(name: &str) -> String {
                format!("shim_i16 {name}")
            }
            #[inline]
            fn fill(&self, out: &mut i16) {
                *out = self.map_or(SHIM_NONE as i16, |i| i16::from(i.0));
            }
            #[inline]
            fn read(c: &i16) -> Option<Option<$t>> {
                match *c {
                    x if x == SHIM_NONE as i16 => Some(None),
                    0..=254 => Some(Some($t(*c as u8))),
                    _ => None,
                }
            }
        }
    )*};
}
abi_indices!(EngineIdx, SendCtxIdx);

impl Abi for Option<u32> {
    type C = shim_opt_u32;
    fn c_decl(name: &str) -> String {
        format!("struct shim_opt_u32 {name}")
    }
    #[inline]
    fn fill(&self, out: &mut shim_opt_u32) {
        out.present = u8::from(self.is_some());
        out.value = self.unwrap_or(0);
    }
    #[inline]
    fn read(c: &shim_opt_u32) -> Option<Option<u32>> {
        Some((c.present != 0).then_some(c.value))
    }
}

impl Abi for Option<[AckEntry; 8]> {
    type C = shim_ack_queue;
    fn c_decl(name: &str) -> String {
        format!("struct shim_ack_queue {name}")
    }
    #[inline]
    fn fill(&self, out: &mut shim_ack_queue) {
        out.present = u8::from(self.is_some());
        let none = [AckEntry::default(); 8];
        for (x, a) in out.e.iter_mut().zip(self.as_ref().unwrap_or(&none)) {
            x.opcode = a.opcode;
            x.psn = a.psn;
            x.lpsn = a.lpsn;
        }
    }
    #[inline]
    fn read(c: &shim_ack_queue) -> Option<Option<[AckEntry; 8]>> {
        Some((c.present != 0).then(|| {
            std::array::from_fn(|i| AckEntry {
                opcode: c.e[i].opcode,
                psn: c.e[i].psn,
                lpsn: c.e[i].lpsn,
            })
        }))
    }
}

/// Another iowait on the QP's engine's wait list, field by field.
impl Abi for Waiter {
    type C = shim_waiter;
    fn c_decl(name: &str) -> String {
        format!("struct shim_waiter {name}")
    }
    #[inline]
    fn fill(&self, out: &mut shim_waiter) {
        *out = shim_waiter {
            priority: self.priority,
            starved_cnt: self.starved_cnt,
            num_desc: self.num_desc,
            after_qp: u8::from(self.after_qp),
            on_list: u8::from(self.on_list),
            pad: [0; 2],
        };
    }
    #[inline]
    fn read(c: &shim_waiter) -> Option<Waiter> {
        Some(Waiter {
            priority: c.priority,
            starved_cnt: c.starved_cnt,
            num_desc: c.num_desc,
            after_qp: c.after_qp != 0,
            on_list: c.on_list != 0,
        })
    }
}

/// A descriptor of the QP's engine's ring, word by word.
impl Abi for DescqEntry {
    type C = shim_descq_entry;
    fn c_decl(name: &str) -> String {
        format!("struct shim_descq_entry {name}")
    }
    #[inline]
    fn fill(&self, out: &mut shim_descq_entry) {
        *out = shim_descq_entry {
            qw0: self.qw0,
            qw1: self.qw1,
            idx: self.idx,
        };
    }
    #[inline]
    fn read(c: &shim_descq_entry) -> Option<DescqEntry> {
        let (qw0, qw1) = (c.qw0, c.qw1);
        Some(DescqEntry {
            idx: c.idx,
            qw0,
            qw1,
        })
    }
}

/// Another QP on the QP's send context's piowait list, field by field
/// (flag sets as [`Flags`] cross).
impl Abi for PioWaiter {
    type C = shim_pio_waiter;
    fn c_decl(name: &str) -> String {
        format!("struct shim_pio_waiter {name}")
    }
    #[inline]
    fn fill(&self, out: &mut shim_pio_waiter) {
        let mut c = shim_pio_waiter {
            num: self.num,
            refcount: self.refcount,
            priority: self.priority,
            starved_cnt: self.starved_cnt,
            after_qp: u8::from(self.after_qp),
            on_list: u8::from(self.on_list),
            ..Default::default()
        };
        let (mut a, mut b, mut d) = (0, 0, 0);
        self.s_flags.fill(&mut a);
        self.priv_flags.fill(&mut b);
        self.iowait_flags.fill(&mut d);
        (c.s_flags, c.priv_flags, c.iowait_flags) = (a, b, d);
        *out = c;
    }
    #[inline]
    fn read(c: &shim_pio_waiter) -> Option<PioWaiter> {
        let (a, b, d) = (c.s_flags, c.priv_flags, c.iowait_flags);
        Some(PioWaiter {
            num: c.num,
            s_flags: Abi::read(&a)?,
            priv_flags: Abi::read(&b)?,
            iowait_flags: Abi::read(&d)?,
            refcount: c.refcount,
            priority: c.priority,
            starved_cnt: c.starved_cnt,
            after_qp: c.after_qp != 0,
            on_list: c.on_list != 0,
        })
    }
}

impl Abi for [SendQueueEntry; 16] {
    type C = [shim_swqe; 16];
    fn c_decl(name: &str) -> String {
        format!("struct shim_swqe {name}[SHIM_MAX_SWQE]")
    }
    #[inline]
    fn fill(&self, out: &mut [shim_swqe; 16]) {
        for (d, e) in out.iter_mut().zip(self) {
            d.opcode = e.opcode.index();
            d.ssn = e.ssn;
        }
    }
    #[inline]
    fn read(c: &[shim_swqe; 16]) -> Option<[SendQueueEntry; 16]> {
        let mut q = [SendQueueEntry::BLANK; 16];
        for (d, e) in q.iter_mut().zip(c) {
            *d = SendQueueEntry {
                opcode: *WrOpcode::ALL.get(e.opcode as usize)?,
                ssn: e.ssn,
            };
        }
        Some(q)
    }
}

/// From the schema: the fill code, and the C text of the struct and copy
/// lists.
macro_rules! record_abi {
    ([$cty:ident, $fill:ident, $read:ident, $decls:ident, $ty:ty]
     $( $(#[doc = $doc:literal])* $key:literal $f:ident : $t:ty $([$($rule:tt)*])?
        = $d:expr $(=> $c:ident)? , )*) => {
        /// The record flat at the ABI, declared from the schema here and in
        /// `c-shim/schema.h` (so a new field needs no bindgen run to
        /// compile; the header is checked fresh by a test and a world's
        /// sizes at load). Packed on both sides: no padding, so every byte
        /// is a field (`ffi::Plain`).
        #[repr(C, packed)]
        #[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
        #[allow(non_camel_case_types)]
        pub struct $cty {
            $(
                #[doc = concat!("The schema's `", stringify!($f), "`.")]
                pub $f: <$t as Abi>::C,
            )*
        }

        /// Writes every field of `r` into `d`.
        #[inline]
        pub fn $fill(r: &$ty, d: &mut $cty) {
            $( {
                let mut x = d.$f;
                Abi::fill(&r.$f, &mut x);
                d.$f = x;
            } )*
        }

        /// Reads a record back; the keys of the fields whose value has no
        /// name in the model are in `unnamed` (those fields keep their
        /// blank value), which stays empty (no allocation) for a record in
        /// the world's terms.
        pub fn $read(d: &$cty, unnamed: &mut Vec<&'static str>) -> $ty {
            let mut r = <$ty>::blank();
            $( {
                let x = d.$f;
                match <$t as Abi>::read(&x) {
                    Some(v) => r.$f = v,
                    None => unnamed.push($key),
                }
            } )*
            r
        }

        pub(crate) fn $decls() -> Vec<String> {
            vec![$( <$t as Abi>::c_decl(stringify!($f)), )*]
        }
    };
}
crate::model::world_schema!(record_abi [shim_world, fill_world, read_world, world_decls, World]);
crate::model::qp_schema!(record_abi [shim_qp, fill_qp, read_qp, qp_decls, Qp]);
crate::model::wqe_schema!(record_abi [shim_wqe, fill_wqe, read_wqe, wqe_decls, Wqe]);
crate::model::engines_schema!(record_abi [shim_engines, fill_engines, read_engines, engines_decls, Engines]);

/// A newtype of a byte argument.
macro_rules! abi_byte {
    ($($t:ident),*) => {$(
        impl Abi for $t {
            type C = u8;
            fn c_decl(name: &str) -> String {
                format!("shim_u8 {name}")
            }
            #[inline]
            fn fill(&self, out: &mut u8) {
                *out = self.0;
            }
            #[inline]
            fn read(c: &u8) -> Option<$t> {
                Some($t(*c))
            }
        }
    )*};
}
abi_byte!(Sc, Vl);

/// An optional symbol: present, and its index.
impl Abi for Option<MigState> {
    type C = shim_opt_u32;
    fn c_decl(name: &str) -> String {
        format!("struct shim_opt_u32 {name}")
    }
    #[inline]
    fn fill(&self, out: &mut shim_opt_u32) {
        out.present = u8::from(self.is_some());
        out.value = self.map_or(0, |m| m.index());
    }
    #[inline]
    fn read(c: &shim_opt_u32) -> Option<Option<MigState>> {
        match c.present {
            0 => Some(None),
            _ => MigState::ALL.get(c.value as usize).map(|m| Some(*m)),
        }
    }
}

/// An address-vector argument, or none (not in `attr_mask`).
impl Abi for Option<AttrAh> {
    type C = shim_opt_ah;
    fn c_decl(name: &str) -> String {
        format!("struct shim_opt_ah {name}")
    }
    #[inline]
    fn fill(&self, out: &mut shim_opt_ah) {
        let a = self.unwrap_or_default();
        out.present = u8::from(self.is_some());
        out.ah.log_pmtu = 0;
        out.ah.sl = a.sl;
        out.ah.port_num = a.port;
    }
    #[inline]
    fn read(c: &shim_opt_ah) -> Option<Option<AttrAh>> {
        Some((c.present != 0).then_some(AttrAh {
            sl: c.ah.sl,
            port: c.ah.port_num,
        }))
    }
}

/// The QPs a walk visits: the count and every slot.
impl Abi for Slots<IterQp, 8> {
    type C = shim_iter_list;
    fn c_decl(name: &str) -> String {
        format!("struct shim_iter_list {name}")
    }
    #[inline]
    fn fill(&self, out: &mut shim_iter_list) {
        out.n = self.len() as u8;
        for (d, q) in out.qp.iter_mut().zip(self.all()) {
            d.qp_type = q.qp_type.index();
            d.qp_num = q.num;
            d.port_num = q.port;
            d.state = q.state.index();
            d.remote_sl = q.remote_sl;
            d.error_qp_ret = u8::from(q.error_qp_ret);
        }
    }
    fn read(c: &shim_iter_list) -> Option<Slots<IterQp, 8>> {
        let mut s = Slots::new();
        for q in c.qp.get(..usize::from(c.n))? {
            let iq = IterQp {
                qp_type: *QpType::ALL.get(q.qp_type as usize)?,
                num: q.qp_num,
                port: q.port_num,
                state: *QpState::ALL.get(q.state as usize)?,
                remote_sl: q.remote_sl,
                error_qp_ret: q.error_qp_ret != 0,
            };
            s.push(iq).ok()?;
        }
        Some(s)
    }
}

/// A node's CPUs: the mask.
impl Abi for CpuMask {
    type C = u64;
    fn c_decl(name: &str) -> String {
        format!("shim_u64 {name}")
    }
    #[inline]
    fn fill(&self, out: &mut u64) {
        *out = self.0;
    }
    #[inline]
    fn read(c: &u64) -> Option<CpuMask> {
        Some(CpuMask(*c))
    }
}

/// A fixed array: every entry, in order.
impl<T: Abi, const N: usize> Abi for [T; N]
where
    T::C: Copy,
{
    type C = [T::C; N];
    fn c_decl(name: &str) -> String {
        T::c_decl(&format!("{name}[{N}]"))
    }
    #[inline]
    fn fill(&self, out: &mut [T::C; N]) {
        for (d, x) in out.iter_mut().zip(self) {
            x.fill(d);
        }
    }
    fn read(c: &[T::C; N]) -> Option<[T; N]> {
        let v: Vec<T> = c.iter().map(T::read).collect::<Option<_>>()?;
        v.try_into().ok()
    }
}

/// A value per engine or send context at the ABI: the entries off their
/// default, by increasing index (`c-shim/engines.c` applies them and
/// finds them again after the call); `n` past the room means more than
/// it holds (read as a value with no name).
#[repr(C, packed)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PerIndexC<C> {
    /// How many entries are held.
    pub n: u8,
    /// Their indices.
    pub idx: [u8; PER_INDEX_SLOTS],
    /// Their values.
    pub val: [C; PER_INDEX_SLOTS],
}

impl<C: Copy + Default> Default for PerIndexC<C> {
    fn default() -> Self {
        PerIndexC {
            n: 0,
            idx: [0; PER_INDEX_SLOTS],
            val: [C::default(); PER_INDEX_SLOTS],
        }
    }
}

impl<T: Abi + Copy + Default + PartialEq, const N: usize> Abi for PerIndex<T, N>
where
    T::C: Copy + Default,
{
    type C = PerIndexC<T::C>;
    fn c_decl(name: &str) -> String {
        format!(
            "struct {{ shim_u8 n; shim_u8 idx[{PER_INDEX_SLOTS}]; {}; }} __attribute__((__packed__)) {name}",
            T::c_decl(&format!("val[{PER_INDEX_SLOTS}]"))
        )
    }
    #[inline]
    fn fill(&self, out: &mut PerIndexC<T::C>) {
        let mut idx = [0u8; PER_INDEX_SLOTS];
        let mut val = [T::C::default(); PER_INDEX_SLOTS];
        for (k, (i, v)) in self.iter().enumerate() {
            idx[k] = i as u8;
            v.fill(&mut val[k]);
        }
        *out = PerIndexC {
            n: self.len() as u8,
            idx,
            val,
        };
    }
    fn read(c: &PerIndexC<T::C>) -> Option<PerIndex<T, N>> {
        let (n, idx, val) = (usize::from(c.n), c.idx, c.val);
        let mut p = PerIndex::new();
        for k in 0..n {
            let (i, v) = (usize::from(*idx.get(k)?), T::read(&val[k])?);
            // Increasing indices, no default value: as C finds them.
            if (k > 0 && i <= usize::from(idx[k - 1])) || v == T::default() {
                return None;
            }
            p.set(i, v).ok()?;
        }
        Some(p)
    }
}

/// A table of fixed capacity at the ABI: the count and every slot
/// (those past the count at their default), packed.
#[repr(C, packed)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotsC<C, const N: usize> {
    /// How many slots are used.
    pub n: u8,
    /// The slots.
    pub v: [C; N],
}

impl<C: Copy + Default, const N: usize> Default for SlotsC<C, N> {
    fn default() -> Self {
        SlotsC {
            n: 0,
            v: [C::default(); N],
        }
    }
}

impl<T: Abi + Copy + Default, const N: usize> Abi for Slots<T, N>
where
    T::C: Copy + Default,
{
    type C = SlotsC<T::C, N>;
    fn c_decl(name: &str) -> String {
        format!(
            "struct {{ shim_u8 n; {}; }} __attribute__((__packed__)) {name}",
            T::c_decl(&format!("v[{N}]"))
        )
    }
    #[inline]
    fn fill(&self, out: &mut SlotsC<T::C, N>) {
        out.n = self.len() as u8;
        let mut v = out.v;
        for (d, x) in v.iter_mut().zip(self.all()) {
            x.fill(d);
        }
        out.v = v;
    }
    fn read(c: &SlotsC<T::C, N>) -> Option<Slots<T, N>> {
        let (n, v) = (c.n, c.v);
        let mut s = Slots::new();
        for x in v.get(..usize::from(n))? {
            s.push(T::read(x)?).ok()?;
        }
        Some(s)
    }
}

/// An engine map, written in place: the counts, and each allocated
/// element whole, every entry slot of it (shim.h): fixed-length inner
/// loops over the model's fixed-capacity [`Slots`], unallocated slots
/// being `None` there and `SHIM_NONE` here. Elements from `nelems` on are
/// not read.
impl<T: TableIdx> Abi for Option<VlMap<T>> {
    type C = shim_map;
    fn c_decl(name: &str) -> String {
        format!("struct shim_map {name}")
    }
    #[inline]
    fn fill(&self, out: &mut shim_map) {
        let Some(m) = self else {
            out.present = 0;
            out.nelems = 0;
            out.mask = 0;
            return;
        };
        out.present = 1;
        out.mask = m.mask;
        out.nelems = m.elems.len() as u8;
        let none = Slots::new();
        for (d, e) in out.elems.iter_mut().zip(&m.elems) {
            let (present, mask, entries) = match e {
                Some(e) => (1, e.mask, *e.entries.all()),
                None => (0, 0, *none.all()),
            };
            d.present = present;
            d.mask = mask;
            d.nentries = e.as_ref().map_or(0, |e| e.entries.len() as u8);
            // NullableIdx is the shim's byte already (0xff = SHIM_NONE).
            d.entries = entries.map(|x| x.raw() as i8);
        }
    }
    fn read(c: &shim_map) -> Option<Option<VlMap<T>>> {
        if c.present == 0 {
            return Some(None);
        }
        let mut elems = Slots::new();
        for e in c.elems.get(..usize::from(c.nelems))? {
            let elem = (e.present != 0).then(|| {
                let entries: Slots<NullableIdx<T>, MAP_SLOTS> = e.entries
                    [..usize::from(e.nentries).min(MAP_SLOTS)]
                    .iter()
                    .map(|x| {
                        NullableIdx::new((*x != SHIM_NONE as i8).then(|| T::from_u8(*x as u8)))
                            .unwrap_or_default()
                    })
                    .collect();
                MapElem {
                    mask: e.mask,
                    entries,
                }
            });
            elems.push(elem).ok()?;
        }
        Some(Some(VlMap {
            mask: c.mask,
            elems,
        }))
    }
}

/// From the call schema: each function's argument record at the ABI (a
/// module per function holding its packed struct `C` and its fill code),
/// `struct shim_args` of them all, [`fill_args`], and their C text.
macro_rules! args_abi {
    ([] $( $(#[doc = $doc:literal])* $v:ident $c:ident { $($fields:tt)* } )*) => {
        $(
            #[allow(non_snake_case, dead_code, unused_variables, unused_mut, clippy::ptr_arg)]
            mod $v {
                use super::*;
                record_abi! { [C, fill, read, decls, args::$v] $($fields)* }
            }
        )*

        /// Every function's arguments, a packed member each (named as the
        /// function; empty for a function without arguments, and then
        /// absent from the C struct: zero bytes either way).
        #[repr(C, packed)]
        #[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
        #[allow(non_camel_case_types)]
        pub struct shim_args {
            $(
                #[doc = concat!("The arguments of `", stringify!($c), "`.")]
                pub $c: $v::C,
            )*
        }

        /// Writes the arguments into the called function's member; the
        /// other members are not read.
        #[inline]
        pub fn fill_args(a: &Args, d: &mut shim_args) {
            match a {
                $( Args::$v(x) => {
                    let mut y = d.$c;
                    $v::fill(x, &mut y);
                    d.$c = y;
                } )*
            }
        }

        /// The C text of every function's argument struct and of
        /// `struct shim_args`.
        fn args_structs(h: &mut String) {
            let mut members = String::new();
            $( if !args::$v::FIELDS.is_empty() {
                let name = concat!("shim_args_", stringify!($c));
                let what = concat!($($doc, " ",)* "");
                record_struct(h, name, what.trim_end(), args::$v::FIELDS, $v::decls());
                members.push_str(&format!("\tstruct {name} {};\n", stringify!($c)));
            } )*
            h.push_str(
                "/*\n * Each function's arguments, a member named as the function (none\n \
                 * for a function without any); a call fills its function's member.\n */\n\
                 struct shim_args {\n",
            );
            h.push_str(&members);
            h.push_str("} __attribute__((__packed__));\n\n");
        }
    };
}
crate::model::call_schema!(args_abi []);

/// An address handle, or NULL.
impl Abi for Option<Ah> {
    type C = shim_opt_ah;
    fn c_decl(name: &str) -> String {
        format!("struct shim_opt_ah {name}")
    }
    #[inline]
    fn fill(&self, out: &mut shim_opt_ah) {
        let a = self.unwrap_or(Ah {
            log_pmtu: 0,
            sl: Sl(0),
            port: 0,
        });
        out.present = u8::from(self.is_some());
        out.ah.log_pmtu = a.log_pmtu;
        out.ah.sl = a.sl.0;
        out.ah.port_num = a.port;
    }
    #[inline]
    fn read(c: &shim_opt_ah) -> Option<Option<Ah>> {
        Some((c.present != 0).then_some(Ah {
            log_pmtu: c.ah.log_pmtu,
            sl: Sl(c.ah.sl),
            port: c.ah.port_num,
        }))
    }
}

mod dma_tx;
mod header;
mod user_sde;
use header::record_struct;
pub use header::schema_header;
pub use user_sde::UserSdeMapC;

#[cfg(test)]
mod tests {
    use super::*;

    /// The model cuts its journal where the C world's ends.
    #[test]
    fn the_models_journal_room_is_the_abis() {
        use crate::cworld::ffi::types as c;
        assert_eq!(crate::model::JOURNAL_ROOM, c::SHIM_JOURNAL_ROOM as usize);
        assert_eq!(crate::model::LOCKDEP_ROOM, c::SHIM_LOCKDEP_ROOM as usize);
        assert_eq!(
            crate::model::TEXT_BYTES,
            crate::cworld::ffi::types::SHIM_TEXT_BYTES as usize
        );
    }

    /// The model's capacities are the C world's: what a vector may hold
    /// is what the world has room for.
    #[test]
    fn the_models_capacities_are_the_abis() {
        use crate::cworld::ffi::types as t;
        use crate::model::types as m;
        assert_eq!(m::MAX_TX_MORE, t::SHIM_MAX_TX_MORE as u8);
        assert_eq!(m::MAX_SR, t::SHIM_MAX_SR as usize);
        assert_eq!(m::MAX_WAITERS, t::SHIM_MAX_WAITERS as usize);
        assert_eq!(m::MAX_PIO_WAITERS, t::SHIM_MAX_PIO_WAITERS as usize);
    }

    /// What fills a field reads back equal, for every field of generated
    /// QPs; a value with no name (an unknown symbol, a foreign engine, a
    /// flag bit past the names) reads back as `unnamed`, by key, and the
    /// other fields still read.
    #[test]
    fn fields_read_back_and_unknown_values_are_named_unnamed() {
        for i in 0..200 {
            let q = crate::generate::seeded_call(3, Func::ALL[i % Func::ALL.len()], i as u64).qp;
            let mut d = shim_qp::default();
            fill_qp(&q, &mut d);
            let mut unnamed = vec![];
            assert_eq!(read_qp(&d, &mut unnamed), q);
            assert!(unnamed.is_empty());
        }
        let mut d = shim_qp::default();
        fill_qp(&Qp::new(QpType::Ud, 7, 1, 4096, QpState::Rts), &mut d);
        d.qp_type = 99;
        d.s_sde = 0xff;
        d.iowait_flags = 1 << 31;
        d.send_queue[3].opcode = 1000;
        let mut unnamed = vec![];
        let q = read_qp(&d, &mut unnamed);
        assert_eq!(unnamed, ["type", "iowait_flags", "s_sde", "send_queue"]);
        assert_eq!((q.num, q.state), (7, QpState::Rts));
    }

    /// The engines' state reads back as filled, entry by entry, for
    /// generated states; a flag no name has (engines.c sets the bit past
    /// the names) reads as `unnamed`, the other entries still read.
    #[test]
    fn engines_read_back_and_unknown_flags_are_unnamed() {
        let mut some = 0;
        for i in 0..200 {
            let e =
                crate::generate::seeded_call(5, Func::ALL[i % Func::ALL.len()], i as u64).engines;
            some += usize::from(e != Engines::blank());
            let mut d = shim_engines::default();
            fill_engines(&e, &mut d);
            let mut unnamed = vec![];
            assert_eq!(read_engines(&d, &mut unnamed), e);
            assert!(unnamed.is_empty());
        }
        assert!(
            some > 100,
            "generated engines are mostly not blank ({some} of 200)"
        );
        let mut e = Engines::blank();
        e.sc_credit_intr_count.set(63, 7).expect("room");
        e.sde_ahg_bits.set(15, 0xffff_fffe_0000_0001).expect("room");
        e.sc_flags
            .set(5, Flags::of(&[ScFlag::Halted]))
            .expect("room");
        let mut d = shim_engines::default();
        fill_engines(&e, &mut d);
        let mut unnamed = vec![];
        assert_eq!(read_engines(&d, &mut unnamed), e);
        // A flag no name has; more entries than the room; indices out of
        // order: each a value with no name, the other fields still read.
        let mut bad = d;
        bad.sc_flags.val[0] = 1 << ScFlag::ALL.len();
        bad.sc_credit_intr_count.n = PER_INDEX_SLOTS as u8 + 1;
        let mut ahg = bad.sde_ahg_bits;
        ahg.n = 2;
        ahg.idx = [15, 3, 0, 0, 0, 0, 0, 0];
        ahg.val[1] = 1;
        bad.sde_ahg_bits = ahg;
        let back = read_engines(&bad, &mut unnamed);
        assert_eq!(
            unnamed,
            ["sc_flags", "sc_credit_intr_count", "sde_ahg_bits"]
        );
        assert_eq!(back.sc_credit_ctrl, e.sc_credit_ctrl);
    }

    /// The world's fixed capacities are the shim's: the C builder walks
    /// SHIM_MAX_PORTS ports and SHIM_MAX_SDMA engines of the tables.
    #[test]
    fn world_capacities_are_the_shims() {
        let w = World::blank();
        assert_eq!(w.sl_to_sc.all().len(), SHIM_MAX_PORTS as usize);
        assert_eq!(w.port_ibmtu.all().len(), SHIM_MAX_PORTS as usize);
        assert_eq!(w.port_qp1.all().len(), SHIM_MAX_PORTS as usize);
        assert_eq!(w.sdma_cpus.all().len(), SHIM_MAX_SDMA as usize);
        assert_eq!(w.vl_sc.len(), SHIM_NUM_VLD as usize);
        assert_eq!(w.sc_to_vl.len(), SHIM_NUM_SC as usize);
    }

    /// Every world field reads back what filled it (generated worlds).
    #[test]
    fn world_fields_read_back() {
        for i in 0..200 {
            let w = crate::generate::seeded_call(4, Func::ALL[i % Func::ALL.len()], i as u64).world;
            let mut d = shim_world::default();
            fill_world(&w, &mut d);
            let mut unnamed = vec![];
            assert_eq!(read_world(&d, &mut unnamed), w);
            assert!(unnamed.is_empty());
        }
    }

    /// The committed c-shim/schema.h is what the schema generates.
    #[test]
    fn schema_header_is_fresh() {
        let path = crate::project_path("c-shim/schema.h");
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == super::schema_header(),
            "{} is stale: run `cargo xtask codegen` and commit it",
            path.display()
        );
    }
}
