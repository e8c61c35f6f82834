"""The drop-in features as redis-py 5+ uses them, in RESP2 or RESP3: run against Redis and against Tandem, the lines
it prints must be the same. Arguments: port, protocol (2 or 3). Needs redis-py >= 5 on the path (.ci/test unpacks
trixie's python3-redis and the test sets PYTHONPATH)."""
import sys
import time
import warnings

import redis

port, protocol = int(sys.argv[1]), int(sys.argv[2])
warnings.simplefilter("ignore", DeprecationWarning)  # HMSET, deprecated and still sent by applications


def out(*parts):
    print(*parts, flush=True)


r = redis.Redis(host="127.0.0.1", port=port, db=3, protocol=protocol, decode_responses=True)
r.flushall()
info = r.client_info()
out("connected", redis.__version__.split(".")[0] >= "5", "resp", info.get("resp"), "db", info.get("db"))

# replies as redis-py turns them into Python values: RESP3 maps, sets, doubles; RESP2 lists and strings
r.hmset("h", {"a": "1", "b": "two", "c": "3.5"})
out("hgetall", repr(r.hgetall("h")))
out("hrandfield", sorted(r.hrandfield("h", 10)))
r.zadd("z", {"m1": 1.5, "m2": -2, "m3": 1e100})
out("zscore", repr(r.zscore("z", "m1")), repr(r.zrange("z", 0, -1, withscores=True)))
out("zscore raw", repr(r.execute_command("ZSCORE", "z", "m3")))
r.sadd("s", "x")
out("smembers", repr(r.smembers("s")))
out("config", repr(r.config_get("notify-keyspace-events")))
out("incrbyfloat", repr(r.incrbyfloat("f", 0.25)))

# DUMP and RESTORE, the way migration tools copy keys
payload = r.dump("h")
out("restore", r.restore("h2", 0, payload), sorted(r.hgetall("h2").items()))
try:
    r.restore("h2", 0, payload)
except redis.exceptions.ResponseError as e:
    out("restore busy", str(e))

# keyspace notifications in database 3
r.config_set("notify-keyspace-events", "KEA")
p = r.pubsub()
p.psubscribe("__keyspace@3__:*")
deadline = time.time() + 10
while p.get_message(timeout=1) is None and time.time() < deadline:
    pass  # the psubscribe confirmation
r.set("k", "v")
r.expire("k", 100)
r.delete("k")
heard = []
while len(heard) < 3 and time.time() < deadline:
    m = p.get_message(timeout=1)
    if m and m["type"] == "pmessage":
        heard.append(m["channel"] + " " + m["data"])
out("notified", heard)
p.close()
r.config_set("notify-keyspace-events", "")

# client-side caching, as a client library keeps it: tracking redirected to a second connection that hears the
# invalidations (a message on __redis__:invalidate in RESP2, an invalidate push in RESP3). redis-py's own cache
# (cache_config) refuses any server before Redis 7.4, so it cannot run against Redis 7.0 or Tandem.
listener = redis.Redis(host="127.0.0.1", port=port, db=3, protocol=protocol, decode_responses=True, socket_timeout=10,
                       single_connection_client=True)
listener_id = listener.client_id()
if protocol == 2:
    listener.connection.send_command("SUBSCRIBE", "__redis__:invalidate")
    out("listening", listener.connection.read_response())
else:
    listener.connection._parser.set_invalidation_push_handler(lambda push: push)  # hand the push back as the reply
tracker = redis.Redis(host="127.0.0.1", port=port, db=3, protocol=protocol, decode_responses=True,
                      single_connection_client=True)
out("tracking", tracker.client_tracking_on(clientid=listener_id), tracker.client_getredir() == listener_id)
r.set("c", "one")
out("cached", tracker.get("c"))
r.set("c", "two")
out("invalidated", listener.connection.read_response(push_request=True))
tracker.close()
listener.close()
out("done")
