//! pio.c's control of PIO send for the whole chip: the global send
//! control register (`pio_send_control`, `__cm_reset`), every context's
//! PIO memory reset (`pio_reset_all`), and the kernel contexts enabled
//! again after a freeze or a link down (`pio_kernel_unfreeze`,
//! `pio_kernel_linkup`).

use super::qp::EIO;
use super::sc_state::{pio_init_wait_progress, sc_enable};
use super::types::args::{PioKernelLinkup, PioKernelUnfreeze, PioResetAll, PioSendControl};
use super::types::{Engines, Qp, ScFlag, ScType, SendCtxIdx, World};
use super::{Journal, Undefined};

/// `SEND_CTRL` fields (chip_registers.h).
const SEND_ENABLE_SMASK: u64 = 0x1;
const VL_ARBITER_ENABLE_SMASK: u64 = 0x2;
const CM_RESET_SMASK: u64 = 0x4;
const UNSUPPORTED_VL_SHIFT: u32 = 3;
const UNSUPPORTED_VL_MASK: u64 = 0xff;

/// `PSC_*` (pio.h): what `pio_send_control()` does.
const PSC_GLOBAL_ENABLE: i32 = 0;
const PSC_GLOBAL_DISABLE: i32 = 1;
const PSC_GLOBAL_VLARB_ENABLE: i32 = 2;
const PSC_GLOBAL_VLARB_DISABLE: i32 = 3;
const PSC_CM_RESET: i32 = 4;
const PSC_DATA_VL_ENABLE: i32 = 5;
const PSC_DATA_VL_DISABLE: i32 = 6;

/// `SEND_PIO_ERR_CLEAR_PIO_INIT_SM_IN_ERR_SMASK`,
/// `SEND_PIO_INIT_CTXT_PIO_ALL_CTXT_INIT_SMASK` (chip_registers.h).
const PIO_INIT_SM_IN_ERR_SMASK: u64 = 0x20000;
const PIO_ALL_CTXT_INIT_SMASK: u64 = 0x1;

/// Mirrors `__cm_reset()` (pio.c): `SEND_CTRL` written with the CM reset
/// bit, then polled (1 µs before each read) until the chip clears it. The
/// world's register reads one value a call: a value with the bit set
/// would be polled forever.
fn cm_reset(w: &World, sendctrl: u64, j: &mut Journal) -> Result<(), Undefined> {
    j.record(format!(
        "write_csr(SEND_CTRL, 0x{:x})",
        sendctrl | CM_RESET_SMASK
    ));
    j.udelay(1);
    j.read_csr(format_args!("SEND_CTRL"));
    if w.send_ctrl_csr & CM_RESET_SMASK != 0 {
        return Err(Undefined(
            "__cm_reset() polls SEND_CTRL until the chip clears the CM reset bit; the world's \
             register keeps it set"
                .into(),
        ));
    }
    Ok(())
}

/// Mirrors `pio_send_control()` (pio.c): `SEND_CTRL` read; enabling sends
/// (`PSC_GLOBAL_ENABLE`) also disallows, as `PSC_DATA_VL_ENABLE` does,
/// every VL without an MTU (`dd->vld[i].mtu`, the low 8 in the
/// unsupported-VL field); disabling clears the send enable; the VL
/// arbiter's enable set or cleared; `PSC_DATA_VL_DISABLE` marks every VL
/// unsupported and reads the register back; `PSC_CM_RESET` is
/// [`cm_reset`] with no write after; any other op writes it back as read.
pub fn pio_send_control(w: &World, op: i32, j: &mut Journal) -> Result<(), Undefined> {
    j.read_csr(format_args!("SEND_CTRL"));
    let mut reg = w.send_ctrl_csr;
    let (mut write, mut flush) = (true, false);
    let vl_mask = || {
        let mask = (0..16).fold(0u64, |m, i| if w.vl_mtu[i] == 0 { m | 1 << i } else { m });
        (mask & UNSUPPORTED_VL_MASK) << UNSUPPORTED_VL_SHIFT
    };
    let unsupported = UNSUPPORTED_VL_MASK << UNSUPPORTED_VL_SHIFT;
    match op {
        PSC_GLOBAL_ENABLE => reg = (reg | SEND_ENABLE_SMASK) & !unsupported | vl_mask(),
        PSC_DATA_VL_ENABLE => reg = reg & !unsupported | vl_mask(),
        PSC_GLOBAL_DISABLE => reg &= !SEND_ENABLE_SMASK,
        PSC_GLOBAL_VLARB_ENABLE => reg |= VL_ARBITER_ENABLE_SMASK,
        PSC_GLOBAL_VLARB_DISABLE => reg &= !VL_ARBITER_ENABLE_SMASK,
        PSC_CM_RESET => {
            cm_reset(w, reg, j)?;
            write = false;
        }
        PSC_DATA_VL_DISABLE => {
            reg |= unsupported;
            flush = true;
        }
        _ => {}
    }
    if write {
        j.record(format!("write_csr(SEND_CTRL, 0x{reg:x})"));
        if flush {
            j.read_csr(format_args!("SEND_CTRL"));
        }
    }
    Ok(())
}

/// Mirrors `pio_reset_all()` (pio.c): the init engine waited for
/// ([`pio_init_wait_progress`]), an error it reports cleared
/// (`SEND_PIO_ERR_CLEAR`); every context's init started
/// (`SEND_PIO_INIT_CTXT` with the all-contexts bit), 2 µs, and waited
/// for again (its failure only printed).
pub fn pio_reset_all(w: &World, j: &mut Journal) {
    if pio_init_wait_progress(w, j) == -EIO {
        j.record(format!(
            "write_csr(SEND_PIO_ERR_CLEAR, 0x{PIO_INIT_SM_IN_ERR_SMASK:x})"
        ));
    }
    j.record(format!(
        "write_csr(SEND_PIO_INIT_CTXT, 0x{PIO_ALL_CTXT_INIT_SMASK:x})"
    ));
    j.udelay(2);
    pio_init_wait_progress(w, j);
}

/// The kernel contexts of the device's table (`dd->send_contexts[i].sc`
/// not NULL, not `SC_USER`) whose flags `pick` selects, in order, each
/// enabled ([`sc_enable`], the QP's context: the world gives only it
/// counters).
fn enable_kernel_contexts(
    w: &World,
    e: &mut Engines,
    qp: &mut Qp,
    pick: impl Fn(&super::types::Flags<ScFlag>) -> bool,
    j: &mut Journal,
) -> Result<(), Undefined> {
    for i in 0..w.num_send_contexts {
        let f = e.sc_flags.get(usize::from(i));
        if w.sc_freed.get(usize::from(i))
            || !pick(&f)
            || w.sc_type.get(usize::from(i)) == ScType::User
        {
            continue;
        }
        sc_enable(w, e, qp, Some(SendCtxIdx(i)), j)?;
    }
    Ok(())
}

/// Mirrors `pio_kernel_unfreeze()` (pio.c): every frozen kernel context
/// whose link is not down enabled (which clears `SCF_FROZEN`).
pub fn pio_kernel_unfreeze(
    w: &World,
    e: &mut Engines,
    qp: &mut Qp,
    j: &mut Journal,
) -> Result<(), Undefined> {
    enable_kernel_contexts(
        w,
        e,
        qp,
        |f| f.contains(&ScFlag::Frozen) && !f.contains(&ScFlag::LinkDown),
        j,
    )
}

/// Mirrors `pio_kernel_linkup()` (pio.c): every kernel context whose link
/// went down enabled (which clears `SCF_LINK_DOWN`).
pub fn pio_kernel_linkup(
    w: &World,
    e: &mut Engines,
    qp: &mut Qp,
    j: &mut Journal,
) -> Result<(), Undefined> {
    enable_kernel_contexts(w, e, qp, |f| f.contains(&ScFlag::LinkDown), j)
}

impl crate::Mirror for PioSendControl {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        pio_send_control(cx.w, self.op, &mut cx.j)
    }
}

impl crate::Mirror for PioResetAll {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        pio_reset_all(cx.w, &mut cx.j);
        Ok(())
    }
}

impl crate::Mirror for PioKernelUnfreeze {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let (qp, e) = (cx.qp.to_mut(), cx.engines.to_mut());
        pio_kernel_unfreeze(cx.w, e, qp, &mut cx.j)
    }
}

impl crate::Mirror for PioKernelLinkup {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let (qp, e) = (cx.qp.to_mut(), cx.engines.to_mut());
        pio_kernel_linkup(cx.w, e, qp, &mut cx.j)
    }
}
