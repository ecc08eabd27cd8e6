#!/usr/bin/env bash
# Sets up a Debian/Ubuntu machine (scripts/setup.sh), builds powder in release mode and opens the
# app on its built-in default scene. Extra arguments go to powder (e.g. a scene file).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
cargo run --locked --release -- "$@"
