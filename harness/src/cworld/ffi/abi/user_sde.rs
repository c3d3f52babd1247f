//! A map of the user engine table (`world.sdma_rht`) at the ABI, and a
//! short text as a C string.

use super::super::types::SHIM_NONE;
use super::Abi;
use crate::model::types::{EngineIdx, NullableIdx, ShortText, UserSdeMap, MAP_SLOTS, SHORT_TEXT};

/// A map of the user engine table at the ABI: packed integers, a slot
/// `SHIM_NONE` for NULL (`c-shim/user_sde.c` builds `dd->sdma_rht` of
/// them).
#[repr(C, packed)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct UserSdeMapC {
    /// `node->cpu_id`.
    pub cpu: u8,
    /// The index of `node->map[]`.
    pub vl: u8,
    /// `map->ctr`.
    pub ctr: u8,
    /// `map->mask`.
    pub mask: u32,
    /// `map->sde[]`, engine indices.
    pub sde: [i8; MAP_SLOTS],
}

impl Abi for UserSdeMap {
    type C = UserSdeMapC;
    fn c_decl(name: &str) -> String {
        format!(
            "struct {{ shim_u8 cpu; shim_u8 vl; shim_u8 ctr; shim_u32 mask; shim_i8 sde[{MAP_SLOTS}]; }} __attribute__((__packed__)) {name}"
        )
    }
    #[inline]
    fn fill(&self, out: &mut UserSdeMapC) {
        *out = UserSdeMapC {
            cpu: self.cpu,
            vl: self.vl,
            ctr: self.ctr,
            mask: self.mask,
            // NullableIdx is the shim's byte already (0xff = SHIM_NONE).
            sde: self.sde.map(|x| x.raw() as i8),
        };
    }
    fn read(c: &UserSdeMapC) -> Option<UserSdeMap> {
        let sde = c.sde;
        let mut m = UserSdeMap {
            cpu: c.cpu,
            vl: c.vl,
            ctr: c.ctr,
            mask: c.mask,
            ..UserSdeMap::default()
        };
        for (d, x) in m.sde.iter_mut().zip(sde) {
            *d = NullableIdx::new((x != SHIM_NONE as i8).then_some(EngineIdx(x as u8)))?;
        }
        Some(m)
    }
}

/// A C string: the bytes, NUL-padded (one byte more than the text holds).
impl Abi for ShortText {
    type C = [u8; SHORT_TEXT + 1];
    fn c_decl(name: &str) -> String {
        format!("char {name}[{}]", SHORT_TEXT + 1)
    }
    #[inline]
    fn fill(&self, out: &mut [u8; SHORT_TEXT + 1]) {
        *out = [0; SHORT_TEXT + 1];
        out[..self.as_bytes().len()].copy_from_slice(self.as_bytes());
    }
    fn read(c: &[u8; SHORT_TEXT + 1]) -> Option<ShortText> {
        let n = c.iter().position(|&b| b == 0)?;
        ShortText::new(&c[..n])
    }
}
