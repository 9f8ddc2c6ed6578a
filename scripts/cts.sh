#!/usr/bin/env bash
# Runs a Vulkan CTS suite on agx4 through the real Khronos loader and prints deqp-runner's
# summary. See cts/README.md.
#
#   scripts/cts.sh SUITE            SUITE is a file cts/suites/SUITE.toml (ci, api, draw, ...)
#
# Variables:
#   AGX4_CTS_DIR      the ready CTS: deqp-vk, its data (vulkan/) and deqp-runner
#                     (default: ../shared/cts beside the checkout, else /work/shared/cts)
#   AGX4_CTS_DRIVER   agx4 (default) or lavapipe: which driver the loader may see
#   AGX4_CTS_OUT      results folder (default: target/cts/SUITE-DRIVER)
#   AGX4_CTS_JOBS     parallel deqp-vk processes (default: the number of CPUs)
#   AGX4_CTS_TIMEOUT  seconds one case may take before it counts as a Timeout (default 60)
#   AGX4_CTS_FRACTION run one case in N of the suite's list, on top of the suite's own fractions
#
# On agx4 the run is compared with cts/agx4-fails.txt (expected Fail/Crash), cts/agx4-flakes.txt
# and cts/agx4-skips.txt: any other result than those expect (a new Fail, Crash or Timeout, or
# a listed failure that now passes) makes the script fail. On lavapipe the run is only reported.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
    echo "usage: scripts/cts.sh SUITE   (suites: $(cd "$root/cts/suites" && ls ./*.toml | sed 's|^\./||; s|\.toml$||' | tr '\n' ' '))" >&2
    exit 2
}
[ $# -eq 1 ] || usage
suite=$1
suite_file="$root/cts/suites/$suite.toml"
[ -f "$suite_file" ] || usage

# The CTS folder: AGX4_CTS_DIR, else ../shared/cts beside the checkout, else the workplace's
# /work/shared/cts (where a clone made elsewhere, such as CI's, still finds it).
if [ -n "${AGX4_CTS_DIR:-}" ]; then
    cts=$AGX4_CTS_DIR
elif [ -d "$root/../shared/cts" ]; then
    cts=$root/../shared/cts
else
    cts=/work/shared/cts
fi
cts=$(realpath "$cts")
driver=${AGX4_CTS_DRIVER:-agx4}
out=${AGX4_CTS_OUT:-$root/target/cts/$suite-$driver}
jobs=${AGX4_CTS_JOBS:-$(nproc)}
timeout=${AGX4_CTS_TIMEOUT:-60}
for f in deqp-vk deqp-runner vulkan; do
    [ -e "$cts/$f" ] || { echo "no $f in $cts: set AGX4_CTS_DIR to the folder that holds the CTS" >&2; exit 1; }
done

"$root/scripts/deps.sh"

case "$driver" in
agx4)
    (cd "$root" && cargo build --release --quiet --lib)
    icd="$root/agx4_icd.json"
    expectations=(--baseline "$root/cts/agx4-fails.txt" --flakes "$root/cts/agx4-flakes.txt" --skips "$root/cts/agx4-skips.txt")
    ;;
lavapipe)
    icd=/usr/share/vulkan/icd.d/lvp_icd.$(uname -m).json
    expectations=()
    ;;
*)
    echo "AGX4_CTS_DRIVER must be agx4 or lavapipe" >&2
    exit 2
    ;;
esac

# deqp-vk lists its own cases (the mustpass lists are not part of the CTS folder). The full list
# is cached per deqp-vk binary; suites pick from it with include patterns and fractions.
cache="$root/target/cts"
mkdir -p "$cache"
key=$(stat -c '%s-%Y' "$cts/deqp-vk")
caselist="$cache/cases-$key.txt"
if [ ! -s "$caselist" ]; then
    tmp=$(mktemp -d)
    (cd "$tmp" && "$cts/deqp-vk" --deqp-archive-dir="$cts" --deqp-runmode=txt-caselist --deqp-case='dEQP-VK.*' >/dev/null)
    sed -n 's/^TEST: //p' "$tmp/dEQP-VK-cases.txt" > "$caselist.tmp"
    mv "$caselist.tmp" "$caselist"
    rm -rf "$tmp"
fi

# The suite files name their inputs by placeholder; this run's concrete copy lives in $out.
rm -rf "$out"
mkdir -p "$out"
sed -e "s|@CTS_DIR@|$cts|g" -e "s|@CASELIST@|$caselist|g" -e "s|@ROOT@|$root|g" "$suite_file" > "$out/suite.toml"

fraction=()
[ -n "${AGX4_CTS_FRACTION:-}" ] && fraction=(--fraction "$AGX4_CTS_FRACTION")

# The wsi.xcb and wsi.xlib groups need an X server: without a display, one of our own.
# -noreset: by default Xvfb resets when its last client leaves, and a test that connects
# during the reset gets a broken connection (deqp-vk opens one per case, one case at a time).
xvfb_pid=""
if [ -z "${DISPLAY:-}" ] && command -v Xvfb >/dev/null; then
    for n in $(seq 90 99); do
        [ -e "/tmp/.X$n-lock" ] && continue
        Xvfb ":$n" -noreset -screen 0 1024x768x24 -nolisten tcp >/dev/null 2>&1 &
        xvfb_pid=$!
        export DISPLAY=":$n"
        for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X$n" ] && break; sleep 0.1; done
        break
    done
fi
trap '[ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true' EXIT

echo "== CTS suite $suite on $driver ($jobs jobs, results in $out)"
start=$(date +%s)
status=0
VK_DRIVER_FILES="$icd" NODEVICE_SELECT=1 \
    "$cts/deqp-runner" suite --suite "$out/suite.toml" --output "$out/runner" --jobs "$jobs" \
    --timeout "$timeout" --summary-limit 0 "${fraction[@]}" "${expectations[@]}" \
    > "$out/runner.log" 2>&1 || status=$?
end=$(date +%s)
# deqp-runner's own summary: the counts, the slowest cases, and every unexpected result.
sed -n '/^Pass: [0-9]*, .*Remaining: 0/,$p' "$out/runner.log" | grep -v '^Pass: .*Remaining: [1-9]' || tail -n 40 "$out/runner.log"
"$root/scripts/cts-table.sh" "$out/runner/results.csv"
echo "wall time: $((end - start)) s"
exit $status
