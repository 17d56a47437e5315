/*
 * bpf_guard.c - the one stop the bpf backend keeps: before a call that
 * makes, removes or renames a name, or truncates a path (rec_guard_filter()
 * says which, from format/syscalls.def).
 *
 * The BPF programs see a call's path strings but not the inode behind
 * them, and by the time the recorder drains the ring the call has run:
 * what it removed is gone, what it truncated is empty.  The ptrace backend
 * takes these states at its entry stop; a seccomp filter with a user
 * notification (SECCOMP_RET_USER_NOTIF, installed in the program before
 * its execve and inherited by all its descendants) gives the recorder the
 * same moment for these calls alone: it drains the ring (the thread's
 * cwd and descriptors are then up to date), takes the states of the
 * call's paths, and lets the call run (SECCOMP_USER_NOTIF_FLAG_CONTINUE).
 * Every other call runs without a stop.  (Calls that make a name need it
 * too: their parent directory must be taken before it gains the entry,
 * and the name before it exists.)  io_uring_setup stops too: the first
 * one loads io_uring's BPF programs (bpf_uring.c) before the ring exists;
 * and io_setup: the first loads libaio's (bpf_aio.c) before the context
 * exists (no libaio call comes before one).  So do the calls that change
 * what a path names for the thread (changes_root()), and btrfs's
 * subvolume ioctls, which make or remove a name (subvol_rules()).
 *
 * If the recorder dies, the listener closes and these calls fail with
 * ENOSYS in whatever descendants are left (the program itself is killed
 * with it: PR_SET_PDEATHSIG).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "rec.h"
#include "fastpath/fp.h"

#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE (1UL << 0)
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS	SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/*
 * Which calls stop, from format/syscalls.def: every row that makes,
 * removes or renames a name but returns no descriptor (NAMES without
 * RETFD: unlink, rmdir, rename, mkdir, link, symlink, mknod...), every row
 * that writes through a path (WRITE with a PATH: truncate), every change
 * of extended attributes (setxattr, removexattr: any form), and the opens
 * (NAMES with RETFD) when they truncate: with O_TRUNC in their flags but
 * not both O_CREAT and O_EXCL, or always when they have none to test
 * (creat).  openat2's flags are behind
 * a pointer the filter cannot read: it does not stop.
 */
#define ARG_LO(i)	(offsetof(struct seccomp_data, args[i]))
#define ARG_HI(i)	(offsetof(struct seccomp_data, args[i]) + 4)

/*
 * With the fast path: a munmap, or a MAP_FIXED mmap, that starts below the
 * end of the rings' fixed place (FP_SHM_ADDR) may take them from under the
 * library: it stops, and the library is switched off first.  Programs
 * rarely map anything that low, so these stops are rare.
 */
/* the call's first argument (an address) below the rings' end: stop;
 * else let it run (6 instructions, the last the ALLOW) */
static size_t below_end(struct sock_filter *f)
{
	size_t k = 0;

	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_HI(0));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (uint32_t)FP_SHM_END, 1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	return k;
}

static size_t ring_rules(struct sock_filter *f)
{
	size_t k = 0;

	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_munmap, 0, 6);
	k += below_end(f + k);
	/* mmap: only with MAP_FIXED (else past below_end()'s ALLOW) */
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 0, 8);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(3));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MAP_FIXED, 0, 5);
	k += below_end(f + k);
	return k;
}

/*
 * The calls that change what a path names for the thread: its mount
 * namespace (unshare, setns: no rows in syscalls.def, not recorded), its
 * mounts, its root.  A state is taken in the namespace and from the root
 * the thread has when its call is decoded (mount_ns.c), and a call is
 * decoded at the ring's drain, after it ran: bubblewrap's setup calls,
 * made in the recorder's tree before its pivot_root, had their paths
 * looked up in the new root (absent), those before a bind in the bound
 * directory.  A stop drains the ring before the change; no state is
 * taken of the call's own paths (a mount's target: fuse_mounts.c).
 */
static const int root_calls[] = {
	SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_unshare, SYS_setns,
};

static int changes_root(int nr)
{
	for (size_t i = 0; i < sizeof(root_calls) / sizeof(root_calls[0]); i++)
		if (root_calls[i] == nr)
			return 1;
	return 0;
}

/*
 * 0: @sc never stops in the guard; 1: always; 2: with O_TRUNC in its
 * flags; 3: with XATTR_CREATE in its flags.
 *
 * A change of extended attributes stops: the file's are taken from the
 * file itself, which by the ring's drain had the change.  One through a
 * descriptor (fsetxattr) stops only with XATTR_CREATE: its file was
 * opened first, and its state is taken at the open's drain, before the
 * change unless the change came first (the same ~ms); then the name has
 * the value the program set, where it may have had another, and a set
 * that may create it replays the same.  One that must create it
 * (XATTR_CREATE) would find it there (EEXIST), so it stops, as does a
 * removal (fremovexattr, rare), which would find it gone.  cp -a and
 * tar set attributes on the files they made: one stop per file before.
 */
static int guard_kind(const struct iot_syscall *sc)
{
	int opens = (sc->flags & IOT_SCF_NAMES) && (sc->flags & IOT_SCF_RETFD);

	if (opens && iot_syscall_arg(sc, IOT_ARG_OPEN_FLAGS) >= 0)
		return 2;
	if (sc->cls == IOT_CLASS_XATTR && !(sc->flags & IOT_SCF_LOOK) &&
	    iot_syscall_arg(sc, IOT_ARG_FD) >= 0 && iot_syscall_arg(sc, IOT_ARG_XATTR_FLAGS) >= 0)
		return 3;
	if ((opens && iot_syscall_arg(sc, IOT_ARG_OPENHOW) < 0) ||
	    ((sc->flags & IOT_SCF_NAMES) && !opens) ||
	    ((sc->flags & IOT_SCF_WRITE) && iot_syscall_arg(sc, IOT_ARG_PATH) >= 0) ||
	    (sc->cls == IOT_CLASS_XATTR && !(sc->flags & IOT_SCF_LOOK)))
		return 1;
	return 0;
}

/*
 * btrfs's subvolume calls make or remove the name in their struct
 * (record/subvol.c): an ioctl stops with one of their requests
 * (iot_subvol_req()) in its second argument, which the filter compares
 * (the kernel takes 32 bits of it).  @return : the instructions put at
 * @f (4 and one a request), the accumulator holding the call's number
 * before them.
 */
static size_t subvol_rules(struct sock_filter *f)
{
	size_t nreq = 0, k = 0, i;

	while (iot_subvol_req(nreq))
		nreq++;
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0,
					      (uint8_t)(nreq + 3));
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1));
	for (i = 0; i < nreq; i++)
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, iot_subvol_req(i),
						      (uint8_t)(nreq - i), 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
	return k;
}

int rec_guard_may_stop(int nr, int fast)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(nr);

	if (nr == SYS_io_uring_setup || nr == SYS_io_setup)
		return 1;
	if (fast && (nr == SYS_munmap || nr == SYS_mmap))
		return 1;
	if (changes_root(nr) || nr == SYS_ioctl)
		return 1;
	return sc && guard_kind(sc);
}

int rec_guard_filter(struct sock_filter *f, size_t max, int fast)
{
	const struct iot_syscall *tab;
	size_t n, i, k = 0;

	tab = iot_syscall_table(&n);
	if (3 * n + 32 > max)
		return -E2BIG;
	k += (size_t)rec_filter_arch(f);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	if (fast)
		k += ring_rules(f + k);
	/* io_uring's programs are loaded at the first ring's making,
	 * libaio's at the first context's */
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, 1, 0);
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_setup, 0, 1);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
	for (i = 0; i < sizeof(root_calls) / sizeof(root_calls[0]); i++) {
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      (unsigned)root_calls[i], 0, 1);
		f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
	}
	k += subvol_rules(f + k);
	for (i = 0; i < n && k + 8 < max; i++) {
		const struct iot_syscall *sc = &tab[i];
		int kind = guard_kind(sc), fl = iot_syscall_arg(sc, IOT_ARG_OPEN_FLAGS);

		if (kind == 2) {
			/* the accumulator holds the flags after the load: a
			 * miss is this call without O_TRUNC, let through; so
			 * is one with O_CREAT|O_EXCL, which makes its file or
			 * fails, never truncates (its exit says FMODE_CREATED) */
			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							      (unsigned)sc->nr, 0, 6);
			f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				offsetof(struct seccomp_data, args[fl]));
			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_TRUNC, 0, 3);
			f[k++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, O_CREAT | O_EXCL);
			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, O_CREAT | O_EXCL, 1, 0);
			f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
			f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		} else if (kind == 3) {
			int xf = iot_syscall_arg(sc, IOT_ARG_XATTR_FLAGS);

			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							      (unsigned)sc->nr, 0, 4);
			f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				offsetof(struct seccomp_data, args[xf]));
			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, XATTR_CREATE, 0, 1);
			f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
			f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		} else if (kind == 1) {
			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							      (unsigned)sc->nr, 0, 1);
			f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
		}
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	return (int)k;
}

int rec_guard_install(int fast)
{
	struct sock_filter f[1024];
	struct sock_fprog prog;
	int fd, k = rec_guard_filter(f, sizeof(f) / sizeof(f[0]), fast);

	if (k < 0)
		return k;
	prog.len = (unsigned short)k;
	prog.filter = f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			  SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	return fd < 0 ? -errno : fd;
}

int rec_guard_take(pid_t child, int child_fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, child, 0), fd;

	if (pidfd < 0)
		return -errno;
	fd = (int)syscall(SYS_pidfd_getfd, pidfd, child_fd, 0);
	if (fd < 0)
		fd = -errno;
	/* Linux 6.6 on: the stopped thread hands its CPU to the recorder and
	 * back (the wake-ups on the current CPU), not a wake-up of a sleeper
	 * on another; older kernels say EINVAL and wake as before */
	else
		ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	close(pidfd);
	return fd;
}

/* The states of @nr's paths, read from thread @tid's memory while the
 * call waits. */
static void take_states(struct rec_ctx *c, pid_t tid, int nr, const uint64_t *args)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(nr);
	struct rec_task *t = rec_task_get(c, tid);
	int i;

	if (!sc || !t)
		return;
	for (i = 0; i < sc->nargs; i++) {
		const char *base = t->fs ? t->fs->cwd : NULL;
		uint32_t len;
		ssize_t n;
		char *p;

		if (sc->arg[i] == IOT_ARG_SOCKADDR) {
			int64_t fam;

			/* bind: a Unix socket's name */
			n = rec_read_sun_path(tid, args[i], i + 1 < IOT_MAX_ARGS ? args[i + 1] : 0,
					      c->buf, REC_PATH_MAX, &fam);
		} else if (sc->arg[i] == IOT_ARG_PATH || sc->arg[i] == IOT_ARG_PATH2) {
			n = rec_read_str(tid, args[i], c->buf, REC_PATH_MAX);
		} else {
			continue;
		}
		if (n <= 0)
			continue;
		if (i > 0 && sc->arg[i - 1] == IOT_ARG_DIRFD && (int32_t)args[i - 1] != AT_FDCWD)
			base = rec_fd_path(t, (int32_t)args[i - 1], NULL);
		if (c->buf[0] != '/' && !base)
			continue;
		p = rec_task_path_abs(t, base, c->buf, &len);
		if (!p)
			continue;
		rec_path_magic(c, t, &p, &len, NULL);
		c->state_task = t;
		rec_path_state(c, p, len, NULL);
		c->state_task = NULL;
		free(p);
	}
}

int rec_guard_serve(struct rec_ctx *c, int fd, void (*drain)(struct rec_ctx *))
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	uint64_t args[IOT_MAX_ARGS];
	int i;

	memset(&req, 0, sizeof(req));
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return -errno;
	c->st.guard_stops++;
	/* the thread's calls so far first: its cwd and descriptors */
	drain(c);
	for (i = 0; i < IOT_MAX_ARGS && i < 6; i++)
		args[i] = req.data.args[i];
	if (req.data.nr == SYS_munmap || req.data.nr == SYS_mmap) {
		struct rec_task *t = rec_task_get(c, (pid_t)req.pid);

		if (t)
			rec_fast_switch_off(c, t, args[0], args[1], NULL);
	} else if (req.data.nr == SYS_io_uring_setup) {
		/* the ring's making must find io_uring's programs attached */
		rec_bpf_uring_load(c);
	} else if (req.data.nr == SYS_io_setup) {
		/* the context's making must find libaio's programs in place */
		rec_bpf_aio_load(c);
	} else if (changes_root(req.data.nr)) {
		struct rec_task *t = rec_task_get(c, (pid_t)req.pid);

		/* its calls from now on are looked at again */
		if (t)
			rec_ns_forget(t);
	} else if (req.data.nr == SYS_ioctl) {
		struct rec_task *t = rec_task_get(c, (pid_t)req.pid);

		if (t)
			rec_subvol_states(c, t, args);
	} else {
		take_states(c, (pid_t)req.pid, req.data.nr, args);
	}
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}
