#!/usr/bin/env bash
# How fast a restore is, beside Redis 7 loading the same writes from its AOF, in one run on this machine.
#
#   Tandem  a node on its defaults with a journal archive takes a backup while empty, then the default benchmark's
#           writes (redis-benchmark -t set -P 16 -c 50 -r 100000 -n $N: $N SETs over 100,000 keys), seals its
#           live segment into the archive and takes a second backup. Restore 1 builds a home from the empty backup
#           and the archive up to the last write (every entry replayed at the first start); restore 2 from the
#           second backup (its store holds them all, nothing to replay). Each is timed: bin/tandem restore, then
#           the first start until DBSIZE answers with every key; the node's log gives the replay's own time.
#   Redis   appendonly yes (appendfsync everysec, no rewrite), the same redis-benchmark writes, then a restart:
#           timed from the start until DBSIZE answers (loading done), the AOF replayed.
#
#   itests/benchmarks/run-restore.sh
#
# Builds nothing: expects distribution/target/tandem. Needs redis-server, redis-cli and redis-benchmark (Redis 7).
# Prints the table, writes it to $RESULTS (default itests/benchmarks/target/restore.md) and replaces the "restore"
# section of docs/benchmarks.md (DOC=/dev/null skips that). Environment: N (400000), TANDEM_BENCH_DIR (/tmp),
# TANDEM_DIST, TANDEM_JAVA_OPTS.
set -euo pipefail

module=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
out=${RESULTS:-$module/target/restore.md}
N=${N:-400000}
# shellcheck source=bench-lib.sh
source "$module/bench-lib.sh"
bench_paths
requires redis-server redis-cli redis-benchmark java
bench_workdir restore-bench

now_ms() { date +%s%3N; }
load() { redis-benchmark -h 127.0.0.1 -p "$1" -t set -P 16 -c 50 -r 100000 -n "$N" -q > /dev/null; }
dbsize_is() { [[ $(redis-cli -h 127.0.0.1 -p "$1" DBSIZE 2> /dev/null) == "$2" ]]; }
durable() { tandem_shell "$1" journal:info | awk -F': *' '/^durable sequence/ { print $2 }'; }
archived_up_to() { # the last sequence of the newest archived segment
  ls "$work/archive" 2> /dev/null | sed -n 's/^segment-[0-9]*-0*\([0-9][0-9]*\)-.*/\1/p' | sort -n | tail -n 1
}
archive_holds() { [[ $(archived_up_to) -ge $1 ]] 2> /dev/null; }

# ------------------------------------------------------------------------------------------------ Tandem
echo "### Tandem: backup, $N writes, archive, backup"
free_port tp; free_port trp
mkdir -p "$work/archive"
tandem_start primary "$tp" "$trp" --config "tandem.journal:archive.directory=$work/archive"
await primary 60 answers_ping "$tp"
tandem_shell primary "backup:create $work/b0" > /dev/null
load "$tp"
keys=$(redis-cli -h 127.0.0.1 -p "$tp" DBSIZE)
last=$(durable primary)
tandem_shell primary journal:rotate > /dev/null
await primary 60 archive_holds "$last"
t0=$(now_ms)
tandem_shell primary "backup:create $work/b1" > /dev/null
backup_ms=$(($(now_ms) - t0))
backup_bytes=$(du -sb "$work/b1" | awk '{ print $1 }')
archive_bytes=$(du -sb "$work/archive" | awk '{ print $1 }')
stop primary

restore() { # NAME BACKUP: runs bin/tandem restore to the last write, then the first start; sets tool_ms start_ms replay
  local name=$1 backup=$2 t port rport
  t=$(now_ms)
  "$dist/bin/tandem" restore --backup "$backup" --archive "$work/archive" --to-sequence "$last" \
    --home "$work/$name" > "$work/$name.restore.log"
  tool_ms=$(($(now_ms) - t))
  free_port port; free_port rport
  t=$(now_ms)
  tandem_start "$name" "$port" "$rport"
  await "$name" 600 dbsize_is "$port" "$keys"
  start_ms=$(($(now_ms) - t))
  # the node's log groups digits (400,002): the line without them
  replay=$(grep -o 'replayed [0-9,]* journal entries after sequence [0-9,]* in [0-9,]* ms' \
    "$work/$name/data/log/tandem.0.log" | tail -n 1 | tr -d , || true)
  stop "$name"
}
echo "### Tandem: restore from the empty backup and the archive"
restore r0 "$work/b0"
r0_tool=$tool_ms r0_start=$start_ms r0_replay=$replay
echo "### Tandem: restore from the second backup"
restore r1 "$work/b1"
r1_tool=$tool_ms r1_start=$start_ms r1_replay=${replay:-nothing replayed}

# ------------------------------------------------------------------------------------------------ Redis
echo "### Redis: $N writes with appendonly, then a restart"
free_port rp
redis_start redis "$rp" --appendonly yes --appendfsync everysec
await redis 30 answers_ping "$rp"
load "$rp"
redis-cli -h 127.0.0.1 -p "$rp" SHUTDOWN > /dev/null 2>&1 || true
await redis 30 bash -c "! kill -0 ${pid_of[redis]} 2> /dev/null"
unset "pid_of[redis]"
t=$(now_ms)
redis_start redis "$rp" --appendonly yes --appendfsync everysec
await redis 600 info_has "$rp" persistence '^loading:0$'
redis_ms=$(($(now_ms) - t))
redis_keys=$(redis-cli -h 127.0.0.1 -p "$rp" DBSIZE)
aof_bytes=$(du -sb "$work/redis/appendonlydir" | awk '{ print $1 }')
stop redis

entries=$(awk '{ print $2 }' <<< "$r0_replay")
replay_ms=$(awk 'NF > 1 { print $(NF - 1) }' <<< "$r0_replay")
rate=$(awk -v e="$entries" -v ms="$replay_ms" 'BEGIN { if (ms > 0) printf "%.0f", e * 1000 / ms; else print "n/a" }')
section=$work/section.md
{
  echo "## Restore"
  echo
  echo "\`itests/benchmarks/run-restore.sh\` (N=$N): the default benchmark's writes (\`redis-benchmark -t set -P 16"
  echo "-c 50 -r 100000 -n $N\`, $keys keys) on a node on its defaults that archives its journal; \`backup:create\`"
  echo "before and after them; \`bin/tandem restore --to-sequence\` the last write, from each backup with the"
  echo "archive, then the restored node's first start until \`DBSIZE\` answers $keys. Beside it, Redis 7"
  echo "(\`appendonly yes\`) restarted after the same writes (its own random keys), loading its AOF, until"
  echo "\`loading:0\`."
  echo
  echo "| what | bin/tandem restore | first start to ready | entries replayed at the start |"
  echo "|---|---:|---:|---|"
  echo "| Tandem: empty backup + archive ($archive_bytes bytes archived) | ${r0_tool} ms | ${r0_start} ms | $r0_replay |"
  echo "| Tandem: backup after the writes ($backup_bytes bytes) | ${r1_tool} ms | ${r1_start} ms | $r1_replay |"
  echo "| Redis 7: AOF load at start ($aof_bytes bytes, $redis_keys keys) | – | ${redis_ms} ms | the AOF's $N commands |"
  echo
  echo "Replay speed: $rate entries/s. \`backup:create\` after the writes: $backup_ms ms."
  machine_footer
} > "$section"
publish "$section" restore
