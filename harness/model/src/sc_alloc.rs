//! pio.c's allocation of a send context (`sc_alloc`) with what it calls,
//! and `sc_free` of a context made on an error path (`sc_alloc`'s,
//! `init_pervl_scs`'s: `pervl.rs`): the device's table of contexts
//! (`dd->send_contexts`, `dd->hw_to_sw`) and the context it returns,
//! described as the C world describes them (`c-shim/contexts.c`).

use super::alloc::{dma_handle, Allocs};
use super::check_enable::*;
use super::flags::sc_type_value;
use super::pio::{sc_mtu_to_threshold, sc_percent_to_threshold, write_hw_csr, PIO_BLOCK_SIZE};
use super::sc_state::{disable_hw, HwCtx};
use super::types::{DevFlag, ScType, World};
use super::{Journal, Undefined};

/// `TXE_NUM_CONTEXTS` (chip.h): the entries of `dd->hw_to_sw`.
pub(crate) const TXE_NUM_CONTEXTS: usize = 160;
/// `INVALID_SCI` (pio.h): a hardware context no send context has.
pub(crate) const INVALID_SCI: u8 = 0xff;
/// `sizeof(struct credit_return)` (pio.h): 8 __le64.
const CREDIT_RETURN_BYTES: u64 = 64;

// chip_registers.h: the send context's registers sc_alloc() programs.
const CTRL_CTXT_DEPTH_MASK: u64 = 0x7ff;
const CTRL_CTXT_DEPTH_SHIFT: u32 = 48;
const CTRL_CTXT_BASE_MASK: u64 = 0x3fff;
const CTRL_CTXT_BASE_SHIFT: u32 = 32;
const CHECK_PARTITION_KEY_VALUE_MASK: u64 = 0xffff;
const CHECK_OPCODE_MASK_SHIFT: u32 = 8;
const CREDIT_RETURN_ADDR_ADDRESS_SMASK: u64 = 0xffff_ffff_ffc0;
const CREDIT_CTRL_EARLY_RETURN_SMASK: u64 = 0x10000;
/// `DEFAULT_PKEY` (hfi.h).
const DEFAULT_PKEY: u64 = 0xffff;
// hfi.h: the opcode check of user contexts.
const USER_OPCODE_CHECK_VAL: u64 = 0xc0;
const USER_OPCODE_CHECK_MASK: u64 = 0xc0;

/// Mirrors the static `sc_type_name()` (pio.c): `sc_type_names[index]`,
/// an array in the order kernel, ack, user, vl15 (which is not pio.h's
/// order: `SC_VL15` is 1), "unknown" past `SC_MAX`.
fn sc_type_name(index: u32) -> &'static str {
    ["kernel", "ack", "user", "vl15"]
        .get(index as usize)
        .copied()
        .unwrap_or("unknown")
}

/// Mirrors `hfi1_pkt_default_send_ctxt_mask()` (hfi.h): no checks with
/// `HFI1_CAP_NO_INTEGRITY`; else the base checks, the user ones for a
/// user context, the kernel ones for an ack or VL15 context, and the job
/// key check unless the chip is an A step (`is_ax`, a boundary: a world's
/// chip is an A step unless it is a B step).
fn hfi1_pkt_default_send_ctxt_mask(w: &World, ty: u32) -> u64 {
    if w.cap_no_integrity {
        return 0;
    }
    let mut base = DISALLOW_BYPASS_BAD_PKT_LEN
        | DISALLOW_PBC_STATIC_RATE_CONTROL
        | DISALLOW_TOO_LONG_BYPASS_PACKETS
        | DISALLOW_TOO_LONG_IB_PACKETS
        | DISALLOW_BAD_PKT_LEN
        | DISALLOW_PBC_TEST
        | DISALLOW_TOO_SMALL_BYPASS_PACKETS
        | DISALLOW_TOO_SMALL_IB_PACKETS
        | DISALLOW_RAW_IPV6
        | DISALLOW_RAW
        | CHECK_BYPASS_VL_MAPPING
        | CHECK_VL_MAPPING
        | CHECK_OPCODE
        | CHECK_SLID
        | CHECK_VL
        | CHECK_ENABLE;
    if ty == sc_type_value(ScType::User) {
        base |= DISALLOW_PBC_TEST
            | DISALLOW_NON_KDETH_PACKETS
            | DISALLOW_KDETH_PACKETS
            | DISALLOW_BYPASS
            | DISALLOW_GRH;
    } else if ty != sc_type_value(ScType::Kernel) {
        base |= DISALLOW_KDETH_PACKETS;
    }
    if w.chip_bx {
        base |= CHECK_JOB_KEY;
    }
    base
}

/// An entry of `dd->send_contexts[]`: the world's context, NULL, or one
/// the call allocated.
#[derive(Clone, Copy, PartialEq)]
enum Entry {
    World(u8),
    Null,
    New,
}

/// The name of a context the call allocated at entry `i`
/// (`shim_new_sc_name`).
pub(crate) fn new_sc_name(i: usize) -> String {
    format!("sc:new[{i}]")
}

impl Entry {
    /// Its name in the text (`shim_ptr_name`), as entry `i`.
    fn name(self, i: usize) -> String {
        match self {
            Entry::World(k) => format!("sc#{k}"),
            Entry::Null => "(null)".into(),
            Entry::New => new_sc_name(i),
        }
    }
}

/// What the call may change of the device's tables: each context's entry
/// and `allocated`, `dd->hw_to_sw[]`.
#[derive(Clone, PartialEq)]
pub(crate) struct Tables {
    sc: Vec<Entry>,
    allocated: Vec<bool>,
    hw_to_sw: [u8; TXE_NUM_CONTEXTS],
}

impl Tables {
    /// As the world has them: an entry is the world's context and
    /// allocated unless the world freed it; a hardware context maps to the
    /// lowest context there that is not freed.
    pub(crate) fn of(w: &World) -> Tables {
        let n = usize::from(w.num_send_contexts);
        let mut t = Tables {
            sc: vec![Entry::Null; n],
            allocated: vec![false; n],
            hw_to_sw: [INVALID_SCI; TXE_NUM_CONTEXTS],
        };
        for i in (0..n).rev() {
            if w.sc_freed.get(i) {
                continue;
            }
            t.sc[i] = Entry::World(i as u8);
            t.allocated[i] = true;
            let hw = usize::from(w.sc_hw_context.get(i));
            if hw < TXE_NUM_CONTEXTS {
                t.hw_to_sw[hw] = i as u8;
            }
        }
        t
    }

    /// The entries that differ from `before`, as `shim_describe_tables()`
    /// writes them.
    pub(crate) fn changes(&self, before: &Tables) -> String {
        let mut s = String::new();
        for i in 0..self.sc.len() {
            if self.sc[i] != before.sc[i] || self.allocated[i] != before.allocated[i] {
                s += &format!(
                    " send_contexts[{i}]: sc {}->{} allocated {}->{}",
                    before.sc[i].name(i),
                    self.sc[i].name(i),
                    u8::from(before.allocated[i]),
                    u8::from(self.allocated[i])
                );
            }
        }
        for (i, (b, a)) in before.hw_to_sw.iter().zip(&self.hw_to_sw).enumerate() {
            if a != b {
                s += &format!(" hw_to_sw[{i}]: {b}->{a}");
            }
        }
        s
    }
}

/// `chip_send_contexts(dd)` (chip.h): what `SEND_CONTEXTS` reads.
fn chip_send_contexts(w: &World, j: &mut Journal) -> u32 {
    j.read_csr(format_args!("SEND_CONTEXTS"));
    u32::from(w.chip_send_contexts)
}

/// Mirrors the static `sc_hw_alloc()` (pio.c): the first entry of the
/// type not allocated taken, its hardware context
/// `chip_send_contexts - index - 1` mapped back to it; none: -ENOSPC.
fn sc_hw_alloc(
    w: &World,
    t: &mut Tables,
    ty: ScType,
    j: &mut Journal,
) -> Result<Option<(usize, usize)>, Undefined> {
    for index in 0..t.sc.len() {
        if w.sc_type.get(index) == ty && !t.allocated[index] {
            t.allocated[index] = true;
            let context = chip_send_contexts(w, j).wrapping_sub(index as u32 + 1) as usize;
            *t.hw_to_sw.get_mut(context).ok_or_else(|| {
                Undefined(format!(
                    "sc_hw_alloc() writes dd->hw_to_sw[{context}], past its {TXE_NUM_CONTEXTS}"
                ))
            })? = index as u8;
            return Ok(Some((index, context)));
        }
    }
    Ok(None)
}

/// Mirrors the static `sc_hw_free()` (pio.c): the entry not allocated
/// any more (an error message if it was not), its hardware context
/// mapped to none.
fn sc_hw_free(t: &mut Tables, sw_index: usize, hw_context: usize) {
    t.allocated[sw_index] = false;
    t.hw_to_sw[hw_context] = INVALID_SCI;
}

/// Mirrors `set_pio_integrity()` (pio.c): the context's checks
/// (`SEND_CTXT_CHECK_ENABLE`) as [`hfi1_pkt_default_send_ctxt_mask`]
/// gives them for its type.
fn set_pio_integrity(w: &World, hw: usize, ty: u32, j: &mut Journal) {
    write_hw_csr(
        hw as u32,
        "SEND_CTXT_CHECK_ENABLE",
        hfi1_pkt_default_send_ctxt_mask(w, ty),
        j,
    );
}

/// Mirrors `sc_free()` (pio.c) of a context the call allocated ([`NewSc`]:
/// no waiters, its shadow ring empty): `SCF_IN_FREE` set, the context
/// disabled (`sc_disable`: not halted, so its egress read), its halt
/// work flushed, its entry NULL, every register `sc_alloc()` set
/// cleared, its index and hardware context given back (`sc_hw_free`),
/// its shadow ring (if any), its counters and the context freed.
pub(crate) fn sc_free(w: &World, t: &mut Tables, sc: &NewSc, j: &mut Journal) {
    let (sw_index, hw) = (sc.sw_index, sc.hw);
    disable_hw(
        w,
        HwCtx {
            hw: hw as u32,
            halted: false,
        },
        j,
    );
    j.record(format!("flush_work({}.halt_work)", new_sc_name(sw_index)));
    t.sc[sw_index] = Entry::Null;
    for csr in [
        "SEND_CTXT_CTRL",
        "SEND_CTXT_CHECK_ENABLE",
        "SEND_CTXT_ERR_MASK",
        "SEND_CTXT_CHECK_PARTITION_KEY",
        "SEND_CTXT_CHECK_OPCODE",
        "SEND_CTXT_CREDIT_RETURN_ADDR",
        "SEND_CTXT_CREDIT_CTRL",
    ] {
        write_hw_csr(hw as u32, csr, 0, j);
    }
    sc_hw_free(t, sw_index, hw);
    if sc.sr_size != 0 {
        j.record("kfree".into());
    }
    j.record("free_percpu".into());
    j.record("kfree".into());
}

/// Mirrors `sc_alloc()` (pio.c): NULL while the device is frozen; else
/// the context allocated on node `numa` and its per-CPU counters
/// (either failing: NULL, what was taken freed), an entry of its type
/// taken ([`sc_hw_alloc`]; none: NULL), and under `dd->sc_lock` the
/// context set from the entry (its credits, its PIO memory at
/// `piobase + (hw_context & 0xff) << 16`, its credit return slot of node
/// `numa`), its registers programmed (depth and base, integrity, every
/// error unmasked, the default partition key, the opcode check a user
/// context gets, the credit return address, the credit return threshold:
/// half the credits for an ack context, `user_credit_return_threshold`
/// percent for a user one, the smaller of half and one MTU plus a header
/// for the others, with the early return the capabilities ask for; VL15
/// refused to a user context). Then a context that is not a user one
/// gets its shadow ring, one slot more than its credits (failing:
/// [`sc_free`], NULL), and the debug trace says what was made.
///
/// The text is the context returned and the table entries the call
/// changed; the return value 0 for a context, -1 for NULL.
pub fn sc_alloc(
    w: &World,
    ty: ScType,
    hdrqentsize: u8,
    numa: i32,
    j: &mut Journal,
) -> Result<(i32, String), Undefined> {
    let before = Tables::of(w);
    let mut t = before.clone();
    let mut a = Allocs::new(w);
    Ok(
        match alloc_in(w, &mut t, &mut a, ty, hdrqentsize, numa, j)? {
            Some(sc) => (0, sc.describe() + &t.changes(&before)),
            None => (-1, format!("sc=(null){}", t.changes(&before))),
        },
    )
}

/// [`sc_alloc`] on tables and allocations a caller carries (a call that
/// allocates several contexts): the context made, or `None` for NULL.
pub(crate) fn alloc_in(
    w: &World,
    t: &mut Tables,
    a: &mut Allocs<'_>,
    ty: ScType,
    hdrqentsize: u8,
    numa: i32,
    j: &mut Journal,
) -> Result<Option<NewSc>, Undefined> {
    if w.has(DevFlag::Frozen) {
        return Ok(None);
    }
    if !a.kmalloc(numa, j) {
        return Ok(None);
    }
    if !a.alloc_percpu(j) {
        j.record("kfree".into());
        return Ok(None);
    }
    let Some((sw_index, hw)) = sc_hw_alloc(w, t, ty, j)? else {
        j.record("free_percpu".into());
        j.record("kfree".into());
        return Ok(None);
    };
    let type_value = sc_type_value(ty);
    t.sc[sw_index] = Entry::New;
    let credits = u32::from(w.sci_credits.get(sw_index));
    let dma = dma_handle(numa, TXE_NUM_CONTEXTS as u64 * CREDIT_RETURN_BYTES)
        .wrapping_add(hw as u64 * CREDIT_RETURN_BYTES);
    let reg = ((u64::from(credits) & CTRL_CTXT_DEPTH_MASK) << CTRL_CTXT_DEPTH_SHIFT)
        | ((u64::from(w.sci_base.get(sw_index)) & CTRL_CTXT_BASE_MASK) << CTRL_CTXT_BASE_SHIFT);
    let csr = |name: &str, v: u64, j: &mut Journal| write_hw_csr(hw as u32, name, v, j);
    csr("SEND_CTXT_CTRL", reg, j);
    set_pio_integrity(w, hw, type_value, j);
    csr("SEND_CTXT_ERR_MASK", u64::MAX, j);
    csr(
        "SEND_CTXT_CHECK_PARTITION_KEY",
        CHECK_PARTITION_KEY_VALUE_MASK & DEFAULT_PKEY,
        j,
    );
    let (opval, opmask) = if ty == ScType::User {
        (USER_OPCODE_CHECK_VAL, USER_OPCODE_CHECK_MASK)
    } else {
        (0, 0)
    };
    csr(
        "SEND_CTXT_CHECK_OPCODE",
        (opmask << CHECK_OPCODE_MASK_SHIFT) | opval,
        j,
    );
    csr(
        "SEND_CTXT_CREDIT_RETURN_ADDR",
        dma & CREDIT_RETURN_ADDR_ADDRESS_SMASK,
        j,
    );
    let thresh = match ty {
        ScType::Ack => sc_percent_to_threshold(credits, 50),
        ScType::User => sc_percent_to_threshold(credits, u32::from(w.user_credit_return_threshold)),
        _ => sc_percent_to_threshold(credits, 50).min(sc_mtu_to_threshold(
            credits,
            u32::from(w.max_mtu),
            u32::from(hdrqentsize),
        )),
    };
    let mut credit_ctrl = u64::from(thresh);
    // Upstream's `if (user && USET) ... else if (KSET) ...`, whose two
    // arms add the same bit: a user context without the user bit still
    // gets it from the kernel's.
    if (ty == ScType::User && w.cap_user_early_credit_return) || w.cap_early_credit_return {
        credit_ctrl |= CREDIT_CTRL_EARLY_RETURN_SMASK;
    }
    csr("SEND_CTXT_CREDIT_CTRL", credit_ctrl, j);
    if ty == ScType::User {
        csr("SEND_CTXT_CHECK_VL", 1 << 15, j);
    }
    let mut sc = NewSc {
        sw_index,
        hw,
        ty,
        numa,
        credits,
        credit_ctrl,
        sr_size: 0,
        enabled: false,
    };
    if ty != ScType::User {
        if !a.kmalloc(numa, j) {
            sc_free(w, t, &sc, j);
            return Ok(None);
        }
        sc.sr_size = credits + 1;
    }
    j.record(format!(
        "hfi1_cdbg(PIO) sc_alloc: Send context {sw_index}({hw}) {} group 0 credits {credits} credit_ctrl 0x{credit_ctrl:x} threshold {thresh}",
        sc_type_name(type_value)
    ));
    Ok(Some(sc))
}

/// A context [`sc_alloc`] made: what it set of the context, as
/// `shim_describe_new_sc()` writes it, and what a caller changes later.
pub(crate) struct NewSc {
    pub(crate) sw_index: usize,
    pub(crate) hw: usize,
    pub(crate) ty: ScType,
    numa: i32,
    pub(crate) credits: u32,
    pub(crate) credit_ctrl: u64,
    /// 0: no shadow ring (a user context).
    sr_size: u32,
    /// `SCF_ENABLED` (`sc_enable`): its only flag a caller sets.
    pub(crate) enabled: bool,
}

impl NewSc {
    /// Its name (`shim_new_sc_name`).
    pub(crate) fn name(&self) -> String {
        new_sc_name(self.sw_index)
    }

    fn describe(&self) -> String {
        let NewSc {
            sw_index,
            hw,
            numa,
            credits,
            credit_ctrl,
            sr_size,
            ..
        } = *self;
        let sr = if sr_size == 0 {
            "NULL".to_string()
        } else {
            sr_size.to_string()
        };
        format!(
            "sc={} dd=dd sw_index={sw_index} hw_context={hw} type={} node={numa} group=0 \
             credits={credits} size={} base_addr=piobase+0x{:x} \
             hw_free=cr_base[{numa}].va[{hw}].cr[{}] credit_ctrl=0x{credit_ctrl:x} \
             sr_size={sr_size} sr={sr} buffers_allocated=set flags=0x0 piowait=empty \
             halt_wait=empty halt_work=sc_halted",
            self.name(),
            self.ty.name(),
            credits.wrapping_mul(PIO_BLOCK_SIZE),
            (hw & 0xff) << 16,
            hw & 7,
        )
    }
}

// The functions of this module as the model runs them (`crate::Mirror`).

impl crate::Mirror for super::types::args::ScAlloc {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let (ret, text) = sc_alloc(cx.w, self.ty, self.hdrqentsize, self.numa, &mut cx.j)?;
        cx.out.ret = ret;
        cx.out.text = text;
        Ok(())
    }
}
