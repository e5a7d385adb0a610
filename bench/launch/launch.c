/*
 * launch runs one program and reports that program's own resource use,
 * for bench/benchrun.
 *
 * A child started by fork or vfork carries its parent's memory high-water
 * mark until it execs: Linux folds the old address space's peak into the
 * child's ru_maxrss at exec. benchrun is a Go program of several MiB, and
 * any Go program is at least the Go runtime's 1.5 MiB, so a child a Go
 * program starts reports at least its starter's peak. launch is a static C
 * program of a few hundred KiB resident, below every figure benchrun
 * measures, and reports its own peak beside the child's, so that a child's
 * figure at or below it can be told apart.
 *
 * Usage: launch [-ns] program [args...]. The program gets launch's
 * environment, standard input, output and error, and dies with launch.
 * With -ns the program is started by clone(2) in new user, mount, PID
 * and network namespaces, as PID 1 of its PID namespace: the least any
 * confined command costs, with no helper and no extra program (util-linux
 * unshare would add the exec of a dynamically linked binary). On file
 * descriptor 3 launch writes one line:
 *
 *	maxrss_kib minflt wall_ns launch_hwm_kib exit_code
 *
 * exit_code is the program's exit status, or 128 plus the signal that
 * ended it. launch exits 0 when it could run and wait for the program.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* selfHWM returns launch's own peak resident set in KiB, or -1. */
static long selfHWM(void) {
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "VmHWM: %ld", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/* nsChild runs in the new namespaces and becomes the program. */
static int nsChild(void *arg) {
	char **args = arg;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	execv(args[0], args);
	_exit(127);
}

/* nsStack is nsChild's stack: clone(2) without CLONE_VM copies the
 * address space, so a static array serves. */
static char nsStack[64 * 1024] __attribute__((aligned(16)));

int main(int argc, char **argv) {
	struct timespec start, end;
	struct rusage ru;
	int status;
	pid_t pid, parent = getpid();
	long hwm;
	int ns = 0;

	if (argc > 1 && strcmp(argv[1], "-ns") == 0) {
		ns = 1;
		argv++;
		argc--;
	}
	if (argc < 2) {
		fputs("usage: launch [-ns] program [args...]\n", stderr);
		return 2;
	}
	hwm = selfHWM();
	clock_gettime(CLOCK_MONOTONIC, &start);
	if (ns) {
		pid = clone(nsChild, nsStack + sizeof nsStack,
			CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | SIGCHLD, argv + 1);
		if (pid < 0) {
			perror("launch: clone into new namespaces");
			return 2;
		}
	} else
		pid = vfork();
	if (pid < 0) {
		perror("launch: vfork");
		return 2;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		execv(argv[1], argv + 1);
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("launch: wait4");
			return 2;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	long long wall = (long long)(end.tv_sec - start.tv_sec) * 1000000000LL + (end.tv_nsec - start.tv_nsec);
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (dprintf(3, "%ld %ld %lld %ld %d\n", ru.ru_maxrss, ru.ru_minflt, wall, hwm, code) < 0) {
		perror("launch: write to fd 3");
		return 2;
	}
	return 0;
}
