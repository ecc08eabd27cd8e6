#!/usr/bin/env bash
# Sets up a Debian/Ubuntu machine (scripts/setup.sh), builds powder in release mode and runs it on
# its built-in default scene. Extra arguments go to powder.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
if [ "$#" -eq 0 ]; then
  # Until the desktop app lands, the default scene runs headless and writes PLY frames to out/.
  set -- run --frames 30 --out out
fi
cargo run --locked --release -- "$@"
