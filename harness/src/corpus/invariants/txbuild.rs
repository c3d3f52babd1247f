//! The invariants of the tx request a caller builds (the QP's `btx_*`
//! fields) and of the calls that build it.

use crate::model::sdma_build::{built_desc, coalesce_copies, coalesce_room, DATA_BYTES, MAX_DESC};
use crate::model::types::*;

/// `NUM_DESC` (sdma_txreq.h).
const NUM_DESC: u8 = 6;

/// The request as the world builds it: its array its own (`desc_limit`
/// `NUM_DESC`) or an allocated one of `MAX_DESC` (`_extend_sdma_tx_descs()`
/// leaves the limit one short of it, or at it), no more descriptors than
/// its limit (upstream writes `descp[num_desc]` only below it), a
/// coalesce buffer holding the bytes copied, pinning contexts only on
/// descriptors it has, changed descriptors below `max(num_desc, 1)` in
/// order, each unlike the world's; an array `__sdma_txclean()` freed
/// only as it leaves one.
pub(super) fn check_btx(q: &Qp) -> Result<(), String> {
    let limit = q.btx_desc_limit;
    if limit != NUM_DESC && u16::from(limit) != MAX_DESC - 1 && u16::from(limit) != MAX_DESC {
        return Err(format!(
            "qp.btx_desc_limit {limit}: NUM_DESC (6) for its own descriptors, or 63 / 64 for the array _extend_sdma_tx_descs() allocates"
        ));
    }
    if q.btx_num_desc > limit {
        return Err(format!(
            "qp.btx_num_desc {} is past btx_desc_limit {limit} (make_tx_sdma_desc() writes descp[num_desc])",
            q.btx_num_desc
        ));
    }
    if q.btx_mode > 7 {
        return Err(format!(
            "qp.btx_mode {}: a header mode is 3 bits",
            q.btx_mode
        ));
    }
    // __sdma_txclean() leaves no descriptor, its own limit, no buffer.
    if q.btx_descp_freed
        && (q.btx_num_desc != 0 || limit != NUM_DESC || q.btx_coalesce || !q.btx_descs.is_empty())
    {
        return Err("qp.btx_descp_freed: a request __sdma_txclean() left has no descriptor, desc_limit 6 and no coalesce buffer".into());
    }
    if q.btx_coalesce && u32::from(q.btx_coalesce_idx) > q.btx_coal_size {
        return Err(format!(
            "qp.btx_coalesce_idx {} is past btx_coal_size {}: the bytes copied are in the buffer",
            q.btx_coalesce_idx, q.btx_coal_size
        ));
    }
    // _extend_sdma_tx_descs() allocates tlen + 4 (the packet and its pad),
    // and tlen is fixed while the buffer fills.
    if q.btx_coalesce && q.btx_coal_size < u32::from(q.btx_tlen) + 4 {
        return Err(format!(
            "qp.btx_coal_size {} is below btx_tlen + 4 ({}): the buffer holds the packet and its pad",
            q.btx_coal_size,
            u32::from(q.btx_tlen) + 4
        ));
    }
    if q.btx_desc_stray != 0 {
        return Err("qp.btx_desc_stray: 0 in a vector (the world builds the descriptors btx_descs lists, no more)".into());
    }
    let n = u32::from(q.btx_num_desc);
    if n < 64 && q.btx_pinned >> n != 0 {
        return Err(format!(
            "qp.btx_pinned 0x{:x}: pinning contexts only on the request's {n} descriptors",
            q.btx_pinned
        ));
    }
    let mut last: Option<u8> = None;
    for d in q.btx_descs.iter() {
        if u32::from(d.idx) >= n.max(1) || last.is_some_and(|l| d.idx <= l) {
            return Err(format!(
                "qp.btx_descs: descriptor {} is not below max(num_desc, 1) = {} in order",
                d.idx,
                n.max(1)
            ));
        }
        if [d.qw0, d.qw1] == built_desc(q, usize::from(d.idx)) {
            return Err(format!(
                "qp.btx_descs: descriptor {} is the world's own (the read-back lists those unlike it)",
                d.idx
            ));
        }
        last = Some(d.idx);
    }
    Ok(())
}

/// Nothing is added to a request whose array `__sdma_txclean()` freed
/// (its `descp` still points at it). The bytes an add reads lie in the
/// world's data (a page's within its page, as the kernel's `kmap()` maps
/// one), and one that may coalesce (its request's descriptors all used)
/// copies no more than the buffer has room for (`ext_coal_sdma_tx_descs()`
/// copies unchecked).
pub(super) fn check_btx_call(c: &Call) -> Result<(), String> {
    let q = &c.qp;
    let adds = matches!(
        c.func(),
        Func::SdmaTxaddPage | Func::SdmaTxaddKvaddr | Func::SdmaTxaddDaddr
    );
    if adds && q.btx_descp_freed {
        return Err(format!(
            "{}: a request __sdma_txclean() freed the array of is written (descp[num_desc]) until sdma_txinit_ahg()",
            c.func().name()
        ));
    }
    // _sdma_txreq_ahgadd() reads ahg[num_ahg - 1] (the world passes 16) and
    // ORs updates into descs[1 + (num_ahg - 2) / 4] (6 of them).
    if let Args::SdmaTxinitAhg(a) = &c.args {
        if a.num_ahg > 13 {
            return Err(format!(
                "sdma_txinit_ahg: num_ahg {} past 13 reads past the world's 16 AHG values and writes past tx->descs",
                a.num_ahg
            ));
        }
    }
    let (start, len, end) = match &c.args {
        Args::SdmaTxaddPage(a) if a.page > 3 => {
            return Err(format!(
                "sdma_txadd_page: page {} is not one of the world's four",
                a.page
            ));
        }
        Args::SdmaTxaddPage(a) => (usize::from(a.offset), a.len, 4096),
        // NULL: nothing is read (the coalescing path refuses it first).
        Args::SdmaTxaddKvaddr(a) if a.null => return Ok(()),
        Args::SdmaTxaddKvaddr(a) => (usize::from(a.at), a.len, DATA_BYTES),
        _ => return Ok(()),
    };
    if start + usize::from(len) > end {
        return Err(format!(
            "{}: {len} bytes from byte {start} run past the world's {} bytes there",
            c.func().name(),
            end
        ));
    }
    if coalesce_copies(q) && u32::from(len) > coalesce_room(q) {
        return Err(format!(
            "{}: {len} bytes to coalesce into a buffer with {} left (ext_coal_sdma_tx_descs() copies unchecked)",
            c.func().name(),
            coalesce_room(q)
        ));
    }
    Ok(())
}
