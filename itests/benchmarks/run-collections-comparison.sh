#!/usr/bin/env bash
# Lists, sets and sorted sets, side by side in one run on this machine: a Tandem node (from the built
# distribution), then Redis 7 with appendonly yes + appendfsync always, then with appendfsync everysec, each alone
# on the machine while it is measured, all with their data in one temporary directory (same disk), on loopback:
#   warm-up   redis-benchmark -t $TESTS -P 16 -c 50 -r 100000 -n $WARM_N (discarded)
#   measured  redis-benchmark -t $TESTS -P 16 -c 50 -r 100000 -n $N -q --csv
# SET runs too, as the reference the other ratios are read against (the node-core issue's target). redis-benchmark
# runs its tests in its own order (SET, LPUSH, RPOP, SADD, ZADD, ZPOPMIN): RPOP pops what LPUSH pushed onto one
# list, ZPOPMIN what ZADD added to one sorted set (at most 100,000 distinct members with -r 100000, so the last
# ZPOPMINs may find it empty, on every server alike).
# Prints requests/s per system and the ratios, and replaces the "collections-comparison" section of
# docs/benchmarks.md.
#
#   itests/benchmarks/run-collections-comparison.sh
#
# Builds nothing: expects distribution/target/tandem (mvn -B install). Needs redis-server, redis-benchmark and
# redis-cli (Redis 7) on the PATH. Every process it starts and its temporary directory are removed at exit.
# Environment: N (default 200000), WARM_N (200000), TANDEM_BENCH_DIR (parent of the temporary directory, default
# /tmp), TANDEM_DIST (the distribution), TANDEM_JAVA_OPTS (default -Xmx1g -XX:+UseZGC, as the distribution), DOC
# (default docs/benchmarks.md of this repository).
set -euo pipefail

module=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
N=${N:-200000}
WARM_N=${WARM_N:-200000}
TESTS=set,lpush,rpop,sadd,zadd,zpopmin
export TANDEM_JAVA_OPTS=${TANDEM_JAVA_OPTS:--Xmx1g -XX:+UseZGC}
# shellcheck source=bench-lib.sh
source "$module/bench-lib.sh"

requires redis-server redis-benchmark redis-cli java
bench_workdir collections-bench
results=$work/results
mkdir -p "$results"

bench() { # LABEL PORT
  local label=$1 port=$2
  echo "== $label: warm-up ($WARM_N requests per test)"
  redis-benchmark -h 127.0.0.1 -p "$port" -t "$TESTS" -P 16 -c 50 -r 100000 -n "$WARM_N" -q > /dev/null
  redis-cli -h 127.0.0.1 -p "$port" flushall > /dev/null
  echo "== $label: redis-benchmark -t $TESTS -P 16 -c 50 -r 100000 -n $N"
  redis-benchmark -h 127.0.0.1 -p "$port" -t "$TESTS" -P 16 -c 50 -r 100000 -n "$N" -q --csv \
    | tee "$results/$label.csv"
}

free_port port
tandem_start tandem "$port" 0
await tandem 60 answers_ping "$port"
bench tandem "$port"
stop tandem

for mode in always everysec; do
  free_port port
  redis_start "redis-$mode" "$port" --appendonly yes --appendfsync "$mode"
  await "redis-$mode" 60 answers_ping "$port"
  bench "redis-$mode" "$port"
  stop "redis-$mode"
done

table=$work/table.md
side_by_side SET LPUSH RPOP SADD ZADD ZPOPMIN > "$table"

section=$work/section.md
{
  echo "## Lists, sets and sorted sets side by side (redis-benchmark)"
  echo
  echo "\`itests/benchmarks/run-collections-comparison.sh\` (N=$N, WARM_N=$WARM_N): one Tandem node (distribution"
  echo "defaults: every write journaled with group-commit \`fdatasync\` before its answer; \`$TANDEM_JAVA_OPTS\`), then"
  echo "Redis with \`appendonly yes\`, \`appendfsync always\`, then with \`appendfsync everysec\` (no RDB saves, no"
  echo "automatic AOF rewrite). One server runs at a time; each gets a discarded warm-up pass and a FLUSHALL first."
  echo "\`redis-benchmark -t $TESTS -P 16 -c 50 -r 100000 -n $N -q --csv\` (higher is better; SET is the reference"
  echo "row: the types are read against its ratio):"
  echo
  cat "$table"
  machine_footer
} > "$section"
publish "$section" collections-comparison
