#!/usr/bin/env bash
# Proves that N shards merged are one run: for `mutants`, `conformance
# --random`, a `gate` series and (with --sweep) `sweep`, the whole run and
# its shards (`--shard K/N`, each run alone as on another machine), joined
# by `cargo xtask merge`, give the same JSON report byte for byte apart
# from durations, the same KTAP and KCIDB, and the same exit code.
#
#   ci/check-shards.sh [WORK_DIR] [--sweep]
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-target/check-shards}"
sweep="${2:-}"
rm -rf "$work"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
cargo build --quiet --release -p xtask
x="$PWD/target/release/xtask"
[ -n "${CARGO_TARGET_DIR:-}" ] && x="$CARGO_TARGET_DIR/release/xtask"

# Durations differ run to run; everything else must not.
times() { sed -E -e 's/"seconds": [0-9.e-]+/"seconds": T/' -e 's/ time="[0-9.]+"/ time="T"/g' \
    -e 's/[0-9]+(\.[0-9]+)? ?(s|ms)\b/T/g' "$1"; }

check() { # NAME N ARGS...: the whole run against N shards merged
    local name=$1 n=$2
    shift 2
    local d="$work/$name"
    mkdir -p "$d"
    set +e
    "$x" "$@" --format json >"$d/whole.json" 2>"$d/whole.err"
    local want=$?
    "$x" "$@" --format ktap >"$d/whole.ktap" 2>/dev/null
    "$x" "$@" --format kcidb >"$d/whole.kcidb" 2>/dev/null
    local k got
    for k in $(seq 1 "$n"); do
        "$x" "$@" --shard "$k/$n" --format json >"$d/shard-$k.json" 2>"$d/shard-$k.err"
    done
    "$x" merge "$d"/shard-*.json --format json >"$d/merged.json" 2>"$d/merge.err"
    got=$?
    "$x" merge "$d"/shard-*.json --format ktap >"$d/merged.ktap" 2>/dev/null
    "$x" merge "$d"/shard-*.json --format kcidb >"$d/merged.kcidb" 2>/dev/null
    set -e
    for k in $(seq 1 "$n"); do
        jq -e '.shard.index' "$d/shard-$k.json" >/dev/null ||
            { echo "[shards] $name: shard $k wrote no shard report"; cat "$d/shard-$k.err"; exit 1; }
    done
    [ "$(jq '.totals.tests + (.suites | length)' "$d/whole.json")" -gt 0 ] ||
        { echo "[shards] $name: the whole run judged nothing"; cat "$d/whole.err"; exit 1; }
    if [ "$got" != "$want" ]; then
        echo "[shards] $name: merged exit $got, one run exit $want"; cat "$d/merge.err"; exit 1
    fi
    for f in json ktap kcidb; do
        if ! diff -u <(times "$d/whole.$f") <(times "$d/merged.$f") >"$d/$f.diff"; then
            echo "[shards] $name: $n shards merged differ from one run ($f):"; head -40 "$d/$f.diff"; exit 1
        fi
    done
    # A shard missing is refused.
    if "$x" merge "$d/shard-1.json" >/dev/null 2>"$d/missing.err"; then
        echo "[shards] $name: a merge missing shards succeeded"; exit 1
    fi
    grep -q "every shard 1..=$n is needed" "$d/missing.err"
    echo "[shards] $name: $n shards merged = one run (exit $want, $(jq .totals.tests "$d/whole.json") tests)"
}

check mutants 3 mutants --function mtu_to_path_mtu --function mtu_from_qp --function qp_to_send_context
check random 3 conformance --random 400 --seed 7 --function hfi1_setup_wqe \
    --function qp_iter_print --function sdma_select_engine_vl --function mtu_from_qp

# Series of patches made here from the 6.12 tree (nothing of upstream is
# committed), each against the tree the ones before it leave.
tree="$("$x" kernel fetch 6.12 | tail -1)"
hfi1=drivers/infiniband/hw/hfi1
s="$work/series"
mkdir -p "$s/a/$hfi1" "$s/b/$hfi1"
cp "$tree/$hfi1/qp.c" "$tree/$hfi1/sdma.c" "$s/a/$hfi1/"
patch_of() { # NAME FILE SUBJECT SED: a format-patch file changing FILE
    local f="$hfi1/$2"
    cp "$s/a/$f" "$s/b/$f"
    sed -i "$4" "$s/b/$f"
    {
        printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
        printf 'From: Dev <dev@example.org>\nSubject: [PATCH] %s\n\n%s\n---\n' "$3" "$3"
        (cd "$s" && diff -u "a/$f" "b/$f" | sed '1,2s/\t.*//') || true
    } >"$s/$1.patch"
    cp "$s/b/$f" "$s/a/$f"
}
patch_of 1 qp.c "IB/hfi1: cap path MTUs at 4096" 's/return mtu_to_enum(mtu, OPA_MTU_8192);/return mtu_to_enum(mtu, OPA_MTU_4096);/'
# Not judged and not built (a function no world runs, in a file no world
# compiles whole): the tree after it is recorded as not built.
patch_of unrun sdma.c "IB/hfi1: say where progress is made" 's|^static void sdma_make_progress(struct sdma_engine \*sde, u64 status)$|&\n/* progress */|'
patch_of 2 qp.c "IB/hfi1: say what the PIO threshold is" 's|if (wqe->length <= piothreshold)|/* at or under the threshold: PIO */\n\t&|'
patch_of 3 qp.c "IB/hfi1: post sends at the threshold by SDMA" 's/if (wqe->length <= piothreshold)/if (wqe->length < piothreshold)/'
# Shard 2 of 2 starts after the unrun patch.
check gate 2 gate --base 6.12 --random 200 "$s/1.patch" "$s/unrun.patch" "$s/2.patch" "$s/3.patch"
# A patch that does not apply blocks the ones after it, in every shard.
sed 's/OPA_MTU_4096/OPA_MTU_2048/' "$s/1.patch" >"$s/stale.patch"
check gate-blocked 3 gate --base 6.12 --random 50 "$s/1.patch" "$s/stale.patch" "$s/3.patch"
# A patch that breaks the build: the shard after it judges the patches
# before its block again to say which (and no scratch path in the words).
cp "$tree/$hfi1/qp.c" "$s/a/$hfi1/qp.c"
patch_of b1 qp.c "IB/hfi1: cap path MTUs at 4096" 's/return mtu_to_enum(mtu, OPA_MTU_8192);/return mtu_to_enum(mtu, OPA_MTU_4096);/'
patch_of broken qp.c "IB/hfi1: a typo" 's/return mtu_to_enum(mtu, OPA_MTU_4096);/return mtu_to_enum(mtu, OPA_MTU_4096)/'
patch_of b3 qp.c "IB/hfi1: post sends at the threshold by SDMA" 's/if (wqe->length <= piothreshold)/if (wqe->length < piothreshold)/'
check gate-broken 3 gate --base 6.12 --random 50 "$s/b1.patch" "$s/broken.patch" "$s/b3.patch"
if grep -q "hfi1-gate-" "$work/gate-broken/whole.json"; then
    echo "[shards] gate-broken: a scratch path in the report"; exit 1
fi

if [ "$sweep" = --sweep ]; then
    check sweep 2 sweep --series 6.12 --limit 2 --random 200
fi
echo "shards: every command's shards merged = one run"
