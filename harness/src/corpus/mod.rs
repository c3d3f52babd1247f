//! Vectors: the hand-written corpus in `vectors/*.toml`.
//!
//! A vector file holds one function family. Its `[defaults]` table states
//! a full call once; each `[[case]]` states only what differs, with dotted
//! keys (`wqe.length = 4097`, `world.qos_shift = 2`). Worlds start from a
//! named preset of `vectors/worlds.toml` (`preset = "no-sdma"`). Names are
//! the kernel's own (`"IB_QPT_UD"`, `"HFI1_HAS_SEND_DMA"`). Every error names
//! the file, the line and the field; nothing here panics on bad input.
//!
//! Every vector, hand-written or generated, passes [`validate`]: the
//! invariants the driver relies on, written down once with their upstream
//! reason.
//!
//! The modules, each using only those above it in this list:
//!
//! - `source`: a file's text ([`read_text`]), parsed as TOML with its
//!   errors located ([`VectorError`]), and the readers of plain values.
//! - `fields`: how each field type reads and writes (`TomlField`).
//! - `records`: each record's keys and reader, from its schema.
//! - `presets`: the named worlds ([`Presets`]).
//! - [`invariants`]: what every vector keeps ([`validate`]).
//! - `case`: a file's cases, each a [`Vector`] ([`parse_file`]).
//! - `load`: the corpus directory ([`load_corpus`], [`corpus_dir`]).
//! - [`write`](mod@write): a call as a vector file ([`write::case_toml`]).

mod case;
mod fields;
pub mod invariants;
mod load;
mod presets;
mod records;
mod source;
pub mod write;

pub use case::{parse_file, Vector};
pub use invariants::carried;
pub use invariants::validate;
pub use load::{corpus_dir, load_corpus, NOT_VECTORS};
pub use presets::Presets;
pub use source::{read_text, VectorError};
