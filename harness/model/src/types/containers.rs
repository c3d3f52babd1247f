//! The small containers the records are built of: flag sets ([`Flags`]),
//! tables of fixed capacity ([`Slots`]), map pointer slots
//! ([`NullableIdx`]), engine maps ([`VlMap`]), CPU masks and returned
//! pointers ([`Ptr`]). Each is plain data of fixed size, so a record that
//! holds them stays `Copy`.

use std::fmt;

use super::{Symbol, TableIdx};

/// A set of flags of one kind, as a bitset over their indices (cheap to
/// copy, compare and hash; the model clones QPs on every call).
pub struct Flags<T> {
    bits: u32,
    _kind: std::marker::PhantomData<T>,
}

impl<T> Clone for Flags<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Flags<T> {}
impl<T> PartialEq for Flags<T> {
    fn eq(&self, o: &Self) -> bool {
        self.bits == o.bits
    }
}
impl<T> Eq for Flags<T> {}
impl<T> std::hash::Hash for Flags<T> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.bits.hash(h)
    }
}
impl<T> Default for Flags<T> {
    fn default() -> Self {
        Flags::from_bits(0)
    }
}

impl<T> Flags<T> {
    /// The set whose bit `i` is the flag of index `i`.
    pub const fn from_bits(bits: u32) -> Self {
        Flags {
            bits,
            _kind: std::marker::PhantomData,
        }
    }

    /// Bit `i` set for the flag of index `i`.
    pub fn bits(self) -> u32 {
        self.bits
    }

    /// Whether no flag is set.
    pub fn is_empty(self) -> bool {
        self.bits == 0
    }

    /// Clears every flag.
    pub fn clear(&mut self) {
        self.bits = 0;
    }
}

impl<T: Symbol> Flags<T> {
    /// The set of `fs`.
    pub fn of(fs: &[T]) -> Self {
        Flags::from_bits(fs.iter().fold(0, |a, f| a | (1 << f.index())))
    }

    /// Whether `f` is set.
    pub fn contains(&self, f: &T) -> bool {
        self.bits & (1 << f.index()) != 0
    }

    /// Sets `f`.
    pub fn insert(&mut self, f: T) {
        self.bits |= 1 << f.index();
    }

    /// Clears every flag of `fs`.
    pub fn remove_all(&mut self, fs: &[T]) {
        self.bits &= !Flags::of(fs).bits;
    }

    /// Whether any flag of `fs` is set.
    pub fn any_of(&self, fs: &[T]) -> bool {
        self.bits & Flags::of(fs).bits != 0
    }

    /// The flags set, in the kernel's order.
    pub fn iter(&self) -> impl Iterator<Item = &'static T> + '_ {
        T::ALL.iter().filter(move |f| self.contains(f))
    }
}

impl<T: Symbol> fmt::Debug for Flags<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.iter().map(|x| x.name()))
            .finish()
    }
}

impl<T: Symbol> From<Vec<T>> for Flags<T> {
    fn from(v: Vec<T>) -> Self {
        Flags::of(&v)
    }
}

/// A pointer slot of a map element (`e->sde[i]`, `e->ksc[i]`): an index,
/// or NULL. One byte, `0xff` for NULL (the shim's `SHIM_NONE` as a byte),
/// so a whole element crosses to the shim as a 16-byte copy; index 255
/// cannot be written (no world has 255 engines or send contexts).
#[derive(PartialEq, Eq, Hash)]
pub struct NullableIdx<T> {
    raw: u8,
    _kind: std::marker::PhantomData<T>,
}

impl<T> NullableIdx<T> {
    /// NULL (the byte 0xff).
    pub const NULL: Self = NullableIdx {
        raw: 0xff,
        _kind: std::marker::PhantomData,
    };

    /// The byte: the index, or 0xff for NULL.
    pub fn raw(self) -> u8 {
        self.raw
    }
}

impl<T: TableIdx> NullableIdx<T> {
    /// `None` for the one index that cannot be held (255).
    pub fn new(p: Option<T>) -> Option<Self> {
        match p {
            None => Some(Self::NULL),
            Some(t) if t.as_u8() == 0xff => None,
            Some(t) => Some(NullableIdx {
                raw: t.as_u8(),
                _kind: std::marker::PhantomData,
            }),
        }
    }

    /// The index, or `None` for NULL.
    pub fn get(self) -> Option<T> {
        (self.raw != 0xff).then(|| T::from_u8(self.raw))
    }
}

impl<T> Default for NullableIdx<T> {
    fn default() -> Self {
        Self::NULL
    }
}

impl<T> fmt::Debug for NullableIdx<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.raw {
            0xff => f.write_str("NULL"),
            i => write!(f, "#{i}"),
        }
    }
}

// By hand: derives would ask T for Clone and Copy.
impl<T> Clone for NullableIdx<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for NullableIdx<T> {}

/// Where a returned pointer points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ptr<T> {
    /// NULL.
    Null,
    /// An object of the world.
    To(T),
    /// Somewhere that is not part of the world (only C can do this).
    Foreign,
}

/// The most elements an engine map has, and entries an element has
/// (`SHIM_MAP_MAX_ELEMS`, `SHIM_ELEM_MAX_ENTRIES`: the driver sizes maps
/// by VLs and engines, 16 at most of each).
pub const MAP_SLOTS: usize = 16;

/// A flexible array member of fixed capacity: `len` slots allocated, the
/// rest `T::default()` always (the constructors keep it so), so a whole
/// `Slots` compares and hashes as its first `len` values do and can be
/// copied into the shim's fixed-size table without a loop over `len`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Slots<T, const N: usize> {
    len: u8,
    slots: [T; N],
}

impl<T: Copy + Default, const N: usize> Slots<T, N> {
    /// No slot allocated.
    pub fn new() -> Self {
        Slots {
            len: 0,
            slots: [T::default(); N],
        }
    }

    /// Empties it: every slot back to `T::default()`.
    pub fn clear(&mut self) {
        *self = Self::new();
    }

    /// Appends `v`; gives it back when all `N` slots are taken.
    pub fn push(&mut self, v: T) -> Result<(), T> {
        match self.slots.get_mut(self.len as usize) {
            Some(s) => {
                *s = v;
                self.len += 1;
                Ok(())
            }
            None => Err(v),
        }
    }

    /// Keeps the first `n` values; the slots after them go back to
    /// `T::default()`.
    pub fn truncate(&mut self, n: usize) {
        for s in self.slots.iter_mut().skip(n) {
            *s = T::default();
        }
        self.len = self.len.min(n.min(N) as u8);
    }

    /// Every slot, the unallocated ones (`T::default()`) included.
    pub fn all(&self) -> &[T; N] {
        &self.slots
    }
}

impl<T: Copy + Default, const N: usize> Default for Slots<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T, const N: usize> std::ops::Deref for Slots<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.slots[..self.len as usize]
    }
}

/// Changes the allocated slots only: the rest stay `T::default()`.
impl<T, const N: usize> std::ops::DerefMut for Slots<T, N> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.slots[..self.len as usize]
    }
}

impl<'a, T, const N: usize> IntoIterator for &'a Slots<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.slots[..self.len as usize].iter()
    }
}

impl<T: fmt::Debug, const N: usize> fmt::Debug for Slots<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Copy + Default, const N: usize> FromIterator<T> for Slots<T, N> {
    /// Panics past `N` values: for literals in tests and examples; parsers
    /// and generators use [`Slots::push`] and report the overflow.
    fn from_iter<I: IntoIterator<Item = T>>(it: I) -> Self {
        let mut s = Self::new();
        for v in it {
            assert!(s.push(v).is_ok(), "more than {N} slots");
        }
        s
    }
}

/// One engine map (`struct sdma_vl_map` / `struct pio_vl_map`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VlMap<T> {
    /// `m->mask`.
    pub mask: u32,
    /// `m->map[]`; `None` is a NULL element.
    pub elems: Slots<Option<MapElem<T>>, MAP_SLOTS>,
}

/// One element (`struct sdma_map_elem` / `struct pio_map_elem`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MapElem<T> {
    /// `e->mask`.
    pub mask: u32,
    /// `e->sde[]` / `e->ksc[]`.
    pub entries: Slots<NullableIdx<T>, MAP_SLOTS>,
}

/// The CPUs of a NUMA node (`cpumask_of_node()`), cpus 0..63 as bits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CpuMask(pub u64);

/// The most maps a world's per-CPU user engine table holds
/// ([`UserSdeMap`]).
pub const RHT_SLOTS: usize = 8;

/// One map of the per-CPU table of user SDMA engines (`dd->sdma_rht`, an
/// rhashtable of sdma.c's `struct sdma_rht_node` keyed by CPU):
/// `node->map[vl]` of the node of `cpu`, a `struct sdma_rht_map_elem`,
/// the engines a process pinned to `cpu` sends VL `vl` on. A CPU has a
/// node when the table holds a map of it; a map it does not hold is NULL.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct UserSdeMap {
    /// `node->cpu_id`.
    pub cpu: u8,
    /// The index of `node->map[]` (a VL, below `HFI1_MAX_VLS_SUPPORTED`).
    pub vl: u8,
    /// `map->mask`.
    pub mask: u32,
    /// `map->ctr`: the engines mapped.
    pub ctr: u8,
    /// `map->sde[]`: every slot of the block (`TXE_NUM_SDMA_ENGINES`, as
    /// `sdma_set_cpu_to_sde_map()` allocates it).
    pub sde: [NullableIdx<super::EngineIdx>; MAP_SLOTS],
}

/// The most bytes of a [`ShortText`].
pub const SHORT_TEXT: usize = 31;

/// A short text a caller writes to a sysfs file (what `echo` gives it),
/// at most [`SHORT_TEXT`] bytes and no NUL: a C string at the ABI.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ShortText {
    len: u8,
    bytes: [u8; SHORT_TEXT],
}

impl ShortText {
    /// `s`, when it fits and has no NUL.
    pub fn new(s: &[u8]) -> Option<Self> {
        if s.len() > SHORT_TEXT || s.contains(&0) {
            return None;
        }
        let mut t = ShortText::default();
        t.bytes[..s.len()].copy_from_slice(s);
        t.len = s.len() as u8;
        Some(t)
    }

    /// Its bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

impl fmt::Debug for ShortText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(self.as_bytes()))
    }
}

impl UserSdeMap {
    /// The slots up to the last that is not NULL (what a vector or a
    /// report writes: the rest are NULL).
    pub fn used(&self) -> &[NullableIdx<super::EngineIdx>] {
        let n = self
            .sde
            .iter()
            .rposition(|x| x.get().is_some())
            .map_or(0, |k| k + 1);
        &self.sde[..n]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{EngineIdx, SendCtxIdx};

    /// Capacity is enforced, and what lies beyond `len` never shows:
    /// two `Slots` with the same values compare and hash equal however
    /// they were built.
    #[test]
    fn slots_hold_n_and_compare_by_their_values() {
        let mut a: Slots<Option<u8>, 2> = Slots::new();
        assert_eq!(a.push(Some(1)), Ok(()));
        assert_eq!(a.push(None), Ok(()));
        assert_eq!(a.push(Some(3)), Err(Some(3)));
        assert_eq!(&a[..], &[Some(1), None]);
        let b: Slots<Option<u8>, 2> = [Some(1), None].into_iter().collect();
        assert_eq!(a, b);
        a[1] = Some(2);
        assert_ne!(a, b);
        assert_eq!(a.all(), &[Some(1), Some(2)]);
        let c: Slots<Option<u8>, 2> = [Some(1)].into_iter().collect();
        assert_eq!(c.all(), &[Some(1), None]);
        assert_eq!(format!("{c:?}"), "[Some(1)]");
    }

    /// NULL is the shim's byte (SHIM_NONE = -1); every other index
    /// round-trips, and 255 (the NULL byte) is refused, not aliased.
    #[test]
    fn nullable_indices_are_the_shims_bytes() {
        let null = NullableIdx::<EngineIdx>::default();
        // The byte the shim's SHIM_NONE is (checked against the ABI in
        // the harness: cworld::call's tests).
        assert_eq!(null.raw(), 0xff);
        assert_eq!(null.get(), None);
        assert_eq!(NullableIdx::new(None), Some(null));
        for i in 0..255u8 {
            let n = NullableIdx::new(Some(EngineIdx(i))).expect("holds");
            assert_eq!((n.raw(), n.get()), (i, Some(EngineIdx(i))));
        }
        assert_eq!(NullableIdx::new(Some(SendCtxIdx(255))), None);
        assert_eq!(format!("{null:?}"), "NULL");
    }
}

/// How many entries of a [`PerIndex`] may be off their default: a call
/// starts from at most [`PER_INDEX_INPUT`] of them (the rest is room for
/// the contexts the call touches).
pub const PER_INDEX_SLOTS: usize = 8;

/// The most entries off their default a call may start from
/// (`corpus::invariants`).
pub const PER_INDEX_INPUT: usize = 4;

/// No room for another entry off its default ([`PerIndex::set`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PerIndexFull;

/// A value for each of `N` engines or send contexts (entry i for the
/// world's index i), all at their default but at most
/// [`PER_INDEX_SLOTS`]: those are held sparsely, by index, in increasing
/// order (never a default value), so two compare and hash equal exactly
/// when every entry does. Vectors and reports name only them (`{ 3 = 1
/// }`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PerIndex<T, const N: usize> {
    n: u8,
    idx: [u8; PER_INDEX_SLOTS],
    val: [T; PER_INDEX_SLOTS],
}

impl<T: Copy + Default + PartialEq, const N: usize> PerIndex<T, N> {
    /// Every entry at its default.
    pub fn new() -> Self {
        PerIndex {
            n: 0,
            idx: [0; PER_INDEX_SLOTS],
            val: [T::default(); PER_INDEX_SLOTS],
        }
    }

    /// Entry `i` (the default for an entry not held, or past `N`).
    #[inline]
    pub fn get(&self, i: usize) -> T {
        match self.idx[..usize::from(self.n)]
            .iter()
            .position(|&x| usize::from(x) == i)
        {
            Some(k) => self.val[k],
            None => T::default(),
        }
    }

    /// Sets entry `i` (below `N`, and at most 255); [`PerIndexFull`] when
    /// it would be one entry too many off its default.
    pub fn set(&mut self, i: usize, v: T) -> Result<(), PerIndexFull> {
        let n = usize::from(self.n);
        let at = self.idx[..n].iter().position(|&x| usize::from(x) >= i);
        match at {
            Some(k) if usize::from(self.idx[k]) == i => {
                if v == T::default() {
                    self.idx.copy_within(k + 1..n, k);
                    self.val.copy_within(k + 1..n, k);
                    self.n -= 1;
                    self.idx[n - 1] = 0;
                    self.val[n - 1] = T::default();
                } else {
                    self.val[k] = v;
                }
            }
            _ if v == T::default() => {}
            _ if n == PER_INDEX_SLOTS || i >= N.min(256) => return Err(PerIndexFull),
            at => {
                let k = at.unwrap_or(n);
                self.idx.copy_within(k..n, k + 1);
                self.val.copy_within(k..n, k + 1);
                self.idx[k] = i as u8;
                self.val[k] = v;
                self.n += 1;
            }
        }
        Ok(())
    }

    /// The entries off their default, by increasing index.
    pub fn iter(&self) -> impl Iterator<Item = (usize, T)> + '_ {
        let n = usize::from(self.n);
        self.idx[..n]
            .iter()
            .zip(&self.val[..n])
            .map(|(&i, &v)| (usize::from(i), v))
    }

    /// How many entries are off their default.
    pub fn len(&self) -> usize {
        usize::from(self.n)
    }

    /// Whether every entry is at its default.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
}

impl<T: Copy + Default + PartialEq, const N: usize> Default for PerIndex<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: fmt::Debug + Copy + Default + PartialEq, const N: usize> fmt::Debug for PerIndex<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}
