// SPDX-License-Identifier: MIT
/*
 * The paths of a run, up and down: in a lab, the namespaces (lab_up), the
 * built-in overlay (lab_overlay_up), `ovlperf server` in the server host and
 * the external paths' setup commands; on real hosts the external
 * commands and the built-in overlay the far end's `ovlperf server
 * --overlay` brings up with us (overlay.h). Everything brought up is recorded in struct run so that
 * run_paths_down() removes exactly that, whatever stopped the run.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "interrupt.h"
#include "lab.h"
#include "lab_overlay.h"
#include "load_spec.h"
#include "log.h"
#include "overlay.h"
#include "run_int.h"

extern char **environ;

static int ss_to_str(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	const void *a = ss->ss_family == AF_INET
				? (const void *)&((const struct sockaddr_in *)ss)->sin_addr
				: (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;

	return inet_ntop(ss->ss_family, a, buf, (socklen_t)len) ? 0 : -errno;
}

/* Whether a process in some namespace listens on TCP port: its own view of
 * /proc/PID/net/tcp{,6} is that of its network namespace. Only once it is in
 * the namespace netns_ino: between fork and setns the child still sees ours,
 * where another program may listen on the same port. */
static bool listening(pid_t pid, uint16_t port, ino_t netns_ino)
{
	static const char *const files[] = { "tcp6", "tcp" };
	char path[64], line[256];
	struct stat ns;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	if (stat(path, &ns) < 0 || ns.st_ino != netns_ino)
		return false;

	for (size_t i = 0; i < 2; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/net/%s", (int)pid, files[i]);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			unsigned lport, st;
			char *colon = strchr(line, ':');

			/* "  0: 00000000:145B 00000000:0000 0A ..." local port, state */
			if (!colon || !(colon = strchr(colon + 1, ':')))
				continue;
			if (sscanf(colon + 1, "%x %*s %x", &lport, &st) == 2 && lport == port &&
			    st == 0x0A) {
				fclose(f);
				return true;
			}
		}
		fclose(f);
	}
	return false;
}

static bool server_alive(struct run *r)
{
	int st;

	if (r->server <= 0)
		return false;
	if (waitpid(r->server, &st, WNOHANG) == r->server) {
		r->server = 0; /* reaped: never signal a pid that may be reused */
		return false;
	}
	return true;
}

static int start_server(struct run *r)
{
	char log_path[1100];
	char *argv[] = { "/proc/self/exe", "server", NULL };
	uint64_t deadline;
	struct stat ns;
	int fd;

	snprintf(log_path, sizeof(log_path), "%s/server.log", r->dir);
	fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	r->server = lab_spawn(r->lab, r->scn->lab.server, argv, -1, fd);
	if (fd >= 0)
		close(fd);
	if (r->server < 0) {
		int err = (int)r->server;

		r->server = 0;
		run_stop(r, err, "cannot start the server in lab host %u: %s", r->scn->lab.server,
			 strerror(-err));
		return err;
	}
	fd = lab_netns_fd(r->lab, r->scn->lab.server);
	if (fd < 0 || fstat(fd, &ns) < 0)
		ns.st_ino = 0;
	if (fd >= 0)
		close(fd);
	deadline = clock_now_ns() + RUN_SERVER_WAIT_MS * NSEC_PER_MSEC;
	while (!listening(r->server, LOAD_DEFAULT_PORT, ns.st_ino)) {
		if (!server_alive(r)) {
			run_stop(r, -EHOSTDOWN,
				 "the server in lab host %u exited at start (see %s)",
				 r->scn->lab.server, log_path);
			return -EHOSTDOWN;
		}
		if (interrupt_requested())
			return -EINTR;
		if (clock_now_ns() > deadline) {
			run_stop(r, -ETIMEDOUT,
				 "the server in lab host %u did not listen on port "
				 "%u within %u ms (see %s)",
				 r->scn->lab.server, LOAD_DEFAULT_PORT, RUN_SERVER_WAIT_MS,
				 log_path);
			return -ETIMEDOUT;
		}
		clock_sleep_until_ns(clock_now_ns() + 20 * NSEC_PER_MSEC);
	}
	return 0;
}

/* Waits for a setup/teardown command. Ctrl-C arriving while it runs stops it
 * (SIGTERM to its process group, SIGKILL 5 s later), as does running longer
 * than RUN_COMMAND_TIMEOUT_S; a teardown that starts after Ctrl-C runs to
 * its end. Returns the exit status, 128 + signal, or a negative errno. */
static int wait_command(pid_t pid, const char *cmd)
{
	bool was_interrupted = interrupt_requested();
	uint64_t start = clock_now_ns(), term_at = 0;
	int st;

	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		uint64_t now = clock_now_ns();

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -errno;
		if (!term_at && ((!was_interrupted && interrupt_requested()) ||
				 now - start > RUN_COMMAND_TIMEOUT_S * NSEC_PER_SEC)) {
			if (!interrupt_requested())
				log_warn("'%s' still runs after %u s: stopping it", cmd,
					 RUN_COMMAND_TIMEOUT_S);
			kill(-pid, SIGTERM);
			term_at = now;
		} else if (term_at && now - term_at > 5 * NSEC_PER_SEC) {
			kill(-pid, SIGKILL);
		}
		clock_sleep_until_ns(now + 20 * NSEC_PER_MSEC);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The run's log of its commands, <dir>/RUN_COMMANDS_LOG, opened for
 * appending with a line naming the command: what they print is theirs, not a
 * result, so it never reaches the results' output. -1 when it cannot be
 * opened (the output then goes to the log's descriptor, 2). */
static int commands_log(const struct run *r, const char *what, const char *cmd)
{
	char path[1100], head[SCN_CMD_MAX + 64];
	int fd, n;

	if (snprintf(path, sizeof(path), "%s/%s", r->dir, RUN_COMMANDS_LOG) >= (int)sizeof(path))
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		log_warn("cannot open %s (%s): the command's output goes to the log", path,
			 strerror(errno));
		return -1;
	}
	n = snprintf(head, sizeof(head), "== %s: %s\n", what, cmd);
	if (n > 0 && write(fd, head, (size_t)n < sizeof(head) ? (size_t)n : sizeof(head) - 1) < 0)
		log_warn("writing %s: %s", path, strerror(errno));
	return fd;
}

/* Runs an external path's setup or teardown command with /bin/sh in the root
 * namespace; in a lab, OVLPERF_LAB / OVLPERF_NS_CLIENT / OVLPERF_NS_SERVER
 * tell it where the hosts are, and OVLPERF_CPUS_CLIENT / OVLPERF_CPUS_SERVER
 * their CPUs ("" when the lab gives none; the command itself runs on the
 * client's, as this process does). Both its output streams go to the run's
 * commands log. Returns the exit status or a negative errno. */
static int shell(struct run *r, const char *what, const char *cmd)
{
	char vars[5][128];
	size_t n = 0;
	char **envp;
	pid_t pid;
	int out;

	while (environ[n])
		n++;
	envp = calloc(n + 6, sizeof(*envp));
	if (!envp)
		return -ENOMEM;
	memcpy(envp, environ, n * sizeof(*envp));
	if (r->lab) {
		snprintf(vars[0], sizeof(vars[0]), "OVLPERF_LAB=%s", r->scn->lab.name);
		snprintf(vars[1], sizeof(vars[1]), "OVLPERF_NS_CLIENT=%s",
			 lab_netns_name(r->lab, r->scn->lab.client));
		snprintf(vars[2], sizeof(vars[2]), "OVLPERF_NS_SERVER=%s",
			 lab_netns_name(r->lab, r->scn->lab.server));
		/* each host's CPUs ("" when the lab gives none), for taskset -c */
		snprintf(vars[3], sizeof(vars[3]), "OVLPERF_CPUS_CLIENT=%s",
			 lab_host_cpus(r->lab, r->scn->lab.client));
		snprintf(vars[4], sizeof(vars[4]), "OVLPERF_CPUS_SERVER=%s",
			 lab_host_cpus(r->lab, r->scn->lab.server));
		for (int i = 0; i < 5; i++)
			envp[n++] = vars[i];
	}
	out = commands_log(r, what, cmd);
	pid = fork();
	if (pid < 0) {
		free(envp);
		if (out >= 0)
			close(out);
		return -errno;
	}
	if (pid == 0) {
		/* Its own process group, so that it can be stopped with everything
		 * it started; and SIGPIPE as a shell script expects it. */
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		if (dup2(out >= 0 ? out : STDERR_FILENO, STDOUT_FILENO) < 0 ||
		    (out >= 0 && dup2(out, STDERR_FILENO) < 0))
			_exit(127);
		execle("/bin/sh", "sh", "-c", cmd, (char *)NULL, envp);
		_exit(127);
	}
	free(envp);
	if (out >= 0)
		close(out);
	return wait_command(pid, cmd);
}

static int lab_address(struct run *r, struct run_path *p)
{
	const struct scenario_path *sp = p->sp;
	struct sockaddr_storage ss;
	int err;

	if (sp->type == SCN_PATH_EXTERNAL) {
		snprintf(p->addr, sizeof(p->addr), "%s", sp->address);
		return 0;
	}
	if (sp->type == SCN_PATH_BUILTIN)
		err = lab_overlay_addr(r->ov, r->scn->lab.server, sp->family, &ss);
	else if (sp->address[0]) {
		snprintf(p->addr, sizeof(p->addr), "%s", sp->address);
		return 0;
	} else
		err = lab_host_addr(r->lab, r->scn->lab.server, sp->link, sp->family, &ss);
	if (!err)
		err = ss_to_str(&ss, p->addr, sizeof(p->addr));
	if (err)
		run_stop(r, err, "path %s: no address for lab host %u: %s", sp->name,
			 r->scn->lab.server, strerror(-err));
	return err;
}

static uint32_t path_mtu(const struct run *r, const struct scenario_path *sp)
{
	uint32_t link_mtu;

	if (!r->lab || sp->link >= r->scn->lab.nlinks)
		return 0;
	link_mtu = r->scn->lab.links[sp->link].mtu ? r->scn->lab.links[sp->link].mtu : 1500;
	if (sp->type == SCN_PATH_UNDERLAY)
		return link_mtu;
	if (sp->type == SCN_PATH_BUILTIN)
		return sp->mtu ? sp->mtu : link_mtu - (sp->underlay_family == AF_INET6 ? 80 : 60);
	return 0;
}

/* The data cipher the overlay's first host runs (its handshakes are done) into path k of run.json.
 */
static void note_cipher(struct run *r, unsigned k)
{
	struct lab_overlay_cipher c;
	struct results_path_cipher *out;

	if (k >= r->res->npaths || lab_overlay_cipher(r->ov, 0, &c) < 0)
		return;
	out = &r->res->paths[k].cipher;
	snprintf(out->name, sizeof(out->name), "%s", c.name);
	snprintf(out->impl, sizeof(out->impl), "%s", c.impl);
	snprintf(out->by, sizeof(out->by), "%s", c.by);
	snprintf(out->order, sizeof(out->order), "%s", c.order);
	log_info("path %s: data cipher %s (%s, %s; offer order %s)", r->res->paths[k].name, c.name,
		 c.impl, c.by, c.order);
}

static int builtin_up(struct run *r)
{
	const struct scenario_path *b = NULL;
	struct lab_overlay_spec os;
	int err;

	for (unsigned i = 0; i < r->scn->npaths; i++) {
		if (r->scn->paths[i].type != SCN_PATH_BUILTIN)
			continue;
		if (b) {
			run_stop(r, -EINVAL,
				 "paths %s and %s: a lab carries one built-in overlay "
				 "at a time (both would use 198.19.0.0/24)",
				 b->name, r->scn->paths[i].name);
			return -EINVAL;
		}
		b = &r->scn->paths[i];
	}
	if (!b)
		return 0;
	memset(&os, 0, sizeof(os));
	os.link = b->link;
	os.mtu = b->mtu;
	os.cipher = b->cipher[0] ? b->cipher : NULL;
	os.underlay_family = b->underlay_family ? b->underlay_family : AF_INET;
	err = lab_overlay_up(r->lab, &os, &r->ov);
	if (err) {
		r->ov = NULL;
		if (!interrupt_requested())
			run_stop(r, err, "path %s: the built-in overlay did not come up: %s",
				 b->name, strerror(-err));
		return err;
	}
	note_cipher(r, (unsigned)(b - r->scn->paths));
	return 0;
}

static bool process_alive(pid_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH);
}

/* A lab of this name already recorded. A user's (`lab up`) is refused unless
 * the run is forced: what runs in it is theirs, and removing the lab kills
 * it. A run's is in use while that run's process lives, and left behind by a
 * killed run once it is gone (then it is removed). Called before the results
 * directory exists, so that a refused run has touched nothing. */
int run_paths_claim_lab(struct run *r)
{
	const char *name = r->scn->lab.name;
	enum lab_owner owner = LAB_OWNER_USER;
	pid_t pid = 0;
	int err;

	err = lab_creator(name, &owner, &pid);
	if (err == -ENOENT)
		return 0;
	if (err) {
		run_stop(r, err,
			 "lab '%s' is recorded but its state cannot be read (%s); nothing was "
			 "touched: remove it with 'ovlperf lab down %s' or choose another [lab] "
			 "name",
			 name, strerror(-err), name);
		return err;
	}
	if (owner == LAB_OWNER_RUN && process_alive(pid)) {
		run_stop(r, -EBUSY,
			 "lab '%s' is in use by process %d (another run?); choose another "
			 "[lab] name or stop that process",
			 name, (int)pid);
		return -EBUSY;
	}
	if (owner == LAB_OWNER_USER && !r->opt->force) {
		run_stop(r, -EBUSY,
			 "lab '%s' was made by 'ovlperf lab up' and is yours: the run would "
			 "remove it and kill what runs in it. Nothing was touched. Remove it "
			 "yourself (ovlperf lab down %s), choose another [lab] name, or run "
			 "with --force to replace it",
			 name, name);
		return -EBUSY;
	}
	err = lab_down_by_name(name);
	if (err && err != -ENOENT) {
		run_stop(r, err, "lab '%s' could not be removed: %s", name, strerror(-err));
		return err;
	}
	if (owner == LAB_OWNER_USER)
		log_warn("removed lab '%s' made by 'ovlperf lab up' (--force)", name);
	else
		log_warn("removed lab '%s' left behind by an earlier run (process %d is gone)",
			 name, (int)pid);
	return 0;
}

/* The lab's links, their WAN conditions and how lab_up() made them, for
 * run.json and every report. */
static void record_links(struct run *r)
{
	const struct lab_spec *s = lab_get_spec(r->lab);

	r->res->nlinks = 0;
	for (unsigned i = 0; i < s->nlinks && i < RESULTS_MAX_LINKS; i++) {
		const struct lab_link_spec *k = &s->links[i];
		struct results_link *l = &r->res->links[r->res->nlinks++];

		*l = (struct results_link){
			.a = k->a, .b = k->b, .rate_bps = k->rate_bps, .drop_pct = k->drop_pct
		};
		snprintf(l->means, sizeof(l->means), "%s",
			 k->means == LAB_MEANS_AUTO ? "none" : lab_means_name(k->means));
		if (lab_link_cond_str(k, l->conditions, sizeof(l->conditions)))
			snprintf(l->conditions, sizeof(l->conditions), "(too long to show)");
		for (unsigned d = 0; d < 2; d++) {
			const struct link_dir_conf *c = &k->cond.dir[d];

			l->dir[d] = (struct results_link_dir){
				.delay_ns = c->delay_ns,
				.jitter_ns = c->jitter_ns,
				.loss_pct = c->loss_ppm / 1e4,
				.loss_burst_p_pct = c->ge_p_ppm / 1e4,
				.loss_burst_r_pct = c->ge_r_ppm / 1e4,
				.reorder_pct = c->reorder_ppm / 1e4,
			};
		}
	}
}

static int lab_up_all(struct run *r)
{
	struct lab_spec spec;
	int err;

	scenario_lab_spec(r->scn, &spec);
	err = lab_up_owned(&spec, LAB_OWNER_RUN, &r->lab);
	if (err) {
		r->lab = NULL;
		if (!interrupt_requested())
			run_stop(r, err, "lab '%s' could not be built: %s", spec.name,
				 strerror(-err));
		return err;
	}
	record_links(r);
	/* the run's own loads on its client host's CPUs, as lab_spawn() puts
	 * the server and the overlay's daemons on theirs */
	snprintf(r->res->host.client_cpus, sizeof(r->res->host.client_cpus), "%s",
		 lab_host_cpus(r->lab, r->scn->lab.client));
	snprintf(r->res->host.server_cpus, sizeof(r->res->host.server_cpus), "%s",
		 lab_host_cpus(r->lab, r->scn->lab.server));
	err = lab_pin_self(r->lab, r->scn->lab.client);
	if (err) {
		run_stop(r, err, "cannot put this run on lab host %u's CPUs (%s): %s",
			 r->scn->lab.client, lab_host_cpus(r->lab, r->scn->lab.client),
			 strerror(-err));
		return err;
	}
	err = builtin_up(r);
	if (!err && !interrupt_requested())
		err = start_server(r);
	return err;
}

static uint8_t cipher_code(const char *name)
{
	if (!strcasecmp(name, "aes256gcm") || !strcasecmp(name, "aes-256-gcm"))
		return PROTO_OVL_CIPHER_AES256GCM;
	if (!strcasecmp(name, "chacha20poly1305") || !strcasecmp(name, "chacha20-poly1305"))
		return PROTO_OVL_CIPHER_CHACHA20POLY1305;
	return PROTO_OVL_CIPHER_AUTO;
}

/* The built-in overlay to a [host.*] host: the far end's server brings up
 * its end; the loads then go to the server's overlay address. */
static int remote_builtin_up(struct run *r, struct run_path *p, const struct scenario_host *h)
{
	const struct scenario_path *sp = p->sp;
	struct overlay_client_spec os = { .host = h->address,
					  .port = p->port,
					  .family = sp->underlay_family,
					  .psk_file = h->psk_file,
					  .mtu = (uint16_t)sp->mtu,
					  .cipher = cipher_code(sp->cipher) };
	char err[RESULTS_TEXT_MAX] = "";
	int rc;

	if (sp->overlay_subnets[0] &&
	    !overlay_net_parse(sp->overlay_subnets, &os.nets, err, sizeof(err))) {
		run_stop(r, -EINVAL, "path %s: %s", sp->name, err);
		return -EINVAL;
	}
	rc = overlay_client_up(&os, &p->ovl, err, sizeof(err));
	if (rc < 0) {
		p->ovl = NULL;
		if (!interrupt_requested())
			run_stop(r, rc, "path %s: the built-in overlay to %s did not come up: %s",
				 sp->name, h->address, err);
		return rc;
	}
	rc = overlay_client_server_addr(p->ovl, sp->family, p->addr, sizeof(p->addr));
	if (rc == 0)
		log_info("path %s: built-in overlay up on %s, server at %s", sp->name,
			 overlay_client_ifname(p->ovl), p->addr);
	return rc;
}

int run_paths_up(struct run *r)
{
	const struct scenario *scn = r->scn;
	int err = 0;

	r->npaths = scn->npaths;
	for (unsigned i = 0; i < scn->npaths; i++)
		r->paths[i].sp = &scn->paths[i];
	if (scn->is_lab) {
		char why[RESULTS_TEXT_MAX];

		if (scenario_check_lab_targets(scn, why, sizeof(why))) {
			run_stop(r, -EINVAL, "%s", why);
			return -EINVAL;
		}
		err = lab_up_all(r);
	}
	for (unsigned i = 0; i < r->npaths && !err && !interrupt_requested(); i++) {
		struct run_path *p = &r->paths[i];
		const struct scenario_path *sp = p->sp;

		if (scn->is_lab) {
			err = lab_address(r, p);
			p->port = LOAD_DEFAULT_PORT;
		} else {
			const struct scenario_host *h = &scn->hosts[sp->host];

			snprintf(p->addr, sizeof(p->addr), "%s",
				 sp->address[0] ? sp->address : h->address);
			p->port = sp->port ? sp->port : h->port ? h->port : LOAD_DEFAULT_PORT;
			p->cport = h->cport;
			snprintf(p->psk_file, sizeof(p->psk_file), "%s", h->psk_file);
			if (sp->type == SCN_PATH_BUILTIN)
				err = remote_builtin_up(r, p, h);
		}
		if (err)
			break;
		snprintf(r->res->paths[i].addr, sizeof(r->res->paths[i].addr), "%s", p->addr);
		r->res->paths[i].mtu = path_mtu(r, sp);
		if (sp->type == SCN_PATH_EXTERNAL && sp->setup[0]) {
			char what[SCN_NAME_MAX + 16];
			int st;

			snprintf(what, sizeof(what), "path %s setup", sp->name);
			st = shell(r, what, sp->setup);
			p->setup_done = true; /* a half-done setup still needs its teardown */
			if (interrupt_requested())
				return -EINTR; /* run_scenario says so */
			if (st != 0) {
				run_stop(r, -EIO,
					 "path %s: setup command exited with status %d (its output "
					 "is in %s/" RUN_COMMANDS_LOG ")",
					 sp->name, st, r->dir);
				return -EIO;
			}
		}
	}
	return err;
}

int run_paths_enter(struct run *r)
{
	int err;

	if (!r->lab)
		return 0;
	err = lab_enter(r->lab, r->scn->lab.client);
	if (!err)
		r->entered = true;
	return err;
}

void run_paths_leave(struct run *r)
{
	if (r->entered && lab_leave(r->lab) == 0)
		r->entered = false;
}

int run_paths_check(struct run *r)
{
	if (r->lab && !server_alive(r)) {
		run_stop(r, -EHOSTDOWN, "the server in lab host %u exited (see %s/server.log)",
			 r->scn->lab.server, r->dir);
		return -EHOSTDOWN;
	}
	for (unsigned i = 0; i < r->npaths; i++)
		if (r->paths[i].ovl && !overlay_client_alive(r->paths[i].ovl)) {
			run_stop(r, -EHOSTDOWN,
				 "path %s: the built-in overlay ended (its daemon exited or the "
				 "server took it down)",
				 r->paths[i].sp->name);
			return -EHOSTDOWN;
		}
	if (r->ov && (!lab_overlay_alive(r->ov, r->scn->lab.client) ||
		      !lab_overlay_alive(r->ov, r->scn->lab.server))) {
		run_stop(r, -EHOSTDOWN, "the built-in overlay's daemon exited");
		return -EHOSTDOWN;
	}
	return 0;
}

void run_paths_down(struct run *r)
{
	int err;

	run_paths_leave(r);
	for (unsigned i = r->npaths; i-- > 0;) {
		struct run_path *p = &r->paths[i];
		char what[SCN_NAME_MAX + 16];
		int st;

		if (!p->setup_done || !p->sp->teardown[0])
			continue;
		snprintf(what, sizeof(what), "path %s teardown", p->sp->name);
		st = shell(r, what, p->sp->teardown);
		if (st != 0)
			log_warn("path %s: teardown command exited with status %d (its output is "
				 "in %s/" RUN_COMMANDS_LOG ")",
				 p->sp->name, st, r->dir);
		p->setup_done = false;
	}
	for (unsigned i = 0; i < r->npaths; i++) {
		if (!r->paths[i].ovl)
			continue;
		err = overlay_client_down(r->paths[i].ovl);
		if (err)
			log_warn("path %s: overlay teardown: %s", r->paths[i].sp->name,
				 strerror(-err));
		r->paths[i].ovl = NULL;
	}
	if (r->server > 0) {
		lab_reap(r->server, 2000);
		r->server = 0;
	}
	if (r->ov) {
		err = lab_overlay_down(r->ov);
		if (err)
			log_warn("overlay teardown: %s", strerror(-err));
		r->ov = NULL;
	}
	if (r->lab) {
		err = lab_down(r->lab);
		if (err)
			log_warn("lab teardown: %s", strerror(-err));
		r->lab = NULL;
	}
}
