#!/usr/bin/env bash
# Proves that cargo-insta's workflow works on snapshots/ (which sits at the
# workspace root, outside the harness package): a tree whose behaviour
# changed leaves a pending snapshot that `cargo insta pending-snapshots`
# lists, `cargo insta accept` writes and `cargo insta reject` drops. The
# committed snapshot is restored from a copy whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo-insta >/dev/null || cargo install --locked cargo-insta >&2
work="$(mktemp -d)"
snap=snapshots/6.12/setup_wqe.snap
cp "$snap" "$work/keep.snap"
trap 'cp "$work/keep.snap" "$snap"; rm -f "$snap.new"; rm -rf "$work"' EXIT

tree="$(cargo xtask kernel fetch 6.12 | tail -1)"
cp -r "$tree" "$work/mutant"
sed -i 's/if (wqe->length <= piothreshold)/if (wqe->length < piothreshold)/' \
    "$work/mutant/drivers/infiniband/hw/hfi1/qp.c"
pending() {
    # INSTA_UPDATE=new: leave .snap.new files even under CI (insta writes
    # none there by default).
    # Only the mutant: HFI1_KERNELS (set by CI) would add series and
    # prefix the trial names.
    env -u HFI1_KERNELS INSTA_UPDATE=new HFI1_KERNEL_SRC="$work/mutant" cargo test -q -p harness --test conformance -- \
        --exact snapshot::setup_wqe >"$work/test.log" 2>&1 && { echo "[insta] the mutant matched the snapshot"; exit 1; }
    [ -e "$snap.new" ] || {
        echo "[insta] the trial wrote no $snap.new; it said:"
        tail -n 30 "$work/test.log"; exit 1; }
    # cargo-insta runs `cargo metadata`, which another cargo on the machine
    # can hold up: once more before it counts, with what it said.
    listed() { cargo insta pending-snapshots >"$work/pending.log" 2>&1 && grep -q "$snap" "$work/pending.log"; }
    listed || { sleep 2; listed; } || {
        echo "[insta] cargo insta pending-snapshots does not list $snap (which exists); it said:"
        cat "$work/pending.log"; exit 1; }
}
pending
cargo insta reject >/dev/null 2>&1
[ ! -e "$snap.new" ] && cmp -s "$snap" "$work/keep.snap" || { echo "[insta] reject left changes"; exit 1; }
pending
cargo insta accept >/dev/null 2>&1
[ ! -e "$snap.new" ] && ! cmp -s "$snap" "$work/keep.snap" || { echo "[insta] accept wrote nothing"; exit 1; }
grep -q "rc_at_piothreshold_sets_call_send" "$snap"
echo "[insta] pending-snapshots, reject and accept work on snapshots/"
echo "1 passed, 0 failed"
