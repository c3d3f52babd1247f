//! The names `<linux/cleanup.h>`'s definers make by pasting: the one
//! kind of pasted name the index holds.

use super::{Declared, Token};

/// The definers of `<linux/cleanup.h>` whose invocations at file scope
/// declare a name by pasting (its index holds no other pasted names),
/// each with what it makes: `DEFINE_FREE(kfree, ...)` makes `__free_kfree`,
/// `DEFINE_LOCK_GUARD_1(spinlock, ...)` the class `class_spinlock_t`; a
/// conditional one pastes its second argument too (`mutex` `_try`).
const DEFINERS: &[(&str, &str, &str, bool)] = &[
    ("DEFINE_FREE", "__free_", "", false),
    ("DEFINE_CLASS", "class_", "_t", false),
    ("DEFINE_GUARD", "class_", "_t", false),
    ("DEFINE_LOCK_GUARD_0", "class_", "_t", false),
    ("DEFINE_LOCK_GUARD_1", "class_", "_t", false),
    ("DEFINE_GUARD_COND", "class_", "_t", true),
    ("DEFINE_LOCK_GUARD_1_COND", "class_", "_t", true),
    ("EXTEND_CLASS", "class_", "_t", true),
];

/// The name a [`Declared::Made`] declaration of `name` makes.
pub fn made(name: &str, prefix: &str, second: &str, suffix: &str) -> String {
    format!("{prefix}{name}{second}{suffix}")
}

/// What an invocation of a cleanup.h definer at the start of `toks`
/// declares ([`DEFINERS`]): `DEFINE_FREE ( kfree ,` declares
/// `__free_kfree`.
pub(super) fn made_by<'a>(toks: &[Token<'a>]) -> Option<(&'a str, Declared<'a>)> {
    let first = toks.first()?.text;
    let (_, prefix, suffix, cond) = DEFINERS.iter().find(|d| d.0 == first)?;
    let word = |t: Option<&Token<'a>>| {
        t.filter(|t| {
            let c = t.text.as_bytes()[0];
            c.is_ascii_alphabetic() || c == b'_'
        })
        .map(|t| t.text)
    };
    if toks.get(1)?.text != "(" {
        return None;
    }
    let name = word(toks.get(2))?;
    let second = if *cond {
        (toks.get(3)?.text == ",").then_some(())?;
        word(toks.get(4))?
    } else {
        ""
    };
    Some((
        name,
        Declared::Made {
            prefix,
            second,
            suffix,
        },
    ))
}
