#!/usr/bin/env bash
# Memory soak of the app: runs `powder` (built-in default scene unless arguments are given) in a
# window on a private Xvfb display and prints its resident memory every 10 s.
# Usage: scripts/soak_app.sh SECONDS BINARY [powder arguments...]
# With SOAK_SCREENSHOT=FILE.png it also saves the whole screen at the end (ImageMagick's import).
set -euo pipefail
seconds=${1:?seconds}; binary=${2:?powder binary}; shift 2
display=:$((100 + RANDOM % 800))
Xvfb "$display" -screen 0 1280x800x24 >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null || true' EXIT
sleep 2
export DISPLAY=$display
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then XDG_RUNTIME_DIR=$(mktemp -d); export XDG_RUNTIME_DIR; fi
"$binary" "$@" >/dev/null 2>&1 &
app=$!
echo "seconds resident_MiB"
for ((t = 0; t <= seconds; t += 10)); do
  kib=$(awk '/^VmRSS:/ {print $2}' "/proc/$app/status" 2>/dev/null || echo 0)
  echo "$t $((kib / 1024))"
  sleep 10
done
if [ -n "${SOAK_SCREENSHOT:-}" ]; then /usr/bin/import -display "$display" -window root "$SOAK_SCREENSHOT"; fi
kill $app
