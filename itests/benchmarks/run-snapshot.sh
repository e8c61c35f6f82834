#!/usr/bin/env bash
# Full sync of a large keyspace, side by side in one run on this machine: how long a fresh replica takes to hold a
# primary's $KEYS keys of $VALUE_SIZE bytes each (about 1.1 GB by default), Tandem's journal-protocol snapshot and
# Tandem's psync full sync next to Redis 7's full sync of the same data.
#
#   Tandem  a primary (disk policy, 64 MiB segments, no archived segment kept once the store flushed it) is loaded
#           with Populate, so that a fresh replica is behind the retained journal and gets a snapshot: a RocksDB
#           checkpoint (hard links) streamed in SnapshotChunk frames, verified and installed, then the segment seed.
#           Timed from the auth:allow that admits the already-running replica to its INFO showing the link up at the
#           primary's sequence (the snapshot installed, the tail caught up).
#   psync   then a second fresh Tandem node is told REPLICAOF the same primary's RESP port: +FULLRESYNC, a RocksDB
#           checkpoint cut for it and streamed zero-copy in the checkpoint stream format, verified, installed; timed
#           from the REPLICAOF to its INFO showing the link up at the primary's offset.
#   Redis   a primary (no persistence) loaded with the same keys and values; a running empty redis-server is told
#           REPLICAOF; timed from that command to master_link_status:up with the load done (diskless sync,
#           repl-diskless-sync-delay 0; the replica writes the RDB to disk and loads it, Redis 7's default).
#
#   mvn -B -o -q -pl itests/benchmarks install -DskipTests     # builds Populate and target/classpath.txt
#   itests/benchmarks/run-snapshot.sh
#
# Builds nothing: expects distribution/target/tandem and this module's target/classes + target/classpath.txt.
# Needs redis-server and redis-cli (Redis 7) and java on the PATH, and about 6 GB free under $TANDEM_BENCH_DIR.
# Every process it starts and its temporary directory are removed at exit. Prints the table, writes it to $RESULTS
# (default itests/benchmarks/target/snapshot.md) and replaces the "snapshot" section of docs/benchmarks.md
# (DOC=/dev/null skips that). Environment: KEYS (1100000), VALUE_SIZE (1000), TANDEM_BENCH_DIR (/tmp),
# TANDEM_DIST, TANDEM_JAVA_OPTS (-Xmx512m), RESULTS, DOC.
set -euo pipefail

module=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
out=${RESULTS:-$module/target/snapshot.md}
KEYS=${KEYS:-1100000}
VALUE_SIZE=${VALUE_SIZE:-1000}
export TANDEM_JAVA_OPTS=${TANDEM_JAVA_OPTS:--Xmx512m}
# shellcheck source=bench-lib.sh
source "$module/bench-lib.sh"

requires redis-server redis-cli java
requires_drivers

bench_workdir snapshot-bench

populate() { # PORT
  java -Xmx256m -cp "$driver_cp" tandem.benchmarks.Populate --port "$1" --keys "$KEYS" --value-size "$VALUE_SIZE" \
    --connections 4 --pipeline 64
}
now_ms() { date +%s%3N; }
info_field() { # PORT SECTION KEY
  redis-cli -h 127.0.0.1 -p "$1" INFO "$2" 2> /dev/null | tr -d '\r' | awk -F: -v k="$3" '$1 == k { print $2 }'
}
same_sequence() { # PRIMARY_PORT REPLICA_PORT
  info_has "$2" replication '^master_link_status:up$' \
    && [[ $(info_field "$2" replication tandem_journal_sequence) == $(info_field "$1" replication tandem_journal_sequence) ]]
}
first_sequence() { # NAME
  tandem_shell "$1" journal:info | awk -F': *' '/^first sequence/ { print $2 }'
}

# ------------------------------------------------------------------------------------------------ Tandem
echo "### Tandem: loading $KEYS keys of $VALUE_SIZE bytes"
free_port tp; free_port tpr
tandem_start tp "$tp" "$tpr" --ack-policy disk --config tandem.journal:segment.size=67108864 \
  --config tandem.journal:retention.max.bytes=0
await tp 120 answers_ping "$tp"
read -r _ tandem_bytes tandem_load_s < <(populate "$tp")
echo "loaded $tandem_bytes bytes in $tandem_load_s s"
# the store flushes every second; the purge then deletes every sealed segment: the journal no longer starts at 1
tandem_shell tp journal:rotate > /dev/null
purged() { tandem_shell tp journal:purge > /dev/null; [[ $(first_sequence tp) -gt 1 ]]; }
await tp 120 purged
store_bytes=$(info_field "$tp" persistence store_disk_bytes)

free_port tr; free_port trr
# it retries every 100 ms while its key is not allowed yet, so that the measured time starts with the allow
tandem_start tr "$tr" "$trr" --primary "127.0.0.1:$tpr" --config tandem.replication:reconnect.max.ms=100
await tr 120 answers_ping "$tr"
await tr 60 test -s "$work/tr/etc/replication_ed25519.pub"
echo "### Tandem: snapshot to a fresh replica"
t0=$(now_ms)
tandem_shell tp "auth:allow $(awk '{ printf "%s \"%s\" %s", $1, $2, $3 }' "$work/tr/etc/replication_ed25519.pub")" > /dev/null
await tr 1800 same_sequence "$tp" "$tr"
t1=$(now_ms)
tandem_ms=$((t1 - t0))
sent=$(grep -o 'snapshot at sequence [0-9,]* sent: .*' "$work/tp.log" | tail -n 1 || true)
checkpoint_bytes=$(sed -E 's/.*sent: ([0-9,]+) bytes of checkpoint.*/\1/' <<< "$sent" | tr -d ,)
echo "snapshot done in $tandem_ms ms ($sent)"
[[ $(tandem_shell tp store:digest | grep -Eo '[0-9a-f]{64}') == $(tandem_shell tr store:digest | grep -Eo '[0-9a-f]{64}') ]] \
  || die "the replica's digest differs from the primary's"

same_offset() { # PRIMARY_PORT REPLICA_PORT
  info_has "$2" replication '^master_link_status:up$' \
    && [[ $(info_field "$2" replication master_repl_offset) == $(info_field "$1" replication master_repl_offset) ]]
}
free_port tq; free_port tqr
tandem_start tq "$tq" "$tqr"
await tq 120 answers_ping "$tq"
echo "### Tandem: psync full sync to a fresh replica"
t0=$(now_ms)
redis-cli -h 127.0.0.1 -p "$tq" REPLICAOF 127.0.0.1 "$tp" > /dev/null
await tq 1800 same_offset "$tp" "$tq"
t1=$(now_ms)
psync_ms=$((t1 - t0))
psync_sent=$(sed -nE 's/.*full sync sent, ([0-9]+) bytes.*/\1/p' "$work/tp.log" | tail -n 1)
echo "psync full sync done in $psync_ms ms ($psync_sent bytes)"
[[ $(tandem_shell tp store:digest | grep -Eo '[0-9a-f]{64}') == $(tandem_shell tq store:digest | grep -Eo '[0-9a-f]{64}') ]] \
  || die "the psync replica's digest differs from the primary's"
stop_all

# ------------------------------------------------------------------------------------------------ Redis
echo "### Redis: loading the same keys"
free_port rp; free_port rr
redis_start rp "$rp" --appendonly no
redis_start rr "$rr" --appendonly no
await rp 30 answers_ping "$rp"
await rr 30 answers_ping "$rr"
read -r _ redis_bytes redis_load_s < <(populate "$rp")
echo "loaded $redis_bytes bytes in $redis_load_s s"
redis_memory=$(info_field "$rp" memory used_memory)
redis_synced() {
  info_has "$rr" replication '^master_link_status:up$' && info_has "$rr" replication '^master_sync_in_progress:0$' \
    && info_has "$rr" persistence '^loading:0$'
}
echo "### Redis: full sync to a fresh replica"
t0=$(now_ms)
redis-cli -h 127.0.0.1 -p "$rr" REPLICAOF 127.0.0.1 "$rp" > /dev/null
await rr 1800 redis_synced
t1=$(now_ms)
redis_ms=$((t1 - t0))
[[ $(redis-cli -h 127.0.0.1 -p "$rr" DBSIZE) == "$KEYS" ]] || die "the Redis replica does not hold $KEYS keys"
rdb_bytes=$(info_field "$rp" stats total_net_repl_output_bytes)
echo "full sync done in $redis_ms ms"
stop_all

# ------------------------------------------------------------------------------------------------ report
mib() { awk -v b="$1" 'BEGIN { if (b == "") print "n/a"; else printf "%.0f MiB", b / 1048576 }'; }
{
  echo "## Full sync of a large keyspace (run-snapshot.sh)"
  echo
  echo "A fresh replica of a primary that holds $KEYS keys of $VALUE_SIZE pseudo-random bytes"
  echo "($(mib "$tandem_bytes") of keys and values, the same data on both), timed until the replica holds it all."
  echo
  echo "| | Tandem (journal-protocol snapshot) | Tandem (psync full sync) | Redis 7 (full sync) | Redis / Tandem snapshot | Redis / Tandem psync |"
  echo "|---|---|---|---|---|---|"
  echo "| time to a synced replica | $tandem_ms ms | $psync_ms ms | $redis_ms ms | $(ratio "$redis_ms" "$tandem_ms") | $(ratio "$redis_ms" "$psync_ms") |"
  echo "| what was sent | $(mib "$checkpoint_bytes") checkpoint stream + segment seed | $(mib "$psync_sent") checkpoint stream (zero-copy) | $(mib "$rdb_bytes") (RDB, diskless) | | |"
  echo "| primary's data | store on disk $(mib "$store_bytes") | (the same primary) | used_memory $(mib "$redis_memory") | | |"
  echo "| load of the keyspace (Populate, 4 connections, pipeline 64; for context) | $tandem_load_s s | | $redis_load_s s | | |"
  machine_footer
} > "$work/report.md"
publish "$work/report.md" snapshot
