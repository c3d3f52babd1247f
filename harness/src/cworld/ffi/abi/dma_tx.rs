//! A tx request of the QP's engine at the ABI, field by field.

use super::super::types::shim_dma_tx;
use super::Abi;
use crate::model::types::DmaTx;

/// `complete` and `qp_wait` cross as 0 or 1; anything else read back (a
/// callback or iowait the world did not give) has no name in the model.
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
            qp_wait: u8::from(self.qp_wait),
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
            qp_wait: flag(c.qp_wait)?,
        })
    }
}
