#!/usr/bin/env bash
# For a CI system or a patch bot: run the conformance suite on the kernels
# given (default: every pinned series) and leave machine-readable reports.
#
#   ci/conformance.sh [OUT_DIR] [-- conformance options...]
#
# Writes OUT_DIR/conformance.ktap, OUT_DIR/conformance.junit.xml and
# OUT_DIR/conformance.json; exits like `cargo xtask conformance` (0 all
# agree, 1 something differs, 2 could not run).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/conformance-report}"
shift || true
[ "${1:-}" = "--" ] && shift
args=("$@")
[ ${#args[@]} -eq 0 ] && args=(--kernel all)
mkdir -p "$out"
status=0
for fmt in ktap junit json; do
    case $fmt in junit) ext=junit.xml ;; *) ext=$fmt ;; esac
    cargo xtask conformance "${args[@]}" --format "$fmt" > "$out/conformance.$ext"
    s=$?
    [ $s -gt $status ] && status=$s
done
echo "reports in $out (exit $status)"
exit $status
