#!/usr/bin/env bash
# Sets up a Debian/Ubuntu machine (scripts/setup.sh) and runs the whole test suite. The GPU tests
# run on whatever Vulkan driver is present: lavapipe on machines without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
cargo test --locked "$@"
