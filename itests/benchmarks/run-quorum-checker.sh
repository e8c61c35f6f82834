#!/usr/bin/env bash
# The long quorum checker, on demand: QuorumCheckerSystemTest with TRIALS randomized trials per ack policy (kill -9,
# cut links, flapping, failover with the old primary audited), each followed by a check that every write the
# clients saw acknowledged is on the primary of the moment. Appends one row per policy to the table in
# docs/quorum-checker.md (DOC=/dev/null skips that). CI runs the same test with 12 trials per policy.
#
#   itests/benchmarks/run-quorum-checker.sh
#
# Builds nothing: expects distribution/target/tandem and the installed test modules (mvn -B install). Environment:
# TRIALS (1000), POLICIES ("disk+ram,two-disks"), SEED (20261203), HEAP of each node (512m), DOC. About 6 s a trial on 2 cores.
set -euo pipefail

module=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
root=$(cd "$module/../.." && pwd)
doc=${DOC:-$root/docs/quorum-checker.md}
TRIALS=${TRIALS:-1000}
POLICIES=${POLICIES:-disk+ram,two-disks}
SEED=${SEED:-20261203}
# every trial adds keys (each acknowledged write is a key of its own, ~750,000 after 1,000 trials), and the store
# keeps every key's header on the heap: the suite's 160 MB runs out near 700,000 keys during a snapshot install
HEAP=${HEAP:-512m}

[[ -x $root/distribution/target/tandem/bin/tandem ]] || {
  echo "distribution/target/tandem not found: build first (mvn -B install -DskipTests)" >&2
  exit 1
}
rows=$root/itests/system/target/quorum-checker.txt
rm -f "$rows"
(cd "$root" && mvn -B -o verify -pl itests/system -Dtest=QuorumCheckerSystemTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Dtandem.checker.trials="$TRIALS" -Dtandem.checker.policies="$POLICIES" -Dtandem.checker.seed="$SEED" \
  -Dtandem.node.heap="$HEAP")
cat "$rows"
if [[ $doc != /dev/null ]]; then
  cat "$rows" >> "$doc"
  echo "appended to $doc"
fi
