#!/usr/bin/env bash
# The time to a writable primary after kill -9 of the primary, on demand: FailoverTimesSystemTest with TRIALS kills
# per profile (the defaults, and detection tuned: down.after.ms=500, lease.ms=300, report.interval.ms=50), measured
# at Jedis's JedisSentinelPool, Lettuce's Sentinel RedisURI and redis-py's Sentinel as the longest time each went
# without an acknowledged write. Appends one row per profile and client (p50 / p99 / max ms) to the table in
# docs/failover.md (DOC=/dev/null skips that). CI runs the same test with one kill per profile.
#
#   itests/benchmarks/run-failover-times.sh
#
# Builds nothing: expects distribution/target/tandem and the installed test modules (mvn -B install). Environment:
# TRIALS (20), DOC. About 12 s a trial on 2 cores; run it on a quiet machine, since a loaded one stretches Raft's
# heartbeats and the figures with them.
set -euo pipefail

module=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
root=$(cd "$module/../.." && pwd)
doc=${DOC:-$root/docs/failover.md}
TRIALS=${TRIALS:-20}

[[ -x $root/distribution/target/tandem/bin/tandem ]] || {
  echo "distribution/target/tandem not found: build first (mvn -B install -DskipTests)" >&2
  exit 1
}
rows=$root/itests/system/target/failover-times.txt
rm -f "$rows"
(cd "$root" && mvn -B -o verify -pl itests/system -Dtest=FailoverTimesSystemTest \
  -Dsurefire.failIfNoSpecifiedTests=false -Dtandem.failover.times.trials="$TRIALS" \
  -Dtandem.failover.times.profiles=defaults,tuned)
cat "$rows"
if [[ $doc != /dev/null ]]; then
  # the rows go under the table's header, which ends the section "Time to a writable primary"
  python3 - "$doc" "$rows" <<'PY'
import sys
doc, rows = sys.argv[1], open(sys.argv[2]).read()
text = open(doc).read()
marker = "<!-- failover-times rows -->"
if marker not in text:
    sys.exit(f"{doc} has no line {marker}: the rows were not added")
open(doc, "w").write(text.replace(marker, rows.rstrip("\n") + "\n" + marker))
PY
  echo "appended to $doc"
fi
