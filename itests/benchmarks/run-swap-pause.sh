#!/usr/bin/env bash
# The write pause of every bundle swap, measured: a primary under disk+ram with a journal-protocol replica and a
# psync replica, SwapPause (this module) writing SET one at a time on $CLIENTS connections without end, and each
# Tandem bundle updated in turn from the shell (Gogo "update ID": stop, new revision, start), as HotSwapSystemTest
# and RestartSwapSystemTest swap them. For each swap: the steady p99 of the $STEADY seconds just before it, and the
# longest write completed between the update and both replicas streaming again (the pause), $RUNS times. The
# targets are issue 14's: under 100 ms for transports, protocols, FRPL, fencing, auth, shell, health and features;
# under 200 ms for journal, store and checkpoint, which pause writes by design. The RESP server and the node core
# restart the listener, so their clients reconnect: the pause runs from the write whose reply the closed connection
# lost to the next one answered, target a second. The codecs and the API take effect through a refresh, which
# restarts every Tandem bundle: measured, no target. The DPDK rows run where DPDK is built.
#
#   mvn -B -o -q -pl itests/benchmarks install -DskipTests     # builds SwapPause and target/classpath.txt
#   itests/benchmarks/run-swap-pause.sh
#
# Builds nothing: expects distribution/target/tandem and this module's target/classes + target/classpath.txt.
# Prints the table, writes it to $RESULTS (default itests/benchmarks/target/swap-pause.md) and replaces the
# "swap-pause" section of docs/benchmarks.md (DOC=/dev/null skips that).
# Environment: RUNS (3), CLIENTS (2), STEADY seconds (3), TANDEM_BENCH_DIR, TANDEM_DIST, TANDEM_JAVA_OPTS
# (-Xmx512m), RESULTS, DOC, NOTE (a line about the run's conditions, printed with the machine), ONLY (a regular
# expression: the swaps whose name matches), KEEP (set: the nodes' directories and logs stay in $TANDEM_BENCH_DIR).
set -euo pipefail

module=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
out=${RESULTS:-$module/target/swap-pause.md}
RUNS=${RUNS:-3}
CLIENTS=${CLIENTS:-2}
STEADY=${STEADY:-3}
export TANDEM_JAVA_OPTS=${TANDEM_JAVA_OPTS:--Xmx512m}
# shellcheck source=bench-lib.sh
source "$module/bench-lib.sh"

requires redis-cli java
requires_drivers

bench_workdir swap-pause

# name | Bundle-Name, or @install / @uninstall of the transport-dpdk feature (on the primary and the journal
# replica, in the order that keeps them connected) | target ms (- for none) | how: empty for "update ID", restart
# for "update ID" that restarts the RESP server, refresh for "update ID; refresh ID" (which restarts it too)
swaps=(
  "transport|Tandem TCP transport|100|"
  "journal replication|Tandem journal replication|100|"
  "auth|Tandem replication auth|100|"
  "psync replication|Tandem psync replication|100|"
  "FRPL stream|Tandem FRPL stream|100|"
  "fencing|Tandem quorum fence|100|"
  "shell|Tandem shell|100|"
  "health|Tandem health|100|"
  "features|Tandem features|100|"
  "checkpoint|Tandem checkpoints|200|"
  "journal|Tandem journal|200|"
  "store|Tandem store|200|"
)
if pkg-config --exists libdpdk 2> /dev/null; then # DPDK built into the distribution
  swaps+=("transport tcp to dpdk|@install|100|" "DPDK transport|Tandem DPDK transport|100|"
    "DPDK runtime|Tandem DPDK runtime|100|" "transport dpdk to tcp|@uninstall|100|")
fi
swaps+=(
  "RESP server|Tandem RESP server|1000|restart"
  "node core|Tandem node core|1000|restart"
  "protocol codecs|Tandem protocol codecs|-|refresh"
  "API|Tandem API|-|refresh"
)

free_port pp; free_port prp; free_port rp; free_port rrp; free_port sp; free_port srp
tandem_start p "$pp" "$prp" --ack-policy disk+ram
await p 60 answers_ping "$pp"
tandem_start r "$rp" "$rrp" --primary "127.0.0.1:$prp" --config tandem.replication:reconnect.max.ms=100
await r 60 answers_ping "$rp"
tandem_authorize p r
tandem_start s "$sp" "$srp" --config tandem.psync:reconnect.max.ms=100
await s 60 answers_ping "$sp"
redis-cli -p "$sp" REPLICAOF 127.0.0.1 "$pp" > /dev/null
streaming() {
  info_has "$rp" replication '^master_link_status:up$' && info_has "$sp" replication '^master_link_status:up$'
}
await r 60 streaming

replica_on() { # TRANSPORT: the journal replica's link goes through it
  tandem_shell r repl:status | grep -q "connects through $1"
}
bundle_id() { # BUNDLE-NAME
  tandem_shell p lb | awk -F'|' -v n="$1" 'index($4, n " (") == 1 && $2 ~ /Active/ { gsub(/ /, "", $1); print $1 }'
}
run_id() { # the primary's RESP server's run_id: new at each activation
  redis-cli -p "$pp" INFO server 2> /dev/null | tr -d '\r' | awk -F: '$1 == "run_id" { print $2 }'
}
run_id_changed() { # RUN_ID
  local now
  now=$(run_id)
  [[ -n $now && $now != "$1" ]]
}

# a write unanswered for 5 s: the primary's threads, its replication state and INFO, into $work/stall-*.txt (KEEP=1
# keeps them)
stall_command="f=$work/stall-\$(date +%s%N).txt; jcmd ${pid_of[p]} Thread.print > \$f 2>&1; \
  $dist/bin/tandem shell --home $work/p -c repl:status >> \$f 2>&1; redis-cli -p $pp INFO all >> \$f 2>&1; \
  echo \"stall: \$f\" >&2"
coproc DRIVER { exec java -Xmx256m -cp "$driver_cp" tandem.benchmarks.SwapPause --port "$pp" --clients "$CLIENTS" \
  --stall-command "$stall_command"; }
driver_pid=$DRIVER_PID
trap 'kill "$driver_pid" 2> /dev/null || true; stop_all; [[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
rows=$work/rows.txt
: > "$rows"
sleep "$STEADY" # the JIT and the first writes, unrecorded: the first "begin" discards them
echo "begin warm-up" >&"${DRIVER[1]}"
echo "end" >&"${DRIVER[1]}"
read -r _ <&"${DRIVER[0]}"

for ((run = 1; run <= RUNS; run++)); do
  for entry in "${swaps[@]}"; do
    IFS='|' read -r name bundle target how <<< "$entry"
    [[ $name =~ ${ONLY:-.} ]] || continue
    if [[ $bundle != @* ]]; then
      id=$(bundle_id "$bundle")
      [[ -n $id ]] || fail p "no active bundle named $bundle"
    fi
    sleep "$STEADY" # the steady state this swap is compared with
    echo "begin $name" >&"${DRIVER[1]}"
    case $bundle in
      @install) # the primary listens on both, then the replica moves its link
        tandem_shell p "feature:install transport-dpdk" > /dev/null
        tandem_shell r "feature:install transport-dpdk" > /dev/null
        await r 60 replica_on dpdk ;;
      @uninstall) # the replica moves back first, then the primary stops listening on DPDK
        tandem_shell r "feature:uninstall transport-dpdk" > /dev/null
        await r 60 replica_on tcp
        tandem_shell p "feature:uninstall transport-dpdk" > /dev/null ;;
      *) # the shell's own update is answered too
        before=$(run_id)
        line="update $id"
        [[ $how != refresh ]] || line="update $id; refresh $id"
        tandem_shell p "$line" > /dev/null || fail p "$line ($bundle) failed"
        # a refresh restarts the bundles on the framework's thread after the command returned
        [[ -z $how ]] || await p 60 run_id_changed "$before"
        [[ $bundle != "Tandem DPDK"* ]] || await r 60 replica_on dpdk ;;
    esac
    await p 60 streaming
    echo "end" >&"${DRIVER[1]}"
    read -r row <&"${DRIVER[0]}"
    echo "$run $target $row" | tee -a "$rows"
  done
done
echo quit >&"${DRIVER[1]}"

times="$RUNS times"
((RUNS != 1)) || times=once
{
  echo "## Hot swaps under writes: the pause"
  echo
  echo "\`itests/benchmarks/run-swap-pause.sh\`: a primary under \`disk+ram\` with a journal-protocol replica and a psync"
  echo "replica; $CLIENTS clients write \`SET\` one at a time without end; each Tandem bundle is updated from the"
  echo "shell (\`update ID\`: stopped, its new revision started) $times. *Steady p99* is over the $STEADY s before"
  echo "each swap; the *pause* is the longest write completed between the update and both replicas streaming again."
  echo "No client connection dropped unless the *drops* column says so. *transport tcp to dpdk*: \`feature:install"
  echo "transport-dpdk\` on the primary, then on the journal replica, until its link goes through DPDK; *dpdk to tcp*:"
  echo "\`feature:uninstall\` on the replica until its link is back on TCP, then on the primary. The *RESP server* and"
  echo "the *node core* restart the listener (its \`run_id\` changes): each client's connection drops, it reconnects,"
  echo "and its pause runs from the write whose reply was lost to the next one answered. The *protocol codecs* and the"
  echo "*API* are updated and refreshed (\`update ID; refresh ID\`), which restarts every Tandem bundle; no target."
  echo
  machine_description "${TANDEM_BENCH_DIR:-/tmp}"
  [[ -z ${NOTE:-} ]] || echo "- note: $NOTE"
  echo
  echo "| swap | target ms | steady p99 ms (median) | pause ms, each run | worst pause ms | errors | drops | target met |"
  echo "|---|---:|---:|---|---:|---:|---:|---|"
  for entry in "${swaps[@]}"; do
    IFS='|' read -r name bundle target how <<< "$entry"
    [[ $name =~ ${ONLY:-.} ]] || continue
    key=${name// /_}
    awk -v k="$key" -v t="$target" '
      $3 == k { n++; p99[n] = $4 / 1000; pause[n] = $7 / 1000; err += $9; drop += $10
                if ($7 / 1000 > worst) worst = $7 / 1000
                runs = runs (runs == "" ? "" : ", ") sprintf("%.0f", $7 / 1000) }
      END {
        # median of the steady p99s
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (p99[j] < p99[i]) { x = p99[i]; p99[i] = p99[j]; p99[j] = x }
        med = n % 2 ? p99[(n + 1) / 2] : (p99[n / 2] + p99[n / 2 + 1]) / 2
        met = t == "-" ? "-" : (worst < t ? "yes" : "no")
        printf "| %s | %s | %.1f | %s | %.0f | %d | %d | %s |\n", k, t, med, runs, worst, err, drop, met
      }' "$rows" | sed 's/_/ /g'
  done
} > "$out"
cat "$out"
[[ $doc == /dev/null ]] || { replace_section "$doc" swap-pause "$out"; echo "replaced the swap-pause section of $doc"; }
