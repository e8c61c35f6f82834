#!/usr/bin/env python3
"""Records a golden transcript (src/test/resources/golden/*.golden) from a live Redis.

Reads commands, one a line, in Harness.split's form (tokens apart by spaces; a double-quoted token may hold spaces
or be empty; \\\\ is a backslash; a token written hex:<digits> is those bytes, for HllTest's binary transcript),
sends each on one connection as a RESP array, and writes "command => raw RESP2 reply", the reply escaped as
RespRecorder.escape does. Lines that are blank or start with '#' are copied as they are.

    redis-server --port 7392 --bind 127.0.0.1 --save '' --daemonize yes --pidfile /tmp/r.pid --dir /tmp
    ./record-golden.py --port 7392 < commands.txt > src/test/resources/golden/name.golden
"""
import argparse
import socket
import sys


def split(line):
    out, i, n = [], 0, len(line)
    while i < n:
        if line[i] == ' ':
            i += 1
            continue
        t = []
        if line[i] == '"':
            i += 1
            while line[i] != '"':
                t.append(line[i])
                i += 1
            i += 1
        else:
            while i < n and line[i] != ' ':
                d = line[i]
                i += 1
                if d == '\\' and i < n and line[i] == '\\':
                    i += 1
                t.append(d)
        out.append(''.join(t))
    return out


def arg_bytes(token):
    if token.startswith('hex:'):
        return bytes.fromhex(token[4:])
    return token.encode('utf-8')


def escape(b):
    s = []
    for c in b:
        if c == 13:
            s.append('\\r')
        elif c == 10:
            s.append('\\n')
        elif c == 92:
            s.append('\\\\')
        elif c < 0x20 or c >= 0x7f:
            s.append('\\x%02x' % c)
        else:
            s.append(chr(c))
    return ''.join(s)


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(('127.0.0.1', port))
        self.buf = b''

    def send(self, args):
        out = [b'*%d\r\n' % len(args)]
        for a in args:
            out.append(b'$%d\r\n%s\r\n' % (len(a), a))
        self.s.sendall(b''.join(out))

    def _fill(self):
        chunk = self.s.recv(65536)
        if not chunk:
            raise EOFError('connection closed')
        self.buf += chunk

    def _line(self, pos):
        while True:
            end = self.buf.find(b'\r\n', pos)
            if end >= 0:
                return end
            self._fill()

    def _value_end(self, pos):
        end = self._line(pos)
        kind, head = self.buf[pos:pos + 1], self.buf[pos + 1:end]
        after = end + 2
        if kind in (b'+', b'-', b':'):
            return after
        n = int(head)
        if kind == b'$':
            if n < 0:
                return after
            while len(self.buf) < after + n + 2:
                self._fill()
            return after + n + 2
        if kind == b'*':
            for _ in range(max(n, 0)):
                after = self._value_end(after)
            return after
        raise ValueError('unexpected reply type %r' % kind)

    def reply(self):
        end = self._value_end(0)
        raw, self.buf = self.buf[:end], self.buf[end:]
        return raw


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--port', type=int, default=6379)
    port = p.parse_args().port
    c = Conn(port)
    for line in sys.stdin.read().splitlines():
        if not line.strip() or line.startswith('#'):
            print(line)
            continue
        c.send([arg_bytes(t) for t in split(line)])
        print('%s => %s' % (line, escape(c.reply())))


if __name__ == '__main__':
    main()
