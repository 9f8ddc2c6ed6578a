#!/usr/bin/env bash
# OpenGL through Mesa's Zink on agx4: what GL programs see, checked.
#   - glxinfo -B under X: OpenGL core and compatibility 3.3 or later, OpenGL ES 3.1 or later,
#     renderer "zink (Apple M1 ...)";
#   - wflinfo (waffle) on the surfaceless EGL platform, no X involved: the same versions and
#     renderer for a GL 3.3 core context and a GLES 3 context (Debian's eglinfo prints no
#     renderer on that platform, so waffle asks a real context);
#   - glxgears draws for a few seconds and reports a frame rate.
# Exits non-zero when any of these disagrees.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cargo build --release --quiet --lib
export VK_DRIVER_FILES="$PWD/agx4_icd.json" NODEVICE_SELECT=1 MESA_LOADER_DRIVER_OVERRIDE=zink
. scripts/lib/xserver.sh
x_session
# EGL warns without a runtime folder; give it a private one.
export XDG_RUNTIME_DIR="$tmp"

failed=0
fail() {
    echo "gl-check: $*" >&2
    failed=1
}
# at_least VERSION MIN: true when the dotted VERSION is MIN or later.
at_least() {
    [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}
renderer_re='zink \(Apple M1 .*\)'

echo "== glxinfo -B on $DISPLAY"
glx=$(glxinfo -B 2>&1) || fail "glxinfo failed"
echo "$glx" | grep -E "Device:|Max .* version|renderer string"
echo "$glx" | grep -Eq "OpenGL renderer string: $renderer_re" || fail "glxinfo: renderer is not zink on agx4"
core=$(echo "$glx" | sed -n 's/.*Max core profile version: //p')
compat=$(echo "$glx" | sed -n 's/.*Max compat profile version: //p')
es=$(echo "$glx" | sed -n 's/.*Max GLES\[23\] profile version: //p')
at_least "${core:-0}" 3.3 || fail "glxinfo: core profile ${core:-missing} < 3.3"
at_least "${compat:-0}" 3.3 || fail "glxinfo: compatibility profile ${compat:-missing} < 3.3"
at_least "${es:-0}" 3.1 || fail "glxinfo: OpenGL ES ${es:-missing} < 3.1"

# wfl API MIN ARGS...: a context on the surfaceless platform whose version is MIN or later.
wfl() {
    local api=$1 min=$2 out version
    shift 2
    echo "== wflinfo --platform surfaceless_egl --api $api $*"
    out=$(wflinfo --platform surfaceless_egl --api "$api" "$@" 2>&1) || { fail "wflinfo $api failed: $out"; return; }
    echo "$out" | grep -E "renderer string|version string"
    echo "$out" | grep -Eq "OpenGL renderer string: $renderer_re" || fail "wflinfo $api: renderer is not zink on agx4"
    version=$(echo "$out" | sed -n 's/^OpenGL version string: \(OpenGL ES \)\{0,1\}\([0-9.]*\).*/\2/p')
    at_least "${version:-0}" "$min" || fail "wflinfo $api: version ${version:-missing} < $min"
}
wfl gl 3.3 --profile core --version 3.3
wfl gles3 3.1

echo "== glxgears for 6 s"
# glxgears prints its rate every 5 seconds and runs until stopped.
gears=$(timeout -s INT 6 glxgears 2>&1 || true)
echo "$gears" | grep "frames in" || true
echo "$gears" | grep -Eq "^[1-9][0-9]* frames in" || fail "glxgears drew no frames: $gears"

[ "$failed" -eq 0 ] && echo "gl-check: passed"
exit "$failed"
