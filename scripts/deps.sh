#!/usr/bin/env bash
# Installs the Debian packages agx4 builds and tests with. Idempotent: apt runs only when
# something is missing.
set -euo pipefail
packages=(
    libvulkan1 libvulkan-dev vulkan-tools vulkan-validationlayers  # loader, vk.xml, vulkaninfo, validation
    libclang-dev                                                   # bindgen, for the UAPI header
    mesa-vulkan-drivers                                            # lavapipe, the reference renderer
    glslang-tools spirv-tools                                      # glslangValidator (corpus), spirv-as (compiler tests)
    libpng16-16 zlib1g libgl1 libglx0 libx11-6 libxcb1             # what the CTS's deqp-vk links
    libwayland-client0 libwayland-egl1                             #   against (scripts/cts.sh)
    xvfb libx11-xcb1 x11-utils                                     # WSI tests: an X server; Xlib surfaces; xdpyinfo
    weston                                                         # Wayland WSI tests: a headless compositor
    gfxreconstruct                                                 # vkcube frames: capture and replay with screenshots
    piglit libgl1-mesa-dri libegl-mesa0 mesa-utils waffle-utils    # OpenGL through Zink: piglit (scripts/piglit.sh), glxinfo, glxgears, wflinfo
    glmark2-x11                                                    # scripts/glmark2.sh
)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq "${missing[@]}"
fi
command -v cargo >/dev/null || { echo "agx4 needs a Rust toolchain (cargo): see https://rustup.rs" >&2; exit 1; }
