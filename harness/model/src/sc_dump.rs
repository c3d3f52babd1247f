//! pio.c's debugfs dump of a send context (`seqfile_dump_sci`): the text
//! `pio_stats` shows, from the table entry, the context's state and its
//! credit status register.

use super::flags::{sc_flag_value, sc_type_value};
use super::pio::read_hw_csr;
use super::types::{Engines, Qp, World};
use super::{Journal, Undefined};

/// `CR_COUNTER_SMASK` (chip.h; its shift is 0): the credit counter of a
/// credit return.
const CR_COUNTER_SMASK: u64 = 0x7ff;
/// `SEND_CTXT_CREDIT_STATUS_CURRENT_FREE_COUNTER_{SHIFT,MASK}` and
/// `..._LAST_RETURNED_COUNTER_SMASK` (chip_registers.h).
const CURRENT_FREE_SHIFT: u32 = 32;
const CURRENT_FREE_MASK: u64 = 0x7ff;
const LAST_RETURNED_SMASK: u64 = 0x7ff;

/// Mirrors `seqfile_dump_sci()` (pio.c): entry `i`'s type, base and
/// credits; its context's flags, indices and group; its shadow ring's
/// size, credits, head and tail, and its fill and free counters (the
/// QP's send context has them, every other context of the world none);
/// its credit interrupt count and credit control; then its credit status
/// register read, and the counter of its credit return (`*sc->hw_free`:
/// the QP's context's, 0 for the others) with the register's current
/// free and last returned counters.
pub fn seqfile_dump_sci(
    w: &World,
    qp: &Qp,
    e: &Engines,
    i: u8,
    j: &mut Journal,
) -> Result<String, Undefined> {
    let k = usize::from(i);
    if i >= w.num_send_contexts || w.sc_freed.get(k) {
        return Err(Undefined(format!(
            "seqfile_dump_sci() dereferences dd->send_contexts[{i}].sc, which is not a context of the world"
        )));
    }
    let flags = e
        .sc_flags
        .get(k)
        .iter()
        .fold(0, |a, &f| a | sc_flag_value(f));
    let hw = w.sc_hw_context.get(k);
    let ours = qp.s_sendcontext.is_some_and(|s| s.0 == i);
    let ring = |v: u64| if ours { v } else { 0 };
    let mut s = format!(
        "SCI {i}: type {} base {} credits {}\n",
        sc_type_value(w.sc_type.get(k)),
        w.sci_base.get(k),
        w.sci_credits.get(k)
    );
    s += &format!(
        "  flags 0x{flags:x} sw_inx {i} hw_ctxt {hw} grp {}\n",
        w.sc_group.get(k)
    );
    s += &format!(
        "  sr_size {} credits {} sr_head {} sr_tail {}\n",
        ring(qp.sc_sr_sent_at.len() as u64),
        ring(u64::from(qp.sc_credits)),
        ring(u64::from(qp.sc_sr_head)),
        ring(u64::from(qp.sc_sr_tail))
    );
    s += &format!(
        "  fill {} free {} fill_wrap {} alloc_free {}\n",
        ring(qp.sc_fill),
        ring(qp.sc_free),
        ring(u64::from(qp.sc_fill_wrap)),
        ring(qp.sc_alloc_free)
    );
    s += &format!(
        "  credit_intr_count {} credit_ctrl 0x{:x}\n",
        e.sc_credit_intr_count.get(k),
        e.sc_credit_ctrl.get(k)
    );
    let reg = read_hw_csr(w, u32::from(hw), "SEND_CTXT_CREDIT_STATUS", j);
    s += &format!(
        "  *hw_free {} CurrentFree {} LastReturned {}\n",
        ring(qp.sc_hw_free) & CR_COUNTER_SMASK,
        (reg >> CURRENT_FREE_SHIFT) & CURRENT_FREE_MASK,
        reg & LAST_RETURNED_SMASK
    );
    Ok(s)
}

// The functions of this module as the model runs them (`crate::Mirror`).

impl crate::Mirror for super::types::args::SeqfileDumpSci {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.text = seqfile_dump_sci(cx.w, &cx.qp, &cx.engines, self.i, &mut cx.j)?;
        Ok(())
    }
}
