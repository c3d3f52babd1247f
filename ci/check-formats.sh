#!/usr/bin/env bash
# Proves the report formats with the tools people read them with:
#   KTAP   the kernel's own parser, tools/testing/kunit/kunit.py parse, from
#          the same Debian linux-source package the harness fetches
#   JUnit  junitparser (PyPI), a real consumer, and xmllint (well-formed)
#   JSON   jq, and the jsonschema validator against harness/report.schema.json
#   KCIDB  kcidb-io (PyPI), KernelCI's own validator of KCIDB I/O data
# on a passing report and a failing one (a copy of the 6.12 tree with one
# comparison changed), and on a --random report; KCIDB also on a gate, a
# diff and a mutants report, and on a sweep report a unit test writes (a
# real sweep downloads every version). Installs what is missing.
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
python3 -c 'import junitparser, jsonschema, kcidb_io' 2>/dev/null ||
    python3 -m pip install -q junitparser jsonschema kcidb-io >&2

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
    for fmt in ktap junit json kcidb; do
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

# KCIDB: the other commands' reports too. A patch of the 6.12 tree (path
# MTUs top out at 4096), the failing tree against 6.12, the mutants of one
# function; and a sweep's report from its unit test.
kstart=$SECONDS
qp=drivers/infiniband/hw/hfi1/qp.c
mkdir -p "$work/pa/${qp%/*}" "$work/pb/${qp%/*}"
cp "$tree/$qp" "$work/pa/$qp"
sed 's/return mtu_to_enum(mtu, OPA_MTU_8192);/return mtu_to_enum(mtu, OPA_MTU_4096);/' "$tree/$qp" >"$work/pb/$qp"
(cd "$work" && { diff -u "pa/$qp" "pb/$qp" | sed -e '1s|^--- pa/|--- a/|' -e '2s|^+++ pb/|+++ b/|' -e '1,2s/\t.*//' >mtu.patch || true; })
kcidb() { # NAME EXPECTED_EXIT ARGS...
    local name=$1 want=$2
    shift 2
    set +e
    HFI1_KCIDB_ORIGIN=hfi1_ci cargo xtask "$@" --format kcidb >"$work/$name.kcidb" 2>"$work/$name.kcidb.err"
    local got=$?
    set -e
    [ "$got" = "$want" ] || { echo "[formats] $name (kcidb): exit $got, expected $want"; cat "$work/$name.kcidb.err"; exit 1; }
}
kcidb gate 1 gate --base 6.12 --random 50 "$work/mtu.patch"
kcidb diff 1 diff 6.12 "$work/mutant" --random 50
kcidb mutants 0 mutants --kernel 6.12 --function qp_to_sdma_engine
HFI1_KCIDB_SAMPLES="$work" cargo test -q -p harness --lib a_sweep_report_in_kcidb_form >"$work/sweep.kcidb.err" 2>&1 ||
    { cat "$work/sweep.kcidb.err"; exit 1; }
# A bad origin is refused before anything runs, saying what is allowed.
if HFI1_KCIDB_ORIGIN=Bad-Origin cargo xtask conformance --format kcidb >/dev/null 2>"$work/origin.err"; then
    echo "[formats] HFI1_KCIDB_ORIGIN=Bad-Origin was accepted"; exit 1
fi
grep -q '\^\[a-z0-9_\]+\$' "$work/origin.err" || { cat "$work/origin.err"; exit 1; }

# Every KCIDB report: kcidb-io validates it against the newest schema it
# knows, exactly v5.3; every id is unique and its parent is in the report.
python3 - "$work"/{pass,fail,random,gate,diff,mutants,sweep}.kcidb <<'PY'
import json, sys
from importlib.metadata import version
import kcidb_io
latest = kcidb_io.schema.LATEST
assert (latest.major, latest.minor) == (5, 3), f"kcidb-io's newest schema is v{latest.major}.{latest.minor}: update report/kcidb.rs"
for path in sys.argv[1:]:
    data = json.load(open(path))
    latest.validate_exactly(data)
    ids = {k: [o["id"] for o in data[k]] for k in ("checkouts", "builds", "tests")}
    for k, v in ids.items():
        assert len(v) == len(set(v)), (path, k, "duplicate ids")
    assert all(b["checkout_id"] in ids["checkouts"] for b in data["builds"]), path
    assert all(t["build_id"] in ids["builds"] for t in data["tests"]), path
    assert all(t["path"].startswith("hfi1.qp") for t in data["tests"]), path
    print(f"[formats] {path.rsplit('/', 1)[1]}: kcidb-io {version('kcidb-io')}, schema v{latest.major}.{latest.minor}: "
          f"{len(ids['checkouts'])} checkout(s), {len(ids['builds'])} build(s), {len(ids['tests'])} test(s)")
PY
# The gate's report: the base and the patched tree (its patchset hash as
# sha256sum computes it), their builds, the comparison's tests.
hash=$(sha256sum <"$work/mtu.patch" | cut -c-64)
want=$(echo "$hash" | sha256sum | cut -c-64)
jq -e --arg want "$want" --arg b "$(jq -r '.builds[1].id' "$work/gate.kcidb")" '
    (.checkouts | length == 2) and (.checkouts[0].patchset_hash == "") and
    (.checkouts[1].patchset_hash == $want) and (.checkouts[1].valid == true) and
    (.builds | length == 2) and all(.builds[]; .status == "PASS" and .architecture != null and .compiler != null) and
    (.tests | length > 0) and any(.tests[]; .status == "FAIL" and (.path | startswith("hfi1.qp.mtu_to_path_mtu"))) and
    all(.tests[]; .build_id == $b) and all(.tests[]; .id | startswith("hfi1_ci:"))
' "$work/gate.kcidb" >/dev/null ||
    { echo "[formats] gate.kcidb lacks its checkouts, builds or tests"; jq '{checkouts, builds}' "$work/gate.kcidb"; exit 1; }
jq -e '(.tests | length > 0) and (.builds[0].status == "PASS")' "$work/mutants.kcidb" >/dev/null ||
    { echo "[formats] mutants.kcidb has no tests"; exit 1; }
jq -e '.tests | map(select(.status == "FAIL")) | length == 6' "$work/fail.kcidb" >/dev/null ||
    { echo "[formats] fail.kcidb should have 6 FAIL tests"; exit 1; }
echo "[formats] KCIDB: kcidb-io validates 7 reports ($((SECONDS - kstart))s for gate, diff, mutants, sweep)"
echo "4 passed, 0 failed"
