#!/usr/bin/env bash
# Side by side, in one run on this machine: a Tandem node (from the built distribution), then Redis 7 with
# appendonly yes + appendfsync always, then Redis with appendfsync everysec, each alone on the machine while it is
# measured, all with their data in one temporary directory (same disk), all on loopback. For each:
#   warm-up   $WARM_PASSES passes of redis-benchmark -t set -P 16 -c 50 -r 100000 -n $CPU_N; the server's CPU time
#             per request of each pass is printed, so that one sees when the JIT has settled (Redis needs none but
#             gets the same)
#   measured  redis-benchmark -t set,get,incr,hset -P 16 -c 50 -r 100000 -n $N -q --csv
#   CPU       redis-benchmark -P 16 -c 50 -r 100000 -n $CPU_N for SET, SET -d 1000, HSET, LPUSH, ZADD, one at a time:
#             requests/s and the server's utime+stime (from /proc) per request; for Tandem also per thread (SET)
#   latency   redis-benchmark -t set -P 1 -c 1 -r 100000 -n $LAT_N -q --csv   (write-to-ack, unpipelined)
#   load      redis-benchmark -t set -d 1000 -r 300000 -P 64 -c 8 -n $LOAD_N
# Then with one replica each: a Tandem primary under disk+ram with a journal-protocol replica, and Redis
# appendfsync always with a replica (REPLICAOF), both on this machine: pipelined SET, requests/s and the primary's
# CPU per request.
# Prints the tables and replaces the "redis-comparison" section of docs/benchmarks.md with them and a description
# of the machine. CPU time per request is the steadier figure on a shared machine; requests/s swings from run to
# run.
#
#   itests/benchmarks/run-redis-comparison.sh
#
# Builds nothing: expects distribution/target/tandem (mvn -B install). Needs redis-server, redis-benchmark and
# redis-cli (Redis 7) on the PATH. Every process it starts and its temporary directory are removed at exit.
# Environment: N (default 200000), CPU_N (400000), WARM_PASSES (5), LAT_N (20000), LOAD_N (900000),
# TANDEM_BENCH_DIR (parent of the temporary directory, default /tmp), TANDEM_DIST (the distribution),
# TANDEM_JAVA_OPTS (default -Xmx1g -XX:+UseZGC, as the distribution), DOC (default docs/benchmarks.md of this
# repository), SKIP_REPLICA (set: no replica runs).
set -euo pipefail

module=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
N=${N:-200000}
CPU_N=${CPU_N:-400000}
WARM_PASSES=${WARM_PASSES:-5}
LAT_N=${LAT_N:-20000}
LOAD_N=${LOAD_N:-900000}
export TANDEM_JAVA_OPTS=${TANDEM_JAVA_OPTS:--Xmx1g -XX:+UseZGC}
tests=set,get,incr,hset
# shellcheck source=bench-lib.sh
source "$module/bench-lib.sh"

requires redis-server redis-benchmark redis-cli java

bench_workdir redis-bench
results=$work/results
mkdir -p "$results"

# the CPU tests: a label (for files and tables) and redis-benchmark's arguments
cpu_labels=(SET "SET -d 1000" HSET LPUSH ZADD)
cpu_args=("-t set" "-t set -d 1000" "-t hset" "-t lpush" "-t zadd")
file_of() { echo "${1// /_}"; }

# cpu_run PID PORT FILE ARGS...: one redis-benchmark run of CPU_N requests; writes "rps us_per_request" to FILE
cpu_run() {
  local pid=$1 port=$2 file=$3 before after out rps
  shift 3
  before=$(process_ticks "$pid")
  out=$(redis-benchmark -h 127.0.0.1 -p "$port" "$@" -P 16 -c 50 -r 100000 -n "$CPU_N" -q --csv | tail -n 1)
  after=$(process_ticks "$pid")
  rps=$(awk -F',' '{ gsub(/"/, ""); print $2 }' <<< "$out")
  echo "$rps $(ticks_per_request "$before" "$after" "$CPU_N")" > "$file"
}

bench() { # LABEL NAME PORT
  local label=$1 name=$2 port=$3 pid=${pid_of[$2]} i
  echo "== $label: warm-up, $WARM_PASSES passes of SET (server CPU µs per request each)"
  : > "$results/$label-warm.txt"
  for ((i = 1; i <= WARM_PASSES; i++)); do
    cpu_run "$pid" "$port" "$results/$label-pass" -t set
    echo "pass $i: $(cat "$results/$label-pass")" | tee -a "$results/$label-warm.txt"
  done
  echo "== $label: redis-benchmark -t $tests -P 16 -c 50 -r 100000 -n $N"
  redis-benchmark -h 127.0.0.1 -p "$port" -t "$tests" -P 16 -c 50 -r 100000 -n "$N" -q --csv \
    | tee "$results/$label.csv"
  for i in "${!cpu_labels[@]}"; do
    echo "== $label: CPU, redis-benchmark ${cpu_args[$i]} -P 16 -c 50 -r 100000 -n $CPU_N"
    if [[ $label == tandem && ${cpu_labels[$i]} == SET ]]; then
      thread_ticks "$pid" > "$results/threads-before"
    fi
    # shellcheck disable=SC2086 # the arguments are words
    cpu_run "$pid" "$port" "$results/$label-cpu-$(file_of "${cpu_labels[$i]}")" ${cpu_args[$i]}
    if [[ $label == tandem && ${cpu_labels[$i]} == SET ]]; then
      thread_ticks "$pid" > "$results/threads-after"
      thread_table "$results/threads-before" "$results/threads-after" "$CPU_N" > "$results/threads.md"
    fi
    cat "$results/$label-cpu-$(file_of "${cpu_labels[$i]}")"
  done
  echo "== $label: redis-benchmark -t set -P 1 -c 1 -r 100000 -n $LAT_N"
  redis-benchmark -h 127.0.0.1 -p "$port" -t set -P 1 -c 1 -r 100000 -n "$LAT_N" -q --csv \
    | tee "$results/$label-latency.csv"
  echo "== $label: redis-benchmark -t set -d 1000 -r 300000 -P 64 -c 8 -n $LOAD_N"
  redis-benchmark -h 127.0.0.1 -p "$port" -t set -d 1000 -r 300000 -P 64 -c 8 -n "$LOAD_N" -q --csv \
    | tee "$results/$label-load.csv"
}

# ---------------------------------------------------------------------------------------------------- Tandem
free_port port
free_port rport
tandem_start tandem "$port" "$rport"
await tandem 120 answers_ping "$port"
bench tandem tandem "$port"
stop tandem
rm -rf "${work:?}/tandem"

# ---------------------------------------------------------------------------------------------------- Redis
for mode in always everysec; do
  free_port port
  redis_start "redis-$mode" "$port" --appendonly yes --appendfsync "$mode"
  await "redis-$mode" 60 answers_ping "$port"
  bench "redis-$mode" "redis-$mode" "$port"
  stop "redis-$mode"
  rm -rf "${work:?}/redis-$mode"
done

# ---------------------------------------------------------------------------------------------------- replicas
if [[ -z ${SKIP_REPLICA:-} ]]; then
  echo "== Tandem: a primary under disk+ram with a journal-protocol replica"
  free_port tp
  free_port tpr
  free_port rp
  free_port rpr
  tandem_start tp "$tp" "$tpr" --ack-policy disk+ram
  await tp 120 answers_ping "$tp"
  tandem_start tr "$rp" "$rpr" --primary "127.0.0.1:$tpr"
  await tr 120 answers_ping "$rp"
  await tr 60 test -s "$work/tr/etc/replication_ed25519.pub"
  tandem_shell tp "auth:allow $(awk '{ printf "%s \"%s\" %s", $1, $2, $3 }' "$work/tr/etc/replication_ed25519.pub")" \
    > /dev/null
  await tp 120 has_count "$tp" 'state=streaming' 1
  for ((i = 1; i <= WARM_PASSES; i++)); do
    cpu_run "${pid_of[tp]}" "$tp" "$results/tandem-replica-pass" -t set
  done
  cpu_run "${pid_of[tp]}" "$tp" "$results/tandem-replica" -t set
  cat "$results/tandem-replica"
  stop tr
  stop tp

  echo "== Redis always: a primary with a replica"
  free_port rp
  free_port rr
  redis_start redis-primary "$rp" --appendonly yes --appendfsync always
  await redis-primary 60 answers_ping "$rp"
  redis_start redis-replica "$rr" --appendonly yes --appendfsync always --replicaof 127.0.0.1 "$rp"
  await redis-replica 60 info_has "$rr" replication '^master_link_status:up$'
  await redis-replica 120 redis_idle "$rr"
  for ((i = 1; i <= WARM_PASSES; i++)); do
    cpu_run "${pid_of[redis-primary]}" "$rp" "$results/redis-replica-pass" -t set
  done
  cpu_run "${pid_of[redis-primary]}" "$rp" "$results/redis-replica" -t set
  cat "$results/redis-replica"
  stop redis-replica
  stop redis-primary
fi

# ---------------------------------------------------------------------------------------------------- report
throughput=$work/throughput.md
side_by_side SET GET INCR HSET > "$throughput"

cpu=$work/cpu.md
{
  echo "| test | Tandem µs/req | Redis always µs/req | CPU Tandem / Redis always | Tandem req/s | Redis always req/s | req/s Tandem / Redis always | Redis everysec µs/req |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  for label in "${cpu_labels[@]}"; do
    f=$(file_of "$label")
    read -r trps tus < "$results/tandem-cpu-$f"
    read -r arps aus < "$results/redis-always-cpu-$f"
    read -r _ eus < "$results/redis-everysec-cpu-$f"
    echo "| $label | $tus | $aus | $(ratio "$tus" "$aus") | $(fmt "$trps") | $(fmt "$arps") | $(ratio "$trps" "$arps") | $eus |"
  done
} > "$cpu"

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

replica=$work/replica.md
if [[ -z ${SKIP_REPLICA:-} ]]; then
  read -r trps tus < "$results/tandem-replica"
  read -r rrps rus < "$results/redis-replica"
  {
    echo "| system | SET req/s | primary µs/req | req/s Tandem / Redis | CPU Tandem / Redis |"
    echo "|---|---:|---:|---:|---:|"
    echo "| Tandem, disk+ram, one journal replica | $(fmt "$trps") | $tus | $(ratio "$trps" "$rrps") | $(ratio "$tus" "$rus") |"
    echo "| Redis always, one replica | $(fmt "$rrps") | $rus | — | — |"
  } > "$replica"
fi

section=$work/section.md
{
  echo "## Tandem and Redis 7 side by side (redis-benchmark)"
  echo
  echo "\`itests/benchmarks/run-redis-comparison.sh\` (N=$N, CPU_N=$CPU_N, WARM_PASSES=$WARM_PASSES, LAT_N=$LAT_N,"
  echo "LOAD_N=$LOAD_N): one Tandem node (distribution defaults: every write journaled with group-commit \`fdatasync\`"
  echo "before its answer; \`$TANDEM_JAVA_OPTS\`), then Redis with \`appendonly yes\`, \`appendfsync always\`, then with"
  echo "\`appendfsync everysec\` (no RDB saves, no automatic AOF rewrite). One server runs at a time; each gets"
  echo "$WARM_PASSES warm-up passes of \`redis-benchmark -t set -P 16 -c 50 -r 100000 -n $CPU_N\` first. Same disk,"
  echo "loopback, redis-benchmark on the same machine."
  echo
  echo "Server CPU time per request (utime+stime of the server process from \`/proc\`, over the run; lower is"
  echo "better, the steadier figure on a shared machine) and requests per second, \`redis-benchmark <test> -P 16 -c 50"
  echo "-r 100000 -n $CPU_N\`, the tests one after the other on the same server:"
  echo
  cat "$cpu"
  echo
  echo "Tandem's threads during the SET run (CPU µs per request; the logic thread is the serial limit):"
  echo
  cat "$results/threads.md"
  echo
  echo "The JIT settling: Tandem's CPU per SET (µs) and requests/s in each warm-up pass of $CPU_N requests:"
  echo
  echo '```'
  cat "$results/tandem-warm.txt"
  echo '```'
  echo
  if [[ -z ${SKIP_REPLICA:-} ]]; then
    echo "With one replica each, \`redis-benchmark -t set -P 16 -c 50 -r 100000 -n $CPU_N\` after $WARM_PASSES warm-up"
    echo "passes: a Tandem primary under \`disk+ram\` (answered once durable on the primary and held in memory by the"
    echo "replica) with a journal-protocol replica, and Redis \`appendfsync always\` with a replica (asynchronous):"
    echo
    cat "$replica"
    echo
  fi
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
  machine_footer
} > "$section"
publish "$section" redis-comparison
