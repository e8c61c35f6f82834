#!/usr/bin/env bash
# Replication, side by side in one run on this machine: write-to-reply latency per ack policy with one and with two
# replicas, and pipelined SET throughput with one replica, Tandem next to Redis 7.
#
# Latency: ReplicationLatency (this module) with $CLIENTS client threads, one connection each, each doing $OPS
# writes of SET key:<thread>:<i> <$VALUE_SIZE bytes> one at a time (pipeline depth 1) after $WARMUP unrecorded
# ones; p50/p99/p99.9 from an HdrHistogram.
#   Tandem    primary + 2 replicas (then 1: the second replica is stopped); the policy is changed live with
#             repl:ack-policy: disk, disk+ram, two-disks, ram. Plain SET: the primary answers once its policy holds.
#   Redis     primary + 2 replicas (then 1), SET followed by WAIT 1 0 in the same write (a write's latency is both
#             replies); compared with disk, disk+ram and two-disks: appendonly yes + appendfsync always on every
#             node; compared with ram: appendonly no on every node.
# Throughput (primary + 1 replica): redis-benchmark -t set -P 16 -c 50 -d $VALUE_SIZE -r 100000 -n $TP_N, after a
# discarded pass of the same size: Tandem under disk+ram; Redis with appendfsync always; Redis with everysec (for
# context). redis-benchmark sends no WAIT: Redis' replica is asynchronous there.
#
#   mvn -B -o -q -pl itests/benchmarks install -DskipTests     # builds ReplicationLatency and target/classpath.txt
#   itests/benchmarks/run-replication-latency.sh
#
# Builds nothing: expects distribution/target/tandem and this module's target/classes + target/classpath.txt.
# Needs redis-server, redis-cli, redis-benchmark (Redis 7) and java on the PATH. Every process it starts and its
# temporary directory are removed at exit. Prints the tables, writes them to $RESULTS (default
# itests/benchmarks/target/replication-latency.md) and replaces the "replication-latency" section of
# docs/benchmarks.md (DOC=/dev/null skips that).
# Environment: CLIENTS (4), OPS per client (5000), WARMUP per client (1000), VALUE_SIZE (64), TP_N (200000),
# TANDEM_BENCH_DIR (parent of the temporary directory, default /tmp), TANDEM_DIST, TANDEM_JAVA_OPTS (-Xmx512m),
# RESULTS, DOC.
set -euo pipefail

module=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
out=${RESULTS:-$module/target/replication-latency.md}
CLIENTS=${CLIENTS:-4}
OPS=${OPS:-5000}
WARMUP=${WARMUP:-1000}
VALUE_SIZE=${VALUE_SIZE:-64}
TP_N=${TP_N:-200000}
export TANDEM_JAVA_OPTS=${TANDEM_JAVA_OPTS:--Xmx512m}
policies=(disk disk+ram two-disks ram)
# shellcheck source=bench-lib.sh
source "$module/bench-lib.sh"

requires redis-server redis-benchmark redis-cli java
requires_drivers

bench_workdir repl-bench
results=$work/results
mkdir -p "$results"
: > "$results/latency.txt"

# ------------------------------------------------------------------------------------------------ measuring
latency() { # LABEL PORT [--wait]
  local label=$1 port=$2
  shift 2
  echo "== $label: ReplicationLatency --clients $CLIENTS --ops $OPS --warmup $WARMUP --value-size $VALUE_SIZE $*"
  java -Xmx256m -cp "$driver_cp" tandem.benchmarks.ReplicationLatency --port "$port" --clients "$CLIENTS" \
    --ops "$OPS" --warmup "$WARMUP" --value-size "$VALUE_SIZE" --label "$label" "$@" | tee -a "$results/latency.txt"
}
throughput() { # LABEL PORT
  local label=$1 port=$2
  echo "== $label: redis-benchmark -t set -P 16 -c 50 -d $VALUE_SIZE -r 100000 -n $TP_N"
  redis-benchmark -h 127.0.0.1 -p "$port" -t set -P 16 -c 50 -d "$VALUE_SIZE" -r 100000 -n "$TP_N" -q --csv \
    | tee "$results/$label.csv"
}
warm_up() { # PORT: a discarded pipelined pass (the JVM's JIT; Redis gets the same)
  echo "== warm-up: redis-benchmark -t set -P 16 -c 50 -d $VALUE_SIZE -r 100000 -n $TP_N (discarded)"
  redis-benchmark -h 127.0.0.1 -p "$1" -t set -P 16 -c 50 -d "$VALUE_SIZE" -r 100000 -n "$TP_N" -q > /dev/null
}

# ------------------------------------------------------------------------------------------------ Tandem
echo "### Tandem: primary + 2 replicas (TANDEM_JAVA_OPTS=$TANDEM_JAVA_OPTS)"
free_port tp; free_port tpr
tandem_start tp "$tp" "$tpr" --ack-policy disk+ram
await tp 120 answers_ping "$tp"
for r in 1 2; do
  free_port port; free_port rport
  tandem_start "tr$r" "$port" "$rport" --primary "127.0.0.1:$tpr"
  eval "tr${r}_port=$port"
done
for r in 1 2; do
  port_var=tr${r}_port
  await "tr$r" 120 answers_ping "${!port_var}"
  tandem_authorize tp "tr$r"
done
for r in 1 2; do
  port_var=tr${r}_port
  await "tr$r" 60 info_has "${!port_var}" replication '^master_link_status:up$'
done
await tp 60 has_count "$tp" 'state=streaming' 2

set_policy() { # POLICY
  tandem_shell tp "repl:ack-policy $1" > /dev/null
  await tp 30 info_equals "$tp" replication tandem_ack_policy "$1"
}

warm_up "$tp"
for p in "${policies[@]}"; do
  set_policy "$p"
  latency "tandem-$p-2" "$tp"
done
echo "### Tandem: stopping the second replica"
stop tr2
await tp 60 has_count "$tp" 'state=streaming' 1
for p in "${policies[@]}"; do
  set_policy "$p"
  latency "tandem-$p-1" "$tp"
done
set_policy disk+ram
throughput tandem-tp "$tp"
stop_all

# ------------------------------------------------------------------------------------------------ Redis
redis_cluster() { # MODE (always | none): starts rp + rr1 + rr2, returns when both replicas are online and idle
  local mode=$1 opts r port
  if [[ $mode == always ]]; then opts=(--appendonly yes --appendfsync always); else opts=(--appendonly no); fi
  free_port rp
  redis_start rp "$rp" "${opts[@]}"
  await rp 30 answers_ping "$rp"
  for r in 1 2; do
    free_port port
    redis_start "rr$r" "$port" "${opts[@]}" --replicaof 127.0.0.1 "$rp"
    eval "rr${r}_port=$port"
  done
  for r in 1 2; do
    port_var=rr${r}_port
    await "rr$r" 30 answers_ping "${!port_var}"
    await "rr$r" 60 info_has "${!port_var}" replication '^master_link_status:up$'
  done
  await rp 60 has_count "$rp" 'state=online' 2
  for r in 1 2; do
    port_var=rr${r}_port
    await "rr$r" 60 redis_idle "${!port_var}"
  done
  await rp 60 redis_idle "$rp"
}

redis_latency() { # MODE LABEL: redis_cluster MODE, the latency with two replicas (LABEL-2), then with one (LABEL-1)
  redis_cluster "$1"
  warm_up "$rp"
  latency "$2-2" "$rp" --wait
  echo "### Redis: stopping the second replica"
  stop rr2
  await rp 60 has_count "$rp" 'state=online' 1
  latency "$2-1" "$rp" --wait
}

echo "### Redis: appendonly yes, appendfsync always on every node; primary + 2 replicas"
redis_latency always redis-always
throughput redis-always-tp "$rp"
echo "### Redis: appendfsync everysec on both nodes"
redis-cli -h 127.0.0.1 -p "$rp" CONFIG SET appendfsync everysec > /dev/null
redis-cli -h 127.0.0.1 -p "$rr1_port" CONFIG SET appendfsync everysec > /dev/null
throughput redis-everysec-tp "$rp"
stop_all

echo "### Redis: appendonly no on every node; primary + 2 replicas"
redis_latency none redis-noaof
stop_all

# ------------------------------------------------------------------------------------------------ report
lat() { # LABEL COLUMN (2 ops, 3 p50, 4 p99, 5 p99.9, 6 ops/s)
  awk -v l="$1" -v c="$2" '$1 == l { print $c; exit }' "$results/latency.txt"
}
rps() { # CSV: requests/s of the SET line of a redis-benchmark --csv file
  awk -F',' '{ gsub(/"/, "") } $1 == "SET" { printf "%.0f", $2; exit }' "$1"
}

latency_table=$work/latency.md
{
  echo "| replicas | Tandem policy | Tandem p50 µs | Tandem p99 µs | Tandem p99.9 µs | Tandem writes/s | Redis (SET + WAIT 1 0) | Redis p50 µs | Redis p99 µs | Redis p99.9 µs | Redis writes/s | p50 Redis / Tandem | p99 Redis / Tandem |"
  echo "|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|"
  for n in 1 2; do
    for p in "${policies[@]}"; do
      t=tandem-$p-$n
      if [[ $p == ram ]]; then r=redis-noaof-$n; rdesc="appendonly no"; else r=redis-always-$n; rdesc="appendfsync always"; fi
      echo "| $n | \`$p\` | $(lat "$t" 3) | $(lat "$t" 4) | $(lat "$t" 5) | $(lat "$t" 6) | $rdesc | $(lat "$r" 3) | $(lat "$r" 4) | $(lat "$r" 5) | $(lat "$r" 6) | $(ratio "$(lat "$r" 3)" "$(lat "$t" 3)") | $(ratio "$(lat "$r" 4)" "$(lat "$t" 4)") |"
    done
  done
} > "$latency_table"

throughput_table=$work/throughput.md
{
  t=$(rps "$results/tandem-tp.csv")
  echo "| system (primary + 1 replica) | SET req/s | Tandem / this |"
  echo "|---|---:|---:|"
  echo "| Tandem, \`disk+ram\` | $t | — |"
  a=$(rps "$results/redis-always-tp.csv")
  echo "| Redis, appendfsync always (async replica) | $a | $(ratio "$t" "$a") |"
  e=$(rps "$results/redis-everysec-tp.csv")
  echo "| Redis, appendfsync everysec (async replica; context) | $e | $(ratio "$t" "$e") |"
} > "$throughput_table"

section=$work/section.md
{
  echo "## Replication: latency per ack policy, and throughput with a replica"
  echo
  echo "\`itests/benchmarks/run-replication-latency.sh\` (CLIENTS=$CLIENTS, OPS=$OPS, WARMUP=$WARMUP,"
  echo "VALUE_SIZE=$VALUE_SIZE, TP_N=$TP_N), after \`mvn -B -o -q -pl itests/benchmarks install -DskipTests\`."
  echo "All nodes on this machine, loopback, data in one temporary directory (same disk); Tandem nodes with"
  echo "\`$TANDEM_JAVA_OPTS\`; Redis without RDB saves or automatic AOF rewrite. The Tandem cluster runs first, then"
  echo "the Redis clusters, one cluster at a time; each gets a discarded \`redis-benchmark\` pass of the throughput"
  echo "test before its first latency row."
  echo
  echo "Write-to-reply latency: \`ReplicationLatency\`, $CLIENTS clients (one connection and thread each), each"
  echo "$OPS measured writes \`SET key:<client>:<i> <$VALUE_SIZE bytes>\` one at a time after $WARMUP unrecorded"
  echo "ones; HdrHistogram, µs. Tandem: a primary and two replicas (then one, the second stopped), the policy changed"
  echo "live with \`repl:ack-policy\`, plain SET. Redis: SET followed by \`WAIT 1 0\` in the same write, a write's"
  echo "latency ending with WAIT's reply; \`appendfsync always\` on every node for the rows of \`disk\`, \`disk+ram\`"
  echo "and \`two-disks\` (one Redis run per replica count, repeated on those three rows), \`appendonly no\` for"
  echo "\`ram\`. Lower is better; a Redis / Tandem ratio above 1 means Tandem answered sooner."
  echo
  cat "$latency_table"
  echo
  echo "Pipelined throughput with one replica: \`redis-benchmark -t set -P 16 -c 50 -d $VALUE_SIZE -r 100000"
  echo "-n $TP_N -q --csv\`. Tandem answers each write once \`disk+ram\` holds; redis-benchmark sends no WAIT, so"
  echo "Redis answers before its replica has the write. Higher is better; a ratio above 1 means Tandem served more."
  echo
  cat "$throughput_table"
  echo
  echo "Machine:"
  echo
  machine_description "$base"
} > "$section"

echo
cat "$latency_table"
echo
cat "$throughput_table"
mkdir -p "$(dirname "$out")"
cp "$section" "$out"
echo
echo "results written to $out"
if [[ $doc != /dev/null ]]; then
  replace_section "$doc" replication-latency "$section"
  echo "section replication-latency of $doc replaced"
fi
