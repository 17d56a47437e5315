/*
 * fuse_mounts.c - FUSE filesystems the workload mounts, whose paths the
 * recorder must not look at.
 *
 * A workload that starts its own FUSE daemon (fuse-overlayfs, bindfs,
 * sshfs) has it followed like any of its processes: under ptrace it stops
 * at the recorder's stops, under bpf at the guard's notifications before
 * a call that changes names.  The recorder takes a path's state by
 * lstat(), listxattr() and open() from the thread that serves those stops,
 * and on a FUSE mount each of them waits for the daemon's answer: the
 * daemon waits for the recorder, the recorder for the daemon, for ever
 * (`fuse-overlayfs ... merged; echo x >> merged/f`: every recording under
 * ptrace, one in three under bpf).  So the FUSE mounts that were not there
 * when the recording began are read from the recorder's mount table
 * whenever it has changed (poll() on /proc/self/mountinfo says so, before
 * each state taken: under bpf a call is decoded after it ran, and its path may
 * have become a FUSE mount since), and no state is taken under them, as
 * none is of /proc: rec_path_skipped() says so.  A mount made between that
 * poll and the look still waits (a window of microseconds).  A FUSE mount made in another mount
 * namespace (`unshare -m`) is not in the recorder's table, and its paths
 * are not the daemon's there either.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rec.h"

#define FUSE_MOUNTS_MAX 64

struct fuse_mount {
	int id;				/* mountinfo's mount ID */
	char *path;			/* NULL: there at the start */
	size_t len;
};

static struct fuse_mount mounts[FUSE_MOUNTS_MAX];
static int n_mounts;
static int n_new;			/* of mounts, those made while recording */
static int table_fd = -1;		/* /proc/self/mountinfo, polled */

/* mountinfo escapes space, tab, newline and backslash as \ooo */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] && s[3]) {
			*o++ = (char)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

static int known(int id)
{
	for (int i = 0; i < n_mounts; i++)
		if (mounts[i].id == id)
			return 1;
	return 0;
}

int rec_fuse_line(char *line, int *id, char *mp)
{
	char fstype[256];
	const char *sep = strstr(line, " - ");
	int i;

	/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [FIELDS...] - TYPE ... */
	if (!sep || sscanf(line, "%d %*d %*s %*s %4095s", &i, mp) != 2 ||
	    sscanf(sep + 3, "%255s", fstype) != 1 || strncmp(fstype, "fuse", 4) != 0)
		return 0;
	unescape(mp);
	if (id)
		*id = i;
	return 1;
}

/* One line of mountinfo: a FUSE mount not known yet is added, with its
 * path where @made (the recording has begun). */
static void add_line(char *line, int made)
{
	char mp[REC_FUSE_MP];
	int id;

	if (n_mounts == FUSE_MOUNTS_MAX || !rec_fuse_line(line, &id, mp) ||
	    known(id))
		return;
	mounts[n_mounts].id = id;
	if (made) {
		if (!(mounts[n_mounts].path = strdup(mp)))
			return;
		mounts[n_mounts].len = strlen(mp);
		n_new++;
	}
	n_mounts++;
}

/* Read the table from its start (which also clears poll()'s mark). */
static void scan(int made)
{
	char buf[16384];
	size_t have = 0;
	ssize_t n;

	if (table_fd < 0 || lseek(table_fd, 0, SEEK_SET) < 0)
		return;
	while ((n = read(table_fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		char *line = buf, *nl;

		have += (size_t)n;
		buf[have] = 0;
		while ((nl = strchr(line, '\n'))) {
			*nl = 0;
			add_line(line, made);
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0;	/* a line longer than the buffer: dropped */
	}
}

void rec_fuse_baseline(void)
{
	if (table_fd < 0)
		table_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	scan(0);
}

void rec_fuse_scan(void)
{
	scan(1);
}

int rec_fuse_under(const char *p)
{
	if (!n_new)
		return 0;
	for (int i = 0; i < n_mounts; i++) {
		const struct fuse_mount *m = &mounts[i];

		if (!m->path)
			continue;
		if (m->len == 1 || (strncmp(p, m->path, m->len) == 0 &&
				    (p[m->len] == '/' || !p[m->len])))
			return 1;
	}
	return 0;
}

int rec_fuse_under_now(const char *p)
{
	struct pollfd pf = { .fd = table_fd, .events = POLLPRI };

	/* the table changed since it was read: a mount or an unmount */
	if (table_fd >= 0 && poll(&pf, 1, 0) > 0 && (pf.revents & (POLLPRI | POLLERR)))
		scan(1);
	return rec_fuse_under(p);
}

int rec_fuse_made(void)
{
	return n_new;
}
