use super::*;
use crate::judge::boundaries::Comparison;
use crate::judge::coverage::Extent;

const LIST: &str = r#"
[[boundary]]
function = "f"
line = "for (n = 0; n < m; n++) {"
expr = "n < m"
missed = ["above"]
reason = "A loop counter stops at its bound."

[[boundary]]
function = "f"
line = "if (x > 3)"
expr = "x > 3"
missed = ["below", "equal", "above"]
reached = false
since = "6.1"
reason = "Never run."
"#;

fn cmp(text: &str, expr: &str, sides: u32, runs: u64) -> Comparison {
    let op = [">=", "<=", "<", ">"]
        .into_iter()
        .find(|o| expr.contains(*o))
        .unwrap();
    Comparison {
        line: 10,
        col: 5,
        text: text.into(),
        op,
        expr: expr.into(),
        sides,
        runs,
    }
}

fn func(comparisons: Vec<Comparison>) -> FuncBoundaries {
    FuncBoundaries {
        at: Extent {
            file: "drivers/infiniband/hw/hfi1/qp.c".into(),
            name: "f".into(),
            start: 1,
            end: 20,
        },
        comparisons,
        unmeasured: vec![],
    }
}

/// Below and equal seen (bits of `judge::boundaries`: below 2, equal 1).
const BELOW_EQUAL: u32 = 3;

#[test]
fn entries_are_read_with_their_sides_and_series() {
    let e = parse(LIST).unwrap();
    assert_eq!(e.len(), 2);
    assert_eq!(e[0].missed, vec![Side::Above]);
    assert!(e[0].reached);
    assert_eq!(e[1].missed, Side::ALL.to_vec());
    assert!(!e[1].reached);
    assert_eq!(e[1].at, 9);
    assert_eq!(applicable(&e, "5.10").len(), 1);
    assert_eq!(applicable(&e, "6.12").len(), 2);
}

#[test]
fn bad_entries_name_their_line() {
    let at = |t: &str| parse(t).unwrap_err();
    let p =
        at("\n[[boundary]]\nfunction = \"f\"\nline = \"x\"\nexpr = \"a < b\"\nreason = \"r\"\n");
    assert_eq!(p.line, 2);
    assert!(p.msg.contains("missed"), "{}", p.msg);
    let p = at("[[boundary]]\nfunction = \"f\"\nline = \"x\"\nexpr = \"a\"\nmissed = [\"side\"]\nreason = \"r\"\n");
    assert!(p.msg.contains("not a side"), "{}", p.msg);
    let p = at("[[boundary]]\nfunction = \"f\"\nline = \"x\"\nexpr = \"a\"\nmissed = [\"equal\"]\nreached = false\nreason = \"r\"\n");
    assert!(p.msg.contains("every side"), "{}", p.msg);
    let p = at("[[boundary]]\nfunction = \"f\"\nwhat = 1\n");
    assert!(p.msg.contains("unknown key"), "{}", p.msg);
    let p = at("[[boundary]]\nfunction = \"f\"\nline = \"x\"\nexpr = \"a\"\nmissed = [\"equal\"]\nreason = \" \"\n");
    assert!(p.msg.contains("empty reason"), "{}", p.msg);
}

#[test]
fn a_listed_miss_agrees_and_an_unlisted_one_or_a_stale_entry_does_not() {
    let entries = parse(LIST).unwrap();
    let cov = vec![func(vec![
        cmp("for (n = 0; n < m; n++) {", "n < m", BELOW_EQUAL, 9),
        cmp("if (x > 3)", "x > 3", 0, 0),
    ])];
    assert_eq!(check(&cov, &entries), vec![]);
    // The corpus now reaches `x > 3` at every side: the entry is stale.
    let cov = vec![func(vec![
        cmp("for (n = 0; n < m; n++) {", "n < m", BELOW_EQUAL, 9),
        cmp("if (x > 3)", "x > 3", 7, 3),
    ])];
    let p = check(&cov, &entries);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(p[0].line, 9);
    // A miss no entry names, and a listed one whose sides changed.
    let cov = vec![func(vec![
        cmp("for (n = 0; n < m; n++) {", "n < m", 1, 9),
        cmp("if (x > 3)", "x > 3", 0, 0),
        cmp("if (y >= z)", "y >= z", 1, 2),
    ])];
    let p = check(&cov, &entries);
    assert_eq!(p.len(), 2, "{p:?}");
    assert!(p[0].msg.contains("misses below, above now"), "{}", p[0].msg);
    assert_eq!(p[1].line, 0);
    assert!(
        p[1].msg.contains("`y >= z` misses below, above"),
        "{}",
        p[1].msg
    );
}
