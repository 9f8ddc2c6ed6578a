# Sourced by the scripts that open windows; most only call `x_session` (at the end).
# `ensure_x_server DIR` keeps the caller's X server when DISPLAY names one that answers, else
# starts an Xvfb of its own on a display it picks itself (-displayfd writes the number once it
# accepts clients) and exports DISPLAY.
# `stop_x_server` stops only that Xvfb, by its pid; call it from the caller's EXIT trap.
xserver_pid=""

ensure_x_server() {
    local dir=$1
    if [ -n "${DISPLAY:-}" ] && xdpyinfo >/dev/null 2>&1; then
        return 0
    fi
    Xvfb -displayfd 3 -noreset -screen 0 1024x768x24 -nolisten tcp 3>"$dir/display" 2>/dev/null &
    xserver_pid=$!
    for _ in $(seq 100); do [ -s "$dir/display" ] && break; sleep 0.1; done
    [ -s "$dir/display" ] || { echo "Xvfb did not start" >&2; return 1; }
    DISPLAY=":$(tr -d '\n' <"$dir/display")"
    export DISPLAY
    echo "started Xvfb on $DISPLAY"
}

stop_x_server() {
    [ -z "$xserver_pid" ] || { kill "$xserver_pid" 2>/dev/null; wait "$xserver_pid" 2>/dev/null || true; }
}

# `x_session`: the usual start of a script that opens windows. Makes a private folder in
# `$tmp` (removed on exit, with the Xvfb if one was started) and ensures an X server.
x_session() {
    tmp=$(mktemp -d)
    trap 'stop_x_server; rm -rf "$tmp"' EXIT
    ensure_x_server "$tmp"
}
