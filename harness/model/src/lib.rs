//! hfi1-model: an independent Rust model of the upstream functions in
//! scope, and the vocabulary the harness judges any implementation in
//! (calls, worlds, outcomes, [`Implementation`]).
//!
//! This crate has no FFI and no dependency on the harness: the crate graph
//! states the layering (the harness depends on it, never the reverse).
//!
//! Written from reading the C (qp.c, sdma.c, pio.c, hfi.h, tid_rdma.h of
//! Linux 6.1 to 7.2), function by function; each function's doc comment
//! names the upstream function it mirrors. No FFI: the model sees only
//! [`types`], never a kernel struct.
//!
//! Where the C would read out of bounds the model returns
//! [`Undefined`]: the vector broke one of the world's invariants
//! (the harness's `vector::validate`), and there is no defined behaviour to
//! mirror.

pub mod flags;
pub mod hfi;
pub mod iter;
pub mod lifecycle;
pub mod modify;
pub mod mtu;
pub mod outcome;
pub mod pio;
pub mod print;
pub mod qp;
pub mod sched;
pub mod schema;
pub mod sdma;
pub mod tid_rdma;
pub mod types;

use crate::outcome::Outcome;
use types::{Args, Call, Leg, Ptr, SFlag};

/// An implementation of the driver's QP logic the harness judges against
/// upstream C: the project's model ([`Model`]) is one; a Rust port of the
/// driver is another (README: "Judging your own Rust port").
pub trait Implementation: Send + Sync {
    /// A short name for reports.
    fn name(&self) -> &str;
    /// What it does for `call` (every effect the outcome records), or
    /// [`Undefined`] when upstream's behaviour is undefined for the input.
    fn run(&self, call: &Call) -> Result<Outcome, Undefined>;
}

/// The project's model as an [`Implementation`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Model;

impl Implementation for Model {
    fn name(&self) -> &str {
        "the Rust model"
    }

    fn run(&self, call: &Call) -> Result<Outcome, Undefined> {
        run(call)
    }
}

/// Upstream behaviour is undefined for this input (named in the message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undefined(pub String);

/// What the model records of boundary calls, in the C journal's words.
#[derive(Debug, Default)]
pub struct Journal(pub Vec<String>);

impl Journal {
    pub fn record(&mut self, line: String) {
        self.0.push(line);
    }

    /// A tracepoint hit, as the C world journals it (kcompat
    /// linux/tracepoint.h): `trace NAME(arg, arg)`, pointers by their
    /// world names, integers in hex (`0x{:x}`); one allocation.
    pub fn trace(&mut self, name: &str, args: std::fmt::Arguments<'_>) {
        self.0.push(format!("trace {name}({args})"));
    }
}

/// The symbolic name the C world gives a QP pointer (`shim_ptr_name`).
pub fn qp_name(qp: &types::Qp) -> String {
    format!("qp#0x{:x}", qp.num)
}

/// The name the C world prints for a pointer to an engine or send context
/// (`shim_ptr_name`: `%p` in seq_printf, the path descriptions), and the
/// index `sde->this_idx` / `sc->sw_index` reads (0 when NULL).
pub fn ptr_name<T: Copy>(p: Ptr<T>, prefix: &str, idx: impl Fn(T) -> u8) -> (String, u32) {
    match p {
        Ptr::To(t) => (format!("{prefix}#{}", idx(t)), u32::from(idx(t))),
        Ptr::Null => ("(null)".into(), 0),
        Ptr::Foreign => ("ptr:foreign".into(), 0),
    }
}

/// Runs one call in the model.
pub fn run(call: &Call) -> Result<Outcome, Undefined> {
    let mut out = Outcome::new();
    let mut j = Journal::default();
    let w = &call.world;
    // Copied only by the functions that change the QP.
    let mut qp = std::borrow::Cow::Borrowed(&call.qp);
    match &call.args {
        Args::SetupWqe(a) => {
            let mut call_send = a.call_send;
            out.ret = qp::hfi1_setup_wqe(w, &qp, &call.wqe, &mut call_send, &mut j)?;
            out.call_send = call_send;
        }
        Args::QpToSdmaEngine(a) => {
            out.sdma_engine = qp::qp_to_sdma_engine(w, &qp, a.sc5, &mut j)?;
        }
        Args::QpToSendContext(a) => {
            out.send_context = qp::qp_to_send_context(w, &qp, a.sc5)?;
        }
        Args::SdmaSelectEngineSc(a) => {
            out.sdma_engine = sdma::sdma_select_engine_sc(w, a.selector, a.sc5, &mut j)?;
        }
        Args::SdmaSelectEngineVl(a) => {
            out.sdma_engine = sdma::sdma_select_engine_vl(w, a.selector, a.vl, &mut j)?;
        }
        Args::PioSelectSendContextSc(a) => {
            out.send_context = pio::pio_select_send_context_sc(w, a.selector, a.sc5)?;
        }
        Args::PioSelectSendContextVl(a) => {
            out.send_context = pio::pio_select_send_context_vl(w, a.selector, a.vl)?;
        }
        Args::HfiScheduleSendNoCheck(_) => {
            out.ret = i32::from(sched::hfi1_schedule_send_nocheck(w, &qp, &mut j)?);
        }
        Args::HfiScheduleSend(_) => {
            out.ret = i32::from(sched::hfi1_schedule_send(w, qp.to_mut(), &mut j)?);
        }
        Args::QpIterPrint(a) => {
            out.text = print::qp_iter_print(w, &qp, a.n as i32, &mut j)?;
        }
        Args::ErrorPortQps(a) => {
            // hfi1_error_port_qps(ibp, u8 sl)
            iter::hfi1_error_port_qps(w, a.sl as u8, &a.iter, &mut j)?;
        }
        Args::QpUnbusy(a) => sched::hfi1_qp_unbusy(qp.to_mut(), a.leg == Leg::Tid, &mut j),
        Args::QpWakeup(a) => {
            let flags: Vec<SFlag> = a.flags.iter().copied().collect();
            sched::hfi1_qp_wakeup(w, qp.to_mut(), &flags, &mut j)?
        }
        Args::NotifyErrorQp(_) => {
            if let Some(t) = sched::notify_error_qp(qp.to_mut(), &mut j) {
                out.text = t;
            }
        }
        Args::MtuToPathMtu(a) => out.ret = mtu::mtu_to_path_mtu(a.mtu),
        Args::MtuFromQp(a) => out.ret = mtu::mtu_from_qp(w, &qp, a.pmtu)? as i32,
        Args::GetPmtuFromAttr(a) => out.ret = mtu::get_pmtu_from_attr(w, &qp, a.path_mtu)?,
        Args::CheckModifyQp(a) => {
            out.ret = qp::hfi1_check_modify_qp(w, &qp, &[a.attr_ah, a.attr_alt_ah], &mut j)?
        }
        Args::ModifyQp(a) => {
            let st = modify::hfi1_modify_qp(
                w,
                qp.to_mut(),
                a.attr_av,
                a.attr_alt_path,
                a.path_mig_state,
                &mut j,
            )?;
            out.text = st.describe(&qp);
        }
        Args::MigrateQp(_) => {
            let st = modify::hfi1_migrate_qp(w, qp.to_mut(), &mut j)?;
            out.text = st.describe(&qp);
        }
        Args::QpPrivAlloc(_) => {
            let (ret, text) = lifecycle::qp_priv_alloc(w, &qp, &mut j);
            out.ret = ret;
            out.text = text;
        }
        Args::QpPrivFree(_) => lifecycle::qp_priv_free(&qp, &mut j),
        Args::FreeAllQps(_) => out.ret = lifecycle::free_all_qps(w),
        Args::FlushQpWaiters(_) => lifecycle::flush_qp_waiters(qp.to_mut(), &mut j),
        Args::StopSendQueue(_) => lifecycle::stop_send_queue(w, qp.to_mut(), &mut j),
        Args::QuiesceQp(_) => lifecycle::quiesce_qp(qp.to_mut(), &mut j)?,
        Args::NotifyQpReset(_) => out.text = lifecycle::notify_qp_reset(qp.to_mut(), &mut j),
        Args::PostParms(a) => out.text = lifecycle::hfi1_post_parms(a.opcode),
        Args::IowaitWakeup(a) => sched::iowait_wakeup(w, qp.to_mut(), a.reason, &mut j)?,
        Args::IowaitSdmaDrained(_) => sched::iowait_sdma_drained(w, qp.to_mut(), &mut j)?,
        Args::InitPriority(_) => {
            // The shim zeroes the priority first, as iowait_init_priority().
            out.ret = sched::hfi1_init_priority(&qp);
            qp.to_mut().iowait_priority = out.ret as u8;
        }
        Args::IowaitSleep(a) => {
            out.ret = sched::iowait_sleep(
                qp.to_mut(),
                a.leg == Leg::Tid,
                a.seq,
                a.pkts_sent,
                a.num_desc,
                &mut j,
            )
        }
    }
    out.qp = qp.into_owned();
    out.journal = j.0;
    Ok(out)
}

/// Looks up `v[i]`, or says which read upstream would make out of bounds.
pub(crate) fn at<'a, T>(v: &'a [T], i: usize, what: &str) -> Result<&'a T, Undefined> {
    v.get(i).ok_or_else(|| {
        Undefined(format!(
            "{what}[{i}] is out of bounds ({} entries)",
            v.len()
        ))
    })
}

pub(crate) fn null_or<T>(p: Option<T>) -> Ptr<T> {
    match p {
        Some(t) => Ptr::To(t),
        None => Ptr::Null,
    }
}
