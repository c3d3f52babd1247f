//! Generated vectors: worlds and calls drawn from bytes by [`draw::Draw`].
//!
//! The bytes come either from a seed (`cargo xtask conformance --random N
//! --seed S`: vector `i` of function `f` is drawn from a stream seeded by
//! `(S, f, i)`, so any vector can be regenerated alone) or from a fuzzer.
//! Values are drawn inside the ranges the driver's invariants allow, with
//! a bias toward each function's boundaries, and every call is then checked
//! by [`crate::corpus::invariants::validate`] — the one place the invariants are
//! written down — so a generated vector obeys exactly what a hand-written
//! one must.
//!
//! The modules, each using only those below it in this list:
//!
//! - `scenario`: generated scenarios ([`seeded_scenario`]): a first call,
//!   then later steps kept while the model's state keeps the invariants.
//! - `seeded`: the seeded entry points ([`seeded_call`], [`seeded_call_into`],
//!   [`WORLD_RUN`]): which stream a vector and its world are drawn from.
//! - `record`: a call drawn field by field from its schemas ([`call`],
//!   into [`blank`]).
//! - `rules`: the fields' own domains, named by the schemas (`[ring]`).
//! - `shapes`: the value shapes rules draw (biased integers, flag sets,
//!   engine maps).
//! - [`draw`]: the byte source ([`draw::Draw`], [`draw::WyRand`]).

pub mod draw;
mod record;
mod rules;
mod scenario;
mod seeded;
mod shapes;

pub use draw::WyRand;
pub use record::{blank, call, call_into, Rejected};
pub use scenario::{seeded_scenario, MAX_LATER_STEPS, STEP_FUNCS};
pub use seeded::{
    seeded_call, seeded_call_into, seeded_world_into, vector_seed, world_seed, SplitMix64, WorldId,
    WORLD_RUN,
};
