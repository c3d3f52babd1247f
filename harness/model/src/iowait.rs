//! The iowait of iowait.c and iowait.h that the engines' wakeups use on
//! the iowaits of a wait list: the QP's own (`priv->s_iowait`) and the
//! other waiters of the world (`Qp::waiters`).

use super::sched::hfi1_init_priority;
use super::types::{EngineIdx, Qp, SendCtxIdx};

/// `IOWAIT_PRIORITY_STARVE_SHIFT` (iowait.c).
const IOWAIT_PRIORITY_STARVE_SHIFT: u32 = 4;

/// An iowait on an engine's dmawait list: the QP's, or the world's other
/// waiter of that index (`waiter#i` in the journal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Iowait {
    /// `priv->s_iowait`.
    Qp,
    /// `Qp::waiters[i]`.
    Waiter(usize),
    /// The iowait of `Qp::pio_waiters[i]`, another QP.
    Pio(usize),
}

/// The dmawait list of engine `sde`, in order, as the shim builds it: the
/// other waiters before the QP, the QP's iowait when it waits on that
/// list, the waiters after it. The other waiters wait on the QP's engine.
pub fn dmawait(qp: &Qp, sde: EngineIdx) -> Vec<Iowait> {
    let ours = qp.s_sde == Some(sde);
    let on = |after: bool| {
        qp.waiters
            .iter()
            .enumerate()
            .filter(move |(_, w)| ours && w.on_list && w.after_qp == after)
            .map(|(i, _)| Iowait::Waiter(i))
    };
    let mut list: Vec<Iowait> = on(false).collect();
    if qp.on_wait_list && qp.wait_lock == Some(sde) {
        list.push(Iowait::Qp);
    }
    list.extend(on(true));
    list
}

/// Mirrors `iowait_init_priority()` (iowait.h): the priority to 0, then
/// the iowait's `init_priority` callback, a QP's `hfi1_init_priority()`
/// (qp.c); the other waiters of an engine have none.
pub fn iowait_init_priority(qp: &mut Qp, w: Iowait) {
    match w {
        Iowait::Qp => qp.iowait_priority = hfi1_init_priority(qp) as u8,
        Iowait::Waiter(i) => qp.waiters[i].priority = 0,
        Iowait::Pio(i) => {
            qp.pio_waiters[i].priority = hfi1_init_priority(&pio_qp(qp, i)) as u8;
        }
    }
}

/// The other QP `pio_waiters[i]` as the model's QP: its own fields, the
/// QP's port, no engine, no tx request, the rest blank (what the shim
/// gives it).
pub fn pio_qp(qp: &Qp, i: usize) -> Qp {
    let p = &qp.pio_waiters[i];
    Qp {
        num: p.num,
        port: qp.port,
        s_flags: p.s_flags,
        priv_flags: p.priv_flags,
        iowait_flags: p.iowait_flags,
        refcount: p.refcount,
        iowait_priority: p.priority,
        starved_cnt: p.starved_cnt,
        ..Qp::blank()
    }
}

/// What a function changed of the other QP `pio_waiters[i]`, given as
/// [`pio_qp`].
pub fn pio_qp_back(qp: &mut Qp, i: usize, o: &Qp) {
    let p = &mut qp.pio_waiters[i];
    p.s_flags = o.s_flags;
    p.priv_flags = o.priv_flags;
    p.iowait_flags = o.iowait_flags;
    p.refcount = o.refcount;
    p.priority = o.iowait_priority;
    p.starved_cnt = o.starved_cnt;
}

/// Mirrors `iowait_get_priority()` (iowait.h): `iowait_init_priority`,
/// then one step for each leg whose first tx request is
/// `SDMA_TXREQ_F_VIP` (no request of the world is).
pub fn iowait_get_priority(qp: &mut Qp, w: Iowait) {
    iowait_init_priority(qp, w);
}

/// The piowait list of send context `sc`, in order, as the shim builds
/// it: the other QPs before the QP, the QP when it waits on that list,
/// the QPs after it. The other QPs wait on the QP's send context.
pub fn piowait(qp: &Qp, sc: SendCtxIdx) -> Vec<Iowait> {
    let ours = qp.s_sendcontext == Some(sc);
    let on = |after: bool| {
        qp.pio_waiters
            .iter()
            .enumerate()
            .filter(move |(_, w)| ours && w.on_list && w.after_qp == after)
            .map(|(i, _)| Iowait::Pio(i))
    };
    let mut list: Vec<Iowait> = on(false).collect();
    if qp.on_wait_list && qp.wait_sc == Some(sc) {
        list.push(Iowait::Qp);
    }
    list.extend(on(true));
    list
}

/// Mirrors `iowait_get_all_desc()` (iowait.h): the descriptors of the
/// first tx request of each leg (`iowait_get_desc`, 0 for an empty leg;
/// no request of the world is `SDMA_TXREQ_F_VIP`).
pub fn iowait_get_all_desc(qp: &Qp, w: Iowait) -> u32 {
    match w {
        Iowait::Qp => {
            let desc = |queued: bool, n: u16| if queued { u32::from(n) } else { 0 };
            desc(qp.ib_tx_queued, qp.ib_tx_num_desc) + desc(qp.tid_tx_queued, qp.tid_tx_num_desc)
        }
        Iowait::Waiter(i) => u32::from(qp.waiters[i].num_desc),
        Iowait::Pio(_) => 0,
    }
}

/// An iowait's `priority` and `starved_cnt`.
fn priority(qp: &Qp, w: Iowait) -> (u8, u8) {
    match w {
        Iowait::Qp => (qp.iowait_priority, qp.starved_cnt),
        Iowait::Waiter(i) => (qp.waiters[i].priority, qp.waiters[i].starved_cnt),
        Iowait::Pio(i) => (qp.pio_waiters[i].priority, qp.pio_waiters[i].starved_cnt),
    }
}

/// Mirrors `iowait_priority_update_top()` (iowait.c): `w` (at `idx` of
/// the harvested array) becomes the top one when its priority, converted
/// into starve counts and added to its `starved_cnt` (a u8 total, as
/// upstream's `cnt`), is greater than the top one's; else `top_idx`
/// stays.
pub fn iowait_priority_update_top(
    qp: &Qp,
    w: Iowait,
    top: Iowait,
    idx: usize,
    top_idx: usize,
) -> usize {
    let total =
        |(p, s): (u8, u8)| ((u32::from(p) << IOWAIT_PRIORITY_STARVE_SHIFT) + u32::from(s)) as u8;
    let cnt = total(priority(qp, w));
    let tcnt = total(priority(qp, top));
    if cnt > tcnt {
        idx
    } else {
        top_idx
    }
}

/// Takes the iowait off its list (`list_del_init(&w->list)`; the lock
/// stays).
pub fn list_del_init(qp: &mut Qp, w: Iowait) {
    match w {
        Iowait::Qp => qp.on_wait_list = false,
        Iowait::Waiter(i) => qp.waiters[i].on_list = false,
        Iowait::Pio(i) => qp.pio_waiters[i].on_list = false,
    }
}
