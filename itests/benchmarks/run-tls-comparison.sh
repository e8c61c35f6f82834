#!/usr/bin/env bash
# TLS against plain text, Tandem and Redis 7 side by side in one run on this machine. A CA, a server and a client
# certificate are made with openssl; a Tandem node (the built distribution, plain port and tls.port) runs, then
# Redis with appendfsync always (port and tls-port), each alone while it is measured. For each server and each of
# plain and TLS (client certificate presented, tls-auth-clients yes):
#   warm-up   $WARM_PASSES passes of redis-benchmark -t set -P 16 -c 50 -r 100000 -n $CPU_N, plain then TLS (the
#             JIT compiles the JDK's TLS code too)
#   pipelined redis-benchmark -t set|get -P 16 -c 50 -r 100000 -n $CPU_N: requests/s and the server's
#             utime+stime per request
#   latency   redis-benchmark -t set -P 1 -c 1 -r 100000 -n $LAT_N: requests/s, p50, p99
# Prints the tables and replaces the "tls-comparison" section of docs/benchmarks.md with them.
#
#   itests/benchmarks/run-tls-comparison.sh
#
# Builds nothing: expects distribution/target/tandem (mvn -B install). Needs redis-server, redis-benchmark,
# redis-cli (Redis 7, built with TLS, as Debian's) and openssl. Environment: CPU_N (default 200000), WARM_PASSES
# (4), LAT_N (10000), TANDEM_BENCH_DIR, TANDEM_DIST, TANDEM_JAVA_OPTS (default -Xmx1g -XX:+UseZGC), DOC.
set -euo pipefail

module=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
CPU_N=${CPU_N:-200000}
WARM_PASSES=${WARM_PASSES:-4}
LAT_N=${LAT_N:-10000}
export TANDEM_JAVA_OPTS=${TANDEM_JAVA_OPTS:--Xmx1g -XX:+UseZGC}
# shellcheck source=bench-lib.sh
source "$module/bench-lib.sh"

requires redis-server redis-benchmark redis-cli java openssl

bench_workdir tls-bench
results=$work/results
pki=$work/pki
mkdir -p "$results" "$pki"

# the operator guide's quick start, as it is written there
openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -keyout "$pki/ca.key" \
  -out "$pki/ca.crt" -days 30 -subj "/CN=bench-ca" 2> /dev/null
for n in node client; do
  openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -keyout "$pki/$n.key" -out "$pki/$n.csr" \
    -subj "/CN=$n" 2> /dev/null
  openssl x509 -req -in "$pki/$n.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -out "$pki/$n.crt" \
    -days 30 -extfile <(printf "subjectAltName=IP:127.0.0.1") 2> /dev/null
done
tls_args=(--tls --cacert "$pki/ca.crt" --cert "$pki/client.crt" --key "$pki/client.key")

# run PID PORT FILE TLS(0|1) ARGS...: one redis-benchmark run; writes "rps us_per_request p50 p99" to FILE
run() {
  local pid=$1 port=$2 file=$3 tls=$4 before after out n
  shift 4
  local extra=()
  if [[ $tls == 1 ]]; then extra=("${tls_args[@]}"); fi
  n=$(sed -n 's/.*-n \([0-9]*\).*/\1/p' <<< "$*")
  before=$(process_ticks "$pid")
  out=$(redis-benchmark -h 127.0.0.1 -p "$port" "${extra[@]}" "$@" -r 100000 -q --csv | tail -n 1)
  after=$(process_ticks "$pid")
  awk -F',' -v us="$(ticks_per_request "$before" "$after" "$n")" \
    '{ gsub(/"/, ""); print $2, us, $5, $7 }' <<< "$out" > "$file"
  echo "$(basename "$file"): $(cat "$file")"
}

bench() { # LABEL PLAIN_PORT TLS_PORT
  local label=$1 plain=$2 secure=$3 pid=${pid_of[$1]} i
  for ((i = 1; i <= WARM_PASSES; i++)); do
    run "$pid" "$plain" "$results/$label-warm" 0 -t set -P 16 -c 50 -n "$CPU_N"
    run "$pid" "$secure" "$results/$label-warm" 1 -t set -P 16 -c 50 -n "$CPU_N"
  done
  for t in set get; do
    run "$pid" "$plain" "$results/$label-$t-plain" 0 -t "$t" -P 16 -c 50 -n "$CPU_N"
    run "$pid" "$secure" "$results/$label-$t-tls" 1 -t "$t" -P 16 -c 50 -n "$CPU_N"
  done
  run "$pid" "$plain" "$results/$label-lat-plain" 0 -t set -P 1 -c 1 -n "$LAT_N"
  run "$pid" "$secure" "$results/$label-lat-tls" 1 -t set -P 1 -c 1 -n "$LAT_N"
}

free_port port
free_port tport
free_port rport
tandem_start tandem "$port" "$rport" --config "tandem.server:tls.port=$tport" \
  --config "tandem.tls:cert.file=$pki/node.crt" --config "tandem.tls:key.file=$pki/node.key" \
  --config "tandem.tls:ca.cert.file=$pki/ca.crt"
await tandem 120 answers_ping "$port"
bench tandem "$port" "$tport"
stop tandem

free_port port
free_port tport
redis_start redis "$port" --appendonly yes --appendfsync always --tls-port "$tport" \
  --tls-cert-file "$pki/node.crt" --tls-key-file "$pki/node.key" --tls-ca-cert-file "$pki/ca.crt"
await redis 60 answers_ping "$port"
bench redis "$port" "$tport"
stop redis

table=$work/table.md
{
  echo "| test | Tandem plain req/s | Tandem TLS req/s | Tandem TLS / plain | Redis plain req/s | Redis TLS req/s | Redis TLS / plain | TLS req/s Tandem / Redis | Tandem TLS µs/req | Redis TLS µs/req | TLS CPU Tandem / Redis |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for t in set:"SET -P 16 -c 50" get:"GET -P 16 -c 50" lat:"SET -P 1 -c 1"; do
    read -r tp tpus _ _ < "$results/tandem-${t%%:*}-plain"
    read -r ts tsus _ _ < "$results/tandem-${t%%:*}-tls"
    read -r rp rpus _ _ < "$results/redis-${t%%:*}-plain"
    read -r rs rsus _ _ < "$results/redis-${t%%:*}-tls"
    echo "| ${t#*:} | $(fmt "$tp") | $(fmt "$ts") | $(ratio "$ts" "$tp") | $(fmt "$rp") | $(fmt "$rs") | $(ratio "$rs" "$rp") | $(ratio "$ts" "$rs") | $tsus | $rsus | $(ratio "$tsus" "$rsus") |"
  done
} > "$table"
latency=$work/latency.md
{
  echo "| system | plain p50 ms | plain p99 ms | TLS p50 ms | TLS p99 ms |"
  echo "|---|---:|---:|---:|---:|"
  for s in tandem:Tandem redis:"Redis always"; do
    read -r _ _ p50 p99 < "$results/${s%%:*}-lat-plain"
    read -r _ _ t50 t99 < "$results/${s%%:*}-lat-tls"
    echo "| ${s#*:} | $p50 | $p99 | $t50 | $t99 |"
  done
} > "$latency"

section=$work/section.md
{
  echo "## TLS and plain text, Tandem and Redis 7 side by side"
  echo
  echo "\`itests/benchmarks/run-tls-comparison.sh\` (CPU_N=$CPU_N, WARM_PASSES=$WARM_PASSES, LAT_N=$LAT_N): one Tandem"
  echo "node with its plain port and a TLS port (\`tandem.tls\` on the JDK's provider, an EC P-256 certificate made"
  echo "with the operator guide's \`openssl\` commands), then Redis with \`appendfsync always\` and the same"
  echo "certificate on its \`tls-port\`. redis-benchmark presents a client certificate (\`tls-auth-clients yes\` on"
  echo "both). One server runs at a time, after $WARM_PASSES warm-up passes of plain and TLS SET each; \`-r 100000\`; µs/req is the"
  echo "server's utime+stime per request from \`/proc\`."
  echo
  cat "$table"
  echo
  echo "Unpipelined write-to-ack latency (\`redis-benchmark -t set -P 1 -c 1 -n $LAT_N\`):"
  echo
  cat "$latency"
  machine_footer
} > "$section"
publish "$section" tls-comparison
