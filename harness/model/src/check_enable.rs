//! The packet checks of a send context's `SEND_CTXT_CHECK_ENABLE` and an
//! SDMA engine's `SEND_DMA_CHECK_ENABLE` (chip_registers.h names each
//! register's bits apart; a check both have sits at the same bit in
//! both, and the send context's register has a few more).

pub(crate) const CHECK_ENABLE: u64 = 0x1;
pub(crate) const CHECK_VL: u64 = 0x2;
pub(crate) const CHECK_JOB_KEY: u64 = 0x4;
pub(crate) const CHECK_SLID: u64 = 0x10;
pub(crate) const CHECK_OPCODE: u64 = 0x20;
pub(crate) const CHECK_VL_MAPPING: u64 = 0x40;
pub(crate) const CHECK_BYPASS_VL_MAPPING: u64 = 0x80;
pub(crate) const DISALLOW_RAW: u64 = 0x100;
pub(crate) const DISALLOW_RAW_IPV6: u64 = 0x200;
pub(crate) const DISALLOW_GRH: u64 = 0x400;
pub(crate) const DISALLOW_BYPASS: u64 = 0x800;
pub(crate) const DISALLOW_KDETH_PACKETS: u64 = 0x1000;
pub(crate) const DISALLOW_NON_KDETH_PACKETS: u64 = 0x2000;
pub(crate) const DISALLOW_TOO_SMALL_IB_PACKETS: u64 = 0x4000;
pub(crate) const DISALLOW_TOO_SMALL_BYPASS_PACKETS: u64 = 0x8000;
pub(crate) const DISALLOW_PBC_TEST: u64 = 0x10000;
pub(crate) const DISALLOW_BAD_PKT_LEN: u64 = 0x20000;
pub(crate) const DISALLOW_TOO_LONG_IB_PACKETS: u64 = 0x40000;
pub(crate) const DISALLOW_TOO_LONG_BYPASS_PACKETS: u64 = 0x80000;
pub(crate) const DISALLOW_PBC_STATIC_RATE_CONTROL: u64 = 0x100000;
pub(crate) const DISALLOW_BYPASS_BAD_PKT_LEN: u64 = 0x200000;
