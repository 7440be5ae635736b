// SPDX-License-Identifier: MIT
/*
 * Processes inside lab hosts: lab_spawn() forks, the child joins the host's
 * network namespace and execs; lab_reap() stops and collects one. Anything
 * a caller forgets is still killed by lab_down(), which stops every process
 * in a namespace before removing it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lab_int.h"
#include "log.h"

/* Between fork and exec: async-signal-safe calls only. */
static void child(int nsfd, const cpu_set_t *cpus, char *const argv[], int out_fd, int err_fd,
		  bool detach)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	struct sigaction sa;
	sigset_t none;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (setns(nsfd, CLONE_NEWNET) < 0)
		_exit(127);
	if (cpus && sched_setaffinity(0, sizeof(*cpus), cpus) < 0)
		_exit(127);
	/* No terminal's Ctrl-C, hang-up or input reaches a process that
	 * outlives us. */
	if (detach) {
		int null = open("/dev/null", O_RDONLY);

		if (setsid() < 0 || null < 0 || dup2(null, STDIN_FILENO) < 0)
			_exit(127);
	}
	if (out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) < 0)
		_exit(127);
	if (err_fd >= 0 && dup2(err_fd, STDERR_FILENO) < 0)
		_exit(127);
	execv(argv[0], argv);
	_exit(127);
}

static pid_t spawn_ns(int nsfd, const cpu_set_t *cpus, char *const argv[], int out_fd, int err_fd,
		      bool detach)
{
	pid_t pid;

	if (nsfd < 0 || !argv || !argv[0])
		return -EINVAL;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		child(nsfd, cpus, argv, out_fd, err_fd, detach);
	log_debug("pid %d runs %s%s", (int)pid, argv[0], detach ? " (own session)" : "");
	return pid;
}

pid_t lab_spawn_ns(int nsfd, char *const argv[], int out_fd, int err_fd, bool detach)
{
	return spawn_ns(nsfd, NULL, argv, out_fd, err_fd, detach);
}

static pid_t spawn(const struct lab *lab, unsigned host, char *const argv[], int out_fd, int err_fd,
		   bool detach)
{
	cpu_set_t cpus;
	int has;

	if (host >= lab->st.spec.nhosts)
		return -EINVAL;
	has = lab_host_cpu_set(lab, host, &cpus);
	if (has < 0)
		return has;
	return spawn_ns(lab->nsfd[host], has ? &cpus : NULL, argv, out_fd, err_fd, detach);
}

pid_t lab_spawn(const struct lab *lab, unsigned host, char *const argv[], int out_fd, int err_fd)
{
	return spawn(lab, host, argv, out_fd, err_fd, false);
}

pid_t lab_spawn_detached(const struct lab *lab, unsigned host, char *const argv[], int out_fd,
			 int err_fd)
{
	return spawn(lab, host, argv, out_fd, err_fd, true);
}

static int status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -ECHILD;
}

int lab_reap(pid_t pid, unsigned timeout_ms)
{
	struct timespec tick = { 0, 10 * 1000000L };
	int status;
	pid_t r;

	if (pid <= 0)
		return -EINVAL;
	if (kill(pid, SIGTERM) < 0 && errno != ESRCH)
		return -errno;
	for (unsigned waited = 0;; waited += 10) {
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return status_of(status);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (waited >= timeout_ms)
			break;
		nanosleep(&tick, NULL);
	}
	log_warn("pid %d did not stop within %u ms; killing it", (int)pid, timeout_ms);
	kill(pid, SIGKILL);
	do
		r = waitpid(pid, &status, 0);
	while (r < 0 && errno == EINTR);
	return r == pid ? status_of(status) : -errno;
}
