//! The kernel's names: enumerations whose values are the driver's own
//! identifiers (`"IB_QPT_UD"`, `"RVT_S_BUSY"`), so vectors read like the
//! driver, each a [`Symbol`].

use std::fmt;

/// Declares a symbolic enumeration whose names are the kernel's own
/// identifiers, so vectors read like the driver (`"IB_QPT_UD"`).
macro_rules! symbolic {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $s:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name { $($(#[$vm])* #[doc = concat!("`", $s, "`.")] $v),* }

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
    /// Every value, in the kernel's order.
    const ALL: &'static [Self];
    /// Its place in [`Symbol::ALL`].
    fn index(self) -> u32;
    /// The kernel identifier.
    fn name(self) -> &'static str;
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
    /// Which leg of a QP's iowait (`priv->s_iowait.wait[]`, iowait.h).
    Leg {
        /// The IB (verbs) send engine's.
        Ib = "IOWAIT_IB_SE",
        /// The TID RDMA send engine's.
        Tid = "IOWAIT_TID_SE",
    }
}

symbolic! {
    /// What a PIO buffer calls back when its credits return (`pbuf->cb`,
    /// a `pio_release_cb`): the world's choices.
    #[derive(Default)]
    PioCb {
        /// No callback.
        #[default]
        Null = "NULL",
        /// verbs.c's `verbs_pio_complete`, with the QP as its argument.
        Verbs = "verbs_pio_complete",
        /// The shim's recording callback (`pio_release(sr#i, code)`).
        Record = "shim_pio_release",
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

symbolic! {
    /// A send context's type, `dd->send_contexts[i].type` (pio.h's `SC_*`,
    /// in their order: SC_KERNEL is 0).
    ScType {
        Kernel = "SC_KERNEL",
        Vl15 = "SC_VL15",
        Ack = "SC_ACK",
        User = "SC_USER",
    }
}

/// A context no one set is the kernel's: `SC_KERNEL` is 0.
impl Default for ScType {
    fn default() -> ScType {
        ScType::Kernel
    }
}

symbolic! {
    /// An SDMA engine's state, `sde->state.current_state` (sdma.h's
    /// `enum sdma_states`, in its order: s00_hw_down is 0).
    SdmaState {
        S00HwDown = "sdma_state_s00_hw_down",
        S10HwStartUpHaltWait = "sdma_state_s10_hw_start_up_halt_wait",
        S15HwStartUpCleanWait = "sdma_state_s15_hw_start_up_clean_wait",
        S20Idle = "sdma_state_s20_idle",
        S30SwCleanUpWait = "sdma_state_s30_sw_clean_up_wait",
        S40HwCleanUpWait = "sdma_state_s40_hw_clean_up_wait",
        S50HwHaltWait = "sdma_state_s50_hw_halt_wait",
        S60IdleHaltWait = "sdma_state_s60_idle_halt_wait",
        S80HwFreeze = "sdma_state_s80_hw_freeze",
        S82FreezeSwClean = "sdma_state_s82_freeze_sw_clean",
        S99Running = "sdma_state_s99_running",
    }
}

/// An engine no one set is down: `sdma_state_s00_hw_down` is 0.
impl Default for SdmaState {
    fn default() -> SdmaState {
        SdmaState::S00HwDown
    }
}

symbolic! {
    /// An event of an SDMA engine's state machine (sdma.h's `enum
    /// sdma_events`, in its order: e00_go_hw_down is 0).
    SdmaEvent {
        E00GoHwDown = "sdma_event_e00_go_hw_down",
        E10GoHwStart = "sdma_event_e10_go_hw_start",
        E15HwHaltDone = "sdma_event_e15_hw_halt_done",
        E25HwCleanUpDone = "sdma_event_e25_hw_clean_up_done",
        E30GoRunning = "sdma_event_e30_go_running",
        E40SwCleaned = "sdma_event_e40_sw_cleaned",
        E50HwCleaned = "sdma_event_e50_hw_cleaned",
        E60HwHalted = "sdma_event_e60_hw_halted",
        E70GoIdle = "sdma_event_e70_go_idle",
        E80HwFreeze = "sdma_event_e80_hw_freeze",
        E81HwFrozen = "sdma_event_e81_hw_frozen",
        E82HwUnfreeze = "sdma_event_e82_hw_unfreeze",
        E85LinkDown = "sdma_event_e85_link_down",
        E90SwHalted = "sdma_event_e90_sw_halted",
    }
}

/// An event no one set is the first: `sdma_event_e00_go_hw_down` is 0.
impl Default for SdmaEvent {
    fn default() -> SdmaEvent {
        SdmaEvent::E00GoHwDown
    }
}

symbolic! {
    /// A send context's flags, `sc->flags` (pio.h).
    ScFlag {
        Enabled = "SCF_ENABLED",
        InFree = "SCF_IN_FREE",
        Halted = "SCF_HALTED",
        Frozen = "SCF_FROZEN",
        LinkDown = "SCF_LINK_DOWN",
    }
}
