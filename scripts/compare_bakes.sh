#!/usr/bin/env bash
# Bakes every shipped scene under both integrators with two builds of powder and compares the
# frames byte for byte: a change that only moves code must leave every frame identical.
#
#   scripts/compare_bakes.sh BASE_REV [FRAMES]
#
# BASE_REV (a commit, branch or tag) is built in a temporary git worktree; the working tree is
# built as it is. Both bake scenes/*.json for FRAMES frames (default 3) into $TMPDIR. Exits 1 and
# names each differing file if any frame differs.
set -euo pipefail
cd "$(dirname "$0")/.."
base_rev=${1:?usage: scripts/compare_bakes.sh BASE_REV [FRAMES]}
frames=${2:-3}
work=$(mktemp -d)
trap 'git worktree remove --force "$work/base" >/dev/null 2>&1 || true' EXIT

git worktree add --detach "$work/base" "$base_rev" >/dev/null
(cd "$work/base" && cargo build --locked --quiet --bin powder)
cargo build --locked --quiet --bin powder

bake() { # bake BINARY OUTDIR
  for scene in scenes/*.json; do
    name=$(basename "$scene" .json)
    for integrator in explicit pbmpm; do
      "$1" run "$scene" --frames "$frames" --out "$2/$name-$integrator" --overwrite \
        --integrator "$integrator" --checkpoint-every 0 >"$2/$name-$integrator.log" 2>&1
    done
  done
}
bake "$work/base/target/debug/powder" "$work/before"
bake target/debug/powder "$work/after"

status=0
count=0
for before in "$work"/before/*/*.ply; do
  after=${before/\/before\//\/after\/}
  count=$((count + 1))
  if ! cmp -s "$before" "$after"; then
    echo "differs: ${before#"$work"/before/}"
    status=1
  fi
done
echo "$count frames compared against $base_rev: $([ $status -eq 0 ] && echo all identical || echo some differ)"
exit $status
