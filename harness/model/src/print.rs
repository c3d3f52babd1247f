//! qp.c's debugfs printer.

use super::flags::{qp_state_value, s_flags_value, wr_opcode_value};
use super::qp::{qp_to_sdma_engine, qp_to_send_context};
use super::types::{Qp, QpType, Sc, World};
use super::Journal;
use super::{ptr_name, Undefined};

/// `qp_type_str[]` (qp.c), indexed by `enum ib_qp_type`.
fn qp_type_str(t: QpType) -> &'static str {
    match t {
        QpType::Smi => "SMI",
        QpType::Gsi => "GSI",
        QpType::Rc => "RC",
        QpType::Uc => "UC",
        QpType::Ud => "UD",
    }
}

/// Mirrors the static `qp_idle()` (qp.c): every ring pointer equal.
pub fn qp_idle(qp: &Qp) -> bool {
    qp.s_last == qp.s_acked
        && qp.s_acked == qp.s_cur
        && qp.s_cur == qp.s_tail
        && qp.s_tail == qp.s_head
}

/// Mirrors `qp_iter_print()` (qp.c): one line describing the QP, as
/// `seq_printf` writes it (pointers as the world's symbolic names). `n` is
/// the iterator's position (`iter->n`).
pub fn qp_iter_print(w: &World, qp: &Qp, n: i32, j: &mut Journal) -> Result<String, Undefined> {
    let sde = qp_to_sdma_engine(w, qp, Sc(qp.s_sc), j)?;
    let send_context = qp_to_send_context(w, qp, Sc(qp.s_sc))?;
    let wqe = qp
        .send_queue
        .get(qp.s_last as usize)
        .ok_or_else(|| Undefined(format!("s_wq[{}] is out of the send queue", qp.s_last)))?;
    let e =
        match &qp.ack_queue {
            Some(q) => Some(*q.get(usize::from(qp.s_tail_ack_queue)).ok_or_else(|| {
                Undefined("s_ack_queue[s_tail_ack_queue] is out of bounds".into())
            })?),
            None => None,
        };
    let (sde_name, sde_idx) = ptr_name(sde, "sde", |e| e.0);
    let (sc_name, sc_idx) = ptr_name(send_context, "sc", |s| s.0);
    let max_atomic = u32::from(w.max_rdma_atomic) + u32::from(w.extra_rdma_atomic) + 1;
    let (srq, rq_size) = match qp.srq_size {
        Some(s) => ("SRQ", s as i32),
        None => ("RQ", qp.rq_size as i32),
    };
    let (eo, ep, el) = e.map_or((0, 0, 0), |e| (u32::from(e.opcode), e.psn, e.lpsn));
    Ok(format!(
        "N {} {} QP {:x} R {} {} {} {} f={:x} {} {} {} {} {} {} SPSN {:x} {:x} {:x} {:x} {:x} RPSN {:x} \
         S({} {} {} {} {} {} {}) R({} {} {}) RQP {:x} LID {:x} SL {} MTU {} {} {} {} {} \
         SDE {},{} SC {},{} SCQ {} {} PID {} OS {:x} {:x} E {:x} {:x} {:x} RNR {} {} {}\n",
        n,
        if qp_idle(qp) { "I" } else { "B" },
        qp.num,
        qp.refcount as u32,
        qp_type_str(qp.qp_type),
        qp_state_value(qp.state),
        wr_opcode_value(wqe.opcode),
        s_flags_value(qp.s_flags),
        qp.sdma_busy as u32,
        qp.pio_busy as u32,
        u32::from(qp.on_wait_list),
        qp.timeout,
        wqe.ssn,
        qp.s_lsn,
        qp.s_last_psn,
        qp.s_psn,
        qp.s_next_psn,
        qp.s_sending_psn,
        qp.s_sending_hpsn,
        qp.r_psn,
        qp.s_last,
        qp.s_acked,
        qp.s_cur,
        qp.s_tail,
        qp.s_head,
        qp.s_size,
        qp.s_avail,
        qp.s_tail_ack_queue,
        qp.r_head_ack_queue,
        max_atomic,
        qp.remote_qpn,
        qp.remote_dlid,
        qp.remote_sl,
        qp.pmtu,
        qp.s_retry,
        qp.s_retry_cnt,
        qp.s_rnr_retry_cnt,
        qp.s_rnr_retry,
        sde_name,
        sde_idx,
        sc_name,
        sc_idx,
        qp.cq_head,
        qp.cq_tail,
        qp.pid,
        qp.s_state,
        qp.s_ack_state,
        eo,
        ep,
        el,
        qp.r_min_rnr_timer,
        srq,
        rq_size
    ))
}

// The functions of this module as the model runs them (`crate::Mirror`).

impl crate::Mirror for super::types::args::QpIterPrint {
    fn mirror(&self, cx: &mut crate::Cx<'_>) -> Result<(), Undefined> {
        cx.out.text = qp_iter_print(cx.w, &cx.qp, self.n as i32, &mut cx.j)?;
        Ok(())
    }
}
