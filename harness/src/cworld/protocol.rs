//! The wire between a parent and its worker: the environment that makes a
//! process a worker, the byte it answers when it is ready, and each
//! request with its replies, all little-endian.
//!
//! Both ends are this very program (the worker is the parent re-executed),
//! so nothing here is versioned; what it guards against is a mistake, not
//! an old peer: every kind crosses as an enumeration with one encoding,
//! and a byte that names no kind is an error, never taken for some kind.
//!
//! | request (first byte)  | then                                   | replies                                   |
//! |-----------------------|----------------------------------------|-------------------------------------------|
//! | [`RequestKind::Calls`]  | `u32` n, n `shim_call`s              | per call: an [outcome](write_outcome)     |
//! | [`RequestKind::Random`] | a [`Range`]                          | `u32` n, n [`RandomFinding`]s             |
//! | [`RequestKind::Digest`] | a [`Range`]                          | per vector: its `u64` digest              |
//! | [`RequestKind::Bench`]  | a [`Repeat`] (vectors)               | a [`BenchReply`]                          |
//! | [`RequestKind::Raw`]    | a [`Repeat`] (iterations)            | `u64` ns, `u64` checksum                  |

use std::io::{Read, Write};

use anyhow::{bail, Context, Result};

use super::ffi::{self, shim_call, shim_outcome};

/// Set to a world's .so path in the environment of a worker process.
pub const WORKER_ENV: &str = "HFI1_CONFORMANCE_WORKER";

/// Set to `SYMBOL=VALUE` in the environment of a worker whose world has a
/// switch ([`BuiltWorld::switch`](super::BuiltWorld::switch)): the `int`
/// the worker sets after loading the world, before any call.
pub const SWITCH_ENV: &str = "HFI1_CONFORMANCE_SWITCH";

/// What a worker writes when its world is loaded and it serves calls.
pub const READY: u8 = b'R';

/// A byte that names no kind of what was expected: the other end broke
/// the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownCode {
    /// What the byte should have named (`request`, `call status`, ...).
    pub what: &'static str,
    /// The byte.
    pub code: u8,
}

impl std::fmt::Display for UnknownCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown {} {}", self.what, self.code)
    }
}

impl std::error::Error for UnknownCode {}

/// A one-byte kind on the wire: each variant has one code, and decoding a
/// byte that is none of them is an [`UnknownCode`].
macro_rules! wire_kind {
    ($(#[$doc:meta])* $name:ident, $what:literal { $($(#[$vdoc:meta])* $variant:ident = $code:literal,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
        }

        impl $name {
            /// Every kind, in code order.
            #[cfg_attr(not(test), allow(dead_code))]
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The kind's byte on the wire.
            pub fn encode(self) -> u8 {
                match self {
                    $($name::$variant => $code,)*
                }
            }

            /// The kind a byte names.
            pub fn decode(code: u8) -> Result<$name, UnknownCode> {
                match code {
                    $($code => Ok($name::$variant),)*
                    _ => Err(UnknownCode { what: $what, code }),
                }
            }
        }
    };
}

wire_kind! {
    /// What a request asks the worker to do (its first byte).
    RequestKind, "request" {
        /// Run the `shim_call`s that follow, in this world only.
        Calls = 0,
        /// Run generated vectors and judge them against the model.
        Random = 1,
        /// Time the `--random` loop over generated vectors.
        Bench = 2,
        /// Time the raw upstream call.
        Raw = 3,
        /// Digest the outcomes of generated vectors.
        Digest = 4,
    }
}

wire_kind! {
    /// Whether the shim ran a call (the first byte of an outcome).
    CallStatus, "call status" {
        /// `shim_run` refused the call as malformed.
        Refused = 0,
        /// The function ran and returned; its outcome follows.
        Ran = 1,
    }
}

wire_kind! {
    /// How C and the model parted on a generated vector.
    FindingKind, "finding kind" {
        /// Their outcomes differ.
        Differ = 0,
        /// The model calls the vector undefined.
        Undefined = 1,
        /// The shim refused the vector as malformed.
        Malformed = 2,
        /// No vector: the generator drew none within the invariants at
        /// this index (it gave up), so nothing ran.
        NotDrawn = 3,
    }
}

/// What a random range found: the index and how C and Rust parted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RandomFinding {
    /// The vector's index in its function's generated sequence.
    pub index: u64,
    /// How they parted.
    pub kind: FindingKind,
}

impl RandomFinding {
    /// A finding of vector `index`.
    pub fn new(index: u64, kind: FindingKind) -> RandomFinding {
        RandomFinding { index, kind }
    }
}

/// Reads a little-endian `u32`.
pub fn read_u32(rd: &mut impl Read) -> Result<u32> {
    let mut b = [0u8; 4];
    rd.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

/// Reads a little-endian `u64`.
pub fn read_u64(rd: &mut impl Read) -> Result<u64> {
    let mut b = [0u8; 8];
    rd.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

/// Reads a request's kind; `Ok(None)` when the parent closed the pipe.
pub fn read_request_kind(rd: &mut impl Read) -> Result<Option<RequestKind>> {
    let mut code = [0u8; 1];
    if rd.read_exact(&mut code).is_err() {
        return Ok(None);
    }
    Ok(Some(RequestKind::decode(code[0])?))
}

/// Generated vectors `start..start + count` of function number `func`
/// from `seed` ([`RequestKind::Random`], [`RequestKind::Digest`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    /// The function's index in `Func::ALL`.
    pub func: u32,
    /// The generator's seed.
    pub seed: u64,
    /// The first vector's index.
    pub start: u64,
    /// How many vectors.
    pub count: u64,
}

impl Range {
    /// The request for this range.
    pub fn request(&self, kind: RequestKind) -> Vec<u8> {
        let mut req = vec![kind.encode()];
        req.extend_from_slice(&self.func.to_le_bytes());
        req.extend_from_slice(&self.seed.to_le_bytes());
        req.extend_from_slice(&self.start.to_le_bytes());
        req.extend_from_slice(&self.count.to_le_bytes());
        req
    }

    /// Reads a range (the request's kind already read).
    pub fn read(rd: &mut impl Read) -> Result<Range> {
        Ok(Range {
            func: read_u32(rd)?,
            seed: read_u64(rd)?,
            start: read_u64(rd)?,
            count: read_u64(rd)?,
        })
    }
}

/// Generated vector 0 of function number `func` from `seed` on, `times`
/// over ([`RequestKind::Bench`]: `times` vectors; [`RequestKind::Raw`]:
/// vector 0, `times` calls).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repeat {
    /// The function's index in `Func::ALL`.
    pub func: u32,
    /// The generator's seed.
    pub seed: u64,
    /// How many vectors or calls.
    pub times: u64,
}

impl Repeat {
    /// The request for this benchmark.
    pub fn request(&self, kind: RequestKind) -> Vec<u8> {
        let mut req = vec![kind.encode()];
        req.extend_from_slice(&self.func.to_le_bytes());
        req.extend_from_slice(&self.seed.to_le_bytes());
        req.extend_from_slice(&self.times.to_le_bytes());
        req
    }

    /// Reads a benchmark's parameters (the request's kind already read).
    pub fn read(rd: &mut impl Read) -> Result<Repeat> {
        Ok(Repeat {
            func: read_u32(rd)?,
            seed: read_u64(rd)?,
            times: read_u64(rd)?,
        })
    }
}

/// Writes a [`RequestKind::Calls`] request.
pub fn write_calls(wr: &mut impl Write, calls: &[shim_call]) -> std::io::Result<()> {
    wr.write_all(&[RequestKind::Calls.encode()])?;
    wr.write_all(&(calls.len() as u32).to_le_bytes())?;
    for c in calls {
        wr.write_all(ffi::as_bytes(c))?;
    }
    wr.flush()
}

/// Reads one call of a [`RequestKind::Calls`] request into `buf` (of a
/// `shim_call`'s size).
pub fn read_call(rd: &mut impl Read, buf: &mut [u8]) -> Result<shim_call> {
    rd.read_exact(buf)?;
    ffi::from_bytes(buf).context("short call")
}

/// The fixed part of an outcome: every field before the text (return
/// value, pointers, flags, the post-call QP), sent as it is; the text, the
/// journal and the notes follow, only their used bytes.
pub const OUTCOME_FIXED: usize = std::mem::offset_of!(shim_outcome, text_len);

/// An outcome's head on the wire: its [`CallStatus`], the fixed part, the
/// text's, the journal's and the notes' lengths.
const OUTCOME_HEAD: usize = 1 + OUTCOME_FIXED + 4 + 4 + 4;

/// Writes one call's reply: the head, then the used bytes of the text, of
/// the journal and of the notes.
pub fn write_outcome(wr: &mut impl Write, status: CallStatus, out: &shim_outcome) -> Result<()> {
    let tlen = (out.text_len as usize).min(out.text.len());
    let jlen = (out.journal_len as usize).min(out.journal.len());
    let nlen = (out.notes_len as usize).min(out.notes.len());
    let mut head = [0u8; OUTCOME_HEAD];
    head[0] = status.encode();
    head[1..1 + OUTCOME_FIXED].copy_from_slice(&ffi::as_bytes(out)[..OUTCOME_FIXED]);
    head[1 + OUTCOME_FIXED..][..4].copy_from_slice(&(tlen as u32).to_le_bytes());
    head[5 + OUTCOME_FIXED..][..4].copy_from_slice(&(jlen as u32).to_le_bytes());
    head[9 + OUTCOME_FIXED..][..4].copy_from_slice(&(nlen as u32).to_le_bytes());
    wr.write_all(&head)?;
    let t: &[u8] = ffi::as_bytes(&out.text);
    wr.write_all(&t[..tlen])?;
    let j: &[u8] = ffi::as_bytes(&out.journal);
    wr.write_all(&j[..jlen])?;
    let n: &[u8] = ffi::as_bytes(&out.notes);
    wr.write_all(&n[..nlen])?;
    Ok(())
}

/// Reads one call's reply ([`write_outcome`]) into `o`, which a reader
/// of many outcomes reuses (its text and journal past their lengths keep
/// what an earlier one left). An I/O error stays a [`std::io::Error`] in
/// the chain (the worker may have died); a reply that breaks the protocol
/// is any other error.
pub fn read_outcome_into(rd: &mut impl Read, o: &mut shim_outcome) -> Result<CallStatus> {
    let mut head = [0u8; OUTCOME_HEAD];
    rd.read_exact(&mut head)?;
    let u32_at = |i: usize| u32::from_le_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]);
    ffi::as_bytes_mut(o)[..OUTCOME_FIXED].copy_from_slice(&head[1..1 + OUTCOME_FIXED]);
    let tlen = u32_at(1 + OUTCOME_FIXED) as usize;
    let jlen = u32_at(5 + OUTCOME_FIXED) as usize;
    let nlen = u32_at(9 + OUTCOME_FIXED) as usize;
    if tlen > o.text.len() || jlen > o.journal.len() || nlen > o.notes.len() {
        bail!("worker sent a text of {tlen}, a journal of {jlen} or notes of {nlen} bytes");
    }
    let mut t = vec![0u8; tlen];
    let mut j = vec![0u8; jlen];
    let mut n = vec![0u8; nlen];
    rd.read_exact(&mut t)?;
    rd.read_exact(&mut j)?;
    rd.read_exact(&mut n)?;
    for (d, s) in o.text.iter_mut().zip(&t) {
        *d = *s as std::os::raw::c_char;
    }
    o.text_len = tlen as u32;
    for (d, s) in o.journal.iter_mut().zip(&j) {
        *d = *s as std::os::raw::c_char;
    }
    o.journal_len = jlen as u32;
    for (d, s) in o.notes.iter_mut().zip(&n) {
        *d = *s as std::os::raw::c_char;
    }
    o.notes_len = nlen as u32;
    Ok(CallStatus::decode(head[0])?)
}

/// Writes the reply to [`RequestKind::Random`].
pub fn write_findings(wr: &mut impl Write, found: &[RandomFinding]) -> Result<()> {
    wr.write_all(&(found.len() as u32).to_le_bytes())?;
    for f in found {
        wr.write_all(&f.index.to_le_bytes())?;
        wr.write_all(&[f.kind.encode()])?;
    }
    Ok(())
}

/// Reads the reply to [`RequestKind::Random`].
pub fn read_findings(rd: &mut impl Read) -> Result<Vec<RandomFinding>> {
    let n = read_u32(rd)?;
    let mut v = vec![];
    for _ in 0..n {
        let index = read_u64(rd)?;
        let mut k = [0u8; 1];
        rd.read_exact(&mut k)?;
        v.push(RandomFinding::new(index, FindingKind::decode(k[0])?));
    }
    Ok(v)
}

/// What one in-worker benchmark measured: `vectors` generated vectors run
/// through the `--random` loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BenchReply {
    /// The whole check of each, its batch drawn beforehand.
    pub check_ns: u64,
    /// How many vectors ran.
    pub vectors: u64,
    /// How many of them were not agreements.
    pub disagreements: u64,
    /// Drawing them.
    pub generation_ns: u64,
    /// The loop, whole.
    pub loop_ns: u64,
}

impl BenchReply {
    /// Writes the reply to [`RequestKind::Bench`].
    pub fn write(&self, wr: &mut impl Write) -> Result<()> {
        for x in [
            self.check_ns,
            self.vectors,
            self.disagreements,
            self.generation_ns,
            self.loop_ns,
        ] {
            wr.write_all(&x.to_le_bytes())?;
        }
        Ok(())
    }

    /// Reads the reply to [`RequestKind::Bench`].
    pub fn read(rd: &mut impl Read) -> Result<BenchReply> {
        Ok(BenchReply {
            check_ns: read_u64(rd)?,
            vectors: read_u64(rd)?,
            disagreements: read_u64(rd)?,
            generation_ns: read_u64(rd)?,
            loop_ns: read_u64(rd)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One reply read into a fresh outcome.
    fn read_outcome(rd: &mut impl Read) -> Result<(CallStatus, shim_outcome)> {
        let mut o = shim_outcome::default();
        let status = read_outcome_into(rd, &mut o)?;
        Ok((status, o))
    }

    /// Every kind decodes from its own code; codes are distinct.
    #[test]
    fn every_kind_round_trips() {
        fn check<K: Copy + PartialEq + std::fmt::Debug>(
            all: &[K],
            encode: fn(K) -> u8,
            decode: fn(u8) -> Result<K, UnknownCode>,
        ) {
            let mut codes: Vec<u8> = all.iter().map(|k| encode(*k)).collect();
            for k in all {
                assert_eq!(decode(encode(*k)), Ok(*k));
            }
            codes.sort_unstable();
            codes.dedup();
            assert_eq!(codes.len(), all.len(), "two kinds share a code");
        }
        check(RequestKind::ALL, RequestKind::encode, RequestKind::decode);
        check(CallStatus::ALL, CallStatus::encode, CallStatus::decode);
        check(FindingKind::ALL, FindingKind::encode, FindingKind::decode);
        assert_eq!(RequestKind::ALL.len(), 5);
        assert_eq!(CallStatus::ALL.len(), 2);
        assert_eq!(FindingKind::ALL.len(), 4);
    }

    /// A byte that names no kind is an error naming it, for every byte.
    #[test]
    fn an_unknown_byte_is_an_error() {
        for code in 0..=u8::MAX {
            match RequestKind::decode(code) {
                Ok(k) => assert_eq!(k.encode(), code),
                Err(e) => assert_eq!(e.to_string(), format!("unknown request {code}")),
            }
            match CallStatus::decode(code) {
                Ok(k) => assert_eq!(k.encode(), code),
                Err(e) => assert_eq!(
                    e,
                    UnknownCode {
                        what: "call status",
                        code
                    }
                ),
            }
            match FindingKind::decode(code) {
                Ok(k) => assert_eq!(k.encode(), code),
                Err(e) => assert_eq!(
                    e,
                    UnknownCode {
                        what: "finding kind",
                        code
                    }
                ),
            }
        }
        assert!(RequestKind::decode(5).is_err());
        assert!(CallStatus::decode(2).is_err());
        assert!(FindingKind::decode(4).is_err());
        // A request of no kind, or none at all (the pipe closed).
        assert!(read_request_kind(&mut &[9u8][..]).is_err());
        assert_eq!(read_request_kind(&mut &[][..]).ok(), Some(None));
        assert_eq!(
            read_request_kind(&mut &[4u8][..]).ok(),
            Some(Some(RequestKind::Digest))
        );
    }

    /// Requests and replies read back as written.
    #[test]
    fn messages_round_trip() {
        let r = Range {
            func: 7,
            seed: u64::MAX,
            start: 3,
            count: 1 << 40,
        };
        let bytes = r.request(RequestKind::Random);
        let mut rd = &bytes[..];
        assert_eq!(
            read_request_kind(&mut rd).ok(),
            Some(Some(RequestKind::Random))
        );
        assert_eq!(Range::read(&mut rd).ok(), Some(r));
        assert!(rd.is_empty());

        let b = Repeat {
            func: 2,
            seed: 9,
            times: 1000,
        };
        let bytes = b.request(RequestKind::Raw);
        let mut rd = &bytes[..];
        assert_eq!(
            read_request_kind(&mut rd).ok(),
            Some(Some(RequestKind::Raw))
        );
        assert_eq!(Repeat::read(&mut rd).ok(), Some(b));
        assert!(rd.is_empty());

        let found: Vec<RandomFinding> = FindingKind::ALL
            .iter()
            .enumerate()
            .map(|(i, k)| RandomFinding::new(i as u64 * 1000, *k))
            .collect();
        let mut bytes = vec![];
        write_findings(&mut bytes, &found).expect("written");
        assert_eq!(read_findings(&mut &bytes[..]).ok(), Some(found));
        // One finding, of a kind that is none.
        let mut bad = 1u32.to_le_bytes().to_vec();
        bad.extend_from_slice(&5u64.to_le_bytes());
        bad.push(9);
        let e = read_findings(&mut &bad[..]).expect_err("no such kind");
        assert_eq!(e.to_string(), "unknown finding kind 9");

        let reply = BenchReply {
            check_ns: 1,
            vectors: 2,
            disagreements: 3,
            generation_ns: 4,
            loop_ns: 5,
        };
        let mut bytes = vec![];
        reply.write(&mut bytes).expect("written");
        assert_eq!(BenchReply::read(&mut &bytes[..]).ok(), Some(reply));

        let calls = [shim_call::default(), shim_call::default()];
        let mut bytes = vec![];
        write_calls(&mut bytes, &calls).expect("written");
        let mut rd = &bytes[..];
        assert_eq!(
            read_request_kind(&mut rd).ok(),
            Some(Some(RequestKind::Calls))
        );
        assert_eq!(read_u32(&mut rd).ok(), Some(2));
        let mut buf = vec![0u8; std::mem::size_of::<shim_call>()];
        for c in &calls {
            let got = read_call(&mut rd, &mut buf).expect("a call");
            assert!(ffi::as_bytes(&got) == ffi::as_bytes(c));
        }
        assert!(rd.is_empty());
    }

    /// An outcome reads back whole (its used text, journal and notes only); a
    /// bad status byte or an oversized length is an error, a short reply
    /// an I/O error.
    #[test]
    fn outcomes_round_trip() {
        let mut o = shim_outcome {
            ret: -22,
            call_send: 1,
            ..Default::default()
        };
        for (d, s) in o.text.iter_mut().zip(b"qp 1") {
            *d = *s as std::os::raw::c_char;
        }
        o.text_len = 4;
        for (d, s) in o.journal.iter_mut().zip(b"a\n") {
            *d = *s as std::os::raw::c_char;
        }
        o.journal_len = 2;
        for (d, s) in o.notes.iter_mut().zip(b"n\n") {
            *d = *s as std::os::raw::c_char;
        }
        o.notes_len = 2;
        for status in CallStatus::ALL {
            let mut bytes = vec![];
            write_outcome(&mut bytes, *status, &o).expect("written");
            assert_eq!(bytes.len(), OUTCOME_HEAD + 4 + 2 + 2);
            let (s, back) = read_outcome(&mut &bytes[..]).expect("read");
            assert_eq!(s, *status);
            assert!(ffi::as_bytes(&back) == ffi::as_bytes(&o));
        }
        let mut bytes = vec![];
        write_outcome(&mut bytes, CallStatus::Ran, &o).expect("written");
        let mut bad = bytes.clone();
        bad[0] = 7;
        let e = read_outcome(&mut &bad[..]).expect_err("bad status");
        assert_eq!(
            e.downcast_ref::<UnknownCode>(),
            Some(&UnknownCode {
                what: "call status",
                code: 7
            })
        );
        let mut long = bytes.clone();
        long[1 + OUTCOME_FIXED..][..4].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = read_outcome(&mut &long[..]).expect_err("oversized");
        assert!(e.downcast_ref::<std::io::Error>().is_none(), "{e}");
        let mut long = bytes.clone();
        long[9 + OUTCOME_FIXED..][..4].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = read_outcome(&mut &long[..]).expect_err("oversized notes");
        assert!(e.downcast_ref::<std::io::Error>().is_none(), "{e}");
        let e = read_outcome(&mut &bytes[..bytes.len() - 1]).expect_err("short");
        assert!(e.downcast_ref::<std::io::Error>().is_some(), "{e}");
    }
}
