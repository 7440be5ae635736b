#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One-way delay against offered load, in ONE run on one lab pair: ovlperf's
# built-in overlay, wireguard-go and OpenVPN 2.6 (static key, --disable-dco).
# Each overlay's own NDR first (`ovlperf sweep --knee`, 1400-byte packets),
# then UDP at 25, 50, 75 and 90 % of it, the overlays taking turns at each
# load; one-way delay p50 / p99 of every trial, with ratios against the
# built-in overlay. A reference that hides tens of milliseconds of queue near
# its knee teaches the wrong lesson: this shows where each overlay's queue
# starts to grow. The peers' setup lives here only, never in the product.
#
#   OVLPERF=build/ovlperf bash bench/overlay_latency.sh [-t SEC] [--loads "25 50 75 90"]
#                       [--searches N] [--paths "ovl wg ovpn"]
#
# A loss that other load on the machine causes only ever lowers a search's
# NDR, so each overlay's NDR is the highest of N searches (default 2), the
# overlays taking turns.
#
# Both ends share the machine's clock, so every one-way delay is exact. For
# the built-in overlay a second table says where the delay sits: each
# daemon's stages from `tunnel show` (their histograms' difference over the
# trial).
# Targets (built-in overlay): p99 <= 1 ms at 90 % of its NDR, <= 0.3 ms at
# 50 %. Reported, never asserted (speed is not a test).
# Needs root, wireguard-go, wireguard-tools, openvpn (make bench-deps).
set -euo pipefail
OVLPERF=${OVLPERF:-$PWD/ovlperf}
LAB=${BENCH_LAB:-hdl}
T=5
LOADS="25 50 75 90"
SEARCHES=2
PATHS="ovl wg ovpn"
while [ $# -gt 0 ]; do
	case $1 in
	-t) T=$2; shift 2 ;;
	--loads) LOADS=$2; shift 2 ;;
	--searches) SEARCHES=$2; shift 2 ;;
	--paths) PATHS=$2; shift 2 ;;
	*) echo "usage: $0 [-t SEC] [--loads \"PCT ...\"] [--searches N] [--paths LIST]" >&2; exit 2 ;;
	esac
done
for tool in wireguard-go wg openvpn ping python3; do
	command -v $tool >/dev/null || { echo "bench: $tool missing (make bench-deps)" >&2; exit 1; }
done

source "$(dirname "$0")/peers_lib.sh"
in_b "$OVLPERF" server >/dev/null 2>"$WORK/server.log" &
CLEANUP+=("kill $!")
sleep 0.5

declare -A ADDR=([ovl]=198.19.0.2 [wg]=198.19.1.2 [ovpn]=198.19.2.2)
declare -A NAME=([ovl]="ovlperf" [wg]="wireguard-go" [ovpn]="OpenVPN 2.6")
declare -A MAXR=([ovl]=8G [wg]=4G [ovpn]=2G)
for p in $PATHS; do
	case $p in
	ovl) up_ovl ovl ovl0 198.19.0 51900 on ;;
	wg) up_wg ;;
	ovpn) up_ovpn ;;
	*) log "unknown path $p (ovl, wg, ovpn)"; exit 2 ;;
	esac
done
for p in $PATHS; do
	for i in $(seq 100); do in_a ping -c 1 -W 1 "${ADDR[$p]}" >/dev/null 2>&1 && break; sleep 0.1; done
	in_a ping -c 1 -W 2 "${ADDR[$p]}" >/dev/null || { log "${NAME[$p]}: ${ADDR[$p]} unreachable"; exit 1; }
done

# stages SNAP: both daemons' counters (ovlperf only) into $WORK/SNAP-{a,b}
stages() { in_a "$OVLPERF" tunnel show ovl0 --raw >"$WORK/$1-a"; in_b "$OVLPERF" tunnel show ovl0 --raw >"$WORK/$1-b"; }
# where BEFORE AFTER: the p99 (upper bound of its power-of-two bucket, ms)
# of each stage inside the daemons over one trial, from the difference of
# their histograms: A's hold (TUN read to the last send of its batch), B's
# receive socket wait, B's hold (socket to the last TUN write)
where()
{
	python3 - "$WORK/$1" "$WORK/$2" <<'PY'
import sys
def hist(path, key):
    for line in open(path):
        k, _, v = line.strip().partition("=")
        if k == key:
            return [(b, int(c)) for b, c in (x.split(":") for x in v.split(","))]
    return []
def p99(before, after, key):
    hb, ha = hist(before, key), hist(after, key)
    d = [(bound, n - (hb[i][1] if i < len(hb) else 0)) for i, (bound, n) in enumerate(ha)]
    total = sum(n for _, n in d)
    if total <= 0:
        return "-"
    run = 0
    for bound, n in d:
        run += n
        if run >= 0.99 * total:
            return "inf" if bound == "inf" else "%.3f" % (int(bound) / 1e3)
    return "-"
before, after = sys.argv[1], sys.argv[2]
print(p99(before + "-a", after + "-a", "queue.tx_hold_hist_us"),
      p99(before + "-b", after + "-b", "queue.rx_delay_hist_us"),
      p99(before + "-b", after + "-b", "queue.rx_hold_hist_us"))
PY
}

declare -A NDR NDRS P50 P99 DLV WHERE SOCK
for p in $PATHS; do NDR[$p]=0; NDRS[$p]=""; done
for s in $(seq "$SEARCHES"); do
	for p in $PATHS; do
		log "${NAME[$p]}: NDR (knee search $s of $SEARCHES, ${T}s trials)"
		n=$(ndr_bps "${ADDR[$p]}" "${MAXR[$p]}")
		NDRS[$p]="${NDRS[$p]} $((n / 1000000))"
		[ "$n" -gt "${NDR[$p]}" ] && NDR[$p]=$n
		log "${NAME[$p]}: NDR $((n / 1000000)) Mbit/s"
	done
done
for l in $LOADS; do
	for p in $PATHS; do
		[ "${NDR[$p]}" != 0 ] || { P50[$p,$l]=-; P99[$p,$l]=-; DLV[$p,$l]=-; continue; }
		rate=$(python3 -c 'import sys; print("%.0f" % (float(sys.argv[1]) * float(sys.argv[2]) / 100))' "${NDR[$p]}" "$l")
		log "${NAME[$p]}: ${l} % of NDR (${rate} bit/s) for ${T}s"
		[ "$p" = ovl ] && stages before
		read -r a b c e _ < <(owd "${ADDR[$p]}" "$rate")
		P50[$p,$l]=$a P99[$p,$l]=$b DLV[$p,$l]=$c SOCK[$p,$l]=$e
		[ "$p" = ovl ] && { stages after; WHERE[$l]=$(where before after || echo "- - -"); }
	done
done

ratio()
{
	python3 -c 'import sys
try: a, b = float(sys.argv[1]), float(sys.argv[2])
except ValueError: a = b = 0
print("%.2fx" % (a / b) if a > 0 and b > 0 else "-")' "$1" "$2"
}
printf '\n%-14s %10s %6s %10s %10s %9s %9s %9s\n' path "NDR Mbit/s" load "p50 ms" "p99 ms" \
	"dlv %" "p50 vs ovl" "p99 vs ovl"
for p in $PATHS; do
	for l in $LOADS; do
		printf '%-14s %10s %5s%% %10s %10s %9s %9s %9s\n' "${NAME[$p]}" \
			"$(python3 -c 'import sys; print("%.0f" % (float(sys.argv[1]) / 1e6))' "${NDR[$p]}")" \
			"$l" "${P50[$p,$l]}" "${P99[$p,$l]}" "${DLV[$p,$l]}" \
			"$(ratio "${P50[$p,$l]}" "${P50[ovl,$l]:-}")" "$(ratio "${P99[$p,$l]}" "${P99[ovl,$l]:-}")"
	done
done
echo "one-way delay of ${T}s UDP trials at a percentage of each overlay's own NDR (knee search," \
	"${T}s trials); 1400-byte IPv4 packets; lab $LAB (veth, MTU 1500); one clock: delays exact"
echo "NDR: highest of $SEARCHES searches (Mbit/s each:$(for p in $PATHS; do printf ' %s%s;' "${NAME[$p]}" "${NDRS[$p]}"; done))"
echo "machine load: $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ " $PATHS " == *" ovl "* ]]; then
	printf '\nwhere the delay of ovlperf'"'"'s overlay sits (p99 per stage, ms, upper bounds of power-of-two buckets)\n'
	printf '%5s %10s %13s %15s %13s %15s\n' load "p99 e2e" "A: hold <=" "B: socket <=" "B: hold <=" \
		"B: receiver"
	for l in $LOADS; do
		read -r x y z <<<"${WHERE[$l]:-- - -}"
		printf '%4s%% %10s %13s %15s %13s %15s\n' "$l" "${P99[ovl,$l]:--}" "$x" "$y" "$z" \
			"${SOCK[ovl,$l]:--}"
	done
	echo "A: hold = TUN read to the batch's last send; B: socket = wait in the daemon's" \
		"underlay socket; B: hold = socket to the batch's last TUN write (tunnel show" \
		"queue.*); B: receiver = wait in the test receiver's own socket (udp.rx_wait_us," \
		"exact). The rest is A's TUN ring, the kernels' TUN and UDP paths and thread scheduling"
	python3 - "${P99[ovl,90]:-}" "${P99[ovl,50]:-}" <<'PY'
import sys
def verdict(v, goal):
    try:
        x = float(v)
    except ValueError:
        return "not measured"
    return "%s (%.3f ms)" % ("met" if 0 <= x <= goal else "NOT met", x)
print("ovlperf targets: p99 at 90 %% of NDR <= 1 ms: %s; p99 at 50 %% of NDR <= 0.3 ms: %s" %
      (verdict(sys.argv[1], 1.0), verdict(sys.argv[2], 0.3)))
PY
fi
