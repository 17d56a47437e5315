/*
 * decode.c - what each recorded syscall stores, per the argument kinds of
 * format/syscalls.def, and how it changes the recorder's descriptor
 * table, cwd and mappings.
 *
 * Entry: read every string and struct while the arguments still point at
 * what the program passed (a later write to the buffer must not change
 * the record), resolve paths, take PathStates before the call runs.
 * Exit: the return value, out-parameters (pipe fds), table updates.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "engine.h"
#include "rec.h"

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif

#define PHASE_PREFIX "/dev/null/iotape-phase/"

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

/* Registers hold 64 bits; int arguments keep only their low 32, signed or
 * not per the kind, so AT_FDCWD reads -100 whatever the caller left in
 * the upper half. */
static int64_t arg_value(int kind, uint64_t raw)
{
	switch (kind) {
	case IOT_ARG_INT: case IOT_ARG_FD: case IOT_ARG_DIRFD:
	case IOT_ARG_PID: case IOT_ARG_WHENCE: case IOT_ARG_FCNTL_CMD:
	case IOT_ARG_SIGNAL: case IOT_ARG_FALLOC_MODE: case IOT_ARG_FADVICE:
	case IOT_ARG_OPEN_FLAGS: case IOT_ARG_AT_FLAGS: case IOT_ARG_MSEC:
	case IOT_ARG_CLOCKID:
		return (int32_t)raw;
	case IOT_ARG_SOCKADDR:
		return (uint16_t)raw;
	case IOT_ARG_UINT: case IOT_ARG_MODE: case IOT_ARG_UID:
	case IOT_ARG_GID: case IOT_ARG_STATX_MASK: case IOT_ARG_CLOSE_RANGE_FLAGS:
	case IOT_ARG_RENAME_FLAGS: case IOT_ARG_XATTR_FLAGS: case IOT_ARG_SYNC_FLAGS:
	case IOT_ARG_ACCESS_MODE: case IOT_ARG_MMAP_PROT: case IOT_ARG_MMAP_FLAGS:
	case IOT_ARG_WAIT_OPTIONS: case IOT_ARG_DEV: case IOT_ARG_TIMER_FLAGS:
		return (uint32_t)raw;
	default:
		return (int64_t)raw;
	}
}

/* The string argument at @i into @buf: from a fast-path record's copy,
 * else from the tracee's memory.  @return : its length, or -errno */
static ssize_t arg_str(struct rec_task *t, int i, char *buf, size_t cap)
{
	size_t n;

	if (!t->view)
		return rec_read_str(t->tid, t->raw[i], buf, cap);
	if (!t->view->str[i])
		return -EFAULT;
	n = t->view->slen[i] < cap ? t->view->slen[i] : cap - 1;
	memcpy(buf, t->view->str[i], n);
	buf[n] = 0;
	return (ssize_t)n;
}

static char *resolve_buf(struct rec_ctx *c, struct rec_task *t, int i, ssize_t n,
			 uint32_t *len, int *empty_fd, int64_t *value, int *slash);

/* Resolve the path argument at @i: relative to the DIRFD just before it,
 * else the cwd; "" with AT_EMPTY_PATH names the dirfd itself.  *@value:
 * what the event keeps as the argument, 0, or 1 + N for /proc/self/fd/N
 * of the task's own table (rec_path_magic()): the descriptor, which a
 * replay can name where the path is not its file's (format/FORMAT.md). */
static char *resolve(struct rec_ctx *c, struct rec_task *t, int i,
		     uint32_t *len, int *empty_fd, int64_t *value, int *slash)
{
	return resolve_buf(c, t, i, arg_str(t, i, c->buf, REC_PATH_MAX), len, empty_fd, value,
			   slash);
}

/* Does name @s (@n bytes) end in a '/' or a "/." after some other name,
 * so that its last component must be a directory? */
static int slash_end(const char *s, size_t n)
{
	int dir = 0;

	while (n > 0) {
		if (s[n - 1] != '/' && (s[n - 1] != '.' || (n > 1 && s[n - 2] != '/')))
			break;
		n--;
		dir = 1;
	}
	return dir && n > 0;
}

/* Is the last component of name @s (@n bytes), trailing slashes aside,
 * "."? */
static int dot_end(const char *s, size_t n)
{
	while (n > 0 && s[n - 1] == '/')
		n--;
	return n > 0 && s[n - 1] == '.' && (n == 1 || s[n - 2] == '/');
}

/* Does @sc make, remove or rename the name its path ends in (mkdir,
 * rmdir, unlink, rename, link, symlink, mknod), rather than look it up? */
static int names_last(const struct iot_syscall *sc)
{
	return (sc->flags & IOT_SCF_NAMES) && !(sc->flags & IOT_SCF_RETFD);
}

/* The socket address at @i (its length the next argument): an AF_UNIX
 * one's path into c->buf, from a fast-path or BPF record's copy (its
 * value the family, its string the path), else the tracee's memory.
 * *@family : sa_family, or -1.  @return : the path's length, 0 for none
 * (another family, an abstract name), or -errno. */
static ssize_t arg_sun_path(struct rec_ctx *c, struct rec_task *t, int i, int64_t *family)
{
	const uint64_t off = offsetof(struct sockaddr_un, sun_path);
	uint64_t alen = i + 1 < IOT_MAX_ARGS ? t->raw[i + 1] : 0, cap;
	ssize_t n;

	if (!t->view)
		return rec_read_sun_path(t->tid, t->raw[i], alen, c->buf, REC_PATH_MAX, family);
	*family = (uint16_t)t->raw[i];
	if (*family != AF_UNIX || !t->view->str[i] || alen <= off)
		return 0;
	n = arg_str(t, i, c->buf, REC_PATH_MAX);
	/* the BPF programs read on to a NUL: the kernel takes sun_path to
	 * the address's end, as rec_read_sun_path() does */
	cap = alen - off < sizeof(((struct sockaddr_un *)0)->sun_path) ?
	      alen - off : sizeof(((struct sockaddr_un *)0)->sun_path);
	if (n > (ssize_t)cap) {
		n = (ssize_t)cap;
		c->buf[n] = 0;
	}
	return n;
}

/* resolve() of the string of @n bytes (or -errno) already in c->buf */
static char *resolve_buf(struct rec_ctx *c, struct rec_task *t, int i, ssize_t n,
			 uint32_t *len, int *empty_fd, int64_t *value, int *slash)
{
	const struct iot_syscall *sc = t->sc;
	const char *base = t->fs ? t->fs->cwd : NULL;
	int64_t dirfd = AT_FDCWD;
	long self = -1;
	char *p;

	*value = 0;
	if (slash)
		*slash = 0;
	if (n < 0)
		return NULL;
	if (i > 0 && sc->arg[i - 1] == IOT_ARG_DIRFD) {
		dirfd = (int32_t)t->raw[i - 1];
		if (dirfd != AT_FDCWD) {
			base = rec_fd_path_at(t, dirfd, NULL, t->ev.t_enter);
			if (!base && c->buf[0] != '/')
				base = "?";	/* unknown dirfd: keep relative name visible */
		}
	}
	if (n == 0) {
		int fl = iot_syscall_arg(sc, IOT_ARG_AT_FLAGS);

		if (fl >= 0 && (t->raw[fl] & AT_EMPTY_PATH) && base) {
			*empty_fd = 1;
			*len = (uint32_t)strlen(base);
			return strdup(base);
		}
		*len = 0;
		return strdup("");
	}
	p = rec_task_path_abs(t, base, c->buf, len);
	if (slash && p)
		*slash = *len <= 1 ? 0 :
			 names_last(sc) && dot_end(c->buf, (size_t)n) ? 2 :
			 slash_end(c->buf, (size_t)n);
	if (p && rec_path_magic(c, t, &p, len, &self)) {
		if (slash)
			*slash = 0;
		if (self >= 0)
			*value = (int64_t)self + 1;
	}
	return p;
}

static void read_argv(struct rec_task *t, uint64_t addr)
{
	uint64_t ptrs[64];
	char buf[REC_PATH_MAX];
	uint32_t cap = 0;

	while (addr && t->argc < REC_MAX_ARGV) {
		ssize_t n = rec_read_mem(t->tid, addr, ptrs, sizeof(ptrs));
		int i, nptr;

		if (n < 8)
			break;
		nptr = (int)(n / 8);
		for (i = 0; i < nptr; i++) {
			ssize_t l;

			if (!ptrs[i])
				return;
			l = rec_read_str(t->tid, ptrs[i], buf, sizeof(buf));
			if (l < 0)
				return;
			if (t->argc == cap) {
				char **a;

				cap = cap ? cap * 2 : 16;
				a = realloc(t->argv, sizeof(*a) * cap);
				if (!a)
					return;
				t->argv = a;
			}
			t->argv[t->argc] = strndup(buf, (size_t)l);
			if (!t->argv[t->argc])
				return;
			t->argc++;
		}
		addr += (uint64_t)n;
	}
}

static int64_t iov_sum(pid_t tid, uint64_t addr, uint64_t cnt)
{
	struct iovec iov[64];
	int64_t sum = 0;

	if (cnt > 1024)
		cnt = 1024;
	while (cnt > 0) {
		uint64_t k = cnt > 64 ? 64 : cnt, j;

		if (rec_read_mem(tid, addr, iov, k * sizeof(iov[0])) !=
		    (ssize_t)(k * sizeof(iov[0])))
			break;
		for (j = 0; j < k; j++)
			sum += (int64_t)iov[j].iov_len;
		addr += k * sizeof(iov[0]);
		cnt -= k;
	}
	return sum;
}

/* A TIMESPEC or TIMEVAL argument from the tracee's memory at entry
 * (select changes its own on return). */
static int64_t read_timeout(pid_t tid, uint64_t addr, int usec)
{
	int64_t t[2];

	if (!addr)
		return -1;
	if (rec_read_mem(tid, addr, t, sizeof(t)) != (ssize_t)sizeof(t))
		return -1;
	return iot_timeout_ns(t, usec);
}

static void phase_mark(struct rec_ctx *c, struct rec_task *t, const char *p)
{
	const char *name = p + strlen(PHASE_PREFIX);
	uint32_t len = (uint32_t)strlen(name);
	struct iot_process pr;

	memset(&pr, 0, sizeof(pr));
	pr.kind = IOT_PROC_PHASE;
	pr.t_ns = t->ev.t_enter;
	pr.pid = t->pid;
	pr.tid = t->tid;
	pr.argc = 1;
	pr.argv = &name;
	pr.argv_len = &len;
	rec_emit_process(c, &pr);
}

int rec_decode_entry(struct rec_ctx *c, struct rec_task *t, int nr,
		     const uint64_t *args, int64_t now)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(nr);
	int i, fd_args = 0, has_path = 0, has_path2 = 0, empty = 0, slash = 0;
	struct iot_event *ev = &t->ev;

	rec_task_clear_call(t);
	if (!sc)
		return 0;
	if (c->fast && !t->view &&
	    (nr == SYS_munmap || (nr == SYS_mmap && (args[3] & MAP_FIXED))))
		rec_fast_unmapping(c, t, args[0], args[1]);
	/* anonymous mappings are memory, not files */
	if (nr == SYS_mmap && ((args[3] & MAP_ANONYMOUS) || (int32_t)args[4] < 0))
		return 0;
	if (nr == SYS_munmap && !rec_mm_del(t, args[0], args[1]))
		return 0;
	/* anonymous memory moved (realloc): no file's */
	if (nr == SYS_mremap && !rec_mm_has(t, args[0], args[1]))
		return 0;
	t->sc = sc;
	memcpy(t->raw, args, sizeof(t->raw));
	ev->t_enter = now;
	ev->pid = t->pid;
	ev->tid = t->tid;
	ev->nr = nr;
	ev->nargs = sc->nargs;
	for (i = 0; i < sc->nargs; i++) {
		int kind = sc->arg[i];
		uint32_t len = 0;
		ssize_t n;

		switch (kind) {
		case IOT_ARG_PATH:
			t->path = resolve(c, t, i, &len, &empty, &ev->args[i], &slash);
			if (slash)
				t->slash |= slash == 2 ? 4 : 1;
			if (t->path) {
				ev->path = t->path;
				ev->path_len = len;
				has_path = 1;
			}
			break;
		case IOT_ARG_PATH2:
			t->path2 = resolve(c, t, i, &len, &empty, &ev->args[i], &slash);
			if (slash)
				t->slash |= slash == 2 ? 8 : 2;
			if (t->path2) {
				ev->path2 = t->path2;
				ev->path2_len = len;
				has_path2 = 1;
			}
			break;
		case IOT_ARG_STR2:
			n = arg_str(t, i, c->buf, REC_PATH_MAX);
			if (n >= 0) {
				t->path2 = strndup(c->buf, (size_t)n);
				ev->path2 = t->path2;
				ev->path2_len = (uint32_t)n;
				has_path2 = 1;
			}
			ev->args[i] = 0;
			break;
		case IOT_ARG_SOCKADDR: {
			int64_t fam = -1;

			n = arg_sun_path(c, t, i, &fam);
			/* only a name in a directory is the filesystem's: an
			 * abstract name, an AF_INET address are not kept */
			if (n <= 0) {
				rec_task_clear_call(t);
				return 0;
			}
			t->path = resolve_buf(c, t, i, n, &len, &empty, &ev->args[i], NULL);
			ev->args[i] = fam;
			if (t->path) {
				ev->path = t->path;
				ev->path_len = len;
				has_path = 1;
			}
			break;
		}
		case IOT_ARG_PTR:
		case IOT_ARG_FDPAIR:
		case IOT_ARG_MSGFDS:		/* filled at the exit */
			ev->args[i] = 0;
			break;
		case IOT_ARG_IOVLEN:
			/* a fast-path record holds the values, not the pointers */
			ev->args[i] = t->view ? (int64_t)args[i] :
				iov_sum(t->tid, args[i], args[i + 1]);
			break;
		case IOT_ARG_OFFPTR: {
			int64_t off = -1;

			if (t->view)
				off = (int64_t)args[i];
			else if (args[i] && rec_read_mem(t->tid, args[i], &off, 8) != 8)
				off = -1;
			ev->args[i] = off;
			break;
		}
		case IOT_ARG_TIMESPEC:
		case IOT_ARG_TIMEVAL:
			/* a fast-path record holds the time, not the pointer */
			ev->args[i] = t->view ? (int64_t)args[i] :
				read_timeout(t->tid, args[i], kind == IOT_ARG_TIMEVAL);
			break;
		case IOT_ARG_OPENHOW: {
			uint64_t how[3] = { 0, 0, 0 };

			if (t->view) {
				how[0] = args[i];
				how[1] = i + 1 < IOT_MAX_ARGS ? args[i + 1] : 0;
			} else {
				rec_read_mem(t->tid, args[i], how, sizeof(how));
			}
			ev->args[i] = (int64_t)how[0];
			if (i + 1 < sc->nargs) {
				ev->args[i + 1] = (int64_t)how[1];
				i++;
			}
			break;
		}
		case IOT_ARG_CLONE_FLAGS:
			if (nr == SYS_clone3 && t->view) {
				ev->args[i] = (int64_t)args[i];
			} else if (nr == SYS_clone3) {
				uint64_t fl = 0;

				rec_read_mem(t->tid, args[i], &fl, 8);
				ev->args[i] = (int64_t)fl;
			} else {
				ev->args[i] = (int64_t)args[i];
			}
			break;
		default:
			ev->args[i] = arg_value(kind, args[i]);
			break;
		}
	}
	/* a lock's struct flock, as the call was given it (a view's
	 * record holds it already: the fast path and the bpf programs read
	 * it at entry) */
	if (nr == SYS_fcntl && iot_fcntl_lock(ev->args[1])) {
		if (!t->view) {
			struct flock fl;

			iot_flock_pack(rec_read_mem(t->tid, args[2], &fl, sizeof(fl)) ==
				       (ssize_t)sizeof(fl) ? &fl : NULL, &ev->args[IOT_FLOCK_TYPE]);
		} else {
			ev->args[IOT_FLOCK_TYPE] = (int64_t)args[IOT_FLOCK_TYPE];
			ev->args[IOT_FLOCK_START] = (int64_t)args[IOT_FLOCK_START];
			ev->args[IOT_FLOCK_LEN] = (int64_t)args[IOT_FLOCK_LEN];
		}
		ev->args[2] = 0;
		ev->nargs = IOT_FLOCK_NARGS;
	}
	/* fcntl commands without an argument: the register holds whatever
	 * the caller left there, which is noise, not a value */
	if (nr == SYS_fcntl && (ev->args[1] == F_GETFD || ev->args[1] == F_GETFL ||
				ev->args[1] == F_GETOWN || ev->args[1] == F_GETSIG ||
				ev->args[1] == F_GETLEASE || ev->args[1] == F_GETPIPE_SZ ||
				ev->args[1] == F_GET_SEALS))
		ev->args[2] = 0;
	/* descriptor-based calls carry the descriptor's path: analysis
	 * groups by file and replay opens the same file */
	for (i = 0; i < sc->nargs; i++) {
		uint32_t len;
		const char *p;

		if (sc->arg[i] != IOT_ARG_FD)
			continue;
		fd_args++;
		p = rec_fd_path_at(t, ev->args[i], &len, ev->t_enter);
		if (fd_args == 1 && !has_path && p) {
			t->path = strndup(p, len);
			ev->path = t->path;
			ev->path_len = t->path ? len : 0;
		} else if (fd_args == 2 && !has_path2 && p) {
			t->path2 = strndup(p, len);
			ev->path2 = t->path2;
			ev->path2_len = t->path2 ? len : 0;
		}
	}
	/* the dynamic loader loading the fast path's own library: kept out
	 * of the trace (its descriptor still tracked), so that a trace is the
	 * same with the fast path and without */
	if (c->fast && ev->path && strcmp(ev->path, rec_fast_lib(c)) == 0) {
		/* Only its open needs the result (the descriptor to follow);
		 * its read, fstat, mmap and close need no second stop. */
		if (nr != SYS_open && nr != SYS_openat && nr != SYS_openat2) {
			if (nr == SYS_close)
				rec_fd_close(t, (int)ev->args[0]);
			rec_task_clear_call(t);
			return 0;
		}
		t->hidden = 1;
		t->in_syscall = 1;
		return 1;
	}
	if (has_path && ev->path && !empty) {
		int pi = iot_syscall_path_arg(sc);

		if (ev->path[0] == '/' && ev->path[1] == 'd' &&
		    strncmp(ev->path, PHASE_PREFIX, sizeof(PHASE_PREFIX) - 1) == 0)
			phase_mark(c, t, ev->path);
		rec_path_state(c, ev->path, ev->path_len,
			       t->view && pi >= 0 ? t->view->pre[pi] : NULL);
	}
	i = iot_syscall_arg(sc, IOT_ARG_PATH2);
	if (has_path2 && ev->path2 && i >= 0)
		rec_path_state(c, ev->path2, ev->path2_len, t->view ? t->view->pre[i] : NULL);
	switch (nr) {
	case SYS_execve:
	case SYS_execveat:
		rec_fmap_exec_entry(c, t);
		if (!t->view || !t->view->no_mem)
			read_argv(t, args[nr == SYS_execve ? 1 : 2]);
		if (ev->path)
			t->exec_path = strndup(ev->path, ev->path_len);
		break;
	case SYS_clone:
		t->clone_flags = args[0];
		break;
	case SYS_clone3:
		t->clone_flags = (uint64_t)ev->args[0];
		break;
	case SYS_fork:
		t->clone_flags = SIGCHLD;
		break;
	case SYS_io_submit: case SYS_io_uring_enter: case SYS_io_uring_register:
	case SYS_close: case SYS_munmap:
		rec_aio_entry(c, t);
		if (nr == SYS_munmap)
			rec_fmap_entry(c, t, 1);
		/* The kernel frees the number early in the call: another
		 * thread's open can return it before this close returns
		 * (its exit stop comes after the open's, its bpf record
		 * first), and forgetting the file at the exit forgot the
		 * open's (a Go test's unlinkat()s through it recorded under
		 * no directory). */
		if (nr == SYS_close)
			rec_fd_close_at(t, (int)ev->args[0], ev->t_enter);
		break;
	case SYS_msync:
		rec_fmap_entry(c, t, 0);
		break;
	case SYS_mremap:
		rec_fmap_remap_entry(c, t);
		break;
	case SYS_vfork:
		t->clone_flags = CLONE_VM | CLONE_VFORK | SIGCHLD;
		break;
	}
	/* a write of zeros: its replay writes zeros (a filesystem that
	 * compresses or finds zeros sees what the program wrote) */
	if (iot_syscall_wbuf(sc) >= 0 &&
	    (t->view ? t->view->zero : rec_wbuf_zero(t->tid, sc, args)))
		ev->flags |= IOT_EV_ZERO;
	t->in_syscall = 1;
	return 1;
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
	/* a new name that may be a symlink: what stat_path() knew is old */
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
