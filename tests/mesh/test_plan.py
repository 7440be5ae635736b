#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The mesh plan's filters (deploy/ansible/filter_plugins/ovlperf_mesh.py):
which pairs, packed into which rounds. Run by `make ansible-lint`."""
import itertools
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../deploy/ansible/filter_plugins"))
from ansible.errors import AnsibleFilterError  # noqa: E402
from ovlperf_mesh import (ovlperf_mesh_pairs, ovlperf_mesh_round_numbers,  # noqa: E402
                          ovlperf_mesh_rounds)


def busy_twice(rounds, exclusive, max_serving):
    for r in rounds:
        serving = {}
        for c, s in r:
            serving[s] = serving.get(s, 0) + 1
        if any(n > max_serving for n in serving.values()):
            return True
        clients = [c for c, _ in r]
        if len(clients) != len(set(clients)):
            return True
        hosts = [h for p in r for h in p]
        if exclusive and len(hosts) != len(set(hosts)):
            return True
    return False


class Plan(unittest.TestCase):
    def test_full(self):
        for n in range(2, 9):
            hosts = ["h%d" % i for i in range(n)]
            pairs = ovlperf_mesh_pairs(hosts)
            self.assertEqual(sorted(map(tuple, pairs)), sorted(itertools.permutations(hosts, 2)))
            for excl in (True, False):
                rounds = ovlperf_mesh_rounds(pairs, 1, excl)
                self.assertEqual(sorted(p for r in rounds for p in map(tuple, r)),
                                 sorted(map(tuple, pairs)))
                self.assertFalse(busy_twice(rounds, excl, 1))
            # without exclusivity every host serves once a round: n - 1 rounds
            self.assertEqual(len(ovlperf_mesh_rounds(pairs, 1, False)), n - 1)

    def test_hub(self):
        pairs = ovlperf_mesh_pairs(["a", "b", "c"], "hub", "a")
        self.assertEqual(pairs, [["b", "a"], ["a", "b"], ["c", "a"], ["a", "c"]])
        rounds = ovlperf_mesh_rounds(pairs, 1, True)
        self.assertEqual(len(rounds), 4)  # the hub is in every pair
        rounds = ovlperf_mesh_rounds(pairs, 2, False)
        self.assertFalse(busy_twice(rounds, False, 2))
        self.assertLess(len(rounds), 4)

    def test_pairs(self):
        pairs = ovlperf_mesh_pairs(["a", "b", "c"], "pairs", "", [["a", "b"], ["c", "a"]])
        self.assertEqual(pairs, [["a", "b"], ["c", "a"]])
        self.assertEqual(ovlperf_mesh_rounds(pairs, 1, True), [[["a", "b"]], [["c", "a"]]])
        self.assertEqual(ovlperf_mesh_round_numbers([2, 1, 3]), [1, 1, 2, 3, 3, 3])

    def test_refusals(self):
        bad = [
            (["a", "a"], "full", "", None, "listed twice"),
            (["a", "b"], "hub", "x", None, "'x' is not a host"),
            (["a", "b"], "pairs", "", [["a", "z"]], "'z' is not a host"),
            (["a", "b"], "pairs", "", [["a", "a"]], "is no pair"),
            (["a", "b"], "pairs", "", [["a", "b"], ["a", "b"]], "listed twice"),
            (["a", "b"], "pairs", "", [["a"]], "is not [client, server]"),
            (["a", "b"], "ring", "", None, "'ring' is not full, hub or pairs"),
        ]
        for hosts, mode, hub, pairs, msg in bad:
            with self.assertRaises(AnsibleFilterError) as e:
                ovlperf_mesh_pairs(hosts, mode, hub, pairs)
            self.assertIn(msg, str(e.exception))
        with self.assertRaises(AnsibleFilterError):
            ovlperf_mesh_rounds([["a", "b"]], 0)


if __name__ == "__main__":
    unittest.main()
