#!/usr/bin/env bash
# b4 and patchwork through the gate: a series of a cover letter and two
# patches against the 6.12 tree's qp.c (made here from the fetched tree:
# one changes behaviour, one only a comment), as git format-patch --stdout
# writes it; `b4 am` (PyPI, offline, a private HOME) turns it into its
# .mbx and .cover. The gate must give each patch the same verdict on the
# mbox and on b4's files (the .cover passed too, and never judged), and
# ci/gate.sh must write the check patchwork's REST API takes and show, with
# --dry-run, the request it would post (the token redacted). Nothing is
# posted. Installs b4 and jq when missing.
#
#   ci/check-b4.sh [WORK_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-target/check-b4}"
rm -rf "$work"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
# Generated vectors per function: the comparison needs a few, not 80,000.
random="${CHECK_B4_RANDOM:-300}"
fail() { echo "[b4] FAIL: $*" >&2; exit 1; }

if ! command -v jq >/dev/null; then
    apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends jq >&2
fi
python3 -c 'import b4' 2>/dev/null || python3 -m pip install -q b4 >&2
# b4 and git see no user's configuration (a HOME of their own), and b4
# asks no server (--offline-mode).
mkdir -p "$work/home"
git() { HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 command git "$@"; }
b4() { HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 python3 -m b4.command --offline-mode "$@"; }
git config --global user.name "Check B4"
git config --global user.email check-b4@example.org
echo "[b4] b4 $(b4 --version)"

tree="$(cargo xtask kernel fetch 6.12 | tail -1)"
qp=drivers/infiniband/hw/hfi1/qp.c
repo="$work/repo"
mkdir -p "$repo/${qp%/*}"
cp "$tree/$qp" "$repo/$qp"
export GIT_AUTHOR_DATE="2025-01-06T10:00:00Z" GIT_COMMITTER_DATE="2025-01-06T10:00:00Z"
commit() { git -C "$repo" commit -q -a -m "$1" -m "$2" -m "Signed-off-by: Check B4 <check-b4@example.org>"; }
edit() { # SED_EXPR: must change qp.c
    sed -i "$1" "$repo/$qp"
    git -C "$repo" diff --quiet && fail "'$1' changes nothing in $qp: the tree moved; pick another line"
    true
}
git -C "$repo" init -q
git -C "$repo" add .
git -C "$repo" commit -q -m base
edit 's/if (wqe->length <= piothreshold)/if (wqe->length < piothreshold)/'
commit "IB/hfi1: post sends at the PIO threshold through the send engine" \
    "A send of exactly piothreshold bytes is scheduled, not posted at once."
edit 's/for piothreshold packets is necessary\./for piothreshold packets is required./'
commit "IB/hfi1: say required, not necessary, in a comment" "A comment only."
git -C "$repo" format-patch -q --cover-letter --thread=shallow --stdout -2 > "$work/series.mbox"
sed -i -e 's/\*\*\* SUBJECT HERE \*\*\*/IB\/hfi1: the PIO threshold/' \
    -e 's/\*\*\* BLURB HERE \*\*\*/One change of behaviour, one comment./' "$work/series.mbox"
msgid="$(sed -n 's/^message-id: *<\(.*\)>$/\1/Ip' "$work/series.mbox" | head -1)"
[ -n "$msgid" ] || fail "no Message-ID in the series git format-patch wrote"
grep -q '^Subject: \[PATCH 0/2\] IB/hfi1: the PIO threshold$' "$work/series.mbox" ||
    fail "the series has no cover letter [PATCH 0/2]"

# b4's files: the patches in the .mbx, the cover letter in the .cover.
# (b4 finds the thread by its cover letter's Message-ID.)
b4 am -m "$work/series.mbox" -o "$work/b4" "$msgid" > "$work/b4.log" 2>&1 ||
    { cat "$work/b4.log"; fail "b4 am"; }
mbx=("$work"/b4/*.mbx)
cover=("$work"/b4/*.cover)
[ ${#mbx[@]} = 1 ] && [ -f "${mbx[0]}" ] && [ ${#cover[@]} = 1 ] && [ -f "${cover[0]}" ] ||
    { ls -l "$work/b4"; fail "b4 am wrote no .mbx and .cover"; }
grep -q '^From git@z ' "${mbx[0]}" || fail "${mbx[0]} is not b4's mbox"

# A cover letter alone is nothing to judge; the gate says so before it builds.
s=0
cargo xtask gate "${cover[0]}" > /dev/null 2> "$work/cover-alone.log" || s=$?
[ $s = 2 ] && grep -q 'only a cover letter' "$work/cover-alone.log" ||
    { cat "$work/cover-alone.log"; fail "the .cover alone: exit $s, not 2 with 'only a cover letter'"; }

# The mbox as it is.
s=0
cargo xtask gate --random "$random" --format json "$work/series.mbox" > "$work/mbox.json" 2> "$work/mbox.log" || s=$?
[ $s = 1 ] || { tail "$work/mbox.log"; fail "the gate on the mbox: exit $s, expected 1 (changes)"; }
grep -q '^\[gate\] series "IB/hfi1: the PIO threshold": ' "$work/mbox.log" ||
    fail "the gate did not name the series by its cover letter"

# b4's files, through ci/gate.sh, with a dry run of the post.
printf 'pw-secret-0123456789\n' > "$work/token"
s=0
bash ci/gate.sh --target-url https://ci.example.org/jobs/7 \
    --post https://patchwork.example.org/api/1.2/patches/4242/checks/ \
    --token-file "$work/token" --dry-run \
    "$work/out" "${cover[0]}" "${mbx[0]}" -- --random "$random" > "$work/gate.out" 2>&1 || s=$?
cat "$work/gate.out"
[ $s = 1 ] || fail "ci/gate.sh on b4's files: exit $s, expected 1"

# The one-liner: b4 am -o - (the patches, no cover letter) into ci/gate.sh -.
s=0
b4 am -m "$work/series.mbox" -o - "$msgid" 2> "$work/b4-stdout.log" |
    bash ci/gate.sh "$work/out-stdin" - -- --random "$random" > "$work/gate-stdin.out" 2>&1 || s=$?
[ $s = 1 ] || { cat "$work/b4-stdout.log" "$work/gate-stdin.out"; fail "b4 am -o - | ci/gate.sh OUT -: exit $s, expected 1"; }

verdicts() { jq -c '[.suites[] | {name, verdict}]' "$1"; }
want='[{"name":"6.12: IB/hfi1: post sends at the PIO threshold through the send engine","verdict":"changes"},{"name":"6.12: IB/hfi1: say required, not necessary, in a comment","verdict":"preserves"}]'
[ "$(verdicts "$work/mbox.json")" = "$want" ] || fail "verdicts on the mbox: $(verdicts "$work/mbox.json")"
[ "$(verdicts "$work/out/gate.json")" = "$want" ] || fail "verdicts on b4's files: $(verdicts "$work/out/gate.json")"
[ "$(verdicts "$work/out-stdin/gate.json")" = "$want" ] ||
    fail "verdicts on b4 am -o -: $(verdicts "$work/out-stdin/gate.json")"
line="$(sed -n 's/^patchwork: //p' "$work/mbox.log")"
for f in "$work/out/patchwork" "$work/out-stdin/patchwork"; do
    [ "$line" = "$(cat "$f")" ] || fail "patchwork lines differ: '$line' and $f's '$(cat "$f")'"
done

# The check: the gate's line, as patchwork's API takes it.
jq -e --arg line "$line" '
    keys == ["context", "description", "state", "target_url"]
    and .state == "warning" and .context == "hfi1-conformance"
    and $line == "state=\(.state) context=\(.context) description=\"\(.description)\""
    and .target_url == "https://ci.example.org/jobs/7"' "$work/out/check.json" > /dev/null ||
    { cat "$work/out/check.json"; fail "check.json is not the gate's line"; }
jq -e 'has("target_url") | not' "$work/out-stdin/check.json" > /dev/null ||
    fail "check.json has a target_url though none was given"
# The dry run: the request, the token never shown, the body check.json.
grep -q 'pw-secret' "$work/gate.out" && fail "the token was shown"
req="$(sed -n '/^--dry-run: not sent:$/,$p' "$work/gate.out")"
head="$(printf '%s\n' "$req" | sed -n '2,/^$/p')"
[ "$head" = "POST https://patchwork.example.org/api/1.2/patches/4242/checks/
Authorization: Token <redacted>
Content-Type: application/json
Accept: application/json" ] || fail "the dry run's request: $head"
body="$(printf '%s\n' "$req" | sed '1,/^$/d')"
[ "$(printf '%s' "$body" | jq -cS .)" = "$(jq -cS . "$work/out/check.json")" ] ||
    fail "the dry run's body is not check.json: $body"

# What ci/gate.sh refuses before it runs the gate.
refuses() { # WHY ARGS...: exit 2, nothing run
    local why=$1 s=0
    shift
    PW_TOKEN= bash ci/gate.sh "$@" > "$work/refused.log" 2>&1 || s=$?
    [ $s = 2 ] || { cat "$work/refused.log"; fail "ci/gate.sh $*: exit $s, expected 2 ($why)"; }
    ! grep -q '^\[gate\]' "$work/refused.log" || fail "ci/gate.sh $*: ran the gate ($why)"
}
refuses "no checks URL" --post https://patchwork.example.org/api/1.2/patches/4242/ --dry-run "$work/r" "${mbx[0]}"
refuses "no token" --post https://patchwork.example.org/api/1.2/patches/4242/checks/ "$work/r" "${mbx[0]}"
refuses "no such file" "$work/r" "$work/missing.mbx"
refuses "--dry-run without --post" --dry-run "$work/r" "${mbx[0]}"
echo "[b4] b4 am's .mbx and .cover: the verdicts of the mbox ($line); check.json and the dry run as patchwork takes them"
