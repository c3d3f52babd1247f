//! What the boundary answers a call, drawn with the world: allocations
//! that fail (the kernel's failslab), work already queued or pending, the
//! chip's capability bits.

use super::super::draw::{Draw, Source};
use crate::model::types::*;

/// The work was not queued already, three times in four.
pub fn queue_work_ret<S: Source>(u: &mut Draw<S>, _: &World) -> bool {
    u.ratio(3, 4)
}

/// The work was pending one time in four.
pub fn cancel_work_ret<S: Source>(u: &mut Draw<S>, _: &World) -> bool {
    u.ratio(1, 4)
}

/// One of `hfi1_cap_mask`'s SDMA head bits: set one time in four.
pub fn cap_bit<S: Source>(u: &mut Draw<S>, _: &World) -> bool {
    u.ratio(1, 4)
}

/// No allocation fails, three times in four; otherwise, as often, the
/// first, the second or both (the error paths most calls have), or the
/// N-th alone of the 64 failslab names, N of any a call reaches (a small
/// N likelier: most calls make few allocations, a probe makes dozens).
pub fn alloc_fail<S: Source>(u: &mut Draw<S>, _: &World) -> u64 {
    if u.ratio(3, 4) {
        0
    } else if u.ratio(1, 2) {
        u.int_in_range(1..=3)
    } else {
        let most: u32 = u.int_in_range(2..=63);
        1u64 << u.int_in_range(0..=most)
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::draw::{Stream, WyRand};
    use super::*;

    /// failslab's sweep is the gate's; generated vectors reach every N a
    /// call may make too, the first two most often, and three worlds in
    /// four fail nothing.
    #[test]
    fn alloc_fail_reaches_each_of_the_64_allocations() {
        let w = World::blank();
        let mut u = Draw::stream(Stream::new(WyRand::new(1), usize::MAX));
        let (mut none, mut low, mut seen) = (0u32, 0u32, 0u64);
        let draws = 1_000_000;
        for _ in 0..draws {
            match alloc_fail(&mut u, &w) {
                0 => none += 1,
                m @ 1..=3 => {
                    low += 1;
                    seen |= m;
                }
                m => {
                    assert_eq!(m.count_ones(), 1, "{m:#x}: one allocation fails alone");
                    seen |= m;
                }
            }
        }
        assert_eq!(seen, u64::MAX, "allocations never failed: {:#x}", !seen);
        assert!(
            (740_000..760_000).contains(&none),
            "{none} of {draws} fail nothing"
        );
        // One in eight, and the N-th alone where N is the first or second.
        assert!(
            (130_000..150_000).contains(&low),
            "{low} of {draws} fail the first or second"
        );
    }
}
