#!/usr/bin/env bash
# The main job: build agx4, show its device through the real Vulkan loader, run a compute
# program on it that checks its own results, then run Debian's vkcube on it in an X11 window
# for a fixed number of frames, print the frame rate and save a screenshot of one frame. With
# no Apple GPU present, the device is the simulated AGX (Apple M1, G13G).
#
#   AGX4_CUBE_FRAMES      frames vkcube draws (default 60)
#   AGX4_CUBE_SHOT_FRAME  the frame saved as a screenshot (default 30, 1-based)
#   AGX4_CUBE_SCREENSHOT  where it is saved, a PPM (default target/vkcube-frame.ppm)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cargo build --release --quiet --lib --example compute
export VK_DRIVER_FILES="$PWD/agx4_icd.json" NODEVICE_SELECT=1
vulkaninfo --summary
"${CARGO_TARGET_DIR:-target}/release/examples/compute"

frames=${AGX4_CUBE_FRAMES:-60}
shot=${AGX4_CUBE_SHOT_FRAME:-30}
screenshot=${AGX4_CUBE_SCREENSHOT:-$PWD/${CARGO_TARGET_DIR:-target}/vkcube-frame.ppm}
[ "$shot" -ge 1 ] && [ "$shot" -le "$frames" ] || { echo "AGX4_CUBE_SHOT_FRAME must be in 1..$frames" >&2; exit 1; }
. scripts/lib/xserver.sh
x_session

# vkcube records nothing itself, so the run is captured with gfxreconstruct's layer and the
# chosen frame is replayed on agx4 for its screenshot. The capture layer only copies vkcube's
# small per-frame buffer writes to a file, which costs nothing next to the simulated GPU's
# frame time, so the measured rate is vkcube's own.
echo "vkcube: $frames frames on agx4 (FIFO, a 500x500 window on $DISPLAY)"
start=$(date +%s.%N)
VK_INSTANCE_LAYERS=VK_LAYER_LUNARG_gfxreconstruct GFXRECON_CAPTURE_FILE="$tmp/vkcube.gfxr" \
    GFXRECON_CAPTURE_FILE_TIMESTAMP=false GFXRECON_LOG_LEVEL=warning vkcube --c "$frames"
end=$(date +%s.%N)
awk -v n="$frames" -v s="$start" -v e="$end" \
    'BEGIN { printf "vkcube: %d frames in %.2f s: %.2f frames/s (including start-up)\n", n, e - s, n / (e - s) }'

gfxrecon-replay --screenshots "$shot" --screenshot-dir "$tmp" \
    --measurement-frame-range "1-$shot" --quit-after-measurement-range "$tmp/vkcube.gfxr" >/dev/null
# gfxrecon-replay writes a 32-bit BMP (BGRA rows, bottom-up when its height is positive);
# python3 (which gfxreconstruct needs anyway) rewrites it as a binary PPM.
mkdir -p "$(dirname "$screenshot")"
python3 - "$tmp/screenshot_frame_$shot.bmp" "$screenshot" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
offset, = struct.unpack_from("<I", b, 10)
w, h = struct.unpack_from("<ii", b, 18)
assert struct.unpack_from("<H", b, 28)[0] == 32, "expected a 32-bit BMP"
rows = [b[offset + y * w * 4: offset + (y + 1) * w * 4] for y in range(abs(h))]
if h > 0:
    rows.reverse()
with open(sys.argv[2], "wb") as f:
    f.write(b"P6\n%d %d\n255\n" % (w, abs(h)))
    for r in rows:
        f.write(bytes(c for i in range(0, len(r), 4) for c in (r[i + 2], r[i + 1], r[i])))
PY
echo "vkcube: frame $shot saved to $screenshot"
