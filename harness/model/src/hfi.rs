//! Inline helpers of hfi.h the functions in scope go through.

use super::types::{Sc, Vl, World};
use super::{at, Undefined};

/// `OPA_MAX_SCS`.
pub const OPA_MAX_SCS: u8 = 32;

/// Mirrors `sc_to_vlt()` (hfi.h): the VL of an SC, or 0xff for an SC of
/// 32 and above. The seqlock retry loop has no effect with one thread.
pub fn sc_to_vlt(w: &World, sc5: Sc) -> Vl {
    if sc5.0 >= OPA_MAX_SCS {
        return Vl(0xff);
    }
    Vl(w.sc_to_vl[usize::from(sc5.0)])
}

/// Mirrors `to_iport()` (hfi.h) for what the functions in scope read of
/// the port: its `sl_to_sc` table. `port` counts from 1; upstream warns and
/// reads `dd->pport[port - 1]` regardless, which the model refuses.
pub fn port_sl_to_sc(w: &World, port: u32) -> Result<&[u8; 32], Undefined> {
    let pidx = port.wrapping_sub(1) as usize;
    at(&w.sl_to_sc, pidx, "dd->pport")
}
