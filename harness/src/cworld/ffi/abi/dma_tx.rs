//! A tx request of the QP's engine at the ABI, field by field.

use super::super::types::shim_dma_tx;
use super::Abi;
use crate::model::types::{DmaTx, TxWait};

/// `complete` crosses as 0 or 1, `wait` as 0 (NULL), 1 (the QP's iowait)
/// or 2 (the packet queue's); anything else read back (a callback or
/// iowait the world did not give) has no name in the model.
impl Abi for DmaTx {
    type C = shim_dma_tx;
    fn c_decl(name: &str) -> String {
        format!("struct shim_dma_tx {name}")
    }
    #[inline]
    fn fill(&self, out: &mut shim_dma_tx) {
        *out = shim_dma_tx {
            next_descq_idx: self.next_descq_idx,
            map: self.map,
            id: self.id,
            num_desc: self.num_desc,
            pinned: self.pinned,
            mode: self.mode,
            coalesce: u8::from(self.coalesce),
            ext: u8::from(self.ext),
            complete: u8::from(self.complete),
            wait: match self.wait {
                TxWait::Null => 0,
                TxWait::Qp => 1,
                TxWait::Queue => 2,
            },
        };
    }
    #[inline]
    fn read(c: &shim_dma_tx) -> Option<DmaTx> {
        let flag = |x: u8| (x <= 1).then_some(x == 1);
        Some(DmaTx {
            id: c.id,
            next_descq_idx: c.next_descq_idx,
            num_desc: c.num_desc,
            map: c.map,
            pinned: c.pinned,
            mode: c.mode,
            coalesce: c.coalesce != 0,
            ext: c.ext != 0,
            complete: flag(c.complete)?,
            wait: match c.wait {
                0 => TxWait::Null,
                1 => TxWait::Qp,
                2 => TxWait::Queue,
                _ => return None,
            },
        })
    }
}
