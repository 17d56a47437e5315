/*
 * iotape.h - read and write iotape traces and profiles.
 *
 * This is the only header other modules (record/, replay/, analyze/, cli/)
 * and outside programs include from format/.  The library never prints and
 * never exits: every function returns 0 (or a count) on success and a
 * negative code on failure, -errno for system errors or IOT_E_* for format
 * errors; iot_strerror() names either.
 *
 * Strings in the structs below are byte strings with an explicit length
 * (Linux paths are not UTF-8); they are also NUL-terminated for convenience.
 */
#ifndef IOTAPE_H
#define IOTAPE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What libiotape exports: the functions declared here and nothing else
 * (the library is compiled with -fvisibility=hidden).  The fast path's
 * preload library, which links a part of format/, defines it empty. */
#ifndef IOT_API
#define IOT_API __attribute__((visibility("default")))
#endif

#define IOT_FORMAT_MAJOR 1
#define IOT_FORMAT_MINOR 3	/* 1.1: the index has a checksum; 1.2: AsyncOp; 1.3: split times, front-coded names */
#define IOT_MAGIC "iotape"
#define IOT_VERSION "0.1.0"

/* ---- error codes (negative, beyond the errno range) ---- */
enum iot_error {
	IOT_E_BASE = 10000,
	IOT_E_NOT_IOTAPE = -10001,	/* not an iotape file (bad magic)    */
	IOT_E_VERSION = -10002,		/* newer major format version        */
	IOT_E_TRUNCATED = -10003,	/* file ends inside a frame          */
	IOT_E_CORRUPT = -10004,		/* checksum or decoding failure      */
	IOT_E_EMPTY = -10005,		/* zero-length file                  */
	IOT_E_NO_INDEX = -10006,	/* no index (writer did not close)   */
	IOT_E_RANGE = -10007,		/* seek target beyond the file       */
	IOT_E_ARG = -10008,		/* invalid argument to a library call */
};

/*! iot_strerror() :
 *  @return : a static description of @err (IOT_E_* or -errno). */
IOT_API const char *iot_strerror(int err);

/* ---- syscall table (x86_64) ---- */

/* Syscall classes: what `iotape report` counts a call as (the class
 * column of format/syscalls.def). */
enum iot_class {
	IOT_CLASS_METADATA = 0,	/* open/close, stat/chmod/chown/utimes/access/readlink */
	IOT_CLASS_READ,		/* moves file data in: read, pread64, readv, ... */
	IOT_CLASS_WRITE,	/* moves data out (copies too), ftruncate, fallocate */
	IOT_CLASS_DIRECTORY,	/* getdents, mkdir, rmdir, unlink, rename, link, ... */
	IOT_CLASS_SYNC,
	IOT_CLASS_XATTR,
	IOT_CLASS_PROCESS,	/* clone/fork/exec/wait/exit */
	IOT_CLASS_OTHER,	/* lseek, dup, fcntl, pipe, ioctl, mmap */
	IOT_CLASS_ASYNC,	/* io_setup/io_submit/..., io_uring_*: the calls */
	/* Not syscall rows: what `iotape report` counts the AsyncOp and
	 * MapPages records of a file as (with their bytes) */
	IOT_CLASS_ASYNC_READ,	/* async requests that read (iocbs, SQEs) */
	IOT_CLASS_ASYNC_WRITE,	/* ... that write (and fallocate) */
	IOT_CLASS_MAPPED_READ,	/* pages read through file mappings */
	IOT_CLASS_MAPPED_WRITE,	/* pages written through them */
	/* A syscall row again, numbered after the others so that the classes
	 * traces store keep their numbers (an older reader takes it as OTHER) */
	IOT_CLASS_WAIT,		/* nanosleep, poll, select, epoll_wait: time, not bytes */
	IOT_CLASS_COUNT
};

/* Syscall flags (IOT_SCF_*): what a call does, for record, replay and
 * analyze alike (format/syscalls.def says which rows have which). */
#define IOT_SCF_READ	0x001	/* moves file data into the process */
#define IOT_SCF_WRITE	0x002	/* changes a file's data or size */
#define IOT_SCF_RETFD	0x004	/* success returns a new descriptor */
#define IOT_SCF_NOEXIT	0x008	/* may not return (exit, exec) */
#define IOT_SCF_COUNT	0x010	/* returns the bytes moved; replay must match it */
#define IOT_SCF_PIPE	0x020	/* can put data into a pipe (or fail with EPIPE) */
#define IOT_SCF_CLOSE	0x040	/* closes the descriptor it is given */
#define IOT_SCF_NAMES	0x080	/* makes, removes or renames a name (open: O_CREAT) */
#define IOT_SCF_PROBE	0x100	/* may ask what the filesystem can do */
#define IOT_SCF_LOOK	0x200	/* changes no name, data or metadata */

/*
 * Argument kinds.  An event stores, for each argument of its syscall, one
 * signed 64-bit value whose meaning the kind gives:
 *   PATH   the string goes to the event's path, the value is 0.  Paths are
 *          made absolute by the recorder (through cwd and dirfds).
 *   PATH2  the string goes to path2 (rename/link target), the value is 0.
 *   STR2   an unresolved string (symlink target, xattr name) into path2.
 *   PTR    a pointer that is not kept: the value is 0.
 *   IOVLEN an iovec array: the value is the sum of its lengths.
 *   FDPAIR an int[2] filled on success (pipe, socketpair): fd0 | fd1 << 32.
 *   OFFPTR a loff_t * (copy_file_range, sendfile, splice): the offset it
 *          held at entry, or -1 for NULL.
 *   OPENHOW struct open_how *: its flags (mode goes to the next argument,
 *          whose kind is MODE; resolve is dropped).
 *   TIMESPEC, TIMEVAL  a timeout's pointer: the time it held at entry in
 *          ns (select's is changed by the call), or -1 for NULL.
 *   SOCKADDR a socket address (its length is the next argument): the value
 *          is its sa_family; an AF_UNIX address with a path (not an
 *          abstract name) has the path in the event's path, resolved as a
 *          PATH.  The recorder keeps only calls whose address has a path.
 *   MSGFDS a struct msghdr * (sendmsg, recvmsg): the number of descriptors
 *          its SCM_RIGHTS message carried (read at the exit), 0 for none;
 *          the descriptors follow the row's arguments (iot_msg_fds()).
 *   everything else: the raw register value, printed per its kind.
 */
enum iot_arg_kind {
	IOT_ARG_NONE = 0,
	IOT_ARG_INT,
	IOT_ARG_UINT,
	IOT_ARG_HEX,
	IOT_ARG_FD,
	IOT_ARG_DIRFD,		/* AT_FDCWD prints as such */
	IOT_ARG_PATH,
	IOT_ARG_PATH2,
	IOT_ARG_STR2,
	IOT_ARG_PTR,
	IOT_ARG_SIZE,
	IOT_ARG_OFF,
	IOT_ARG_OPEN_FLAGS,
	IOT_ARG_MODE,
	IOT_ARG_AT_FLAGS,
	IOT_ARG_IOVLEN,
	IOT_ARG_FDPAIR,
	IOT_ARG_OFFPTR,
	IOT_ARG_OPENHOW,
	IOT_ARG_WHENCE,
	IOT_ARG_IOCTL_REQ,
	IOT_ARG_FCNTL_CMD,
	IOT_ARG_CLONE_FLAGS,
	IOT_ARG_SIGNAL,
	IOT_ARG_RENAME_FLAGS,
	IOT_ARG_ACCESS_MODE,
	IOT_ARG_MMAP_PROT,
	IOT_ARG_MMAP_FLAGS,
	IOT_ARG_PID,
	IOT_ARG_XATTR_FLAGS,
	IOT_ARG_FALLOC_MODE,
	IOT_ARG_FADVICE,
	IOT_ARG_WAIT_OPTIONS,
	IOT_ARG_STATX_MASK,
	IOT_ARG_CLOSE_RANGE_FLAGS,
	IOT_ARG_DEV,
	IOT_ARG_UID,
	IOT_ARG_GID,
	IOT_ARG_SYNC_FLAGS,
	IOT_ARG_AIO_CTX,	/* aio_context_t (hex) */
	IOT_ARG_AIO_CTXP,	/* aio_context_t *: the context io_setup made */
	IOT_ARG_URING_ENTER,	/* IORING_ENTER_* flags */
	IOT_ARG_URING_REG,	/* IORING_REGISTER_* opcode */
	IOT_ARG_TIMESPEC,	/* struct timespec *, read at entry: ns, -1 for NULL */
	IOT_ARG_TIMEVAL,	/* struct timeval *, read at entry: ns, -1 for NULL */
	IOT_ARG_MSEC,		/* an int timeout in ms (poll, epoll_wait): < 0 none */
	IOT_ARG_CLOCKID,	/* clockid_t */
	IOT_ARG_TIMER_FLAGS,	/* TIMER_ABSTIME */
	IOT_ARG_SOCKADDR,	/* struct sockaddr * (bind, connect): the family */
	IOT_ARG_FLOCK_OP,	/* flock()'s LOCK_SH, LOCK_EX, LOCK_UN | LOCK_NB */
	IOT_ARG_MSGFDS,		/* struct msghdr *: descriptors passed (SCM_RIGHTS) */
	IOT_ARG_KIND_COUNT
};

#define IOT_MAX_ARGS 6

struct iot_syscall {
	int nr;
	const char *name;
	uint8_t cls;			/* enum iot_class */
	uint16_t flags;			/* IOT_SCF_* */
	uint8_t nargs;
	uint8_t arg[IOT_MAX_ARGS];	/* enum iot_arg_kind */
};

/*! iot_syscall_by_nr() :
 *  @return : the table row of x86_64 syscall @nr, or NULL if iotape does
 *            not record it. */
IOT_API const struct iot_syscall *iot_syscall_by_nr(int nr);

/*! iot_syscall_by_name() : @return : the row named @name, or NULL. */
IOT_API const struct iot_syscall *iot_syscall_by_name(const char *name);

/*! iot_syscall_table() :
 *  @return : the whole table (sorted by number); *@n gets its length. */
IOT_API const struct iot_syscall *iot_syscall_table(size_t *n);

/*! iot_syscall_arg() : @return : the index of the first argument of kind
 *  @kind in @sc's row, or -1 if it has none. */
IOT_API int iot_syscall_arg(const struct iot_syscall *sc, int kind);

/*! iot_syscall_path_arg() : @return : the index of the argument whose
 *  string is the event's path: @sc's PATH, else its SOCKADDR (a Unix
 *  socket's name), or -1 if it has neither. */
IOT_API int iot_syscall_path_arg(const struct iot_syscall *sc);

/*! iot_path_fd() : the descriptor a path names as a link to it:
 *  /proc/self/fd/N, /proc/thread-self/fd/N, /proc/PID/fd/N, /dev/fd/N,
 *  /dev/stdin, /dev/stdout, /dev/stderr (N below @fd_max, digits only).
 *  @return : N, *@pid set to PID (0 for the others); or -1. */
IOT_API int64_t iot_path_fd(const char *path, int64_t fd_max, int32_t *pid);

/*! iot_syscall_wbuf() : where a call of the write family (a WRITE row
 *  that is not also READ) takes the bytes it writes from: an argument of
 *  kind PTR (its length is the next argument) or IOVLEN (an iovec array,
 *  its count the next argument).
 *  @return : that argument's index, or -1 for any other call. */
IOT_API int iot_syscall_wbuf(const struct iot_syscall *sc);

/*! iot_fcntl_lock() : whether fcntl command @cmd takes a struct flock
 *  (F_GETLK, F_SETLK, F_SETLKW and their F_OFD_ forms).  Such an event
 *  has IOT_FLOCK_NARGS arguments: its third (the pointer) is 0, and the
 *  struct as the call was given it is in the last three,
 *  args[IOT_FLOCK_TYPE] = l_type | l_whence << 16 (-1: it could not be
 *  read), args[IOT_FLOCK_START] = l_start, args[IOT_FLOCK_LEN] = l_len.
 *  Traces written before 2026-12-05 have 3 arguments there. */
IOT_API int iot_fcntl_lock(int64_t cmd);

/*! iot_flock_pack() : the three arguments of a struct flock @fl (as the
 *  kernel reads it: short l_type, short l_whence, off_t l_start, off_t
 *  l_len) into @out; NULL @fl: could not be read (out[0] = -1). */
IOT_API void iot_flock_pack(const void *fl, int64_t out[3]);

#define IOT_FLOCK_NARGS 6

/* openat2's open_how.resolve, where not 0, follows its four arguments
 * (the third open_how.flags, the fourth open_how.mode): such an event has
 * IOT_OPENAT2_NARGS arguments, args[IOT_OPENAT2_RESOLVE] the bits.
 * Traces written before 2026-12-07 have 4 arguments there, whatever the
 * call was given. */
#define IOT_OPENAT2_RESOLVE 4
#define IOT_OPENAT2_NARGS 5

/*! iot_ioctl_flags() : whether ioctl request @req sets a file's
 *  attribute flags: FS_IOC_SETFLAGS (chattr: append-only, immutable...)
 *  or FS_IOC_FSSETXATTR (xfs_io's chattr).  Such an event has
 *  IOT_IOCTL_NARGS arguments: the first 32 bits its pointer pointed at
 *  (the int of flags; struct fsxattr's fsx_xflags), read at entry, are
 *  args[IOT_IOCTL_FLAGS] (0 to 0xffffffff; -1: not readable).  Traces
 *  written before 2026-12-07 have 3 arguments there. */
IOT_API int iot_ioctl_flags(uint32_t req);

#define IOT_FS_IOC_SETFLAGS 0x40086602u
#define IOT_FS_IOC_FSSETXATTR 0x401c5820u
#define IOT_IOCTL_FLAGS 3
#define IOT_IOCTL_NARGS 4

/*! iot_fcntl_hint() : whether fcntl command @cmd sets a write hint
 *  (F_SET_RW_HINT, F_SET_FILE_RW_HINT), whose uint64_t is behind its
 *  pointer.  Such an event has IOT_HINT_NARGS arguments: those 64 bits,
 *  read at entry, are args[IOT_HINT_VALUE] (-1: not readable, or all
 *  ones; the kernel refuses either, EFAULT or EINVAL).  Traces written
 *  before 2026-12-08 have 3 arguments there. */
IOT_API int iot_fcntl_hint(int64_t cmd);

#define IOT_F_SET_RW_HINT 1036
#define IOT_F_SET_FILE_RW_HINT 1038
#define IOT_HINT_VALUE 3
#define IOT_HINT_NARGS 4

/* FICLONERANGE's struct file_clone_range, read at entry, in the event's
 * arguments: its dest_offset in the third, in place of the pointer, then
 * src_fd (-1: not readable), src_offset and src_length: an event of
 * IOT_CLONE_NARGS arguments.  Traces written before 2026-12-08 have 3
 * arguments there, the pointer the third. */
#define IOT_FICLONERANGE 0x4020940du
#define IOT_CLONE_DEST 2
#define IOT_CLONE_SRC_FD 3
#define IOT_CLONE_SRC_OFF 4
#define IOT_CLONE_LEN 5
#define IOT_CLONE_NARGS 6

/*! iot_subvol_call() : whether ioctl request @req is one of btrfs's
 *  subvolume calls: BTRFS_IOC_SUBVOL_CREATE(_V2) (IOT_SUBVOL_MAKE),
 *  BTRFS_IOC_SNAP_CREATE(_V2) (IOT_SUBVOL_SNAP), BTRFS_IOC_SNAP_DESTROY
 *  (_V2) (IOT_SUBVOL_DESTROY).  Such an event has IOT_SUBVOL_NARGS
 *  arguments, its struct btrfs_ioctl_vol_args(_v2) read at entry: in
 *  place of the pointer the struct's flags (IOT_SUBVOL_FLAGS: a _V2's,
 *  0 for the others; -1: not readable), then the snapshot's source
 *  descriptor, the struct's fd (IOT_SUBVOL_SRC_FD; -1 for the others);
 *  its path is the descriptor's directory joined with the struct's name
 *  (what it makes or removes, as mkdir's or rmdir's path), a snapshot's
 *  second path the source's.  Traces written before 2026-12-08 have 3
 *  arguments there, the pointer the third.  *@name_off (may be NULL):
 *  where the name is in the struct; *@name_max: its room.
 *  @return : the kind, or 0 (IOT_SUBVOL_NONE). */
IOT_API int iot_subvol_call(uint32_t req, uint32_t *name_off, uint32_t *name_max);
/*! iot_subvol_req() : the @i-th of those requests, from 0; 0 past the
 *  last (a seccomp filter that stops them, record/bpf_guard.c). */
IOT_API uint32_t iot_subvol_req(size_t i);

enum { IOT_SUBVOL_NONE, IOT_SUBVOL_MAKE, IOT_SUBVOL_SNAP, IOT_SUBVOL_DESTROY };

#define IOT_SUBVOL_FLAGS 2
#define IOT_SUBVOL_SRC_FD 3
#define IOT_SUBVOL_NARGS 4
#define IOT_SUBVOL_V2_FLAGS_OFF 16	/* the _v2 struct's flags */
#define IOT_SUBVOL_RDONLY 2u		/* BTRFS_SUBVOL_RDONLY */
#define IOT_SUBVOL_BY_ID 16u		/* BTRFS_SUBVOL_SPEC_BY_ID: no name */

struct iot_event;

/*! iot_sock_ino() : a connect's or accept's socket identity, which
 *  follows the row's arguments: the inode of the socket that connected
 *  (a connect's own; an accept's peer, the client end of the connection
 *  it took), so that a replay pairs each accept with its connect; 0 if
 *  unknown or another call.  iot_sock_ino_set() : set it (@ino 0: none). */
IOT_API uint64_t iot_sock_ino(const struct iot_event *ev);
IOT_API void iot_sock_ino_set(struct iot_event *ev, uint64_t ino);
/*! iot_sock_ino_arg() : the argument that holds it, past the call's own:
 *  connect, accept 3, accept4 4; 0 for another call. */
IOT_API uint32_t iot_sock_ino_arg(int32_t nr);

/*! iot_msg_fds() : the descriptors a sendmsg or recvmsg event's
 *  SCM_RIGHTS message carried (sendmsg: the sender's numbers; recvmsg:
 *  the numbers the receiver was given), up to IOT_MSG_FDS_MAX of them
 *  into @out.  They follow the row's three arguments, three to a value
 *  of 21 bits each: descriptor i is bits (i % 3) * 21 to (i % 3) * 21 + 20
 *  of args[3 + i / 3], all 21 set for one not known (-1, or past
 *  IOT_MSG_FD_NONE), and the event has 3 + (kept + 2) / 3 arguments.
 *  @return : how many the message carried (args[1]: more than were kept
 *  when above IOT_MSG_FDS_MAX), 0 for none. */
IOT_API int iot_msg_fds(const struct iot_event *ev, int32_t out[]);

/*! iot_msg_fds_set() : @n descriptors @fds into @ev (a sendmsg or
 *  recvmsg event), as iot_msg_fds() reads them; @n may be more than
 *  IOT_MSG_FDS_MAX (only as many are kept). */
IOT_API void iot_msg_fds_set(struct iot_event *ev, const int32_t *fds, int n);

/*! iot_msg_fds_read() : the descriptors the SCM_RIGHTS messages of the
 *  struct msghdr at @msg carry, as a recorder reads them from a program's
 *  memory through @peek (@n bytes at @addr into @buf: 0, or < 0 where
 *  they cannot be read; @ctx is its own), up to @max of them into @fds
 *  (-1 for one not readable).  Eight control messages at most.
 *  @return : how many they carry, 0 for none or an unreadable header. */
IOT_API int iot_msg_fds_read(int (*peek)(void *ctx, uint64_t addr, void *buf, size_t n),
			     void *ctx, uint64_t msg, int32_t *fds, int max);

#define IOT_MSG_FDS_MAX 9
#define IOT_MSG_FD_NONE 0x1fffff
#define IOT_FLOCK_TYPE 3
#define IOT_FLOCK_START 4
#define IOT_FLOCK_LEN 5

/*! iot_timeout_ns() : the timeout a TIMESPEC (or, @usec, TIMEVAL)
 *  argument points to, @p read from the caller's memory.
 *  @return : in ns (0 for a negative one, capped at ~292 years), or -1 for
 *  a NULL @p (no timeout). */
IOT_API int64_t iot_timeout_ns(const void *p, int usec);

/*! iot_class_name() : @return : "metadata", "read", "write", ...  (what
 *  `iotape report` prints), or "?" if @cls is none. */
IOT_API const char *iot_class_name(int cls);

/*! iot_errno_name() : @return : "ENOENT" etc. for a positive errno, or
 *  NULL if unknown. */
IOT_API const char *iot_errno_name(int err);

/* ---- the event model ---- */

/* Event flags (IOT_EV_*). */
#define IOT_EV_UNFINISHED 0x01	/* entered, never returned (killed, exec) */
#define IOT_EV_FASTPATH	  0x02	/* logged in-process, not at a ptrace stop */
#define IOT_EV_NOEXIT_TS  0x04	/* exit time is unknown; duration is 0 */
#define IOT_EV_REPLAY_SKIPPED 0x08 /* profiles: not replayed */
#define IOT_EV_REPLAY_MISMATCH 0x10 /* profiles: result differed from trace */
#define IOT_EV_BPF	  0x20	/* logged by BPF programs, not at a ptrace stop */
#define IOT_EV_NOSTR	  0x40	/* a string argument could not be read: left out */
#define IOT_EV_ZERO	  0x80	/* a write-family call whose bytes were all zeros */
#define IOT_EV_NODATA	  0x100	/* recorded with --data, but its bytes were not kept */
/* the most bytes of written data one event may keep (`record --data`) */
#define IOT_DATA_MAX	  (64u << 20)

struct iot_event {
	int64_t t_enter;		/* CLOCK_MONOTONIC ns at syscall entry */
	int64_t t_exit;			/* ... at syscall exit */
	int32_t pid;			/* thread group id */
	int32_t tid;
	int32_t nr;			/* x86_64 syscall number */
	uint32_t flags;			/* IOT_EV_* */
	int64_t ret;			/* return value; -errno on failure */
	uint32_t nargs;
	int64_t args[IOT_MAX_ARGS];	/* per the syscall's argument kinds */
	const char *path;		/* NULL if none */
	uint32_t path_len;
	const char *path2;		/* NULL if none */
	uint32_t path2_len;
	/* IOT_EV_FASTPATH: ns the in-process logging spent before the call
	 * (copying its arguments, taking its paths' states), inside the gap
	 * before t_enter; 0 if unknown */
	uint32_t pre_ns;
	/* ns the call was on a CPU, entry to exit (its duration less the
	 * time it slept or waited for one), at least 1; 0 if unknown (the
	 * bpf backend measures it, the others do not) */
	uint32_t cpu_ns;
	/* ns the task slept uninterruptibly (disk waits, page-ins of its
	 * program and libraries) in the gap before t_enter, since its
	 * previous recorded call: the workload's, not the recorder's (the
	 * guard's hold is pre_ns), nor a wait for a CPU or on another
	 * thread; 0 if unknown or none (the bpf backend measures it) */
	uint32_t slept_ns;
	/* ns from the last time the task was woken from a voluntary sleep
	 * (a futex, a condition variable: an interruptible sleep outside
	 * any recorded call) in the gap before t_enter to t_enter: what
	 * woke it came that long before its call, the rest was the wait
	 * for a CPU and its own code; at least 1; 0 if unknown or no such
	 * sleep (the bpf backend sees it) */
	uint32_t woke_ns;
	/* ns the task slept voluntarily (an interruptible sleep outside any
	 * recorded call: a futex, a condition variable) in the gap before
	 * t_enter: a wait for another thread or for time, not its think
	 * time; 0 if unknown or none (the bpf backend measures it) */
	uint32_t waited_ns;
	/* the thread (its tid) whose wake-up ended the call's last sleep
	 * inside the call, if the recorder followed it: the one that sent
	 * to the socket a poll waited on, sent the signal.  The call
	 * returned because of something that thread did before; 0 if
	 * unknown or none (the bpf backend sees it, and keeps it for calls
	 * that wait for other tasks: format/FORMAT.md) */
	uint32_t waker;
	/* the thread (its tid) whose wake-up ended the voluntary sleep in the
	 * gap before the call that woke_ns dates (a futex, a semaphore in
	 * shared memory: nothing the trace holds), if the recorder followed
	 * it and it woke it from a call that wakes others (a futex wake, a
	 * write, a send, a signal, an exit): the call came because of
	 * something that thread did; 0 if unknown or none (the bpf backend
	 * sees it) */
	uint32_t gap_waker;
	/* ns the task was runnable, waiting for a CPU, in the gap before
	 * t_enter (preempted, or woken and not yet running): neither its
	 * code nor a sleep of its own; 0 if unknown or none (the bpf
	 * backend measures it) */
	uint32_t ready_ns;
	/* `record --data`: the bytes a write-family call wrote (the first
	 * ret of those it was given), NULL and 0 if none were kept */
	const void *data;
	uint32_t data_len;
	/* a stopped call (ptrace): ns its thread ran on a CPU from the exit
	 * stop of its previous call to this call's exit stop (the gap, the
	 * call, and the kernel's work for the stops); 0 if unknown (the
	 * thread's first call, a gap with an in-process call or another
	 * stop, the other backends) */
	uint32_t run_ns;
};

/* Writes recorded with `record --data`: with their bytes kept, and not
 * (IOT_EV_NODATA: the bytes the call wrote, its result).  One count for
 * every command that reports them (report, check). */
struct iot_data_count {
	uint64_t calls, bytes, nodata_calls, nodata_bytes;
	/* async write requests (the length they asked for), and those of
	 * them with their bytes kept; pages written through file mappings,
	 * whose bytes are never kept */
	uint64_t areqs, abytes, akept, akept_bytes;
	uint64_t mp_written, mp_written_bytes;
};
void iot_data_count_add(struct iot_data_count *c, const struct iot_event *ev);
struct iot_aio;
struct iot_mpages;
void iot_data_count_aio(struct iot_data_count *c, const struct iot_aio *a);
void iot_data_count_mpages(struct iot_data_count *c, const struct iot_mpages *m);

/* An extended attribute of a path's starting state. */
struct iot_xattr {
	const char *name;
	uint32_t name_len;
	uint32_t value_len;
	const uint8_t *value;
};

/* What few path states have, apart: a pointer in every state, where the
 * fields themselves made each of the plan's states 24 bytes longer. */
struct iot_ps_extra {
	/* IOT_PS_SPARSE: the file's n_data data ranges, data[2i] the
	 * offset of range i, data[2i + 1] its length; elsewhere a hole */
	const uint64_t *data;
	uint32_t n_data;
	uint32_t n_xattrs;		/* its extended attributes */
	const struct iot_xattr *xattrs;
	/* chattr's flags of a regular file or directory, as FS_IOC_GETFLAGS
	 * gives them, of IOT_PS_ATTR_FLAGS only: append-only, immutable
	 * (what a replay's starting tree must have for the calls they
	 * refused to fail again), no-dump; 0: none */
	uint32_t attr_flags;
};

/* The attribute flags a path state keeps (FS_APPEND_FL, FS_IMMUTABLE_FL,
 * FS_NODUMP_FL of <linux/fs.h>). */
#define IOT_PS_ATTR_IMMUTABLE 0x10u
#define IOT_PS_ATTR_APPEND 0x20u
#define IOT_PS_ATTR_NODUMP 0x40u
#define IOT_PS_ATTR_FLAGS (IOT_PS_ATTR_IMMUTABLE | IOT_PS_ATTR_APPEND | IOT_PS_ATTR_NODUMP)

struct iot_path_state {
	const char *path;
	uint32_t path_len;
	uint32_t type;			/* S_IFMT bits; 0 = did not exist */
	uint64_t size;
	uint32_t mode;			/* 07777 bits */
	uint32_t uid, gid;
	uint32_t flags;			/* IOT_PS_* (here: no padding, 120 bytes) */
	int64_t atime_ns, mtime_ns, ctime_ns;
	const char *target;		/* symlink target, NULL otherwise */
	uint32_t target_len;
	uint32_t nlink;
	uint64_t dev, ino, rdev;
	int64_t t_ns;			/* when it was taken */
	/* a sparse file's data ranges, extended attributes, attribute
	 * flags; NULL: none */
	const struct iot_ps_extra *extra;
};

/* The path was never named by a call, only returned by a directory
 * listing (getdents) of the workload; taken when the recording ended,
 * t_ns the time of that listing. */
#define IOT_PS_LISTED 0x1u
/* The recorder may have taken a state of this path before: its set of
 * paths met, full, had forgotten it (record --path-set-mb).  A state
 * taken again comes after the first one; readers keep a path's first
 * state.  May be set on a path's only state (the set's filter of
 * forgotten paths has false positives); never missing on a repeat. */
#define IOT_PS_AGAIN 0x2u
/* A regular file with holes: its data ranges are given (extra: data, n_data;
 * none: the file has no data at all); without the flag, all of the
 * file's size is data. */
#define IOT_PS_SPARSE 0x4u

enum iot_proc_kind {
	IOT_PROC_START = 0,	/* the first process of the workload */
	IOT_PROC_FORK,		/* new process (fork, vfork, clone w/o CLONE_THREAD) */
	IOT_PROC_THREAD,	/* new thread (clone with CLONE_THREAD) */
	IOT_PROC_EXEC,		/* successful execve/execveat */
	IOT_PROC_EXIT,		/* a thread or process ended */
	IOT_PROC_PHASE,		/* a phase mark: argv[0] names the phase */
};

struct iot_process {
	uint32_t kind;			/* enum iot_proc_kind */
	int64_t t_ns;
	int32_t pid, tid;
	int32_t ppid, ptid;		/* parent (fork/thread) */
	uint64_t clone_flags;
	uint32_t argc;
	const char *const *argv;	/* argc byte strings, NUL-terminated */
	const uint32_t *argv_len;
	const char *cwd;		/* NULL if unknown */
	uint32_t cwd_len;
	const char *exe;
	uint32_t exe_len;
	int32_t exit_status;		/* wait(2) status (EXIT) */
	int64_t utime_ns, stime_ns;	/* CPU time at exit */
	int32_t old_tid;		/* EXEC from a non-leader thread */
	int64_t rec_ns;			/* EXIT: of that CPU time, the recorder's own
					 * work in the task outside its calls (the bpf
					 * backend's programs at its page faults); 0:
					 * none known */
};

/* ---- asynchronous I/O (format 1.2) ---- */

enum iot_aio_kind {
	IOT_AIO_SUBMIT = 1,	/* an iocb io_submit took, an SQE io_uring_enter consumed */
	IOT_AIO_COMPLETE,	/* an io_event io_getevents returned, a CQE seen in the ring */
	IOT_AIO_SETUP,		/* io_setup, io_uring_setup */
	IOT_AIO_REGISTER,	/* io_uring_register (files, buffers) */
	IOT_AIO_END,		/* a ring went: len = requests the kernel took
				 * (its SQ head, mod 2^32), res = how many of
				 * them are in the trace (SQPOLL takes them
				 * without a syscall) */
	IOT_AIO_CQ_READY,	/* an io_uring_enter that waits: len = the
				 * completions in its ring the program had not
				 * consumed when it began (written when > 0) */
};

enum iot_aio_api { IOT_AIO_LIBAIO = 1, IOT_AIO_URING = 2 };

/* One asynchronous request, its completion, a context or a registration.
 * @event is the index in the file of the syscall event it came with
 * (io_submit, io_getevents, io_uring_enter, ...), which the writer wrote
 * before it. */
struct iot_aio {
	uint32_t kind;			/* enum iot_aio_kind */
	uint32_t api;			/* enum iot_aio_api */
	uint64_t event;
	int64_t t_ns;
	int32_t pid, tid;
	uint64_t ctx;			/* aio_context_t, or the ring's descriptor */
	uint32_t opcode;		/* IOCB_CMD_*, IORING_OP_*, IORING_REGISTER_* */
	int32_t fd;			/* descriptor, or fixed-file index */
	uint64_t off;
	uint64_t len;			/* bytes; setup: entries */
	uint32_t flags;			/* aio_flags; IOSQE_*; setup: IORING_SETUP_* */
	uint32_t rw_flags;		/* RWF_*, or the op's own flags */
	uint64_t user_data;
	uint64_t id;			/* libaio: the iocb's address */
	int64_t res;			/* complete: result; setup: CQ entries */
	int32_t resfd;			/* eventfd, -1: none */
	uint32_t buf_index;
	uint32_t nvals;
	const int64_t *vals;		/* iovec lengths; registered fds/buffer sizes */
	const char *path;
	uint32_t path_len;
	const char *path2;
	uint32_t path2_len;
	/* `record --data`: the bytes a write request asked to write (all
	 * len of them, read at its submission), NULL and 0 if none kept */
	const void *data;
	uint32_t data_len;
};

/*! iot_aio_op_name() : @return : "pwrite", "write_fixed", ... for
 *  @opcode of @api, or NULL if unknown. */
IOT_API const char *iot_aio_op_name(uint32_t api, uint32_t opcode);

/*! iot_aio_key() : @return : a nonzero 64-bit key naming the request
 *  @a is or completes (api, pid, context, user_data, iocb): a completion
 *  has its request's key. */
IOT_API uint64_t iot_aio_key(const struct iot_aio *a);

/*! iot_aio_op_known() : @return : 1 if iotape decodes and replays
 *  @opcode of @api, 0 if it only records that it was seen. */
IOT_API int iot_aio_op_known(uint32_t api, uint32_t opcode);

/* What an async request does to file data (IOT_SCF_READ/WRITE), 0 if
 * it moves none. */
IOT_API unsigned iot_aio_op_dir(uint32_t api, uint32_t opcode);

/*! iot_format_aio() : @a as one line, strace-like:
 *  `submit pwrite(5</f>, 4096, 8192) data=0x1` or `complete data=0x1 = 4096`.
 *  @return : as snprintf. */
IOT_API int iot_format_aio(char *buf, size_t len, const struct iot_aio *a);

/* ---- pages of file mappings (format 1.2) ---- */

enum iot_mp_why { IOT_MP_MUNMAP = 1, IOT_MP_MSYNC, IOT_MP_EXIT, IOT_MP_MREMAP };
#define IOT_MP_NO_DIRTY 0x1	/* written pages could not be known */
#define IOT_MP_TOUCHED 0x2	/* written: every page touched, read or written (a tmpfs file's, ptrace) */

/* The pages of one file mapping a program read (present in its page
 * table) and wrote (dirty in the page cache), taken at munmap, msync or
 * exit.  Runs are pairs (first page of the file, page count). */
struct iot_mpages {
	uint64_t event;			/* the event it came with */
	int64_t t_ns;
	int32_t pid, tid;
	const char *path;
	uint32_t path_len;
	uint32_t page_size;
	uint32_t n_read, n_write;	/* runs (pairs) */
	const uint64_t *read_runs, *write_runs;
	uint32_t why;			/* enum iot_mp_why */
	uint32_t flags;			/* IOT_MP_* */
	uint64_t addr;			/* the mapping's start: its mmap's result */
};

/*! iot_format_mpages() : @m as one line: `mmap pages "/f": read 12 (3 runs), written 0`. */
IOT_API int iot_format_mpages(char *buf, size_t len, const struct iot_mpages *m);

/* ---- the header ---- */

struct iot_mount {
	const char *device, *mountpoint, *fstype, *options, *root;
	uint32_t dev_major, dev_minor;
};

struct iot_kv {
	const char *key, *value;
};

enum iot_file_kind { IOT_KIND_TRACE = 0, IOT_KIND_PROFILE = 1 };

struct iot_header {
	uint32_t format_major, format_minor;	/* filled by the writer */
	uint32_t kind;			/* enum iot_file_kind */
	const char *tool_version;
	const char *host, *kernel, *arch;
	uint32_t argc;
	const char *const *argv;
	const char *cwd;
	uint32_t clock_id;
	int64_t realtime_ns, monotonic_ns;	/* read together */
	int64_t start_ns;		/* monotonic start of the workload */
	size_t n_mounts;
	const struct iot_mount *mounts;
	int64_t stop_cost_ns;
	const char *recorder;
	/* profiles */
	const char *target_fstype, *target_device, *target_mountpoint;
	const char *target_mount_options, *target_mkfs, *target_label;
	const char *replay_options;
	size_t n_extra;
	const struct iot_kv *extra;
	/* reader only: the syscall table stored in the file */
	size_t n_syscalls;
	const struct iot_syscall *syscalls;
};

/*! iot_header_get() :
 *  @return : the value of extra key @key in @h, or NULL. */
IOT_API const char *iot_header_get(const struct iot_header *h, const char *key);

/* ---- writing ---- */

struct iot_writer;

struct iot_writer_opts {
	uint32_t flush_events;		/* flush a chunk every N events (0: 8192) */
	int32_t flush_ms;		/* ... or every T ms (0: 250; < 0: never) */
	int level;			/* zstd level (0: 5) */
	int background;			/* compress and write in a thread */
};

/*! iot_writer_open() :
 *  Create @path (truncating it) and write the header frame.  The syscall
 *  table is added by the writer.  @opts may be NULL.
 *  @return : 0 or a negative code; *@wp is set on success. */
IOT_API int iot_writer_open(struct iot_writer **wp, const char *path,
			    const struct iot_header *h, const struct iot_writer_opts *opts);

/*! iot_writer_fdopen() : as iot_writer_open() on an open descriptor, which
 *  the writer owns and closes. */
IOT_API int iot_writer_fdopen(struct iot_writer **wp, int fd,
			      const struct iot_header *h, const struct iot_writer_opts *opts);

/*! iot_writer_event() : append one event (strings are copied).
 *  May flush a chunk per the flush policy. @return : 0 or a negative code. */
IOT_API int iot_writer_event(struct iot_writer *w, const struct iot_event *ev);

/*! iot_writer_path_state() : append one PathState. */
IOT_API int iot_writer_path_state(struct iot_writer *w, const struct iot_path_state *ps);

/*! iot_writer_process() : append one Process record. */
IOT_API int iot_writer_process(struct iot_writer *w, const struct iot_process *p);

/*! iot_writer_aio() : append one AsyncOp record (strings, vals copied). */
IOT_API int iot_writer_aio(struct iot_writer *w, const struct iot_aio *a);

/*! iot_writer_mpages() : append one MapPages record (copied). */
IOT_API int iot_writer_mpages(struct iot_writer *w, const struct iot_mpages *m);

/*! iot_writer_flush() : write what is buffered as one chunk frame now.
 *  With background=1 the frame is handed to the writer thread; @wait=1
 *  waits until it is on disk (write(2) returned). */
IOT_API int iot_writer_flush(struct iot_writer *w, int wait);

/*! iot_writer_close() :
 *  Flush, write the index (with @dropped_events), fsync, close and free.
 *  @return : 0 or the first error met by any write since open. */
IOT_API int iot_writer_close(struct iot_writer *w, uint64_t dropped_events);

/*! iot_writer_abort() : free without writing an index (the file is left
 *  as a writer killed at this point would leave it). */
IOT_API void iot_writer_abort(struct iot_writer *w);

/*! iot_writer_bytes() : @return : bytes written to the file so far. */
IOT_API uint64_t iot_writer_bytes(const struct iot_writer *w);

/*! iot_writer_events() : @return : events appended so far. */
IOT_API uint64_t iot_writer_events(const struct iot_writer *w);

/*! iot_writer_set_extra() :
 *  A header key known only after the header was written: kept (copied)
 *  and written in the index at iot_writer_close() (Index.extra), where a
 *  reader finds it and adds it to its header's extra keys.  Lost if the
 *  file is not closed (no index) and a key the header has already
 *  keeps the header's value.
 *  @return : 0, IOT_E_ARG or -ENOMEM. */
IOT_API int iot_writer_set_extra(struct iot_writer *w, const char *key, const char *value);

/* ---- reading ---- */

struct iot_reader;

enum iot_item_kind {
	IOT_ITEM_EVENT = 1,
	IOT_ITEM_PATH_STATE,
	IOT_ITEM_PROCESS,
	IOT_ITEM_AIO,		/* format 1.2 */
	IOT_ITEM_MPAGES,	/* format 1.2 */
	IOT_ITEM_SPAN,		/* only after iot_reader_set_spans() */
};

/* The events of one chunk as a whole (iot_reader_set_spans()). */
struct iot_span {
	uint64_t events;		/* at least 1 */
	int64_t t_min;			/* the smallest enter time */
	int64_t t_end;			/* the largest of exit and enter times */
	int32_t pid, tid;		/* of its first event */
};

/* One thing read from a file.  Pointers inside stay valid until the reader
 * moves to another chunk (the chunk's arena is then reset): copy what you
 * keep. */
struct iot_item {
	int kind;			/* enum iot_item_kind */
	uint64_t chunk;			/* frame number of its chunk */
	union {
		struct iot_event ev;
		struct iot_path_state ps;
		struct iot_process proc;
		struct iot_aio aio;
		struct iot_mpages mp;
		struct iot_span span;
	} u;
};

/* What the reader knows about the file as a whole. */
struct iot_summary {
	uint64_t file_size;
	uint64_t frames;		/* chunk frames (the header frame not counted) */
	uint64_t events, path_states, processes;
	uint64_t dropped_events;
	int64_t t_min, t_max;		/* event times (enter min, exit max) */
	int has_index;
	int clean_close;
	int repaired;
	/* an index trailer is there but its checksum is wrong or it does not
	 * match the frames: it was ignored and the frames were walked (their
	 * own checksums hold), so every event is still read; clean_close and
	 * dropped_events, which only the index holds, are then unknown (0) */
	int index_damaged;
	/* damage found while walking the frames (0 if none) */
	int damage;			/* IOT_E_TRUNCATED or IOT_E_CORRUPT */
	uint64_t damage_frame;		/* first bad frame number */
	uint64_t damage_offset;		/* its byte offset */
	int64_t good_t_max;		/* last event time before the damage */
};

/*! iot_reader_open() :
 *  Open a trace or profile: check the magic and version, read the header
 *  and the index (or walk the frames if there is none).  A file damaged
 *  after its header opens successfully; iot_reader_summary() reports the
 *  damage and iteration stops before it.
 *  @return : 0 or IOT_E_* / -errno (ENOENT, EISDIR, ...). */
IOT_API int iot_reader_open(struct iot_reader **rp, const char *path);

/*! iot_reader_open_mem() : as iot_reader_open() on a buffer (not copied;
 *  it must outlive the reader).  Used by the fuzzer. */
IOT_API int iot_reader_open_mem(struct iot_reader **rp, const void *buf, size_t len);

IOT_API void iot_reader_close(struct iot_reader *r);

/*! iot_reader_header() : @return : the header (valid until close). */
IOT_API const struct iot_header *iot_reader_header(const struct iot_reader *r);

/*! iot_reader_summary() : @return : what is known of the file. */
IOT_API const struct iot_summary *iot_reader_summary(const struct iot_reader *r);

/*! iot_reader_next() :
 *  Read the next item.  Within a chunk: its processes, then its path
 *  states, then its events, each in the order written.
 *  @return : 1 with *@it filled, 0 at the end (or at the damage, see the
 *            summary), or a negative code. */
IOT_API int iot_reader_next(struct iot_reader *r, struct iot_item *it);

/*! iot_reader_set_spans() :
 *  With @on set, iot_reader_next() gives each chunk's processes, then its
 *  events as one IOT_ITEM_SPAN item, and nothing else (no path states,
 *  async operations or mapped pages).  Only the processes and the events'
 *  threads and times are decoded, so a pass that needs no more (the time
 *  range, the process tree) reads a file about twice as fast; the other
 *  columns are not checked.  Takes effect from the next chunk loaded (a
 *  rewind or seek loads one). */
IOT_API void iot_reader_set_spans(struct iot_reader *r, int on);

/*! iot_reader_set_ahead() :
 *  With @on set, a thread of the reader decodes the next @on chunks (at
 *  most 4) while the caller reads the current one (both CPUs busy where
 *  there are two); the items, the damage found and the codes returned are
 *  the same.  Each chunk ahead takes a chunk's memory (7-8 MiB on traces
 *  of mongo's calls).  0 stops the thread and frees the chunks it
 *  decoded (all but the one being read).  @return : 0 or -errno (then
 *  reading goes on without). */
IOT_API int iot_reader_set_ahead(struct iot_reader *r, int on);

/*! iot_reader_rewind() : go back to the first chunk. */
IOT_API int iot_reader_rewind(struct iot_reader *r);

/*! iot_reader_seek_frame() : continue from chunk frame @frame (0 = the
 *  first frame after the header). */
IOT_API int iot_reader_seek_frame(struct iot_reader *r, uint64_t frame);

/*! iot_reader_seek_time() : continue from the first chunk that may hold
 *  events at or after monotonic time @t_ns. */
IOT_API int iot_reader_seek_time(struct iot_reader *r, int64_t t_ns);

/*! iot_time_base() :
 *  @return : the monotonic time that prints as 0.000000: the workload's
 *            start from the header @h, or the first event of @s if that
 *            is earlier or the header has none.  Either may be NULL. */
IOT_API int64_t iot_time_base(const struct iot_header *h, const struct iot_summary *s);

/*! iot_damage_text() :
 *  Describe what is wrong with a file whose every readable item has been
 *  read, times counted from @base (iot_time_base()): "truncated at frame
 *  12, byte 40960 (events up to 1.234 s kept); run 'iotape check --repair'
 *  to rewrite the index".  Not closed cleanly (no index) counts as damage
 *  too: the tail may be missing.
 *  @return : 1 with @buf filled if the file is damaged, 0 if it is clean. */
IOT_API int iot_damage_text(char *buf, size_t len, const struct iot_summary *s,
			    int64_t base);

/*! iot_repair() :
 *  Rewrite the index of @path so that it covers every complete frame:
 *  a damaged tail is cut off.  @out may equal @path (done through a
 *  temporary file and rename).  *@kept gets the events kept.
 *  @return : 0 or a negative code. */
IOT_API int iot_repair(const char *path, const char *out, uint64_t *kept);

/* ---- text ---- */

/*! iot_format_event() :
 *  Format @ev as an strace-like line without pid, time or duration:
 *  `openat(AT_FDCWD, "/a/b", O_RDONLY|O_CLOEXEC) = 3`.
 *  @return : the length it needs (as snprintf). */
IOT_API int iot_format_event(char *buf, size_t len, const struct iot_event *ev);

/* iot_format_event_opts() flags */
#define IOT_FMT_FD_PATHS 0x01	/* descriptors with their path: 3</a/b> */

/*! iot_format_event_opts() :
 *  As iot_format_event(), with IOT_FMT_* @flags.  IOT_FMT_FD_PATHS prints
 *  a descriptor argument, and a descriptor that open or dup returned, with
 *  the path the recorder knew for it, as `strace -y` does:
 *  `read(3</src/a.c>, ..., 832) = 832`.  The first descriptor argument's
 *  path is the event's path, the second's its path2 (see FORMAT.md);
 *  descriptors without one print as plain numbers.
 *  @return : the length it needs (as snprintf). */
IOT_API int iot_format_event_opts(char *buf, size_t len,
				  const struct iot_event *ev, unsigned flags);

/*! iot_format_arg() : format one argument value of kind @kind. */
IOT_API int iot_format_arg(char *buf, size_t len, int kind, int64_t v);

/*! iot_format_str() : @s (@n bytes) as a quoted C string, with the
 *  escapes iot_format_event() uses for paths.  @return : as snprintf. */
IOT_API int iot_format_str(char *buf, size_t len, const char *s, size_t n);

/* ---- an arena, for the reader and for callers that copy items ---- */

struct iot_arena;
IOT_API struct iot_arena *iot_arena_new(size_t block);
IOT_API void *iot_arena_alloc(struct iot_arena *a, size_t n);
IOT_API char *iot_arena_strndup(struct iot_arena *a, const char *s, size_t n);
IOT_API void iot_arena_reset(struct iot_arena *a);
IOT_API void iot_arena_free(struct iot_arena *a);

/* ---- a monotonic clock ---- */

/*! iot_now_ns() : @return : CLOCK_MONOTONIC in ns. */
IOT_API int64_t iot_now_ns(void);

#ifdef __cplusplus
}
#endif
#endif /* IOTAPE_H */
