/* SPDX-License-Identifier: MIT */
/*
 * The plain numeric fields of run.json as (name, offset, type) tables,
 * shared by the writer (results_json.c) and the reader
 * (results_json_read.c) so that the two cannot drift apart. Private to
 * those two files.
 */
#ifndef OVLPERF_RESULTS_FIELDS_H
#define OVLPERF_RESULTS_FIELDS_H

#include <stddef.h>

#include "results.h"

enum ftype { F_U64, F_U32, F_UINT, F_DBL, F_BOOL };

struct field {
	const char *name;
	size_t off;
	enum ftype type;
};

#define FLD(s, m, t)                                                                               \
	{                                                                                          \
#m, offsetof(s, m), t                                                              \
	}

static const struct field link_fields[] = {
	FLD(struct results_link, a, F_UINT),
	FLD(struct results_link, b, F_UINT),
	FLD(struct results_link, rate_bps, F_U64),
	FLD(struct results_link, drop_pct, F_DBL),
};

static const struct field link_dir_fields[] = {
	FLD(struct results_link_dir, delay_ns, F_U64),
	FLD(struct results_link_dir, jitter_ns, F_U64),
	FLD(struct results_link_dir, loss_pct, F_DBL),
	FLD(struct results_link_dir, loss_burst_p_pct, F_DBL),
	FLD(struct results_link_dir, loss_burst_r_pct, F_DBL),
	FLD(struct results_link_dir, reorder_pct, F_DBL),
};

static const struct field udp_fields[] = {
	FLD(struct udp_result, sent, F_U64),
	FLD(struct udp_result, received, F_U64),
	FLD(struct udp_result, lost, F_U64),
	FLD(struct udp_result, duplicates, F_U64),
	FLD(struct udp_result, reordered, F_U64),
	FLD(struct udp_result, malformed, F_U64),
	FLD(struct udp_result, target_bps, F_U64),
	FLD(struct udp_result, achieved_bps, F_U64),
	FLD(struct udp_result, received_bps, F_U64),
	FLD(struct udp_result, sent_pps, F_U64),
	FLD(struct udp_result, received_pps, F_U64),
	FLD(struct udp_result, arrival_bps, F_U64),
	FLD(struct udp_result, queue_growth_ms, F_DBL),
	FLD(struct udp_result, jitter_ms, F_DBL),
	FLD(struct udp_result, generator_limited, F_BOOL),
	FLD(struct udp_result, len, F_U32),
	FLD(struct udp_result, path_mtu, F_U32),
	FLD(struct udp_result, fragments, F_U32),
	/* the built-in overlay's outer datagrams, measured (load_result.h) */
	{ "outer_ip_version", offsetof(struct udp_result, outer.ip_version), F_UINT },
	{ "outer_received", offsetof(struct udp_result, outer.received), F_BOOL },
	{ "outer_datagrams", offsetof(struct udp_result, outer.datagrams), F_U64 },
	{ "outer_bytes", offsetof(struct udp_result, outer.bytes), F_U64 },
};

static const struct field owd_fields[] = {
	FLD(struct owd_summary, valid, F_BOOL),	  FLD(struct owd_summary, min_ns, F_U64),
	FLD(struct owd_summary, p50_ns, F_U64),	  FLD(struct owd_summary, p99_ns, F_U64),
	FLD(struct owd_summary, max_ns, F_U64),	  FLD(struct owd_summary, mean_ns, F_U64),
	FLD(struct owd_summary, error_ns, F_U64),
};

static const struct field loss_fields[] = {
	FLD(struct loss_attrib, sender_sndbuf, F_U64),
	FLD(struct loss_attrib, sender_link, F_U64),
	FLD(struct loss_attrib, receiver_rcvbuf, F_U64),
	FLD(struct loss_attrib, receiver_socket, F_U64),
	FLD(struct loss_attrib, receiver_inerrors, F_U64),
	FLD(struct loss_attrib, receiver_link, F_U64),
	FLD(struct loss_attrib, network, F_U64),
	FLD(struct loss_attrib, sender_qdisc, F_U64),
	FLD(struct loss_attrib, tunnel, F_U64),
	FLD(struct loss_attrib, backlog, F_U64),
};

/* beside loss_at, in "loss_detail": what the fixes name (loss_place.h) */
static const struct field loss_detail_fields[] = {
	FLD(struct loss_attrib, sender_txqlen, F_U32),
	FLD(struct loss_attrib, rcvbuf_bytes, F_U32),
	FLD(struct loss_attrib, rcvbuf_need_bytes, F_U32),
	FLD(struct loss_attrib, backlog_max, F_U32),
};

/* in loss_detail's "other_socket", beside its owner, port and family */
static const struct field other_socket_fields[] = {
	{ "pid", offsetof(struct loss_attrib, other_pid), F_U32 },
	{ "drops", offsetof(struct loss_attrib, other_drops), F_U64 },
};

static const struct field tcpinfo_fields[] = {
	FLD(struct tcp_info_summary, retransmits, F_U32),
	FLD(struct tcp_info_summary, rtt_us, F_U32),
	FLD(struct tcp_info_summary, rttvar_us, F_U32),
	FLD(struct tcp_info_summary, snd_mss, F_U32),
	FLD(struct tcp_info_summary, adv_mss, F_U32),
	FLD(struct tcp_info_summary, rcv_mss, F_U32),
	FLD(struct tcp_info_summary, pmtu, F_U32),
	FLD(struct tcp_info_summary, snd_cwnd, F_U32),
};

/* What limited a TCP trial (load_result.h), written when the end sent it */
static const struct field tcplimits_fields[] = {
	FLD(struct tcp_end_limits, known, F_BOOL),
	FLD(struct tcp_end_limits, chrono, F_BOOL),
	FLD(struct tcp_end_limits, sysctl, F_BOOL),
	FLD(struct tcp_end_limits, streams, F_UINT),
	FLD(struct tcp_end_limits, window_s, F_DBL),
	FLD(struct tcp_end_limits, busy_s, F_DBL),
	FLD(struct tcp_end_limits, rwnd_limited_s, F_DBL),
	FLD(struct tcp_end_limits, sndbuf_limited_s, F_DBL),
	FLD(struct tcp_end_limits, bytes_sent, F_U64),
	FLD(struct tcp_end_limits, bytes_retrans, F_U64),
	FLD(struct tcp_end_limits, delivery_bps, F_U64),
	FLD(struct tcp_end_limits, app_limited_streams, F_UINT),
	FLD(struct tcp_end_limits, min_rtt_us, F_U32),
	FLD(struct tcp_end_limits, rtt_median_us, F_U32),
	FLD(struct tcp_end_limits, snd_wnd, F_U32),
	FLD(struct tcp_end_limits, sock_sndbuf, F_U32),
	FLD(struct tcp_end_limits, sock_rcvbuf, F_U32),
	FLD(struct tcp_end_limits, tcp_rmem_max, F_U32),
	FLD(struct tcp_end_limits, tcp_wmem_max, F_U32),
	FLD(struct tcp_end_limits, rmem_max, F_U32),
	FLD(struct tcp_end_limits, wmem_max, F_U32),
	FLD(struct tcp_end_limits, thread_cpu, F_DBL),
	FLD(struct tcp_end_limits, rcv_space, F_U32),
};

/* A TCP trial's "drops": what either end's counters saw (tcp_drops) */
static const struct field tcpdrops_fields[] = {
	FLD(struct tcp_drops, known, F_BOOL),
	FLD(struct tcp_drops, sender_link_tx, F_U64),
	FLD(struct tcp_drops, receiver_link_rx, F_U64),
	FLD(struct tcp_drops, receiver_udp_drops, F_U64),
	FLD(struct tcp_drops, tunnel, F_U64),
	FLD(struct tcp_drops, backlog, F_U64),
	FLD(struct tcp_drops, qdisc_read, F_BOOL),
	FLD(struct tcp_drops, qdisc_drops, F_U64),
	FLD(struct tcp_drops, qdisc_held, F_U64),
};

/* run.json's "confirm" entries (confirm.h), beside their strings */
static const struct field confirm_fields[] = {
	FLD(struct results_confirm, path, F_UINT),
	FLD(struct results_confirm, streams, F_UINT),
	FLD(struct results_confirm, before_bps, F_DBL),
	FLD(struct results_confirm, after_bps, F_DBL),
	FLD(struct results_confirm, restored, F_BOOL),
};

static const struct field cpu_fields[] = {
	FLD(struct cpu_use, user_s, F_DBL),
	FLD(struct cpu_use, sys_s, F_DBL),
	FLD(struct cpu_use, wall_s, F_DBL),
};

static const struct field trial_fields[] = {
	FLD(struct results_trial, seq, F_UINT),
	FLD(struct results_trial, path, F_UINT),
	FLD(struct results_trial, rep, F_UINT),
	FLD(struct results_trial, streams, F_UINT),
	FLD(struct results_trial, len, F_U32),
	FLD(struct results_trial, target_bps, F_U64),
	FLD(struct results_trial, start_s, F_DBL),
	FLD(struct results_trial, duration_s, F_DBL),
	FLD(struct results_trial, sender_cpu_s_per_gbit, F_DBL),
	FLD(struct results_trial, receiver_cpu_s_per_gbit, F_DBL),
	FLD(struct results_trial, host_cpu_s, F_DBL),
	FLD(struct results_trial, overlay_thread_cpu, F_DBL),
	FLD(struct results_trial, overlay_thread_host, F_UINT),
	FLD(struct results_trial, overlay_quota_cores, F_DBL),
	FLD(struct results_trial, overlay_quota_used, F_DBL),
	FLD(struct results_trial, overlay_throttled_s, F_DBL),
	FLD(struct results_trial, overlay_throttled_share, F_DBL),
	FLD(struct results_trial, overlay_quota_host, F_UINT),
	FLD(struct results_trial, overlay_quota_thread_cpu, F_DBL),
	FLD(struct results_trial, overlay_cpu_s, F_DBL),
};

static const struct field knee_fields[] = {
	FLD(struct results_knee, path, F_UINT),
	FLD(struct results_knee, len, F_U32),
	FLD(struct results_knee, rep, F_UINT),
	FLD(struct results_knee, found, F_BOOL),
	FLD(struct results_knee, pdr_found, F_BOOL),
	FLD(struct results_knee, ndr_lower_bps, F_U64),
	FLD(struct results_knee, ndr_upper_bps, F_U64),
	FLD(struct results_knee, pdr_lower_bps, F_U64),
	FLD(struct results_knee, pdr_upper_bps, F_U64),
	FLD(struct results_knee, pdr_goal_pct, F_DBL),
	FLD(struct results_knee, width_goal, F_DBL),
	FLD(struct results_knee, max_rx_bps, F_U64),
	FLD(struct results_knee, trials, F_UINT),
	FLD(struct results_knee, fit_trials, F_UINT),
	FLD(struct results_knee, stalls, F_UINT),
	FLD(struct results_knee, time_s, F_DBL),
	FLD(struct results_knee, loss_at_bps, F_U64),
	FLD(struct results_knee, ndr_lower_achieved_bps, F_U64),
	FLD(struct results_knee, pdr_lower_achieved_bps, F_U64),
	FLD(struct results_knee, exceed_ratio, F_DBL),
	FLD(struct results_knee, final_s, F_DBL),
	FLD(struct results_knee, duration_sum_s, F_DBL),
	FLD(struct results_knee, ndr_ct_bps, F_U64),
	FLD(struct results_knee, pdr_ct_bps, F_U64),
	FLD(struct results_knee, ndr_lower_trials, F_UINT),
	FLD(struct results_knee, loads, F_UINT),
};

#define NF(a) (sizeof(a) / sizeof((a)[0]))

#endif
