#!/usr/bin/env bash
# Scripts and stream appends against plain commands, Tandem and Redis 7 side by side in one run on this machine: a Tandem node (the
# built distribution, on its embedded defaults: ack policy disk), then Redis with appendfsync always, each alone
# while it is measured. For each server, after $WARM_PASSES warm-up passes of every pipelined test:
#   pipelined redis-benchmark -P 16 -c 50 -r 100000 -n $CPU_N of
#             SET                     a plain write, for reference
#             EVAL "return 1" 0       a script that touches nothing (Tandem journals nothing for it)
#             EVALSHA set             return redis.call('set', KEYS[1], ARGV[1]): one write, journaled as its effect
#             EVALSHA lock            Redisson's lock script (EXISTS, HEXISTS, HINCRBY, PEXPIRE) on random keys
#             EVALSHA queue           a BullMQ-style add (INCR, HSET, LPUSH): three writes in one entry
#             XADD                    XADD bench:stream MAXLEN ~ 100000 * f v: one stream, IDs from the time
#             requests/s and the server's utime+stime per request
#   latency   redis-benchmark EVALSHA set -P 1 -c 1 -n $LAT_N: requests/s, p50, p99
# Prints the tables and replaces the "script-comparison" section of docs/benchmarks.md with them.
#
#   itests/benchmarks/run-script-comparison.sh
#
# Builds nothing: expects distribution/target/tandem (mvn -B install). Needs redis-server, redis-benchmark and
# redis-cli (Redis 7). Environment: CPU_N (default 200000), WARM_PASSES (2), LAT_N (10000), TANDEM_BENCH_DIR,
# TANDEM_DIST, TANDEM_JAVA_OPTS (default -Xmx1g -XX:+UseZGC), DOC.
set -euo pipefail

module=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
CPU_N=${CPU_N:-200000}
WARM_PASSES=${WARM_PASSES:-2}
LAT_N=${LAT_N:-10000}
export TANDEM_JAVA_OPTS=${TANDEM_JAVA_OPTS:--Xmx1g -XX:+UseZGC}
# shellcheck source=bench-lib.sh
source "$module/bench-lib.sh"

requires redis-server redis-benchmark redis-cli java

bench_workdir script-bench
results=$work/results
mkdir -p "$results"

SET_SCRIPT="return redis.call('set', KEYS[1], ARGV[1])"
LOCK_SCRIPT="if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; return redis.call('pttl', KEYS[1]);"
QUEUE_SCRIPT="local id = redis.call('incr', KEYS[1]) redis.call('hset', KEYS[2] .. id, 'data', ARGV[1], 'attempts', 0) redis.call('lpush', KEYS[3], id) return id"

# run PID PORT FILE ARGS...: one redis-benchmark run; writes "rps us_per_request p50 p99" to FILE
run() {
  local pid=$1 port=$2 file=$3 before after out n
  shift 3
  n=$(sed -n 's/.*-n \([0-9]*\).*/\1/p' <<< "$*")
  before=$(process_ticks "$pid")
  out=$(redis-benchmark -h 127.0.0.1 -p "$port" -r 100000 -q --csv "$@" | tail -n 1)
  after=$(process_ticks "$pid")
  awk -F',' -v us="$(ticks_per_request "$before" "$after" "$n")" \
    '{ gsub(/"/, ""); print $2, us, $5, $7 }' <<< "$out" > "$file"
  echo "$(basename "$file"): $(cat "$file")"
}

bench() { # LABEL PORT
  local label=$1 port=$2 pid=${pid_of[$1]} i set lock queue
  set=$(redis-cli -p "$port" script load "$SET_SCRIPT")
  lock=$(redis-cli -p "$port" script load "$LOCK_SCRIPT")
  queue=$(redis-cli -p "$port" script load "$QUEUE_SCRIPT")
  one() { # NAME FILE-SUFFIX: the named test, pipelined
    case $1 in
      set) run "$pid" "$port" "$results/$label-$1$2" -P 16 -c 50 -n "$CPU_N" -t set ;;
      eval) run "$pid" "$port" "$results/$label-$1$2" -P 16 -c 50 -n "$CPU_N" EVAL "return 1" 0 ;;
      evalsha-set) run "$pid" "$port" "$results/$label-$1$2" -P 16 -c 50 -n "$CPU_N" \
        EVALSHA "$set" 1 "key:__rand_int__" value ;;
      evalsha-lock) run "$pid" "$port" "$results/$label-$1$2" -P 16 -c 50 -n "$CPU_N" \
        EVALSHA "$lock" 1 "lock:__rand_int__" 30000 "owner:__rand_int__" ;;
      evalsha-queue) run "$pid" "$port" "$results/$label-$1$2" -P 16 -c 50 -n "$CPU_N" \
        EVALSHA "$queue" 3 q:id q:job: q:wait "payload:__rand_int__" ;;
      xadd) run "$pid" "$port" "$results/$label-$1$2" -P 16 -c 50 -n "$CPU_N" \
        XADD bench:stream MAXLEN '~' 100000 '*' f "value:__rand_int__" ;;
    esac
  }
  for ((i = 1; i <= WARM_PASSES; i++)); do
    for t in set eval evalsha-set evalsha-lock evalsha-queue xadd; do one "$t" -warm; done
  done
  for t in set eval evalsha-set evalsha-lock evalsha-queue xadd; do one "$t" ""; done
  run "$pid" "$port" "$results/$label-lat" -P 1 -c 1 -n "$LAT_N" EVALSHA "$set" 1 "key:__rand_int__" value
}

free_port port
free_port rport
tandem_start tandem "$port" "$rport"
await tandem 120 answers_ping "$port"
bench tandem "$port"
stop tandem

free_port port
redis_start redis "$port" --appendonly yes --appendfsync always
await redis 60 answers_ping "$port"
bench redis "$port"
stop redis

table=$work/table.md
{
  echo "| test (-P 16 -c 50) | Tandem req/s | Redis req/s | req/s Tandem / Redis | Tandem µs/req | Redis µs/req | CPU Tandem / Redis |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  for t in set:"SET" eval:'EVAL "return 1" 0' evalsha-set:"EVALSHA set (1 write)" \
    evalsha-lock:"EVALSHA Redisson lock" evalsha-queue:"EVALSHA queue add (3 writes)" \
    xadd:"XADD MAXLEN ~ 100000 *"; do
    read -r tr tus _ _ < "$results/tandem-${t%%:*}"
    read -r rr rus _ _ < "$results/redis-${t%%:*}"
    echo "| ${t#*:} | $(fmt "$tr") | $(fmt "$rr") | $(ratio "$tr" "$rr") | $tus | $rus | $(ratio "$tus" "$rus") |"
  done
} > "$table"
latency=$work/latency.md
{
  echo "| system | req/s | p50 ms | p99 ms |"
  echo "|---|---:|---:|---:|"
  for s in tandem:Tandem redis:"Redis always"; do
    read -r rps _ p50 p99 < "$results/${s%%:*}-lat"
    echo "| ${s#*:} | $(fmt "$rps") | $p50 | $p99 |"
  done
} > "$latency"

section=$work/section.md
{
  echo "## Scripts and streams, Tandem and Redis 7 side by side"
  echo
  echo "\`itests/benchmarks/run-script-comparison.sh\` (CPU_N=$CPU_N, WARM_PASSES=$WARM_PASSES, LAT_N=$LAT_N): one"
  echo "Tandem node on its embedded defaults (ack policy \`disk\`), then Redis with \`appendfsync always\`. One server"
  echo "runs at a time, after $WARM_PASSES warm-up passes of every test; \`-r 100000\`; µs/req is the server's"
  echo "utime+stime per request from \`/proc\`. A script that writes is journaled as its effects (one entry), so it"
  echo "waits for the writes sequenced before it to be applied; one that writes nothing journals nothing."
  echo
  cat "$table"
  echo
  echo "Unpipelined write-to-ack latency of a one-write script (\`EVALSHA set -P 1 -c 1 -n $LAT_N\`):"
  echo
  cat "$latency"
  machine_footer
} > "$section"
publish "$section" script-comparison
