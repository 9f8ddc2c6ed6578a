#!/usr/bin/env bash
# Runs piglit's OpenGL and OpenGL ES tests through Mesa's Zink on agx4 (or on lavapipe, the
# reference), with Debian's piglit and the CTS folder's piglit-runner. See cts/README.md.
#
#   scripts/piglit.sh [FRACTION]   one test in FRACTION of cts/piglit/include.txt's tests
#                                  of the quick_gl and quick_shader profiles (default 1: all)
#
# Variables:
#   AGX4_CTS_DIR       the folder holding piglit-runner (as for scripts/cts.sh)
#   AGX4_PIGLIT_DRIVER agx4 (default) or lavapipe
#   AGX4_PIGLIT_OUT    results folder (default: target/piglit/DRIVER-FRACTION)
#   AGX4_PIGLIT_JOBS   parallel tests (default: the number of CPUs)
#
# On agx4 the run is compared with cts/piglit/agx4-fails.txt: a new Fail or Crash, or a listed
# failure that now passes, makes the script fail. On lavapipe the run is only reported.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fraction=${1:-1}
if [ -n "${AGX4_CTS_DIR:-}" ]; then
    cts=$AGX4_CTS_DIR
elif [ -d "$root/../shared/cts" ]; then
    cts=$root/../shared/cts
else
    cts=/work/shared/cts
fi
cts=$(realpath "$cts")
driver=${AGX4_PIGLIT_DRIVER:-agx4}
out=${AGX4_PIGLIT_OUT:-$root/target/piglit/$driver-$fraction}
jobs=${AGX4_PIGLIT_JOBS:-$(nproc)}
[ -x "$cts/piglit-runner" ] || { echo "no piglit-runner in $cts: set AGX4_CTS_DIR" >&2; exit 1; }

"$root/scripts/deps.sh"
piglit=/usr/lib/$(uname -m)-linux-gnu/piglit
[ -d "$piglit/tests" ] || { echo "Debian's piglit is not installed at $piglit" >&2; exit 1; }

env_vars=(PIGLIT_PLATFORM=surfaceless_egl MESA_LOADER_DRIVER_OVERRIDE=zink NODEVICE_SELECT=1)
case "$driver" in
agx4)
    (cd "$root" && cargo build --release --quiet --lib)
    env_vars+=(VK_DRIVER_FILES="$root/agx4_icd.json")
    expectations=(--baseline "$root/cts/piglit/agx4-fails.txt" --skips "$root/cts/piglit/skips.txt")
    ;;
lavapipe)
    # Zink takes a CPU device only when software rendering is asked for.
    env_vars+=(VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.$(uname -m).json LIBGL_ALWAYS_SOFTWARE=1)
    expectations=(--skips "$root/cts/piglit/skips.txt")
    ;;
*)
    echo "AGX4_PIGLIT_DRIVER must be agx4 or lavapipe" >&2
    exit 2
    ;;
esac
# EGL warns without a runtime folder; give it a private one.
runtime=$(mktemp -d)
trap 'rm -rf "$runtime"' EXIT
env_vars+=(XDG_RUNTIME_DIR="$runtime")

includes=()
while read -r re; do
    case "$re" in '' | '#'*) continue ;; esac
    includes+=(--include-tests "$re")
done < "$root/cts/piglit/include.txt"

rm -rf "$out"
mkdir -p "$out"
start=$(date +%s)
status=0
for profile in quick_gl quick_shader; do
    echo "== piglit $profile on Zink/$driver, one test in $fraction"
    env "${env_vars[@]}" "$cts/piglit-runner" run --piglit-folder "$piglit" --profile "$profile" \
        --output "$out/$profile" --jobs "$jobs" --timeout 120 --fraction "$fraction" \
        "${includes[@]}" "${expectations[@]}" --summary-limit 0 > "$out/$profile.log" 2>&1 || status=1
    sed -n '/^Pass:/,$p' "$out/$profile.log" | grep -v '^ *$' | tail -40
done
echo "piglit on $driver: $(( $(date +%s) - start )) s"
exit $status
