#!/usr/bin/env bash
# MCP over Streamable HTTP under load: `toolhost mcp --http` (stateless era, todo_write with 3
# todos, each call fdatasync'ed into its agent session's JSON Lines file; and on PostgreSQL when
# TOOLHOST_BENCH_PG names one) beside the pinned Python MCP SDK's own Streamable HTTP server
# serving the same tool with the same durability (benches/mcp_http_python_server.py), both
# driven by wrk (Debian's) at 1, 10 and 50 connections for 10 s each. Each connection's calls go
# to sessions of its own. With authorization on too: a static token, and a JWT checked against
# its issuer's cached keys. Prints calls per second and p50/p99 latency as a Markdown table.
# Last, the memory toolhost and the floor hold with 10,000 sessions and 1,000 idle connections.
#
# First, the floor: toolhost against plain rmcp serving the same tool with the same rules and
# durability (benches/floor, `mcp-floor`), measured in turn, three rounds of 5 s at each count
# of connections; the medians and toolhost's ratios to the floor's, as a table of their own (and
# on PostgreSQL, when TOOLHOST_BENCH_PG names one, against one insert per call).
#
#   bash benches/mcp-http.sh          # all of it
#   bash benches/mcp-http.sh floor    # the floor's comparison alone
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
work="$root/target/mcp-http-bench"
rm -rf "$work"
mkdir -p "$work"

if ! command -v wrk > /dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk > /dev/null
fi
if [ ! -x target/venv/bin/python ]; then
    python3 -m venv target/venv
    target/venv/bin/python -m pip install --quiet -r tool-host/tests/mcp/requirements.txt
fi
cargo build --release --quiet -p tool-host -p mcp-floor

cat > "$work/call.lua" <<'LUA'
-- A stateless-era tools/call of todo_write; each request names one of this thread's sessions
-- (as many as its connections, given after `--` with a name for the run, so that each run
-- starts with new sessions), so calls of one session seldom wait on each other.
local body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"todo_write",' ..
  '"arguments":{"todos":[{"content":"Plan","status":"completed"},' ..
  '{"content":"Build","status":"in_progress"},{"content":"Ship","status":"pending"}]},' ..
  '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",' ..
  '"io.modelcontextprotocol/clientCapabilities":{}}}}'
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
local n = 0
local per = 1
local run = ""
function init(args)
  per = tonumber(args[1])
  run = args[2]
end
function request()
  n = n + 1
  wrk.headers["Agent-Session"] = run .. "-t" .. tid .. "-" .. (n % per)
  return wrk.format("POST", "/mcp", nil, body)
end
function done(summary, latency, requests)
  local errors = summary.errors.status + summary.errors.connect + summary.errors.read +
    summary.errors.write + summary.errors.timeout
  io.write(string.format("RESULT %.0f %.2f %.2f %d\n", summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, errors))
end
LUA

wait_port() {
    for _ in $(seq 200); do
        if (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null; then return 0; fi
        sleep 0.05
    done
    echo "nothing listens on $1" >&2
    return 1
}

load() { # seconds clients port [header]: prints "calls/s p50 p99 errors"
    local threads=$(($2 < 2 ? 1 : 2))
    local line
    line=$(wrk -t"$threads" -c"$2" -d"$1s" \
        -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' \
        -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' \
        -H 'Mcp-Name: todo_write' ${4:+-H "$4"} \
        -s "$work/call.lua" "http://127.0.0.1:$3/mcp" -- $(($2 / threads)) "r$2-$RANDOM$RANDOM" |
        grep '^RESULT')
    echo "${line#RESULT }"
}

run() { # label port [header]
    for clients in 1 10 50; do
        read -r rps p50 p99 errors <<< "$(load 10 "$clients" "$2" "${3:-}")"
        echo "| $1 | $clients | $rps | $p50 ms | $p99 ms | $errors |"
    done
}

median() { sort -g | sed -n 2p; } # of three

# The floor: each round measures toolhost and then plain rmcp at each count of connections,
# both serving all the while (so neither warms up while the other is measured).
compare() { # label, then toolhost's store arguments, then the floor's store (a directory or URL)
    local label=$1 floor_store=${*: -1}
    local ours_store=("${@:2:$#-2}")
    port=$((port + 2))
    target/release/toolhost mcp --http "$port" "${ours_store[@]}" 2> "$work/floor-toolhost.log" &
    local ours=$!
    target/release/mcp-floor $((port + 1)) "$floor_store" 2> "$work/floor-rmcp.log" &
    local floor=$!
    wait_port "$port"
    wait_port $((port + 1))
    rm -f "$work"/floor-*-toolhost "$work"/floor-*-rmcp
    for _ in 1 2 3; do
        for clients in 1 10 50; do
            load 5 "$clients" "$port" >> "$work/floor-$clients-toolhost"
            load 5 "$clients" $((port + 1)) >> "$work/floor-$clients-rmcp"
        done
    done
    kill "$ours" "$floor"; wait "$ours" || true; wait "$floor" || true
    echo "$label"
    echo
    echo "| clients | toolhost calls/s | rmcp calls/s | ratio | toolhost p99 | rmcp p99 | ratio | errors |"
    echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    for clients in 1 10 50; do
        for server in toolhost rmcp; do
            f="$work/floor-$clients-$server"
            declare "rps_$server=$(cut -d' ' -f1 "$f" | median)"
            declare "p99_$server=$(cut -d' ' -f3 "$f" | median)"
            declare "err_$server=$(awk '{ n += $4 } END { print n }' "$f")"
        done
        awk -v c="$clients" -v a="$rps_toolhost" -v b="$rps_rmcp" -v x="$p99_toolhost" \
            -v y="$p99_rmcp" -v e="$err_toolhost/$err_rmcp" 'BEGIN {
            printf "| %d | %d | %d | %.2f | %.2f ms | %.2f ms | %.2f | %s |\n", c, a, b, a / b, x, y, x / y, e
        }'
    done
    echo
}

port=$((21000 + RANDOM % 1000))
mkdir -p "$work/floor-toolhost" "$work/floor-rmcp"
compare "Files, against plain rmcp:" --session-dir "$work/floor-toolhost" "$work/floor-rmcp"
if [ -n "${TOOLHOST_BENCH_PG:-}" ]; then
    compare "PostgreSQL, against plain rmcp with one insert per call:" \
        --store "$TOOLHOST_BENCH_PG" "$TOOLHOST_BENCH_PG"
fi
[ "${1:-}" = floor ] && exit 0

echo "| server | clients | calls/s | p50 | p99 | errors |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"

port=$((port + 2))
target/release/toolhost mcp --http "$port" --session-dir "$work/files" 2> "$work/files.log" &
server=$!
wait_port "$port"
run "toolhost, files" "$port"
kill "$server"; wait "$server" || true

if [ -n "${TOOLHOST_BENCH_PG:-}" ]; then
    port=$((port + 1))
    target/release/toolhost mcp --http "$port" --store "$TOOLHOST_BENCH_PG" 2> "$work/pg.log" &
    server=$!
    wait_port "$port"
    run "toolhost, PostgreSQL" "$port"
    kill "$server"; wait "$server" || true
fi

# The same with authorization on: a static token, and a JWT of an issuer (tests' issuer.py,
# PyJWT) checked against its cached JWKS.
port=$((port + 1))
echo "bench-token bench todos:write" > "$work/tokens"
chmod 600 "$work/tokens"
target/release/toolhost mcp --http "$port" --session-dir "$work/static" \
    --auth-tokens "$work/tokens" 2> "$work/static.log" &
server=$!
wait_port "$port"
run "toolhost, files, static token" "$port" "Authorization: Bearer bench-token"
kill "$server"; wait "$server" || true

target/venv/bin/python tool-host/tests/auth/issuer.py > "$work/issuer.port" &
issuer=$!
for _ in $(seq 100); do [ -s "$work/issuer.port" ] && break; sleep 0.05; done
issuer_url="http://127.0.0.1:$(head -1 "$work/issuer.port")"
token=$(curl -s "$issuer_url/token?case=good&aud=toolhost-bench")
port=$((port + 1))
target/release/toolhost mcp --http "$port" --session-dir "$work/jwt" \
    --auth-issuer "$issuer_url" --auth-audience toolhost-bench 2> "$work/jwt.log" &
server=$!
wait_port "$port"
run "toolhost, files, JWT" "$port" "Authorization: Bearer $token"
kill "$server"; wait "$server" || true
kill "$issuer"; wait "$issuer" || true

port=$((port + 1))
mkdir -p "$work/python"
target/venv/bin/python benches/mcp_http_python_server.py "$port" "$work/python" \
    2> "$work/python.log" &
server=$!
wait_port "$port"
run "Python SDK, files" "$port"
kill "$server"; wait "$server" || true

# Memory: 10,000 agent sessions, then 1,000 idle connections (benches/mcp_http_memory.py).
echo
echo "| server | RSS at start | 10,000 sessions | + 1,000 idle connections |"
echo "| --- | ---: | ---: | ---: |"
memory() { # label port pid
    read -r _ start sessions connections <<< \
        "$(target/venv/bin/python benches/mcp_http_memory.py "$2" "$3" 10000 1000)"
    echo "| $1 | $((start / 1024)) MiB | $((sessions / 1024)) MiB | $((connections / 1024)) MiB |"
}
port=$((port + 1))
mkdir -p "$work/memory-toolhost" "$work/memory-rmcp"
target/release/toolhost mcp --http "$port" --session-dir "$work/memory-toolhost" \
    2> "$work/memory-toolhost.log" &
server=$!
wait_port "$port"
memory "toolhost, files" "$port" "$server"
kill "$server"; wait "$server" || true
port=$((port + 1))
target/release/mcp-floor "$port" "$work/memory-rmcp" 2> "$work/memory-rmcp.log" &
server=$!
wait_port "$port"
memory "plain rmcp (floor)" "$port" "$server"
kill "$server"; wait "$server" || true
