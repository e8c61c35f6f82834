"""redis-py listening to a node's keyspace notifications: keyspace_listener.py PORT COUNT.

Turns notifications on (CONFIG SET notify-keyspace-events KEA), subscribes to every key event, prints "ready",
then one line "channel data" per notification until COUNT have come or 20 seconds have passed.
"""
import sys
import time

import redis

port, count = int(sys.argv[1]), int(sys.argv[2])
r = redis.Redis(host="127.0.0.1", port=port, socket_timeout=10)
r.config_set("notify-keyspace-events", "KEA")
p = r.pubsub()
p.psubscribe("__keyevent@0__:*")
while p.get_message(timeout=5) is None:  # the confirmation
    pass
print("ready", flush=True)
got = 0
deadline = time.time() + 20
while got < count and time.time() < deadline:
    m = p.get_message(ignore_subscribe_messages=True, timeout=1)
    if m:
        print(m["channel"].decode(), m["data"].decode(), flush=True)
        got += 1
