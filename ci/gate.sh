#!/usr/bin/env bash
# For a patch bot: judge a series with the gate, leave every report in a
# folder, write the patchwork check, and post it.
#
#   ci/gate.sh [--target-url URL] [--post CHECKS_URL [--token-file F] [--dry-run]]
#              OUT_DIR PATCH... [-- gate options...]
#
# PATCH: what the gate takes (git format-patch files, an mbox, b4 am's
# .mbx and .cover, plain diffs), or - for stdin, kept as OUT_DIR/stdin.mbox:
#   b4 am -o - <message-id> | ci/gate.sh out/ -
#   b4 am -o DIR <message-id> && ci/gate.sh out/ DIR/*.cover DIR/*.mbx
# A cover letter ([PATCH 0/N], b4's .cover) names the series; it is never
# judged.
#
# Writes OUT_DIR/gate.ktap, gate.junit.xml, gate.json, gate.txt, the
# gate's patchwork line as OUT_DIR/patchwork (state= context=
# description=), and that line as patchwork's REST API takes a check,
# OUT_DIR/check.json: {"state", "context", "description"}, and
# "target_url" only with --target-url (the CI job's URL, say). The state is
# the gate's (the worst of the series' patches): success, warning or fail.
#
# --post CHECKS_URL posts check.json to a patch's checks,
# https://HOST/api/1.2/patches/ID/checks/, as a user allowed to add checks:
# "Authorization: Token T", T read from --token-file F or $PW_TOKEN (never
# on a command line). --dry-run prints the request instead (the token
# redacted). Needs jq (and curl to post).
#
# Exits with the gate's code (0 preserves / changes-as-declared /
# not-judged, 1 changes / breaks-build, 2 does-not-apply / cannot-judge),
# and 2 when the arguments are wrong or posting fails.
set -euo pipefail
usage="usage: ci/gate.sh [--target-url URL] [--post CHECKS_URL [--token-file F] [--dry-run]] OUT_DIR PATCH... [-- gate options...]"
die() { echo "ci/gate.sh: $*" >&2; exit 2; }
value() { [ $# -ge 2 ] || die "$1 needs a value; $usage"; }

target_url= post_url= token_file= dry_run=
while [ $# -gt 0 ]; do
    case $1 in
        --target-url) value "$@"; target_url=$2; shift 2 ;;
        --post) value "$@"; post_url=$2; shift 2 ;;
        --token-file) value "$@"; token_file=$2; shift 2 ;;
        --dry-run) dry_run=1; shift ;;
        --help|-h) echo "$usage"; exit 0 ;;
        --) die "$usage" ;;
        -?*) die "unknown option $1; $usage" ;;
        *) break ;;
    esac
done
[ $# -ge 2 ] || die "$usage"
out=$(realpath -m "$1")
shift
mkdir -p "$out"
patches=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    if [ "$1" = - ]; then
        [ ! -e "$out/stdin.mbox" ] || die "- given twice: stdin is read once"
        cat > "$out/stdin.mbox"
        patches+=("$out/stdin.mbox")
    else
        [ -f "$1" ] || die "$1: no such file (a patch, an mbox, or b4 am's .mbx or .cover)"
        patches+=("$(realpath "$1")")
    fi
    shift
done
if [ "${1:-}" = "--" ]; then shift; fi
[ ${#patches[@]} -gt 0 ] || die "no PATCH given; $usage"
command -v jq >/dev/null || die "jq writes check.json: apt-get install jq"

# What posting needs, checked before the gate runs.
token=
if [ -n "$post_url" ]; then
    [[ $post_url =~ ^https?://[^/]+/.*patches/[0-9]+/checks/$ ]] ||
        die "--post $post_url: give a patch's checks, https://HOST/api/1.2/patches/ID/checks/ (the slash at the end too)"
    if [ -n "$token_file" ]; then
        token=$(tr -d '[:space:]' < "$token_file") || die "--token-file $token_file cannot be read"
    else
        token=$(printf %s "${PW_TOKEN:-}" | tr -d '[:space:]')
    fi
    [ -n "$token" ] || die "--post needs a patchwork API token: --token-file F or PW_TOKEN (from your patchwork profile page)"
    [ -n "$dry_run" ] || command -v curl >/dev/null || die "curl posts the check: apt-get install curl"
elif [ -n "$token_file$dry_run" ]; then
    die "--token-file and --dry-run go with --post CHECKS_URL"
fi

cd "$(dirname "$0")/.."
status=0
for fmt in human ktap junit json; do
    case $fmt in junit) ext=junit.xml ;; human) ext=txt ;; *) ext=$fmt ;; esac
    s=0
    cargo xtask gate "$@" --format "$fmt" "${patches[@]}" > "$out/gate.$ext" 2> "$out/gate.$fmt.log" || s=$?
    if [ $s -gt $status ]; then status=$s; fi
done
line=$(sed -n 's/^patchwork: //p' "$out/gate.human.log")
if [ -z "$line" ]; then
    echo "ci/gate.sh: the gate gave no verdict (exit $status); no check written: see $out/gate.human.log" >&2
    tail -5 "$out/gate.human.log" >&2
    exit $((status > 2 ? status : 2))
fi
printf '%s\n' "$line" > "$out/patchwork"

# The gate's line as patchwork's check: its state and context as they are
# (the gate decides them), target_url only when given.
jq -n --arg line "$line" --arg url "$target_url" '
    [$line | capture("^state=(?<state>\\S+) context=(?<context>\\S+) description=\"(?<description>.*)\"$")]
    | (first // error("not a patchwork line: \($line)")) as $c
    | if ($c.state | IN("pending", "success", "warning", "fail") | not) then
          error("state \($c.state) is none of patchwork'"'"'s: pending, success, warning, fail")
      elif ($c.context | test("^[-A-Za-z0-9_]+$") | not) then
          error("context \($c.context) is not a slug (letters, digits, - and _)")
      else {state: $c.state, context: $c.context, description: $c.description}
          + (if $url == "" then {} else {target_url: $url} end)
      end' > "$out/check.json"
echo "reports in $out (exit $status): $line"

if [ -n "$post_url" ]; then
    headers=("Content-Type: application/json" "Accept: application/json")
    if [ -n "$dry_run" ]; then
        echo "--dry-run: not sent:"
        echo "POST $post_url"
        echo "Authorization: Token <redacted>"
        printf '%s\n' "${headers[@]}"
        echo
        cat "$out/check.json"
    else
        # The token reaches curl on stdin, never on its command line.
        code=$(printf 'Authorization: Token %s\n' "$token" |
            curl -sS -X POST -H @- -H "${headers[0]}" -H "${headers[1]}" \
                --data-binary @"$out/check.json" -o "$out/post.response" -w '%{http_code}' \
                "$post_url") || die "posting the check to $post_url failed (curl's words above); the reports are in $out"
        case $code in
            2??) echo "check posted to $post_url (HTTP $code)" ;;
            *) echo "ci/gate.sh: patchwork answered HTTP $code to the check (403: the token's user may not add checks; 404: no such patch, or no token):" >&2
               cat "$out/post.response" >&2; echo >&2
               exit 2 ;;
        esac
    fi
fi
exit $status
