//! The failslab sweep of a corpus vector (the kernel's fault injection:
//! the N-th allocation of a call fails), which C against C runs besides
//! each vector that fails nothing itself.

use super::{CallOrigin, Seen};
use crate::corpus::Vector;
use crate::model::types::Call;

/// The allocations failslab counts, by their journal lines: the
/// kmalloc family's, `alloc_percpu`'s and `dma_alloc_coherent`'s
/// (c-shim/mocks/alloc.c; the rhashtable's bucket table is not counted).
const FAILSLAB_COUNTED: [&str; 3] = ["kmalloc(", "alloc_percpu(", "dma_alloc_coherent("];

/// The failslab sweep of corpus vector `v` (the kernel's fault injection:
/// the N-th allocation of a call fails): one variant per allocation
/// either side's call made (up to the 64 `world.alloc_fail` names), that
/// allocation failing alone; none when the vector chooses its failures
/// itself.
pub(super) fn failing_each_allocation(v: &Vector, x: &Seen, y: &Seen) -> Vec<(CallOrigin, Call)> {
    let allocations = |s: &Seen| match s {
        Seen::Done(o) => o
            .journal
            .iter()
            .filter(|l| FAILSLAB_COUNTED.iter().any(|p| l.starts_with(p)))
            .count(),
        _ => 0,
    };
    if v.call.world.alloc_fail != 0 {
        return vec![];
    }
    let n = allocations(x).max(allocations(y)).min(64) as u32;
    (0..n)
        .map(|k| {
            let mut c = v.call.clone();
            c.world.alloc_fail = 1 << k;
            let origin = CallOrigin::Failslab {
                id: v.id(),
                n: k + 1,
            };
            (origin, c)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::types::Func;
    use crate::outcome::Outcome;

    /// The sweep fails each allocation failslab counts, alone: the
    /// kmalloc family's, alloc_percpu's and dma_alloc_coherent's (the
    /// larger count of the two sides), up to the 64 a world names.
    #[test]
    fn the_failslab_sweep_fails_each_counted_allocation_alone() {
        let mut v = Vector {
            family: "f".into(),
            name: "n".into(),
            branch: String::new(),
            file: std::path::PathBuf::from("f.toml"),
            line: 1,
            call: crate::generate::seeded_call(1, Func::ScAlloc, 0),
            then: vec![],
        };
        v.call.world.alloc_fail = 0;
        let seen = |lines: &[&str]| {
            let mut o = Outcome::new();
            o.journal = lines.iter().map(|l| l.to_string()).collect();
            Seen::Done(Box::new(o))
        };
        let x = seen(&[
            "kmalloc(node=0)",
            "alloc_percpu()",
            "write_csr(X, 0x1)",
            "kmalloc(node=0)",
        ]);
        let y = seen(&["dma_alloc_coherent(node=0, 64)"]);
        let swept: Vec<u64> = failing_each_allocation(&v, &x, &y)
            .iter()
            .map(|(_, c)| c.world.alloc_fail)
            .collect();
        assert_eq!(swept, [1, 2, 4]);
        let many: Vec<String> = (0..70).map(|_| "kmalloc(node=-1)".to_string()).collect();
        let many = seen(&many.iter().map(String::as_str).collect::<Vec<_>>());
        let swept = failing_each_allocation(&v, &many, &Seen::Malformed);
        assert_eq!(swept.len(), 64);
        assert_eq!(swept[63].1.world.alloc_fail, 1 << 63);
        // A vector that chooses its failures is not swept.
        v.call.world.alloc_fail = 2;
        assert!(failing_each_allocation(&v, &x, &y).is_empty());
    }
}
