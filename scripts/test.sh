#!/usr/bin/env bash
# Sets up a Debian/Ubuntu machine (scripts/setup.sh), checks formatting and lints, and runs the
# whole test suite. The GPU tests
# run on whatever Vulkan driver is present: lavapipe on machines without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
# Formatting and lints first: they take seconds to fail where the tests take minutes.
cargo fmt --check
cargo clippy --all-targets --locked -- -D warnings
cargo test --locked "$@"
