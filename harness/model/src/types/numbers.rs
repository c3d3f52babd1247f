//! Numbers the driver gives a meaning: service channels, levels and
//! lanes, and indices into the world's tables.

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
    /// Index `i`.
    fn from_u8(i: u8) -> Self;
    /// The index as a byte.
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
