//! The git commit a tree is checked out at, for reports: read from the
//! tree's own `.git` directory, never by running git (a tree's git config
//! can make git run programs).

use std::path::Path;

use super::tree::read_tree_text;

/// What a tree's `.git` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitCheckout {
    /// The full hash of the commit checked out (`HEAD`).
    pub commit: String,
    /// The `https://` URL of its `origin` remote, without credentials.
    pub url: Option<String>,
}

/// The commit `HEAD` names in `root/.git` (a branch, a packed branch or a
/// detached commit), and the `origin` remote's URL; `None` when the tree
/// has no `.git` directory of its own (a worktree's `.git` file points
/// outside the tree and is not followed) or it names no full SHA-1.
pub fn checkout(root: &Path) -> Option<GitCheckout> {
    let git = root.join(".git");
    if !git.is_dir() {
        return None;
    }
    let read = |rel: &str| read_tree_text(root, &git.join(rel)).ok();
    let head = read("HEAD")?;
    let head = head.trim();
    let commit = match head.strip_prefix("ref:") {
        None => head.to_owned(),
        Some(r) => {
            let r = r.trim();
            if r.split('/').any(|c| c.is_empty() || c == "..") || !r.starts_with("refs/") {
                return None;
            }
            match read(r) {
                Some(h) => h.trim().to_owned(),
                None => packed(&read("packed-refs")?, r)?,
            }
        }
    };
    let full = commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit());
    full.then(|| GitCheckout {
        commit: commit.to_ascii_lowercase(),
        url: read("config").and_then(|c| origin_url(&c)),
    })
}

/// The hash `packed-refs` gives `name`.
fn packed(text: &str, name: &str) -> Option<String> {
    text.lines()
        .filter_map(|l| l.split_once(' '))
        .find(|(_, r)| *r == name)
        .map(|(h, _)| h.to_owned())
}

/// The URL of `[remote "origin"]` in a git config, when it is `https://`
/// with no user or password in it.
fn origin_url(config: &str) -> Option<String> {
    let mut in_origin = false;
    for l in config.lines().map(str::trim) {
        if l.starts_with('[') {
            in_origin = l == "[remote \"origin\"]";
        } else if let (true, Some((k, v))) = (in_origin, l.split_once('=')) {
            let v = v.trim();
            if k.trim() == "url" && v.starts_with("https://") && !v.contains('@') {
                return Some(v.to_owned());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use fs_err as fs;

    /// A `.git` of `files` under a fresh directory.
    fn repo(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("hfi1-git-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        for (f, text) in files {
            let p = dir.join(".git").join(f);
            fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            fs::write(&p, text).expect("write");
        }
        dir
    }

    const HASH: &str = "0123456789abcdef0123456789abcdef01234567";

    #[test]
    fn head_on_a_branch_loose_or_packed_or_detached() {
        let config = "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git\n";
        let loose = repo(
            "loose",
            &[
                ("HEAD", "ref: refs/heads/main\n"),
                ("refs/heads/main", &format!("{HASH}\n")),
                ("config", config),
            ],
        );
        let got = checkout(&loose).expect("a checkout");
        assert_eq!(got.commit, HASH);
        assert_eq!(
            got.url.as_deref(),
            Some("https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git")
        );
        let packed = repo(
            "packed",
            &[
                ("HEAD", "ref: refs/heads/v6\n"),
                (
                    "packed-refs",
                    &format!("# pack-refs\n{HASH} refs/heads/v6\n"),
                ),
                (
                    "config",
                    "[remote \"origin\"]\n\turl = https://u:p@example.org/x.git\n",
                ),
            ],
        );
        let got = checkout(&packed).expect("a packed ref");
        assert_eq!(
            (got.commit.as_str(), got.url),
            (HASH, None),
            "no credentials"
        );
        let detached = repo(
            "detached",
            &[("HEAD", &format!("{}\n", HASH.to_uppercase()))],
        );
        assert_eq!(checkout(&detached).map(|c| c.commit), Some(HASH.to_owned()));
        let escape = repo("escape", &[("HEAD", "ref: refs/../../etc/passwd\n")]);
        assert_eq!(checkout(&escape), None);
        let short = repo("short", &[("HEAD", "0123abc\n")]);
        assert_eq!(checkout(&short), None);
        assert_eq!(checkout(&std::env::temp_dir().join("hfi1-git-none")), None);
        for d in [loose, packed, detached, escape, short] {
            let _ = fs::remove_dir_all(d);
        }
    }
}
