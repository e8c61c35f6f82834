#!/usr/bin/env bash
# Builds the JMH benchmarks jar (profile "benchmarks" of this module) and runs JournalAppendBenchmark: the journal's
# group-commit append next to a raw sequential write + fdatasync of the same bytes, in one JMH run. Prints a table
# and replaces the "jmh" section of docs/benchmarks.md with it and a description of the machine.
#
#   itests/benchmarks/run-jmh.sh [JMH OPTIONS...]     e.g.  -wi 1 -i 2 (quicker, rougher)
#
# Environment: TANDEM_BENCH_DIR  directory for the benchmark files (default /tmp): pick the disk to measure.
#              SKIP_BUILD=1      use the existing target/benchmarks.jar.
#              PAYLOADS="64 1024", BATCHES="16 256"  the parameter values (one JMH run per pair).
#              DOC=FILE          where to write the results (default docs/benchmarks.md of this repository).
# Default run: 1 fork, 3 warm-up + 5 measured iterations of 2 s, 8 combinations: about 3 minutes.
set -euo pipefail

module=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
# shellcheck source=bench-lib.sh
source "$module/bench-lib.sh"

if [[ ${SKIP_BUILD:-} != 1 ]]; then
  echo "building $module/target/benchmarks.jar ..."
  # offline first (another build may be running); online only when an artifact is missing
  mvn -B -q -o -f "$module/pom.xml" -Pbenchmarks package || mvn -B -q -f "$module/pom.xml" -Pbenchmarks package
fi
jar=$module/target/benchmarks.jar
[[ -f $jar ]] || { echo "run-jmh: $jar is missing" >&2; exit 2; }

base=${TANDEM_BENCH_DIR:-/tmp}
mkdir -p "$base"
work=$(mktemp -d "$base/tandem-jmh.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TANDEM_BENCH_DIR=$work

# one JMH invocation per (payload, batch), running journal and then raw, so that each pair is measured minutes
# apart at most: this machine's fdatasync rate drifts over a run
payloads=${PAYLOADS:-64 1024}
batches=${BATCHES:-16 256}
first=1
for p in $payloads; do
  for b in $batches; do
    java -jar "$jar" JournalAppendBenchmark -p payload="$p" -p batch="$b" -rf csv -rff "$work/jmh-$p-$b.csv" "$@" \
      | tee -a "$work/jmh.log"
    if ((first)); then head -n 1 "$work/jmh-$p-$b.csv" > "$work/jmh.csv"; first=0; fi
    tail -n +2 "$work/jmh-$p-$b.csv" >> "$work/jmh.csv"
  done
done

# Benchmark,Mode,Threads,Samples,Score,Error,Unit,batch,payload -> one line per (payload, batch)
table=$work/table.md
awk -F',' '
  NR == 1 { next }
  {
    gsub(/"/, "")
    n = split($1, parts, ".")
    name = parts[n]
    key = $9 SUBSEP $8
    keys[key] = 1
    score[name] = 1
    value[name, key] = $5
    error[name, key] = $6
  }
  END {
    print "| payload (B) | batch | on-disk B/record | journal records/s | journal MB/s | raw records/s | raw MB/s | raw fdatasync/s | journal / raw |"
    print "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    m = 0
    for (k in keys) sorted[++m] = k
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) {
      split(sorted[i], a, SUBSEP); split(sorted[j], b, SUBSEP)
      if (a[1] + 0 > b[1] + 0 || (a[1] == b[1] && a[2] + 0 > b[2] + 0)) { t = sorted[i]; sorted[i] = sorted[j]; sorted[j] = t }
    }
    for (i = 1; i <= m; i++) {
      k = sorted[i]; split(k, pb, SUBSEP)
      jr = value["journal:records", k]; jb = value["journal:bytes", k]
      rr = value["raw:records", k]; rb = value["raw:bytes", k]; rs = value["raw", k]
      per = (jr > 0) ? jb / jr : (rr > 0 ? rb / rr : 0)
      printf "| %d | %d | %.0f | %s | %s | %s | %s | %s | %s |\n", pb[1], pb[2], per,
        (jr == "" ? "n/a" : sprintf("%.0f", jr)), (jb == "" ? "n/a" : sprintf("%.1f", jb / 1e6)),
        (rr == "" ? "n/a" : sprintf("%.0f", rr)), (rb == "" ? "n/a" : sprintf("%.1f", rb / 1e6)),
        (rs == "" ? "n/a" : sprintf("%.0f", rs)),
        (jr == "" || rr == "" || rr == 0 ? "n/a" : sprintf("%.2f", jr / rr))
    }
  }' "$work/jmh.csv" > "$table"

section=$work/section.md
{
  echo "## Journal append (JMH)"
  echo
  echo "\`itests/benchmarks/run-jmh.sh${*:+ $*}\`: \`JournalAppendBenchmark\`, JMH 1.37, 1 fork, 3 warm-up and"
  echo "5 measured iterations of 2 s, one thread. \`journal\` appends *batch* entries (a SET command of *payload*"
  echo "bytes each) through \`SegmentedJournal\` with its default settings and waits until the last one is durable;"
  echo "\`raw\` writes the same bytes (the encoded entries) with one \`FileChannel\` write and one \`force(false)\`"
  echo "(\`fdatasync\`) per batch. Both append to a new file per iteration in the same directory; each"
  echo "(payload, batch) pair is one JMH run, journal then raw, so that the two are measured within a minute. MB/s counts"
  echo "on-disk bytes (payload + 41 bytes of entry header and CRC), 10^6 bytes per MB."
  echo
  cat "$table"
  machine_footer
} > "$section"
publish "$section" jmh
