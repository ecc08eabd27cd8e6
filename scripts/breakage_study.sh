#!/usr/bin/env bash
# How snow breaks: the default scene's pieces, and the sweep of docs/breakage.md.
#
#   scripts/breakage_study.sh BINARY RESOLUTION [OUT_DIR]
#
# BINARY is a built powder (e.g. target/release/powder), RESOLUTION the grid resolution every run
# uses (the scenes' own is 64). It prints the fragment table of the built-in default scene after
# its 24 frames, then runs the sweep, one `powder run` per case, and prints one row per case:
# pieces, chunks (pieces of at least 0.5 % of the mass) and the largest piece's share, from the
# last frame. The rows also go to OUT_DIR/study.tsv (default: breakage-RESOLUTION), which
# scripts/breakage_plot.py draws.
#
# Environment: JOBS=N runs N cases at once (default 1; on a big GPU 8 is a good start);
# CASES=default skips the sweep; KEEP=1 keeps every case's frames (otherwise only the last).
set -euo pipefail

if [[ $# -lt 2 ]]; then
    echo "usage: $0 BINARY RESOLUTION [OUT_DIR]" >&2
    exit 2
fi
bin=$(realpath "$1")
res=$2
out=${3:-breakage-$res}
here=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-1}
mkdir -p "$out"

# The initial particle spacing: cell size / cbrt(8); both scenes are 2 m long at 8 per cell.
spacing=$(awk -v r="$res" 'BEGIN { printf "%.9g", 2.0 / r / 2.0 }')

# One case: LABEL SCENE FRAMES [KEY=VALUE ...]. Writes OUT/LABEL/ and prints the table row.
run_case() {
    local label=$1 scene=$2 frames=$3
    shift 3
    local sets=(--set "grid.resolution=$res")
    for kv in "$@"; do sets+=(--set "$kv"); done
    local dir="$out/$label"
    local start=$SECONDS
    if ! "$bin" run "$scene" --frames "$frames" --out "$dir" --overwrite "${sets[@]}" >"$dir.log" 2>&1; then
        echo -e "$label\tFAILED (see $dir.log)"
        return
    fi
    local last
    last=$(printf '%s/frame_%05d.ply' "$dir" "$frames")
    local row
    row=$("$bin" fragments "$last" --spacing "$spacing" | tail -n 1 | cut -f2-)
    if [[ -z ${KEEP:-} ]]; then
        find "$dir" -name 'frame_*.ply' ! -name "$(basename "$last")" -delete
    fi
    echo -e "$label\t$row\t$((SECONDS - start))s"
}
export -f run_case
export bin res out spacing KEEP

wall=$here/scenes/snowball_wall.json
pair=$here/scenes/snowball_collision.json

echo "# the built-in default scene at resolution $res: 24 frames (0.8 s)"
start=$SECONDS
"$bin" run --frames 24 --out "$out/default" --overwrite --set "grid.resolution=$res" 2>&1 | grep -v '^GPU'
echo "# every 4th frame (spacing $spacing m; pieces linked within 1.5 spacings)"
"$bin" fragments "$out"/default/frame_000{00,04,08,12,16,20,24}.ply --spacing "$spacing"
echo "# took $((SECONDS - start)) s"
[[ ${CASES:-all} == default ]] && exit 0

# The sweep: one parameter at a time from the reference snow; the wall scene 24 frames at 30 fps
# (0.8 s), the two snowballs without gravity 24 frames at 60 fps (0.4 s).
cases=()
for v in 0.0025 0.005 0.0075 0.01 0.025; do cases+=("wall theta_s=$v|$wall|24|material.critical_stretch=$v"); done
for v in 0.015 0.019 0.025 0.035 0.05; do cases+=("wall theta_c=$v|$wall|24|material.critical_compression=$v"); done
for v in 3 5 7 10 15; do cases+=("wall xi=$v|$wall|24|material.hardening=$v"); done
for v in 4 6 8 10 12 16; do cases+=("wall speed=$v|$wall|24|emitters.0.velocity.x=$v"); done
for v in 0.0025 0.005 0.0075 0.01 0.025; do cases+=("pair theta_s=$v|$pair|24|gravity.z=0|material.critical_stretch=$v"); done
for v in 0.015 0.019 0.025 0.035 0.05; do cases+=("pair theta_c=$v|$pair|24|gravity.z=0|material.critical_compression=$v"); done
for v in 3 5 7 10 15; do cases+=("pair xi=$v|$pair|24|gravity.z=0|material.hardening=$v"); done
for v in 2.5 5 7.5 10; do
    cases+=("pair speed=$v|$pair|24|gravity.z=0|emitters.0.velocity.x=$v|emitters.1.velocity.x=-$v")
done

echo
echo "# the sweep at resolution $res (last frame of each case)"
echo -e "case\tpieces\tchunks\tlargest_%\tlargest_shares_%\ttime"
printf '%s\n' "${cases[@]}" \
    | tr '|' '\t' \
    | xargs -P "$jobs" -d '\n' -I{} bash -c 'IFS=$'"'"'\t'"'"' read -r -a a <<<"{}"; run_case "${a[@]}"' \
    | tee "$out/study.tsv"
