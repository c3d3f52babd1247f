#!/bin/bash
# Writes every report format of every command into DIR, with the release
# xtask XTASK, so that a refactor can show its outputs are byte-identical:
#   ci/outputs.sh target/release/xtask /tmp/before   # before the change
#   ci/outputs.sh target/release/xtask /tmp/after    # after it
#   diff -r -x "*.err" /tmp/before /tmp/after   # stderr carries progress and times
# Uses the 6.12 tree (fetched on first use) and a patch made here from it.
set -euo pipefail
x=$(realpath "$1"); out=$2
mkdir -p "$out"
cd "$(dirname "$0")/.."
tree=$("$x" kernel fetch 6.12 | tail -n1)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
qp=drivers/infiniband/hw/hfi1/qp.c
mkdir -p "$work/a/${qp%/*}"
cp "$tree/$qp" "$work/a/$qp"
cp -r "$tree" "$work/b"
# A behaviour change: path MTUs top out at 4096.
sed -i 's/return mtu_to_enum(mtu, OPA_MTU_8192);/return mtu_to_enum(mtu, OPA_MTU_4096);/' "$work/b/$qp"
(cd "$work" && { diff -u "a/$qp" "b/$qp" | sed '1,2s/\t.*//' >p.patch || true; })
run() { # name, args...
	local name=$1; shift
	for f in human ktap junit json; do
		"$x" "$@" --format $f >"$out/$name.$f" 2>"$out/$name.$f.err" \
			|| echo "exit $?" >>"$out/$name.$f.err"
		# Durations differ run to run; everything else must not.
		sed -i -E -e 's/"seconds": [0-9.e-]+/"seconds": T/' \
			-e 's/ time="[0-9.]+"/ time="T"/g' \
			-e 's/[0-9]+(\.[0-9]+)? ?(s|ms)\b/T/g' "$out/$name.$f"
		sed -i -E 's/[0-9]+(\.[0-9]+)? ?(s|ms)\b/T/g' "$out/$name.$f.err"
	done
}
run conformance conformance --kernel 6.12
run random conformance --kernel 6.12 --random 300 --seed 7
run gate gate --base 6.12 "$work/p.patch"
run diff diff 6.12 "$work/b" --random 30
run mutants mutants --kernel 6.12 --function mtu_to_path_mtu --function mtu_from_qp
"$x" snapshots diff 6.12 6.12 >"$out/snapshots-diff.txt" 2>&1 || echo "exit $?" >>"$out/snapshots-diff.txt"
"$x" codegen --check >"$out/schema.txt" 2>&1 || echo "exit $?" >>"$out/schema.txt"
"$x" --help >"$out/help.txt"
for c in conformance gate diff sweep mutants coverage bench kernel snapshots codegen; do
	"$x" $c --help >"$out/help-$c.txt" 2>&1 || true
done
