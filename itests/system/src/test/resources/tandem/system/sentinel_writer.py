"""A redis-py Sentinel client for AutoFailoverSystemTest: writes <name>:<n> through Sentinel(...).master_for(group)
until the stop file exists; writes how many were acknowledged to <progress> as it goes, then every acknowledged n to
<progress>.acked and prints its longest gap between two acknowledged writes. Every gap of 100 ms or more goes to
<progress>.gaps as it ends: "<gap ns> <end ns>", on the CLOCK_MONOTONIC that Java's System.nanoTime() reads too."""
import os
import sys
import time

from redis.sentinel import Sentinel

ports, group, name, progress, stop = sys.argv[1].split(","), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
sentinel = Sentinel([("127.0.0.1", int(p)) for p in ports], socket_timeout=1.0)
master = sentinel.master_for(group, socket_timeout=1.0)
acked, oks, errors, n = [], [], 0, 0
while not os.path.exists(stop):
    n += 1
    try:
        if master.set(f"{name}:{n}", str(n)):
            acked.append(n)
            now = time.monotonic_ns()
            if oks and now - oks[-1] >= 100_000_000:
                with open(progress + ".gaps", "a") as f:
                    f.write(f"{now - oks[-1]} {now}\n")
            oks.append(now)
            if len(acked) % 50 == 0:
                with open(progress + ".tmp", "w") as f:
                    f.write(str(len(acked)))
                os.replace(progress + ".tmp", progress)
    except Exception:  # the primary is changing: redis-py looks it up again on the next command
        errors += 1
        time.sleep(0.01)
with open(progress + ".acked", "w") as f:
    f.write(" ".join(map(str, acked)))
gap = max((b - a for a, b in zip(oks, oks[1:])), default=0)
print(f"acked={len(acked)} errors={errors} gap_ms={gap // 1_000_000}", flush=True)
