#!/usr/bin/env bash
# For a patch bot: judge an mbox (or patches) with the gate and leave every
# report in a folder.
#
#   ci/gate.sh OUT_DIR PATCH... [-- gate options...]
#
# Writes OUT_DIR/gate.ktap, gate.junit.xml, gate.json, gate.txt and
# OUT_DIR/patchwork (the line to post: state, context, description); exits
# with the gate's code (0 preserves / changes-as-declared, 1 changes /
# breaks-build, 2 does-not-apply / cannot-judge).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: ci/gate.sh OUT_DIR PATCH... [-- options]}"
shift
patches=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do patches+=("$(realpath "$1")"); shift; done
[ "${1:-}" = "--" ] && shift
mkdir -p "$out"
status=0
for fmt in human ktap junit json; do
    case $fmt in junit) ext=junit.xml ;; human) ext=txt ;; *) ext=$fmt ;; esac
    cargo xtask gate "$@" --format "$fmt" "${patches[@]}" > "$out/gate.$ext" 2> "$out/gate.$fmt.log"
    s=$?
    [ $s -gt $status ] && status=$s
done
grep '^patchwork: ' "$out/gate.human.log" | sed 's/^patchwork: //' > "$out/patchwork"
echo "reports in $out (exit $status): $(cat "$out/patchwork")"
exit $status
