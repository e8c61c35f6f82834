#!/usr/bin/python3
"""Writes src/main/resources/tandem/server/command/redis-7.0-commands.resp: what a real Redis 7.0 answers, in RESP3,
to COMMAND INFO and to COMMAND DOCS (two replies, one after the other, as the server sent them). Tandem answers
COMMAND INFO, DOCS, LIST and GETKEYS for its commands from these (RedisCommandTable). Run it against a
redis-server 7.0 (Debian bookworm's 7.0.15) when the table should follow another release:

    redis-server --port 7391 --save '' --daemonize yes && ./redis-command-table.py 7391
"""
import os
import socket
import sys

port = int(sys.argv[1]) if len(sys.argv) > 1 else 6379
s = socket.create_connection(("127.0.0.1", port))
f = s.makefile("rb")


def value(out):
    """Copies one RESP3 value from the server to out (bytes as they came) and returns nothing."""
    line = f.readline()
    out += line
    kind, rest = line[:1], line[1:-2]
    if kind in (b"$", b"=", b"!"):
        n = int(rest)
        if n >= 0:
            out += f.read(n + 2)
    elif kind in (b"*", b"~", b">"):
        for _ in range(int(rest)):
            value(out)
    elif kind in (b"%", b"|"):
        for _ in range(2 * int(rest)):
            value(out)


s.sendall(b"HELLO 3\r\n")
value(bytearray())
s.sendall(b"INFO server\r\n")
info = bytearray()
value(info)
version = [l for l in info.decode().split("\r\n") if l.startswith("redis_version:")][0]
s.sendall(b"COMMAND INFO\r\nCOMMAND DOCS\r\n")
out = bytearray()
value(out)
value(out)
path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                    "src/main/resources/tandem/server/command/redis-7.0-commands.resp")
with open(path, "wb") as w:
    w.write(out)
print(version, len(out), "bytes to", path)
