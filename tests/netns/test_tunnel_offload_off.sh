#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_tunnel_basic.sh again with the TUN offloads off (offload = off): one
# packet per read and per write, the plain data path
# the offloads are measured against. A lab of its own (tuo): the two scripts
# may run at once in the lanes, and lab_make's `lab down` of a shared name
# would stop the other's processes.
TU_LAB=tuo TU_EXTRA="offload = off" exec bash "$(dirname "$0")/test_tunnel_basic.sh"
