//! The swqe: the fields the functions in scope read, declared once
//! ([`wqe_schema!`](crate::wqe_schema)), and the address handle it holds.

use super::*;
use crate::record;

/// An address handle (`struct rvt_ah`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ah {
    /// `ah->log_pmtu`: the path MTU is `1 << log_pmtu`.
    pub log_pmtu: u8,
    /// The AH's SL.
    pub sl: Sl,
    /// The AH's port.
    pub port: u8,
}

/// The swqe's schema (see [`crate::schema`]), as [`qp_schema!`](crate::qp_schema).
#[macro_export]
macro_rules! wqe_schema {
    ($cb:ident [$($args:tt)*]) => {
        $cb! { [$($args)*]
            /// `wqe->ud_wr.wr.ah`: the address handle of a datagram send;
            /// `None` is NULL.
            "ah" ah: Option<Ah> [wqe_ah] = None,
            /// `wqe->length`.
            "length" length: u32 [wqe_length] = 0,
            /// `wqe->wr.opcode`.
            "opcode" opcode: WrOpcode = WrOpcode::Send,
            /// `wqe->priv != NULL` (a TID RDMA request's private data).
            "priv" has_priv: bool = false,
        }
    };
}

wqe_schema! {
    record [
        /// The swqe fields the functions in scope read, declared once in
        /// [`wqe_schema!`](crate::wqe_schema).
        #[derive(Copy)]
        Wqe
    ]
}
