/* SPDX-License-Identifier: MIT */
/*
 * The run model: everything one `ovlperf run` measured. The run fills it,
 * src/results/results_json.c writes it as run.json and reads it back, the
 * printers (src/report/report_run_*.c) and src/results/overhead.c
 * only read it. The raw material is the list of trials (one load_run each)
 * and the knee searches' outcomes; every figure in a report is derived from
 * them by results_aggregate(), so `ovlperf report DIR` re-renders exactly
 * what `ovlperf run` printed.
 *
 * The JSON schema is versioned (RESULTS_SCHEMA) and documented in
 * results/README.md. Fields may be added; none is renamed or removed without
 * bumping the version.
 */
#ifndef OVLPERF_RESULTS_H
#define OVLPERF_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layer.h"
#include "confirm.h"
#include "knee_fit.h"
#include "load_result.h"

/* run.json: "schema" names the document, "schema_version" counts its
 * versions. Version 1 had only a numeric "schema" (the version); the reader
 * still takes it. */
#define RESULTS_SCHEMA	    2
#define RESULTS_SCHEMA_NAME "ovlperf.run"
#define RESULTS_NAME_MAX    48
#define RESULTS_MAX_PATHS   8
#define RESULTS_TEXT_MAX    256

enum results_path_kind {
	RESULTS_PATH_UNDERLAY = 1,
	RESULTS_PATH_BUILTIN = 2,  /* our overlay, started and stopped by the run */
	RESULTS_PATH_EXTERNAL = 3, /* a VPN the user runs */
};

struct results_path {
	char name[RESULTS_NAME_MAX];
	enum results_path_kind kind;
	char addr[RESULTS_TEXT_MAX]; /* far end's data address (or name) */
	uint32_t mtu;		     /* MTU of the near end's interface; 0: unknown */
	/* The largest packet the path carries unfragmented, as the run judged
	 * UDP sizes by (0: unknown), and where it came from: "mtu-check" (the
	 * run's [mtu] probes), "expect_mtu" (the scenario), "probe" (a quick
	 * probe before the UDP trials) or "interface" (the near end's MTU). */
	uint32_t pmtu;
	char pmtu_source[16];
	int family; /* AF_INET or AF_INET6 of the data path; 0: unknown
		     * (results_path_family() then reads the address) */
	/* A built-in overlay's data cipher as its client-side daemon reported
	 * it once up (`tunnel show`: session_cipher, session_cipher_impl,
	 * session_cipher_by, cipher_order); "" when not known. */
	struct results_path_cipher {
		char name[24];
		char impl[16];
		char by[32];
		char order[16];
	} cipher;
};

enum results_trial_kind {
	RESULTS_TRIAL_TCP = 1,	 /* TCP goodput at a stream count */
	RESULTS_TRIAL_SWEEP = 2, /* a point of a linear UDP sweep */
	RESULTS_TRIAL_KNEE = 3,	 /* one trial of a knee search */
	RESULTS_TRIAL_DELAY = 4, /* UDP at a common load, for one-way delay */
};

/* One load_run, with where it sat in the run. */
struct results_trial {
	unsigned seq;  /* 1-based order of execution */
	unsigned path; /* index into run->paths */
	unsigned rep;  /* 0-based repetition */
	enum results_trial_kind kind;
	unsigned streams;
	uint32_t len;	     /* UDP datagram payload / TCP write size */
	uint64_t target_bps; /* UDP offered rate asked for; 0 for TCP */
	/* Delay trials: the load as a percentage of the lowest NDR (else PDR)
	 * any path reached at this size; 0: a fixed [udp] rate (or a run.json
	 * from before the loads were recorded). */
	double load_pct;
	double start_s;	   /* since the start of the run */
	double duration_s; /* measured */
	int status;	   /* 0 or the negative errno load_run returned */
	char error[RESULTS_TEXT_MAX];
	struct udp_result udp; /* UDP kinds */
	struct tcp_result tcp; /* TCP */
	struct cpu_use cpu_sender, cpu_receiver;
	double sender_cpu_s_per_gbit, receiver_cpu_s_per_gbit;
	double host_cpu_s; /* busy CPU seconds of the whole machine (lab runs) */
	/* The built-in overlay's busiest daemon thread over the measured window
	 * (lab runs of a builtin path): its share of a core, the lab host it
	 * runs on and its name ("ovl-tx0"); "" when not read. */
	double overlay_thread_cpu;
	unsigned overlay_thread_host;
	char overlay_thread[16];
	char overlay_process[16]; /* its process's name (comm): "ovlperf", "wireguard-go" */
	/* ... and a daemon whose cgroup has a CPU quota (the host with the most
	 * time throttled): the quota and the cores its process used, in cores,
	 * and the time the kernel held it at the quota (cpu.stat) over the
	 * measured window; quota 0: none found. throttled_share: of the
	 * quota's periods over that window, those the kernel throttled it in
	 * (cpu.stat nr_throttled / nr_periods; 0: not read) */
	double overlay_quota_cores, overlay_quota_used, overlay_throttled_s;
	double overlay_throttled_share;
	unsigned overlay_quota_host;
	/* that daemon's process name, its busiest thread and that thread's
	 * share of a core ("": not read) */
	char overlay_quota_process[16], overlay_quota_thread[16];
	double overlay_quota_thread_cpu;
	/* Each CPU's share of its time in softirq (the kernel's packet work)
	 * over the measured window, by CPU number, from /proc/stat: in a lab
	 * the one machine every lab host shares, so one set for them all;
	 * softirq_ncpu 0: not read (remote runs) */
	unsigned softirq_ncpu;
	double softirq[CPUUSE_MAX_CPUS];
	/* the CPU seconds the overlay's daemons used on both hosts together,
	 * over the measured window (0: not read) */
	double overlay_cpu_s;
	struct load_sched sched_client, sched_server; /* each end's test threads */
	/* TCP: the sending end's congestion control ("cubic", "bbr"; "": not
	 * reported), so no fix names the one in force */
	char congestion[16];
	bool reverse; /* TCP: the server's end sent ([tcp] reverse) */
	/* each end's host facts over the trial (load_result's; run.json's
	 * trials[].host_facts.client / .server) */
	struct hostfacts facts_client, facts_server;
};

/* What a knee search found for one path and datagram size. */
struct results_knee {
	unsigned path;
	uint32_t len;
	unsigned rep;
	bool found;			       /* an NDR lower bound was measured */
	bool pdr_found;			       /* a PDR lower bound was measured */
	char ndr_outcome[24];		       /* the search's word for each: "found", */
	char pdr_outcome[24];		       /* "above max", "below min", ... */
	uint64_t ndr_lower_bps, ndr_upper_bps; /* offered payload rate (the target) */
	uint64_t pdr_lower_bps, pdr_upper_bps;
	/* What the sender achieved in the trial that set the lower bound (at
	 * most its target): the NDR/PDR reported. 0 (a run.json from before
	 * they were recorded): the target stands in. */
	uint64_t ndr_lower_achieved_bps, pdr_lower_achieved_bps;
	double pdr_goal_pct; /* loss tolerated by the PDR */
	double width_goal;   /* relative width goal of the search */
	/* RFC 9971's goal attributes (shared by NDR and PDR) and, per goal,
	 * the conditional throughput at the relevant lower bound (0: none) */
	double exceed_ratio, final_s, duration_sum_s;
	uint64_t ndr_ct_bps, pdr_ct_bps;
	unsigned ndr_lower_trials; /* trials pooled at the NDR's lower bound */
	unsigned loads;		   /* distinct loads tried */
	uint64_t max_rx_bps;	   /* receive rate at the maximum offered rate */
	unsigned trials;
	unsigned fit_trials; /* of them the soft knee's fit trials (knee.h) */
	unsigned stalls;     /* of them repeats of a sender's stall (knee.h) */
	double time_s;
	struct loss_attrib loss_at;	/* loss at the first failing rate above the NDR */
	uint64_t loss_at_bps;		/* that rate; 0: none failed */
	char stopped[RESULTS_TEXT_MAX]; /* why the search was cut short; "": it was not */
	char cut_by[16];		/* what cut it: "max_trials", "max_time"; "": neither */
};

enum results_verdict { RESULTS_OK = 0, RESULTS_WARN = 1, RESULTS_FAIL = 2 };

/* One MTU / MSS check and its verdict (from the mtu module). */
struct results_mtu_check {
	unsigned path;
	char check[RESULTS_NAME_MAX];
	enum results_verdict verdict;
	uint32_t value; /* e.g. the probed MTU or MSS; 0: none */
	char reason[RESULTS_TEXT_MAX];
	char fix[RESULTS_TEXT_MAX];
};

struct results_host {
	char kernel[RESULTS_TEXT_MAX]; /* uname: sysname release version machine */
	char cpu[RESULTS_TEXT_MAX];    /* /proc/cpuinfo model name */
	unsigned ncpu;
	char hostname[64];
	/* A lab's client and server hosts' CPUs ([lab] cpus, "0-3"); "": any */
	char client_cpus[48], server_cpus[48];
};

/* A lab link's WAN conditions and how they were made (a lab run; a run
 * between hosts has none). */
#define RESULTS_MAX_LINKS 8
struct results_link_dir {
	uint64_t delay_ns, jitter_ns;
	double loss_pct, loss_burst_p_pct, loss_burst_r_pct, reorder_pct;
};
struct results_link {
	unsigned a, b;	      /* host indexes: dir[0] is a -> b */
	char means[16];	      /* "netem", "userspace", or "none" (nothing emulated) */
	char conditions[160]; /* as the keys spell them: "delay 40ms/10ms loss 1%" */
	uint64_t rate_bps;    /* the link's tbf rate (0: none) */
	double drop_pct;      /* nftables random drop */
	struct results_link_dir dir[2];
};

struct results_run {
	unsigned schema;
	char version[32]; /* ovlperf version that measured */
	char scenario_name[RESULTS_NAME_MAX];
	char scenario_file[RESULTS_TEXT_MAX];
	char *scenario_text;  /* the scenario file verbatim (malloc'ed) */
	char started_utc[32]; /* ISO 8601, e.g. 2026-11-30T09:20:00Z */
	double duration_s;
	bool complete;
	char stop_reason[RESULTS_TEXT_MAX]; /* why an incomplete run stopped */
	struct results_host host;
	/* Load of the delay trials at the first [udp] delay_loads fraction
	 * (the last size's); 0: none. Every load is in the delay trials. */
	uint64_t delay_load_bps;
	double pdr_goal_pct;

	/* The layers (layer.h) the scenario stated its UDP sizes and its
	 * sweep's and knee's rates at: the printers show those columns at
	 * them. Every figure stays recorded in payload units. */
	enum layer size_layer, sweep_rate_layer, knee_rate_layer;
	/* The lab link shaped to count like Ethernet (rate_layer = line): its
	 * line rate, for "% of line rate" (RFC 2544 26.1); 0: none */
	uint64_t line_rate_bps;

	unsigned nlinks;
	struct results_link links[RESULTS_MAX_LINKS];
	unsigned npaths;
	struct results_path paths[RESULTS_MAX_PATHS];
	uint32_t udp_fit_len; /* [udp] sizes = fit: the payload chosen (0: not asked) */

	size_t ntrials, trials_cap;
	struct results_trial *trials;
	size_t nknees, knees_cap;
	struct results_knee *knees;
	size_t nmtu, mtu_cap;
	struct results_mtu_check *mtu;
	/* run --confirm: each limited TCP figure rerun with its fix (confirm.h) */
	unsigned nconfirms;
	struct results_confirm confirms[RESULTS_MAX_CONFIRMS];
	/* Read back from a run.json: each knee's headlines as it recorded
	 * them, which results_aggregate() keeps instead of deciding again;
	 * a knee the file has none for (a file from before them) keeps its
	 * found bounds, as it read then. */
	bool heads_read;
	size_t nheads;
	struct results_head_rec *heads;
};

/* The layers of a UDP trial (results_layers.c): its datagrams counted at
 * the payload, IP packet, Ethernet frame and line layers of layer.h, from
 * the datagrams counted, their size and the path's family. */
struct results_layers {
	int family;
	double sent_pps, received_pps;	  /* datagrams = packets = frames a second */
	uint64_t bytes[LAYER_COUNT];	  /* one datagram */
	uint64_t sent_bytes[LAYER_COUNT]; /* sent * bytes */
	uint64_t received_bytes[LAYER_COUNT];
	double sent_bps[LAYER_COUNT], received_bps[LAYER_COUNT];
	/* Over the built-in overlay, measured by its daemon (udp_outer in
	 * load_result.h): the outer datagrams at every layer (no payload layer
	 * beyond their UDP payload), their rate over the trial, and the mean
	 * line bytes of one outer datagram against one test datagram's. */
	bool outer;
	int outer_family;
	uint64_t outer_datagrams;
	uint64_t outer_bytes[LAYER_COUNT];
	double outer_bps[LAYER_COUNT];
	double outer_line_per_datagram, inner_line_per_datagram;
};

/* The family a path's datagrams carry headers of: the recorded one, else
 * its address's (a run.json from before it was recorded). */
int results_path_family(const struct results_path *p);
/* One datagram of len payload bytes on path, at layer l. */
uint64_t results_layer_bytes(const struct results_run *run, unsigned path, uint32_t len,
			     enum layer l);
/* pps datagrams of len payload bytes on path, as bit/s at layer l. */
double results_layer_bps(const struct results_run *run, unsigned path, uint32_t len, double pps,
			 enum layer l);
/* A UDP trial at every layer; false for TCP, or datagrams that crossed in
 * fragments (not one frame each). */
bool results_trial_layers(const struct results_run *run, const struct results_trial *t,
			  struct results_layers *out);

/* A figure over repetitions: median with its spread. */
struct results_stat {
	unsigned n;
	double median, min, max;
};

/* What a knee's headline NDR or PDR is. A sharp knee (a shaper, the
 * built-in overlay) keeps the search's bounds; on a soft one each
 * repetition's NDR is where its luck ran out and the pooled fit of all its
 * trials is the figure that repeats (knee_fit.h); when the repetitions'
 * test says the path itself changed between them, no single figure is. */
enum results_head {
	RESULTS_HEAD_FOUND = 0, /* the search's bounds, as found */
	RESULTS_HEAD_FIT,	/* the fit at the exceed ratio, with its interval */
	RESULTS_HEAD_CHANGED,	/* the path changed between repetitions: none */
};
/* "found", "fit", "changed" */
const char *results_head_name(enum results_head h);
int results_head_parse(const char *s);

/* One knee's headlines as a run.json recorded them (results_run.heads) */
struct results_head_rec {
	unsigned path;
	uint32_t len;
	enum results_head ndr, pdr;
};

/* Other work's cores (a trial's baseline) above which the whole machine's
 * CPU per Gbit is not the test's: identical default runs on a 2-core
 * machine read the overlay's whole-machine ratio to the underlay's x7.45
 * when quiet and x1.03 to x1.83 with other builds beside them; less
 * baselines of 1 to 2 cores measured between trials, x0.45 to x14.65. */
#define RESULTS_HOST_CPU_QUIET_CORES 0.25

/* Aggregates, derived from trials and knees by results_aggregate(). */
struct results_tcp_point {
	unsigned path, streams;
	struct results_stat goodput_bps;
	struct results_stat cpu_s_per_gbit; /* sender + receiver process */
	/* The whole machine less its baseline (the machine's busy CPU with no
	 * test running, measured between trials: hostfacts_net_cores()) where
	 * the trial's host facts have one, else the whole machine (an older
	 * run.json); n = 0 if unknown. A repetition during which the rest of the
	 * machine moved by more than the test's own share is left out and
	 * counted in host_cpu_moved: its figure carries other work. */
	struct results_stat host_cpu_s_per_gbit;
	unsigned host_cpu_moved;
	double host_cpu_busy; /* the most other work's cores among those left out */
	/* the test's processes and the overlay's daemons (a lab's builtin
	 * path; host facts' processes elsewhere are not added): what stands
	 * when the whole machine's figure cannot */
	struct results_stat own_cpu_s_per_gbit;
	struct results_stat retransmits;
	struct results_stat rtt_us;
	uint32_t snd_mss; /* most frequent sender MSS */
};

struct results_sweep_point {
	unsigned path;
	uint32_t len;
	enum results_trial_kind kind; /* SWEEP or KNEE (knee trials, by rate) */
	uint64_t target_bps;
	struct results_stat tx_bps, rx_bps, tx_pps, rx_pps, delivered_pct;
	struct results_stat owd_p50_ms, owd_p99_ms;
	unsigned generator_limited; /* how many of the trials were */
	/* over the built-in overlay: the mean line bytes of an outer
	 * datagram, measured (results_layers); n = 0 elsewhere */
	struct results_stat outer_line_per_datagram;
};

/* A knee over repetitions. Each repetition's lower and upper bound come
 * from that repetition; the medians (and min-max) of each are taken over
 * the same repetitions, so lower <= upper holds for the medians as it does
 * for every repetition. */
/* One answer per question: when some repetition found its knee, a
 * repetition whose search ended on a lower bound below it (its sender's
 * limit, max_rate, or cut short) agrees with that knee and says nothing
 * more of it; the figure is then the found repetitions' alone (used), and
 * the others are named here: how many, the highest of their bounds, its
 * repetition (0-based) and outcome. A bound above every found knee keeps
 * the figure a bound (used false). */
struct results_knee_left {
	bool used;
	unsigned n, rep;
	uint64_t bps;
	char outcome[24];
};

struct results_knee_point {
	unsigned path;
	uint32_t len;
	/* lower bounds: the rate achieved in the deciding trial, over the
	 * repetitions that found one; their targets beside them */
	struct results_stat ndr_bps, pdr_bps;
	struct results_stat ndr_target_bps, pdr_target_bps;
	/* upper bounds (offered rate of the lowest failing trial) of the same
	 * repetitions; one without an upper bound counts as unbounded, and a
	 * median that is unbounded leaves n = 0. Without any lower bound: the
	 * upper bounds of every repetition (a "below-min" knee). */
	struct results_stat ndr_upper_bps, pdr_upper_bps;
	/* the NDR/PDR figure is only a lower bound: a repetition behind it
	 * passed at max_rate, hit the generator's limit or did not finish */
	bool ndr_lower_bound, pdr_lower_bound;
	/* Repetitions left out of a found figure (struct results_knee_left) */
	struct results_knee_left ndr_left, pdr_left;
	unsigned trials;
	double time_s;
	/* of the median repetition, all from that one repetition: */
	uint64_t max_rx_bps;
	uint64_t loss_at_bps; /* the first failing rate above the NDR; 0 none */
	/* The loss above the NDR: every knee (and MRR) trial of every
	 * repetition at a load above that repetition's NDR (all of them when
	 * it found none), where its lost datagrams went summed in loss_at;
	 * the trial that lost the largest share and its offered rate; and of
	 * those that lost nothing, the largest shortfall of the arrival rate
	 * below the sent one (the path queued: knee_trial_loss()), and at
	 * that trial how much the queue grew (ms) in how long a trial (s):
	 * "lossless for 1 s only: the queue grew 31 ms". */
	struct loss_attrib loss_at;
	unsigned above_trials, above_lossy;
	uint64_t above_sent, above_lost;
	double above_worst_ratio;
	uint64_t above_worst_bps;
	double above_queued_ratio;
	uint64_t above_queued_bps;
	double above_queued_ms, above_queued_s;
	unsigned found;			       /* repetitions that found an NDR */
	unsigned pdr_found;		       /* ... and a PDR */
	char ndr_outcome[24], pdr_outcome[24]; /* of the median repetition */
	/* conditional throughput (RFC 9971) over the repetitions */
	struct results_stat ndr_ct_bps, pdr_ct_bps;
	double width_goal;
	/* Repetitions whose search max_trials or max_time cut short
	 * (results_knee's cut_by): all, by max_time, and those of them that
	 * left the NDR unfinished. */
	unsigned cut, cut_time, cut_unfinished;
	unsigned stalls; /* trials repeated after the sender stalled, all repetitions */
	unsigned reps;	 /* repetitions searched */
	/* How repeatable the NDR is: (max - min) / median of the repetitions'
	 * lower bounds (0 with fewer than two). When it exceeds the width, the
	 * trials that disagreed: those that lost at a load no higher than some
	 * repetition's NDR, and where their datagrams were lost. */
	double ndr_spread;
	unsigned disagree_trials;
	struct loss_attrib disagree_loss;
	/* How soft the knee is: the knee trials of every repetition at loads
	 * between the lowest and the highest NDR target, and those of them
	 * that lost. About half lost: loss there is chance, not load. */
	unsigned band_trials, band_lossy;
	/* Where the soft knee lies from all trials (knee_fit.h): the NDR
	 * goal's chance of a lossy trial fitted over every repetition's knee
	 * trials of the final duration, pooled; each repetition's own knee
	 * under the common slope, their test against one curve
	 * (ndr_fit_reps), the median and range of their figures and their
	 * spread (max - min) / median, as ndr_spread is the bounds'. A knee
	 * without overlap has none (ndr_fit.load_bps 0, ndr_fit_rep_bps.n 0). */
	struct knee_fit ndr_fit;
	struct knee_fit_reps ndr_fit_reps;
	struct results_stat ndr_fit_rep_bps;
	double ndr_fit_spread;
	/* The PDR goal's fit: a trial is bad when it lost more than the
	 * PDR's loss ratio (none: pdr_fit.load_bps 0). */
	struct knee_fit pdr_fit;
	/* What each goal's headline figure is (results_knee_head.c): decided
	 * once here, kept in run.json's summary and read back from it, so
	 * every printer and `report A B`, the trend and the matrix show one
	 * answer. With FIT, ndr_head_bps is the fit as a figure: median its
	 * load, min and max its 90 % interval, n the repetitions fitted. */
	enum results_head ndr_head, pdr_head;
	struct results_stat ndr_head_bps, pdr_head_bps;
};

/* A soft knee: loss there came by chance rather than with the load. The
 * report's test (about half the knee trials between the lowest and the
 * highest NDR the repetitions found lost: a quarter to three quarters of
 * at least four), or a fit whose chance of a lossy trial rises from 10 %
 * to 90 % over more than RESULTS_SOFT_BAND of its figure. The second
 * because the NDRs of a soft path end where luck ran out, mostly below
 * its 50 % point: on bench/knee_soft_spread.c's curve (slope 10, 10 % to
 * 90 % over 36 % of the knee) three repetitions' NDRs at 310..410 Mbit/s
 * of a 440 Mbit/s knee had 14 of the 66 trials between them lost (21 %).
 * 10 % is a slope of 44 (wireguard-go measured 6 to 14 here); a shaper has
 * no fit at all, its trials never overlap. */
#define RESULTS_SOFT_BAND 0.10
bool results_knee_soft(const struct results_knee_point *p);

/* Whether a knee outcome ("found", "above-max", ...) makes its lower bound
 * only a lower bound of the knee. */
bool results_knee_is_lower_bound(const char *outcome);
/* One repetition's figure of a knee (pdr: the PDR, else the NDR), as its
 * point's median is taken over: the rate achieved at its lower bound, never
 * above the target. false: the repetition found none. */
bool results_knee_rep_lower(const struct results_knee *k, bool pdr, double *lo);

struct results_delay_point {
	unsigned path;
	uint32_t len;
	uint64_t load_bps;
	double load_pct; /* of the lowest NDR; 0: a fixed [udp] rate */
	struct results_stat p50_ms, p99_ms, delivered_pct;
	/* of that delay, the p99 of the wait in the receiver's sockets
	 * (udp_result.rx_wait): n 0 when no trial measured it */
	struct results_stat rx_wait_p99_ms;
};

struct results_summary {
	size_t ntcp, nsweep, nknee, ndelay;
	double owd_error_ms; /* largest one-way delay error of any trial: 0 when
			      * every delay is exact (one clock), else they are
			      * upper bounds (owd_summary.error_ns) */
	struct results_tcp_point *tcp;
	struct results_sweep_point *sweep;
	struct results_knee_point *knee;
	struct results_delay_point *delay;
};

void results_init(struct results_run *run);
void results_free(struct results_run *run);

/* Fills host (uname, CPU model), version and schema. */
void results_fill_host(struct results_run *run);

int results_add_path(struct results_run *run, const char *name, enum results_path_kind kind,
		     const char *addr, uint32_t mtu);
/* Appends a zeroed trial and returns it, or NULL when out of memory. */
struct results_trial *results_add_trial(struct results_run *run);
/* Copies what a load_run measured into the trial. */
void results_trial_from_load(struct results_trial *t, const struct load_result *res);
/* The evidence that UDP trial t's loss past every host counter is the
 * network's, in t->udp.loss_at.network_where: a lab link of run whose
 * conditions lose (random loss, a burst model, nftables drops), or whose
 * shaper the trial's offered rate reached (90 % of the rate's payload
 * share). Left empty without: that rest is unaccounted (loss_place.h). */
void results_trial_network_where(const struct results_run *run, struct results_trial *t);
struct results_knee *results_add_knee(struct results_run *run);
struct results_mtu_check *results_add_mtu(struct results_run *run);

/* The underlay path's index, or -1. */
int results_underlay(const struct results_run *run);

/* Median and min/max of n values (the array is sorted in place). */
struct results_stat results_stat_of(double *v, size_t n);

/* "26.1 Mbit/s", "3.34 Gbit/s": a rate in a sentence (three digits); buf. */
const char *results_fmt_bps(char *buf, size_t len, double bps);

/* Delivered percentage of a UDP trial: received / sent. */
double results_delivered_pct(const struct udp_result *u);

int results_aggregate(const struct results_run *run, struct results_summary *sum);
void results_summary_free(struct results_summary *sum);

/* Lookups in a summary; NULL when absent. */
const struct results_tcp_point *results_find_tcp(const struct results_summary *sum, unsigned path,
						 unsigned streams);
/* The basis of the delay trials' loads at one datagram size: the lowest NDR
 * (or PDR) any path reached, so every fraction of it is a load every path
 * carries without loss. A path's figure is the median over its repetitions
 * of what each carried (a confirmed NDR, else the highest lossless or PDR
 * rate an unfinished search saw), as the reports give it: the best
 * repetition alone would put "90 %" at or above the knee the report shows.
 * 0: no path found one. */
uint64_t results_delay_basis(const struct results_run *run, uint32_t len);
const struct results_knee_point *results_find_knee(const struct results_summary *sum, unsigned path,
						   uint32_t len);
const struct results_delay_point *results_find_delay(const struct results_summary *sum,
						     unsigned path, uint32_t len,
						     uint64_t load_bps);

const char *results_path_kind_name(enum results_path_kind k);
int results_path_kind_parse(const char *s);
const char *results_trial_kind_name(enum results_trial_kind k);
int results_trial_kind_parse(const char *s);
const char *results_verdict_name(enum results_verdict v);
int results_verdict_parse(const char *s);

/* run.json: write atomically (temp file + rename) and read back. Reading
 * checks the schema version and names the field that is missing or wrong in
 * err. Both return 0 or a negative errno (-EINVAL for a malformed file). */
int results_write_json(const struct results_run *run, const char *path);
int results_read_json(const char *path, struct results_run *run, char *err, size_t errlen);
/* The whole run as a JSON text (malloc'ed), summary and overhead included. */
char *results_to_json(const struct results_run *run);
int results_from_json(const char *text, struct results_run *run, char *err, size_t errlen);

#endif
