//! The model's domain types: what the driver's structs mean, not how they
//! are laid out. Vectors are parsed into these; the C side receives them
//! through the shim ABI (`cworld::call`), the model reads them directly.

use std::fmt;

use crate::record;

/// Declares a symbolic enumeration whose names are the kernel's own
/// identifiers, so vectors read like the driver (`"IB_QPT_UD"`).
macro_rules! symbolic {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $s:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name { $($(#[$vm])* $v),* }

        impl $name {
            /// Every value, in the kernel's order.
            pub const ALL: &'static [$name] = &[$($name::$v),*];

            /// The kernel identifier.
            pub fn name(self) -> &'static str {
                match self { $($name::$v => $s),* }
            }

            /// Parses the kernel identifier.
            pub fn from_name(s: &str) -> Option<$name> {
                match s { $($s => Some($name::$v),)* _ => None }
            }

            /// The accepted names, for error messages.
            pub fn names() -> String {
                [$($s),*].join(", ")
            }
        }

        impl Symbol for $name {
            const ALL: &'static [$name] = $name::ALL;
            fn index(self) -> u32 {
                self as u32
            }
            fn name(self) -> &'static str {
                $name::name(self)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

/// A symbolic enumeration: its values in order, each with an index.
pub trait Symbol: Copy + PartialEq + 'static {
    const ALL: &'static [Self];
    fn index(self) -> u32;
    fn name(self) -> &'static str;
}

/// A set of flags of one kind, as a bitset over their indices (cheap to
/// copy, compare and hash; the model clones QPs on every call).
pub struct Flags<T> {
    bits: u32,
    _kind: std::marker::PhantomData<T>,
}

impl<T> Clone for Flags<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Flags<T> {}
impl<T> PartialEq for Flags<T> {
    fn eq(&self, o: &Self) -> bool {
        self.bits == o.bits
    }
}
impl<T> Eq for Flags<T> {}
impl<T> std::hash::Hash for Flags<T> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.bits.hash(h)
    }
}
impl<T> Default for Flags<T> {
    fn default() -> Self {
        Flags::from_bits(0)
    }
}

impl<T> Flags<T> {
    pub const fn from_bits(bits: u32) -> Self {
        Flags {
            bits,
            _kind: std::marker::PhantomData,
        }
    }

    /// Bit `i` set for the flag of index `i`.
    pub fn bits(self) -> u32 {
        self.bits
    }

    pub fn is_empty(self) -> bool {
        self.bits == 0
    }

    pub fn clear(&mut self) {
        self.bits = 0;
    }
}

impl<T: Symbol> Flags<T> {
    pub fn of(fs: &[T]) -> Self {
        Flags::from_bits(fs.iter().fold(0, |a, f| a | (1 << f.index())))
    }

    pub fn contains(&self, f: &T) -> bool {
        self.bits & (1 << f.index()) != 0
    }

    pub fn insert(&mut self, f: T) {
        self.bits |= 1 << f.index();
    }

    /// Clears every flag of `fs`.
    pub fn remove_all(&mut self, fs: &[T]) {
        self.bits &= !Flags::of(fs).bits;
    }

    /// Whether any flag of `fs` is set.
    pub fn any_of(&self, fs: &[T]) -> bool {
        self.bits & Flags::of(fs).bits != 0
    }

    /// The flags set, in the kernel's order.
    pub fn iter(&self) -> impl Iterator<Item = &'static T> + '_ {
        T::ALL.iter().filter(move |f| self.contains(f))
    }
}

impl<T: Symbol> fmt::Debug for Flags<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.iter().map(|x| x.name()))
            .finish()
    }
}

impl<T: Symbol> From<Vec<T>> for Flags<T> {
    fn from(v: Vec<T>) -> Self {
        Flags::of(&v)
    }
}

symbolic! {
    /// `enum ib_qp_type`, the five types hfi1 serves.
    QpType {
        Smi = "IB_QPT_SMI",
        Gsi = "IB_QPT_GSI",
        Rc = "IB_QPT_RC",
        Uc = "IB_QPT_UC",
        Ud = "IB_QPT_UD",
    }
}

symbolic! {
    /// `enum ib_qp_state`.
    QpState {
        Reset = "IB_QPS_RESET",
        Init = "IB_QPS_INIT",
        Rtr = "IB_QPS_RTR",
        Rts = "IB_QPS_RTS",
        Sqd = "IB_QPS_SQD",
        Sqe = "IB_QPS_SQE",
        Err = "IB_QPS_ERR",
    }
}

symbolic! {
    /// `enum ib_wr_opcode` and the driver's private opcodes.
    WrOpcode {
        RdmaWrite = "IB_WR_RDMA_WRITE",
        RdmaWriteWithImm = "IB_WR_RDMA_WRITE_WITH_IMM",
        Send = "IB_WR_SEND",
        SendWithImm = "IB_WR_SEND_WITH_IMM",
        RdmaRead = "IB_WR_RDMA_READ",
        AtomicCmpAndSwp = "IB_WR_ATOMIC_CMP_AND_SWP",
        AtomicFetchAndAdd = "IB_WR_ATOMIC_FETCH_AND_ADD",
        LocalInv = "IB_WR_LOCAL_INV",
        SendWithInv = "IB_WR_SEND_WITH_INV",
        RegMr = "IB_WR_REG_MR",
        Opfn = "IB_WR_OPFN",
        TidRdmaWrite = "IB_WR_TID_RDMA_WRITE",
        TidRdmaRead = "IB_WR_TID_RDMA_READ",
    }
}

symbolic! {
    /// Device flags, `dd->flags` (hfi.h).
    DevFlag {
        Initted = "HFI1_INITTED",
        Present = "HFI1_PRESENT",
        Frozen = "HFI1_FROZEN",
        HasSdmaTimeout = "HFI1_HAS_SDMA_TIMEOUT",
        HasSendDma = "HFI1_HAS_SEND_DMA",
        ForcedFreeze = "HFI1_FORCED_FREEZE",
        Shutdown = "HFI1_SHUTDOWN",
    }
}

/// The functions in scope and each one's arguments, declared once (see
/// [`crate::schema`]): `Variant upstream_name { fields }`, each argument a
/// record field (`"key" name: Type [draw] = default,`). From this list
/// come [`Func`], the argument records of [`args`] and [`Args`] (here),
/// and in the harness their vector keys, generation, and the ABI's
/// `struct shim_args` (one member per function, in `c-shim/schema.h`).
/// The arguments are what the C function takes; what it reads through a
/// pointer (the QP, the world) is not an argument.
#[macro_export]
macro_rules! call_schema {
    ($cb:ident [$($args:tt)*]) => {
        $cb! { [$($args)*]
            /// `hfi1_setup_wqe(qp, wqe, bool *call_send)`.
            SetupWqe hfi1_setup_wqe {
                /// `*call_send` on entry.
                "call_send" call_send: bool = false,
            }
            /// `qp_to_sdma_engine(qp, u8 sc5)`.
            QpToSdmaEngine qp_to_sdma_engine {
                "sc5" sc5: Sc [sc5] = Sc(0),
            }
            /// `qp_to_send_context(qp, u8 sc5)`.
            QpToSendContext qp_to_send_context {
                "sc5" sc5: Sc [sc5] = Sc(0),
            }
            /// `sdma_select_engine_sc(dd, u32 selector, u8 sc5)` (sdma.c).
            SdmaSelectEngineSc sdma_select_engine_sc {
                "selector" selector: u32 = 0,
                "sc5" sc5: Sc [sc5] = Sc(0),
            }
            /// `sdma_select_engine_vl(dd, u32 selector, u8 vl)` (sdma.c).
            SdmaSelectEngineVl sdma_select_engine_vl {
                "selector" selector: u32 = 0,
                "vl" vl: Vl [vl] = Vl(0),
            }
            /// `pio_select_send_context_sc(dd, u32 selector, u8 sc5)` (pio.c).
            PioSelectSendContextSc pio_select_send_context_sc {
                "selector" selector: u32 = 0,
                "sc5" sc5: Sc [sc5] = Sc(0),
            }
            /// `pio_select_send_context_vl(dd, u32 selector, u8 vl)` (pio.c).
            PioSelectSendContextVl pio_select_send_context_vl {
                "selector" selector: u32 = 0,
                "vl" vl: Vl [vl] = Vl(0),
            }
            /// `_hfi1_schedule_send(qp)`.
            HfiScheduleSendNoCheck _hfi1_schedule_send {}
            /// `hfi1_schedule_send(qp)`, the caller holding `s_lock`.
            HfiScheduleSend hfi1_schedule_send {}
            /// `qp_iter_print(s, iter)`: `iter->qp` is the QP.
            QpIterPrint qp_iter_print {
                /// `iter->n`, the QP's index in the walk.
                "n" n: u32 = 0,
            }
            /// `hfi1_error_port_qps(ibp, u8 sl)`: `ibp` is the QP's port.
            ErrorPortQps hfi1_error_port_qps {
                /// The SL; the parameter is a `u8`, and a wider value is
                /// converted as a caller's `int` would be.
                "sl" sl: u32 [error_sl] = 0,
                /// The QPs `rvt_qp_iter` walks, in order.
                "iter" iter: Slots<IterQp, 8> [iter_qps] = Slots::new(),
            }
            /// `hfi1_qp_unbusy(qp, wait)`: `wait` is one leg of the QP's iowait.
            QpUnbusy hfi1_qp_unbusy {
                "leg" leg: Leg = Leg::Ib,
            }
            /// `hfi1_qp_wakeup(qp, u32 flag)`.
            QpWakeup hfi1_qp_wakeup {
                "flags" flags: Flags<SFlag> = Flags::default(),
            }
            /// `notify_error_qp(qp)`.
            NotifyErrorQp notify_error_qp {}
            /// `mtu_to_path_mtu(u32 mtu)`.
            MtuToPathMtu mtu_to_path_mtu {
                "mtu" mtu: u32 [mtu] = 0,
            }
            /// `mtu_from_qp(rdi, qp, u32 pmtu)`.
            MtuFromQp mtu_from_qp {
                "pmtu" pmtu: u32 [path_mtu] = 0,
            }
            /// `get_pmtu_from_attr(rdi, qp, attr)`: `attr->path_mtu`.
            GetPmtuFromAttr get_pmtu_from_attr {
                "path_mtu" path_mtu: u32 [path_mtu] = 0,
            }
            /// `hfi1_check_modify_qp(qp, attr, attr_mask, udata)`.
            CheckModifyQp hfi1_check_modify_qp {
                /// `attr->ah_attr`, present with `IB_QP_AV` in `attr_mask`.
                "attr_ah" attr_ah: Option<AttrAh> [attr_ah] = None,
                /// `attr->alt_ah_attr`, present with `IB_QP_ALT_PATH`.
                "attr_alt_ah" attr_alt_ah: Option<AttrAh> [attr_ah] = None,
            }
            /// `hfi1_modify_qp(qp, attr, attr_mask, udata)`.
            ModifyQp hfi1_modify_qp {
                /// `IB_QP_AV` in `attr_mask`.
                "attr_av" attr_av: bool = false,
                /// `IB_QP_ALT_PATH` in `attr_mask`.
                "attr_alt_path" attr_alt_path: bool = false,
                /// `attr->path_mig_state`, with `IB_QP_PATH_MIG_STATE`.
                "path_mig_state" path_mig_state: Option<MigState> = None,
            }
            /// `hfi1_migrate_qp(qp)`.
            MigrateQp hfi1_migrate_qp {}
            /// `qp_priv_alloc(rdi, qp)`.
            QpPrivAlloc qp_priv_alloc {}
            /// `qp_priv_free(rdi, qp)`.
            QpPrivFree qp_priv_free {}
            /// `free_all_qps(rdi)`.
            FreeAllQps free_all_qps {}
            /// `flush_qp_waiters(qp)`, the caller holding `s_lock`.
            FlushQpWaiters flush_qp_waiters {}
            /// `stop_send_queue(qp)`.
            StopSendQueue stop_send_queue {}
            /// `quiesce_qp(qp)`.
            QuiesceQp quiesce_qp {}
            /// `notify_qp_reset(qp)`.
            NotifyQpReset notify_qp_reset {}
            /// `hfi1_post_parms[opcode]`.
            PostParms hfi1_post_parms {
                "opcode" opcode: WrOpcode = WrOpcode::Send,
            }
            /// The `iowait_wakeup(wait, int reason)` callback.
            IowaitWakeup iowait_wakeup {
                "reason" reason: u32 [reason] = 0,
            }
            /// The `iowait_sdma_drained(wait)` callback.
            IowaitSdmaDrained iowait_sdma_drained {}
            /// The `hfi1_init_priority(w)` callback.
            InitPriority hfi1_init_priority {}
            /// The `iowait_sleep(sde, wait, tx, u32 seq, bool pkts_sent)`
            /// callback, as `sdma_send_txreq()` calls it: the QP's engine,
            /// one leg's work, a new tx.
            IowaitSleep iowait_sleep {
                "leg" leg: Leg = Leg::Ib,
                /// The engine's head sequence the caller saw.
                "seq" seq: u32 [seq] = 0,
                "pkts_sent" pkts_sent: bool = false,
                /// `tx->num_desc` of the tx that did not fit.
                "num_desc" num_desc: u16 [num_desc] = 0,
            }
        }
    };
}

/// From [`call_schema!`]: [`Func`], [`args`] and [`Args`].
macro_rules! functions {
    ([] $( $(#[doc = $doc:literal])* $v:ident $c:ident { $($fields:tt)* } )*) => {
        /// The upstream functions a vector can call.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Func { $( $(#[doc = $doc])* $v, )* }

        impl Func {
            /// Every function, in the schema's order.
            pub const ALL: &'static [Func] = &[$(Func::$v),*];

            /// The upstream function's name.
            pub fn name(self) -> &'static str {
                match self { $(Func::$v => stringify!($c)),* }
            }

            /// Parses an upstream function's name.
            pub fn from_name(s: &str) -> Option<Func> {
                match s { $(x if x == stringify!($c) => Some(Func::$v),)* _ => None }
            }

            /// The accepted names, for error messages.
            pub fn names() -> String {
                [$(stringify!($c)),*].join(", ")
            }
        }

        impl Symbol for Func {
            const ALL: &'static [Func] = Func::ALL;
            fn index(self) -> u32 {
                self as u32
            }
            fn name(self) -> &'static str {
                Func::name(self)
            }
        }

        impl fmt::Display for Func {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        /// Each function's arguments, a record each (named as [`Func`]'s
        /// variants).
        pub mod args {
            #![allow(unused_imports)]
            use super::*;
            $( record! { [$(#[doc = $doc])* #[derive(Copy)] $v] $($fields)* } )*
        }

        /// A call's arguments: which function, and what it is passed.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Args { $( $(#[doc = $doc])* $v(args::$v), )* }

        impl Args {
            /// The function called.
            pub fn func(&self) -> Func {
                match self { $(Args::$v(_) => Func::$v,)* }
            }

            /// `f`'s arguments, each at its default.
            pub fn blank(f: Func) -> Args {
                match f { $(Func::$v => Args::$v(args::$v::blank()),)* }
            }

            /// The fields of the function's argument record.
            pub fn fields(&self) -> &'static [$crate::schema::Field] {
                match self { $(Args::$v(_) => args::$v::FIELDS,)* }
            }

            /// Sets argument `i` to its default; false when there is none.
            pub fn reset(&mut self, i: usize) -> bool {
                match self { $(Args::$v(a) => a.reset(i),)* }
            }

            /// Runs the function in the model ([`crate::Mirror`]).
            pub fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), crate::Undefined> {
                use crate::Mirror;
                match self { $(Args::$v(a) => a.mirror(cx),)* }
            }

            /// `(key, value)` of every argument, in declaration order.
            pub fn texts(&self) -> Vec<(&'static str, String)> {
                match self { $(Args::$v(a) => a.texts(),)* }
            }

            /// `(key, self's value, other's value)` for every argument that
            /// differs; another function's arguments differ as `fn`.
            pub fn changes(&self, other: &Args) -> Vec<(&'static str, String, String)> {
                match (self, other) {
                    $( (Args::$v(a), Args::$v(b)) => a.changes(b), )*
                    _ => vec![("fn", self.func().name().into(), other.func().name().into())],
                }
            }
        }
    };
}
call_schema! { functions [] }

symbolic! {
    /// Which leg of a QP's iowait (`priv->s_iowait.wait[]`, iowait.h).
    Leg {
        /// The IB (verbs) send engine's.
        Ib = "IOWAIT_IB_SE",
        /// The TID RDMA send engine's.
        Tid = "IOWAIT_TID_SE",
    }
}

symbolic! {
    /// `enum ib_mig_state`.
    MigState {
        Migrated = "IB_MIG_MIGRATED",
        Rearm = "IB_MIG_REARM",
        Armed = "IB_MIG_ARMED",
    }
}

symbolic! {
    /// Send-side QP flags, `qp->s_flags`: rdmavt's `RVT_S_*` (rdmavt_qp.h)
    /// and hfi1's `HFI1_S_*` (qp.h).
    SFlag {
        SignalReqWr = "RVT_S_SIGNAL_REQ_WR",
        Busy = "RVT_S_BUSY",
        Timer = "RVT_S_TIMER",
        RespPending = "RVT_S_RESP_PENDING",
        AckPending = "RVT_S_ACK_PENDING",
        WaitFence = "RVT_S_WAIT_FENCE",
        WaitRdmar = "RVT_S_WAIT_RDMAR",
        WaitRnr = "RVT_S_WAIT_RNR",
        WaitSsnCredit = "RVT_S_WAIT_SSN_CREDIT",
        WaitDma = "RVT_S_WAIT_DMA",
        WaitPio = "RVT_S_WAIT_PIO",
        WaitTx = "RVT_S_WAIT_TX",
        WaitDmaDesc = "RVT_S_WAIT_DMA_DESC",
        WaitKmem = "RVT_S_WAIT_KMEM",
        WaitPsn = "RVT_S_WAIT_PSN",
        WaitAck = "RVT_S_WAIT_ACK",
        SendOne = "RVT_S_SEND_ONE",
        UnlimitedCredit = "RVT_S_UNLIMITED_CREDIT",
        Ecn = "RVT_S_ECN",
        AhgValid = "HFI1_S_AHG_VALID",
        AhgClear = "HFI1_S_AHG_CLEAR",
        WaitPioDrain = "HFI1_S_WAIT_PIO_DRAIN",
        WaitTidSpace = "HFI1_S_WAIT_TID_SPACE",
        WaitTidResp = "HFI1_S_WAIT_TID_RESP",
        WaitHalt = "HFI1_S_WAIT_HALT",
    }
}

symbolic! {
    /// The private send flags qp.c uses, `priv->s_flags`.
    PrivFlag {
        TidBusySet = "HFI1_S_TID_BUSY_SET",
        Busy = "RVT_S_BUSY",
        AckPending = "RVT_S_ACK_PENDING",
    }
}

symbolic! {
    /// `priv->s_iowait.flags` (iowait.h).
    IowaitFlag {
        PendingIb = "IOWAIT_PENDING_IB",
        PendingTid = "IOWAIT_PENDING_TID",
    }
}

/// A 5-bit service channel (the driver passes it as `u8 sc5`; values of 32
/// and above are possible arguments and handled by `sc_to_vlt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sc(pub u8);

/// A service level (`rdma_ah_get_sl`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sl(pub u8);

/// A virtual lane; 15 is the management lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Vl(pub u8);

/// An SDMA engine of the device: an index into `dd->per_sdma`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EngineIdx(pub u8);

/// A kernel send context: an index into the world's send contexts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SendCtxIdx(pub u8);

/// An index type of the world's tables ([`EngineIdx`], [`SendCtxIdx`]).
pub trait TableIdx: Copy {
    fn from_u8(i: u8) -> Self;
    fn as_u8(self) -> u8;
}

impl TableIdx for EngineIdx {
    fn from_u8(i: u8) -> Self {
        EngineIdx(i)
    }
    fn as_u8(self) -> u8 {
        self.0
    }
}

impl TableIdx for SendCtxIdx {
    fn from_u8(i: u8) -> Self {
        SendCtxIdx(i)
    }
    fn as_u8(self) -> u8 {
        self.0
    }
}

/// A pointer slot of a map element (`e->sde[i]`, `e->ksc[i]`): an index,
/// or NULL. One byte, `0xff` for NULL (the shim's `SHIM_NONE` as a byte),
/// so a whole element crosses to the shim as a 16-byte copy; index 255
/// cannot be written (no world has 255 engines or send contexts).
#[derive(PartialEq, Eq, Hash)]
pub struct NullableIdx<T> {
    raw: u8,
    _kind: std::marker::PhantomData<T>,
}

impl<T> NullableIdx<T> {
    pub const NULL: Self = NullableIdx {
        raw: 0xff,
        _kind: std::marker::PhantomData,
    };

    /// The byte: the index, or 0xff for NULL.
    pub fn raw(self) -> u8 {
        self.raw
    }
}

impl<T: TableIdx> NullableIdx<T> {
    /// `None` for the one index that cannot be held (255).
    pub fn new(p: Option<T>) -> Option<Self> {
        match p {
            None => Some(Self::NULL),
            Some(t) if t.as_u8() == 0xff => None,
            Some(t) => Some(NullableIdx {
                raw: t.as_u8(),
                _kind: std::marker::PhantomData,
            }),
        }
    }

    pub fn get(self) -> Option<T> {
        (self.raw != 0xff).then(|| T::from_u8(self.raw))
    }
}

impl<T> Default for NullableIdx<T> {
    fn default() -> Self {
        Self::NULL
    }
}

impl<T> fmt::Debug for NullableIdx<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.raw {
            0xff => f.write_str("NULL"),
            i => write!(f, "#{i}"),
        }
    }
}

// By hand: derives would ask T for Clone and Copy.
impl<T> Clone for NullableIdx<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for NullableIdx<T> {}

/// Where a returned pointer points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ptr<T> {
    /// NULL.
    Null,
    /// An object of the world.
    To(T),
    /// Somewhere that is not part of the world (only C can do this).
    Foreign,
}

/// The most elements an engine map has, and entries an element has
/// (`SHIM_MAP_MAX_ELEMS`, `SHIM_ELEM_MAX_ENTRIES`: the driver sizes maps
/// by VLs and engines, 16 at most of each).
pub const MAP_SLOTS: usize = 16;

/// A flexible array member of fixed capacity: `len` slots allocated, the
/// rest `T::default()` always (the constructors keep it so), so a whole
/// `Slots` compares and hashes as its first `len` values do and can be
/// copied into the shim's fixed-size table without a loop over `len`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Slots<T, const N: usize> {
    len: u8,
    slots: [T; N],
}

impl<T: Copy + Default, const N: usize> Slots<T, N> {
    pub fn new() -> Self {
        Slots {
            len: 0,
            slots: [T::default(); N],
        }
    }

    /// Empties it: every slot back to `T::default()`.
    pub fn clear(&mut self) {
        *self = Self::new();
    }

    /// Appends `v`; gives it back when all `N` slots are taken.
    pub fn push(&mut self, v: T) -> Result<(), T> {
        match self.slots.get_mut(self.len as usize) {
            Some(s) => {
                *s = v;
                self.len += 1;
                Ok(())
            }
            None => Err(v),
        }
    }

    /// Keeps the first `n` values; the slots after them go back to
    /// `T::default()`.
    pub fn truncate(&mut self, n: usize) {
        for s in self.slots.iter_mut().skip(n) {
            *s = T::default();
        }
        self.len = self.len.min(n.min(N) as u8);
    }

    /// Every slot, the unallocated ones (`T::default()`) included.
    pub fn all(&self) -> &[T; N] {
        &self.slots
    }
}

impl<T: Copy + Default, const N: usize> Default for Slots<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T, const N: usize> std::ops::Deref for Slots<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.slots[..self.len as usize]
    }
}

/// Changes the allocated slots only: the rest stay `T::default()`.
impl<T, const N: usize> std::ops::DerefMut for Slots<T, N> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.slots[..self.len as usize]
    }
}

impl<'a, T, const N: usize> IntoIterator for &'a Slots<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.slots[..self.len as usize].iter()
    }
}

impl<T: fmt::Debug, const N: usize> fmt::Debug for Slots<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Copy + Default, const N: usize> FromIterator<T> for Slots<T, N> {
    /// Panics past `N` values: for literals in tests and examples; parsers
    /// and generators use [`Slots::push`] and report the overflow.
    fn from_iter<I: IntoIterator<Item = T>>(it: I) -> Self {
        let mut s = Self::new();
        for v in it {
            assert!(s.push(v).is_ok(), "more than {N} slots");
        }
        s
    }
}

/// One engine map (`struct sdma_vl_map` / `struct pio_vl_map`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VlMap<T> {
    /// `m->mask`.
    pub mask: u32,
    /// `m->map[]`; `None` is a NULL element.
    pub elems: Slots<Option<MapElem<T>>, MAP_SLOTS>,
}

/// One element (`struct sdma_map_elem` / `struct pio_map_elem`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MapElem<T> {
    /// `e->mask`.
    pub mask: u32,
    /// `e->sde[]` / `e->ksc[]`.
    pub entries: Slots<NullableIdx<T>, MAP_SLOTS>,
}

/// The CPUs of a NUMA node (`cpumask_of_node()`), cpus 0..63 as bits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CpuMask(pub u64);

/// The world's schema (see [`crate::schema`]), as
/// [`qp_schema!`](crate::qp_schema): the device and module parameters a QP
/// reaches. Per-port fields hold port 1 first; the number of ports is
/// `sl_to_sc`'s, and a shorter per-port field reads 0 for the rest.
#[macro_export]
macro_rules! world_schema {
    ($cb:ident [$($args:tt)*]) => {
        $cb! { [$($args)*]
            /// `dd->flags`.
            "dev_flags" dev_flags: Flags<DevFlag> [dev_flags] = Flags::default(),
            /// `dd->qos_shift`.
            "qos_shift" qos_shift: u8 [qos_shift] = 0,
            /// Module parameter `num_vls` (chip.c).
            "num_vls" num_vls: u32 [num_vls] = 0,
            /// Module parameter `piothreshold` (verbs.c).
            "piothreshold" piothreshold: u16 [piothreshold] = 0,
            /// `dd->node`.
            "node" node: i32 [0..=3] = 0,
            /// `cpumask_of_node(dd->node)`.
            "node_cpus" node_cpus: CpuMask [node_cpus] = CpuMask(0),
            /// `dd->sc2vl`.
            "sc_to_vl" sc_to_vl: [u8; 32] [sc_to_vl] = [0; 32],
            /// `dd->vld[i].mtu`.
            "vl_mtu" vl_mtu: [u16; 16] [vl_mtu] = [0; 16],
            /// Send contexts of the world; context `i` has `sw_index` i.
            "num_send_contexts" num_send_contexts: u8 [1..=64] = 0,
            /// `dd->vld[i].sc`: a send context of the world, or NULL.
            "vl_sc" vl_sc: [Option<SendCtxIdx>; 16] [vl_sc] = [None; 16],
            /// `dd->per_sdma[i].cpu`; its length is the number of engines.
            "sdma_cpus" sdma_cpus: Slots<i32, 16> [sdma_cpus] = Slots::new(),
            /// `dd->sdma_map`, or NULL.
            "sdma_map" sdma_map: Option<VlMap<EngineIdx>> [sdma_map] = None,
            /// `dd->pio_map`, or NULL.
            "pio_map" pio_map: Option<VlMap<SendCtxIdx>> [pio_map] = None,
            /// Per port: `ibp->sl_to_sc`; its length is `dd->num_pports`.
            "sl_to_sc" sl_to_sc: Slots<[u8; 32], 2> [sl_to_sc] = Slots::new(),
            /// Per port: `ppd->ibmtu`.
            "port_ibmtu" port_ibmtu: Slots<u32, 2> [port_ibmtu] = Slots::new(),
            /// Per port: `ppd->lid`.
            "port_lid" port_lid: Slots<u32, 2> [port_lid] = Slots::new(),
            /// Per port: `ibp->rvp.gid_prefix`.
            "port_gid_prefix" port_gid_prefix: Slots<u64, 2> [port_gid_prefix] = Slots::new(),
            /// Per port: whether `ibp->rvp.qp[0]` (QP0) exists.
            "port_qp0" port_qp0: Slots<bool, 2> [port_bools] = Slots::new(),
            /// Per port: whether `ibp->rvp.qp[1]` (QP1) exists.
            "port_qp1" port_qp1: Slots<bool, 2> [port_bools] = Slots::new(),
            /// `rdi->dparms.max_rdma_atomic`.
            "max_rdma_atomic" max_rdma_atomic: u8 = 0,
            /// `rdi->dparms.extra_rdma_atomic`.
            "extra_rdma_atomic" extra_rdma_atomic: u8 = 0,
            /// What `queue_work_on` returns (true: the work was not already
            /// queued).
            "queue_work_ret" queue_work_ret: bool [queue_work_ret] = true,
            /// What the boundary `hfi1_schedule_tid_send` returns (true:
            /// scheduled).
            "tid_send_ret" tid_send_ret: bool = false,
            /// What `cancel_work_sync` returns (true: the work was pending).
            "cancel_work_ret" cancel_work_ret: bool [cancel_work_ret] = false,
            /// Bit n: the n-th allocation of a call fails.
            "alloc_fail" alloc_fail: u32 [alloc_fail] = 0,
        }
    };
}

world_schema! {
    record [
        /// The device and module parameters a QP reaches, declared once in
        /// [`world_schema!`](crate::world_schema). Plain data of fixed
        /// size, so `Copy`: a generated run copies a world into each vector
        /// that shares it.
        #[derive(Copy)]
        World
    ]
}

impl World {
    pub fn has(&self, f: DevFlag) -> bool {
        self.dev_flags.contains(&f)
    }
}

/// An address handle (`struct rvt_ah`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ah {
    pub log_pmtu: u8,
    pub sl: Sl,
    pub port: u8,
}

/// An entry of the ack queue (`struct rvt_ack_entry`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct AckEntry {
    pub opcode: u8,
    pub psn: u32,
    pub lpsn: u32,
}

/// An entry of the send queue (`qp->s_wq[i]`) as qp_iter_print reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SendQueueEntry {
    pub opcode: WrOpcode,
    pub ssn: u32,
}

impl SendQueueEntry {
    /// An entry nothing wrote (opcode 0, `IB_WR_RDMA_WRITE`).
    pub const BLANK: SendQueueEntry = SendQueueEntry {
        opcode: WrOpcode::RdmaWrite,
        ssn: 0,
    };
}

/// The QP's schema (see [`crate::schema`]): hands every field of [`Qp`],
/// one declaration each, to the macro `$cb` after `[$args]`.
#[macro_export]
macro_rules! qp_schema {
    ($cb:ident [$($args:tt)*]) => {
        $cb! { [$($args)*]
            /// `qp->ibqp.qp_type`.
            "type" qp_type: QpType = QpType::Rc,
            /// `qp->ibqp.qp_num`.
            "num" num: u32 [qp_num] = 0,
            /// `qp->port_num`.
            "port" port: u32 [port] = 1,
            /// `qp->pmtu`: a u16 in `struct rvt_qp`.
            "pmtu" pmtu: u16 [pmtu] = 4096 => qp,
            /// `qp->state`.
            "state" state: QpState = QpState::Rts,
            /// `qp->s_flags`.
            "s_flags" s_flags: Flags<SFlag> = Flags::default(),
            /// `priv->s_flags`.
            "priv_flags" priv_flags: Flags<PrivFlag> = Flags::default(),
            /// `priv->s_iowait.flags`.
            "iowait_flags" iowait_flags: Flags<IowaitFlag> = Flags::default(),
            /// `priv->s_iowait.priority` and `.starved_cnt` (u8 in `struct
            /// iowait`).
            "iowait_priority" iowait_priority: u8 [0..=3] = 0,
            "starved_cnt" starved_cnt: u8 = 0,
            /// `priv->s_sde`: an engine of the world, or NULL.
            "s_sde" s_sde: Option<EngineIdx> [engine] = None,
            /// `priv->s_sendcontext`: a send context of the world, or NULL.
            "s_sendcontext" s_sendcontext: Option<SendCtxIdx> [send_context] = None,
            /// `priv->s_sc`.
            "s_sc" s_sc: u8 [sc] = 0 => priv,
            /// The IB leg has a queued tx request (`verbs_txreq_queued`).
            "ib_tx_queued" ib_tx_queued: bool = false,
            /// The TID leg has a queued tx request (its `tx_head`).
            "tid_tx_queued" tid_tx_queued: bool = false,
            /// `priv->s_iowait` sits on an engine's wait list (and its lock is set).
            "on_wait_list" on_wait_list: bool [on_wait_list] = false,
            /// `priv->s_iowait.lock`: the waitlock of this engine, or NULL.
            /// `iowait_queue()` callers set it with the list, so a QP on a
            /// list has it; off the list it may still be set (a waker took
            /// the iowait off an engine's list and left the lock: upstream
            /// checks the list under the lock, so nothing it does depends on
            /// this but the path it takes).
            "wait_lock" wait_lock: Option<EngineIdx> [wait_lock] = None,
            /// `priv->s_iowait.sdma_busy`.
            "sdma_busy" sdma_busy: i32 [0..=3] = 0,
            /// `priv->s_iowait.pio_busy`.
            "pio_busy" pio_busy: i32 [pio_busy] = 0,
            /// `qp->refcount`.
            "refcount" refcount: i32 [-1..=4] = 1,
            /// `rdma_ah_get_sl(&qp->remote_ah_attr)`.
            "remote_sl" remote_sl: u8 [0..=31] = 0,
            /// `rdma_ah_get_dlid(&qp->remote_ah_attr)`.
            "remote_dlid" remote_dlid: u32 [lid] = 0,
            /// `qp->remote_qpn`.
            "remote_qpn" remote_qpn: u32 = 0 => qp,
            /// `IB_AH_GRH` in `qp->remote_ah_attr`'s flags.
            "remote_grh" remote_grh: bool [quarter] = false,
            /// That GRH's DGID: subnet prefix and interface ID (host order).
            "remote_gid_prefix" remote_gid_prefix: u64 [gid_prefix] = 0,
            "remote_gid_iid" remote_gid_iid: u64 [gid_iid] = 0,
            /// `rdma_ah_get_make_grd()` of that AH: an OPA AH that asks for a GRH.
            "remote_make_grd" remote_make_grd: bool [eighth] = false,
            /// `qp->timeout` (qp_iter_print prints it and the fields after it).
            "timeout" timeout: u8 = 0 => qp,
            "s_lsn" s_lsn: u32 = 0 => qp,
            "s_last_psn" s_last_psn: u32 = 0 => qp,
            "s_psn" s_psn: u32 = 0 => qp,
            "s_next_psn" s_next_psn: u32 = 0 => qp,
            "s_sending_psn" s_sending_psn: u32 = 0 => qp,
            "s_sending_hpsn" s_sending_hpsn: u32 = 0 => qp,
            "r_psn" r_psn: u32 = 0 => qp,
            /// The send queue's ring indices, below `SHIM_MAX_SWQE` (16).
            "s_last" s_last: u32 [0..=15] = 0 => qp,
            "s_acked" s_acked: u32 [ring] = 0 => qp,
            "s_cur" s_cur: u32 [ring] = 0 => qp,
            "s_tail" s_tail: u32 [ring] = 0 => qp,
            "s_head" s_head: u32 [ring] = 0 => qp,
            "s_size" s_size: u32 [0..=16] = 0 => qp,
            "s_avail" s_avail: u32 [0..=16] = 0 => qp,
            "s_tail_ack_queue" s_tail_ack_queue: u8 [0..=7] = 0 => qp,
            "r_head_ack_queue" r_head_ack_queue: u8 = 0 => qp,
            "s_retry" s_retry: u8 = 0 => qp,
            "s_retry_cnt" s_retry_cnt: u8 = 0 => qp,
            "s_rnr_retry_cnt" s_rnr_retry_cnt: u8 = 0 => qp,
            "s_rnr_retry" s_rnr_retry: u8 = 0 => qp,
            "pid" pid: i32 = 0 => qp,
            "s_state" s_state: u8 = 0 => qp,
            "s_ack_state" s_ack_state: u8 = 0 => qp,
            "r_min_rnr_timer" r_min_rnr_timer: u8 = 0 => qp,
            /// The descriptor ring of the QP's engine (`priv->s_sde`; every
            /// engine of the world has this state): `descq_cnt` (u16),
            /// `descq_head`, `descq_tail` (u32), `desc_avail` (u16) and the
            /// sequence of its `head_lock`, which `sdma_progress()` reads.
            "sde_descq_cnt" sde_descq_cnt: u16 [ring_size] = 0,
            "sde_descq_head" sde_descq_head: u32 = 0,
            "sde_descq_tail" sde_descq_tail: u32 [ring_tail] = 0,
            "sde_desc_avail" sde_desc_avail: u16 = 0,
            "sde_head_seq" sde_head_seq: u32 [0..=3] = 0,
            /// `to_iport(qp)->rvp.n_dmawait` (u64): the QP's port's count of
            /// waits for SDMA descriptors (every port of the world has it).
            "port_n_dmawait" port_n_dmawait: u64 = 0,
            /// `qp->s_hdrwords` (u8 in `struct rvt_qp`): the header of the
            /// packet being built.
            "s_hdrwords" s_hdrwords: u8 = 0 => qp,
            /// The send CQ's head and tail, from its kernel queue or, for a
            /// CQ mapped to user space (`cq_user`, `cq->ip` set), its shared
            /// queue.
            "cq_head" cq_head: u32 = 0,
            "cq_tail" cq_tail: u32 = 0,
            "cq_user" cq_user: bool = false,
            /// `qp->s_rdma_mr` (an RDMA read response's MR) and its reference
            /// count; `None` is NULL.
            "rdma_mr_refs" rdma_mr_refs: Option<u32> [mr_refs] = None,
            /// `qp->s_ack_queue`; `None` is NULL.
            "ack_queue" ack_queue: Option<[AckEntry; 8]> = None,
            /// `srq->rq.size` when the QP has an SRQ (`qp->ibqp.srq`).
            "srq_size" srq_size: Option<u32> = None,
            /// `qp->r_rq.size`.
            "rq_size" rq_size: u32 = 0,
            /// The send queue, `SHIM_MAX_SWQE` (16) entries.
            "send_queue" send_queue: [SendQueueEntry; 16] = [SendQueueEntry::BLANK; 16],
            /// `qp->s_mig_state`.
            "mig_state" mig_state: MigState = MigState::Migrated,
            /// `qp->s_ahgidx`.
            "s_ahgidx" s_ahgidx: i8 [-1..=15] = -1 => qp,
            /// `qp->r_adefered`: ACKs deferred (a u8 in `struct rvt_qp`).
            "r_adefered" r_adefered: u8 = 0 => qp,
            /// `priv->hdr_type`.
            "hdr_type" hdr_type: u8 [0..=1] = 0 => priv,
            /// `qp->alt_ah_attr`: SL, port and DLID.
            "alt_sl" alt_sl: u8 [0..=31] = 0,
            "alt_port" alt_port: u8 [alt_port] = 1,
            "alt_dlid" alt_dlid: u32 [lid] = 0,
            /// u8 in `struct rvt_qp`.
            "s_pkey_index" s_pkey_index: u8 = 0 => qp,
            "s_alt_pkey_index" s_alt_pkey_index: u8 = 0 => qp,
        }
    };
}

qp_schema! {
    record [
        /// The QP fields the functions in scope read, declared once in
        /// [`qp_schema!`](crate::qp_schema). Plain data, so `Copy`: the
        /// model copies the QP of every call that writes it.
        #[derive(Copy)]
        Qp
    ]
}

impl Qp {
    /// A QP with every optional field at its default.
    pub fn new(qp_type: QpType, num: u32, port: u32, pmtu: u16, state: QpState) -> Qp {
        Qp {
            qp_type,
            num,
            port,
            pmtu,
            state,
            ..Qp::blank()
        }
    }
}

/// A QP of the device that `rvt_qp_iter` walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IterQp {
    pub qp_type: QpType,
    pub num: u32,
    pub port: u32,
    pub state: QpState,
    pub remote_sl: u8,
    /// What `rvt_error_qp` returns for it (the "last WQE reached" answer).
    pub error_qp_ret: bool,
}

/// An unallocated slot of the walk ([`Slots`]).
impl Default for IterQp {
    fn default() -> Self {
        IterQp {
            qp_type: QpType::Rc,
            num: 0,
            port: 1,
            state: QpState::Reset,
            remote_sl: 0,
            error_qp_ret: false,
        }
    }
}

/// An address-vector argument (`attr->ah_attr`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct AttrAh {
    pub sl: u8,
    pub port: u8,
}

/// The swqe's schema (see [`crate::schema`]), as [`qp_schema!`](crate::qp_schema).
#[macro_export]
macro_rules! wqe_schema {
    ($cb:ident [$($args:tt)*]) => {
        $cb! { [$($args)*]
            /// `wqe->ud_wr.wr.ah`: the address handle of a datagram send;
            /// `None` is NULL.
            "ah" ah: Option<Ah> [wqe_ah] = None,
            /// `wqe->length`.
            "length" length: u32 [wqe_length] = 0,
            /// `wqe->wr.opcode`.
            "opcode" opcode: WrOpcode = WrOpcode::Send,
            /// `wqe->priv != NULL` (a TID RDMA request's private data).
            "priv" has_priv: bool = false,
        }
    };
}

wqe_schema! {
    record [
        /// The swqe fields the functions in scope read, declared once in
        /// [`wqe_schema!`](crate::wqe_schema).
        #[derive(Copy)]
        Wqe
    ]
}

impl Call {
    /// A call of `func` with every argument at its default.
    pub fn new(func: Func, world: World, qp: Qp, wqe: Wqe) -> Call {
        Call {
            args: Args::blank(func),
            world,
            qp,
            wqe,
        }
    }

    /// The function called.
    pub fn func(&self) -> Func {
        self.args.func()
    }
}

/// One call of an upstream function with everything it reads: its
/// arguments, and the world, QP and swqe its pointers reach.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Call {
    pub args: Args,
    pub world: World,
    pub qp: Qp,
    pub wqe: Wqe,
}

#[cfg(test)]
mod slots_tests {
    use super::*;

    /// Capacity is enforced, and what lies beyond `len` never shows:
    /// two `Slots` with the same values compare and hash equal however
    /// they were built.
    #[test]
    fn slots_hold_n_and_compare_by_their_values() {
        let mut a: Slots<Option<u8>, 2> = Slots::new();
        assert_eq!(a.push(Some(1)), Ok(()));
        assert_eq!(a.push(None), Ok(()));
        assert_eq!(a.push(Some(3)), Err(Some(3)));
        assert_eq!(&a[..], &[Some(1), None]);
        let b: Slots<Option<u8>, 2> = [Some(1), None].into_iter().collect();
        assert_eq!(a, b);
        a[1] = Some(2);
        assert_ne!(a, b);
        assert_eq!(a.all(), &[Some(1), Some(2)]);
        let c: Slots<Option<u8>, 2> = [Some(1)].into_iter().collect();
        assert_eq!(c.all(), &[Some(1), None]);
        assert_eq!(format!("{c:?}"), "[Some(1)]");
    }

    /// NULL is the shim's byte (SHIM_NONE = -1); every other index
    /// round-trips, and 255 (the NULL byte) is refused, not aliased.
    #[test]
    fn nullable_indices_are_the_shims_bytes() {
        let null = NullableIdx::<EngineIdx>::default();
        // The byte the shim's SHIM_NONE is (checked against the ABI in
        // the harness: cworld::call's tests).
        assert_eq!(null.raw(), 0xff);
        assert_eq!(null.get(), None);
        assert_eq!(NullableIdx::new(None), Some(null));
        for i in 0..255u8 {
            let n = NullableIdx::new(Some(EngineIdx(i))).expect("holds");
            assert_eq!((n.raw(), n.get()), (i, Some(EngineIdx(i))));
        }
        assert_eq!(NullableIdx::new(Some(SendCtxIdx(255))), None);
        assert_eq!(format!("{null:?}"), "NULL");
    }
}
