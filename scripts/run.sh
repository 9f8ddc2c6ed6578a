#!/usr/bin/env bash
# The main job: build agx4 and show its device through the real Vulkan loader.
# With no Apple GPU present, that device is the simulated AGX (Apple M1, G13G).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cargo build --release --quiet
VK_DRIVER_FILES="$PWD/agx4_icd.json" NODEVICE_SELECT=1 vulkaninfo --summary
