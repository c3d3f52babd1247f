//! A patch read and applied: a series split into its patches, and
//! `patch -p1` run in the sandbox on the file sections (`diff`) inside
//! the tree the harness extracts. What the gate and `mutants --in-diff`
//! share.

mod diff;
mod moved;

pub use diff::{
    added_lines, added_outside, adds_identifier, changes_conditionals, comment_only_lines,
    removed_definitions, renamed, touched_lines,
};
pub use moved::{added_lines_merged, carried_lines, moved_hunks};

use std::path::Path;

use anyhow::{Context, Result};

use crate::kernel::KernelTree;
use crate::sandbox::{Limits, Sandbox, Spec};
use diff::sections;

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
    /// The file it was read from, as the command line named it (for the
    /// commands that reproduce a finding); empty when not known.
    pub source: String,
}

/// A series as read: its patches, and the subject of its cover letter
/// when it holds one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Series {
    /// The cover letter's subject without `[PATCH 0/N]`: the series' name.
    pub cover: Option<String>,
    /// The patches, in order.
    pub patches: Vec<Patch>,
}

/// Splits `input` (a `git format-patch` file, an mbox of a series as `git
/// format-patch --stdout` or `b4 am` writes it, one message as a list
/// archive stores it, a cover letter as `b4 am` writes it to its `.cover`
/// file, or a plain diff) into patches, in order. A message is read as
/// mail: its subject's encoded words and its parts' quoted-printable or
/// base64 are decoded, and a patch sent as a text attachment is found. A
/// cover letter (`[PATCH 0/N]`, `[PATCH v2 00/12]`) is never a patch,
/// even with an interdiff in it; nor is a message with no diff (a reply).
pub fn read(input: &str, name: &str) -> Series {
    let mut series = Series::default();
    for m in messages(input).into_iter().map(|m| decoded(&m)) {
        if let Some(subject) = cover_letter(&m) {
            series.cover.get_or_insert(subject);
            continue;
        }
        if !has_diff(&m) {
            continue;
        }
        let (subject, declared) = header(&m, name);
        series.patches.push(Patch {
            subject,
            declared,
            files: files(&m),
            text: m,
            source: String::new(),
        });
    }
    series
}

/// The patches of `input` (see [`read`]), cover letters left out.
pub fn parse(input: &str, name: &str) -> Vec<Patch> {
    read(input, name).patches
}

/// Whether `m` holds a diff: a line starting a file section (`+++ ` or
/// `diff --git `); a diff quoted in a reply (`> diff --git`) is not one.
fn has_diff(m: &str) -> bool {
    ["+++ ", "diff --git "]
        .iter()
        .any(|s| m.starts_with(s) || m.contains(&format!("\n{s}")))
}

/// The subject of `m` without its tags when `m` is a cover letter: mail
/// whose subject's tags number it 0 of a series (`[PATCH 0/2]`, `[RFC
/// PATCH v3 00/12]`, a stable queue's `[PATCH 5.10 000/306]`).
fn cover_letter(m: &str) -> Option<String> {
    if !is_mail(m) {
        return None;
    }
    let (subject, _) = header(m, "");
    let raw = raw_subject(m)?;
    let mut rest = raw.as_str();
    let mut zero_of_n = false;
    while let Some(tag) = rest.strip_prefix('[') {
        let (inside, after) = tag.split_once(']')?;
        zero_of_n |= inside.split_whitespace().any(|w| {
            w.split_once('/').is_some_and(|(i, n)| {
                !i.is_empty()
                    && i.bytes().all(|b| b == b'0')
                    && !n.is_empty()
                    && n.bytes().all(|b| b.is_ascii_digit())
            })
        });
        rest = after.trim_start();
    }
    zero_of_n.then_some(subject)
}

/// The `Subject:` of mail `m` as it stands (tags kept, folded lines
/// joined), from its header block.
fn raw_subject(m: &str) -> Option<String> {
    let mut subject: Option<String> = None;
    for l in m.lines().take_while(|l| !l.is_empty()) {
        match (&mut subject, l.strip_prefix("Subject:")) {
            (None, Some(s)) => subject = Some(s.trim().to_owned()),
            (Some(s), None) if l.starts_with([' ', '\t']) => {
                s.push(' ');
                s.push_str(l.trim());
            }
            (Some(_), _) => break,
            (None, None) => {}
        }
    }
    subject
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
/// Returns the patch as applied: its hunks moved where `patch` put them
/// ([`moved_hunks`]; a patch made on another tree applies at an offset),
/// which is what the lines it touches in `dir` are read from. The inner
/// error is `patch`'s own words.
pub fn apply(sb: &Sandbox, dir: &Path, patch: &Patch, tmp: &Path) -> Result<Result<Patch, String>> {
    let file = tmp.join("patch.diff");
    let kept: String = sections(&patch.text)
        .into_iter()
        .filter(|(path, _)| crate::kernel::extracted(path))
        .map(|(_, body)| body)
        .collect();
    if kept.is_empty() {
        return Ok(Ok(patch.clone()));
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
        if !dry {
            // Moved by the offsets `patch` reports, and every hunk's new
            // start read from its old one, as `patch` reads it.
            let offsets = hunk_offsets(&String::from_utf8_lossy(&out.stdout));
            return Ok(Ok(Patch {
                text: moved_hunks(&patch.text, &offsets),
                ..patch.clone()
            }));
        }
    }
    Ok(Ok(patch.clone()))
}

/// What GNU `patch` says of where it applied each hunk: per file (`patching
/// file PATH`), the offset of each hunk in order (`Hunk #N succeeded at L
/// [with fuzz F] (offset K lines).`; 0 for a hunk it says nothing of).
fn hunk_offsets(out: &str) -> Vec<(String, Vec<i64>)> {
    let mut files: Vec<(String, Vec<i64>)> = vec![];
    for l in out.lines() {
        if let Some(path) = l.strip_prefix("patching file ") {
            // `new.c (renamed from old.c)`: the path patched is the new.
            let mut path = path.trim();
            for how in [" (renamed from ", " (copied from ", " (read from "] {
                if let Some(at) = path.rfind(how).filter(|_| path.ends_with(')')) {
                    path = &path[..at];
                }
            }
            let path = path.trim_matches(|c| c == '\'' || c == '"');
            files.push((path.to_owned(), vec![]));
            continue;
        }
        let Some(rest) = l.strip_prefix("Hunk #") else {
            continue;
        };
        let (Some(n), Some(offset)) = (
            rest.split(' ').next().and_then(|n| n.parse::<usize>().ok()),
            rest.split("(offset ")
                .nth(1)
                .and_then(|o| o.split(' ').next())
                .and_then(|k| k.parse::<i64>().ok()),
        ) else {
            continue;
        };
        if let Some((_, o)) = files.last_mut() {
            if o.len() < n {
                o.resize(n, 0);
            }
            o[n - 1] = offset;
        }
    }
    files
}

/// A copy of `base` at `dir` (replaced if there) with `patches` applied in
/// order ([`apply`]), as the gate applies a series, and the patches as
/// applied (their hunks where `patch` put them); an error naming the
/// patch that does not apply, with `patch`'s words.
pub fn patched_copy(
    base: &KernelTree,
    patches: &[Patch],
    dir: &Path,
) -> Result<(KernelTree, Vec<Patch>)> {
    let sb = Sandbox::get()?;
    let tmp = dir.with_extension("patch-tmp");
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    crate::kernel::copy_tree(&base.root, dir).context("copying the base tree")?;
    let mut applied = vec![];
    for (k, p) in patches.iter().enumerate() {
        match apply(sb, dir, p, &tmp)? {
            Ok(a) => applied.push(a),
            Err(why) => {
                let _ = std::fs::remove_dir_all(&tmp);
                anyhow::bail!(
                    "patch {} ({}) does not apply to {}: {why}",
                    k + 1,
                    p.subject,
                    base.root.display()
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    Ok((KernelTree::open(dir)?, applied))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GNU patch's words read back: a hunk's offset, with fuzz or not,
    /// per file, hunks it says no offset of at 0 or left out (what it printed in a
    /// tree ten lines longer, then eleven with a changed context line).
    #[test]
    fn offsets_are_read_from_what_patch_says() {
        let out = "patching file drivers/a.c\nHunk #2 succeeded at 57 (offset 10 lines).\n\
                   patching file 'b c.h'\nHunk #1 succeeded at 58 with fuzz 2 (offset -11 lines).\n\
                   Hunk #2 succeeded at 88 with fuzz 1.\npatching file d.c\n\
                   patching file e.c (renamed from f.c)\nHunk #1 succeeded at 9 (offset 2 lines).\n";
        assert_eq!(
            hunk_offsets(out),
            [
                ("drivers/a.c".to_string(), vec![0, 10]),
                ("b c.h".to_string(), vec![-11]),
                ("d.c".to_string(), vec![]),
                ("e.c".to_string(), vec![2]),
            ]
        );
    }

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

    /// A series as `b4 am -o DIR` writes it to its `.mbx`: `From git@z`
    /// lines, headers b4 adds (`X-Mailer`, a folded `X-Developer-Signature`),
    /// a folded subject, and `Link:` trailers.
    const B4_MBX: &str = "From git@z Thu Jan  1 00:00:00 1970
Subject: [PATCH v2 1/2] IB/hfi1: post sends at the PIO threshold through
 the send engine
From: A Dev <a@example.org>
Date: Mon, 06 Jan 2025 10:00:01 +0000
Message-Id: <20250106-hfi1-v2-1-abc@example.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=\"utf-8\"
Content-Transfer-Encoding: 7bit
X-Mailer: b4 0.16.0
X-Developer-Signature: v=1; a=openpgp-sha256; l=812; i=a@example.org;
 h=from:subject:message-id; bh=AAAA
X-Developer-Key: i=a@example.org; a=openpgp; fpr=0000

The threshold is exclusive.

Conformance-Changes: hfi1_setup_wqe
Signed-off-by: A Dev <a@example.org>
Link: https://patch.msgid.link/20250106-hfi1-v2-1-abc@example.org
---
 drivers/infiniband/hw/hfi1/qp.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/drivers/infiniband/hw/hfi1/qp.c b/drivers/infiniband/hw/hfi1/qp.c
index 1111111..2222222 100644
--- a/drivers/infiniband/hw/hfi1/qp.c
+++ b/drivers/infiniband/hw/hfi1/qp.c
@@ -1 +1 @@
-a
+b
-- 
2.39.5

From git@z Thu Jan  1 00:00:00 1970
Subject: [PATCH v2 2/2] IB/hfi1: say why in a comment
From: A Dev <a@example.org>
Date: Mon, 06 Jan 2025 10:00:02 +0000
Message-Id: <20250106-hfi1-v2-2-abc@example.org>
X-Mailer: b4 0.16.0

Signed-off-by: A Dev <a@example.org>
Link: https://patch.msgid.link/20250106-hfi1-v2-2-abc@example.org
---
diff --git a/drivers/infiniband/hw/hfi1/qp.c b/drivers/infiniband/hw/hfi1/qp.c
--- a/drivers/infiniband/hw/hfi1/qp.c
+++ b/drivers/infiniband/hw/hfi1/qp.c
@@ -1 +1 @@
-b
+c
-- 
2.39.5
";

    #[test]
    fn a_b4_mbx_splits_into_its_patches() {
        let s = read(B4_MBX, "v2_20250106_a_hfi1.mbx");
        assert_eq!(s.cover, None);
        assert_eq!(s.patches.len(), 2);
        assert_eq!(
            s.patches[0].subject,
            "IB/hfi1: post sends at the PIO threshold through the send engine"
        );
        assert_eq!(s.patches[0].declared, ["hfi1_setup_wqe"]);
        assert_eq!(s.patches[0].files, ["drivers/infiniband/hw/hfi1/qp.c"]);
        assert!(s.patches[0]
            .text
            .contains("Link: https://patch.msgid.link/20250106-hfi1-v2-1-abc@example.org\n"));
        assert!(s.patches[0].text.ends_with("-a\n+b\n-- \n2.39.5\n\n"));
        assert_eq!(s.patches[1].subject, "IB/hfi1: say why in a comment");
        assert!(s.patches[1].text.ends_with("-b\n+c\n-- \n2.39.5\n"));
    }

    /// The cover letter as `b4 am -o DIR` writes it to its `.cover`: no
    /// mbox line, a diffstat, no diff.
    const B4_COVER: &str = "Subject: [PATCH v2 0/2] IB/hfi1: the PIO
 threshold
From: A Dev <a@example.org>
Date: Mon, 06 Jan 2025 10:00:00 +0000
Message-Id: <20250106-hfi1-v2-0-abc@example.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=\"utf-8\"
Content-Transfer-Encoding: 7bit

Two patches.

---
A Dev (2):
      IB/hfi1: post sends at the PIO threshold through the send engine
      IB/hfi1: say why in a comment

 drivers/infiniband/hw/hfi1/qp.c | 4 ++--
 1 file changed, 2 insertions(+), 2 deletions(-)
---
base-commit: 0123456789abcdef0123456789abcdef01234567
change-id: 20250106-hfi1-abc
";

    #[test]
    fn a_cover_letter_is_the_series_name_not_a_patch() {
        let s = read(B4_COVER, "v2_20250106_a_hfi1.cover");
        assert_eq!(s.cover.as_deref(), Some("IB/hfi1: the PIO threshold"));
        assert!(s.patches.is_empty());
        // In front of its patches, in one mbox, with an interdiff (a diff
        // of its own): still not a patch.
        let interdiff = "\nInterdiff against v1:\ndiff --git a/drivers/infiniband/hw/hfi1/qp.c b/drivers/infiniband/hw/hfi1/qp.c\n--- a/drivers/infiniband/hw/hfi1/qp.c\n+++ b/drivers/infiniband/hw/hfi1/qp.c\n@@ -1 +1 @@\n-x\n+y\n\n";
        let mbox = format!("From git@z Thu Jan  1 00:00:00 1970\n{B4_COVER}{interdiff}{B4_MBX}");
        let s = read(&mbox, "series.mbox");
        assert_eq!(s.cover.as_deref(), Some("IB/hfi1: the PIO threshold"));
        let subjects: Vec<&str> = s.patches.iter().map(|p| p.subject.as_str()).collect();
        assert_eq!(
            subjects,
            [
                "IB/hfi1: post sends at the PIO threshold through the send engine",
                "IB/hfi1: say why in a comment"
            ]
        );
        // Other ways a series numbers its cover letter; a patch numbered
        // 1, or 10 of 20, is none.
        for (subject, cover) in [
            ("[RFC PATCH v3 00/12] x", true),
            ("[PATCH 5.10 000/306] 5.10.1-rc1 review", true),
            ("[PATCH] [0/2] x", true),
            ("[PATCH 1/2] x", false),
            ("[PATCH 10/20] x", false),
            ("Re: [PATCH 0/2] x", false),
            ("[PATCH 0/] x", false),
        ] {
            let m = format!("From: a@example.org\nSubject: {subject}\n\nbody\n");
            assert_eq!(cover_letter(&m).is_some(), cover, "{subject}");
        }
    }

    #[test]
    fn a_reply_quoting_a_patch_is_no_patch() {
        let reply = "From: R <r@example.org>\nSubject: Re: [PATCH 1/2] IB/hfi1: x\n\n\
                     > diff --git a/drivers/infiniband/hw/hfi1/qp.c b/drivers/infiniband/hw/hfi1/qp.c\n\
                     > +++ b/drivers/infiniband/hw/hfi1/qp.c\n\nReviewed-by: R <r@example.org>\n";
        assert_eq!(read(reply, "r.eml"), Series::default());
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
