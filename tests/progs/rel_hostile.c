/*
 * rel_hostile.c - does to the filesystem what a hostile trace would ask a
 * replayer to do: write through symlinks that point outside the working
 * directory, climb out with "..", rename and hard-link across, swap a
 * directory for a symlink mid-run, chdir through a symlink and to "/".
 * Run it in a scratch directory with two throwaway canary directories
 * C1 and C2 (absolute paths, each holding files "secret", "victim" and
 * "sub/y"): natively every step lands in a canary; a replay of its trace
 * must land nowhere but under the replay root.
 *   rel_hostile C1 C2      exit status: the number of steps that failed
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int failed;

static void step(const char *what, int rc)
{
	if (rc < 0) {
		fprintf(stderr, "rel_hostile: %s: %s\n", what, strerror(errno));
		failed++;
	}
}

static int put(int dirfd, const char *path, int flags, const char *text)
{
	int fd = openat(dirfd, path, O_WRONLY | O_CREAT | flags, 0644);

	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* "../" enough times to climb from any working directory to "/" */
static void up(char *buf, size_t len, const char *tail)
{
	size_t o = 0;
	int i;

	for (i = 0; i < 24 && o + 3 < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "../");
	snprintf(buf + o, len - o, "%s", tail[0] == '/' ? tail + 1 : tail);
}

int main(int argc, char **argv)
{
	char p[8192], q[8192];
	const char *c1, *c2;
	int dfd;

	if (argc != 3) {
		fprintf(stderr, "usage: rel_hostile C1 C2\n");
		return 100;
	}
	c1 = argv[1];
	c2 = argv[2];

	/* an absolute symlink out, then write, unlink, chmod, mkdir through it */
	step("symlink esc", symlink(c1, "esc"));
	step("symlink esc2", symlink(c2, "esc2"));
	step("write esc/x", put(AT_FDCWD, "esc/x", O_TRUNC, "escaped\n"));
	step("unlink esc/victim", unlink("esc/victim"));
	step("chmod esc/secret", chmod("esc/secret", 0777));
	step("mkdir esc/newdir", mkdir("esc/newdir", 0755));
	step("unlink esc/sub/y", unlink("esc/sub/y"));
	step("rmdir esc/sub", rmdir("esc/sub"));
	step("truncate esc2/secret", truncate("esc2/secret", 1));

	/* climb out with ".." from the working directory */
	up(p, sizeof(p), c1);
	strncat(p, "/y", sizeof(p) - strlen(p) - 1);
	step("openat ../../y", put(AT_FDCWD, p, O_TRUNC, "climbed\n"));

	/* rename with ".." components, out of the working directory */
	step("write f", put(AT_FDCWD, "f", O_TRUNC, "moved\n"));
	step("mkdir a", mkdir("a", 0755));
	step("mkdir a/b", mkdir("a/b", 0755));
	snprintf(q, sizeof(q), "a/b/../../");
	up(p, sizeof(p), c2);
	strncat(q, p, sizeof(q) - strlen(q) - 1);
	strncat(q, "/moved", sizeof(q) - strlen(q) - 1);
	step("rename f out", rename("f", q));

	/* a hard link to a canary file, written through */
	snprintf(p, sizeof(p), "%s/secret", c1);
	step("link secret", link(p, "hl"));
	step("append hl", put(AT_FDCWD, "hl", O_APPEND, "pwned\n"));

	/* a symlink, created inside a canary, to the other canary's file */
	snprintf(p, sizeof(p), "%s/secret", c2);
	step("symlink esc/s2", symlink(p, "esc/s2"));
	step("append esc/s2", put(AT_FDCWD, "esc/s2", O_APPEND, "pwned\n"));

	/* a directory swapped for a symlink mid-run */
	step("mkdir d", mkdir("d", 0755));
	step("write d/f1", put(AT_FDCWD, "d/f1", O_TRUNC, "inside\n"));
	step("rename d", rename("d", "d.old"));
	step("symlink d", symlink(c1, "d"));
	step("write d/f2", put(AT_FDCWD, "d/f2", O_TRUNC, "swapped\n"));
	step("unlink d", unlink("d"));
	step("rename d back", rename("d.old", "d"));
	step("write d/f3", put(AT_FDCWD, "d/f3", O_TRUNC, "inside again\n"));

	/* a directory descriptor outside, and ".." from it */
	dfd = open(c1, O_RDONLY | O_DIRECTORY);
	step("open c1", dfd);
	if (dfd >= 0) {
		up(p, sizeof(p), c2);
		strncat(p, "/z", sizeof(p) - strlen(p) - 1);
		step("openat dfd ../z", put(dfd, p, O_TRUNC, "from dirfd\n"));
		step("openat dfd w", put(dfd, "w", O_TRUNC, "dirfd\n"));
		close(dfd);
	}

	/* chdir through the symlink, then to "/" and climb further */
	step("chdir esc", chdir("esc"));
	step("write cwdfile", put(AT_FDCWD, "cwdfile", O_TRUNC, "cwd\n"));
	step("chdir /", chdir("/"));
	up(p, sizeof(p), c2);
	strncat(p, "/up", sizeof(p) - strlen(p) - 1);
	step("write from /", put(AT_FDCWD, p, O_TRUNC, "from root\n"));
	return failed;
}
