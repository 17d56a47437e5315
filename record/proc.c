/*
 * proc.c - the recorder's view of each traced thread: its descriptor
 * table, cwd and file mappings, shared or copied the way clone(2) shares
 * or copies them, so that fd-based calls and relative paths resolve to
 * the absolute paths the program meant.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rec.h"

int rec_tasks_init(struct rec_ctx *c)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	int n = 0;

	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = 0;
		fclose(f);
	}
	if (n < 32768)
		n = 4194304;
	/* A direct map by tid: calloc'd pages stay untouched (and free)
	 * until a tid in them is used. */
	c->by_tid = calloc((size_t)n + 1, sizeof(*c->by_tid));
	if (!c->by_tid)
		return -ENOMEM;
	c->pid_max = n;
	return 0;
}

static void was_free(struct rec_fd *f)
{
	int i;

	for (i = 0; i < f->nwas; i++)
		free(f->was[i].path);
	free(f->was);
	f->was = NULL;
	f->nwas = 0;
}

/* @f had @path (taken) from @t_set to @t_close: kept in its history, in
 * place of the one closed first if it is full.  Without memory the
 * file is forgotten. */
static void was_push(struct rec_fd *f, char *path, uint32_t len, int64_t t_set,
		     int64_t t_close)
{
	int i, k = f->nwas;

	if (!f->was && !(f->was = calloc(REC_FD_WAS, sizeof(*f->was)))) {
		free(path);
		return;
	}
	if (k == REC_FD_WAS) {
		for (k = 0, i = 1; i < REC_FD_WAS; i++)
			if (f->was[i].t_close < f->was[k].t_close ||
			    (f->was[i].t_close == f->was[k].t_close &&
			     f->was[i].t_set < f->was[k].t_set))
				k = i;
		free(f->was[k].path);
	} else
		f->nwas++;
	f->was[k] = (struct rec_fd_was){ path, len, t_set, t_close };
}

/* The file @f had at @t (from its history): the one given last by @t
 * and not closed by then; @open : and whose close has not been taken. */
static struct rec_fd_was *was_at(const struct rec_fd *f, int64_t t, int open)
{
	struct rec_fd_was *w = NULL;
	int i;

	for (i = 0; i < f->nwas; i++)
		if (f->was[i].t_set <= t && t < f->was[i].t_close &&
		    (!open || f->was[i].t_close == INT64_MAX) && (!w || f->was[i].t_set > w->t_set))
			w = &f->was[i];
	return w;
}

/* @f holds no file now (its history kept) */
static void fd_clear(struct rec_fd *f)
{
	free(f->path);
	f->path = NULL;
	f->len = 0;
	f->cloexec = 0;
	f->unnamed = 0;
}

static void fdtab_put(struct rec_fdtab *ft)
{
	int i;

	if (!ft || --ft->refs > 0)
		return;
	for (i = 0; i < ft->n; i++) {
		free(ft->fd[i].path);
		was_free(&ft->fd[i]);
	}
	free(ft->fd);
	free(ft);
}

static void fs_put(struct rec_fs *fs)
{
	if (!fs || --fs->refs > 0)
		return;
	free(fs->cwd);
	free(fs->root);
	free(fs);
}

static void mm_put(struct rec_mm *mm)
{
	if (!mm || --mm->refs > 0)
		return;
	free(mm->map);
	free(mm);
}

void rec_task_clear_call(struct rec_task *t)
{
	uint32_t i;

	free(t->path);
	free(t->path2);
	free(t->exec_path);
	for (i = 0; i < t->argc; i++)
		free(t->argv[i]);
	free(t->argv);
	t->path = t->path2 = t->exec_path = NULL;
	t->slash = 0;
	t->argv = NULL;
	t->argc = 0;
	/* most calls have neither: two calls a call saved (~5 % of a bpf
	 * recorder's CPU on descriptor calls) */
	if (t->aio)
		rec_aio_clear_call(t);
	if (t->mp)
		rec_fmap_clear_call(t);
	t->sc = NULL;
	t->in_syscall = 0;
	t->want_exit = 0;
	t->hidden = 0;
	rec_zero(&t->ev, sizeof(t->ev));
}

void rec_task_del(struct rec_ctx *c, struct rec_task *t)
{
	if (!t)
		return;
	if (t->tid > 0 && t->tid <= c->pid_max && c->by_tid[t->tid] == t) {
		c->by_tid[t->tid] = NULL;
		c->ntasks--;
	}
	rec_task_clear_call(t);
	rec_slept_close(t);
	fdtab_put(t->fds);
	fs_put(t->fs);
	mm_put(t->mm);
	free(t);
}

void rec_tasks_free(struct rec_ctx *c)
{
	int i;

	if (!c->by_tid)
		return;
	for (i = 0; i <= c->pid_max && c->ntasks > 0; i++)
		if (c->by_tid[i])
			rec_task_del(c, c->by_tid[i]);
	free(c->by_tid);
	c->by_tid = NULL;
}

void rec_task_retid(struct rec_ctx *c, struct rec_task *t, pid_t tid)
{
	if (tid <= 0 || tid > c->pid_max)
		return;
	if (t->tid > 0 && t->tid <= c->pid_max && c->by_tid[t->tid] == t)
		c->by_tid[t->tid] = NULL;
	else
		c->ntasks++;
	if (c->by_tid[tid])
		rec_task_del(c, c->by_tid[tid]);
	c->by_tid[tid] = t;
	t->tid = tid;
	rec_slept_close(t);
}

struct rec_task *rec_task_next(struct rec_ctx *c, int *i, int *left)
{
	while (*left > 0 && ++*i <= c->pid_max) {
		struct rec_task *t = c->by_tid[*i];

		if (t) {
			--*left;
			return t;
		}
	}
	return NULL;
}

struct rec_task *rec_task_get(struct rec_ctx *c, pid_t tid)
{
	if (tid <= 0 || tid > c->pid_max)
		return NULL;
	return c->by_tid[tid];
}

struct rec_task *rec_task_new(struct rec_ctx *c, pid_t tid)
{
	struct rec_task *t;

	if (tid <= 0 || tid > c->pid_max)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = t->pid = tid;
	if (c->by_tid[tid])
		rec_task_del(c, c->by_tid[tid]);
	c->by_tid[tid] = t;
	c->ntasks++;
	return t;
}

/* FDTAB_COPY_MIN slots at least, and up to the highest open one: a
 * copy of all the parent's (64 at least, 1 KiB) was a large request to
 * malloc, which first merges every small free chunk (malloc_consolidate):
 * ~4 % of the bpf recorder's CPU in a run of short programs, at each
 * fork.  rec_fd_set() grows the table as before. */
#define FDTAB_COPY_MIN 16

static struct rec_fdtab *fdtab_copy(const struct rec_fdtab *src)
{
	struct rec_fdtab *ft = calloc(1, sizeof(*ft));
	int i, n;

	if (!ft)
		return NULL;
	ft->refs = 1;
	if (!src || src->n == 0)
		return ft;
	for (n = src->n; n > FDTAB_COPY_MIN && !src->fd[n - 1].path; n--)
		;
	ft->fd = calloc((size_t)n, sizeof(*ft->fd));
	if (!ft->fd) {
		free(ft);
		return NULL;
	}
	ft->n = n;
	for (i = 0; i < n; i++) {
		if (!src->fd[i].path)
			continue;
		ft->fd[i] = src->fd[i];
		ft->fd[i].path = strdup(src->fd[i].path);
		ft->fd[i].was = NULL;
		ft->fd[i].nwas = 0;
	}
	return ft;
}

static struct rec_mm *mm_copy(const struct rec_mm *src)
{
	struct rec_mm *mm = calloc(1, sizeof(*mm));

	if (!mm)
		return NULL;
	mm->refs = 1;
	if (src && src->n) {
		mm->map = malloc(sizeof(*mm->map) * (size_t)src->n);
		if (mm->map) {
			memcpy(mm->map, src->map, sizeof(*mm->map) * (size_t)src->n);
			mm->n = mm->cap = src->n;
		}
	}
	return mm;
}

int rec_task_inherit(struct rec_task *child, const struct rec_task *parent,
		     uint64_t flags)
{
	if (flags & CLONE_THREAD)
		child->pid = parent->pid;
	if (flags & CLONE_FILES) {
		child->fds = parent->fds;
		child->fds->refs++;
	} else {
		child->fds = fdtab_copy(parent->fds);
	}
	if (flags & CLONE_FS) {
		child->fs = parent->fs;
		child->fs->refs++;
	} else {
		child->fs = calloc(1, sizeof(*child->fs));
		if (child->fs) {
			child->fs->refs = 1;
			child->fs->cwd = parent->fs && parent->fs->cwd ?
				strdup(parent->fs->cwd) : NULL;
			child->fs->root = parent->fs && parent->fs->root ?
				strdup(parent->fs->root) : NULL;
		}
	}
	if (flags & CLONE_VM) {
		child->mm = parent->mm;
		child->mm->refs++;
	} else {
		child->mm = mm_copy(parent->mm);
	}
	if (!child->fds || !child->fs || !child->mm)
		return -ENOMEM;
	return 0;
}

/* Whether descriptor @fd of @tid closes at exec (its fdinfo's flags):
 * a program started by the bpf backend is forked while the programs
 * load in another thread, and holds whichever of their descriptors (all
 * close-on-exec) existed then; none is the program's after its exec. */
static int fd_cloexec(pid_t tid, long fd)
{
	char p[64], buf[256], *f;
	unsigned long flags;
	ssize_t n;
	int ifd;

	snprintf(p, sizeof(p), "/proc/%d/fdinfo/%ld", (int)tid, fd);
	ifd = open(p, O_RDONLY | O_CLOEXEC);
	if (ifd < 0)
		return 0;
	n = read(ifd, buf, sizeof(buf) - 1);
	close(ifd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	f = strstr(buf, "flags:");
	if (!f || sscanf(f + 6, "%lo", &flags) != 1)
		return 0;
	return (flags & O_CLOEXEC) != 0;
}

int rec_task_from_proc(struct rec_task *t)
{
	char dir[64], link[128], target[REC_PATH_MAX];
	struct dirent *de;
	DIR *d;
	ssize_t n;

	t->fds = calloc(1, sizeof(*t->fds));
	t->fs = calloc(1, sizeof(*t->fs));
	t->mm = calloc(1, sizeof(*t->mm));
	if (!t->fds || !t->fs || !t->mm)
		return -ENOMEM;
	t->fds->refs = t->fs->refs = t->mm->refs = 1;
	snprintf(link, sizeof(link), "/proc/%d/cwd", t->tid);
	n = readlink(link, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = 0;
		t->fs->cwd = strdup(target);
	}
	snprintf(dir, sizeof(dir), "/proc/%d/fd", t->tid);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);

		if (*end || end == de->d_name)
			continue;
		snprintf(link, sizeof(link), "%s/%ld", dir, fd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		rec_fd_set(t, (int)fd, target, (uint32_t)n, fd_cloexec(t->tid, fd));
	}
	closedir(d);
	return 0;
}

uint64_t rec_sock_ino(pid_t tid, int fd)
{
	char link[64];
	struct stat st;

	snprintf(link, sizeof(link), "/proc/%d/fd/%d", tid, fd);
	return stat(link, &st) == 0 && S_ISSOCK(st.st_mode) ? (uint64_t)st.st_ino : 0;
}

/*
 * Which connect an accept took: the kernel names the accepted socket's
 * peer by its inode, read through the peer's socket (iot_unix_peer()).
 * A client that sent and closed before the server accepted (a forking
 * server whose listen backlog was full: socat, 20 clients at once) has
 * left its sock with no socket, and no inode to read: such accepts were
 * recorded with none, and the replay paired them with the connects in
 * the order its own connects happened to be queued, until 2026-12-07.
 * The accepted socket still knows the process that connected
 * (SO_PEERCRED), asked of a copy of it (pidfd_getfd()): its oldest
 * connection not yet accepted is the one.  Kept bounded: the oldest of
 * connections never accepted are dropped.
 */
#define REC_CONNS_MAX 4096

void rec_conn_made(struct rec_ctx *c, pid_t pid, uint64_t ino)
{
	if (!ino)
		return;
	if (c->n_conns == REC_CONNS_MAX) {
		memmove(c->conns, c->conns + 1, (c->n_conns - 1) * sizeof(*c->conns));
		c->n_conns--;
	}
	if (c->n_conns == c->cap_conns) {
		size_t n = c->cap_conns ? c->cap_conns * 2 : 16;
		struct rec_conn *v = realloc(c->conns, n * sizeof(*v));

		if (!v)
			return;
		c->conns = v;
		c->cap_conns = n;
	}
	c->conns[c->n_conns++] = (struct rec_conn){ .pid = pid, .ino = ino };
}

/* The process that connected accepted socket @fd of process @pid, 0 if
 * unknown */
static pid_t peer_pid(pid_t pid, int fd)
{
	struct ucred cr = { 0 };
	socklen_t len = sizeof(cr);
	int pfd, sfd;

	if ((pfd = (int)syscall(SYS_pidfd_open, pid, 0)) < 0)
		return 0;
	sfd = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
	close(pfd);
	if (sfd < 0)
		return 0;
	if (getsockopt(sfd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
		cr.pid = 0;
	close(sfd);
	return cr.pid > 0 ? cr.pid : 0;
}

uint64_t rec_conn_peer(struct rec_ctx *c, pid_t pid, int fd, uint64_t peer)
{
	pid_t by = 0;
	size_t j;

	if (!peer && c->n_conns && !(by = peer_pid(pid, fd)))
		return 0;
	for (j = 0; j < c->n_conns; j++)
		if (peer ? c->conns[j].ino == peer : c->conns[j].pid == by)
			break;
	if (j == c->n_conns)
		return peer;
	peer = c->conns[j].ino;
	memmove(c->conns + j, c->conns + j + 1, (c->n_conns - j - 1) * sizeof(*c->conns));
	c->n_conns--;
	return peer;
}

const char *rec_fd_path(const struct rec_task *t, int64_t fd, uint32_t *len)
{
	if (!t->fds || fd < 0 || fd >= t->fds->n || !t->fds->fd[fd].path)
		return NULL;
	if (len)
		*len = t->fds->fd[fd].len;
	return t->fds->fd[fd].path;
}

const char *rec_fd_path_at(const struct rec_task *t, int64_t fd, uint32_t *len,
			   int64_t t_enter)
{
	const struct rec_fd_was *w;
	const struct rec_fd *f;

	if (!t->fds || fd < 0 || fd >= t->fds->n)
		return NULL;
	f = &t->fds->fd[fd];
	if (!t_enter || (f->path && f->t_set <= t_enter))
		return rec_fd_path(t, fd, len);
	if (!(w = f->nwas ? was_at(f, t_enter, 0) : NULL)) {
		/* given after the call began, and what it had then not kept
		 * (a socket has no path): none, not the file given since
		 * (another thread's close of a socket was put on the file
		 * whose open took its number, and the replay pulled that
		 * open before the close, which closed the file) */
		if (f->path && f->t_set > t_enter && t->fds->refs > 1)
			return NULL;
		return rec_fd_path(t, fd, len);
	}
	if (len)
		*len = w->len;
	return w->path;
}

int rec_fd_set(struct rec_task *t, int fd, const char *path, uint32_t len,
	       int cloexec)
{
	struct rec_fdtab *ft = t->fds;
	char *p;

	if (!ft || fd < 0 || fd > (1 << 24))
		return -EINVAL;
	if (fd >= ft->n) {
		int n = ft->n ? ft->n : 64;
		struct rec_fd *nf;

		while (n <= fd)
			n *= 2;
		nf = realloc(ft->fd, sizeof(*nf) * (size_t)n);
		if (!nf)
			return -ENOMEM;
		memset(nf + ft->n, 0, sizeof(*nf) * (size_t)(n - ft->n));
		ft->fd = nf;
		ft->n = n;
	}
	p = path ? strndup(path, len) : NULL;
	/* a file not closed yet, in a table threads share: its close may
	 * come, and calls made before this one returned (rec_fd_path_at()) */
	if (ft->fd[fd].path && ft->refs > 1)
		was_push(&ft->fd[fd], ft->fd[fd].path, ft->fd[fd].len, ft->fd[fd].t_set, INT64_MAX);
	else
		free(ft->fd[fd].path);
	ft->fd[fd].path = p;
	ft->fd[fd].len = p ? len : 0;
	ft->fd[fd].cloexec = !!cloexec;
	ft->fd[fd].unnamed = 0;
	ft->fd[fd].t_set = t->ev.t_exit;
	return 0;
}

void rec_fd_close(struct rec_task *t, int fd)
{
	if (!t->fds || fd < 0 || fd >= t->fds->n)
		return;
	was_free(&t->fds->fd[fd]);
	fd_clear(&t->fds->fd[fd]);
}

void rec_fd_close_at(struct rec_task *t, int fd, int64_t t_enter)
{
	struct rec_fd *f;
	struct rec_fd_was *w;

	if (!t->fds || fd < 0 || fd >= t->fds->n)
		return;
	f = &t->fds->fd[fd];
	if (f->t_set <= t_enter && t->fds->refs == 1) {
		rec_fd_close(t, fd);
	} else if (f->t_set <= t_enter) {
		/* in a shared table, kept for calls made before the close */
		if (f->path) {
			was_push(f, f->path, f->len, f->t_set, t_enter);
			f->path = NULL;
		}
		fd_clear(f);
	} else if ((w = was_at(f, t_enter, 1))) {
		/* the number was given again since the close began: the
		 * file closed is the one it had then */
		w->t_close = t_enter;
	}
}

void rec_fd_cloexec(struct rec_task *t, int fd, int on)
{
	if (t->fds && fd >= 0 && fd < t->fds->n)
		t->fds->fd[fd].cloexec = !!on;
}

void rec_fd_unnamed(struct rec_task *t, int fd)
{
	if (t->fds && fd >= 0 && fd < t->fds->n && t->fds->fd[fd].path)
		t->fds->fd[fd].unnamed = 1;
}

void rec_fd_linked(struct rec_task *t, int fd, const char *path, uint32_t len)
{
	if (t->fds && fd >= 0 && fd < t->fds->n && t->fds->fd[fd].unnamed)
		rec_fd_set(t, fd, path, len, t->fds->fd[fd].cloexec);
}

int rec_fd_unshare(struct rec_task *t)
{
	struct rec_fdtab *ft;

	if (!t->fds || t->fds->refs == 1)
		return 0;
	ft = fdtab_copy(t->fds);
	if (!ft)
		return -ENOMEM;
	fdtab_put(t->fds);
	t->fds = ft;
	return 0;
}

/* execve unshares the descriptor table, then closes O_CLOEXEC ones. */
void rec_fd_exec(struct rec_task *t)
{
	int i;

	if (rec_fd_unshare(t) < 0 || !t->fds)
		return;
	for (i = 0; i < t->fds->n; i++)
		if (t->fds->fd[i].path && t->fds->fd[i].cloexec)
			rec_fd_close(t, i);
}

/* A rename moves the names of the task's open files with it (the file
 * itself and everything under a renamed directory), so later fd-based
 * calls carry the current name. */
void rec_fd_rename(struct rec_task *t, const char *from, uint32_t flen,
		   const char *to, uint32_t tlen)
{
	int i;

	for (i = 0; t->fds && i < t->fds->n; i++) {
		struct rec_fd *f = &t->fds->fd[i];
		char *np;

		if (!f->path || f->len < flen || memcmp(f->path, from, flen) != 0 ||
		    (f->len > flen && f->path[flen] != '/'))
			continue;
		np = malloc(tlen + (f->len - flen) + 1);
		if (!np)
			continue;
		memcpy(np, to, tlen);
		memcpy(np + tlen, f->path + flen, f->len - flen);
		np[tlen + f->len - flen] = 0;
		free(f->path);
		f->path = np;
		f->len = tlen + (f->len - flen);
	}
}

int rec_fs_set_cwd(struct rec_task *t, const char *cwd)
{
	char *p = strdup(cwd);

	if (!p || !t->fs) {
		free(p);
		return -ENOMEM;
	}
	free(t->fs->cwd);
	t->fs->cwd = p;
	return 0;
}

int rec_fs_set_root(struct rec_task *t, const char *root)
{
	char *p = strcmp(root, "/") ? strdup(root) : NULL;

	if ((!p && strcmp(root, "/")) || !t->fs) {
		free(p);
		return -ENOMEM;
	}
	free(t->fs->root);
	t->fs->root = p;
	return 0;
}

int rec_mm_add(struct rec_task *t, uint64_t addr, uint64_t len)
{
	struct rec_mm *mm = t->mm;

	if (!mm)
		return -EINVAL;
	if (mm->n == mm->cap) {
		int cap = mm->cap ? mm->cap * 2 : 16;
		struct rec_map *m = realloc(mm->map, sizeof(*m) * (size_t)cap);

		if (!m)
			return -ENOMEM;
		mm->map = m;
		mm->cap = cap;
	}
	mm->map[mm->n].addr = addr;
	mm->map[mm->n].len = len;
	mm->n++;
	return 0;
}

/* @return : 1 if [addr, addr+len) overlapped a recorded file mapping
 * (which is then forgotten: partial unmaps end the record too). */
int rec_mm_del(struct rec_task *t, uint64_t addr, uint64_t len)
{
	struct rec_mm *mm = t->mm;
	int i, hit = 0;

	if (!mm)
		return 0;
	for (i = 0; i < mm->n; i++) {
		struct rec_map *m = &mm->map[i];

		if (addr < m->addr + m->len && m->addr < addr + len) {
			hit = 1;
			*m = mm->map[--mm->n];
			i--;
		}
	}
	return hit;
}

int rec_mm_has(const struct rec_task *t, uint64_t addr, uint64_t len)
{
	const struct rec_mm *mm = t->mm;
	int i;

	for (i = 0; mm && i < mm->n; i++)
		if (addr < mm->map[i].addr + mm->map[i].len && mm->map[i].addr < addr + len)
			return 1;
	return 0;
}

void rec_mm_move(struct rec_task *t, uint64_t from, uint64_t to, uint64_t len)
{
	struct rec_mm *mm = t->mm;
	int i;

	for (i = 0; mm && i < mm->n; i++)
		if (mm->map[i].addr == from) {
			mm->map[i].addr = to;
			mm->map[i].len = len;
		}
}

/* execve gives the task a new address space. */
void rec_mm_exec(struct rec_task *t)
{
	struct rec_mm *mm = calloc(1, sizeof(*mm));

	if (!mm)
		return;
	mm->refs = 1;
	mm_put(t->mm);
	t->mm = mm;
}
