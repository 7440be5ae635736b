#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_tunnel_basic.sh again with the TUN offloads off (offload = off): one
# packet per read and per write, the plain data path
# the offloads are measured against.
TU_EXTRA="offload = off" exec bash "$(dirname "$0")/test_tunnel_basic.sh"
