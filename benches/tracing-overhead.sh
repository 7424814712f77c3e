#!/usr/bin/env bash
# The cost of the spans with no subscriber installed: tool-runtime's `dispatch` bench (a dispatch,
# and an append to an in-memory session) built once with the `tracing` feature and once without,
# then the two binaries run alternately, ROUNDS times each (11 unless given): the ratio of the
# medians. A process's run varies by more than the span costs (where its memory lands, the
# virtual machine's neighbours); alternating many runs spreads that over both builds alike.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-11}
# Each build in a target directory of its own, so that switching the feature rebuilds nothing.
build() {
    cargo bench -q -p tool-runtime --bench dispatch --no-run --target-dir "target/tracing-overhead/$1" \
        --message-format=json "${@:2}" 2>/dev/null |
        grep -o '"executable":"[^"]*"' | cut -d'"' -f4 | grep dispatch
}
with_bin=$(build with)
without_bin=$(build without --no-default-features)
declare -A runs
for _ in $(seq "$rounds"); do
    for build in with without; do
        bin=${build}_bin
        while read -r name value; do
            runs[$build.$name]+="$value "
        done < <("${!bin}" --bench | sed -n 's/^\([a-z]*\) .*: \([0-9.]*\) ns$/\1 \2/p')
    done
done
median() { printf '%s\n' $1 | sort -g | sed -n "$(((rounds + 1) / 2))p"; }
for name in dispatch append; do
    w=$(median "${runs[with.$name]}") wo=$(median "${runs[without.$name]}")
    echo "$name: with tracing compiled in $w ns, without $wo ns, ratio $(echo "scale=3; $w / $wo" | bc)" \
        "(medians of $rounds runs each)"
done
