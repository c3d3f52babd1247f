//! How each record of a call reads from a vector file, derived from its
//! schema (`qp_schema!`, `wqe_schema!`, `world_schema!`, `engines_schema!`,
//! `call_schema!`):
//! its keys, and a table of the vector applied to it field by field, each
//! field read as its type reads ([`TomlField`]).

use super::fields::TomlField;
use super::source::{Src, R};
use crate::model::types::*;

/// From a record's schema: its keys, and reading its fields from a table
/// of the vector (`prefix.key`).
macro_rules! record_read {
    ([$ty:ty, $keys:ident, $apply:ident]
     $( $(#[doc = $doc:literal])* $key:literal $f:ident : $t:ty $([$($rule:tt)*])?
        = $d:expr $(=> $c:ident)? , )*) => {
        /// The record's keys, in the schema's order.
        pub(crate) const $keys: &[&str] = &[$($key),*];

        /// Applies the fields of one table (its keys named `PREFIXkey`
        /// in errors); keys of no field are left to the caller.
        pub(crate) fn $apply(
            src: &Src,
            t: &dyn toml_edit::TableLike,
            r: &mut $ty,
            prefix: &str,
        ) -> R<()> {
            for (k, v) in t.iter() {
                match k {
                    $( $key => <$t as TomlField>::read(
                        src, v, &format!("{prefix}{k}"), &mut r.$f)?, )*
                    _ => {}
                }
            }
            Ok(())
        }
    };
}
crate::model::qp_schema!(record_read [Qp, QP_KEYS, apply_qp]);
crate::model::wqe_schema!(record_read [Wqe, WQE_KEYS, apply_wqe]);
crate::model::world_schema!(record_read [World, WORLD_KEYS, apply_world_fields]);
crate::model::engines_schema!(record_read [Engines, ENGINES_KEYS, apply_engines]);

/// Applies a table of world fields (a preset's, or a case's `world`),
/// naming them `PREFIXkey` in errors.
pub(super) fn apply_world(
    src: &Src,
    t: &dyn toml_edit::TableLike,
    w: &mut World,
    prefix: &str,
) -> R<()> {
    for (k, v) in t.iter() {
        // "base" names the preset a preset starts from (Presets::parse).
        if k != "base" && !WORLD_KEYS.contains(&k) {
            return Err(src.err(
                v.span(),
                &format!("{prefix}{k}"),
                format!(
                    "unknown world field {k:?} (expected one of: {})",
                    WORLD_KEYS.join(", ")
                ),
            ));
        }
    }
    apply_world_fields(src, t, w, prefix)
}

/// From the call schema: each function's argument record in a case (a
/// module per function), and the dispatch over [`Args`].
macro_rules! args_read {
    ([] $( $(#[doc = $doc:literal])* $v:ident $c:ident { $($fields:tt)* } )*) => {
        $(
            #[allow(non_snake_case, unused_imports, unused_variables, unused_mut)]
            mod $v {
                use super::*;
                record_read! { [args::$v, KEYS, apply] $($fields)* }
            }
        )*

        /// The argument keys of `f`.
        pub(crate) fn arg_keys(f: Func) -> &'static [&'static str] {
            match f { $( Func::$v => $v::KEYS, )* }
        }

        /// Applies the argument keys of a case (or `[defaults]`) table;
        /// other keys are not arguments.
        pub(super) fn apply_args(src: &Src, t: &dyn toml_edit::TableLike, a: &mut Args) -> R<()> {
            match a { $( Args::$v(x) => $v::apply(src, t, x, ""), )* }
        }
    };
}
crate::model::call_schema!(args_read []);

/// Every function's argument keys: what a `[defaults]` table may set
/// (each case takes those of its function).
pub(super) fn all_arg_keys() -> Vec<&'static str> {
    let mut k: Vec<&str> = Func::ALL
        .iter()
        .flat_map(|f| arg_keys(*f).iter().copied())
        .collect();
    k.sort_unstable();
    k.dedup();
    k
}
