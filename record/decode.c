/*
 * decode.c - what each recorded syscall stores at its entry, per the
 * argument kinds of format/syscalls.def: read every string and struct
 * while the arguments still point at what the program passed (a later
 * write to the buffer must not change the record), resolve paths, take
 * PathStates before the call runs.  The exit (the return value,
 * out-parameters, the descriptor table, cwd and mappings it changes) and
 * the records written: decode_exit.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>

#include "rec.h"

#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif

#define PHASE_PREFIX "/dev/null/iotape-phase/"

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
				how[2] = i + 2 < IOT_MAX_ARGS ? args[i + 2] : 0;
			} else {
				rec_read_mem(t->tid, args[i], how, sizeof(how));
			}
			ev->args[i] = (int64_t)how[0];
			if (i + 1 < sc->nargs) {
				ev->args[i + 1] = (int64_t)how[1];
				i++;
			}
			/* the resolve bits change what the lookup may cross
			 * (RESOLVE_NO_SYMLINKS, RESOLVE_IN_ROOT): kept after
			 * the call's arguments, as a lock's struct flock is */
			if (nr == SYS_openat2 && how[2]) {
				ev->args[IOT_OPENAT2_RESOLVE] = (int64_t)how[2];
				ev->nargs = IOT_OPENAT2_NARGS;
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
	/* a write hint's value, behind fcntl's pointer: after its three
	 * arguments (a view's record holds it already) */
	if (nr == SYS_fcntl && iot_fcntl_hint(ev->args[1])) {
		if (!t->view) {
			uint64_t v;

			ev->args[IOT_HINT_VALUE] =
				rec_read_mem(t->tid, args[2], &v, sizeof(v)) == (ssize_t)sizeof(v) ?
				(int64_t)v : -1;
		} else {
			ev->args[IOT_HINT_VALUE] = (int64_t)args[IOT_HINT_VALUE];
		}
		ev->nargs = IOT_HINT_NARGS;
	}
	/* the attribute flags chattr sets, behind ioctl's pointer: after
	 * its three arguments (a view's record holds them already) */
	if (nr == SYS_ioctl && iot_ioctl_flags((uint32_t)ev->args[1])) {
		if (!t->view) {
			uint32_t v;

			ev->args[IOT_IOCTL_FLAGS] =
				rec_read_mem(t->tid, args[2], &v, sizeof(v)) == (ssize_t)sizeof(v) ?
				(int64_t)v : -1;
		} else {
			ev->args[IOT_IOCTL_FLAGS] = (int64_t)args[IOT_IOCTL_FLAGS];
		}
		ev->nargs = IOT_IOCTL_NARGS;
	}
	/* FICLONERANGE's struct file_clone_range: the range and its
	 * source (a view's record holds them already) */
	if (nr == SYS_ioctl && (uint32_t)ev->args[1] == IOT_FICLONERANGE) {
		if (!t->view) {
			uint64_t r[4];	/* src_fd, src_offset, src_length, dest_offset */

			if (rec_read_mem(t->tid, args[2], r, sizeof(r)) == (ssize_t)sizeof(r)) {
				ev->args[IOT_CLONE_DEST] = (int64_t)r[3];
				ev->args[IOT_CLONE_SRC_FD] = (int64_t)r[0];
				ev->args[IOT_CLONE_SRC_OFF] = (int64_t)r[1];
				ev->args[IOT_CLONE_LEN] = (int64_t)r[2];
			} else {
				ev->args[IOT_CLONE_DEST] = 0;
				ev->args[IOT_CLONE_SRC_FD] = -1;
				ev->args[IOT_CLONE_SRC_OFF] = ev->args[IOT_CLONE_LEN] = 0;
			}
		} else {
			ev->args[IOT_CLONE_SRC_FD] = (int64_t)args[IOT_CLONE_SRC_FD];
			ev->args[IOT_CLONE_SRC_OFF] = (int64_t)args[IOT_CLONE_SRC_OFF];
			ev->args[IOT_CLONE_LEN] = (int64_t)args[IOT_CLONE_LEN];
		}
		ev->nargs = IOT_CLONE_NARGS;
	}
	/* btrfs's subvolume calls: the name they make or remove, in their
	 * struct, as the path (subvol.c); a snapshot's source the second */
	if (nr == SYS_ioctl && iot_subvol_call((uint32_t)ev->args[1], NULL, NULL) &&
	    rec_subvol_entry(c, t, args)) {
		has_path = 1;
		has_path2 = ev->path2 != NULL;
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
	/* an attribute set through a descriptor without a stop (bpf: its
	 * guard stops only XATTR_CREATE), whose file's were taken after a
	 * change: it may be one of them (states.c) */
	if (nr == SYS_fsetxattr && ev->path && c->xattrs_after.n &&
	    rec_pset_has(&c->xattrs_after, ev->path, ev->path_len))
		c->st.xattrs_late++;
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
	/* no state of a mount's target: under bpf the call is decoded
	 * after it ran, or while it runs, and a look at a FUSE mount's root
	 * then waits for its daemon, a followed process that may be waiting
	 * for the recorder (fuse_mounts.c); its state before the mount is
	 * no file the replay reads (the mount is not replayed) */
	if (nr == SYS_mount)
		rec_fuse_scan();
	/* the states are taken in its mount namespace, from its root; a
	 * program that changed them (unshare(), setns(): not recorded) makes
	 * one of these calls next */
	if (nr == SYS_execve || nr == SYS_execveat || nr == SYS_mount || nr == SYS_chroot ||
	    nr == SYS_pivot_root)
		rec_ns_forget(t);
	c->state_task = t;
	if (has_path && ev->path && !empty && nr != SYS_mount) {
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
	else if (has_path2 && ev->path2 && nr == SYS_ioctl)
		rec_path_state(c, ev->path2, ev->path2_len, NULL);	/* a snapshot's source */
	c->state_task = NULL;
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
