//! A vector file's TOML: its text read from disk ([`read_text`]), parsed
//! with every error located by file, line and field ([`Src`],
//! [`VectorError`]), and the readers of the values fields are made of
//! (integers, booleans, names, indices). Nothing here knows a record.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use toml_edit::{ImDocument, Item, Value};

/// A bad vector file, located.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VectorError {
    /// The file (or directory) at fault.
    pub file: PathBuf,
    /// Its line, from 1; 0 when the file could not be read at all.
    pub line: usize,
    /// The field at fault (`qp.type`, `world.sdma_map.elems[2]`), or empty.
    pub field: String,
    /// What is wrong.
    pub msg: String,
}

impl fmt::Display for VectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            // Not at a line: the file itself (missing, unreadable).
            write!(f, "{}: ", self.file.display())?;
            if !self.field.is_empty() {
                write!(f, "{}: ", self.field)?;
            }
            write!(f, "{}", self.msg)
        } else if self.field.is_empty() {
            write!(f, "{}:{}: {}", self.file.display(), self.line, self.msg)
        } else {
            write!(
                f,
                "{}:{}: {}: {}",
                self.file.display(),
                self.line,
                self.field,
                self.msg
            )
        }
    }
}

impl std::error::Error for VectorError {}

/// A result whose error is located in a vector file.
pub(crate) type R<T> = Result<T, VectorError>;

/// A parsed file and the means to locate its errors.
pub(crate) struct Src<'a> {
    file: &'a Path,
    text: &'a str,
    /// Byte offsets where lines start: a line is found by binary search,
    /// so locating every case of a large file stays linear overall.
    starts: Vec<usize>,
}

impl<'a> Src<'a> {
    /// `text`, the contents of `file`.
    pub(super) fn new(file: &'a Path, text: &'a str) -> Src<'a> {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Src { file, text, starts }
    }

    /// The file the text came from.
    pub(super) fn file(&self) -> &'a Path {
        self.file
    }

    /// The line (from 1) where `span` starts; 1 without a span.
    pub(super) fn line_of(&self, span: Option<Range<usize>>) -> usize {
        span.map_or(1, |s| {
            let at = s.start.min(self.text.len());
            self.starts.partition_point(|&l| l <= at)
        })
    }

    /// An error at `span`, naming `field`.
    pub(super) fn err(
        &self,
        span: Option<Range<usize>>,
        field: &str,
        msg: impl Into<String>,
    ) -> VectorError {
        VectorError {
            file: self.file.to_owned(),
            line: self.line_of(span),
            field: field.to_owned(),
            msg: msg.into(),
        }
    }

    /// The text parsed as TOML.
    pub(super) fn parse(&self) -> R<ImDocument<&str>> {
        ImDocument::parse(self.text).map_err(|e| {
            let msg = e.message().to_owned();
            self.err(e.span(), "", format!("not valid TOML: {msg}"))
        })
    }
}

/// Reads a vector file: a regular file (a FIFO or a device would block or
/// never end, and is refused at once), in UTF-8 (an invalid byte is named
/// by its line).
pub fn read_text(path: &Path) -> Result<String, VectorError> {
    let err = |line: usize, msg: String| VectorError {
        file: path.to_owned(),
        line,
        field: String::new(),
        msg,
    };
    let meta = std::fs::metadata(path).map_err(|e| err(0, format!("cannot read: {e}")))?;
    if !meta.is_file() {
        let t = meta.file_type();
        use std::os::unix::fs::FileTypeExt;
        let what = if t.is_fifo() {
            "a FIFO"
        } else if t.is_char_device() || t.is_block_device() {
            "a device"
        } else if t.is_socket() {
            "a socket"
        } else if t.is_dir() {
            "a directory"
        } else {
            "not a regular file"
        };
        return Err(err(0, format!("is {what}, not a vector file: refused")));
    }
    let bytes = std::fs::read(path).map_err(|e| err(0, format!("cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let good = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..good].iter().filter(|b| **b == b'\n').count() + 1;
        err(
            line,
            format!("not UTF-8: an invalid byte at offset {good} (vector files are UTF-8 TOML)"),
        )
    })
}

/// An integer.
pub(super) fn int(src: &Src, v: &Item, field: &str) -> R<i64> {
    v.as_integer()
        .ok_or_else(|| src.err(v.span(), field, "expected an integer"))
}

/// An integer that fits `T`.
pub(super) fn uint<T: TryFrom<i64>>(src: &Src, v: &Item, field: &str) -> R<T> {
    let i = int(src, v, field)?;
    T::try_from(i).map_err(|_| {
        src.err(
            v.span(),
            field,
            format!("{i} is out of range for {}", std::any::type_name::<T>()),
        )
    })
}

/// An integer inside an array or inline table that fits `T`.
pub(super) fn value_uint<T: TryFrom<i64>>(src: &Src, v: &Value, field: &str) -> R<T> {
    let i = v
        .as_integer()
        .ok_or_else(|| src.err(v.span(), field, "expected an integer"))?;
    T::try_from(i).map_err(|_| {
        src.err(
            v.span(),
            field,
            format!("{i} is out of range for {}", std::any::type_name::<T>()),
        )
    })
}

/// `true` or `false`.
pub(super) fn boolean(src: &Src, v: &Item, field: &str) -> R<bool> {
    v.as_bool()
        .ok_or_else(|| src.err(v.span(), field, "expected true or false"))
}

/// A string.
pub(super) fn string<'a>(src: &Src, v: &'a Item, field: &str) -> R<&'a str> {
    v.as_str()
        .ok_or_else(|| src.err(v.span(), field, "expected a string"))
}

/// A symbolic name, `parse`d; an unknown one is told with `names()`,
/// the accepted ones.
pub(super) fn symbol<T>(
    src: &Src,
    v: &Item,
    field: &str,
    parse: impl Fn(&str) -> Option<T>,
    names: impl Fn() -> String,
) -> R<T> {
    let s = string(src, v, field)?;
    parse(s).ok_or_else(|| {
        src.err(
            v.span(),
            field,
            format!("unknown name {s:?} (expected one of: {})", names()),
        )
    })
}

/// A 64-bit field (a GID half): TOML integers are signed 64-bit, so a value
/// like fe80:: is written as a hex string.
pub(super) fn value_u64(src: &Src, v: &Value, field: &str) -> R<u64> {
    match (v.as_integer(), v.as_str()) {
        (Some(i), _) => {
            u64::try_from(i).map_err(|_| src.err(v.span(), field, format!("{i} is negative")))
        }
        (None, Some(t)) => t
            .strip_prefix("0x")
            .and_then(|h| u64::from_str_radix(h, 16).ok())
            .ok_or_else(|| {
                src.err(
                    v.span(),
                    field,
                    format!("{t:?}: expected \"0x\" and hex digits"),
                )
            }),
        _ => Err(src.err(v.span(), field, "expected an integer or \"0x...\"")),
    }
}

/// An entry that is an index or the string "none" (NULL).
pub(super) fn opt_index(src: &Src, v: &Value, field: &str) -> R<Option<u8>> {
    if v.as_str() == Some("none") {
        return Ok(None);
    }
    value_uint(src, v, field).map(Some)
}

/// Refuses a key of `t` not in `allowed`, naming it `field.key`.
pub(super) fn check_keys(
    src: &Src,
    t: &dyn toml_edit::TableLike,
    span: Option<Range<usize>>,
    field: &str,
    allowed: &[&str],
) -> R<()> {
    for (k, v) in t.iter() {
        if !allowed.contains(&k) {
            return Err(src.err(
                v.span().or(span.clone()),
                &format!("{field}.{k}"),
                format!("unknown field (expected one of: {})", allowed.join(", ")),
            ));
        }
    }
    Ok(())
}

/// A list of symbolic names, sorted and deduplicated.
pub(super) fn names<T: Ord + Copy>(
    src: &Src,
    v: &Item,
    field: &str,
    parse: impl Fn(&str) -> Option<T>,
    all: impl Fn() -> String,
) -> R<Vec<T>> {
    let a = v
        .as_array()
        .ok_or_else(|| src.err(v.span(), field, "expected an array of names"))?;
    let mut out = vec![];
    for e in a.iter() {
        let s = e
            .as_str()
            .ok_or_else(|| src.err(e.span(), field, "expected a name"))?;
        out.push(parse(s).ok_or_else(|| {
            src.err(
                e.span(),
                field,
                format!("unknown name {s:?} (expected one of: {})", all()),
            )
        })?);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// [`opt_index`] of a plain item.
pub(super) fn item_opt_index(src: &Src, v: &Item, field: &str) -> R<Option<u8>> {
    match v.as_value() {
        Some(x) => opt_index(src, x, field),
        None => Err(src.err(v.span(), field, "expected an index or \"none\"")),
    }
}

/// A table key that is an index below `n`.
pub(super) fn small_index(src: &Src, k: &str, v: &Item, field: &str, n: usize) -> R<usize> {
    k.parse()
        .ok()
        .filter(|i| *i < n)
        .ok_or_else(|| src.err(v.span(), field, format!("{k:?} is not an index 0..{n}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("hfi1-vec-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("scratch dir");
        d
    }

    #[test]
    fn a_fifo_is_refused_at_once() {
        let d = scratch("fifo");
        let f = d.join("pipe.toml");
        let c = std::ffi::CString::new(f.to_string_lossy().as_bytes()).expect("path");
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
        // Nobody writes the FIFO: reading it would block forever.
        let e = read_text(&f).expect_err("a FIFO is no vector file");
        assert!(e.to_string().contains("a FIFO"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn invalid_utf8_names_its_line() {
        let d = scratch("utf8");
        let f = d.join("bad.toml");
        std::fs::write(&f, b"[defaults]\n\n# caf\xe9\n").expect("write");
        let e = read_text(&f).expect_err("not UTF-8");
        assert_eq!(e.line, 3, "{e}");
        assert!(e.to_string().contains("not UTF-8"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
