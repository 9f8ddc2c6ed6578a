#!/usr/bin/env bash
# Prints a table of CTS results per group from deqp-runner's results.csv files
# (`case,Status,seconds` lines). deqp-runner reports NotSupported as Skip; cases named in a
# skips file also show as Skip.
#
#   scripts/cts-table.sh RESULTS.csv [RESULTS.csv ...]
set -euo pipefail
for f in "$@"; do
    [ -f "$f" ] || { echo "no results file $f" >&2; exit 1; }
    [ $# -gt 1 ] && echo "$f"
    awk -F, '
    BEGIN { split("Pass NotSupported Fail Crash Timeout ExpectedFail UnexpectedPass Flake", cols, " ") }
    {
        split($1, p, ".")
        g = p[2]
        # pipeline and renderpasses are families: report their subgroups.
        if (g == "pipeline" || g == "renderpasses") g = g "." p[3]
        s = $2
        if (s == "Skip") s = "NotSupported"
        if (s == "Warn") s = "Pass"
        n[g]++; c[g, s]++; t[g] += $3; seen[g] = 1
        total++; ct[s]++; tt += $3
    }
    END {
        for (g in seen) {
            printf "%-34s %8d", g, n[g]
            for (i = 1; i <= 8; i++) printf " %8d", c[g, cols[i]]
            printf " %9.0f\n", t[g]
        }
        printf "~total                             %8d", total
        for (i = 1; i <= 8; i++) printf " %8d", ct[cols[i]]
        printf " %9.0f\n", tt
    }' "$f" | sort | sed 's/^~total /total  /' | {
        printf "%-34s %8s %8s %8s %8s %8s %8s %8s %8s %8s %9s\n" group cases Pass NotSupp Fail Crash Timeout XFail XPass Flake case-sec
        cat
    }
done
