//! A call drawn field by field from its records' schemas: each field from
//! its rule (`generate::rules`), its range, or its type's own domain
//! ([`Drawn`]), in the schema's order, and the whole kept to the
//! invariants ([`Rejected`] when a draw breaks one).

use super::draw::{Draw, Source};
use super::rules;
use super::shapes::{flags, pick};
use crate::corpus::invariants::{validate_call, validate_world};
use crate::model::types::*;

/// A generated call that breaks an invariant of `corpus::invariants::validate` (the
/// draw is made again from the next bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rejected;

/// A type's own domain, drawn for a schema field without `[draw]`.
trait Drawn {
    fn drawn<S: Source>(u: &mut Draw<S>) -> Self;
}

macro_rules! drawn_arbitrary {
    ($($t:ty),*) => {$(
        impl Drawn for $t {
            #[inline]
            fn drawn<S: Source>(u: &mut Draw<S>) -> Self {
                u.arbitrary()
            }
        }
    )*};
}
drawn_arbitrary!(u8, u16, u32, i8, i32, u64, bool);

macro_rules! drawn_symbols {
    ($($t:ty),*) => {$(
        impl Drawn for $t {
            #[inline]
            fn drawn<S: Source>(u: &mut Draw<S>) -> Self {
                pick(u, <$t>::ALL)
            }
        }
    )*};
}
drawn_symbols!(QpType, QpState, MigState, WrOpcode, Leg, PioCb);

impl<T: Symbol> Drawn for Flags<T> {
    #[inline]
    fn drawn<S: Source>(u: &mut Draw<S>) -> Self {
        flags(u)
    }
}

/// NULL or not, one time in two.
impl<T: Drawn> Drawn for Option<T> {
    #[inline]
    fn drawn<S: Source>(u: &mut Draw<S>) -> Self {
        if u.arbitrary() {
            Some(T::drawn(u))
        } else {
            None
        }
    }
}

impl<T: Drawn, const N: usize> Drawn for [T; N] {
    #[inline]
    fn drawn<S: Source>(u: &mut Draw<S>) -> Self {
        std::array::from_fn(|_| T::drawn(u))
    }
}

impl Drawn for AckEntry {
    #[inline]
    fn drawn<S: Source>(u: &mut Draw<S>) -> Self {
        AckEntry {
            opcode: u.arbitrary(),
            psn: u.arbitrary(),
            lpsn: u.arbitrary(),
        }
    }
}

impl Drawn for SendQueueEntry {
    #[inline]
    fn drawn<S: Source>(u: &mut Draw<S>) -> Self {
        SendQueueEntry {
            opcode: pick(u, WrOpcode::ALL),
            ssn: u.arbitrary(),
        }
    }
}

/// One field drawn: its `[draw]` rule (given the context and the record
/// so far) or range, or its type's domain.
macro_rules! draw_field {
    ($u:ident, ($($cx:ident),*), $r:ident, $t:ty) => {
        <$t as Drawn>::drawn($u)
    };
    ($u:ident, ($($cx:ident),*), $r:ident, $t:ty, $rule:ident) => {
        rules::$rule($u, $($cx,)* &*$r)
    };
    ($u:ident, ($($cx:ident),*), $r:ident, $t:ty, $($range:tt)*) => {
        $u.int_in_range($($range)*)
    };
}

/// From a record's schema: the record within the invariants, every field
/// drawn in the schema's order into `r` (`fn NAME(u, context..., r)`;
/// the context's names again, as one group, for the rules).
macro_rules! record_draw {
    ([$name:ident ($($cx:ident : $cxt:ty),*) $ctx:tt $r:ident : $ty:ty]
     $( $(#[doc = $doc:literal])* $key:literal $f:ident : $t:ty $([$($rule:tt)*])?
        = $d:expr $(=> $c:ident)? , )*) => {
        pub(crate) fn $name<S: Source>(u: &mut Draw<S>, $($cx: $cxt,)* $r: &mut $ty) {
            $( $r.$f = draw_field!(u, $ctx, $r, $t $(, $($rule)*)?); )*
        }
    };
}
crate::model::world_schema!(record_draw [world_into () () w: World]);
crate::model::qp_schema!(record_draw [qp_into (w: &World, func: Func) (w, func) q: Qp]);
crate::model::wqe_schema!(record_draw [wqe_into (w: &World, q: &Qp) (w, q) wq: Wqe]);
crate::model::engines_schema!(record_draw [engines_into (w: &World) (w) e: Engines]);

/// From the call schema: each function's arguments drawn within the
/// invariants (a module per function), in the schema's order, given the
/// world and the QP the call reaches.
macro_rules! args_draw {
    ([] $( $(#[doc = $doc:literal])* $v:ident $c:ident { $($fields:tt)* } )*) => {
        $(
            #[allow(non_snake_case, unused_imports, unused_variables)]
            mod $v {
                use super::*;
                record_draw! { [draw (w: &World, q: &Qp) (w, q) a: args::$v] $($fields)* }
            }
        )*

        /// `f`'s arguments into `a`.
        fn args_into<S: Source>(u: &mut Draw<S>, w: &World, q: &Qp, f: Func, a: &mut Args) {
            match f {
                $( Func::$v => {
                    let mut x = args::$v::blank();
                    $v::draw(u, w, q, &mut x);
                    *a = Args::$v(x);
                } )*
            }
        }
    };
}
crate::model::call_schema!(args_draw []);

/// A call of `func` to draw into ([`call_into`], `seeded_call_into`):
/// every field is written by the draw.
pub fn blank(func: Func) -> Call {
    Call::new(
        func,
        World::blank(),
        Qp::new(QpType::Rc, 0, 1, 4096, QpState::Rts),
        Wqe {
            length: 0,
            opcode: WrOpcode::Send,
            has_priv: false,
            ah: None,
        },
    )
}

/// One call of `func` within the invariants (or [`Rejected`] when the
/// draw breaks one).
pub fn call<S: Source>(func: Func, u: &mut Draw<S>) -> Result<Call, Rejected> {
    let mut c = blank(func);
    call_into(func, u, &mut c)?;
    Ok(c)
}

/// [`call`] into `c` in place, reusing its allocations; the
/// destructuring names every field, so none keeps a value of the previous
/// call.
pub fn call_into<S: Source>(func: Func, u: &mut Draw<S>, c: &mut Call) -> Result<(), Rejected> {
    world_into(u, &mut c.world);
    world_for(func, u, &mut c.world);
    validate_world(&c.world).map_err(|_| Rejected)?;
    rest_into(func, u, c)
}

/// What `func`'s world must be that the schema's draw seldom gives:
/// `init_pervl_scs`'s is a device at probe ([`rules::probe_world`]).
pub(super) fn world_for<S: Source>(func: Func, u: &mut Draw<S>, w: &mut World) {
    if func == Func::InitPervlScs {
        rules::probe_world(u, w);
    }
}

/// A call's QP, swqe, engines' state and arguments, drawn into `c` given its world (one
/// that keeps [`validate_world`]); the destructuring names every field
/// but the world, so none keeps a value of the previous call.
pub(super) fn rest_into<S: Source>(
    func: Func,
    u: &mut Draw<S>,
    c: &mut Call,
) -> Result<(), Rejected> {
    let Call {
        args,
        world: w,
        qp: q,
        wqe: wq,
        engines: e,
    } = c;
    qp_into(u, w, func, q);
    wqe_into(u, w, q, wq);
    engines_into(u, w, e);
    args_into(u, w, q, func, args);
    validate_call(c).map_err(|_| Rejected)
}
