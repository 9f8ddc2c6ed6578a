#!/usr/bin/env bash
# Every test: unit and integration tests (the integration tests load the driver through the
# real loader with the validation layer), clippy, and the main job's output.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh

echo "== rustfmt"
cargo fmt --all -- --check

echo "== clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings

echo "== tests"
# The integration tests load target/debug/libvulkan_agx4.so through the loader: build it first.
cargo build --workspace --quiet
# The translator's differential tests run once, below, where their coverage line is shown.
cargo test --workspace -- --skip jit::tests

echo "== the simulated USC's translated code against its interpreter: how much the differential tests covered"
jit=$(cargo test --quiet -p sim-gpu --lib jit::tests -- --nocapture 2>&1) || { echo "$jit"; exit 1; }
echo "$jit" | grep -E "random programs|random loops|random counted loops|random tile programs|test result"

echo "== fuzz: mutated SPIR-V through the whole compiler, seeded with the corpus modules"
cargo run --release --quiet -p compiler --bin agx4-fuzz-spirv -- --seconds 60 "${CARGO_TARGET_DIR:-target}/compute-spv"

echo "== main job: vulkaninfo and the compute example through the loader, agx4 only"
cargo build --release --quiet --lib --example compute
out=$(VK_DRIVER_FILES="$PWD/agx4_icd.json" NODEVICE_SELECT=1 vulkaninfo --summary 2>&1)
echo "$out" | sed -n '/^Devices:/,$p'
echo "$out" | grep -q "deviceName *= Apple M1 (G13G, simulated by agx4)" || { echo "agx4's device is missing from vulkaninfo" >&2; exit 1; }
# Every query vulkaninfo makes, under the validation layer: it must run and say nothing.
VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation VK_DRIVER_FILES="$PWD/agx4_icd.json" NODEVICE_SELECT=1 \
    vulkaninfo > /tmp/agx4-vulkaninfo.txt 2> /tmp/agx4-vulkaninfo.err
if grep -q "VUID" /tmp/agx4-vulkaninfo.txt /tmp/agx4-vulkaninfo.err; then
    grep "VUID" /tmp/agx4-vulkaninfo.txt /tmp/agx4-vulkaninfo.err >&2
    echo "validation errors in full vulkaninfo" >&2
    exit 1
fi
# The compute example verifies its own results and counts validation messages; it must pass
# with the layer on.
VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation VK_DRIVER_FILES="$PWD/agx4_icd.json" NODEVICE_SELECT=1 \
    "${CARGO_TARGET_DIR:-target}/release/examples/compute"
echo "main job: 3 passed, 0 failed"

echo "== OpenGL through Zink on agx4: glxinfo, wflinfo on surfaceless EGL, glxgears"
scripts/gl-check.sh

echo "== Vulkan CTS: the CI slice on agx4, compared with cts/agx4-fails.txt (cts/README.md)"
scripts/cts.sh ci

echo "== piglit through Zink on agx4: one test in 20 of cts/piglit/include.txt, compared with cts/piglit/agx4-fails.txt"
scripts/piglit.sh 20
