/*
 * text_args.c - argument values as strace prints them: flag words, enums,
 * fd pairs, devices.
 *
 * Values are x86_64 kernel ABI values, written out here rather than taken
 * from the libc headers: a trace recorded elsewhere must read the same,
 * and glibc hides some kernel bits (O_LARGEFILE is 0 in userspace on
 * x86_64, yet the kernel's open flags carry 0100000).
 */
#include <asm/unistd_64.h>
#include <sys/sysmacros.h>

#include "text_int.h"

struct flag {
	uint64_t mask;
	const char *name;
};

#define N(t) (sizeof(t) / sizeof((t)[0]))
#define F(name, v) { (v), #name }

/*
 * A flag word: the names of the set flags in table order, then any
 * leftover bits in hex.  An entry whose bits were all printed by an
 * earlier, wider entry is skipped: O_SYNC (04010000) hides O_DSYNC,
 * STATX_BASIC_STATS hides STATX_TYPE.
 */
static void sb_flags(struct iot_sbuf *b, const struct flag *t, size_t n,
		     uint64_t v, const char *zero, int sep)
{
	uint64_t done = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!t[i].mask || (v & t[i].mask) != t[i].mask)
			continue;
		if ((t[i].mask & ~done) == 0)
			continue;
		if (sep)
			iot_sb_putc(b, '|');
		iot_sb_puts(b, t[i].name);
		done |= t[i].mask;
		sep = 1;
	}
	if (v & ~done) {
		if (sep)
			iot_sb_putc(b, '|');
		iot_sb_printf(b, "%#llx", (unsigned long long)(v & ~done));
	} else if (!sep) {
		iot_sb_puts(b, zero ? zero : "0");
	}
}

/* io_uring_enter(2) flags and io_uring_register(2) opcodes (kernel ABI) */
static const struct flag uring_enter[] = {
	F(IORING_ENTER_GETEVENTS, 1), F(IORING_ENTER_SQ_WAKEUP, 2),
	F(IORING_ENTER_SQ_WAIT, 4), F(IORING_ENTER_EXT_ARG, 8),
	F(IORING_ENTER_REGISTERED_RING, 16),
};

static const struct flag uring_reg[] = {
	F(IORING_REGISTER_BUFFERS, 0), F(IORING_UNREGISTER_BUFFERS, 1),
	F(IORING_REGISTER_FILES, 2), F(IORING_UNREGISTER_FILES, 3),
	F(IORING_REGISTER_EVENTFD, 4), F(IORING_UNREGISTER_EVENTFD, 5),
	F(IORING_REGISTER_FILES_UPDATE, 6), F(IORING_REGISTER_EVENTFD_ASYNC, 7),
	F(IORING_REGISTER_PROBE, 8), F(IORING_REGISTER_PERSONALITY, 9),
	F(IORING_UNREGISTER_PERSONALITY, 10), F(IORING_REGISTER_RESTRICTIONS, 11),
	F(IORING_REGISTER_ENABLE_RINGS, 12), F(IORING_REGISTER_FILES2, 13),
	F(IORING_REGISTER_FILES_UPDATE2, 14), F(IORING_REGISTER_BUFFERS2, 15),
	F(IORING_REGISTER_BUFFERS_UPDATE, 16), F(IORING_REGISTER_IOWQ_AFF, 17),
	F(IORING_UNREGISTER_IOWQ_AFF, 18), F(IORING_REGISTER_IOWQ_MAX_WORKERS, 19),
	F(IORING_REGISTER_RING_FDS, 20), F(IORING_UNREGISTER_RING_FDS, 21),
};

/* One value out of a list; @fallback prints the unknown ones. */
static void sb_enum(struct iot_sbuf *b, const struct flag *t, size_t n,
		    uint64_t v, const char *fallback)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (t[i].mask == v) {
			iot_sb_puts(b, t[i].name);
			return;
		}
	}
	if (fallback[0] == 'x')
		iot_sb_printf(b, "%#llx", (unsigned long long)v);
	else
		iot_sb_printf(b, "%lld", (long long)v);
}

/* strace's order: by value, but O_DIRECTORY (and O_TMPFILE, which holds
 * its bit) last. */
static const struct flag open_flags[] = {
	F(O_CREAT, 0100), F(O_EXCL, 0200), F(O_NOCTTY, 0400),
	F(O_TRUNC, 01000), F(O_APPEND, 02000), F(O_NONBLOCK, 04000),
	F(O_SYNC, 04010000), F(O_DSYNC, 010000), F(O_ASYNC, 020000),
	F(O_DIRECT, 040000), F(O_LARGEFILE, 0100000),
	F(O_NOFOLLOW, 0400000), F(O_NOATIME, 01000000),
	F(O_CLOEXEC, 02000000), F(O_PATH, 010000000),
	F(O_TMPFILE, 020200000), F(O_DIRECTORY, 0200000),
};

void iot_sb_open_flags(struct iot_sbuf *b, uint64_t v, int accmode)
{
	static const char *const acc[] = {
		"O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE"
	};

	if (accmode) {
		iot_sb_puts(b, acc[v & IOT_O_ACCMODE]);
		v &= ~(uint64_t)IOT_O_ACCMODE;
	}
	sb_flags(b, open_flags, N(open_flags), v, "0", accmode);
}

static const struct flag resolve_flags[] = {
	F(RESOLVE_NO_XDEV, 0x01), F(RESOLVE_NO_MAGICLINKS, 0x02),
	F(RESOLVE_NO_SYMLINKS, 0x04), F(RESOLVE_BENEATH, 0x08),
	F(RESOLVE_IN_ROOT, 0x10), F(RESOLVE_CACHED, 0x20),
};

/* openat2's open_how.resolve: RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS */
void iot_sb_resolve(struct iot_sbuf *b, uint64_t v)
{
	sb_flags(b, resolve_flags, N(resolve_flags), v, "0", 0);
}

static const struct flag file_types[] = {
	F(S_IFSOCK, 0140000), F(S_IFLNK, 0120000), F(S_IFREG, 0100000),
	F(S_IFBLK, 060000), F(S_IFDIR, 040000), F(S_IFCHR, 020000),
	F(S_IFIFO, 010000),
};

/* 0644, or S_IFCHR|0600 when type bits are there (mknod). */
void iot_sb_mode(struct iot_sbuf *b, uint64_t v)
{
	uint64_t type = v & 0170000;

	if (type) {
		sb_enum(b, file_types, N(file_types), type, "x");
		iot_sb_putc(b, '|');
	}
	iot_sb_printf(b, "%#03llo", (unsigned long long)(v & ~(uint64_t)0170000));
}

static const struct flag at_flags[] = {
	F(AT_SYMLINK_NOFOLLOW, 0x100), F(AT_REMOVEDIR, 0x200),
	F(AT_SYMLINK_FOLLOW, 0x400), F(AT_NO_AUTOMOUNT, 0x800),
	F(AT_EMPTY_PATH, 0x1000), F(AT_STATX_FORCE_SYNC, 0x2000),
	F(AT_STATX_DONT_SYNC, 0x4000), F(AT_RECURSIVE, 0x8000),
};

/* statx's sync type is a 2-bit field whose zero has a name; faccessat2
 * gives 0x200 (AT_REMOVEDIR elsewhere) the meaning AT_EACCESS. */
static void sb_at_flags(struct iot_sbuf *b, uint32_t v, int nr)
{
	int sep = 0;

	if (nr == __NR_statx && !(v & 0x6000)) {
		iot_sb_puts(b, "AT_STATX_SYNC_AS_STAT");
		sep = 1;
	}
	if (nr == __NR_faccessat2 && (v & 0x200)) {
		if (sep)
			iot_sb_putc(b, '|');
		iot_sb_puts(b, "AT_EACCESS");
		v &= ~0x200u;
		sep = 1;
	}
	if (sep && !v)
		return;
	sb_flags(b, at_flags, N(at_flags), v, "0", sep);
}

static const struct flag whence[] = {
	F(SEEK_SET, 0), F(SEEK_CUR, 1), F(SEEK_END, 2), F(SEEK_DATA, 3),
	F(SEEK_HOLE, 4),
};

static const struct flag flock_ops[] = {
	F(LOCK_SH, 1), F(LOCK_EX, 2), F(LOCK_NB, 4), F(LOCK_UN, 8),
};

static const struct flag lock_types[] = {
	F(F_RDLCK, 0), F(F_WRLCK, 1), F(F_UNLCK, 2),
};

void iot_sb_flock(struct iot_sbuf *b, int64_t type, int64_t start, int64_t len)
{
	if (type == -1) {
		iot_sb_puts(b, "{?}");
		return;
	}
	iot_sb_puts(b, "{l_type=");
	sb_enum(b, lock_types, N(lock_types), (uint16_t)type, "d");
	iot_sb_puts(b, ", l_whence=");
	sb_enum(b, whence, N(whence), (uint16_t)((uint64_t)type >> 16), "d");
	iot_sb_printf(b, ", l_start=%lld, l_len=%lld}", (long long)start, (long long)len);
}

/* The request is an unsigned int in the kernel: compare 32 bits. */
static const struct flag ioctls[] = {
	F(FIBMAP, 0x1), F(FIGETBSZ, 0x2), F(FICLONE, 0x40049409),
	F(FICLONERANGE, 0x4020940d), F(FIDEDUPERANGE, 0xc0189436),
	F(FS_IOC_GETFLAGS, 0x80086601), F(FS_IOC_SETFLAGS, 0x40086602),
	F(FS_IOC_GETVERSION, 0x80087601), F(FS_IOC_SETVERSION, 0x40087602),
	F(FS_IOC_FIEMAP, 0xc020660b), F(FS_IOC_FSGETXATTR, 0x801c581f),
	F(FS_IOC_FSSETXATTR, 0x401c5820), F(FS_IOC_GETFSLABEL, 0x81009431),
	F(FS_IOC_SETFSLABEL, 0x41009432), F(FITRIM, 0xc0185879),
	F(FIFREEZE, 0xc0045877), F(FITHAW, 0xc0045878),
	F(BTRFS_IOC_SNAP_CREATE, 0x50009401),
	F(BTRFS_IOC_SUBVOL_CREATE, 0x5000940e),
	F(BTRFS_IOC_SNAP_DESTROY, 0x5000940f),
	F(BTRFS_IOC_SNAP_CREATE_V2, 0x50009417),
	F(BTRFS_IOC_SUBVOL_CREATE_V2, 0x50009418),
	F(BTRFS_IOC_SNAP_DESTROY_V2, 0x5000943f),
	F(BTRFS_IOC_FS_INFO, 0x8400941f),
	F(BLKRRPART, 0x125f), F(BLKGETSIZE, 0x1260), F(BLKFLSBUF, 0x1261),
	F(BLKSSZGET, 0x1268), F(BLKDISCARD, 0x1277),
	F(BLKBSZGET, 0x80081270), F(BLKGETSIZE64, 0x80081272),
	F(TCGETS, 0x5401), F(TCSETS, 0x5402), F(TCSETSW, 0x5403),
	F(TCSETSF, 0x5404), F(TCFLSH, 0x540b), F(TIOCSCTTY, 0x540e),
	F(TIOCGPGRP, 0x540f), F(TIOCSPGRP, 0x5410), F(TIOCOUTQ, 0x5411),
	F(TIOCGWINSZ, 0x5413), F(TIOCSWINSZ, 0x5414), F(FIONREAD, 0x541b),
	F(FIONBIO, 0x5421), F(FIONCLEX, 0x5450), F(FIOCLEX, 0x5451),
	F(FIOASYNC, 0x5452), F(TIOCGPTN, 0x80045430),
	F(TIOCSPTLCK, 0x40045431),
};

static const struct flag fcntl_cmds[] = {
	F(F_DUPFD, 0), F(F_GETFD, 1), F(F_SETFD, 2), F(F_GETFL, 3),
	F(F_SETFL, 4), F(F_GETLK, 5), F(F_SETLK, 6), F(F_SETLKW, 7),
	F(F_SETOWN, 8), F(F_GETOWN, 9), F(F_SETSIG, 10), F(F_GETSIG, 11),
	F(F_SETOWN_EX, 15), F(F_GETOWN_EX, 16), F(F_GETOWNER_UIDS, 17),
	F(F_OFD_GETLK, 36), F(F_OFD_SETLK, 37), F(F_OFD_SETLKW, 38),
	F(F_SETLEASE, 1024), F(F_GETLEASE, 1025), F(F_NOTIFY, 1026),
	F(F_DUPFD_CLOEXEC, 1030), F(F_SETPIPE_SZ, 1031),
	F(F_GETPIPE_SZ, 1032), F(F_ADD_SEALS, 1033), F(F_GET_SEALS, 1034),
	F(F_GET_RW_HINT, 1035), F(F_SET_RW_HINT, 1036),
	F(F_GET_FILE_RW_HINT, 1037), F(F_SET_FILE_RW_HINT, 1038),
};

/* The low byte is the exit signal, printed after the flags. */
static const struct flag clone_flags[] = {
	F(CLONE_VM, 0x100), F(CLONE_FS, 0x200), F(CLONE_FILES, 0x400),
	F(CLONE_SIGHAND, 0x800), F(CLONE_PIDFD, 0x1000),
	F(CLONE_PTRACE, 0x2000), F(CLONE_VFORK, 0x4000),
	F(CLONE_PARENT, 0x8000), F(CLONE_THREAD, 0x10000),
	F(CLONE_NEWNS, 0x20000), F(CLONE_SYSVSEM, 0x40000),
	F(CLONE_SETTLS, 0x80000), F(CLONE_PARENT_SETTID, 0x100000),
	F(CLONE_CHILD_CLEARTID, 0x200000), F(CLONE_DETACHED, 0x400000),
	F(CLONE_UNTRACED, 0x800000), F(CLONE_CHILD_SETTID, 0x1000000),
	F(CLONE_NEWCGROUP, 0x2000000), F(CLONE_NEWUTS, 0x4000000),
	F(CLONE_NEWIPC, 0x8000000), F(CLONE_NEWUSER, 0x10000000),
	F(CLONE_NEWPID, 0x20000000), F(CLONE_NEWNET, 0x40000000),
	F(CLONE_IO, 0x80000000), F(CLONE_CLEAR_SIGHAND, 0x100000000),
	F(CLONE_INTO_CGROUP, 0x200000000),
};

static const char *const signals[32] = {
	NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT",
	"SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2",
	"SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT",
	"SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
	"SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR",
	"SIGSYS",
};

void iot_sb_signal(struct iot_sbuf *b, int sig)
{
	if (sig > 0 && sig < 32)
		iot_sb_puts(b, signals[sig]);
	else if (sig >= 32 && sig <= 64)
		iot_sb_printf(b, "SIGRT_%d", sig - 32);
	else
		iot_sb_printf(b, "%d", sig);
}

static const struct flag rename_flags[] = {
	F(RENAME_NOREPLACE, 1), F(RENAME_EXCHANGE, 2), F(RENAME_WHITEOUT, 4),
};

static const struct flag access_modes[] = {
	F(R_OK, 4), F(W_OK, 2), F(X_OK, 1),
};

static const struct flag mmap_prot[] = {
	F(PROT_READ, 1), F(PROT_WRITE, 2), F(PROT_EXEC, 4), F(PROT_SEM, 8),
	F(PROT_GROWSDOWN, 0x01000000), F(PROT_GROWSUP, 0x02000000),
};

static const struct flag mmap_type[] = {
	F(MAP_SHARED, 1), F(MAP_PRIVATE, 2), F(MAP_SHARED_VALIDATE, 3),
};

static const struct flag mmap_flags[] = {
	F(MAP_FIXED, 0x10), F(MAP_ANONYMOUS, 0x20), F(MAP_32BIT, 0x40),
	F(MAP_GROWSDOWN, 0x100), F(MAP_DENYWRITE, 0x800),
	F(MAP_EXECUTABLE, 0x1000), F(MAP_LOCKED, 0x2000),
	F(MAP_NORESERVE, 0x4000), F(MAP_POPULATE, 0x8000),
	F(MAP_NONBLOCK, 0x10000), F(MAP_STACK, 0x20000),
	F(MAP_HUGETLB, 0x40000), F(MAP_SYNC, 0x80000),
	F(MAP_FIXED_NOREPLACE, 0x100000), F(MAP_UNINITIALIZED, 0x4000000),
};

static const struct flag xattr_flags[] = {
	F(XATTR_CREATE, 1), F(XATTR_REPLACE, 2),
};

static const struct flag falloc_modes[] = {
	F(FALLOC_FL_KEEP_SIZE, 1), F(FALLOC_FL_PUNCH_HOLE, 2),
	F(FALLOC_FL_NO_HIDE_STALE, 4), F(FALLOC_FL_COLLAPSE_RANGE, 8),
	F(FALLOC_FL_ZERO_RANGE, 0x10), F(FALLOC_FL_INSERT_RANGE, 0x20),
	F(FALLOC_FL_UNSHARE_RANGE, 0x40),
};

static const struct flag fadvice[] = {
	F(POSIX_FADV_NORMAL, 0), F(POSIX_FADV_RANDOM, 1),
	F(POSIX_FADV_SEQUENTIAL, 2), F(POSIX_FADV_WILLNEED, 3),
	F(POSIX_FADV_DONTNEED, 4), F(POSIX_FADV_NOREUSE, 5),
};

static const struct flag wait_options[] = {
	F(WNOHANG, 1), F(WUNTRACED, 2), F(WEXITED, 4), F(WCONTINUED, 8),
	F(WNOWAIT, 0x1000000), F(__WNOTHREAD, 0x20000000),
	F(__WALL, 0x40000000), F(__WCLONE, 0x80000000),
};

static const struct flag statx_mask[] = {
	F(STATX_ALL, 0xfff), F(STATX_BASIC_STATS, 0x7ff),
	F(STATX_TYPE, 1), F(STATX_MODE, 2), F(STATX_NLINK, 4),
	F(STATX_UID, 8), F(STATX_GID, 0x10), F(STATX_ATIME, 0x20),
	F(STATX_MTIME, 0x40), F(STATX_CTIME, 0x80), F(STATX_INO, 0x100),
	F(STATX_SIZE, 0x200), F(STATX_BLOCKS, 0x400), F(STATX_BTIME, 0x800),
	F(STATX_MNT_ID, 0x1000), F(STATX_DIOALIGN, 0x2000),
	F(STATX_MNT_ID_UNIQUE, 0x4000), F(STATX_SUBVOL, 0x8000),
	F(STATX_WRITE_ATOMIC, 0x10000),
};

static const struct flag close_range_flags[] = {
	F(CLOSE_RANGE_UNSHARE, 2), F(CLOSE_RANGE_CLOEXEC, 4),
};

/* clock_nanosleep(2): clocks and flags (kernel ABI) */
static const struct flag clocks[] = {
	F(CLOCK_REALTIME, 0), F(CLOCK_MONOTONIC, 1), F(CLOCK_PROCESS_CPUTIME_ID, 2),
	F(CLOCK_THREAD_CPUTIME_ID, 3), F(CLOCK_MONOTONIC_RAW, 4),
	F(CLOCK_REALTIME_COARSE, 5), F(CLOCK_MONOTONIC_COARSE, 6), F(CLOCK_BOOTTIME, 7),
	F(CLOCK_REALTIME_ALARM, 8), F(CLOCK_BOOTTIME_ALARM, 9), F(CLOCK_TAI, 11),
};

static const struct flag timer_flags[] = {
	F(TIMER_ABSTIME, 1),
};

/* A timeout kept in ns (-1: NULL) as strace prints the struct: @usec
 * for a struct timeval. */
static void sb_timeout(struct iot_sbuf *b, int64_t ns, int usec)
{
	if (ns < 0)
		iot_sb_puts(b, "NULL");
	else if (usec)
		iot_sb_printf(b, "{tv_sec=%lld, tv_usec=%lld}", (long long)(ns / 1000000000),
			      (long long)(ns % 1000000000 / 1000));
	else
		iot_sb_printf(b, "{tv_sec=%lld, tv_nsec=%lld}", (long long)(ns / 1000000000),
			      (long long)(ns % 1000000000));
}

static const struct flag sync_flags[] = {
	F(SYNC_FILE_RANGE_WAIT_BEFORE, 1), F(SYNC_FILE_RANGE_WRITE, 2),
	F(SYNC_FILE_RANGE_WAIT_AFTER, 4),
};

static void sb_quote_or(struct iot_sbuf *b, const char *s, uint32_t n,
			const struct iot_event *ev)
{
	if (!ev)
		iot_sb_puts(b, "...");	/* no event: the string is elsewhere */
	else if (!s)
		iot_sb_puts(b, "NULL");
	else
		iot_sb_quote(b, s, n);
}

/* A uid_t/gid_t: -1 ("do not change") prints as -1, as strace does. */
static void sb_id(struct iot_sbuf *b, int64_t v)
{
	uint32_t id = (uint32_t)v;

	if (id == UINT32_MAX)
		iot_sb_puts(b, "-1");
	else
		iot_sb_printf(b, "%u", id);
}

/*
 * Registers hold 64 bits; int arguments are read as their low 32 bits, as
 * the kernel does, so a zero-extended -100 is still AT_FDCWD.
 */
void iot_sb_arg(struct iot_sbuf *b, int kind, int64_t v,
		const struct iot_event *ev)
{
	uint64_t u = (uint64_t)v;

	switch (kind) {
	case IOT_ARG_INT:
	case IOT_ARG_FD:
	case IOT_ARG_PID:
		iot_sb_printf(b, "%d", (int32_t)u);
		break;
	case IOT_ARG_UINT:
		iot_sb_printf(b, "%u", (uint32_t)u);
		break;
	case IOT_ARG_DIRFD:
		if ((int32_t)u == -100)
			iot_sb_puts(b, "AT_FDCWD");
		else
			iot_sb_printf(b, "%d", (int32_t)u);
		break;
	case IOT_ARG_PATH:
	case IOT_ARG_PATH2:
		sb_quote_or(b, ev ? (kind == IOT_ARG_PATH ? ev->path : ev->path2) : NULL,
			    ev ? (kind == IOT_ARG_PATH ? ev->path_len : ev->path2_len) : 0, ev);
		/* named through /proc/self/fd/N: the descriptor, kept as
		 * N + 1 (the path is N's, record/decode.c) */
		if (v > 0 && v <= INT32_MAX)
			iot_sb_printf(b, " </proc/self/fd/%lld>", (long long)(v - 1));
		break;
	case IOT_ARG_STR2:
		sb_quote_or(b, ev ? ev->path2 : NULL, ev ? ev->path2_len : 0, ev);
		break;
	case IOT_ARG_SOCKADDR:
		/* as strace: the family, and a Unix socket's path */
		if ((uint16_t)u == 1) {
			iot_sb_puts(b, "{sa_family=AF_UNIX, sun_path=");
			sb_quote_or(b, ev ? ev->path : NULL, ev ? ev->path_len : 0, ev);
			iot_sb_putc(b, '}');
		} else {
			iot_sb_printf(b, "{sa_family=%u}", (unsigned)(uint16_t)u);
		}
		break;
	case IOT_ARG_FLOCK_OP:
		sb_flags(b, flock_ops, N(flock_ops), (uint32_t)u, "0", 0);
		break;
	case IOT_ARG_MSGFDS: {
		/* the descriptors of its SCM_RIGHTS message, as strace
		 * prints a cmsg's: {SCM_RIGHTS [5, 6]} (without the event,
		 * their count) */
		int32_t fds[IOT_MSG_FDS_MAX];
		int n = ev ? iot_msg_fds(ev, fds) : (int)(v > 0 && v < INT32_MAX ? v : 0);
		int kept = ev ? (n < IOT_MSG_FDS_MAX ? n : IOT_MSG_FDS_MAX) : 0, i;

		if (n <= 0) {
			iot_sb_puts(b, "{...}");
			break;
		}
		iot_sb_puts(b, "{SCM_RIGHTS [");
		for (i = 0; i < kept; i++)
			iot_sb_printf(b, "%s%d", i ? ", " : "", fds[i]);
		if (n > kept)
			iot_sb_printf(b, "%s%d %s", kept ? ", " : "", n - kept,
				      kept ? "more" : "descriptors");
		iot_sb_puts(b, "]}");
		break;
	}
	case IOT_ARG_PTR:
		/* Pointers are not kept (the value is 0): "..." says so
		 * rather than a NULL that was never seen. */
		if (u)
			iot_sb_printf(b, "%#llx", (unsigned long long)u);
		else
			iot_sb_puts(b, "...");
		break;
	case IOT_ARG_SIZE:
		iot_sb_printf(b, "%llu", (unsigned long long)u);
		break;
	case IOT_ARG_OFF:
		iot_sb_printf(b, "%lld", (long long)v);
		break;
	case IOT_ARG_OPEN_FLAGS:
		iot_sb_open_flags(b, u, 1);
		break;
	case IOT_ARG_MODE:
		iot_sb_mode(b, u);
		break;
	case IOT_ARG_AT_FLAGS:
		sb_at_flags(b, (uint32_t)u, ev ? ev->nr : -1);
		break;
	case IOT_ARG_IOVLEN:
		iot_sb_printf(b, "[iov %llu]", (unsigned long long)u);
		break;
	case IOT_ARG_FDPAIR:
		iot_sb_printf(b, "[%d, %d]", (int32_t)(u & 0xffffffff),
			      (int32_t)(u >> 32));
		break;
	case IOT_ARG_OFFPTR:
		if (v == -1)
			iot_sb_puts(b, "NULL");
		else
			iot_sb_printf(b, "[%lld]", (long long)v);
		break;
	case IOT_ARG_OPENHOW:
		iot_sb_puts(b, "{flags=");
		iot_sb_open_flags(b, u, 1);
		iot_sb_putc(b, '}');
		break;
	case IOT_ARG_WHENCE:
		sb_enum(b, whence, N(whence), (uint32_t)u, "d");
		break;
	case IOT_ARG_IOCTL_REQ:
		sb_enum(b, ioctls, N(ioctls), (uint32_t)u, "x");
		break;
	case IOT_ARG_FCNTL_CMD:
		sb_enum(b, fcntl_cmds, N(fcntl_cmds), (uint32_t)u, "d");
		break;
	case IOT_ARG_CLONE_FLAGS:
		sb_flags(b, clone_flags, N(clone_flags), u & ~(uint64_t)0xff,
			 (u & 0xff) ? "" : "0", 0);
		if (u & 0xff) {
			if (u & ~(uint64_t)0xff)
				iot_sb_putc(b, '|');
			iot_sb_signal(b, (int)(u & 0xff));
		}
		break;
	case IOT_ARG_SIGNAL:
		iot_sb_signal(b, (int32_t)u);
		break;
	case IOT_ARG_RENAME_FLAGS:
		sb_flags(b, rename_flags, N(rename_flags), (uint32_t)u, "0", 0);
		break;
	case IOT_ARG_ACCESS_MODE:
		sb_flags(b, access_modes, N(access_modes), (uint32_t)u, "F_OK", 0);
		break;
	case IOT_ARG_MMAP_PROT:
		sb_flags(b, mmap_prot, N(mmap_prot), (uint32_t)u, "PROT_NONE", 0);
		break;
	case IOT_ARG_MMAP_FLAGS:
		if (u & 0xf)
			sb_enum(b, mmap_type, N(mmap_type), u & 0xf, "x");
		sb_flags(b, mmap_flags, N(mmap_flags), u & ~(uint64_t)0xf,
			 (u & 0xf) ? "" : "0", (u & 0xf) != 0);
		break;
	case IOT_ARG_XATTR_FLAGS:
		sb_flags(b, xattr_flags, N(xattr_flags), (uint32_t)u, "0", 0);
		break;
	case IOT_ARG_FALLOC_MODE:
		sb_flags(b, falloc_modes, N(falloc_modes), (uint32_t)u, "0", 0);
		break;
	case IOT_ARG_FADVICE:
		sb_enum(b, fadvice, N(fadvice), (uint32_t)u, "d");
		break;
	case IOT_ARG_WAIT_OPTIONS:
		sb_flags(b, wait_options, N(wait_options), (uint32_t)u, "0", 0);
		break;
	case IOT_ARG_STATX_MASK:
		sb_flags(b, statx_mask, N(statx_mask), (uint32_t)u, "0", 0);
		break;
	case IOT_ARG_CLOSE_RANGE_FLAGS:
		sb_flags(b, close_range_flags, N(close_range_flags),
			 (uint32_t)u, "0", 0);
		break;
	case IOT_ARG_SYNC_FLAGS:
		sb_flags(b, sync_flags, N(sync_flags), (uint32_t)u, "0", 0);
		break;
	case IOT_ARG_URING_ENTER:
		sb_flags(b, uring_enter, N(uring_enter), (uint32_t)u, "0", 0);
		break;
	case IOT_ARG_URING_REG:
		sb_enum(b, uring_reg, N(uring_reg), (uint32_t)u, "d");
		break;
	case IOT_ARG_AIO_CTXP:
		iot_sb_printf(b, "[%#llx]", (unsigned long long)u);
		break;
	case IOT_ARG_DEV:
		iot_sb_printf(b, "makedev(%#x, %#x)", major(u), minor(u));
		break;
	case IOT_ARG_UID:
	case IOT_ARG_GID:
		sb_id(b, v);
		break;
	case IOT_ARG_TIMESPEC:
	case IOT_ARG_TIMEVAL:
		sb_timeout(b, v, kind == IOT_ARG_TIMEVAL);
		break;
	case IOT_ARG_MSEC:
		iot_sb_printf(b, "%d", (int32_t)u);
		break;
	case IOT_ARG_CLOCKID:
		sb_enum(b, clocks, N(clocks), (uint32_t)u, "d");
		break;
	case IOT_ARG_TIMER_FLAGS:
		sb_flags(b, timer_flags, N(timer_flags), (uint32_t)u, "0", 0);
		break;
	case IOT_ARG_HEX:
	default:
		iot_sb_printf(b, "%#llx", (unsigned long long)u);
		break;
	}
}

int iot_format_arg(char *buf, size_t len, int kind, int64_t v)
{
	struct iot_sbuf b;

	iot_sb_init(&b, buf, len);
	iot_sb_arg(&b, kind, v, NULL);
	return iot_sb_end(&b);
}
