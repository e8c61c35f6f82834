#!/usr/bin/env bash
# Side by side, in one run on this machine: a Tandem node (from the built distribution), then Redis 7 with
# appendonly yes + appendfsync always, then Redis with appendfsync everysec, each alone on the machine while it is
# measured, all with their data in one temporary directory (same disk), all on loopback. For each:
#   warm-up   redis-benchmark -t set,get,incr,hset -P 16 -c 50 -r 100000 -n $WARM_N (discarded)
#   measured  redis-benchmark -t set,get,incr,hset -P 16 -c 50 -r 100000 -n $N -q --csv
#   latency   redis-benchmark -t set -P 1 -c 1 -r 100000 -n $LAT_N -q --csv   (write-to-ack, unpipelined)
# Prints requests/s per system and the ratios Tandem/Redis-always and Tandem/Redis-everysec, and replaces the
# "redis-comparison" section of docs/benchmarks.md with the tables and a description of the machine.
#
#   itests/benchmarks/run-redis-comparison.sh
#
# Builds nothing: expects distribution/target/tandem (mvn -B install). Needs redis-server, redis-benchmark and
# redis-cli (Redis 7) on the PATH. Every process it starts and its temporary directory are removed at exit.
# Then a load of 1,000-byte values: redis-benchmark -t set -d 1000 -r 300000 -P 64 -c 8 -n $LOAD_N.
# Environment: N (default 200000), LAT_N (20000), LOAD_N (900000), WARM_N (400000: the JVM reaches its steady state; Redis needs none but gets the same), TANDEM_BENCH_DIR (parent of the temporary
# directory, default /tmp), TANDEM_DIST (the distribution), TANDEM_JAVA_OPTS (default -Xmx1g -XX:+UseZGC, as the distribution),
# DOC (default docs/benchmarks.md of this repository).
set -euo pipefail

module=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
root=$(cd "$module/../.." && pwd)
dist=${TANDEM_DIST:-$root/distribution/target/tandem}
doc=${DOC:-$root/docs/benchmarks.md}
N=${N:-200000}
LAT_N=${LAT_N:-20000}
WARM_N=${WARM_N:-400000}
LOAD_N=${LOAD_N:-900000}
tests=set,get,incr,hset
# shellcheck source=bench-lib.sh
source "$module/bench-lib.sh"

die() { echo "run-redis-comparison: $*" >&2; exit 2; }
[[ -x $dist/bin/tandem ]] || die "$dist/bin/tandem not found: build the distribution first (mvn -B install)"
for tool in redis-server redis-benchmark redis-cli java; do
  command -v "$tool" > /dev/null || die "$tool is not on the PATH"
done

base=${TANDEM_BENCH_DIR:-/tmp}
mkdir -p "$base"
work=$(mktemp -d "$base/tandem-redis-bench.XXXXXX")
results=$work/results
mkdir -p "$results"

pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do
    stop_pid "$pid"
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# a TCP port on 127.0.0.1 that nothing listens on
free_port() {
  local p
  while true; do
    p=$((20000 + RANDOM % 30000))
    if ! (exec 3<> "/dev/tcp/127.0.0.1/$p") 2> /dev/null; then
      echo "$p"
      return
    fi
  done
}

wait_ready() {
  local port=$1 pid=$2 log=$3 i
  for ((i = 0; i < 240; i++)); do
    if [[ $(redis-cli -h 127.0.0.1 -p "$port" ping 2> /dev/null) == PONG ]]; then
      return 0
    fi
    kill -0 "$pid" 2> /dev/null || { tail -n 30 "$log" >&2; die "server on port $port exited while starting"; }
    sleep 0.25
  done
  tail -n 30 "$log" >&2
  die "server on port $port did not answer PING within 60 s"
}

bench() { # LABEL PORT
  local label=$1 port=$2
  echo "== $label: warm-up ($WARM_N requests per test)"
  redis-benchmark -h 127.0.0.1 -p "$port" -t "$tests" -P 16 -c 50 -r 100000 -n "$WARM_N" -q > /dev/null
  echo "== $label: redis-benchmark -t $tests -P 16 -c 50 -r 100000 -n $N"
  redis-benchmark -h 127.0.0.1 -p "$port" -t "$tests" -P 16 -c 50 -r 100000 -n "$N" -q --csv \
    | tee "$results/$label.csv"
  echo "== $label: redis-benchmark -t set -P 1 -c 1 -r 100000 -n $LAT_N"
  redis-benchmark -h 127.0.0.1 -p "$port" -t set -P 1 -c 1 -r 100000 -n "$LAT_N" -q --csv \
    | tee "$results/$label-latency.csv"
  echo "== $label: redis-benchmark -t set -d 1000 -r 300000 -P 64 -c 8 -n $LOAD_N"
  redis-benchmark -h 127.0.0.1 -p "$port" -t set -d 1000 -r 300000 -P 64 -c 8 -n "$LOAD_N" -q --csv \
    | tee "$results/$label-load.csv"
}

stop_last() {
  local pid=${pids[-1]}
  stop_pid "$pid"
  unset 'pids[-1]'
}

# ---------------------------------------------------------------------------------------------------- Tandem
port=$(free_port)
mkdir -p "$work/tandem"
TANDEM_JAVA_OPTS=${TANDEM_JAVA_OPTS:--Xmx1g -XX:+UseZGC} "$dist/bin/tandem" --home "$work/tandem" --port "$port" --no-console \
  > "$work/tandem.log" 2>&1 < /dev/null &
pids+=($!)
wait_ready "$port" "${pids[-1]}" "$work/tandem.log"
bench tandem "$port"
stop_last
rm -rf "$work/tandem"

# ---------------------------------------------------------------------------------------------------- Redis
for mode in always everysec; do
  port=$(free_port)
  mkdir -p "$work/redis-$mode"
  # AOF on, fsync per mode; no RDB snapshots; no automatic AOF rewrite (a forked rewrite would take a core away
  # from the measured server on a small machine)
  redis-server --port "$port" --bind 127.0.0.1 --dir "$work/redis-$mode" --daemonize no \
    --appendonly yes --appendfsync "$mode" --save "" --auto-aof-rewrite-percentage 0 \
    --logfile "$work/redis-$mode.log" < /dev/null > /dev/null 2>&1 &
  pids+=($!)
  wait_ready "$port" "${pids[-1]}" "$work/redis-$mode.log"
  bench "redis-$mode" "$port"
  stop_last
  rm -rf "$work/redis-$mode"
done

# ---------------------------------------------------------------------------------------------------- report
throughput=$work/throughput.md
{
  echo "| test | Tandem req/s | Redis always req/s | Redis everysec req/s | Tandem / Redis always | Tandem / Redis everysec |"
  echo "|---|---:|---:|---:|---:|---:|"
  for t in SET GET INCR HSET; do
    tr=$(field "$results/tandem.csv" "$t" 2)
    ra=$(field "$results/redis-always.csv" "$t" 2)
    re=$(field "$results/redis-everysec.csv" "$t" 2)
    echo "| $t | $(fmt "$tr") | $(fmt "$ra") | $(fmt "$re") | $(ratio "$tr" "$ra") | $(ratio "$tr" "$re") |"
  done
} > "$throughput"

latency=$work/latency.md
{
  echo "| system | SET req/s | p50 ms | p99 ms | max ms | p50 Tandem / this | p99 Tandem / this |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  tp50=$(field "$results/tandem-latency.csv" SET 5)
  tp99=$(field "$results/tandem-latency.csv" SET 7)
  for s in tandem:Tandem redis-always:"Redis always" redis-everysec:"Redis everysec"; do
    f=$results/${s%%:*}-latency.csv
    p50=$(field "$f" SET 5)
    p99=$(field "$f" SET 7)
    if [[ ${s%%:*} == tandem ]]; then r50="—"; r99="—"; else r50=$(ratio "$tp50" "$p50"); r99=$(ratio "$tp99" "$p99"); fi
    echo "| ${s#*:} | $(fmt "$(field "$f" SET 2)") | $p50 | $p99 | $(field "$f" SET 8) | $r50 | $r99 |"
  done
} > "$latency"

load=$work/load.md
{
  echo "| system | SET req/s | p50 ms | p99 ms | Tandem / this |"
  echo "|---|---:|---:|---:|---:|"
  tl=$(field "$results/tandem-load.csv" SET 2)
  for s in tandem:Tandem redis-always:"Redis always" redis-everysec:"Redis everysec"; do
    f=$results/${s%%:*}-load.csv
    r=$(field "$f" SET 2)
    if [[ ${s%%:*} == tandem ]]; then rr="—"; else rr=$(ratio "$tl" "$r"); fi
    echo "| ${s#*:} | $(fmt "$r") | $(field "$f" SET 5) | $(field "$f" SET 7) | $rr |"
  done
} > "$load"

section=$work/section.md
{
  echo "## Tandem and Redis 7 side by side (redis-benchmark)"
  echo
  echo "\`itests/benchmarks/run-redis-comparison.sh\` (N=$N, LAT_N=$LAT_N, WARM_N=$WARM_N): one Tandem node"
  echo "(distribution defaults: every write journaled with group-commit \`fdatasync\` before its answer;"
  echo "\`${TANDEM_JAVA_OPTS:--Xmx1g -XX:+UseZGC}\`), then Redis with \`appendonly yes\`, \`appendfsync always\`, then with"
  echo "\`appendfsync everysec\` (no RDB saves, no automatic AOF rewrite). One server runs at a time; each gets a"
  echo "discarded warm-up pass of the same tests first. Same disk, loopback, redis-benchmark on the same machine."
  echo
  echo "Pipelined: \`redis-benchmark -t $tests -P 16 -c 50 -r 100000 -n $N -q --csv\` (higher is better;"
  echo "a ratio above 1 means Tandem served more requests per second):"
  echo
  cat "$throughput"
  echo
  echo "Write-to-ack latency, unpipelined: \`redis-benchmark -t set -P 1 -c 1 -r 100000 -n $LAT_N -q --csv\`"
  echo "(lower is better; a Tandem / Redis ratio below 1 means Tandem answered sooner):"
  echo
  cat "$latency"
  echo
  echo "Loading 1,000-byte values: \`redis-benchmark -t set -d 1000 -r 300000 -P 64 -c 8 -n $LOAD_N -q --csv\`"
  echo "(after the runs above, on the same server; higher is better):"
  echo
  cat "$load"
  echo
  echo "Machine:"
  echo
  machine_description "$base"
} > "$section"

echo
cat "$throughput"
echo
cat "$latency"
echo
cat "$load"
replace_section "$doc" redis-comparison "$section"
echo
echo "results written to $doc"
