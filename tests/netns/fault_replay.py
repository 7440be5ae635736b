#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Replay of a recorded, authenticated ovlperf control session
(test_fault_replay.sh). The wire helpers are hostile_client.py's.

    fault_replay.py record LADDR LPORT SERVER SPORT OUT
        relays one control connection to SERVER:SPORT and writes what the
        client sent to OUT (all bytes) and OUT.auth (its AUTH_RESPONSE)
    fault_replay.py auth HOST PORT OUT      new session, the recorded AUTH_RESPONSE
    fault_replay.py session HOST PORT OUT   the recorded client bytes, all of them
Prints the server's replies, one per line (ERROR <code> <text>, CLOSED, ...).
"""
import os
import select
import socket
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile_client as h  # noqa: E402


def record(laddr, lport, server, sport, out):
    ls = socket.socket(socket.AF_INET6 if ":" in laddr else socket.AF_INET)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((laddr, lport))
    ls.listen(1)
    ls.settimeout(20)
    print("listening", flush=True)
    c, _ = ls.accept()
    ls.close()
    s = h.connect(server, sport)
    sent = b""
    while True:
        r, _, _ = select.select([c, s], [], [], 10)
        if not r:
            break
        done = False
        for x in r:
            try:
                d = x.recv(65536)
            except ConnectionResetError:
                d = b""
            if not d:
                done = True
                break
            (s if x is c else c).sendall(d)
            if x is c:
                sent += d
        if done:
            break
    open(out, "wb").write(sent)
    # the AUTH_RESPONSE among the client's messages
    off = 0
    while off + 12 <= len(sent):
        magic, _, mtype, n = struct.unpack(">IHHI", sent[off:off + 12])
        if magic != h.MAGIC:
            break
        if mtype == h.AUTH_RESPONSE:
            open(out + ".auth", "wb").write(sent[off:off + 12 + n])
            print("recorded AUTH_RESPONSE of %d bytes" % n)
            return 0
        off += 12 + n
    print("no AUTH_RESPONSE in %d bytes" % len(sent))
    return 1


def replies(s):
    while True:
        m = h.read_msg(s, timeout=5)
        print(h.describe(m), flush=True)
        if m is None or m[0] in (h.ERROR, h.REJECT):
            return


def main():
    mode = sys.argv[1]
    if mode == "record":
        return record(sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), sys.argv[6])
    host, port, out = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    s = h.connect(host, port)
    if mode == "auth":
        h.after_hello(s)
        m = h.read_msg(s)
        if m is None or m[0] != h.CHALLENGE:
            print("NO-CHALLENGE", h.describe(m))
            return 1
        s.sendall(open(out + ".auth", "rb").read())
    else:
        s.sendall(open(out, "rb").read())
    replies(s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
