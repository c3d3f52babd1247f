//! An SDMA engine's state machine (sdma.c): its events
//! (`__sdma_process_event`), the action of each state it enters
//! (`sdma_set_state`: the send control written, the ring flushed on
//! entering running), the work it schedules (the clean-up tasklets, the
//! halt worker, the progress check of the other engines) and the two
//! clean-up tasklets that answer with the next event; the engine's error
//! interrupt, which halts it.

use super::sched::sdma_descq_freecnt;
use super::sdma::{qp_engine, sdma_desc_avail, sdma_flush};
use super::sdma_progress::{sdma_make_progress, under_head_lock};
use super::types::{EngineIdx, Engines, Qp, SdmaEvent, SdmaState, World};
use super::{put, Journal, Undefined};

/// `SDMA_SENDCTRL_OP_*` (sdma.c): what a state asks of the engine's
/// control register.
const OP_ENABLE: u32 = 1 << 0;
const OP_INTENABLE: u32 = 1 << 1;
const OP_HALT: u32 = 1 << 2;
const OP_CLEANUP: u32 = 1 << 3;

/// `SEND_DMA_CTRL_SDMA_*_SMASK` (chip_registers.h).
const CTRL_ENABLE: u64 = 0x1;
const CTRL_HALT: u64 = 0x2;
const CTRL_CLEANUP: u64 = 0x4;
const CTRL_INT_ENABLE: u64 = 0x8;

/// `SEND_DMA_STATUS_ENG_CLEANED_UP_SMASK` (chip_registers.h).
pub const STATUS_ENG_CLEANED_UP: u64 = 1 << 57;
/// `SEND_DMA_STATUS_ENG_HALTED_SMASK` (chip_registers.h).
pub const STATUS_ENG_HALTED: u64 = 1 << 56;

/// `ALL_SDMA_ENG_HALT_ERRS` (sdma.c): the 18 engine errors that halt it
/// (every `SEND_DMA_ENG_ERR_STATUS_SDMA_*_ERR_SMASK` but bit 9).
pub const ALL_SDMA_ENG_HALT_ERRS: u64 = 0x7_fdff;
/// `SEND_DMA_ENG_ERR_STATUS_SDMA_HALT_ERR_SMASK`.
pub const ENG_ERR_STATUS_HALT_ERR: u64 = 0x40;

/// A state's entry of `sdma_action_table` (sdma.c): the `OP_*` bits and
/// what it does to `go_s99_running` (`Some(false)`: `tofalse`).
fn action(s: SdmaState) -> (u32, Option<bool>) {
    use SdmaState::*;
    match s {
        S00HwDown => (0, Some(false)),
        S10HwStartUpHaltWait => (OP_HALT, None),
        S15HwStartUpCleanWait => (OP_INTENABLE | OP_CLEANUP, None),
        S20Idle => (OP_INTENABLE, None),
        S30SwCleanUpWait | S50HwHaltWait | S80HwFreeze | S82FreezeSwClean => (0, None),
        S40HwCleanUpWait => (OP_CLEANUP, None),
        S60IdleHaltWait => (OP_HALT, Some(false)),
        S99Running => (OP_ENABLE | OP_INTENABLE, Some(true)),
    }
}

/// `sdma_state_names[]` (sdma.c): a state as the tracepoint names it.
pub(crate) fn state_name(s: SdmaState) -> &'static str {
    use SdmaState::*;
    match s {
        S00HwDown => "s00_HwDown",
        S10HwStartUpHaltWait => "s10_HwStartUpHaltWait",
        S15HwStartUpCleanWait => "s15_HwStartUpCleanWait",
        S20Idle => "s20_Idle",
        S30SwCleanUpWait => "s30_SwCleanUpWait",
        S40HwCleanUpWait => "s40_HwCleanUpWait",
        S50HwHaltWait => "s50_HwHaltWait",
        S60IdleHaltWait => "s60_IdleHaltWait",
        S80HwFreeze => "s80_HwFreeze",
        S82FreezeSwClean => "s82_FreezeSwClean",
        S99Running => "s99_Running",
    }
}

/// The engine's entry `i` of a per-engine field.
fn ix(sde: EngineIdx) -> usize {
    usize::from(sde.0)
}

/// Mirrors the static `sdma_sendctrl()` (sdma.c): each of enable,
/// interrupt enable and halt set or cleared in the engine's shadow
/// `p_senddmactrl` (under `senddmactrl_lock`), which is written to
/// `SEND_DMA_CTRL`, with the clean-up bit for `OP_CLEANUP`.
fn sdma_sendctrl(
    e: &mut Engines,
    sde: EngineIdx,
    op: u32,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let mut set = 0;
    let mut clr = 0;
    for (bit, ctrl) in [
        (OP_ENABLE, CTRL_ENABLE),
        (OP_INTENABLE, CTRL_INT_ENABLE),
        (OP_HALT, CTRL_HALT),
    ] {
        if op & bit != 0 {
            set |= ctrl;
        } else {
            clr |= ctrl;
        }
    }
    let p = (e.sde_p_senddmactrl.get(ix(sde)) | set) & !clr;
    put(&mut e.sde_p_senddmactrl, ix(sde), p, "sde_p_senddmactrl")?;
    let v = if op & OP_CLEANUP != 0 {
        p | CTRL_CLEANUP
    } else {
        p
    };
    j.record(format!("write_csr(SEND_DMA_CTRL[{}], 0x{v:x})", sde.0));
    Ok(())
}

/// Mirrors the static `sdma_set_state()` (sdma.c): traced
/// (`hfi1_sdma_state` with both states' names); the current state and op
/// kept as the previous ones, the new state set; the engine flushed
/// ([`sdma_flush`]) when it starts running; then the state's action
/// (`sdma_action_table`): `go_s99_running` cleared or set, its op
/// recorded and written ([`sdma_sendctrl`]).
pub(crate) fn sdma_set_state(
    w: &World,
    qp: &mut Qp,
    e: &mut Engines,
    sde: EngineIdx,
    next: SdmaState,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let i = ix(sde);
    let cur = e.sde_state.get(i);
    j.trace(
        "hfi1_sdma_state",
        format_args!(
            "sde#{}, \"{}\", \"{}\"",
            sde.0,
            state_name(cur),
            state_name(next)
        ),
    );
    put(&mut e.sde_previous_state, i, cur, "sde_previous_state")?;
    let op = e.sde_current_op.get(i);
    put(&mut e.sde_previous_op, i, op, "sde_previous_op")?;
    put(&mut e.sde_state, i, next, "sde_state")?;
    if cur != SdmaState::S99Running && next == SdmaState::S99Running {
        sdma_flush(w, qp, sde, j)?;
    }
    let (op, go) = action(next);
    if let Some(go) = go {
        put(
            &mut e.sde_go_s99_running,
            i,
            u32::from(go),
            "sde_go_s99_running",
        )?;
    }
    put(&mut e.sde_current_op, i, op, "sde_current_op")?;
    sdma_sendctrl(e, sde, op, j)
}

/// Mirrors `sdma_get()` / `sdma_put()` (sdma.c): the state's `kref` up or
/// down (kcompat's `refcount_t`, an atomic that wraps), its completion
/// (`sdma_complete`) when a put takes it to 0.
pub(crate) fn sdma_kref(e: &mut Engines, sde: EngineIdx, get: bool) -> Result<(), Undefined> {
    let i = ix(sde);
    let k = e.sde_kref.get(i);
    let k = if get {
        k.wrapping_add(1)
    } else {
        k.wrapping_sub(1)
    };
    put(&mut e.sde_kref, i, k, "sde_kref")?;
    if !get && k == 0 {
        let done = e.sde_comp_done.get(i).wrapping_add(1);
        put(&mut e.sde_comp_done, i, done, "sde_comp_done")?;
    }
    Ok(())
}

/// Mirrors the static `sdma_sw_tear_down()` (sdma.c): the state
/// machine's reference dropped, the unfreeze count set to -1 and its
/// waiters woken.
fn sdma_sw_tear_down(
    qp: &mut Qp,
    e: &mut Engines,
    sde: EngineIdx,
    j: &mut Journal,
) -> Result<(), Undefined> {
    sdma_kref(e, sde, false)?;
    unfreeze_count(qp, -1, j);
    Ok(())
}

/// `dd->sdma_unfreeze_count` set (-1) or moved down by one, then
/// `wake_up_interruptible(&dd->sdma_unfreeze_wq)`.
fn unfreeze_count(qp: &mut Qp, set: i32, j: &mut Journal) {
    qp.sdma_unfreeze_count = if set < 0 {
        set
    } else {
        qp.sdma_unfreeze_count.wrapping_sub(1)
    };
    j.record("wake_up(sdma-unfreeze-wq)".into());
}

/// `tasklet_hi_schedule(&sde->NAME)`.
fn tasklet(sde: EngineIdx, name: &str, j: &mut Journal) {
    j.record(format!("tasklet_hi_schedule(sde#{}.{name})", sde.0));
}

/// `schedule_work(&sde->err_halt_worker)` on the system queue.
fn halt_worker(sde: EngineIdx, j: &mut Journal) {
    j.record(format!(
        "queue_work_on(64, wq:system, sde#{}.err_halt_worker)",
        sde.0
    ));
}

/// Mirrors the static `sdma_setlengen()` (sdma.c): the ring's length in
/// 64-descriptor units written to `SEND_DMA_LEN_GEN`, then again with
/// generation 4.
pub(crate) fn sdma_setlengen(descq_cnt: u16, sde: EngineIdx, j: &mut Journal) {
    let len = (u64::from(descq_cnt) / 64) << 6;
    j.record(format!("write_csr(SEND_DMA_LEN_GEN[{}], 0x{len:x})", sde.0));
    j.record(format!(
        "write_csr(SEND_DMA_LEN_GEN[{}], 0x{:x})",
        sde.0,
        len | 4 << 16
    ));
}

/// Mirrors the static `sdma_hw_start_up()` (sdma.c): the ring's length
/// and generation written (`sdma_setlengen`: `SEND_DMA_LEN_GEN` twice),
/// the tail set to 0 (`sdma_update_tail`), the head in host memory
/// cleared, the header request FIFO error cleared.
fn sdma_hw_start_up(qp: &mut Qp, sde: EngineIdx, j: &mut Journal) {
    sdma_setlengen(qp.sde_descq_cnt, sde, j);
    j.record(format!("writeq(SEND_DMA_TAIL[{}], 0x0)", sde.0));
    qp.sde_head_dma = 0;
    j.record(format!(
        "write_csr(SEND_DMA_ENG_ERR_CLEAR[{}], 0x{:x})",
        sde.0,
        1u64 << 18
    ));
}

/// Mirrors the static `sdma_err_progress_check_schedule()` (sdma.c): on
/// an A-step chip (`!is_bx`) with `HFI1_CAP_SDMA_AHG`, every other
/// engine's `progress_check_head` set to its descriptor head (each
/// engine of a world has the QP's engine's ring), and the engine's
/// progress check timer armed 10 jiffies on.
fn sdma_err_progress_check_schedule(
    w: &World,
    qp: &Qp,
    e: &mut Engines,
    sde: EngineIdx,
    j: &mut Journal,
) -> Result<(), Undefined> {
    if w.chip_bx || !w.cap_sdma_ahg {
        return Ok(());
    }
    for i in 0..w.sdma_cpus.len() {
        if i != ix(sde) {
            put(
                &mut e.sde_progress_check_head,
                i,
                qp.sde_descq_head,
                "sde_progress_check_head",
            )?;
        }
    }
    j.record(format!(
        "mod_timer(sde#{}.err_progress_check_timer, 10)",
        sde.0
    ));
    Ok(())
}

/// What an event does in a state (`__sdma_process_event`'s two switches),
/// as the steps it takes in order.
enum Step {
    /// `sdma_set_state(sde, s)`.
    Set(SdmaState),
    /// `sdma_set_state()` to running or idle, by `go_s99_running`, after
    /// `sdma_hw_start_up()`.
    StartUp,
    /// `ss->go_s99_running = v`.
    Go(bool),
    /// `sdma_get(&sde->state)`.
    Get,
    /// `sdma_sw_tear_down()`.
    TearDown,
    /// `sdma_start_hw_clean_up()`: the hardware clean-up tasklet.
    HwCleanUp,
    /// `tasklet_hi_schedule(&sde->sdma_sw_clean_up_task)`.
    SwCleanUp,
    /// `schedule_work(&sde->err_halt_worker)`.
    HaltWorker,
    /// The unfreeze count down by one, its waiters woken.
    Unfreeze,
    /// `need_progress = 1; sdma_err_progress_check_schedule()`.
    ProgressCheck,
}

/// `__sdma_process_event`'s table: the steps of `event` in state `s`.
fn steps(s: SdmaState, event: SdmaEvent) -> Vec<Step> {
    use SdmaEvent::*;
    use SdmaState::*;
    use Step::*;
    match (s, event) {
        (S00HwDown, E30GoRunning) => vec![Go(true), Get, Set(S10HwStartUpHaltWait)],
        (S00HwDown, E10GoHwStart) => vec![Get, Set(S10HwStartUpHaltWait)],
        (S00HwDown, E40SwCleaned) => vec![TearDown],
        (S00HwDown, _) => vec![],

        (S10HwStartUpHaltWait | S15HwStartUpCleanWait | S20Idle, E00GoHwDown) => {
            vec![Set(S00HwDown), TearDown]
        }
        (S10HwStartUpHaltWait, E15HwHaltDone) => {
            vec![Set(S15HwStartUpCleanWait), HwCleanUp]
        }
        (S10HwStartUpHaltWait | S50HwHaltWait | S60IdleHaltWait, E60HwHalted) => {
            vec![HaltWorker]
        }
        (S15HwStartUpCleanWait | S40HwCleanUpWait, E25HwCleanUpDone) => vec![StartUp],

        (S20Idle, E30GoRunning) => vec![Set(S99Running), Go(true)],
        (S20Idle, E60HwHalted) => vec![Set(S50HwHaltWait), HaltWorker],
        (S20Idle, E80HwFreeze | E85LinkDown) => vec![Set(S80HwFreeze), Unfreeze],
        (S20Idle, _) => vec![],

        (S30SwCleanUpWait, E00GoHwDown) => vec![Set(S00HwDown)],
        (S30SwCleanUpWait, E40SwCleaned) => vec![Set(S40HwCleanUpWait), HwCleanUp],

        (S40HwCleanUpWait | S50HwHaltWait | S60IdleHaltWait | S80HwFreeze, E00GoHwDown)
        | (S82FreezeSwClean | S99Running, E00GoHwDown) => vec![Set(S00HwDown), SwCleanUp],
        (S50HwHaltWait | S60IdleHaltWait, E15HwHaltDone) => {
            vec![Set(S30SwCleanUpWait), SwCleanUp]
        }

        (S80HwFreeze, E81HwFrozen) => vec![Set(S82FreezeSwClean), SwCleanUp],
        (S82FreezeSwClean, E40SwCleaned) => vec![Unfreeze],
        (S82FreezeSwClean, E82HwUnfreeze) => vec![StartUp],

        (S99Running, E60HwHalted) => {
            vec![ProgressCheck, Set(S50HwHaltWait), HaltWorker]
        }
        (S99Running, E90SwHalted) => vec![Set(S50HwHaltWait), HaltWorker],
        (S99Running, E70GoIdle) => vec![Set(S60IdleHaltWait)],
        (S99Running, E85LinkDown) => vec![Go(false), Set(S80HwFreeze), Unfreeze],
        (S99Running, E80HwFreeze) => vec![Set(S80HwFreeze), Unfreeze],
        (S99Running, _) => vec![],

        // Every state but down and running: a request to run is kept,
        // and one to idle forgets it; a link down forgets it in the
        // clean-up and halt states.
        (_, E30GoRunning) => vec![Go(true)],
        (_, E70GoIdle) => vec![Go(false)],
        (S30SwCleanUpWait | S40HwCleanUpWait | S50HwHaltWait, E85LinkDown) => vec![Go(false)],
        _ => vec![],
    }
}

/// Mirrors the static `__sdma_process_event()` (sdma.c): the steps of
/// the event in the engine's state ([`steps`]), the event kept as its
/// last, then progress made ([`sdma_make_progress`], status 0) when a
/// running engine halted.
pub fn __sdma_process_event(
    w: &World,
    qp: &mut Qp,
    e: &mut Engines,
    sde: EngineIdx,
    event: SdmaEvent,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let i = ix(sde);
    let mut need_progress = false;
    for step in steps(e.sde_state.get(i), event) {
        match step {
            Step::Set(s) => sdma_set_state(w, qp, e, sde, s, j)?,
            Step::StartUp => {
                sdma_hw_start_up(qp, sde, j);
                let next = if e.sde_go_s99_running.get(i) != 0 {
                    SdmaState::S99Running
                } else {
                    SdmaState::S20Idle
                };
                sdma_set_state(w, qp, e, sde, next, j)?;
            }
            Step::Go(v) => put(
                &mut e.sde_go_s99_running,
                i,
                u32::from(v),
                "sde_go_s99_running",
            )?,
            Step::Get => sdma_kref(e, sde, true)?,
            Step::TearDown => sdma_sw_tear_down(qp, e, sde, j)?,
            Step::HwCleanUp => tasklet(sde, "sdma_hw_clean_up_task", j),
            Step::SwCleanUp => tasklet(sde, "sdma_sw_clean_up_task", j),
            Step::HaltWorker => halt_worker(sde, j),
            Step::Unfreeze => unfreeze_count(qp, 0, j),
            Step::ProgressCheck => {
                need_progress = true;
                sdma_err_progress_check_schedule(w, qp, e, sde, j)?;
            }
        }
    }
    put(&mut e.sde_last_event, i, event, "sde_last_event")?;
    if need_progress {
        sdma_make_progress(w, qp, e, sde, 0, j)?;
    }
    Ok(())
}

/// Mirrors the static `sdma_process_event()` (sdma.c): under the engine's
/// `tail_lock` and `head_lock` (its sequence up by one at each end),
/// [`__sdma_process_event`], then, if the engine runs, its free
/// descriptors offered to the waiters ([`sdma_desc_avail`]).
pub fn sdma_process_event(
    w: &World,
    qp: &mut Qp,
    e: &mut Engines,
    sde: EngineIdx,
    event: SdmaEvent,
    j: &mut Journal,
) -> Result<(), Undefined> {
    under_head_lock(qp, |qp| {
        __sdma_process_event(w, qp, e, sde, event, j)?;
        if e.sde_state.get(ix(sde)) == SdmaState::S99Running {
            sdma_desc_avail(w, qp, sde, u32::from(sdma_descq_freecnt(qp)), j)?;
        }
        Ok(())
    })
}

/// Mirrors `sdma_engine_error()` (sdma.c): under the engine's locks (the
/// head sequence up by one at each end), `e60_hw_halted` for a halting
/// error; any other bit dumps the engine's state (`dump_sdma_state`:
/// printing only, which a world drops).
pub fn sdma_engine_error(
    w: &World,
    qp: &mut Qp,
    e: &mut Engines,
    status: u64,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let sde = qp_engine(qp, "sdma_engine_error")?;
    under_head_lock(qp, |qp| {
        if status & ALL_SDMA_ENG_HALT_ERRS != 0 {
            __sdma_process_event(w, qp, e, sde, SdmaEvent::E60HwHalted, j)?;
        }
        if status & !ENG_ERR_STATUS_HALT_ERR != 0 {
            dump_sdma_state(qp)?;
        }
        Ok(())
    })
}

/// Mirrors the static `dump_sdma_state()` (sdma.c): every descriptor
/// from the ring's head to its tail printed, which a world drops; it
/// reads them from the ring (`sde->descq`), which a world allocates only
/// for a ring that holds tx requests.
fn dump_sdma_state(qp: &Qp) -> Result<(), Undefined> {
    let mask = u32::from(qp.sde_descq_cnt).wrapping_sub(1);
    let (head, tail) = (
        (qp.sde_descq_head & mask) as u16,
        (qp.sde_descq_tail & mask) as u16,
    );
    if head != tail && !qp.ring_holds_txs() {
        return Err(Undefined(format!(
            "dump_sdma_state() reads the descriptors of a {}-descriptor ring a world does not allocate",
            qp.sde_descq_cnt
        )));
    }
    Ok(())
}

/// Mirrors the static `sdma_sw_clean_up_task()` (sdma.c), the engine's
/// software clean-up tasklet: under its locks (the head sequence up by
/// one at each end), progress made with the chip's head
/// ([`sdma_make_progress`], status 0), the engine flushed
/// ([`sdma_flush`]), the ring's head and tail reset to 0 with all of it
/// free, the head in host memory cleared, then `e40_sw_cleaned`.
pub fn sdma_sw_clean_up_task(
    w: &World,
    qp: &mut Qp,
    e: &mut Engines,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let sde = qp_engine(qp, "sdma_sw_clean_up_task")?;
    under_head_lock(qp, |qp| {
        sdma_make_progress(w, qp, e, sde, 0, j)?;
        sdma_flush(w, qp, sde, j)?;
        qp.sde_descq_tail = 0;
        qp.sde_descq_head = 0;
        qp.sde_desc_avail = sdma_descq_freecnt(qp);
        qp.sde_head_dma = 0;
        __sdma_process_event(w, qp, e, sde, SdmaEvent::E40SwCleaned, j)
    })
}

/// Mirrors the static `sdma_hw_clean_up_task()` (sdma.c), the engine's
/// hardware clean-up tasklet: `SEND_DMA_STATUS` polled until the chip
/// says it is cleaned up (10 us apart: a status without the bit is
/// polled forever, which a world does not give it), then
/// [`sdma_process_event`] `e25_hw_clean_up_done`.
pub fn sdma_hw_clean_up_task(
    w: &World,
    qp: &mut Qp,
    e: &mut Engines,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let sde = qp_engine(qp, "sdma_hw_clean_up_task")?;
    j.read_csr(format_args!("SEND_DMA_STATUS[{}]", sde.0));
    if w.sdma_status_csr & STATUS_ENG_CLEANED_UP == 0 {
        return Err(Undefined(
            "sdma_hw_clean_up_task() polls SEND_DMA_STATUS forever: the chip never says the engine is cleaned up".into(),
        ));
    }
    sdma_process_event(w, qp, e, sde, SdmaEvent::E25HwCleanUpDone, j)
}

/// Mirrors the static `sdma_err_halt_wait()` (sdma.c), the engine's halt
/// worker: `SEND_DMA_STATUS` polled until the engine says it halted, 80
/// to 120 us apart, for 10 ms (jiffies stand still in a world: a status
/// without the bit is polled forever, which a world does not give it),
/// then [`sdma_process_event`] `e15_hw_halt_done`.
pub fn sdma_err_halt_wait(
    w: &World,
    qp: &mut Qp,
    e: &mut Engines,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let sde = qp_engine(qp, "sdma_err_halt_wait")?;
    j.read_csr(format_args!("SEND_DMA_STATUS[{}]", sde.0));
    if w.sdma_status_csr & STATUS_ENG_HALTED == 0 {
        return Err(Undefined(
            "sdma_err_halt_wait() polls SEND_DMA_STATUS forever: the chip never says the engine halted and time stands still".into(),
        ));
    }
    sdma_process_event(w, qp, e, sde, SdmaEvent::E15HwHaltDone, j)
}

/// Mirrors the static `sdma_err_progress_check()` (sdma.c), the engine's
/// progress check timer: for every other engine, under its locks, one
/// that runs with descriptors out (its head not at its tail) and its head
/// still at its `progress_check_head` is halted (`__sdma_process_event`
/// `e90_sw_halted`); each engine of a world has the QP's engine's ring.
/// Then the engine's halt worker scheduled.
pub fn sdma_err_progress_check(
    w: &World,
    qp: &mut Qp,
    e: &mut Engines,
    j: &mut Journal,
) -> Result<(), Undefined> {
    let sde = qp_engine(qp, "sdma_err_progress_check")?;
    for i in 0..w.sdma_cpus.len() {
        if i == ix(sde) || e.sde_state.get(i) != SdmaState::S99Running {
            continue;
        }
        if qp.sde_descq_head != qp.sde_descq_tail
            && qp.sde_descq_head == e.sde_progress_check_head.get(i)
        {
            let other = EngineIdx(i as u8);
            __sdma_process_event(w, qp, e, other, SdmaEvent::E90SwHalted, j)?;
        }
    }
    halt_worker(sde, j);
    Ok(())
}

// The functions of this module as the model runs them (`crate::Mirror`).

impl crate::Mirror for super::types::args::SdmaProcessEvent {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        let sde = qp_engine(&cx.qp, "sdma_process_event")?;
        sdma_process_event(
            cx.w,
            cx.qp.to_mut(),
            cx.engines.to_mut(),
            sde,
            self.event,
            &mut cx.j,
        )
    }
}

impl crate::Mirror for super::types::args::SdmaEngineError {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        sdma_engine_error(
            cx.w,
            cx.qp.to_mut(),
            cx.engines.to_mut(),
            self.status,
            &mut cx.j,
        )
    }
}

impl crate::Mirror for super::types::args::SdmaSwCleanUpTask {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        sdma_sw_clean_up_task(cx.w, cx.qp.to_mut(), cx.engines.to_mut(), &mut cx.j)
    }
}

impl crate::Mirror for super::types::args::SdmaHwCleanUpTask {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        sdma_hw_clean_up_task(cx.w, cx.qp.to_mut(), cx.engines.to_mut(), &mut cx.j)
    }
}

impl crate::Mirror for super::types::args::SdmaErrHaltWait {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        sdma_err_halt_wait(cx.w, cx.qp.to_mut(), cx.engines.to_mut(), &mut cx.j)
    }
}

impl crate::Mirror for super::types::args::SdmaErrProgressCheck {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        sdma_err_progress_check(cx.w, cx.qp.to_mut(), cx.engines.to_mut(), &mut cx.j)
    }
}
