#!/usr/bin/env bash
# The main job: build agx4, show its device through the real Vulkan loader, and run a compute
# program on it that checks its own results. With no Apple GPU present, that device is the
# simulated AGX (Apple M1, G13G).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cargo build --release --quiet --lib --example compute
VK_DRIVER_FILES="$PWD/agx4_icd.json" NODEVICE_SELECT=1 vulkaninfo --summary
VK_DRIVER_FILES="$PWD/agx4_icd.json" NODEVICE_SELECT=1 "${CARGO_TARGET_DIR:-target}/release/examples/compute"
