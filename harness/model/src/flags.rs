//! The numeric values of the kernel's names, as the headers define them
//! (rdmavt_qp.h, qp.h, tid_rdma.h, ib_verbs.h, tid_rdma_defs.h, opfn.h,
//! pio.h). qp_iter_print and the send context dumps print raw numbers,
//! so the model needs them.

use super::types::{Flags, QpState, SFlag, ScFlag, ScType, WrOpcode};

/// pio.h's `SC_*` value of a send context type.
pub fn sc_type_value(ty: ScType) -> u32 {
    match ty {
        ScType::Kernel => 0,
        ScType::Vl15 => 1,
        ScType::Ack => 2,
        ScType::User => 3,
    }
}

/// pio.h's `SCF_*` value of a send context flag.
pub fn sc_flag_value(f: ScFlag) -> u32 {
    match f {
        ScFlag::Enabled => 0x01,
        ScFlag::InFree => 0x02,
        ScFlag::Halted => 0x04,
        ScFlag::Frozen => 0x08,
        ScFlag::LinkDown => 0x10,
    }
}

/// `qp->s_flags` bits.
pub fn s_flag_value(f: SFlag) -> u32 {
    match f {
        SFlag::SignalReqWr => 0x0001,
        SFlag::Busy => 0x0002,
        SFlag::Timer => 0x0004,
        SFlag::RespPending => 0x0008,
        SFlag::AckPending => 0x0010,
        SFlag::WaitFence => 0x0020,
        SFlag::WaitRdmar => 0x0040,
        SFlag::WaitRnr => 0x0080,
        SFlag::WaitSsnCredit => 0x0100,
        SFlag::WaitDma => 0x0200,
        SFlag::WaitPio => 0x0400,
        SFlag::WaitTx => 0x0800,
        SFlag::WaitDmaDesc => 0x1000,
        SFlag::WaitKmem => 0x2000,
        SFlag::WaitPsn => 0x4000,
        SFlag::WaitAck => 0x8000,
        SFlag::SendOne => 0x10000,
        SFlag::UnlimitedCredit => 0x20000,
        SFlag::Ecn => 0x40000,
        SFlag::AhgValid => 0x8000_0000,
        SFlag::AhgClear => 0x4000_0000,
        SFlag::WaitPioDrain => 0x2000_0000,
        SFlag::WaitTidSpace => 0x1000_0000,
        SFlag::WaitTidResp => 0x0800_0000,
        SFlag::WaitHalt => 0x0400_0000,
    }
}

/// The numeric `qp->s_flags` of a set of flags.
pub fn s_flags_value(flags: Flags<SFlag>) -> u32 {
    flags.iter().fold(0, |a, f| a | s_flag_value(*f))
}

/// `HFI1_S_ANY_WAIT_IO` (qp.h): rdmavt's `RVT_S_ANY_WAIT_IO` (PIO, TX,
/// DMA_DESC, KMEM) and `HFI1_S_WAIT_PIO_DRAIN`.
pub const HFI1_S_ANY_WAIT_IO: &[SFlag] = &[
    SFlag::WaitPio,
    SFlag::WaitTx,
    SFlag::WaitDmaDesc,
    SFlag::WaitKmem,
    SFlag::WaitPioDrain,
];

/// `RVT_S_ANY_WAIT_SEND`.
pub const RVT_S_ANY_WAIT_SEND: &[SFlag] = &[
    SFlag::WaitFence,
    SFlag::WaitRdmar,
    SFlag::WaitRnr,
    SFlag::WaitSsnCredit,
    SFlag::WaitDma,
    SFlag::WaitPsn,
    SFlag::WaitAck,
];

/// `enum ib_qp_state` values.
pub fn qp_state_value(s: QpState) -> u32 {
    match s {
        QpState::Reset => 0,
        QpState::Init => 1,
        QpState::Rtr => 2,
        QpState::Rts => 3,
        QpState::Sqd => 4,
        QpState::Sqe => 5,
        QpState::Err => 6,
    }
}

/// `enum ib_wr_opcode` values (the IB_UVERBS_WR_* numbering, 0x20 for
/// REG_MR, and the driver's IB_WR_RESERVED1.. aliases).
pub fn wr_opcode_value(o: WrOpcode) -> u32 {
    match o {
        WrOpcode::RdmaWrite => 0,
        WrOpcode::RdmaWriteWithImm => 1,
        WrOpcode::Send => 2,
        WrOpcode::SendWithImm => 3,
        WrOpcode::RdmaRead => 4,
        WrOpcode::AtomicCmpAndSwp => 5,
        WrOpcode::AtomicFetchAndAdd => 6,
        WrOpcode::LocalInv => 7,
        WrOpcode::SendWithInv => 9,
        WrOpcode::RegMr => 0x20,
        // IB_WR_TID_RDMA_WRITE = IB_WR_RESERVED1, _READ = RESERVED2,
        // IB_WR_OPFN = RESERVED3; IB_WR_RESERVED1 = 0xf0.
        WrOpcode::TidRdmaWrite => 0xf0,
        WrOpcode::TidRdmaRead => 0xf1,
        WrOpcode::Opfn => 0xf2,
    }
}

/// `ib_rvt_state_ops[state] & RVT_PROCESS_RECV_OK` (rdmavt qp.c).
pub fn process_recv_ok(s: QpState) -> bool {
    matches!(s, QpState::Rtr | QpState::Rts | QpState::Sqd | QpState::Sqe)
}

/// `ib_rvt_state_ops[state] & RVT_POST_SEND_OK` (rdmavt qp.c).
pub fn post_send_ok(s: QpState) -> bool {
    matches!(s, QpState::Rts | QpState::Sqd | QpState::Sqe | QpState::Err)
}
