//! The seeded entry points: vector `i` of function `f` in the run seeded
//! `S` ([`seeded_call`]), drawn from a stream seeded by `(S, f, i)` so any
//! vector can be regenerated alone. Vectors come in groups of
//! [`WORLD_RUN`] that share a world, drawn once per group from its own
//! stream; each draw is tried from a prefix of its stream first. When no
//! attempt keeps the invariants the generator gives up on that index
//! ([`seeded_call_into`] says so): the function's simplest call stands in,
//! which need not keep them, and the run's loops skip it.

use super::draw::{Draw, Stream, WyRand};
use super::record::{blank, rest_into, world_for, world_into};
use crate::corpus::invariants::{validate_world, validate_world_for};
use crate::model::types::*;

/// SplitMix64: a small, well-mixed generator, for seeds (a vector's, a
/// world's) drawn from a run's.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// The generator seeded `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The seed of vector `index` of function `func` in a run seeded `seed`.
pub fn vector_seed(seed: u64, func: Func, index: u64) -> u64 {
    let f = u64::from(func.index());
    let mut m = SplitMix64::new(seed ^ (f << 56) ^ index.wrapping_mul(0xD605_BBB5_8C8A_BBB5));
    m.next_u64()
}

/// Bytes enough for one part of a call (its world; its QP, swqe and
/// arguments).
const BYTES: usize = 4096;

/// How many consecutive vectors of a run share a world: vectors
/// `g * WORLD_RUN .. (g + 1) * WORLD_RUN` take their world from the seed of
/// group `g` ([`world_seed`]) and their QP, swqe and arguments each from
/// their own ([`vector_seed`]). Every world field is still drawn from its
/// whole domain, once per group; drawing it (the larger part of a
/// vector's generation) once per group rather than once per vector is
/// what lets generation keep up with the check (ARCHITECTURE.md,
/// "Generated vectors share a world").
pub const WORLD_RUN: u64 = 8;

/// The seed of the world of group `group` (vectors `group * WORLD_RUN..`)
/// of function `func` in a run seeded `seed`: a stream apart from every
/// vector's own.
pub fn world_seed(seed: u64, func: Func, group: u64) -> u64 {
    SplitMix64::new(vector_seed(seed, func, group) ^ 0x776f_726c_6421_0000).next_u64()
}

/// Vector `index` of `func` in the run seeded `seed`: deterministic.
pub fn seeded_call(seed: u64, func: Func, index: u64) -> Call {
    let mut c = blank(func);
    let _ = seeded_call_into(seed, func, index, &mut c);
    c
}

/// Which world: (seed, function, group).
type WorldKey = (u64, Func, u64);

/// The world a generated call holds, as [`seeded_call_into`] names it:
/// calls with equal ids hold equal worlds (the flat-call buffer of the
/// worker's loops writes a world only when its id changes,
/// `cworld::call::Flat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorldId(WorldKey);

thread_local! {
    /// The world last drawn on this thread, by (seed, function, group):
    /// consecutive vectors of a group copy it instead of drawing it again.
    /// Only ever holds what [`seeded_world_into`] gives for its key, so a
    /// vector is the same whichever vectors came before it (tested).
    static LAST_WORLD: std::cell::RefCell<Option<(WorldKey, World, bool)>> =
        const { std::cell::RefCell::new(None) };
}

/// [`seeded_call`] into `c`, reusing its allocations (the worker's loops
/// draw millions): every field of `c` is written. Returns the id of the
/// world now in `c`, or `None` when no draw kept the invariants and `c` is
/// the function's simplest call.
pub fn seeded_call_into(seed: u64, func: Func, index: u64, c: &mut Call) -> Option<WorldId> {
    let key = (seed, func, index / WORLD_RUN);
    let cached = LAST_WORLD.with_borrow(|last| match last {
        Some((k, w, ok)) if *k == key => {
            c.world = *w;
            Some(*ok)
        }
        _ => None,
    });
    let world_ok = cached.unwrap_or_else(|| {
        let ok = seeded_world_into(seed, func, key.2, &mut c.world);
        LAST_WORLD.with_borrow_mut(|last| *last = Some((key, c.world, ok)));
        ok
    });
    if !world_ok || !seeded_rest_into(seed, func, index, c) {
        *c = fallback(func);
        return None;
    }
    Some(WorldId(key))
}

/// Up to 16 attempts at a draw from consecutive `BYTES`-byte blocks of
/// `rng`'s stream, each from a `PREFIX`-byte buffer (or, when the draw
/// used all of it, from the whole block read as a stream), then one from
/// zeros: `$draw(u)` draws and says whether the result keeps the
/// invariants. Whether any attempt did.
macro_rules! attempts {
    ($rng:expr, $prefix:expr, |$u:ident| $draw:expr) => {{
        let mut rng: WyRand = $rng;
        let mut prefix = [0u8; $prefix];
        let mut ok = false;
        for _ in 0..16 {
            let start = rng.clone();
            rng.fill(&mut prefix);
            let mut d = Draw::new(&prefix);
            ok = {
                let $u = &mut d;
                $draw
            };
            if d.is_empty() {
                let mut d = Draw::stream(Stream::new(start.clone(), BYTES));
                ok = {
                    let $u = &mut d;
                    $draw
                };
            }
            rng = start;
            rng.skip((BYTES / 8) as u64);
            if ok {
                break;
            }
        }
        if !ok {
            let zero = [0u8; BYTES];
            let mut d = Draw::new(&zero);
            ok = {
                let $u = &mut d;
                $draw
            };
        }
        ok
    }};
}

/// The world of group `group` of `func`'s vectors in the run seeded `seed`
/// (see [`WORLD_RUN`]); whether a draw kept the invariants (else the
/// simplest call's world stands in, which need not).
pub fn seeded_world_into(seed: u64, func: Func, group: u64, w: &mut World) -> bool {
    let rng = WyRand::new(world_seed(seed, func, group));
    // The prefix is sized to hold a world's draw but now and then (its
    // maps take the most); a draw that uses all of it is made again from
    // the stream.
    if !attempts!(rng, 1024, |u| {
        world_into(u, w);
        world_for(func, u, w);
        validate_world(w).is_ok() && validate_world_for(func, w).is_ok()
    }) {
        *w = fallback(func).world;
        return false;
    }
    true
}

/// Vector `index`'s QP, swqe and arguments, drawn into `c` given its
/// world; whether they keep the invariants.
fn seeded_rest_into(seed: u64, func: Func, index: u64, c: &mut Call) -> bool {
    let rng = WyRand::new(vector_seed(seed, func, index));
    // The prefix is sized to hold the QP, swqe and arguments of every
    // function, a walk of eight QPs (hfi1_error_port_qps) included; a draw
    // that uses all of it is made again from the stream.
    attempts!(rng, 448, |u| rest_into(func, u, c).is_ok())
}

/// The simplest call of `func` (all-zero choices), for when no draw works.
fn fallback(func: Func) -> Call {
    let zero = [0u8; BYTES];
    let mut c = blank(func);
    world_into(&mut Draw::new(&zero), &mut c.world);
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::invariants::validate;
    use crate::generate::call;

    #[test]
    fn the_same_seed_gives_the_same_vector() {
        for f in Func::ALL {
            assert_eq!(seeded_call(7, *f, 3), seeded_call(7, *f, 3));
        }
        assert_ne!(
            seeded_call(7, Func::SetupWqe, 3),
            seeded_call(8, Func::SetupWqe, 3)
        );
    }

    /// Drawing from a prefix of the byte stream gives, vector for vector,
    /// what drawing from the whole buffer gives, and a group's world is
    /// drawn from its own stream. The reference is the straightforward
    /// algorithm: no prefix, no world kept from the vector before.
    #[test]
    fn the_prefix_draw_is_the_whole_buffer_draw() {
        let reference = |seed, func, index: u64| {
            let mut c = blank(func);
            let mut rng = WyRand::new(world_seed(seed, func, index / WORLD_RUN));
            let mut buf = [0u8; BYTES];
            let world_ok = (0..16).any(|_| {
                rng.fill(&mut buf);
                let mut d = Draw::new(&buf);
                world_into(&mut d, &mut c.world);
                world_for(func, &mut d, &mut c.world);
                validate_world(&c.world).is_ok() && validate_world_for(func, &c.world).is_ok()
            }) || {
                let mut d = Draw::new(&[0u8; BYTES]);
                world_into(&mut d, &mut c.world);
                world_for(func, &mut d, &mut c.world);
                validate_world(&c.world).is_ok() && validate_world_for(func, &c.world).is_ok()
            };
            if !world_ok {
                c.world = fallback(func).world;
            }
            let mut rng = WyRand::new(vector_seed(seed, func, index));
            for _ in 0..16 {
                rng.fill(&mut buf);
                if rest_into(func, &mut Draw::new(&buf), &mut c).is_ok() {
                    return c;
                }
            }
            if rest_into(func, &mut Draw::new(&[0u8; BYTES]), &mut c).is_ok() {
                return c;
            }
            fallback(func)
        };
        for f in Func::ALL {
            for i in 0..300 {
                assert_eq!(seeded_call(5, *f, i), reference(5, *f, i), "{f} #{i}");
            }
        }
    }

    /// The world kept from one vector to the next is invisible: a vector
    /// drawn after any other (another function's, another group's, another
    /// seed's, its own group's) is the vector drawn alone.
    #[test]
    fn a_vector_does_not_depend_on_the_one_before() {
        let alone: Vec<Call> = (0..40).map(|i| seeded_call(3, Func::SetupWqe, i)).collect();
        let mut c = blank(Func::SetupWqe);
        let mut other = blank(Func::ModifyQp);
        for i in (0..40u64).rev() {
            seeded_call_into(3, Func::ModifyQp, i, &mut other);
            seeded_call_into(4, Func::SetupWqe, i, &mut c);
            seeded_call_into(3, Func::SetupWqe, i, &mut c);
            assert_eq!(c, alone[i as usize], "#{i} after other draws");
        }
        // Vectors of a group share their world, and groups differ.
        assert!(alone[..WORLD_RUN as usize]
            .windows(2)
            .all(|v| v[0].world == v[1].world && v[0] != v[1]));
        assert_ne!(alone[0].world, alone[WORLD_RUN as usize].world);
    }

    #[test]
    fn generated_vectors_keep_the_invariants() {
        // A call that steps every engine needs a world of at most 8 (a
        // record's entries); worlds are shared by all functions and have
        // up to 16: about half of its first draws are drawn again.
        let (mut direct, mut every, mut every_direct) = (0, 0, 0);
        for f in Func::ALL {
            for i in 0..200 {
                let c = seeded_call(1, *f, i);
                assert_eq!(c.func(), *f);
                assert_eq!(validate(&c), Ok(()), "{f} #{i}");
                let mut rng = WyRand::new(vector_seed(1, *f, i));
                let mut buf = [0u8; BYTES];
                rng.fill(&mut buf);
                let ok = usize::from(call(*f, &mut Draw::new(&buf)).is_ok());
                if f.drives_every_engine() {
                    (every, every_direct) = (every + 1, every_direct + ok);
                } else {
                    direct += ok;
                }
            }
        }
        // The generator draws inside the invariants: first draws almost
        // always validate.
        let others = Func::ALL.len() * 200 - every;
        assert!(direct > others * 9 / 10, "{direct} of {others}");
        assert!(every_direct > every * 3 / 10, "{every_direct} of {every}");
    }
}
