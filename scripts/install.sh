#!/usr/bin/env bash
# Installs agx4 system-wide: the library in /usr/local/lib and a manifest where the loader
# looks for drivers. Run after `cargo build --release`, as root.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${PREFIX:-/usr/local}
install -Dm755 target/release/libvulkan_agx4.so "$prefix/lib/libvulkan_agx4.so"
mkdir -p "$prefix/share/vulkan/icd.d"
sed "s|\"library_path\": *\"[^\"]*\"|\"library_path\": \"$prefix/lib/libvulkan_agx4.so\"|" agx4_icd.json \
    > "$prefix/share/vulkan/icd.d/agx4_icd.json"
echo "installed $prefix/lib/libvulkan_agx4.so and $prefix/share/vulkan/icd.d/agx4_icd.json"
