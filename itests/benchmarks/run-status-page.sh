#!/usr/bin/env bash
# The status page of a loaded three-node cluster, as docs/operator-guide.md shows it: a primary under disk+ram with
# two journal-protocol replicas, redis-benchmark writing to the primary for $SECONDS seconds (first one request at a
# time, then pipelined, so that the charts show a change), then headless Chromium's screenshot of the primary's
# status page (http://127.0.0.1:<RESP port + 3000>/) written to $SHOT (default docs/images/status-page.png), with the
# primary's /health and hc:exec output beside it in $OUT.
#
#   itests/benchmarks/run-status-page.sh
#
# Builds nothing: expects distribution/target/tandem, redis-benchmark and Debian's chromium.
# Environment: SECONDS_LOAD (90), SHOT, OUT (itests/benchmarks/target/status-page), TANDEM_BENCH_DIR,
# TANDEM_DIST, TANDEM_JAVA_OPTS (-Xmx512m), KEEP (set: the nodes' directories and logs stay).
set -euo pipefail

module=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
out=${OUT:-$module/target/status-page}
load=${SECONDS_LOAD:-90}
export TANDEM_JAVA_OPTS=${TANDEM_JAVA_OPTS:--Xmx512m}
# shellcheck source=bench-lib.sh
source "$module/bench-lib.sh"
shot=${SHOT:-$root/docs/images/status-page.png}

requires redis-cli redis-benchmark chromium curl
mkdir -p "$out" "$(dirname "$shot")"

bench_workdir status-page

free_port pp; free_port prp; free_port r1p; free_port r1rp; free_port r2p; free_port r2rp
tandem_start p "$pp" "$prp" --ack-policy disk+ram
await p 60 answers_ping "$pp"
for r in r1 r2; do
  port_var=${r}p; rport_var=${r}rp
  tandem_start "$r" "${!port_var}" "${!rport_var}" --primary "127.0.0.1:$prp"
  await "$r" 60 answers_ping "${!port_var}"
  tandem_authorize p "$r"
done
health=$((pp + 3000))
both_stream() { [[ $(curl -s "http://127.0.0.1:$health/health" | grep -c '"state": "streaming"') -eq 2 ]]; }
await p 60 both_stream

# one request at a time, then pipelined: the charts show both
third=$((load / 3))
timeout "$third" redis-benchmark -h 127.0.0.1 -p "$pp" -t set -n 100000000 -r 100000 -c 4 -q > /dev/null 2>&1 || true
timeout "$third" redis-benchmark -h 127.0.0.1 -p "$pp" -t set -n 100000000 -r 100000 -c 4 -P 16 -q > /dev/null 2>&1 \
  || true
timeout "$third" redis-benchmark -h 127.0.0.1 -p "$pp" -t set,incr -n 100000000 -r 100000 -c 8 -q > /dev/null 2>&1 &
bench=$!
sleep $((third - 5))

profile=$(mktemp -d)
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$profile" --hide-scrollbars --window-size=1240,1180 \
  --screenshot="$shot" "http://127.0.0.1:$health/" > /dev/null 2>&1
rm -rf "$profile"
curl -s "http://127.0.0.1:$health/health" > "$out/health.json"
curl -s "http://127.0.0.1:$health/metrics" > "$out/metrics.txt"
tandem_shell p 'hc:exec -v tandem' > "$out/hc.txt"
wait "$bench" || true # timeout's 124: the load ran its time
echo "screenshot: $shot"
echo "/health, /metrics, hc:exec: $out"
