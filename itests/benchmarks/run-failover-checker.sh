#!/usr/bin/env bash
# The long failover checker, on demand: FailoverCheckerSystemTest with TRIALS randomized trials per ack policy
# (kill -9 of the primary, a replica or the Raft leader; a network partition cutting off the primary, a replica or
# the Raft leader; a pause of the primary long enough for a failover or too short for one; a pause of a replica; a
# slow disk under the primary or a replica; FAILOVER), the group failing over by itself, each trial followed by a
# check that every write the clients saw acknowledged is on the primary of the moment (under disk, lossy: counted).
# Appends one row per policy to the table in docs/failover-checker.md (DOC=/dev/null skips that); a run stopped
# early leaves its figures so far in itests/system/target/failover-checker-<policy>.progress. CI runs the same test
# with 5 trials per policy and a seed drawn per run. Runs as root (network namespaces, the blkio cgroup).
#
#   itests/benchmarks/run-failover-checker.sh
#
# Builds nothing: expects distribution/target/tandem and the installed test modules (mvn -B install). Environment:
# TRIALS (1000), POLICIES ("disk+ram,two-disks,disk"), SEED (drawn per run when empty), FAULTS (all when empty, or
# a comma-separated subset), ROUND (100: trials on one group before a fresh one starts; every trial checks every
# write its round acknowledged), HEAP of each node (512m), DOC. About 7 s a trial on 2 cores.
set -euo pipefail

module=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
root=$(cd "$module/../.." && pwd)
doc=${DOC:-$root/docs/failover-checker.md}
TRIALS=${TRIALS:-1000}
POLICIES=${POLICIES:-disk+ram,two-disks,disk}
SEED=${SEED:-}
FAULTS=${FAULTS:-}
ROUND=${ROUND:-100}
# every acknowledged write is a key of its own, and the store keeps every key's header on the heap
HEAP=${HEAP:-512m}

[[ -x $root/distribution/target/tandem/bin/tandem ]] || {
  echo "distribution/target/tandem not found: build first (mvn -B install -DskipTests)" >&2
  exit 1
}
rows=$root/itests/system/target/failover-checker.txt
rm -f "$rows"
seed=()
[[ -n $SEED ]] && seed=(-Dtandem.failover.checker.seed="$SEED")
(cd "$root" && mvn -B -o verify -pl itests/system -Dtest=FailoverCheckerSystemTest \
  -Dsurefire.failIfNoSpecifiedTests=false -Dtandem.failover.checker.trials="$TRIALS" \
  -Dtandem.failover.checker.policies="$POLICIES" -Dtandem.failover.checker.faults="$FAULTS" \
  -Dtandem.failover.checker.round="$ROUND" \
  -Dtandem.node.heap="$HEAP" ${seed[@]+"${seed[@]}"})
cat "$rows"
if [[ $doc != /dev/null ]]; then
  cat "$rows" >> "$doc"
  echo "appended to $doc"
fi
