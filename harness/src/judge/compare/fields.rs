//! How two outcomes of a call differ: the shape a group is known by,
//! and the fields a report shows.

use super::Seen;

/// How two outcomes differ: the differing fields (`ret`, `flags`, …), or
/// the two kinds of ending (`returned` → `hang`).
pub fn shape(a: &Seen, b: &Seen) -> Vec<String> {
    match (a, b) {
        (Seen::Done(x), Seen::Done(y)) => x.diff(y).into_iter().map(|d| d.0.to_owned()).collect(),
        _ => vec![format!("{} -> {}", a.kind(), b.kind())],
    }
}

/// Field by field: `(field, A, B)`. A differing journal carries each
/// side's notes after it (a leak's size and site), which no comparison
/// reads.
pub fn fields(a: &Seen, b: &Seen) -> Vec<(String, String, String)> {
    match (a, b) {
        (Seen::Done(x), Seen::Done(y)) => x
            .diff(y)
            .into_iter()
            .map(|(f, p, q)| {
                if f == "text" {
                    let (p, q) = mark_span(&p, &q);
                    (f.to_owned(), p, q)
                } else if f == crate::outcome::JOURNAL_KINDS[0].field {
                    (f.to_owned(), x.with_notes(p), y.with_notes(q))
                } else {
                    (f.to_owned(), p, q)
                }
            })
            .collect(),
        _ => vec![("ending".into(), a.text(), b.text())],
    }
}

/// Two texts with the part where they differ marked `[-…-]` and `{+…+}`
/// (the common beginning and end left as they are).
pub fn mark_span(a: &str, b: &str) -> (String, String) {
    let pre = a
        .char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or(a.len().min(b.len()), |((i, _), _)| i);
    let (ra, rb) = (&a[pre..], &b[pre..]);
    let mut suf = 0;
    for (x, y) in ra.chars().rev().zip(rb.chars().rev()) {
        if x != y || suf + x.len_utf8() > ra.len().min(rb.len()) {
            break;
        }
        suf += x.len_utf8();
    }
    let (ma, mb) = (&ra[..ra.len() - suf], &rb[..rb.len() - suf]);
    let tail = &ra[ra.len() - suf..];
    (
        format!("{}[-{ma}-]{tail}", &a[..pre]),
        format!("{}{{+{mb}+}}{tail}", &b[..pre]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Outcome;

    #[test]
    fn the_differing_span_of_a_text_is_marked() {
        assert_eq!(
            mark_span("qp 0x40 sc#1 busy", "qp 0x40 sc#2 busy"),
            (
                "qp 0x40 sc#[-1-] busy".into(),
                "qp 0x40 sc#{+2+} busy".into()
            )
        );
        assert_eq!(
            mark_span("abc", "abcd"),
            ("abc[--]".into(), "abc{+d+}".into())
        );
        assert_eq!(
            mark_span("é-x", "é-y"),
            ("é-[-x-]".into(), "é-{+y+}".into())
        );
    }

    /// A leak's size and site show beside the journal that differs, on
    /// the side that has them; they neither make nor shape a difference.
    #[test]
    fn a_leaks_notes_show_with_the_journal() {
        let base = Outcome::new();
        let mut leaky = Outcome::new();
        leaky.journal = vec!["leak: kmalloc in sdma_init".into()];
        leaky.notes.0 = vec!["leak: 64 bytes from sdma.c:1412".into()];
        let (a, b) = (Seen::Done(Box::new(base)), Seen::Done(Box::new(leaky)));
        assert_eq!(shape(&a, &b), ["journal"]);
        let f = fields(&a, &b);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].1, "-");
        assert_eq!(
            f[0].2,
            "leak: kmalloc in sdma_init (notes, not compared: leak: 64 bytes from sdma.c:1412)"
        );
        let mut moved = b.clone();
        if let Seen::Done(o) = &mut moved {
            o.notes.0 = vec!["leak: 72 bytes from sdma.c:1500".into()];
        }
        assert!(moved == b && shape(&b, &moved).is_empty());
    }
}
