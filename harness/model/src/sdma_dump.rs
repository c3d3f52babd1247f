//! sdma.c's dump of an engine for people, `sdma_seqfile_dump_sde`
//! (debugfs's `sdma_state`: a line of the engine's state, then one per
//! descriptor between its head and its tail).

use super::sdma_build::{
    DESC0_ADDR_MASK, DESC0_COUNT_MASK, DESC0_COUNT_SHIFT, DESC0_FIRST, DESC0_LAST,
    DESC1_HEAD_TO_HOST, DESC1_INDEX_SHIFT, DESC1_INT_REQ, DESC1_MODE_SHIFT,
};
use super::sdma_state::state_name;
use super::types::{EngineIdx, Engines, Qp, World};
use super::{Journal, Undefined};

/// `SDMA_DESC1_GENERATION_{SHIFT,MASK}` (sdma.h).
const DESC1_GENERATION_SHIFT: u32 = 2;
const DESC1_GENERATION_MASK: u64 = 0x3;
/// `SDMA_DESC1_HEADER_{INDEX,MODE}_SMASK` (sdma.h): 5 and 3 bits.
const DESC1_INDEX_SMASK: u64 = 0x1f << DESC1_INDEX_SHIFT;
const DESC1_MODE_SMASK: u64 = 0x7 << DESC1_MODE_SHIFT;

/// The QP's engine, which the dump is called on.
fn qps_engine(qp: &Qp, who: &str) -> Result<EngineIdx, Undefined> {
    qp.s_sde.ok_or_else(|| {
        Undefined(format!(
            "{who}() is called on the QP's engine (qp.s_sde), and the QP has none"
        ))
    })
}

/// What a world's register reads of engine `i` return (c-shim/query.c's
/// `shim_csr_value()`): its head the QP's engine's chip head, its status
/// the world's one value, every other register 0.
fn engine_csr(w: &World, qp: &Qp, reg: &str) -> u64 {
    match reg {
        "HEAD" => qp.sde_head_csr,
        "STATUS" => w.sdma_status_csr,
        _ => 0,
    }
}

/// Mirrors `sdma_seqfile_dump_sde()` (sdma.c) on the QP's engine: its
/// `SDE_FMT` line (its index, CPU, state, nine of its registers read, its
/// software head and tail masked, the chip's head in host memory, its
/// interrupt status, AHG entries, tx ring and descriptor ring indices,
/// whether its flush list holds requests and how often its ring was
/// full), then from the masked head to the masked tail a line per
/// descriptor (its flags, address, generation and length) and, for a
/// first descriptor, one of its AHG index and mode.
///
/// The registers are read while evaluating one call's arguments, in an
/// order C leaves unspecified: the world's journal keeps those reads
/// sorted (c-shim/engine_calls.c), and so does this.
pub fn sdma_seqfile_dump_sde(
    w: &World,
    qp: &Qp,
    e: &Engines,
    j: &mut Journal,
) -> Result<String, Undefined> {
    let sde = qps_engine(qp, "sdma_seqfile_dump_sde")?;
    let i = usize::from(sde.0);
    let mask = (u32::from(qp.sde_descq_cnt).wrapping_sub(1)) as u16;
    let mut head = qp.sde_descq_head as u16 & mask;
    let tail = qp.sde_descq_tail as u16 & mask;
    if head != tail && !qp.ring_holds_txs() {
        return Err(Undefined(format!(
            "sdma_seqfile_dump_sde() prints the descriptors of its {}-descriptor ring from head to tail, which a world does not allocate",
            qp.sde_descq_cnt
        )));
    }
    let mut regs = [
        "CTRL",
        "STATUS",
        "ENG_ERR_STATUS",
        "TAIL",
        "HEAD",
        "MEMORY",
        "LEN_GEN",
        "RELOAD_CNT",
        "CHECK_SLID",
    ]
    .map(|r| format!("SEND_DMA_{r}[{i}]"));
    regs.sort();
    for r in &regs {
        j.read_csr(format_args!("{r}"));
    }
    let csr = |reg: &str| engine_csr(w, qp, reg);
    let mut s = format!(
        "SDE {i} CPU {} STE {} C 0x{:x} S 0x{:016x} E 0x{:x} T(HW) 0x{:x} T(SW) 0x{tail:x} \
         H(HW) 0x{:x} H(SW) 0x{head:x} H(D) 0x{:x} DM 0x{:x} GL 0x{:x} R 0x{:x} LIS 0x{:x} \
         AHGI 0x{:x} TXT {} TXH {} DT {} DH {} FLNE {} DQF {} SLC 0x{:x}\n",
        w.sdma_cpus.get(i).copied().unwrap_or(0),
        state_name(e.sde_state.get(i)),
        csr("CTRL"),
        csr("STATUS"),
        csr("ENG_ERR_STATUS"),
        csr("TAIL"),
        csr("HEAD"),
        qp.sde_head_dma,
        csr("MEMORY"),
        csr("LEN_GEN"),
        csr("RELOAD_CNT"),
        e.sde_last_status.get(i),
        e.sde_ahg_bits.get(i),
        qp.sde_tx_tail,
        qp.sde_tx_head,
        qp.sde_descq_tail,
        qp.sde_descq_head,
        i32::from(!qp.sde_flushlist.is_empty()),
        qp.sde_descq_full_count,
        csr("CHECK_SLID"),
    );
    while head != tail {
        let d = qp.sde_descq.iter().find(|d| u16::from(d.idx) == head);
        let (q0, q1) = d.map_or((0, 0), |d| (d.qw0, d.qw1));
        let flag = |set: bool, c: char| if set { c } else { '-' };
        s += &format!(
            "\tdesc[{head}]: flags:{}{}{}{} addr:0x{:016x} gen:{} len:{} bytes\n",
            flag(q1 & DESC1_INT_REQ != 0, 'I'),
            flag(q1 & DESC1_HEAD_TO_HOST != 0, 'H'),
            flag(q0 & DESC0_FIRST != 0, 'F'),
            flag(q0 & DESC0_LAST != 0, 'L'),
            q0 & DESC0_ADDR_MASK,
            (q1 >> DESC1_GENERATION_SHIFT) & DESC1_GENERATION_MASK,
            (q0 >> DESC0_COUNT_SHIFT) & DESC0_COUNT_MASK,
        );
        if q0 & DESC0_FIRST != 0 {
            s += &format!(
                "\t\tahgidx: {} ahgmode: {}\n",
                (q1 & DESC1_INDEX_SMASK) >> DESC1_INDEX_SHIFT,
                (q1 & DESC1_MODE_SMASK) >> DESC1_MODE_SHIFT
            );
        }
        head = (head.wrapping_add(1)) & mask;
    }
    Ok(s)
}

/// `CCE_NUM_INT_CSRS` (chip_registers.h): the interrupt registers of
/// each kind.
const CCE_NUM_INT_CSRS: u32 = 12;

/// Mirrors `sdma_dumpstate()` (sdma.c, compiled only with
/// `CONFIG_SDMA_VERBOSITY`) on engine `e`: each register read in the
/// order it prints them (`sdma_dumpstate_helper` the engine's,
/// `sdma_dumpstate_helper0` the device's, `sdma_dumpstate_helper2` each
/// interrupt status, mask and blocked register in turn); what it prints
/// goes to the kernel log, whose text a world does not keep, so the reads
/// are all it shows.
pub fn sdma_dumpstate(e: EngineIdx, j: &mut Journal) {
    let e = e.0;
    let engine = |j: &mut Journal, reg: &str| j.read_csr(format_args!("SEND_DMA_{reg}[{e}]"));
    let device = |j: &mut Journal, reg: &str| j.read_csr(format_args!("SEND_DMA_{reg}"));
    engine(j, "CTRL");
    engine(j, "STATUS");
    device(j, "ERR_STATUS");
    device(j, "ERR_MASK");
    engine(j, "ENG_ERR_STATUS");
    engine(j, "ENG_ERR_MASK");
    for i in 0..CCE_NUM_INT_CSRS {
        for reg in ["STATUS", "MASK", "BLOCKED"] {
            j.read_csr(format_args!("CCE_INT_{reg}[{i}]"));
        }
    }
    for reg in [
        "TAIL",
        "HEAD",
        "PRIORITY_THLD",
        "IDLE_CNT",
        "RELOAD_CNT",
        "DESC_CNT",
        "DESC_FETCHED_CNT",
        "MEMORY",
    ] {
        engine(j, reg);
    }
    device(j, "ENGINES");
    device(j, "MEM_SIZE");
    for reg in [
        "BASE_ADDR",
        "LEN_GEN",
        "HEAD_ADDR",
        "CHECK_ENABLE",
        "CHECK_VL",
        "CHECK_JOB_KEY",
        "CHECK_PARTITION_KEY",
        "CHECK_SLID",
        "CHECK_OPCODE",
    ] {
        engine(j, reg);
    }
}

impl crate::Mirror for super::types::args::SdmaDumpstate {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        sdma_dumpstate(qps_engine(&cx.qp, "sdma_dumpstate")?, &mut cx.j);
        Ok(())
    }
}

impl crate::Mirror for super::types::args::SdmaSeqfileDumpSde {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.text = sdma_seqfile_dump_sde(cx.w, &cx.qp, &cx.engines, &mut cx.j)?;
        Ok(())
    }
}
