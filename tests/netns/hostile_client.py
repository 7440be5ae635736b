#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A deliberately bad ovlperf control client for test_server_hostile.sh.

    hostile_client.py CASE HOST PORT

Sends one kind of bad input and prints what the server answered, one line:
    ERROR <code> <text> | REJECT <code> <text> | CLOSED | <TYPE> ...
The wire format is proto.h's: 12-byte header (magic "OVLC", u16 version,
u16 type, u32 length), big-endian bodies.
"""
import os
import socket
import struct
import sys
import time

MAGIC = 0x4F564C43
HELLO, CHALLENGE, AUTH_RESPONSE, AUTH_OK, TEST_REQUEST = 1, 2, 3, 4, 5
ACCEPT, REJECT, ERROR = 6, 7, 12
NAMES = {1: "HELLO", 2: "AUTH_CHALLENGE", 4: "AUTH_OK", 6: "TEST_ACCEPT", 7: "REJECT", 12: "ERROR"}


def msg(mtype, body, version=1, length=None):
    n = len(body) if length is None else length
    return struct.pack(">IHHI", MAGIC, version, mtype, n) + body


def hello():
    return msg(HELLO, struct.pack(">HHI32s", 1, 0, 0, b"hostile 0.0"))


def request(kind=1, streams=1, duration_s=1, rate=0, reverse=False):
    flags = 1 if reverse else 0
    body = struct.pack(">BBHHHIIIIQQQQ", kind, 0, flags, streams, 0, 0, 0, 0, 0,
                       int(duration_s * 1e9), 0, 0, rate)
    return msg(TEST_REQUEST, body)  # PROTO_TEST_REQUEST_LEN: 56


def read_msg(s, timeout=10.0):
    """Returns (type, body) or None when the server closed."""
    s.settimeout(timeout)
    buf = b""
    try:
        while len(buf) < 12:
            chunk = s.recv(12 - len(buf))
            if not chunk:
                return None
            buf += chunk
        magic, _, mtype, n = struct.unpack(">IHHI", buf)
        if magic != MAGIC:
            return ("BADMAGIC", b"")
        body = b""
        while len(body) < n:
            chunk = s.recv(n - len(body))
            if not chunk:
                return None
            body += chunk
        return (mtype, body)
    except (ConnectionResetError, socket.timeout):
        return None


def describe(m):
    if m is None:
        return "CLOSED"
    mtype, body = m
    if mtype in (ERROR, REJECT) and len(body) >= 4:
        code, tlen = struct.unpack(">HH", body[:4])
        text = body[4:4 + tlen].decode(errors="replace")
        return "%s %d %s" % ("ERROR" if mtype == ERROR else "REJECT", code, text)
    return NAMES.get(mtype, str(mtype))


def connect(host, port):
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect((host, port))
    return s


def after_hello(s):
    s.sendall(hello())
    m = read_msg(s)
    if m is None or m[0] != HELLO:
        print("NO-HELLO", describe(m))
        sys.exit(1)
    caps = struct.unpack(">HHI", m[1][:8])[2]
    return caps


def main():
    case, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    s = connect(host, port)
    if case == "garbage":
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    elif case == "short-body":          # HELLO whose body is too short for its type
        s.sendall(msg(HELLO, b"\x00\x01\x00\x00"))
    elif case == "truncated":           # header promises 40 bytes, 10 come, then EOF
        s.sendall(msg(HELLO, b"\x00" * 10, length=40))
        s.shutdown(socket.SHUT_WR)
    elif case == "oversized":           # length field of 4 GiB
        s.sendall(struct.pack(">IHHI", MAGIC, 1, HELLO, 0xFFFFFFFF))
    elif case == "version":
        s.sendall(msg(HELLO, struct.pack(">HHI32s", 99, 0, 0, b"x"), version=99))
    elif case == "unknown-type":
        s.sendall(msg(200, b""))
    elif case == "slow":                # one byte per second (slowloris): never completes in time
        data = hello()
        for b in data:
            try:
                s.sendall(bytes([b]))
            except OSError:
                break
            r = None
            s.settimeout(1.0)
            try:
                r = s.recv(1, socket.MSG_PEEK)
            except socket.timeout:
                pass
            if r is not None:
                break
    elif case == "silent":              # connects and never says anything
        pass
    elif case == "wrong-psk":
        caps = after_hello(s)
        if not caps & 1:
            print("NO-AUTH-REQUIRED")
            sys.exit(1)
        m = read_msg(s)
        if m is None or m[0] != CHALLENGE:
            print("NO-CHALLENGE", describe(m))
            sys.exit(1)
        s.sendall(msg(AUTH_RESPONSE, os.urandom(64)))
    elif case == "request-no-auth":     # reverse test without proving the key
        after_hello(s)
        read_msg(s)                     # the challenge, ignored
        s.sendall(request(kind=2, reverse=True, rate=10**6))
    elif case in ("too-long", "too-many-streams", "too-fast", "unlimited-tcp"):
        after_hello(s)
        req = {"too-long": request(duration_s=3600),
               "too-many-streams": request(streams=100),
               "too-fast": request(kind=2, rate=10**12),
               "unlimited-tcp": request(kind=1, rate=0)}[case]
        s.sendall(req)
        print(describe(read_msg(s)))
        # the session stays usable after a rejection: a valid request now
        s.sendall(request(kind=2, duration_s=1, rate=10**6))
        m = read_msg(s)
        print(describe(m))
        return
    elif case in ("foreign-tcp", "foreign-udp"):
        # the right test id and cookie, but from another address of this host:
        # the server must refuse it (TCP: closed; UDP: no answer), then START fails
        foreign = sys.argv[4]
        udp = case == "foreign-udp"
        after_hello(s)
        s.sendall(request(kind=2 if udp else 1, duration_s=1, rate=10**6))
        m = read_msg(s)
        if m is None or m[0] != ACCEPT:
            print("NO-ACCEPT", describe(m))
            sys.exit(1)
        test_id = struct.unpack(">I", m[1][:4])[0]
        cookie = m[1][4:20]
        port = struct.unpack(">H", m[1][40:42])[0]  # after the 40-byte fixed part
        hello_bytes = struct.pack(">IIHH", 0x4F564C53, test_id, 0, 0) + cookie
        fam = socket.AF_INET6 if ":" in host else socket.AF_INET
        d = socket.socket(fam, socket.SOCK_DGRAM if udp else socket.SOCK_STREAM)
        d.bind((foreign, 0))
        d.settimeout(2)
        d.connect((host, port))
        verdict = "DATA-ACCEPTED"
        try:
            if udp:
                for _ in range(3):
                    d.send(hello_bytes)
                    try:
                        d.recv(100)
                        break
                    except socket.timeout:
                        verdict = "DATA-IGNORED"
            else:
                d.sendall(hello_bytes)
                verdict = "DATA-CLOSED" if d.recv(1) == b"" else "DATA-ACCEPTED"
        except (ConnectionResetError, BrokenPipeError):
            verdict = "DATA-CLOSED"
        except socket.timeout:
            verdict = "DATA-ACCEPTED"  # kept open without a word: not refused
        print(verdict)
        s.sendall(msg(8, struct.pack(">II", test_id, 0)))  # START
    elif case == "after-accept-garbage":  # accepted test, then nonsense instead of START
        after_hello(s)
        s.sendall(request(kind=2, duration_s=1, rate=10**6))
        m = read_msg(s)
        print(describe(m))
        s.sendall(msg(HELLO, struct.pack(">HHI32s", 1, 0, 0, b"again")))
    else:
        print("unknown case", case)
        sys.exit(2)
    print(describe(read_msg(s)))


if __name__ == "__main__":
    main()
