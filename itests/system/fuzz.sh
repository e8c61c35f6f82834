#!/usr/bin/env bash
# The differential fuzzer on demand: fresh seeds for a time budget against a real Redis 7 and a Tandem primary with a
# journal replica and a psync replica (tandem.system.fuzz.FuzzMain); writes its figures and findings into the
# "fuzz-run" section of docs/fuzzing.md and exits non-zero when it found anything (1) or could not run (2).
#
#   itests/system/fuzz.sh [--minutes N] [--seed S] [--commands-per-seed M] [--tolerate all|ID,…] [--no-build]
#
# --minutes N            time budget (default 10); the run ends with the digest comparison of the replicas
# --seed S               the first seed (default: from the clock); seeds S, S+1, … follow until the budget is spent
# --commands-per-seed M  commands per seed (default 1,000,000)
# --tolerate all|IDs     known findings (itests/system/src/test/java/tandem/system/fuzz/KnownFindings.java) to
#                        report without failing
# --no-build             skip `mvn package` (the distribution and the test classes must be built already)
#
# Needs redis-server 7 on the PATH. The nodes run with TandemNode's bounded heaps, under
# itests/system/target/fuzz-nodes/; they are stopped at the end, and their homes deleted unless the run found
# something. Episodes that a finding came from but that did not replay are written to target/fuzz-dumps/.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=yes
args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --no-build) build=no; shift ;;
    --minutes|--seed|--commands-per-seed|--tolerate)
      [[ $# -ge 2 ]] || { echo "$1 needs a value" >&2; exit 2; }
      args+=("$1" "$2"); shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done

command -v redis-server > /dev/null || { echo "redis-server is not installed" >&2; exit 2; }
cd "$root"
if [[ $build == yes ]]; then
  mvn -B -q -o package -DskipTests
fi
classpath_file="$here/target/fuzz-classpath.txt"
mvn -B -q -o -pl itests/system dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$classpath_file" > /dev/null
[[ -d $here/target/test-classes/tandem/system/fuzz ]] || { echo "test classes missing: build first" >&2; exit 2; }
rm -rf "$here/target/fuzz-nodes" "$here/target/fuzz-dumps" # the previous run's nodes (kept when it found something)

exec java -Xmx512m -cp "$here/target/test-classes:$(cat "$classpath_file")" \
  -Dtandem.dist="$root/distribution/target/tandem" -Dtandem.test.dir="$here/target/fuzz-nodes" \
  tandem.system.fuzz.FuzzMain --out "$root/docs/fuzzing.md" "${args[@]}"
