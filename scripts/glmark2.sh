#!/usr/bin/env bash
# glmark2's default benchmarks, off-screen, through Mesa's Zink: on agx4 and on lavapipe, the
# reference, one after the other in one run. Prints each scene's frame rate on both, the ratio,
# and both glmark2 scores. A benchmark, not a test: it checks only that every scene ran.
#
#   scripts/glmark2.sh [GLMARK2 ARGS...]   e.g. -b build -b texture for a subset
#
# On the simulated G13 a frame costs what the simulator spends executing it, so agx4's figures
# measure the simulator and the compiler's code, not an M1.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cargo build --release --quiet --lib
. scripts/lib/xserver.sh
x_session
export XDG_RUNTIME_DIR="$tmp" NODEVICE_SELECT=1 MESA_LOADER_DRIVER_OVERRIDE=zink

run() {
    local name=$1
    shift
    echo "== glmark2 --off-screen on Zink/$name"
    env "$@" glmark2 --off-screen "${args[@]}" 2>&1 | tee "$tmp/$name.log" | grep -E "^\[|Score|renderer|GL_RENDERER" || true
}
args=("$@")
run agx4 VK_DRIVER_FILES="$PWD/agx4_icd.json"
# Zink takes a CPU device only when software rendering is asked for.
run lavapipe VK_DRIVER_FILES="/usr/share/vulkan/icd.d/lvp_icd.$(uname -m).json" LIBGL_ALWAYS_SOFTWARE=1

python3 - "$tmp/agx4.log" "$tmp/lavapipe.log" <<'PY'
import math, re, sys

def scenes(path):
    rows, score = [], None
    for line in open(path, errors="replace"):
        m = re.match(r"\[(.+?)\] (.*): FPS: (\d+) FrameTime: ([\d.]+) ms", line)
        if m:
            rows.append((f"{m[1]} {m[2]}", int(m[3]), float(m[4])))
        m = re.search(r"glmark2 Score: (\d+)", line)
        if m:
            score = int(m[1])
    return rows, score

agx4, agx4_score = scenes(sys.argv[1])
lvp, lvp_score = scenes(sys.argv[2])
if not agx4 or len(agx4) != len(lvp) or agx4_score is None or lvp_score is None:
    sys.exit(f"glmark2: the runs did not finish alike ({len(agx4)} scenes on agx4, {len(lvp)} on lavapipe)")
print(f"\n{'scene':<60} {'agx4 ms':>10} {'lvp ms':>9} {'agx4/lvp':>9}")
logs = []
for (name, _, a), (_, _, l) in zip(agx4, lvp):
    ratio = a / l if l > 0 else float("inf")
    if l > 0 and a > 0:
        logs.append(math.log(ratio))
    print(f"{name[:60]:<60} {a:>10.2f} {l:>9.2f} {ratio:>9.1f}")
gm = math.exp(sum(logs) / len(logs)) if logs else float("nan")
print(f"\nglmark2 Score: agx4 {agx4_score}, lavapipe {lvp_score}")
print(f"{len(agx4)} scenes ran on both; frame time agx4/lavapipe, geometric mean: {gm:.1f}")
PY
