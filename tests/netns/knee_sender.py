#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The knee tests' sender check: a knee search's result must rest on rates
the sender really offered.

Usage: knee_sender.py FILE, where FILE is an `ovlperf sweep --knee --json`
document or a run's run.json. For every knee search in it, from its trials
alone (the sent rate over each trial, sent * len * 8 / measured seconds,
against the rate offered):

  - the NDR's lower bound is a rate offered in a trial whose sender reached
    it within 1 %; or, when the search ended generator-limited, a rate a
    trial short of its target did send (RFC 9971's search credits what was
    sent without loss below the generator's limit): then that trial's sent
    rate is the bound within 1 %, and at least one offered rate was reached,
    or, where none was, the sent rate stayed flat while the offered rate
    fell (the machine's limit: machine_bound());
  - every rate offered below it was reached within 1 % by at least one of
    its trials (a trial the sender fell short in is repeated once; one of
    the two must make it).

So a generator-limited outcome (a sender that fell short of the offered
rate) still proves that the pacer held its target up to where it fell
short, and a pacer short of every rate (OVLPERF_TEST_PACER_SHORT, pacer.c)
fails. Prints one line per search; exits 1 when any fails.
"""
import json
import sys

REACHED = 0.99  # the sender reached its target: within 1 %


def sent_bps(sent, length, seconds):
    return sent * length * 8 / seconds if seconds > 0 else 0


def searches_of(doc):
    """(name, NDR lower bound or None, [(offered, sent_bps)], outcome) per search."""
    if "points" in doc:  # ovlperf sweep --json
        k = doc.get("knee") or {}
        trials = [(p["target_bps"], sent_bps(p["sent"], doc["len"], p["measured_s"]))
                  for p in doc["points"] if "error" not in p]
        ndr = k.get("ndr") or {}
        yield (doc.get("path", "sweep"), ndr.get("lower_target_bps"), trials,
               ndr.get("outcome"))
        return
    names = [p["name"] for p in doc["paths"]]
    for k in doc["knees"]:
        trials = [(t["target_bps"], sent_bps(t["udp"]["sent"], t["len"], t["duration_s"]))
                  for t in doc["trials"]
                  if t["kind"] == "knee" and t["status"] == 0 and t["path"] == k["path"] and
                  t["len"] == k["len"] and t["rep"] == k["rep"]]
        lower = k["ndr_lower_bps"] if k["found"] else None
        yield ("%s %u B rep %u" % (names[k["path"]], k["len"], k["rep"]), lower, trials,
               k.get("ndr_outcome"))


def machine_bound(trials):
    """A sender short of every offered rate because the machine cannot send
    faster, not because its pacer runs slow: over offered rates that span at
    least 10 %, the sent rates span less than half as much (a pacer short by
    a share sends that share less of every rate, so its sent rates span as
    much as the offered ones)."""
    short = [(o, s) for o, s in trials if s < o * REACHED and s > 0]
    if len(short) < 2:
        return False
    offered = max(o for o, _ in short) / min(o for o, _ in short) - 1
    sent = max(s for _, s in short) / min(s for _, s in short) - 1
    return offered >= 0.10 and sent < offered / 2


def check(name, lower, trials, outcome):
    """The reasons this search fails the check (none: it passes)."""
    if not trials:
        return ["%s: no knee trials" % name]
    if not lower:
        return ["%s: no NDR lower bound" % name]
    why = []
    at = [s / o for o, s in trials if o == lower]
    credited = [s for o, s in trials if s < o * REACHED and abs(s / lower - 1) <= 1 - REACHED]
    reached = [o for o, s in trials if s >= o * REACHED]
    if not at and outcome == "generator-limit" and credited and (reached or
                                                                  machine_bound(trials)):
        print("%s: the NDR %.3f Mbit/s is what a short sender sent without loss, credited "
              "by the search (generator-limit)%s" %
              (name, lower / 1e6, "" if reached else
               "; no offered rate was reached, but the sent rate stayed flat while "
               "the offered rate fell: the machine's limit, not the pacer's"))
        at = [1.0]
    if not at:
        why.append("%s: the NDR %.3f Mbit/s was never offered: credited at what a sender "
                   "short of its target sent" % (name, lower / 1e6))
    elif max(at) < REACHED:
        why.append("%s: at the NDR %.3f Mbit/s the sender fell short of the offered rate "
                   "(at best %.2f %%)" % (name, lower / 1e6, 100 * max(at)))
    below = {}
    for o, s in trials:
        if o < lower:
            below[o] = max(below.get(o, 0), s / o)
    short = sorted(o for o, r in below.items() if r < REACHED)
    if short:
        why.append("%s: below the NDR the sender fell short of %d of %d offered rates, "
                   "e.g. %.3f Mbit/s (at best %.2f %%)" %
                   (name, len(short), len(below), short[0] / 1e6, 100 * below[short[0]]))
    if not why:
        print("%s: sender reached the NDR %.3f Mbit/s (%.2f %%) and the %d rates below it" %
              (name, lower / 1e6, 100 * max(at), len(below)))
    return why


def main():
    doc = json.load(open(sys.argv[1]))
    why = []
    for name, lower, trials, outcome in searches_of(doc):
        why += check(name, lower, trials, outcome)
    for w in why:
        print("sender check failed: " + w)
    return 1 if why else 0


if __name__ == "__main__":
    sys.exit(main())
