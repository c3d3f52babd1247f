//! A patch read and applied: a series split into its patches, and
//! `patch -p1` run in the sandbox on the file sections (`diff`) inside
//! the tree the harness extracts.

use std::path::Path;

use anyhow::{Context, Result};

use super::diff::sections;
use crate::sandbox::{Limits, Sandbox, Spec};

/// One patch of a series.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    /// The subject without `[PATCH n/m]`, or the file name of a plain diff.
    pub subject: String,
    /// Functions the patch says it changes (`Conformance-Changes:`).
    pub declared: Vec<String>,
    /// The files its diff touches (paths in the tree, `b/` side).
    pub files: Vec<String>,
    /// The whole text, message and diff.
    pub text: String,
}

/// Splits `input` (a `git format-patch` file, an mbox of a series, one
/// message as a list archive stores it, or a plain diff) into patches, in
/// order. A message is read as mail: its subject's encoded words and its
/// parts' quoted-printable or base64 are decoded, and a patch sent as a
/// text attachment is found.
pub fn parse(input: &str, name: &str) -> Vec<Patch> {
    messages(input)
        .into_iter()
        .map(|m| decoded(&m))
        .filter(|m| m.contains("\n+++ ") || m.starts_with("+++ ") || m.contains("diff --git "))
        .map(|m| {
            let (subject, declared) = header(&m, name);
            Patch {
                subject,
                declared,
                files: files(&m),
                text: m,
            }
        })
        .collect()
}

/// The messages of an mbox (a new one at each `From ` line that starts
/// it), or the whole input when it is a single patch or a plain diff.
fn messages(input: &str) -> Vec<String> {
    let mut messages: Vec<String> = vec![];
    let mut cur = String::new();
    for line in input.split_inclusive('\n') {
        let mbox_from = line.starts_with("From ") && (cur.is_empty() || cur.ends_with("\n\n"));
        if mbox_from && !cur.trim().is_empty() {
            messages.push(std::mem::take(&mut cur));
        }
        cur.push_str(line);
    }
    if !cur.trim().is_empty() {
        messages.push(cur);
    }
    messages
}

/// Whether `m` is a mail message: after an optional mbox `From ` line, a
/// header block (`Name: value` lines and their continuations) naming a
/// subject or a sender, before the first blank line. A plain diff is not.
fn is_mail(m: &str) -> bool {
    let mut lines = m.lines().peekable();
    if lines.peek().is_some_and(|l| l.starts_with("From ")) {
        lines.next();
    }
    let mut named = false;
    for l in lines {
        if l.is_empty() {
            return named;
        }
        if l.starts_with([' ', '\t']) {
            continue;
        }
        let Some((name, _)) = l.split_once(':') else {
            return false;
        };
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_graphic()) {
            return false;
        }
        named |= ["subject", "from"].contains(&name.to_ascii_lowercase().as_str());
    }
    false
}

/// The message `m` as the rest of the gate reads it: `Subject:` (decoded)
/// and the text of every body part and text attachment, decoded, in
/// order; `m` itself when it is not mail or cannot be parsed.
fn decoded(m: &str) -> String {
    use mail_parser::{MessageParser, PartType};
    if !is_mail(m) {
        return m.to_owned();
    }
    let raw = m
        .strip_prefix("From ")
        .map_or(m, |r| r.split_once('\n').map_or("", |x| x.1));
    let Some(msg) = MessageParser::default().parse(raw) else {
        return m.to_owned();
    };
    // The header block as it was (a trailer may sit there), but for the
    // subject, decoded on one line.
    let mut out = String::new();
    let mut in_subject = false;
    for l in raw.lines().take_while(|l| !l.is_empty()) {
        let folded = l.starts_with([' ', '\t']);
        in_subject = (in_subject && folded) || l.to_ascii_lowercase().starts_with("subject:");
        if !in_subject {
            out.push_str(l);
            out.push('\n');
        }
    }
    if let Some(s) = msg.subject() {
        out.push_str(&format!("Subject: {s}\n"));
    }
    out.push('\n');
    for part in &msg.parts {
        let text = match &part.body {
            PartType::Text(t) => Some(t.as_ref()),
            // A patch attached as application/octet-stream or text/x-patch
            // without a charset.
            PartType::Binary(b) | PartType::InlineBinary(b) => std::str::from_utf8(b).ok(),
            _ => None,
        };
        if let Some(t) = text {
            out.push_str(t);
            if !t.ends_with('\n') {
                out.push('\n');
            }
        }
    }
    out
}

/// A message's subject (folded lines joined, `[PATCH …]` dropped; `name`
/// when it has none) and the functions its `Conformance-Changes:`
/// trailers declare.
fn header(m: &str, name: &str) -> (String, Vec<String>) {
    let head = m.split("\ndiff --git ").next().unwrap_or(m);
    let head = head.split("\n--- ").next().unwrap_or(head);
    let mut subject = String::new();
    let mut in_subject = false;
    let mut declared = vec![];
    for l in head.lines() {
        if let Some(s) = l.strip_prefix("Subject:") {
            subject = s.trim().to_owned();
            in_subject = true;
            continue;
        }
        if in_subject && (l.starts_with(' ') || l.starts_with('\t')) {
            subject.push(' ');
            subject.push_str(l.trim());
            continue;
        }
        in_subject = false;
        if let Some(v) = l.trim().strip_prefix("Conformance-Changes:") {
            declared.extend(
                v.split([',', ' '])
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned),
            );
        }
    }
    while subject.starts_with('[') {
        match subject.find(']') {
            Some(i) => subject = subject[i + 1..].trim().to_owned(),
            None => break,
        }
    }
    if subject.is_empty() {
        subject = name.to_owned();
    }
    (subject, declared)
}

/// The files a message's diff touches (each file section's path, see
/// [`sections`]), each once.
fn files(m: &str) -> Vec<String> {
    let mut files: Vec<String> = vec![];
    for (p, _) in sections(m) {
        if !files.contains(&p) {
            files.push(p);
        }
    }
    files
}

/// Applies `patch` to the tree at `dir` with `patch -p1`, in the sandbox;
/// a dry run first, so that a patch that does not apply changes nothing.
/// File sections outside the tree the harness extracts are left out.
/// The inner error is `patch`'s own words.
pub(super) fn apply(
    sb: &Sandbox,
    dir: &Path,
    patch: &Patch,
    tmp: &Path,
) -> Result<Result<(), String>> {
    let file = tmp.join("patch.diff");
    let kept: String = sections(&patch.text)
        .into_iter()
        .filter(|(path, _)| crate::kernel::extracted(path))
        .map(|(_, body)| body)
        .collect();
    if kept.is_empty() {
        return Ok(Ok(()));
    }
    std::fs::write(&file, kept).with_context(|| format!("writing {}", file.display()))?;
    for dry in [true, false] {
        let spec = Spec::new(Limits::TOOL)
            .writable(dir)
            .read_only(&file)
            .cwd(dir);
        let mut c = sb.command(&spec, Path::new("/usr/bin/patch"))?;
        c.args([
            "-p1",
            "--batch",
            "--forward",
            "--no-backup-if-mismatch",
            "-i",
        ])
        .arg(crate::sandbox::absolute(&file));
        if dry {
            c.arg("--dry-run");
        }
        let out = c
            .output()
            .context("running patch (apt-get install patch)")?;
        if !out.status.success() {
            let mut msg = String::from_utf8_lossy(&out.stdout).into_owned();
            msg.push_str(&String::from_utf8_lossy(&out.stderr));
            return Ok(Err(msg.trim().to_owned()));
        }
    }
    Ok(Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SERIES: &str = "From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001
From: A <a@example.org>
Subject: [PATCH 1/2] IB/hfi1: post sends at the threshold
 later
Conformance-Changes: hfi1_setup_wqe

Conformance-Changes: mtu_to_path_mtu, hfi1_qp_wakeup
---
 drivers/infiniband/hw/hfi1/qp.c | 2 +-

diff --git a/drivers/infiniband/hw/hfi1/qp.c b/drivers/infiniband/hw/hfi1/qp.c
--- a/drivers/infiniband/hw/hfi1/qp.c
+++ b/drivers/infiniband/hw/hfi1/qp.c
@@ -1 +1 @@
-a
+b

From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001
Subject: [PATCH 2/2] IB/hfi1: rc
---
--- a/drivers/infiniband/hw/hfi1/rc.c\t2024-01-01
+++ b/drivers/infiniband/hw/hfi1/rc.c\t2024-01-01
@@ -1 +1 @@
-a
+b
";

    #[test]
    fn an_mbox_series_splits_into_its_patches() {
        let p = parse(SERIES, "series.mbox");
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].subject, "IB/hfi1: post sends at the threshold later");
        assert_eq!(
            p[0].declared,
            ["hfi1_setup_wqe", "mtu_to_path_mtu", "hfi1_qp_wakeup"]
        );
        assert_eq!(p[0].files, ["drivers/infiniband/hw/hfi1/qp.c"]);
        assert_eq!(p[1].subject, "IB/hfi1: rc");
        assert_eq!(p[1].files, ["drivers/infiniband/hw/hfi1/rc.c"]);
    }

    /// A message as a list archive stores it: no mbox line, a stable
    /// queue subject in RFC 2047 words, `commit X upstream.`, the body in
    /// quoted-printable (`=3D`, a soft line break).
    const ARCHIVED: &str = "Return-Path: <s@example.org>
From: Stable <s@example.org>
Subject: =?UTF-8?q?=5BPATCH_5=2E10_069/306=5D_IB/hfi1=3A_Fix_the_?=
 =?UTF-8?q?threshold?=
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: quoted-printable

commit 0123456789abcdef0123456789abcdef01234567 upstream.

Conformance-Changes: hfi1_setup_wqe
---
diff --git a/drivers/infiniband/hw/hfi1/qp.c b/drivers/infiniband/hw/hfi1/qp.c
--- a/drivers/infiniband/hw/hfi1/qp.c
+++ b/drivers/infiniband/hw/hfi1/qp.c
@@ -1 +1 @@
-\tif (wqe->length <=3D piothreshold)
+\tif (wqe->length < piothreshold && wqe->length !=3D 0 && qp->s_flags =
& 1)
";

    #[test]
    fn an_archived_message_is_decoded() {
        let p = parse(ARCHIVED, "m.eml");
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].subject, "IB/hfi1: Fix the threshold");
        assert_eq!(p[0].declared, ["hfi1_setup_wqe"]);
        assert_eq!(p[0].files, ["drivers/infiniband/hw/hfi1/qp.c"]);
        assert!(p[0]
            .text
            .contains("\n-\tif (wqe->length <= piothreshold)\n"));
        assert!(p[0].text.contains(
            "\n+\tif (wqe->length < piothreshold && wqe->length != 0 && qp->s_flags & 1)\n"
        ));
    }

    #[test]
    fn a_patch_attached_in_base64_is_found() {
        let diff = "--- a/drivers/infiniband/hw/hfi1/pio.c\n+++ b/drivers/infiniband/hw/hfi1/pio.c\n@@ -1 +1 @@\n-a\n+b\n";
        let b64 = base64(diff.as_bytes());
        let m = format!(
            "From: A <a@example.org>\nSubject: [PATCH] pio\nMIME-Version: 1.0\n\
             Content-Type: multipart/mixed; boundary=\"XX\"\n\n--XX\n\
             Content-Type: text/plain\n\nSee attached.\n--XX\n\
             Content-Type: text/x-patch; name=\"p.diff\"\n\
             Content-Disposition: attachment; filename=\"p.diff\"\n\
             Content-Transfer-Encoding: base64\n\n{b64}\n--XX--\n"
        );
        let p = parse(&m, "m.eml");
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].subject, "pio");
        assert_eq!(p[0].files, ["drivers/infiniband/hw/hfi1/pio.c"]);
        assert!(p[0].text.contains(diff));
    }

    /// Base64 (RFC 4648) in lines of 76, as mailers write it.
    fn base64(b: &[u8]) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut s = String::new();
        for c in b.chunks(3) {
            let n = (u32::from(c[0]) << 16)
                | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
                | u32::from(*c.get(2).unwrap_or(&0));
            for k in 0..4 {
                s.push(if k <= c.len() {
                    A[(n >> (18 - 6 * k) & 63) as usize] as char
                } else {
                    '='
                });
            }
        }
        s.as_bytes()
            .chunks(76)
            .map(|l| String::from_utf8_lossy(l).into_owned())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn a_plain_diff_is_one_patch_named_by_its_file() {
        let d = "--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\n";
        let p = parse(d, "fix.diff");
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].subject, "fix.diff");
        assert_eq!(p[0].files, ["x.c"]);
        assert!(parse("no diff here\n", "x").is_empty());
    }
}
