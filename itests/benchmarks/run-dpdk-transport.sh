#!/usr/bin/env bash
# The replication transports side by side in one run on this machine: TCP, and DPDK memif with each wait strategy
# (busy-spin, spin-then-yield, back-off).
#
# 1. Transport alone (TransportRoundTrip, both ends in one JVM, through the FrameTransport contract): frame round
#    trip at 64 and 1024 bytes ($RTT_OPS after a warm-up; p50/p99/p99.9 µs), one-way throughput of 16 KiB frames
#    for $BULK_SECONDS s with the CPU the process used, and the CPU an idle open link costs.
# 2. Replicated writes (real processes: a primary and one journal replica on this host): per transport, the
#    replication ack round trip the primary measures (repl:status "ack round trip": from handing a batch to the
#    transport to the replica's acknowledgement) and the client's write-to-reply latency (ReplicationLatency,
#    $CLIENTS client(s), $OPS writes after $WARMUP) under ack policies ram and disk+ram; Redis 7 (primary + replica,
#    appendonly no, SET followed by WAIT 1 0) for reference.
#
#   mvn -B -o -q -pl itests/benchmarks install -DskipTests
#   itests/benchmarks/run-dpdk-transport.sh
#
# Needs DPDK built into the distribution (Debian's dpdk and libdpdk-dev at build time), redis-server, redis-cli and
# java. Prints the tables, writes them to $RESULTS (default itests/benchmarks/target/dpdk-transport.md) and replaces
# the "dpdk-transport" section of docs/benchmarks.md (DOC=/dev/null skips that).
# Environment: RTT_OPS (20000), BULK_SECONDS (3), CLIENTS (1), OPS (5000), WARMUP (1000), TANDEM_BENCH_DIR,
# TANDEM_DIST, TANDEM_JAVA_OPTS (-Xmx512m), RESULTS, DOC.
set -euo pipefail

module=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
out=${RESULTS:-$module/target/dpdk-transport.md}
RTT_OPS=${RTT_OPS:-20000}
BULK_SECONDS=${BULK_SECONDS:-3}
CLIENTS=${CLIENTS:-1}
OPS=${OPS:-5000}
WARMUP=${WARMUP:-1000}
export TANDEM_JAVA_OPTS=${TANDEM_JAVA_OPTS:--Xmx512m}
# shellcheck source=bench-lib.sh
source "$module/bench-lib.sh"

requires redis-server redis-cli java
requires_drivers

bench_workdir dpdk-bench
results=$work/results
mkdir -p "$results"

# ------------------------------------------------------------------------------------------------ 1. transport
echo "### TransportRoundTrip --ops $RTT_OPS --bulk-seconds $BULK_SECONDS"
java -Xmx512m -Djava.io.tmpdir="$work" -cp "$driver_cp" tandem.benchmarks.TransportRoundTrip --ops "$RTT_OPS" \
  --bulk-seconds "$BULK_SECONDS" --idle-seconds 3 2> "$work/roundtrip.log" | grep -E '^(rtt|bulk|idle) ' \
  | tee "$results/transport.txt"

# ------------------------------------------------------------------------------------------------ 2. replication
: > "$results/latency.txt"
: > "$results/ack.txt"
ack_round_trip() { # LABEL: the ack round trip line of the primary's repl:status since the previous read
  tandem_shell tp repl:status | tr -d '\r' | awk -v l="$1" '/ack round trip:/ {
      for (i = 1; i <= NF; i++) { if ($i ~ /^p50=/) p50 = substr($i, 5); if ($i ~ /^p99=/) p99 = substr($i, 5);
        if ($i ~ /^batches=/) n = substr($i, 9) }
      print l, n, p50, p99; exit }' | tee -a "$results/ack.txt"
}
latency() { # LABEL PORT [--wait]
  local label=$1 port=$2
  shift 2
  java -Xmx256m -cp "$driver_cp" tandem.benchmarks.ReplicationLatency --port "$port" --clients "$CLIENTS" \
    --ops "$OPS" --warmup "$WARMUP" --label "$label" "$@" 2>> "$work/latency.log" | tee -a "$results/latency.txt"
}

for transport in tcp dpdk-back-off dpdk-spin-then-yield dpdk-busy-spin; do
  echo "### Tandem over $transport: primary + 1 replica"
  dpdk_dir=$work/sock
  config=(--config "tandem.transport.dpdk:socket.directory=$dpdk_dir")
  [[ $transport == dpdk-* ]] && config+=(--config "tandem.transport.dpdk:wait.strategy=${transport#dpdk-}")
  free_port tp; free_port tpr; free_port rp; free_port rpr
  tandem_start tp "$tp" "$tpr" --ack-policy ram "${config[@]}"
  tandem_start tr "$rp" "$rpr" --primary "127.0.0.1:$tpr" "${config[@]}"
  await tp 120 answers_ping "$tp"
  await tr 120 answers_ping "$rp"
  tandem_authorize tp tr
  if [[ $transport == dpdk-* ]]; then
    await tp 60 bash -c "'$dist/bin/tandem' shell --home '$work/tp' -c feature:list > /dev/null 2>&1"
    await tr 60 bash -c "'$dist/bin/tandem' shell --home '$work/tr' -c feature:list > /dev/null 2>&1"
    tandem_shell tp "feature:install transport-dpdk" > /dev/null
    tandem_shell tr "feature:install transport-dpdk" > /dev/null
    await tr 60 bash -c "'$dist/bin/tandem' shell --home '$work/tr' -c repl:status | grep -q 'connects through dpdk'"
  fi
  await tr 60 info_has "$rp" replication '^master_link_status:up$'
  for policy in ram disk+ram; do
    tandem_shell tp "repl:ack-policy $policy" > /dev/null
    await tp 30 info_equals "$tp" replication tandem_ack_policy "$policy"
    latency "warm-$transport-$policy" "$tp" > /dev/null
    ack_round_trip discard > /dev/null || true
    latency "$transport-$policy" "$tp"
    ack_round_trip "$transport-$policy"
  done
  stop_all
done

echo "### Redis: primary + 1 replica, appendonly no, SET + WAIT 1 0"
free_port rdp; free_port rdr
redis_start rdp "$rdp" --appendonly no
redis_start rdr "$rdr" --appendonly no --replicaof 127.0.0.1 "$rdp"
await rdp 30 answers_ping "$rdp"
await rdr 60 info_has "$rdr" replication '^master_link_status:up$'
latency redis-warm "$rdp" --wait > /dev/null
latency redis-noaof "$rdp" --wait
stop_all

# ------------------------------------------------------------------------------------------------ report
col() { # FILE LABEL COLUMN
  awk -v l="$2" -v c="$3" '$1 == l { print $c; exit }' "$1"
}
rtt() { awk -v t="$1" -v s="$2" -v c="$3" '$1 == "rtt" && $2 == t && $3 == s { print $c; exit }' "$results/transport.txt"; }
bulk() { awk -v t="$1" -v c="$2" '$1 == "bulk" && $2 == t { print $c; exit }' "$results/transport.txt"; }
idle() { awk -v t="$1" '$1 == "idle" && $2 == t { print $3; exit }' "$results/transport.txt"; }

table1=$work/t1.md
{
  echo "| transport | 64 B p50 µs | 64 B p99 µs | 64 B p99.9 µs | 1 KiB p50 µs | 1 KiB p99 µs | 1 KiB p99.9 µs | 64 B p50 / TCP | 16 KiB frames MB/s | cores while sending | cores idle (link open) |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for t in tcp dpdk-busy-spin dpdk-spin-then-yield dpdk-back-off; do
    echo "| $t | $(rtt "$t" 64 4) | $(rtt "$t" 64 5) | $(rtt "$t" 64 6) | $(rtt "$t" 1024 4) | $(rtt "$t" 1024 5) | $(rtt "$t" 1024 6) | $(ratio "$(rtt "$t" 64 4)" "$(rtt tcp 64 4)") | $(bulk "$t" 3) | $(bulk "$t" 4) | $(idle "$t") |"
  done
} > "$table1"

table2=$work/t2.md
{
  echo "| transport | policy | ack round trip p50 µs | ack round trip p99 µs | ack p50 / TCP | batches | write p50 µs | write p99 µs | write p99.9 µs | writes/s |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  for policy in ram disk+ram; do
    for t in tcp dpdk-busy-spin dpdk-spin-then-yield dpdk-back-off; do
      l=$t-$policy
      echo "| $t | \`$policy\` | $(col "$results/ack.txt" "$l" 3) | $(col "$results/ack.txt" "$l" 4) | $(ratio "$(col "$results/ack.txt" "$l" 3)" "$(col "$results/ack.txt" "tcp-$policy" 3)") | $(col "$results/ack.txt" "$l" 2) | $(col "$results/latency.txt" "$l" 3) | $(col "$results/latency.txt" "$l" 4) | $(col "$results/latency.txt" "$l" 5) | $(col "$results/latency.txt" "$l" 6) |"
    done
  done
  echo "| Redis 7, SET + WAIT 1 0 | appendonly no | — | — | — | — | $(col "$results/latency.txt" redis-noaof 3) | $(col "$results/latency.txt" redis-noaof 4) | $(col "$results/latency.txt" redis-noaof 5) | $(col "$results/latency.txt" redis-noaof 6) |"
} > "$table2"

section=$work/section.md
{
  echo "## Replication transports: TCP and DPDK"
  echo
  echo "\`itests/benchmarks/run-dpdk-transport.sh\` (RTT_OPS=$RTT_OPS, BULK_SECONDS=$BULK_SECONDS, CLIENTS=$CLIENTS,"
  echo "OPS=$OPS, WARMUP=$WARMUP), after \`mvn -B -o -q -pl itests/benchmarks install -DskipTests\`. DPDK: memif"
  echo "with EAL \`--no-huge --no-pci\`, each link's I/O thread polling with the named wait strategy."
  echo
  echo "The transport alone (\`TransportRoundTrip\`: both ends in one JVM, through the transport contract the"
  echo "journal protocol uses; a frame sent, echoed, received, driven from the transports' own threads; throughput"
  echo "one way; cores = CPU time of the process over wall time, both ends together):"
  echo
  cat "$table1"
  echo
  echo "Replicated writes, a primary and one replica as real processes (\`TANDEM_JAVA_OPTS=$TANDEM_JAVA_OPTS\`):"
  echo "the ack round trip the primary measures per batch (from handing it to the transport to the replica's"
  echo "acknowledgement of it; \`repl:status\`, over the run's $WARMUP warm-up and $OPS measured writes), and the"
  echo "client's write-to-reply latency (\`ReplicationLatency\`, $CLIENTS client(s), pipeline depth 1, the $OPS measured"
  echo "writes). Redis 7 for reference: its replica acknowledges through \`WAIT 1 0\`"
  echo "sent with each SET."
  echo
  cat "$table2"
  machine_footer
} > "$section"
publish "$section" dpdk-transport
