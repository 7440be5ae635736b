#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares the shape of two iperf3 -J documents: the one real iperf3 wrote
and the one `ovlperf client --json-format iperf3` wrote for the same test.
Every key iperf3 writes, at every level (list elements against every element
iperf3 wrote there), must be in ovlperf's with a value of the same JSON type,
and ovlperf may write no key iperf3 does not, except its one extra top-level
key "ovlperf". Counters iperf3 writes as integers must be integers.

A null is accepted only where ovlperf cannot know the figure on that test
and says so rather than write iperf3's placeholder zero (NULL_OK below).

usage: iperf3_shape.py IPERF3.json OVLPERF.json  (exit 1 and one line per
difference when they differ)"""
import json
import sys

EXTRA_TOP = {"ovlperf"}
# keys whose values are counts: an integer in both documents
INTEGERS = {"socket", "local_port", "remote_port", "port", "timesecs", "tcp_mss_default",
            "sock_bufsize", "sndbuf_actual", "rcvbuf_actual", "num_streams", "blksize",
            "omit", "duration", "blocks", "reverse", "tos", "bytes", "packets",
            "lost_packets", "retransmits", "out_of_order", "snd_cwnd", "snd_wnd", "rtt",
            "rttvar", "pmtu", "max_snd_cwnd", "max_snd_wnd", "max_rtt", "min_rtt",
            "mean_rtt"}
# path suffix -> why null is the truthful value there
NULL_OK = {
    # with -R the client never sees the sender's advertised window (iperf3
    # writes 0 there)
    ".end.streams[].sender.max_snd_wnd": "the sender is the server",
}


def kind(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def direction(e):
    """The client's role an interval or end stream reports (its "sender"),
    None for other list elements."""
    if not isinstance(e, dict):
        return None
    for v in (e, e.get("udp"), e.get("sender")):
        if isinstance(v, dict) and isinstance(v.get("sender"), bool):
            return v["sender"]
    return None


def compare(ref, got, path, errs):
    kr, kg = kind(ref), kind(got)
    if kg == "null" and kr != "null":
        if path not in NULL_OK:
            errs.append(f"{path}: null where iperf3 writes {kr}")
        return
    if kr != kg:
        errs.append(f"{path}: {kg} where iperf3 writes {kr}")
        return
    if kr == "number":
        key = path.rsplit(".", 1)[-1]
        if key in INTEGERS and (not isinstance(got, int) or not isinstance(ref, int)):
            errs.append(f"{path}: {got!r} is not an integer (iperf3: {ref!r})")
    elif kr == "object":
        missing = set(ref) - set(got)
        extra = set(got) - set(ref) - (EXTRA_TOP if path == "" else set())
        errs.extend(f"{path}.{k}: missing" for k in sorted(missing))
        errs.extend(f"{path}.{k}: not written by iperf3" for k in sorted(extra))
        for k in set(ref) & set(got):
            compare(ref[k], got[k], f"{path}.{k}", errs)
    elif kr == "array":
        if ref and not got:
            errs.append(f"{path}: empty where iperf3 writes {len(ref)} elements")
        # with --bidir a list holds both directions' streams, whose keys
        # differ: an element is compared with iperf3's of its direction
        kinds = {direction(r) for r in ref}
        for g in got:
            if direction(g) not in kinds:
                errs.append(f"{path}[]: a stream of a direction iperf3 does not list here")
        for k in kinds - {direction(g) for g in got}:
            errs.append(f"{path}[]: no stream of the direction iperf3 lists ({k})")
        for r in ref:
            for g in got:
                if direction(r) == direction(g):
                    compare(r, g, f"{path}[]", errs)


def main():
    ref = json.load(open(sys.argv[1]))
    got = json.load(open(sys.argv[2]))
    errs = []
    compare(ref, got, "", errs)
    for e in sorted(set(errs)):
        print(e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
