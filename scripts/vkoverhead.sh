#!/usr/bin/env bash
# Driver CPU cost with zmike's vkoverhead: agx4 (no-execute: the simulated GPU parses the
# control streams and shaders but runs nothing, AGX4_SIM_NOEXEC=1) beside lavapipe and, when
# given, Mesa's Honeykrisp on the asahi noop drm-shim. Each test runs on every driver in turn
# before the next test, so the machine's load drifts alike for all. Prints thousands of
# operations per second per driver and agx4 over the faster other driver. A benchmark, not a
# test.
#
#   VKOVERHEAD=/path/to/vkoverhead [HK_BUILD=/path/to/mesa/build] scripts/vkoverhead.sh [TEST...]
#
# vkoverhead (github.com/zmike/vkoverhead) and Mesa are built outside the project; nothing
# here builds them. HK_BUILD is a Mesa build directory with Honeykrisp and the drm-shim
# (-Dvulkan-drivers=asahi -Dtools=drm-shim,asahi); Mesa 25.0 only probes the shim with the
# "unstable UAPI" refusal in hk_physical_device.c removed. TEST numbers are vkoverhead's
# (`vkoverhead -list`); the default is the issue's cases: draw (0), draw with a changed
# uniform buffer (26), descriptor update (48) and empty submit (42), plus a submit of one
# command buffer (44).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VKOVERHEAD:?set VKOVERHEAD to a vkoverhead binary}"
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(0 26 48 42 44)
cargo build --release --quiet --lib
export NODEVICE_SELECT=1
lvp="/usr/share/vulkan/icd.d/lvp_icd.$(uname -m).json"

# One figure: thousands of operations per second, or NA.
measure() {
    local test=$1
    shift
    local out
    out=$(cd "$(dirname "$VKOVERHEAD")" && env "$@" timeout 120 "$VKOVERHEAD" -test "$test" \
        -duration 2 -nocolor -output-only 2>/dev/null | tr -d ' \n') || true
    echo "${out:-NA}"
}

printf '%-4s %-40s %10s %10s %10s %8s\n' test name agx4 lavapipe honeykrisp ratio
for t in "${tests[@]}"; do
    name=$("$VKOVERHEAD" -list 2>&1 | awk -v t="$t" -F', *' '{ gsub(/ /, "", $1) } $1 == t { print $2 }')
    a=$(measure "$t" VK_DRIVER_FILES="$PWD/agx4_icd.json" AGX4_SIM_NOEXEC=1)
    l=$(measure "$t" VK_DRIVER_FILES="$lvp")
    h=NA
    if [ -n "${HK_BUILD:-}" ]; then
        h=$(measure "$t" VK_DRIVER_FILES="$HK_BUILD/src/asahi/vulkan/asahi_devenv_icd.$(uname -m).json" \
            LD_PRELOAD="$HK_BUILD/src/asahi/drm-shim/libasahi_noop_drm_shim.so" \
            MESA_SHADER_CACHE_DISABLE=true)
    fi
    ratio=$(python3 -c '
import sys
a, others = sys.argv[1], [x for x in sys.argv[2:] if x != "NA"]
print("%.3f" % (float(a) / max(map(float, others))) if a != "NA" and others else "NA")
' "$a" "$l" "$h")
    printf '%-4s %-40s %10s %10s %10s %8s\n' "$t" "$name" "$a" "$l" "$h" "$ratio"
done
