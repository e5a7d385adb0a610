/*
 * durable makes, in the directory it is given, the durable writes of a
 * one-shot turn in a new conversation, with nothing else: benchrun's
 * floor for the part of a turn that is the disk's latency, not the CPU's.
 *
 *  1. The user's message is staged: a new hidden file is created, written
 *     and renamed into place, unsynced.
 *  2. The answer is appended to it and synced, then the directory is
 *     synced, before an answer would be shown.
 *  3. A line is appended to a history file and synced.
 *
 * Usage: durable dir. It exits 0 when every write succeeded. durable -
 * writes nothing and exits 0: the same static program's start and exit,
 * which benchrun takes off so that only the writes remain.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int fail(const char *what) {
	perror(what);
	return 1;
}

/* writeAll writes s to fd. */
static int writeAll(int fd, const char *s) {
	size_t n = strlen(s);
	return write(fd, s, n) == (ssize_t)n ? 0 : -1;
}

int main(int argc, char **argv) {
	char tmp[4096], path[4096], hist[4096];
	int fd, dir;

	if (argc != 2) {
		fputs("usage: durable dir\n", stderr);
		return 2;
	}
	if (strcmp(argv[1], "-") == 0)
		return 0;
	snprintf(tmp, sizeof tmp, "%s/.turn_%d.jsonl.%d.tmp", argv[1], (int)getpid(), (int)getpid());
	snprintf(path, sizeof path, "%s/turn_%d.jsonl", argv[1], (int)getpid());
	snprintf(hist, sizeof hist, "%s/HISTORY.md", argv[1]);

	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail("durable: create");
	if (writeAll(fd, "{\"role\":\"user\",\"content\":\"hello\",\"time\":\"2026-12-03T00:00:00Z\"}\n") < 0)
		return fail("durable: stage");
	close(fd);
	if (rename(tmp, path) < 0)
		return fail("durable: rename");

	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return fail("durable: open");
	if (writeAll(fd, "{\"role\":\"assistant\",\"content\":\"Hello! How can I help?\",\"time\":\"2026-12-03T00:00:00Z\"}\n") < 0 || fsync(fd) < 0)
		return fail("durable: append");
	close(fd);
	dir = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0 || fsync(dir) < 0)
		return fail("durable: directory sync");
	close(dir);

	fd = open(hist, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail("durable: history");
	if (writeAll(fd, "## 2026-12-03T00:00:00Z · bench:0\nuser: hello\nassistant: Hello! How can I help?\n") < 0 || fsync(fd) < 0)
		return fail("durable: history append");
	close(fd);
	return 0;
}
