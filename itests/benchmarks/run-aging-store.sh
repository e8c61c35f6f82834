#!/usr/bin/env bash
# One store as it ages, side by side in one run on this machine: Tandem (from the built distribution), then Redis 7
# with appendonly yes + appendfsync always, each alone on the machine while it is measured, data in one temporary
# directory (same disk), on loopback. Two parts, each on fresh servers:
#   cliff   a fresh server's ZADD rate (redis-benchmark -t zadd -n $CLIFF_N), then on another fresh server
#           3 x LPUSH of $CLIFF_N onto one list followed by 3 x ZADD of $CLIFF_N (random scores over 100,000 members
#           of one sorted set): the case in which Tandem's ZADD fell from 33 k/s to 6.8 k/s (docs/data-types.md,
#           "An aging store"); each server first takes $CLIFF_N / 4 discarded ZADDs on a sorted set of its own
#   mixed   $PASSES passes of the same mixed load on one server: every type's write commands, each run by
#           redis-benchmark -P 16 -c 50 -r 100000 in turn ($N requests, $((N / 2)) for RPOP, $((N / 4)) for SPOP
#           and ZPOPMIN, in two runs of half as many, of which the better counts): strings overwritten, counted and
#           expiring; one hash whose fields are set, counted and deleted; one list pushed at its head and popped at
#           its tail (it grows by N/2 a pass); one set added to, removed from and popped; one sorted set whose
#           scores change (ZADD, ZINCRBY), members removed and the lowest popped; and a hash per key over 100,000
#           keys. A discarded warm-up of the same load (N/4, on keys of its own, which stay) comes first
# Prints each command's rate per pass and the ratio first pass / last pass (above 2: the store slowed down as it
# aged), and replaces the "aging-store" section of docs/benchmarks.md (DOC=/dev/null skips that). Exits 1 when a
# Tandem ratio is above 2 or the LPUSH-then-ZADD case falls below half its fresh-store rate.
#
#   itests/benchmarks/run-aging-store.sh
#
# Builds nothing: expects distribution/target/tandem (mvn -B install). Needs redis-server, redis-benchmark and
# redis-cli (Redis 7) on the PATH. Every process it starts and its temporary directory are removed at exit.
# Environment: N (default 100000), PASSES (4), CLIFF_N (400000), TANDEM_BENCH_DIR (parent of the temporary
# directory, default /tmp), TANDEM_DIST (the distribution), TANDEM_JAVA_OPTS (default -Xmx1g -XX:+UseZGC, as the
# distribution), DOC (default docs/benchmarks.md of this repository). About five minutes on two cores.
set -euo pipefail

module=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
# shellcheck source=bench-lib.sh
source "$module/bench-lib.sh"
bench_paths
N=${N:-100000}
PASSES=${PASSES:-4}
CLIFF_N=${CLIFF_N:-400000}

[[ -x $dist/bin/tandem ]] || die "$dist/bin/tandem not found: build the distribution first (mvn -B install)"
for tool in redis-server redis-benchmark redis-cli java; do
  command -v "$tool" > /dev/null || die "$tool is not on the PATH"
done
(( PASSES >= 2 )) || die "PASSES must be at least 2"
bench_workdir aging-store
results=$work/results
mkdir -p "$results"

# The mixed load, one command a line: a label, the share of N it runs, then the command (redis-benchmark draws a
# fresh number in 0..99,999 for each __rand_int__); every key name starts with $1.
value=$(printf 'v%.0s' {1..64})
mixed_load() {
  local p=$1
  cat << EOF
SET|1|SET ${p}s:__rand_int__ $value
INCRBY|1|INCRBY ${p}c:__rand_int__ 7
SET PX|1|SET ${p}e:__rand_int__ $value PX 2000
HSET|1|HSET ${p}hash f:__rand_int__ v:__rand_int__
HINCRBY|1|HINCRBY ${p}hash n:__rand_int__ 3
HDEL|1|HDEL ${p}hash f:__rand_int__
HSET per key|1|HSET ${p}user:__rand_int__ name v:__rand_int__ visits __rand_int__
LPUSH|1|LPUSH ${p}list v:__rand_int__
RPOP|2|RPOP ${p}list
SADD|1|SADD ${p}set m:__rand_int__
SREM|1|SREM ${p}set m:__rand_int__
SPOP|4|SPOP ${p}set
ZADD|1|ZADD ${p}zset __rand_int__ m:__rand_int__
ZINCRBY|1|ZINCRBY ${p}zset __rand_int__ m:__rand_int__
ZREM|1|ZREM ${p}zset m:__rand_int__
ZPOPMIN|4|ZPOPMIN ${p}zset
EOF
}
mixed=$(mixed_load "")

# calls_and_usec PORT COMMAND: "calls usec" of COMMAND in INFO commandstats ("0 0" before its first call)
calls_and_usec() {
  redis-cli -h 127.0.0.1 -p "$1" INFO commandstats | tr -d '\r' \
    | awk -F'[:=,]' -v c="cmdstat_$2" '$1 == c { print $3, $5; found = 1 } END { if (!found) print 0, 0 }'
}

# run PORT N CSV LABEL ARGS...: one redis-benchmark run of N requests (ARGS: -t NAME, or a command); appends
# "LABEL,requests/s,server µs per call" to CSV, the last from the command's INFO commandstats before and after
run() {
  local port=$1 n=$2 csv=$3 label=$4 name rps calls0 usec0 calls1 usec1 us
  shift 4
  if [[ $1 == -t ]]; then name=$2; else name=${1,,}; fi
  read -r calls0 usec0 <<< "$(calls_and_usec "$port" "$name")"
  rps=$(redis-benchmark -h 127.0.0.1 -p "$port" -P 16 -c 50 -r 100000 -n "$n" --csv "$@" \
    | awk -F'","' 'NR == 2 { print $2 }')
  read -r calls1 usec1 <<< "$(calls_and_usec "$port" "$name")"
  us=$(awk -v c="$((calls1 - calls0))" -v u="$((usec1 - usec0))" 'BEGIN { if (c > 0) printf "%.1f", u / c }')
  echo "$label,$rps,$us" >> "$csv"
  printf '  %-14s %10.0f req/s %8s us/call\n' "$label" "$rps" "$us"
}

# warm PORT N: a discarded run of ZADD on a sorted set of its own, so that the measured ones find the JIT warm
warm() {
  redis-benchmark -h 127.0.0.1 -p "$1" -P 16 -c 50 -r 100000 -n "$2" -q ZADD warm __rand_int__ m:__rand_int__ \
    > /dev/null
}

# best_of_two PORT N CSV LABEL ARGS...: run twice with N/2 requests; appends the higher rate and the lower µs per
# call to CSV (another process that takes the CPU for a while lowers one run, not both)
best_of_two() {
  local port=$1 n=$2 csv=$3 label=$4 halves=$work/halves.csv
  shift 4
  rm -f "$halves"
  run "$port" $((n / 2)) "$halves" "$label" "$@" > /dev/null
  run "$port" $((n / 2)) "$halves" "$label" "$@" > /dev/null
  awk -F, -v l="$label" '
    NR == 1 || $2 > r { r = $2 } NR == 1 || ($3 != "" && $3 < u) { u = $3 }
    END { print l "," r "," u; printf "  %-14s %10.0f req/s %8s us/call\n", l, r, u > "/dev/stderr" }' "$halves" \
    >> "$csv"
}

cliff() { # SYSTEM START_FUNCTION: fresh ZADD, then on a new server 3 x LPUSH and 3 x ZADD
  local system=$1 start=$2 port i
  free_port port
  "$start" "$system-fresh" "$port"
  await "$system-fresh" 60 answers_ping "$port"
  warm "$port" $((CLIFF_N / 4))
  echo "== $system, fresh server: ZADD x $CLIFF_N"
  run "$port" "$CLIFF_N" "$results/$system-cliff.csv" "ZADD fresh" -t zadd
  stop "$system-fresh"
  free_port port
  "$start" "$system-aged" "$port"
  await "$system-aged" 60 answers_ping "$port"
  warm "$port" $((CLIFF_N / 4))
  echo "== $system, fresh server: 3 x LPUSH x $CLIFF_N onto one list, then 3 x ZADD x $CLIFF_N"
  for i in 1 2 3; do
    run "$port" "$CLIFF_N" "$results/$system-cliff.csv" "LPUSH $i" -t lpush
  done
  for i in 1 2 3; do
    run "$port" "$CLIFF_N" "$results/$system-cliff.csv" "ZADD $i" -t zadd
  done
  stop "$system-aged"
}

aging() { # SYSTEM START_FUNCTION: PASSES passes of the mixed load on one server
  local system=$1 start=$2 port pass label share command
  free_port port
  "$start" "$system-mixed" "$port"
  await "$system-mixed" 60 answers_ping "$port"
  echo "== $system, mixed load, warm-up on keys of its own (N/4)"
  while IFS='|' read -r label share command; do
    # shellcheck disable=SC2086 # the command's words are redis-benchmark's arguments
    redis-benchmark -h 127.0.0.1 -p "$port" -P 16 -c 50 -r 100000 -n $((N / 4 / share)) -q $command > /dev/null
  done <<< "$(mixed_load warm-)"
  for ((pass = 1; pass <= PASSES; pass++)); do
    echo "== $system, mixed load, pass $pass of $PASSES"
    while IFS='|' read -r label share command; do
      # shellcheck disable=SC2086 # the command's words are redis-benchmark's arguments
      best_of_two "$port" $((N / share)) "$results/$system-pass$pass.csv" "$label" $command
    done <<< "$mixed"
  done
  redis-cli -h 127.0.0.1 -p "$port" info keyspace | tr -d '\r' | grep '^db0' > "$results/$system-keyspace.txt" || true
  stop "$system-mixed"
}

tandem_node() { tandem_start "$1" "$2" 0; }
redis_always() { redis_start "$1" "$2" --appendonly yes --appendfsync always; }

cliff tandem tandem_node
aging tandem tandem_node
cliff redis redis_always
aging redis redis_always

rate() { # CSV LABEL: requests/s
  awk -F, -v l="$2" '$1 == l { print $2; exit }' "$1"
}
usec() { # CSV LABEL: server µs per call
  awk -F, -v l="$2" '$1 == l { print $3; exit }' "$1"
}

failed=0
cliff_table=$work/cliff.md
{
  echo "| system | ZADD, fresh | LPUSH 1 | LPUSH 2 | LPUSH 3 | ZADD 1 | ZADD 2 | ZADD 3 | last ZADD / fresh |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  for system in tandem redis; do
    csv=$results/$system-cliff.csv
    row="| $system"
    for label in "ZADD fresh" "LPUSH 1" "LPUSH 2" "LPUSH 3" "ZADD 1" "ZADD 2" "ZADD 3"; do
      row="$row | $(fmt "$(rate "$csv" "$label")")"
    done
    r=$(ratio "$(rate "$csv" "ZADD 3")" "$(rate "$csv" "ZADD fresh")")
    echo "$row | $r |"
    if [[ $system == tandem ]] && awk -v r="$r" 'BEGIN { exit !(r == "n/a" || r < 0.5) }'; then
      failed=1
    fi
  done
} > "$cliff_table"

# pass_table FIELD: the mixed load per command, pass and system, as FIELD (rate: requests/s, with first / last;
# usec: server µs per call, with last / first); a Tandem rate that fell by more than 2x sets $failed
pass_table() {
  local field=$1 header="| command" rule="|---" system pass label share command row first last r
  for system in Tandem Redis; do
    for ((pass = 1; pass <= PASSES; pass++)); do
      header="$header | $system $pass"
      rule="$rule|---:"
    done
    header="$header | $system $([[ $field == rate ]] && echo "first / last" || echo "last / first")"
    rule="$rule|---:"
  done
  echo "$header |"
  echo "$rule|"
  while IFS='|' read -r label share command; do
    row="| \`${command//$value/<64 bytes>}\`"
    [[ $share == 1 ]] || row="$row (N/$share)"
    for system in tandem redis; do
      for ((pass = 1; pass <= PASSES; pass++)); do
        r=$("$field" "$results/$system-pass$pass.csv" "$label")
        row="$row | $([[ $field == rate ]] && fmt "$r" || echo "${r:-n/a}")"
      done
      first=$("$field" "$results/$system-pass1.csv" "$label")
      last=$("$field" "$results/$system-pass$PASSES.csv" "$label")
      if [[ $field == rate ]]; then
        r=$(ratio "$first" "$last")
        if [[ $system == tandem ]] && awk -v r="$r" 'BEGIN { exit !(r == "n/a" || r > 2) }'; then
          failed=1
        fi
      else
        r=$(ratio "$last" "$first")
      fi
      row="$row | $r"
    done
    echo "$row |"
  done <<< "$mixed"
}
mixed_table=$work/mixed.md
pass_table rate > "$mixed_table"
usec_table=$work/usec.md
pass_table usec > "$usec_table"

if ((failed)); then
  verdict="**Not met**: a Tandem command fell by more than 2x from the first pass to the last, or the LPUSH-then-ZADD
case fell below half the fresh-store rate."
else
  verdict="Met: no Tandem command fell by more than 2x from the first pass to the last, and the LPUSH-then-ZADD case
kept at least half its fresh-store rate."
fi

keyspace() { cat "$results/$1-keyspace.txt" 2> /dev/null || true; }
section=$work/section.md
{
  echo "## An aging store: mixed types in passes (run-aging-store.sh)"
  echo
  echo "\`itests/benchmarks/run-aging-store.sh\` (N=$N, PASSES=$PASSES, CLIFF_N=$CLIFF_N): Tandem on its defaults"
  echo "(\`$TANDEM_JAVA_OPTS\`; every write journaled with group-commit \`fdatasync\` before its answer), then Redis"
  echo "with \`appendonly yes\`, \`appendfsync always\` (no RDB saves, no automatic AOF rewrite), one server at a time;"
  echo "requests/s of \`redis-benchmark -P 16 -c 50 -r 100000\` (higher is better)."
  echo
  echo "The LPUSH-then-ZADD case, each column one run of $CLIFF_N requests (\`-t lpush\`, \`-t zadd\`); the fresh"
  echo "ZADD on a server of its own; each server first took $((CLIFF_N / 4)) discarded ZADDs on another key:"
  echo
  cat "$cliff_table"
  echo
  echo "The mixed load on one server, in passes after a discarded warm-up on keys of its own (each command N=$N"
  echo "requests unless marked, in two runs of half as many of which the better counts, so that another process on"
  echo "the machine lowers one run rather than the figure; the columns are the passes; first / last above 2 would"
  echo "mean the store slowed down as it aged). Left at the end: Tandem \`$(keyspace tandem)\`, Redis"
  echo "\`$(keyspace redis)\`."
  echo
  cat "$mixed_table"
  echo
  echo "The same runs, in server µs per call (\`INFO commandstats\`: the time a command took where the server ran"
  echo "it, which a busy machine disturbs less than the rates; lower is better, last / first above 2 would be the"
  echo "same slowdown):"
  echo
  cat "$usec_table"
  echo
  echo "$verdict"
  machine_section
} > "$section"

echo
cat "$cliff_table"
echo
cat "$mixed_table"
echo
cat "$usec_table"
echo
echo "$verdict"
replace_section "$doc" aging-store "$section"
echo
echo "results written to $doc"
exit "$failed"
