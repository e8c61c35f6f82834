#!/usr/bin/env bash
# Write and read rates as the keyspace grows, side by side in one run on this machine. For each size K in $SIZES
# (default 10,000, 100,000 and 1,000,000 keys): a fresh Tandem node, then a fresh Redis 7 with appendonly yes and
# appendfsync always, each alone while it is measured:
#   load      K keys key:000000000000.. of 64-byte values, through redis-cli --pipe (not measured)
#   measured  redis-benchmark -t set,get -P 16 -c 50 -d 64 -r K -n $N -q --csv
#             (SETs update keys that exist, GETs read them, spread over the whole keyspace)
# Prints the table, with each rate against the same system's rate at the smallest size, and replaces the
# "keyspace-growth" section of docs/benchmarks.md (DOC=/dev/null skips that).
#
#   itests/benchmarks/run-keyspace-growth.sh
#
# Builds nothing: expects distribution/target/tandem. Needs redis-server, redis-cli and redis-benchmark (Redis 7) on
# the PATH. Every process it starts and its temporary directory are removed at exit. Environment: SIZES
# ("10000 100000 1000000"), N (300000), TANDEM_BENCH_DIR (/tmp), TANDEM_DIST, TANDEM_JAVA_OPTS (-Xmx1g -XX:+UseZGC,
# as the distribution), DOC.
set -euo pipefail

module=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
SIZES=${SIZES:-10000 100000 1000000}
N=${N:-300000}
export TANDEM_JAVA_OPTS=${TANDEM_JAVA_OPTS:--Xmx1g -XX:+UseZGC}
# shellcheck source=bench-lib.sh
source "$module/bench-lib.sh"

requires redis-server redis-cli redis-benchmark

bench_workdir keyspace-growth
results=$work/results
mkdir -p "$results"

# load PORT K: SET key:%012d (the names redis-benchmark -r draws) to a 64-byte value, for every key below K
load() {
  local port=$1 k=$2 reply
  reply=$(awk -v k="$k" 'BEGIN {
      v = sprintf("%064d", 0); gsub(/0/, "v", v)
      for (i = 0; i < k; i++) printf "*3\r\n$3\r\nSET\r\n$16\r\nkey:%012d\r\n$64\r\n%s\r\n", i, v
    }' | redis-cli -h 127.0.0.1 -p "$port" --pipe)
  grep -q "errors: 0, replies: $k" <<< "$reply" || die "loading $k keys on port $port: $reply"
}

measure() { # LABEL PORT K
  local label=$1 port=$2 k=$3
  echo "== $label, $k keys: loading"
  load "$port" "$k"
  echo "== $label, $k keys: redis-benchmark -t set,get -P 16 -c 50 -d 64 -r $k -n $N"
  redis-benchmark -h 127.0.0.1 -p "$port" -t set,get -P 16 -c 50 -d 64 -r "$k" -n "$N" -q --csv \
    | tee "$results/$label-$k.csv"
}

for k in $SIZES; do
  free_port port
  tandem_start tandem "$port" 0
  await tandem 60 answers_ping "$port"
  measure tandem "$port" "$k"
  stop tandem
  rm -rf "$work/tandem"

  free_port port
  redis_start redis "$port" --appendonly yes --appendfsync always
  await redis 60 answers_ping "$port"
  measure redis "$port" "$k"
  stop redis
  rm -rf "$work/redis"
done

first=${SIZES%% *}
table=$work/table.md
{
  echo "| keys | Tandem SET/s | vs $first keys | Redis always SET/s | vs $first keys | Tandem GET/s | vs $first keys | Redis GET/s | vs $first keys | SET Tandem / Redis |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for k in $SIZES; do
    ts=$(field "$results/tandem-$k.csv" SET 2); rs=$(field "$results/redis-$k.csv" SET 2)
    tg=$(field "$results/tandem-$k.csv" GET 2); rg=$(field "$results/redis-$k.csv" GET 2)
    ts0=$(field "$results/tandem-$first.csv" SET 2); rs0=$(field "$results/redis-$first.csv" SET 2)
    tg0=$(field "$results/tandem-$first.csv" GET 2); rg0=$(field "$results/redis-$first.csv" GET 2)
    echo "| $k | $(fmt "$ts") | $(ratio "$ts" "$ts0") | $(fmt "$rs") | $(ratio "$rs" "$rs0") | $(fmt "$tg") | $(ratio "$tg" "$tg0") | $(fmt "$rg") | $(ratio "$rg" "$rg0") | $(ratio "$ts" "$rs") |"
  done
} > "$table"

section=$work/section.md
{
  echo "## Write rate as the keyspace grows (run-keyspace-growth.sh)"
  echo
  echo "\`itests/benchmarks/run-keyspace-growth.sh\` (N=$N): for each size, a fresh Tandem node (\`$TANDEM_JAVA_OPTS\`,"
  echo "every write journaled and fsynced before its answer) and a fresh Redis with \`appendfsync always\`, one at a"
  echo "time, loaded with that many keys of 64-byte values, then \`redis-benchmark -t set,get -P 16 -c 50 -d 64 -r <keys>\`:"
  echo "updates and reads spread over the whole keyspace. \"vs\" is the rate against the same system's at $first keys."
  echo
  cat "$table"
  machine_footer
} > "$section"
publish "$section" keyspace-growth
