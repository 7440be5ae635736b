# SPDX-License-Identifier: MIT
# Helpers for tests/netns/test_fault_*.sh and test_load_*.sh (sourced after
# lib.sh): a TCP transfer of a known payload whose receiver reports its
# progress, so a test can break something in the middle and check the
# SHA-256 at the end. Files go to FA_DIR, removed on exit; every process
# started here is killed on exit.

FA_DIR=$(mktemp -d /tmp/ovlperf-fault-XXXXXX)
on_exit "rm -rf '$FA_DIR'"
# The longest wait for a connection or a byte, in seconds: a bound against a
# hang, not a measurement. Heavy loss needs more: TCP doubles its
# retransmission timeout on every loss of the same segment (RFC 6298).
FA_IDLE=${FA_IDLE:-90}

# fa_payload BYTES: FA_DIR/blob of random bytes; FA_WANT its SHA-256
fa_payload()
{
	head -c "$1" /dev/urandom >"$FA_DIR/blob"
	FA_WANT=$(sha256sum "$FA_DIR/blob" | cut -d' ' -f1)
}

# fa_recv NS ADDR PORT: receiver in NS; FA_DIR/progress holds the bytes so
# far, FA_DIR/got the SHA-256 at EOF. No connection or no byte for FA_IDLE
# seconds is a failure.
fa_recv()
{
	rm -f "$FA_DIR/got" "$FA_DIR/progress"
	ip netns exec "$1" python3 - "$2" "$3" "$FA_DIR" "$FA_IDLE" <<'PY' &
import hashlib, os, socket, sys, time
addr, port, d, idle = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((addr, port)); s.listen(1); s.settimeout(idle)
c, _ = s.accept(); c.settimeout(idle); h = hashlib.sha256(); n = 0; last = 0
def note(v):
    open(d + "/progress.tmp", "w").write(str(v)); os.rename(d + "/progress.tmp", d + "/progress")
while True:
    b = c.recv(1 << 16)
    if not b: break
    h.update(b); n += len(b)
    if n - last >= 65536: note(n); last = n
note(n)
open(d + "/got", "w").write(h.hexdigest())
PY
	FA_RECV=$!
	on_exit "kill $FA_RECV"
	local i
	for i in $(seq 100); do
		ip netns exec "$1" ss -ltn 2>/dev/null | grep -q "$2\]*:$3 " && return 0
		sleep 0.1
	done
	fail "receiver on $2:$3 in $1 does not listen"
}

# fa_send NS ADDR PORT RATE_BYTES_PER_S: sends FA_DIR/blob paced at about
# RATE (so a fault lands in the middle), in the background as FA_SEND
fa_send()
{
	ip netns exec "$1" python3 - "$2" "$3" "$4" "$FA_DIR/blob" "$FA_IDLE" <<'PY' 2>"$FA_DIR/send.err" &
import socket, sys, time
addr, port, rate, path = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
data = open(path, "rb").read()
s = socket.create_connection((addr, port), timeout=float(sys.argv[5]))
t0 = time.monotonic(); off = 0; chunk = 32768
while off < len(data):
    s.sendall(data[off:off + chunk]); off += chunk
    ahead = off / rate - (time.monotonic() - t0)
    if ahead > 0: time.sleep(ahead)
s.shutdown(socket.SHUT_WR)
s.recv(1)  # until the receiver closes: everything was acknowledged
s.close()
PY
	FA_SEND=$!
	on_exit "kill $FA_SEND"
}

# fa_progress: bytes the receiver has so far
fa_progress() { cat "$FA_DIR/progress" 2>/dev/null || echo 0; }

# fa_wait_progress BYTES: until the receiver has at least BYTES
fa_wait_progress()
{
	local i
	for i in $(seq 600); do
		[ "$(fa_progress)" -ge "$1" ] && return 0
		kill -0 "$FA_RECV" 2>/dev/null || fail "receiver exited at $(fa_progress) bytes"
		sleep 0.05
	done
	fail "transfer stuck at $(fa_progress) bytes (waiting for $1)"
}

# fa_finish WHAT: waits for both ends, checks the SHA-256
fa_finish()
{
	wait "$FA_SEND" || fail "$1: sender failed: $(cat "$FA_DIR/send.err")"
	wait "$FA_RECV" || fail "$1: receiver failed at $(fa_progress) bytes"
	expect_eq "$1: SHA-256 at the receiver" "$(cat "$FA_DIR/got")" "$FA_WANT"
}
