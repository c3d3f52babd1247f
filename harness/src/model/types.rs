//! The model's domain types: what the driver's structs mean, not how they
//! are laid out. Vectors are parsed into these; the C side receives them
//! through the shim ABI (`cworld::call`), the model reads them directly.

use std::fmt;

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

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
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

symbolic! {
    /// The upstream functions a vector can call.
    Func {
        SetupWqe = "hfi1_setup_wqe",
        QpToSdmaEngine = "qp_to_sdma_engine",
        QpToSendContext = "qp_to_send_context",
        SdmaSelectEngineSc = "sdma_select_engine_sc",
        SdmaSelectEngineVl = "sdma_select_engine_vl",
        PioSelectSendContextSc = "pio_select_send_context_sc",
        PioSelectSendContextVl = "pio_select_send_context_vl",
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

/// One engine map (`struct sdma_vl_map` / `struct pio_vl_map`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct VlMap<T> {
    /// `m->mask`.
    pub mask: u32,
    /// `m->map[]`; `None` is a NULL element.
    pub elems: Vec<Option<MapElem<T>>>,
}

/// One element (`struct sdma_map_elem` / `struct pio_map_elem`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MapElem<T> {
    /// `e->mask`.
    pub mask: u32,
    /// `e->sde[]` / `e->ksc[]`; `None` is NULL.
    pub entries: Vec<Option<T>>,
}

/// The device and module parameters a QP reaches.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct World {
    pub dev_flags: Vec<DevFlag>,
    pub qos_shift: u8,
    /// Module parameter `num_vls` (chip.c).
    pub num_vls: u32,
    /// Module parameter `piothreshold` (verbs.c).
    pub piothreshold: u16,
    pub node: i32,
    /// CPUs of `dd->node`, as a bitmask of cpus 0..63.
    pub node_cpus: u64,
    /// `dd->sc2vl`.
    pub sc_to_vl: [u8; 32],
    /// `dd->vld[i].mtu`.
    pub vl_mtu: [u16; 16],
    /// `dd->vld[i].sc`.
    pub vl_sc: [Option<SendCtxIdx>; 16],
    /// `dd->per_sdma[i].cpu`; the length is the number of engines.
    pub sdma_cpus: Vec<i32>,
    /// Send contexts of the world; context `i` has `sw_index` i.
    pub num_send_contexts: u8,
    pub sdma_map: Option<VlMap<EngineIdx>>,
    pub pio_map: Option<VlMap<SendCtxIdx>>,
    /// Per port (port 1 first): `ibp->sl_to_sc`.
    pub sl_to_sc: Vec<[u8; 32]>,
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

/// The QP fields the functions in scope read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Qp {
    pub qp_type: QpType,
    pub num: u32,
    pub port: u32,
    pub pmtu: u32,
    pub state: QpState,
}

/// The swqe fields the functions in scope read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Wqe {
    pub length: u32,
    pub opcode: WrOpcode,
    /// `wqe->priv != NULL`.
    pub has_priv: bool,
    /// `wqe->ud_wr.wr.ah`; `None` is NULL.
    pub ah: Option<Ah>,
}

/// One call of an upstream function with everything it reads.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Call {
    pub func: Func,
    /// `*call_send` on entry (hfi1_setup_wqe).
    pub call_send: bool,
    pub sc5: Sc,
    pub vl: Vl,
    pub selector: u32,
    pub world: World,
    pub qp: Qp,
    pub wqe: Wqe,
}
