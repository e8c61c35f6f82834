#!/usr/bin/env bash
# Psync streaming, side by side in one run on this machine: pipelined SET throughput on a primary that streams to
# one replica made with REPLICAOF, and how far behind the replica is when the load ends, Tandem next to Redis 7.
#
#   redis-benchmark -t set -P 16 -c 50 -d $VALUE_SIZE -r 100000 -n $N against the primary, after a discarded pass of
#   the same size; then the time from the benchmark's end until the replica's master_repl_offset equals the
#   primary's (the stream caught up).
#   Tandem  primary (ack policy disk: every write fsynced before it is answered) + one psync replica.
#   Redis   primary + one replica, appendfsync always on both (every write fsynced, as Tandem); and appendonly no
#           (nothing fsynced, for context).
#
#   itests/benchmarks/run-psync-stream.sh
#
# Builds nothing: expects distribution/target/tandem. Needs redis-server, redis-cli and redis-benchmark (Redis 7)
# on the PATH. Every process it starts and its temporary directory are removed at exit. Prints the table, writes it
# to $RESULTS (default itests/benchmarks/target/psync-stream.md) and replaces the "psync-stream" section of
# docs/benchmarks.md (DOC=/dev/null skips that). Environment: N (500000), VALUE_SIZE (64), TANDEM_BENCH_DIR (/tmp),
# TANDEM_DIST, TANDEM_JAVA_OPTS (-Xmx512m), RESULTS, DOC.
set -euo pipefail

module=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
out=${RESULTS:-$module/target/psync-stream.md}
N=${N:-500000}
VALUE_SIZE=${VALUE_SIZE:-64}
export TANDEM_JAVA_OPTS=${TANDEM_JAVA_OPTS:--Xmx512m}
# shellcheck source=bench-lib.sh
source "$module/bench-lib.sh"

requires redis-server redis-cli redis-benchmark

bench_workdir psync-bench

now_ms() { date +%s%3N; }
offset_of() { # PORT
  redis-cli -h 127.0.0.1 -p "$1" INFO replication 2> /dev/null | tr -d '\r' | awk -F: '$1 == "master_repl_offset" { print $2 }'
}
caught_up() { # PRIMARY REPLICA
  local p
  p=$(offset_of "$1")
  [[ -n $p && $p == "$(offset_of "$2")" ]]
}
bench() { # PORT: prints requests per second
  redis-benchmark -h 127.0.0.1 -p "$1" -t set -P 16 -c 50 -d "$VALUE_SIZE" -r 100000 -n "$N" -q --csv \
    | awk -F, '/"SET"/ { gsub(/"/, "", $2); print $2 }'
}
measure() { # LABEL PRIMARY REPLICA: sets rps_<LABEL> and lag_<LABEL>
  local label=$1 p=$2 r=$3 rps t0 t1
  echo "== $label: warm-up pass (discarded)"
  bench "$p" > /dev/null
  await "$label" 300 caught_up "$p" "$r"
  echo "== $label: redis-benchmark -t set -P 16 -c 50 -d $VALUE_SIZE -r 100000 -n $N"
  rps=$(bench "$p")
  t0=$(now_ms)
  await "$label" 600 caught_up "$p" "$r"
  t1=$(now_ms)
  printf -v "rps_$label" '%s' "$rps"
  printf -v "lag_$label" '%s' "$((t1 - t0))"
  echo "$label: $rps requests/s, replica caught up $((t1 - t0)) ms after the load ended"
}

# ------------------------------------------------------------------------------------------------ Tandem
free_port tp; free_port tpr; free_port tr; free_port trr
tandem_start tp "$tp" "$tpr" --ack-policy disk
tandem_start tr "$tr" "$trr"
await tp 120 answers_ping "$tp"
await tr 120 answers_ping "$tr"
redis-cli -h 127.0.0.1 -p "$tr" REPLICAOF 127.0.0.1 "$tp" > /dev/null
await tr 120 info_has "$tr" replication '^master_link_status:up$'
measure tandem "$tp" "$tr"
stop_all

# ------------------------------------------------------------------------------------------------ Redis
for mode in always none; do
  free_port rp; free_port rr
  if [[ $mode == always ]]; then
    opts=(--appendonly yes --appendfsync always)
  else
    opts=(--appendonly no)
  fi
  redis_start "rp$mode" "$rp" "${opts[@]}"
  redis_start "rr$mode" "$rr" "${opts[@]}"
  await "rp$mode" 30 answers_ping "$rp"
  await "rr$mode" 30 answers_ping "$rr"
  redis-cli -h 127.0.0.1 -p "$rr" REPLICAOF 127.0.0.1 "$rp" > /dev/null
  await "rr$mode" 60 info_has "$rr" replication '^master_link_status:up$'
  await "rr$mode" 60 redis_idle "$rr"
  measure "redis_$mode" "$rp" "$rr"
  stop_all
done

# ------------------------------------------------------------------------------------------------ report
{
  echo "## Psync streaming with one replica (run-psync-stream.sh)"
  echo
  echo "A primary and one replica made with \`REPLICAOF\`; \`redis-benchmark -t set -P 16 -c 50 -d $VALUE_SIZE -r 100000"
  echo "-n $N\` against the primary after a discarded pass; then the time until the replica's \`master_repl_offset\`"
  echo "equals the primary's."
  echo
  echo "| | SET requests/s on the primary | replica caught up after the load |"
  echo "|---|---|---|"
  echo "| Tandem (disk policy, psync replica) | $rps_tandem | $lag_tandem ms |"
  echo "| Redis 7, appendfsync always on both | $rps_redis_always | $lag_redis_always ms |"
  echo "| Redis 7, no persistence (context) | $rps_redis_none | $lag_redis_none ms |"
  echo
  echo "Tandem / Redis (appendfsync always): $(ratio "$rps_tandem" "$rps_redis_always") of the throughput."
  machine_footer
} > "$work/report.md"
publish "$work/report.md" psync-stream
