/*
 * mount_ns.c - the starting state of a path a task named in another mount
 * namespace than the recorder's, taken in that namespace.
 *
 * A workload that makes its own mounts (`unshare -m sh -c 'mount --bind
 * data view; cat view/a'`, bubblewrap, firejail) names paths as it sees
 * them there; the recorder, by the same name in its own namespace, saw the
 * empty directory under the bind: the states said its files did not
 * exist, and the replay's reads failed (ENOENT; cat, sha256sum and tar of a
 * bound tree of 43 files: 92 mismatches under bpf, 93 under ptrace
 * without the fast path).  So where the task whose call is decoded
 * (c->state_task) lives in another namespace than the recorder (the inode
 * of /proc/TID/ns/mnt), the state is taken through /proc/self/fd/N + the
 * path, N a descriptor of the task's root (/proc/TID/root), as tools read
 * a container's files: the lookup goes on from there in the task's
 * mounts.  One such root per namespace and root (a task after pivot_root
 * has another), held with the namespace (its nsfs descriptor), so that a
 * call decoded after its task and namespace ended (bpf) still finds the
 * mounts.  The answer is kept in the task (rec_task.mnt_ns) until it
 * execs, mounts, chroots or pivots its root (rec_ns_forget()), or, under
 * bpf, stops in the guard before one of those or unshare() or setns()
 * (bpf_guard.c: the calls before it are decoded first, in the namespace
 * and root they ran in).  A task in the recorder's namespace costs one
 * stat() of /proc/TID/ns/mnt at its first state and after each exec, none
 * per state.
 *
 * Left to the recorder's own view: a task gone before it was looked at
 * (bpf decodes after the calls) that was not in another namespace before
 * (the root it had then is held) and whose process and parent are not
 * known either (counted: rec_ns_gone()); a chrooted task (its paths are
 * already joined to its root, as the recorder names it: pathname.c); a
 * path under a FUSE mount of that namespace (a look would wait for its
 * daemon, which may be a followed process: fuse_mounts.c).
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rec.h"

#define NS_MAX 16
#define NS_FUSE_MAX 16

struct ns_root {
	uint64_t ns_dev, ns_ino;	/* its namespace, /proc/TID/ns/mnt */
	uint64_t dev, ino;		/* its root directory */
	int ns_fd;			/* held: the namespace and its mounts stay */
	int root_fd;			/* O_PATH */
	int table_fd;			/* its mountinfo, polled */
	char *fuse[NS_FUSE_MAX];	/* its FUSE mount points */
	int n_fuse, fuse_all;		/* fuse_all: more than NS_FUSE_MAX */
};

static struct ns_root roots[NS_MAX];
static int n_roots;
static int own_done;
static uint64_t own_dev, own_ino;
static uint64_t n_gone;

/* The FUSE mounts of @r's namespace, read again from its table. */
static void scan_fuse(struct ns_root *r)
{
	char buf[16384], mp[REC_FUSE_MP];
	size_t have = 0;
	ssize_t n;

	for (int i = 0; i < r->n_fuse; i++)
		free(r->fuse[i]);
	r->n_fuse = r->fuse_all = 0;
	if (lseek(r->table_fd, 0, SEEK_SET) < 0)
		return;
	while ((n = read(r->table_fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		char *line = buf, *nl;

		have += (size_t)n;
		buf[have] = 0;
		while ((nl = strchr(line, '\n'))) {
			*nl = 0;
			if (rec_fuse_line(line, NULL, mp)) {
				if (r->n_fuse == NS_FUSE_MAX || !(r->fuse[r->n_fuse] = strdup(mp)))
					r->fuse_all = 1;
				else
					r->n_fuse++;
			}
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0;
	}
}

/* 1 if @p lies under a FUSE mount of @r's namespace */
static int fuse_under(struct ns_root *r, const char *p)
{
	struct pollfd pf = { .fd = r->table_fd, .events = POLLPRI };

	if (poll(&pf, 1, 0) > 0 && (pf.revents & (POLLPRI | POLLERR)))
		scan_fuse(r);
	if (r->fuse_all)
		return 1;
	for (int i = 0; i < r->n_fuse; i++) {
		size_t l = strlen(r->fuse[i]);

		if (l == 1 || (strncmp(p, r->fuse[i], l) == 0 && (p[l] == '/' || !p[l])))
			return 1;
	}
	return 0;
}

/* @t's root in its namespace, found or opened: its slot + 1, or -1 */
static int root_of(const struct rec_task *t, const struct stat *ns)
{
	char path[64];
	struct ns_root *r;
	struct stat sb;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/root", (int)t->tid);
	if ((fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &sb) < 0)
		goto out;
	for (int i = 0; i < n_roots; i++)
		if (roots[i].ns_dev == ns->st_dev && roots[i].ns_ino == ns->st_ino &&
		    roots[i].dev == sb.st_dev && roots[i].ino == sb.st_ino) {
			close(fd);
			return i + 1;
		}
	if (n_roots == NS_MAX)
		goto out;
	r = &roots[n_roots];
	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)t->tid);
	r->ns_fd = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)t->tid);
	r->table_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->ns_fd < 0 || r->table_fd < 0) {
		if (r->ns_fd >= 0)
			close(r->ns_fd);
		if (r->table_fd >= 0)
			close(r->table_fd);
		goto out;
	}
	r->ns_dev = ns->st_dev;
	r->ns_ino = ns->st_ino;
	r->dev = sb.st_dev;
	r->ino = sb.st_ino;
	r->root_fd = fd;
	scan_fuse(r);
	return ++n_roots;
out:
	close(fd);
	return -1;
}

/* @t's rec_task.mnt_ns, looked at if not yet */
static int task_ns(struct rec_ctx *c, struct rec_task *t, int depth)
{
	struct rec_task *o;
	char path[64];
	struct stat sb;

	if (t->mnt_ns)
		return t->mnt_ns;
	if (!own_done) {
		own_done = 1;
		if (stat("/proc/self/ns/mnt", &sb) == 0) {
			own_dev = sb.st_dev;
			own_ino = sb.st_ino;
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)t->tid);
	if (stat(path, &sb) < 0) {
		/* gone: in another namespace as before its mount, chroot,
		 * pivot_root or exec (held: mounts made since are seen), else
		 * as its process, or the process that forked it */
		if (t->mnt_ns_was > 0)
			return t->mnt_ns = t->mnt_ns_was;
		o = t->pid != t->tid ? rec_task_get(c, t->pid) : NULL;
		if (!o && t->ppid)
			o = rec_task_get(c, t->ppid);
		if (o && o != t && depth < 8)
			return t->mnt_ns = task_ns(c, o, depth + 1);
		n_gone++;
		return t->mnt_ns = -1;
	}
	if (!own_ino || (sb.st_dev == own_dev && sb.st_ino == own_ino) || (t->fs && t->fs->root))
		return t->mnt_ns = -1;
	return t->mnt_ns = root_of(t, &sb);
}

const char *rec_ns_path(struct rec_ctx *c, const char *p, char *buf, size_t cap)
{
	struct rec_task *t = c->state_task;
	struct ns_root *r;
	int k, n;

	if (!t || p[0] != '/')
		return p;
	if ((k = t->mnt_ns ? t->mnt_ns : task_ns(c, t, 0)) < 0)
		return p;
	r = &roots[k - 1];
	if (fuse_under(r, p))
		return p;
	n = snprintf(buf, cap, "/proc/self/fd/%d%s", r->root_fd, p);
	return n > 0 && (size_t)n < cap ? buf : p;
}

void rec_ns_forget(struct rec_task *t)
{
	if (t->mnt_ns)
		t->mnt_ns_was = t->mnt_ns;
	t->mnt_ns = 0;
}

uint64_t rec_ns_gone(void)
{
	return n_gone;
}

void rec_ns_free(void)
{
	for (int i = 0; i < n_roots; i++) {
		close(roots[i].root_fd);
		close(roots[i].ns_fd);
		close(roots[i].table_fd);
		for (int j = 0; j < roots[i].n_fuse; j++)
			free(roots[i].fuse[j]);
	}
	n_roots = 0;
}
