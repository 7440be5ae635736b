# SPDX-License-Identifier: MIT
"""Filters that plan a mesh for mesh.yml: which ordered pairs to measure
and in which rounds, so that Ansible's own `serial` runs each round's pairs
together and the rounds one after another. They only compute lists; Ansible
connects, runs and records."""

from ansible.errors import AnsibleFilterError


def ovlperf_mesh_pairs(hosts, mode="full", hub="", pairs=None):
    """Ordered (client, server) pairs: every ordered pair of hosts (full),
    each spoke to the hub and back (hub), or the given list (pairs)."""
    hosts = list(hosts)
    if len(set(hosts)) != len(hosts):
        raise AnsibleFilterError("ovlperf_mesh_pairs: a host is listed twice")
    if mode == "full":
        # By distance in the host list, so that a first-fit packing of
        # the rounds (below) finds a host in one test per round where it
        # can: distance d pairs host i with host i+d.
        n = len(hosts)
        return [[hosts[i], hosts[(i + d) % n]] for d in range(1, n) for i in range(n)]
    if mode == "hub":
        if hub not in hosts:
            raise AnsibleFilterError(
                "ovlperf_mesh_hub: '%s' is not a host of the mesh (%s)" % (hub, ", ".join(hosts)))
        out = []
        for h in hosts:
            if h != hub:
                out += [[h, hub], [hub, h]]
        return out
    if mode == "pairs":
        out = []
        for p in pairs or []:
            if not isinstance(p, (list, tuple)) or len(p) != 2:
                raise AnsibleFilterError("ovlperf_mesh_pairs: %r is not [client, server]" % (p,))
            c, s = p
            for h in (c, s):
                if h not in hosts:
                    raise AnsibleFilterError(
                        "ovlperf_mesh_pairs: '%s' is not a host of the mesh (%s)" % (h, ", ".join(hosts)))
            if c == s:
                raise AnsibleFilterError("ovlperf_mesh_pairs: %s -> %s is no pair" % (c, s))
            if [c, s] in out:
                raise AnsibleFilterError("ovlperf_mesh_pairs: %s -> %s is listed twice" % (c, s))
            out.append([c, s])
        return out
    raise AnsibleFilterError("ovlperf_mesh_mode: '%s' is not full, hub or pairs" % mode)


def ovlperf_mesh_rounds(pairs, max_serving=1, exclusive=True):
    """Pairs packed into rounds, first fit in the given order: in a round no
    host serves more than max_serving tests, and with exclusive no host is
    in two tests at all (a client's and a server's CPU and link measure one
    test only)."""
    max_serving = int(max_serving)
    if max_serving < 1:
        raise AnsibleFilterError("ovlperf_mesh_max_serving: %d is below 1" % max_serving)
    rounds = []
    for c, s in pairs:
        for r in rounds:
            serving = sum(1 for _, srv in r if srv == s)
            busy = {h for p in r for h in p}
            if serving >= max_serving:
                continue
            if exclusive and (c in busy or s in busy):
                continue
            if not exclusive and any(cl == c for cl, _ in r):
                continue
            r.append([c, s])
            break
        else:
            rounds.append([[c, s]])
    return rounds


def ovlperf_mesh_round_numbers(sizes):
    """The round (1-based) of each pair, given the rounds' sizes."""
    return [r + 1 for r, n in enumerate(sizes) for _ in range(int(n))]


class FilterModule(object):
    def filters(self):
        return {
            "ovlperf_mesh_pairs": ovlperf_mesh_pairs,
            "ovlperf_mesh_rounds": ovlperf_mesh_rounds,
            "ovlperf_mesh_round_numbers": ovlperf_mesh_round_numbers,
        }
