#!/usr/bin/env bash
# The cost of the `execute_tool` span with no subscriber installed: one dispatch, built with
# tool-runtime's `tracing` feature and without it, run three times each, alternating; the ratio
# of the medians.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each build in a target directory of its own, so that switching the feature rebuilds nothing.
run() {
    cargo bench -q -p tool-runtime --bench dispatch --target-dir "target/tracing-overhead/$1" "${@:2}" \
        2>/dev/null | grep -o '[0-9.]* ns' | cut -d' ' -f1
}
with=() without=()
for _ in 1 2 3; do
    with+=("$(run with)")
    without+=("$(run without --no-default-features)")
done
median() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
w=$(median "${with[@]}") wo=$(median "${without[@]}")
echo "dispatch with tracing compiled in: $w ns; without: $wo ns; ratio $(echo "scale=3; $w / $wo" | bc)"
