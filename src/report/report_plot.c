// SPDX-License-Identifier: MIT
/*
 * gnuplot's side of every plot, shared by a run's plots (report_run_plot.c)
 * and a mesh's heatmaps (report_mesh_plot.c): quoting a name into a script,
 * running gnuplot on it, and checking the SVG it wrote.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report_plot.h"

void report_plot_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		fputc(*s == '"' || *s == '\\' || *s == '\n' ? '_' : *s, f);
	fputc('"', f);
}

int report_plot_render(const char *dir, const char *gp)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd;

		signal(SIGPIPE, SIG_DFL);
		if (chdir(dir) < 0)
			_exit(126);
		fd = open("plot.log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execlp("gnuplot", "gnuplot", gp, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		return -ENOENT;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EIO;
}

bool report_plot_svg_complete(const char *dir, const char *name)
{
	char path[4096], tail[64];
	size_t n;
	FILE *f;
	bool ok;

	if (snprintf(path, sizeof(path), "%s/%s.svg", dir, name) >= (int)sizeof(path))
		return false;
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fseek(f, -(long)(sizeof(tail) - 1), SEEK_END) == 0 || fseek(f, 0, SEEK_SET) == 0;
	n = ok ? fread(tail, 1, sizeof(tail) - 1, f) : 0;
	fclose(f);
	tail[n] = '\0';
	return strstr(tail, "</svg>") != NULL;
}
