#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""UDP datagrams whose every byte is known, for checking a path that may
coalesce them (UDP GRO) or split super-packets (UDP GSO).

  udp_burst.py recv ADDR PORT COUNT GRO   prints "<datagrams> <reads> <multi>":
      datagrams received, recvmsg calls, calls that returned more than one
      (GRO buffers); exits 1 on any datagram out of order or corrupted, or
      fewer than COUNT before a 10 s silence. GRO: 1 sets UDP_GRO.
  udp_burst.py send ADDR PORT COUNT SIZE  COUNT datagrams of SIZE bytes, 40 per
      sendmsg with UDP_SEGMENT (one super-packet through the TUN), 2 ms apart.

Datagram i: 8-byte big-endian i, then bytes (i + k) % 251 for k = 0.."""
import select
import socket
import struct
import sys
import time

SOL_UDP, UDP_SEGMENT, UDP_GRO = 17, 103, 104


def body(i, size):
    return struct.pack(">Q", i) + bytes((i + k) % 251 for k in range(size - 8))


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def recv(addr, port, count, gro):
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE
    if gro:
        s.setsockopt(SOL_UDP, UDP_GRO, 1)
    s.bind((addr, port))
    print("ready", flush=True)
    got = reads = multi = 0
    while got < count:
        if not select.select([s], [], [], 10)[0]:
            break
        data, anc, _, _ = s.recvmsg(65536, socket.CMSG_SPACE(4))
        size = len(data)
        for level, kind, val in anc:
            if level == SOL_UDP and kind == UDP_GRO:
                size = struct.unpack("=i", val[:4])[0]
        reads += 1
        pieces = [data[o:o + size] for o in range(0, len(data), size)]
        multi += len(pieces) > 1
        for p in pieces:
            i = struct.unpack(">Q", p[:8])[0]
            if i != got or p != body(i, len(p)):
                print(f"datagram {got}: got #{i} ({len(p)} bytes) corrupted or out of order",
                      file=sys.stderr)
                sys.exit(1)
            got += 1
    print(got, reads, multi)
    sys.exit(0 if got == count else 1)


def send(addr, port, count, size):
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    s.connect((addr, port))
    i = 0
    while i < count:
        n = min(40, count - i)
        buf = b"".join(body(i + k, size) for k in range(n))
        s.sendmsg([buf], [(SOL_UDP, UDP_SEGMENT, struct.pack("=H", size))])
        i += n
        time.sleep(0.002)


if __name__ == "__main__":
    a = sys.argv
    if a[1] == "recv":
        recv(a[2], int(a[3]), int(a[4]), a[5] == "1")
    else:
        send(a[2], int(a[3]), int(a[4]), int(a[5]))
