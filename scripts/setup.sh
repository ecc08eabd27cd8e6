#!/usr/bin/env bash
# Installs what powder needs on Debian/Ubuntu, and nothing that is already there:
# - the Vulkan loader and Mesa's Vulkan drivers (lavapipe, the software driver used where no GPU
#   driver exists; a machine with a GPU driver keeps using it),
# - X11 libraries and Xvfb for the desktop window and its tests, and xdotool, which presses keys
#   in the window for them,
# - python3, which tests the Blender import script (scripts/blender),
# - a Rust toolchain (through rustup) if cargo is missing.
# Source it (`. scripts/setup.sh`) or run it; scripts/launch.sh and scripts/test.sh call it.
set -euo pipefail

packages=(mesa-vulkan-drivers libvulkan1 xvfb xauth xdotool libxkbcommon-x11-0 libx11-xcb1 libxcursor1 libxi6 python3)
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "powder setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "powder setup: installing Rust with rustup" >&2
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal >&2
    export PATH="$HOME/.cargo/bin:$PATH"
  fi
fi

# The test script checks formatting and lints; a minimal rustup profile has neither tool.
if command -v rustup >/dev/null 2>&1; then
  for component in rustfmt clippy; do
    if ! rustup component list --installed 2>/dev/null | grep -q "^$component"; then
      rustup component add "$component" >&2
    fi
  done
fi

# The Vulkan loader warns on every start when this is unset (headless shells, CI).
if [ -z "${XDG_RUNTIME_DIR:-}" ] || [ ! -d "${XDG_RUNTIME_DIR}" ]; then
  XDG_RUNTIME_DIR="$(mktemp -d)"
  export XDG_RUNTIME_DIR
fi
