//! The model's domain types: what the driver's structs mean, not how they
//! are laid out. Vectors are parsed into these; the C side receives them
//! through the shim ABI (`cworld::call`), the model reads them directly.
//!
//! Everything is re-exported here (`types::*`). By concept:
//!
//! - `symbols`: the kernel's names ([`Symbol`], [`QpType`], [`SFlag`], …).
//! - `numbers`: channels, levels, lanes and table indices ([`Sc`],
//!   [`EngineIdx`], …).
//! - `containers`: [`Flags`], [`Slots`], [`NullableIdx`], [`VlMap`],
//!   [`CpuMask`], [`Ptr`].
//! - `call`: the functions and their arguments ([`Func`], [`args`],
//!   [`Args`], [`call_schema!`](crate::call_schema)) and the [`Call`].
//! - `world`: the [`World`] ([`world_schema!`](crate::world_schema)).
//! - `qp`: the [`Qp`] ([`qp_schema!`](crate::qp_schema)) and its queues.
//! - `wqe`: the [`Wqe`] ([`wqe_schema!`](crate::wqe_schema)) and its [`Ah`].
//! - `engines`: the send engines' state, [`Engines`]
//!   ([`engines_schema!`](crate::engines_schema)).

mod call;
mod containers;
mod engines;
mod numbers;
mod qp;
mod symbols;
mod world;
mod wqe;

pub use call::*;
pub use containers::*;
pub use engines::*;
pub use numbers::*;
pub use qp::*;
pub use symbols::*;
pub use world::*;
pub use wqe::*;
