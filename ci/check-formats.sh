#!/usr/bin/env bash
# Proves the report formats with the tools people read them with:
#   KTAP   the kernel's own parser, tools/testing/kunit/kunit.py parse, from
#          the same Debian linux-source package the harness fetches
#   JUnit  junitparser (PyPI), a real consumer, and xmllint (well-formed)
#   JSON   jq, and the jsonschema validator against harness/report.schema.json
# on a passing report and a failing one (a copy of the 6.12 tree with one
# comparison changed), and on a --random report. Installs what is missing.
#
#   ci/check-formats.sh [WORK_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-target/check-formats}"
rm -rf "$work"
mkdir -p "$work"
work="$(cd "$work" && pwd)"

need=()
command -v jq >/dev/null || need+=(jq)
command -v xmllint >/dev/null || need+=(libxml2-utils)
if [ ${#need[@]} -gt 0 ]; then
    apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" >&2
fi
python3 -c 'import junitparser, jsonschema' 2>/dev/null ||
    python3 -m pip install -q junitparser jsonschema >&2

tree="$(cargo xtask kernel fetch 6.12 | tail -1)"
cache="${HFI1_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hfi1-conformance}"
# The package of the pinned 6.12 (snapshots/kernels.lock), kept by the fetch.
version="$(sed -n '/^\[series\."6.12"\]$/,/^version/s/^version = "\(.*\)"$/\1/p' snapshots/kernels.lock)"
deb="$(ls "$cache/apt/debian/debs/$version"/*.deb | head -1)"
echo "[formats] kunit.py from $deb"
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/src/linux-source-6.12.tar.xz |
    xz -dc | tar -x -C "$work" --wildcards 'linux-source-6.12/tools/testing/kunit/*'
kunit="$work/linux-source-6.12/tools/testing/kunit"

# A failing tree: sends at the PIO threshold no longer posted at once.
cp -r "$tree" "$work/mutant"
sed -i 's/if (wqe->length <= piothreshold)/if (wqe->length < piothreshold)/' \
    "$work/mutant/drivers/infiniband/hw/hfi1/qp.c"

run() { # NAME EXPECTED_EXIT ARGS...
    local name=$1 want=$2
    shift 2
    for fmt in ktap junit json; do
        set +e
        cargo xtask conformance "$@" --format "$fmt" > "$work/$name.$fmt" 2>"$work/$name.$fmt.err"
        local got=$?
        set -e
        if [ "$got" != "$want" ]; then
            echo "[formats] $name ($fmt): exit $got, expected $want"; cat "$work/$name.$fmt.err"; exit 1
        fi
    done
}
run pass 0
run fail 1 --kernel-src "$work/mutant"
run random 0 --random 200 --seed 3 --function hfi1_setup_wqe --function qp_iter_print

for name in pass fail random; do
    # KTAP: kunit.py's parser (it must run from tools/testing/kunit).
    set +e
    (cd "$kunit" && python3 kunit.py parse "$work/$name.ktap") > "$work/$name.kunit" 2>&1
    k=$?
    set -e
    grep -q "Testing complete" "$work/$name.kunit" || { cat "$work/$name.kunit"; exit 1; }
    if grep -qE "CRASHED|missing subtest result|invalid KTAP" "$work/$name.kunit"; then
        echo "[formats] kunit.py rejected $name.ktap"; cat "$work/$name.kunit"; exit 1
    fi
    want_k=0; [ "$name" = fail ] && want_k=1
    [ "$k" = "$want_k" ] || { echo "[formats] kunit.py parse $name.ktap: exit $k"; exit 1; }

    # JSON: jq reads it; the schema validates it; totals add up.
    jq -e '.schema == "hfi1-conformance/report" and .version == 1' "$work/$name.json" >/dev/null
    python3 - "$work/$name.json" harness/report.schema.json <<'PY'
import json, sys, jsonschema
report, schema = (json.load(open(p)) for p in sys.argv[1:3])
jsonschema.validate(report, schema)
t = report["totals"]
cases = [c for s in report["suites"] for c in s["cases"]]
assert t["tests"] == len(cases), (t, len(cases))
assert t["passed"] == sum(c["status"] == "pass" for c in cases)
PY

    # JUnit: well-formed, and junitparser's counts match the JSON's.
    xmllint --noout "$work/$name.junit"
    python3 - "$work/$name.junit" "$work/$name.json" <<'PY'
import json, sys
from junitparser import JUnitXml
xml = JUnitXml.fromfile(sys.argv[1])
t = json.load(open(sys.argv[2]))["totals"]
tests = sum(s.tests for s in xml)
failures = sum(s.failures for s in xml)
errors = sum(s.errors for s in xml)
assert tests == t["tests"] + t["suite_errors"], (tests, t)
assert failures == t["failed"], (failures, t)
assert errors == t["errors"] + t["suite_errors"], (errors, t)
PY
    echo "[formats] $name: kunit.py, jq + schema, junitparser agree"
done
grep -q "failed: 6" "$work/fail.kunit" || { echo "[formats] kunit.py should count 6 failures"; cat "$work/fail.kunit"; exit 1; }
echo "3 passed, 0 failed"
