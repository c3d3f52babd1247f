//! The send engines' state: what the SDMA engines and PIO send contexts
//! hold that the functions in scope change, declared once
//! ([`engines_schema!`](crate::engines_schema)). Like the QP it is both
//! input and outcome: a call starts from it and the outcome holds it as
//! the call left it, every field read back.

use super::*;
use crate::record;

/// The engines' schema (see [`crate::schema`]), as
/// [`qp_schema!`](crate::qp_schema), each field ending in the object its
/// entries are of: `=> sc`, the world's send context of `sw_index` i;
/// `=> sde`, its engine `per_sdma[i]`. Entries past the world's counts are
/// refused (the C world has no object there).
#[macro_export]
macro_rules! engines_schema {
    ($cb:ident [$($args:tt)*]) => {
        $cb! { [$($args)*]
            /// `sc->flags` (a u16 in `struct send_context`).
            "sc_flags" sc_flags: PerIndex<Flags<ScFlag>, 64> [sc_flags] = PerIndex::new() => sc,
            /// `sc->credit_intr_count`: the users of credit return
            /// interrupts.
            "sc_credit_intr_count" sc_credit_intr_count: PerIndex<u32, 64> [sc_intr_count] = PerIndex::new() => sc,
            /// `sc->credit_ctrl`: the cached `SEND_CTXT_CREDIT_CTRL` CSR.
            "sc_credit_ctrl" sc_credit_ctrl: PerIndex<u64, 64> [sc_credit_ctrl] = PerIndex::new() => sc,
            /// `sde->ahg_bits`: the engine's allocated AHG entries.
            "sde_ahg_bits" sde_ahg_bits: PerIndex<u64, 16> [sde_ahg_bits] = PerIndex::new() => sde,
            /// `sde->state.current_state`.
            "sde_state" sde_state: PerIndex<SdmaState, 16> [sde_state] = PerIndex::new() => sde,
            /// `sde->state`'s bookkeeping of its state machine:
            /// `previous_state`, `current_op` and `previous_op` (the
            /// `SDMA_SENDCTRL_OP_*` bits of the state's action),
            /// `go_s99_running`, `last_event`.
            "sde_previous_state" sde_previous_state: PerIndex<SdmaState, 16> [sde_state] = PerIndex::new() => sde,
            "sde_current_op" sde_current_op: PerIndex<u32, 16> [sde_op] = PerIndex::new() => sde,
            "sde_previous_op" sde_previous_op: PerIndex<u32, 16> [sde_op] = PerIndex::new() => sde,
            "sde_go_s99_running" sde_go_s99_running: PerIndex<u32, 16> [sde_go_running] = PerIndex::new() => sde,
            "sde_last_event" sde_last_event: PerIndex<SdmaEvent, 16> [sde_last_event] = PerIndex::new() => sde,
            /// `sde->state.kref`'s count (the state machine holds one
            /// while started) and `sde->state.comp.done` (completed when
            /// the count reaches 0).
            "sde_kref" sde_kref: PerIndex<u32, 16> [sde_kref] = PerIndex::new() => sde,
            "sde_comp_done" sde_comp_done: PerIndex<u32, 16> [sde_comp_done] = PerIndex::new() => sde,
            /// `sde->p_senddmactrl` (u64): the engine's control CSR as
            /// last written.
            "sde_p_senddmactrl" sde_p_senddmactrl: PerIndex<u64, 16> [sde_senddmactrl] = PerIndex::new() => sde,
            /// `sde->progress_check_head` (u32): the head an error's
            /// progress check compares.
            "sde_progress_check_head" sde_progress_check_head: PerIndex<u32, 16> [sde_check_head] = PerIndex::new() => sde,
            /// `sde->idle_int_cnt`, `progress_int_cnt`, `sdma_int_cnt`
            /// (u64): the engine's interrupts counted by kind.
            "sde_idle_int_cnt" sde_idle_int_cnt: PerIndex<u64, 16> [sde_int_cnt] = PerIndex::new() => sde,
            "sde_progress_int_cnt" sde_progress_int_cnt: PerIndex<u64, 16> [sde_int_cnt] = PerIndex::new() => sde,
            "sde_sdma_int_cnt" sde_sdma_int_cnt: PerIndex<u64, 16> [sde_int_cnt] = PerIndex::new() => sde,
            /// `sde->last_status` (u64): the interrupt status the engine
            /// last made progress on.
            "sde_last_status" sde_last_status: PerIndex<u64, 16> [sde_int_cnt] = PerIndex::new() => sde,
            /// `sde->cpu_mask`: the CPUs whose processes the engine's
            /// sysfs `cpu_list` maps to it (CPUs 0..63).
            "sde_cpu_mask" sde_cpu_mask: PerIndex<CpuMask, 16> [sde_cpu_mask] = PerIndex::new() => sde,
        }
    };
}

engines_schema! {
    record [
        /// The send engines' state the functions in scope change, declared
        /// once in [`engines_schema!`](crate::engines_schema).
        #[derive(Copy)]
        Engines
    ]
}
