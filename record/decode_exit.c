/*
 * decode_exit.c - a recorded call's exit: its return value and
 * out-parameters (pipe and socket pair descriptors, those an SCM_RIGHTS
 * message carried), and how it changes the recorder's descriptor table,
 * cwd and mappings; the records written: the call's event (its trailing
 * slash given back), a call that never returned, the process records of
 * forks, execs and exits.  What a call stores at its entry: decode.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine.h"
#include "rec.h"

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/*
 * Is the program exec'd by @p a 32-bit one?  Its calls (int 0x80, the
 * i386 table) are not recorded by either backend: the tables are
 * x86_64's.  Counted for the summary (ldd runs /lib/ld-linux.so.2, and
 * the 266 bytes it writes into ldd's pipe were missing from the trace).
 */
static int exec_compat(const struct iot_process *p)
{
	char link[64], hdr[5];
	int fd = -1;

	snprintf(link, sizeof(link), "/proc/%d/exe", p->tid);
	if (p->exe && p->exe_len < REC_PATH_MAX && p->exe[0] == '/') {
		char path[REC_PATH_MAX];

		memcpy(path, p->exe, p->exe_len);
		path[p->exe_len] = 0;
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	}
	if (fd < 0)
		fd = open(link, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	if (pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr))
		hdr[0] = 0;
	close(fd);
	return memcmp(hdr, "\177ELF\1", 5) == 0;
}

int rec_emit_process(struct rec_ctx *c, struct iot_process *p)
{
	int r = iot_writer_process(c->w, p);

	if (p->kind == IOT_PROC_EXEC && exec_compat(p) && !c->st.compat_procs++)
		snprintf(c->st.compat_first, sizeof(c->st.compat_first), "%.*s",
			 (int)(p->exe ? p->exe_len : 0), p->exe ? p->exe : "");

	if (p->kind == IOT_PROC_FORK || p->kind == IOT_PROC_START)
		c->st.processes++;
	return r;
}

struct rec_task *rec_emit_fork(struct rec_ctx *c, struct rec_task *t, pid_t tid,
			       uint64_t flags, int64_t now)
{
	struct rec_task *ch = rec_task_get(c, tid);
	struct iot_process p;

	if (!ch)
		ch = rec_task_new(c, tid);
	if (!ch)
		return NULL;
	if (rec_task_inherit(ch, t, flags) < 0)
		c->st.dropped++;
	if (!(flags & (CLONE_VM | CLONE_THREAD)) && rec_fmap_fork(c, t->pid, ch->pid) < 0)
		c->st.fmap_untaken++;
	ch->ppid = (flags & CLONE_THREAD) ? t->ppid : t->pid;
	ch->ready = 1;
	memset(&p, 0, sizeof(p));
	p.kind = (flags & CLONE_THREAD) ? IOT_PROC_THREAD : IOT_PROC_FORK;
	p.t_ns = now;
	p.pid = ch->pid;
	p.tid = ch->tid;
	p.ppid = t->pid;
	p.ptid = t->tid;
	p.clone_flags = flags;
	rec_emit_process(c, &p);
	return ch;
}

void rec_emit_exit(struct rec_ctx *c, struct rec_task *t, int64_t now, int status,
		   int64_t utime_ns, int64_t stime_ns, int64_t rec_ns)
{
	struct iot_process p;

	rec_emit_unfinished(c, t, now);
	memset(&p, 0, sizeof(p));
	p.kind = IOT_PROC_EXIT;
	p.t_ns = now;
	p.pid = t->pid;
	p.tid = t->tid;
	p.exit_status = status;
	p.utime_ns = utime_ns;
	p.stime_ns = stime_ns;
	p.rec_ns = rec_ns;
	rec_emit_process(c, &p);
	rec_task_del(c, t);
}

/* @p (@n bytes) with a '/' after it (@dot: "/."), or NULL */
static char *with_slash(const char *p, uint32_t n, int dot)
{
	char *s = malloc((size_t)n + 3);

	if (s) {
		memcpy(s, p, n);
		s[n] = '/';
		s[n + 1] = '.';
		s[n + 1 + !!dot] = 0;
	}
	return s;
}

/*
 * A path named with a trailing slash ("f/", "d/.") asks for a directory:
 * "f/" of a file is ENOTDIR where "f" is not.  The recorder keeps every
 * path without it (its states, descriptors and cwd are keyed so), and the
 * event alone gets it back, so that a replay asks the same.  A call that
 * makes, removes or renames its last name gets "/." back where that name
 * was "." ("d/.", "."): it names no entry (rmdir: EINVAL, mkdir: EEXIST),
 * where "d/" or "d" would be d itself, and the replay gives the recorded
 * answer rather than remove or make d.
 */
static int write_event(struct rec_ctx *c, struct rec_task *t)
{
	struct iot_event *ev = &t->ev;
	const char *p1 = ev->path, *p2 = ev->path2;
	uint32_t n1 = ev->path_len, n2 = ev->path2_len;
	char *s1 = NULL, *s2 = NULL;
	int r;

	if ((t->slash & 5) && p1 && (s1 = with_slash(p1, n1, t->slash & 4))) {
		ev->path = s1;
		ev->path_len = n1 + 1 + !!(t->slash & 4);
	}
	if ((t->slash & 10) && p2 && (s2 = with_slash(p2, n2, t->slash & 8))) {
		ev->path2 = s2;
		ev->path2_len = n2 + 1 + !!(t->slash & 8);
	}
	r = iot_writer_event(c->w, ev);
	ev->path = p1;
	ev->path_len = n1;
	ev->path2 = p2;
	ev->path2_len = n2;
	free(s1);
	free(s2);
	return r;
}

static int emit_event(struct rec_ctx *c, struct rec_task *t)
{
	int r;

	/* logged in-process: the gap it ends holds no stop (slept.c) */
	if (t->view)
		t->ss_ok = t->run_ok = 0;
	r = t->slash ? write_event(c, t) : iot_writer_event(c->w, &t->ev);

	if (r < 0) {
		/* say so the moment the trace stops growing, not when the
		 * program ends, which may be hours later */
		if (c->st.dropped++ == 0)
			iot_err("record", "%s: %s; the program runs on, but from here on "
				"its events are lost", c->o->out, iot_strerror(r));
	} else {
		c->st.events++;
	}
	return r;
}

static void dup_fd(struct rec_task *t, int64_t oldfd, int64_t newfd, int cloexec)
{
	uint32_t len = 0;
	const char *p = rec_fd_path(t, oldfd, &len);
	char *copy = p ? strndup(p, len) : NULL;

	if (p && !copy)
		return;
	if (copy)
		rec_fd_set(t, (int)newfd, copy, len, cloexec);
	else
		rec_fd_close(t, (int)newfd);
	free(copy);
}

/* pipe, pipe2, socketpair: the two descriptors it filled in */
static void pipe_exit(struct rec_task *t)
{
	int at = iot_syscall_arg(t->sc, IOT_ARG_FDPAIR), sock = t->sc->nr == SYS_socketpair;
	int fds[2], i;

	if (at < 0)
		return;
	if (t->view && t->view->no_mem) {
		fds[0] = t->view->pipe_fd[0];
		fds[1] = t->view->pipe_fd[1];
		if (fds[0] < 0 || fds[1] < 0)
			return;
	} else if (rec_read_mem(t->tid, t->raw[at], fds, sizeof(fds)) != sizeof(fds)) {
		return;
	}
	t->ev.args[at] = (int64_t)(uint32_t)fds[0] | ((int64_t)(uint32_t)fds[1] << 32);
	for (i = 0; i < 2; i++) {
		char link[64], target[128];
		ssize_t n;

		/* "pipe:[ino]" names the pipe for replay's write->read order
		 * ("socket:[ino]" each end of a socket pair) */
		snprintf(link, sizeof(link), "/proc/%d/fd/%d", t->tid, fds[i]);
		if (t->view && t->view->no_mem)
			n = t->view->pipe_ino[i] ? snprintf(target, sizeof(target), "%s:[%llu]",
				sock ? "socket" : "pipe",
				(unsigned long long)t->view->pipe_ino[i]) : -1;
		else
			n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			n = snprintf(target, sizeof(target), sock ? "socket:" : "pipe:");
		target[n] = 0;
		/* SOCK_CLOEXEC is O_CLOEXEC, in the same argument as pipe2's */
		rec_fd_set(t, fds[i], target, (uint32_t)n,
			   t->sc->nr != SYS_pipe && (t->raw[1] & O_CLOEXEC));
	}
}

/*
 * sendmsg, recvmsg: the descriptors its SCM_RIGHTS message carried (at
 * the exit, a received message's are written), from the bpf programs'
 * record (args[1] their count, the rest packed as iot_msg_fds_set()
 * does) or the tracee's memory.  A received descriptor is the sender's
 * open file: its path, for the calls made through it, is the one the
 * kernel gives now (the ptrace backend reads it at the call's stop; the
 * bpf backend's decode comes shortly after, and a descriptor closed by
 * then has none).
 */
static void msg_exit(struct rec_task *t)
{
	int32_t fds[IOT_MSG_FDS_MAX];
	int n = 0, i;

	if (t->view) {
		struct iot_event v = { .nr = t->sc->nr, .nargs = IOT_MAX_ARGS };

		memcpy(v.args, t->raw, sizeof(v.args));
		n = iot_msg_fds(&v, fds);
	} else {
		n = rec_read_msg_fds(t->tid, t->raw[1], fds, IOT_MSG_FDS_MAX);
	}
	if (n <= 0)
		return;
	iot_msg_fds_set(&t->ev, fds, n);
	if (t->sc->nr != SYS_recvmsg)
		return;
	for (i = 0; i < n && i < IOT_MSG_FDS_MAX; i++) {
		char link[64], target[REC_PATH_MAX];
		ssize_t len;

		snprintf(link, sizeof(link), "/proc/%d/fd/%d", t->tid, fds[i]);
		len = readlink(link, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = 0;
		rec_fd_set(t, fds[i], target, (uint32_t)len, (t->raw[2] & MSG_CMSG_CLOEXEC) != 0);
	}
}

/* linkat that linked a descriptor's file: /proc/self/fd/N followed (N
 * kept as the path's value) or N with "" and AT_EMPTY_PATH (the path is
 * N's own) */
static void link_exit(struct rec_task *t)
{
	const struct iot_event *ev = &t->ev;
	int64_t fd = -1;
	uint32_t len;
	const char *p;

	if ((ev->args[4] & AT_SYMLINK_FOLLOW) && ev->args[1] > 0)
		fd = ev->args[1] - 1;
	else if ((ev->args[4] & AT_EMPTY_PATH) && ev->path &&
		 (p = rec_fd_path(t, ev->args[0], &len)) && len == ev->path_len &&
		 memcmp(p, ev->path, len) == 0)
		fd = ev->args[0];
	if (fd >= 0 && fd <= INT32_MAX)
		rec_fd_linked(t, (int)fd, ev->path2, ev->path2_len);
}

static void close_range_exit(struct rec_task *t)
{
	uint64_t first = (uint32_t)t->raw[0], last = (uint32_t)t->raw[1], i;
	unsigned int fl = (unsigned int)t->raw[2];

	if (fl & CLOSE_RANGE_UNSHARE)
		rec_fd_unshare(t);
	if (!t->fds)
		return;
	if (last >= (uint64_t)t->fds->n)
		last = t->fds->n ? (uint64_t)t->fds->n - 1 : 0;
	for (i = first; i <= last && i < (uint64_t)t->fds->n; i++) {
		if (fl & CLOSE_RANGE_CLOEXEC)
			rec_fd_cloexec(t, (int)i, 1);
		else
			rec_fd_close(t, (int)i);
	}
}

void rec_decode_exit(struct rec_ctx *c, struct rec_task *t, int64_t ret,
		     int64_t now)
{
	struct iot_event *ev = &t->ev;
	int nr = ev->nr;

	if (!t->sc)
		return;
	ev->t_exit = now;
	ev->ret = ret;
	/* a new name that may be a symlink: what rec_stat_path() knew is old */
	if (ret == 0 && (t->sc->flags & IOT_SCF_NAMES) &&
	    (iot_syscall_arg(t->sc, IOT_ARG_PATH2) >= 0 || iot_syscall_arg(t->sc, IOT_ARG_STR2) >= 0))
		rec_names_changed(c);
	switch (nr) {
	case SYS_open: case SYS_openat: case SYS_openat2: case SYS_creat: {
		int fl = iot_syscall_arg(t->sc, IOT_ARG_OPEN_FLAGS);

		if (fl < 0)
			fl = iot_syscall_arg(t->sc, IOT_ARG_OPENHOW);
		/* a tree walker climbing with openat(fd, "..") (du, rm -rf):
		 * its descriptor is X, not X/NAME/.. - joined again and again,
		 * the names of what it opened next grew with the walk (1.6 KB
		 * on average, 346 ".." at most, in du of /usr), each a path
		 * new to the recorder */
		if (ret >= 0 && ev->path)
			rec_fd_set(t, (int)ret, ev->path, rec_dotdot_len(c, ev->path, ev->path_len),
				   fl >= 0 && (ev->args[fl] & O_CLOEXEC));
		if (ret >= 0 && fl >= 0 && (ev->args[fl] & O_TMPFILE) == O_TMPFILE)
			rec_fd_unnamed(t, (int)ret);
		break;
	}
	case SYS_symlink: case SYS_symlinkat:
		/* what it points to, if the starting tree had it: calls
		 * through the new link reach it, never naming it */
		if (ret == 0 && ev->path && ev->path2 && !t->hidden)
			rec_link_made(c, ev->path, ev->path2);
		break;
	case SYS_linkat:
		/* an O_TMPFILE file given a name: its later calls carry it */
		if (ret == 0 && ev->path2)
			link_exit(t);
		break;
	case SYS_close_range:
		if (ret == 0)
			close_range_exit(t);
		break;
	case SYS_dup:
		if (ret >= 0)
			dup_fd(t, ev->args[0], ret, 0);
		break;
	case SYS_dup2:
	case SYS_dup3:
		if (ret >= 0 && ev->args[0] != ev->args[1])
			dup_fd(t, ev->args[0], ret,
			       nr == SYS_dup3 && (ev->args[2] & O_CLOEXEC));
		break;
	case SYS_fcntl:
		if (ret >= 0 && (ev->args[1] == F_DUPFD || ev->args[1] == F_DUPFD_CLOEXEC))
			dup_fd(t, ev->args[0], ret, ev->args[1] == F_DUPFD_CLOEXEC);
		else if (ret == 0 && ev->args[1] == F_SETFD)
			rec_fd_cloexec(t, (int)ev->args[0], ev->args[2] & FD_CLOEXEC);
		break;
	case SYS_pipe:
	case SYS_pipe2:
	case SYS_socketpair:
		if (ret == 0)
			pipe_exit(t);
		break;
	case SYS_connect:
	case SYS_accept:
	case SYS_accept4:
		/* which socket connected: a connect's own, an accept's peer
		 * (iot_sock_ino()); the bpf backend's from the kernel, a
		 * stopped call's asked of it here (iot_unix_peer()), none for the
		 * fast path's (its accept of a Unix socket stops) */
		if (t->view) {
			if (nr == SYS_connect ? ret == 0 : ret >= 0)
				iot_sock_ino_set(&t->ev, t->view->pipe_ino[0]);
		} else if (nr == SYS_connect && ret == 0) {
			uint64_t ino = rec_sock_ino(t->tid, (int)ev->args[0]);

			iot_sock_ino_set(&t->ev, ino);
			/* (a datagram socket's has no accept) */
			if (ino && iot_unix_type(&c->diag_fd, ino) != SOCK_DGRAM)
				rec_conn_made(c, t->pid, ino);
		} else if (nr != SYS_connect && ret >= 0) {
			/* (its client may have closed: rec_conn_peer()) */
			iot_sock_ino_set(&t->ev, rec_conn_peer(c, t->pid, (int)ret,
				iot_unix_peer(&c->diag_fd, rec_sock_ino(t->tid, (int)ret))));
		}
		break;
	case SYS_sendmsg:
	case SYS_recvmsg:
		/* a sendmsg's, sent or refused, as it was given */
		if (ret >= 0 || nr == SYS_sendmsg)
			msg_exit(t);
		break;
	case SYS_chdir:
		/* `cd ..` is to X, not X/NAME/.. (NAME no symlink), as a
		 * walk's openat(fd, ".."): kept, the names after it spelt
		 * paths two ways (X/NAME/../e and X/e), each new to the
		 * recorder, and a directory made as the one was there at the
		 * start as the other */
		if (ret == 0 && ev->path) {
			uint32_t n = rec_dotdot_len(c, ev->path, ev->path_len);
			char *p = strndup(ev->path, n);

			if (p)
				rec_fs_set_cwd(t, p);
			free(p);
		}
		break;
	case SYS_fchdir:
		if (ret == 0 && ev->path && ev->path[0] == '/')
			rec_fs_set_cwd(t, ev->path);
		break;
	case SYS_chroot:
		/* its later absolute names are under this one (resolved
		 * with the root before, so a chroot inside one nests) */
		if (ret == 0 && ev->path && ev->path[0] == '/') {
			rec_fs_set_root(t, ev->path);
			c->st.chroots++;
		}
		break;
	case SYS_mount: case SYS_umount2: case SYS_pivot_root:
		if (ret == 0)
			c->st.mounts++;
		if (ret == 0 && nr == SYS_mount)
			rec_fuse_scan();
		break;
	case SYS_rmdir: case SYS_unlinkat:
		/* a directory not empty, whose entries the program never
		 * named: listed, so that the starting tree has them (made
		 * empty, its rmdir succeeded: `rm -rf` as another user of a
		 * directory it cannot read; `rmdir` of a full one) */
		if (ret == -ENOTEMPTY && ev->path && !t->hidden)
			rec_dir_listed(c, ev->path, ev->path_len, ev->t_enter);
		break;
	case SYS_rename: case SYS_renameat: case SYS_renameat2:
		if ((ret == -ENOTEMPTY || ret == -EEXIST) && ev->path2 && !t->hidden &&
		    !(nr == SYS_renameat2 && (ev->args[4] & RENAME_NOREPLACE)))
			rec_dir_listed(c, ev->path2, ev->path2_len, ev->t_enter);
		if (ret == 0 && ev->path && ev->path2) {
			rec_fd_rename(t, ev->path, ev->path_len, ev->path2, ev->path2_len);
			/* an exchange moves both ways at once: not followed */
			if (!(nr == SYS_renameat2 && (ev->args[4] & RENAME_EXCHANGE)))
				rec_dir_moved(c, ev->path, ev->path_len, ev->path2, ev->path2_len,
					      now);
		}
		break;
	case SYS_getdents: case SYS_getdents64:
		if (ret > 0 && ev->path && !t->hidden && c->o->listings)
			rec_dir_listed(c, ev->path, ev->path_len, ev->t_enter);
		break;
	case SYS_mremap:
		/* the mapping at its new place, as long as it is now */
		if ((uint64_t)ret < (uint64_t)-4095 && !t->hidden) {
			rec_mm_move(t, (uint64_t)ev->args[0], (uint64_t)ret, (uint64_t)ev->args[2]);
			rec_fmap_move(c, t, (uint64_t)ev->args[0], (uint64_t)ret,
				      (uint64_t)ev->args[2]);
		}
		break;
	case SYS_mmap:
		if ((uint64_t)ret < (uint64_t)-4095 && !t->hidden) {
			rec_mm_add(t, (uint64_t)ret, (uint64_t)ev->args[1]);
			if (!rec_aio_mmap(c, t, (uint64_t)ret, (int)ev->args[4],
					  (uint64_t)ev->args[5]))
				rec_fmap_add(c, t, (uint64_t)ret, (uint64_t)ev->args[1],
					     (uint32_t)ev->args[2], (uint32_t)ev->args[3],
					     (int)ev->args[4], (uint64_t)ev->args[5]);
		}
		break;
	}
	if (t->sc->cls == IOT_CLASS_ASYNC)
		rec_aio_exit_args(c, t);
	if (!t->hidden)
		rec_data_take(c, t);
	if (!t->hidden && emit_event(c, t) == 0) {
		if (t->sc->cls == IOT_CLASS_ASYNC || nr == SYS_close)
			rec_aio_exit(c, t, iot_writer_events(c->w) - 1);
		if (t->n_mp)
			rec_fmap_emit(c, t, iot_writer_events(c->w) - 1);
	}
	rec_task_clear_call(t);
}

/* A call that will never return: the task exits (exit, exit_group: no
 * exit time by nature) or was killed inside it (flagged unfinished). */
void rec_emit_unfinished(struct rec_ctx *c, struct rec_task *t, int64_t now)
{
	if (!t->in_syscall || !t->sc)
		return;
	if (t->hidden) {
		rec_task_clear_call(t);
		return;
	}
	if (t->ev.nr == SYS_exit || t->ev.nr == SYS_exit_group) {
		t->ev.flags |= IOT_EV_NOEXIT_TS;
		t->ev.t_exit = t->ev.t_enter;
	} else {
		t->ev.flags |= IOT_EV_UNFINISHED;
		t->ev.t_exit = now;
	}
	t->ev.ret = 0;
	emit_event(c, t);
	rec_task_clear_call(t);
}
