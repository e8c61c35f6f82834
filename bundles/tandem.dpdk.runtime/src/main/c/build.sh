#!/usr/bin/env bash
# Builds Tandem's DPDK shim into <outdir> (the pom passes target/classes/native/linux-x86_64, so bnd packs it):
#   libtandem-dpx.so     dpx.c + DPDK linked statically; exports dpx_* only; -z nodelete (never unmapped, because
#                        eal-intr-thread runs its code for the life of the process)
#   libtandem-dpxjni.so  the JNI glue, DT_NEEDED libtandem-dpx.so found next to it ($ORIGIN); every bundle
#                        generation loads its own copy, all bound to the one libtandem-dpx.so of the process
# A script rather than pom arguments because the compiler flags come from `pkg-config --cflags libdpdk`.
# Requires: gcc, pkg-config, libdpdk-dev (static librte_*.a), libnuma-dev, libbsd-dev; JAVA_HOME = a JDK root.
set -euo pipefail

out=${1:?usage: build.sh <outdir>}
here=$(cd "$(dirname "$0")" && pwd)
: "${JAVA_HOME:?JAVA_HOME must name a JDK root (the pom passes java.home)}"
mkdir -p "$out"

core="$out/libtandem-dpx.so"
glue="$out/libtandem-dpxjni.so"

# Incremental: nothing to do when both libraries are newer than every input.
if [[ -f "$core" && -f "$glue" ]]; then
  stale=0
  for f in "$here"/dpx.c "$here"/dpx.h "$here"/dpxjni.c "$here"/dpx.map "$here"/build.sh; do
    if [[ "$f" -nt "$core" || "$f" -nt "$glue" ]]; then stale=1; fi
  done
  if [[ $stale == 0 ]]; then
    echo "tandem-dpx: up to date in $out"
    exit 0
  fi
fi

cflags=(-O2 -g0 -fPIC -Wall -Wextra -Wno-unused-parameter)

# Whole-archive: DPDK registers buses, drivers and mempool ops from constructors, which a plain static link would
# drop as unreferenced (without librte_mempool_ring every mbuf pool fails). Only what net_memif needs is linked.
# shellcheck disable=SC2046 # pkg-config's output is a list of words by design
gcc "${cflags[@]}" -shared -o "$core.tmp" "$here/dpx.c" $(pkg-config --cflags libdpdk) \
  -Wl,-soname,libtandem-dpx.so -Wl,--version-script="$here/dpx.map" -Wl,-z,nodelete -Wl,-z,defs \
  -Wl,--whole-archive \
    -l:librte_eal.a -l:librte_kvargs.a -l:librte_telemetry.a -l:librte_ring.a -l:librte_mempool.a \
    -l:librte_mbuf.a -l:librte_net.a -l:librte_meter.a -l:librte_ethdev.a -l:librte_bus_vdev.a \
    -l:librte_hash.a -l:librte_rcu.a -l:librte_mempool_ring.a -l:librte_net_memif.a \
  -Wl,--no-whole-archive -Wl,--as-needed -lnuma -lbsd -lpthread -ldl -lm
mv "$core.tmp" "$core"

gcc "${cflags[@]}" -shared -o "$glue.tmp" "$here/dpxjni.c" \
  -I"$JAVA_HOME/include" -I"$JAVA_HOME/include/linux" \
  -L"$out" -l:libtandem-dpx.so -Wl,-rpath,'$ORIGIN' -Wl,-z,defs
mv "$glue.tmp" "$glue"

echo "tandem-dpx: built $core ($(stat -c %s "$core") bytes) and $glue"
