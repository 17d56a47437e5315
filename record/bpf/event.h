/*
 * event.h - what the BPF programs (iotape.bpf.c) write into their ring
 * buffer and the recorder (record/bpf_drain.c) reads: one layout for both sides.
 *
 * Every record starts with struct be_hdr; its len is the whole record's.
 * Strings are NUL-terminated and padded to 8 bytes; a length of
 * BE_NOSTR means the pointer was NULL, BE_FAULT that it could not be read.
 */
#ifndef IOT_BPF_EVENT_H
#define IOT_BPF_EVENT_H

#define BE_STR_MAX	4096		/* a path, as REC_PATH_MAX */
#define BE_ARGV_MAX	8192		/* an exec's argv block */
#define BE_NR_MAX	512		/* syscall numbers the table may hold */
#define BE_NOSTR	0xffffffffu
#define BE_FAULT	0xfffffffeu

enum be_type {
	BE_ENTER = 1,	/* a recorded call entered: args, strings */
	BE_EXIT,	/* ... and returned */
	BE_FORK,	/* a traced task made a task (fork, vfork, clone) */
	BE_EXEC,	/* a traced task ran a new program */
	BE_GONE,	/* a traced task ended */
	BE_CALL,	/* a call without strings, entry and exit in one record */
	BE_FLUSH,	/* the fast path's ring of this thread is full: drain now */
	BE_URING_SETUP,	/* a followed task made an io_uring ring */
	BE_URING_SQE,	/* a ring of a followed process took a request */
	BE_URING_CQE,	/* ... posted a completion */
	BE_URING_REG,	/* ... had files or buffers registered */
	BE_FMAP,	/* a file mapping made: the file it maps, as the page records name it */
	BE_MPAGE,	/* pages of a followed file mapping faulted in or dirtied */
	/* libaio (struct be_aio), written before their call's record */
	BE_AIO_IOCB,	/* io_submit's sys_enter: one iocb it names */
	BE_AIO_EVENTS,	/* io_getevents' sys_exit: io_events the kernel wrote */
	BE_AIO_CTX,	/* io_setup's sys_exit: the context it made */
	BE_URING_READY,	/* an io_uring_enter that waits: completions left in its ring */
	BE_CALLSTR,	/* a call with strings, entry and exit in one record (be_callstr) */
};

/* a task's BE_CALLSTR record, kept in its state from the call's entry
 * (its strings) to its exit: struct be_callstr and up to BE_CREC_STR
 * bytes of strings (less than that: calls with longer ones send an entry
 * and an exit record).  Kept small so that a task's state stays within
 * a page: it is allocated, in the fork's tracepoint, for every task
 * followed, where an allocation of several pages may fail. */
#define BE_CALLSTR_HDR	176
#define BE_CREC_STR	2048
#define BE_CREC_BYTES	(BE_CALLSTR_HDR + BE_CREC_STR)

#define BE_TID_ON	1	/* map tstate: followed */
#define BE_TID_EXEC	2	/* ... from its next execve on */

/* map drops' keys: what the programs count, per CPU */
#define BE_CNT_DROPS		0	/* records they could not write */
#define BE_CNT_UNSEEN_IN	1	/* switches back in the kernel did not trace */
#define BE_CNT_N		2

/* map tstate's value: what the recorder writes for the program it starts */
struct be_tstate {
	__u32 st;
	__u32 busy;
	__u64 args[6];
	__s32 nr;
	__u32 fault;
	__u8 sarg[2];
	__u8 aio_tail;
	__u8 estr;
	__u32 one;
	__u64 t_enter;
	__u64 dargs[6];
	__u64 t_held;			/* the guard's stop began (0: none) */
	__s32 held_nr;			/* ... for this call */
	__u32 held;			/* ns the call was held, for BE_CALL */
	__u64 t_off;
	__u64 off_ns;
	__u64 run_off;
	__u64 t_slept;
	__u64 slept_ns;
	__u32 slept;
	__u32 in_fast;
	__u32 woke;
	__u32 waited;
	__u32 cwaker;
	__u64 t_vslept;
	__u64 waited_ns;
	__u64 t_woke;
	__u64 t_in;
	__u64 run_in;
	__u64 rec_ns;
	__u64 rec_runs;
	__u32 soff;			/* crec's strings' bytes */
	__u32 gwaker;
	__u64 t_ready;
	__u64 ready_ns;
	__u32 ready;
	__u32 gone;
	__u8 crec[BE_CREC_BYTES];
};

/* Per syscall number, from format/syscalls.def: recorded at all, and its
 * argument kinds (enum iot_arg_kind), so that the program reads what the
 * ptrace path reads. */
struct be_sysinfo {
	__u8 rec;
	__u8 nargs;			/* to the last one not plain: the ones decoded */
	__u8 kind[6];
	__u8 guard;			/* bpf_guard.c's filter may stop it */
	__u8 one;			/* one record at its exit when its strings,
					 * if any, are empty or NULL: not a
					 * process call, io_uring's, an open nor
					 * an exec */
	__u8 plain;			/* ... and nothing to decode (nargs 0):
					 * the entry writes only the task's
					 * state */
};

struct be_hdr {
	__u32 type;
	__u32 len;
	__u64 t;			/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u32 pid, tid;
};

/* BE_ENTER: args as the ptrace path decodes them with a view (iovec
 * sums, the values behind offset pointers and open_how in place of the
 * pointers); up to two strings follow in argument order. */
struct be_enter {
	struct be_hdr h;
	__s32 nr;
	__u32 nstr;
	__u64 args[6];
	__u32 slen[2];			/* each string's length, or BE_NOSTR/BE_FAULT */
	__u8 sarg[2];			/* each string's argument index */
	__u8 pad[2];
	__u32 held;			/* ns the guard's stop held it before
					 * it entered: not think time */
	__u32 slept;			/* ns its task slept uninterruptibly
					 * since its previous recorded call:
					 * the program's, in the gap */
	__u32 woke;			/* ns since its task was last woken
					 * from a voluntary sleep in that gap
					 * (0: not so woken) */
	__u32 waited;			/* ns it slept voluntarily in that gap */
	__u32 gwaker;			/* tid of the followed task that woke it
					 * from that sleep, from a call that
					 * wakes others (0: none, not known) */
	__u32 ready;			/* ns it was runnable, waiting for a
					 * CPU, in that gap */
	__u32 pad_ready;
	char data[];
};

/* What an open found: the inode of the file it returned, as the kernel
 * held it at the open's exit (BE_IST_VALID unset: not read, or the open
 * made its file).  Times in ns since the epoch; without BE_IST_TIMES
 * (a kernel whose struct inode keeps them otherwise) they were not read. */
struct be_istate {
	__u64 ino, size;
	__s64 atime, mtime, ctime;
	__u32 mode, uid, gid, nlink;
	__u32 flags;			/* BE_IST_* */
	__u32 pad;
};
#define BE_IST_VALID	1
#define BE_IST_TIMES	2

/* BE_EXIT: the result; pipe()'s descriptors and their inodes; strings
 * that could not be read at entry, read again (their page is in now);
 * an open's file as it found it. */
struct be_exit {
	struct be_hdr h;
	__s64 ret;
	__s32 pipe_fd[2];
	__u64 pipe_ino[2];
	__u32 nstr;
	__u32 slen[2];
	__u32 created;			/* BE_CREATED, BE_KILLED */
	__u32 cpu_ns;			/* ns on a CPU from entry to exit (>= 1) */
	__u32 cwaker;			/* tid of the followed task whose wake-up
					 * ended the call's last sleep (0: none,
					 * or not a followed task's) */
	struct be_istate st;		/* open, openat, openat2 */
	char data[];
};

/* be_exit's and be_call's created: an open made its file
 * (FMODE_CREATED); the task leaves the call killed (SIGKILL pending: no
 * ptrace stop would have seen it return, so it is written unfinished) */
#define BE_CREATED	1
#define BE_KILLED	2
/* be_call's created: a stat (stat, lstat, newfstatat, statx) that succeeded;
 * its pipe_ino[] hold the inode and size it returned, its pipe_fd[] the
 * mode and link count (the owner is not sent: the lstat's is kept) */
#define BE_STATED	4

/* BE_CALL: h.t is the exit time; what BE_ENTER and BE_EXIT would hold,
 * for a call whose strings, if any, were all empty or NULL (not an open,
 * which sends the file it found, nor an exec) */
struct be_call {
	struct be_hdr h;
	__s32 nr;
	__u32 created;
	__u64 t_enter;
	__u64 args[6];
	__s64 ret;
	__s32 pipe_fd[2];
	__u64 pipe_ino[2];
	__u32 held;			/* as be_enter's */
	__u32 cpu_ns;			/* as be_exit's */
	__u32 slept;			/* as be_enter's */
	__u32 woke;			/* as be_enter's */
	__u32 waited;			/* as be_enter's */
	__u32 estr;			/* bit i: argument i is a string, empty
					 * ("" as newfstatat(fd, "",
					 * AT_EMPTY_PATH), glibc's fstat());
					 * string arguments not here were NULL */
	__u32 cwaker;			/* as be_exit's */
	__u32 gwaker;			/* as be_enter's */
	__u32 ready;			/* as be_enter's */
	__u32 pad_ready;
};

/* BE_CALLSTR: h.t is the exit time; a call that BE_CALL would hold but
 * for its strings, which were not all empty or NULL (as BE_ENTER's: up
 * to two, in argument order, each NUL-terminated and padded to 8 bytes,
 * after the struct).  The programs keep it in the task's state from the
 * entry, where the strings are read, to the exit: one ring record for
 * the call, not an entry and an exit record. */
struct be_callstr {
	struct be_call k;		/* k.h.type BE_CALLSTR, k.estr 0 */
	__u32 nstr;
	__u32 slen[2];			/* as be_enter's */
	__u8 sarg[2];
	__u8 pad[2];
	char data[];
};

struct be_fork {
	struct be_hdr h;		/* pid/tid: the parent */
	__u32 child_pid, child_tid;
	__u64 flags;			/* CLONE_THREAD|FILES|FS|VM|VFORK as the kernel did it */
};

/* BE_EXEC: h.tid is the tid after the exec; the exe's path, the new
 * argv (NUL-separated) and the file name execve was given (the kernel's
 * copy: for an entry whose string was not readable) follow. */
struct be_exec {
	struct be_hdr h;
	__u32 old_tid;
	__u32 exe_len;
	__u32 argv_len;
	__u32 fname_len;
	char data[];
};

struct be_gone {
	struct be_hdr h;
	__s32 status;			/* the wait(2) status */
	__u32 pad;
	__u64 utime_ns, stime_ns;	/* sampled per clock tick */
	__u64 run_ns;			/* exact: run time at its last switch in, and since */
	__u64 rec_ns;			/* of it, the page-fault programs' own time
					 * outside its calls (mpages.bpf.h), and
					 * the exit program's slow runs */
	__u64 rec_runs;			/* ... in so many runs of them */
	__s64 left_nr;			/* the call it was leaving, + 1 (0: none
					 * known), and what that call returned:
					 * the fast path's record of it, never
					 * finished, takes it (fp_drain.c) */
	__s64 left_rv;
};

/*
 * io_uring (record/bpf_uring.c).  A ring is named by its process (h.pid)
 * and its descriptor there (ring_fd), as the ptrace backend names it;
 * in_call is the tid of the followed thread whose io_uring_enter (or
 * io_uring_register) the record came in, 0 when it came from no call of
 * the program's (SQPOLL's kernel thread, io-wq, an interrupt).
 */
struct be_uring_setup {
	struct be_hdr h;
	__s32 ring_fd;
	__u32 flags;			/* IORING_SETUP_* */
	__u32 sq_entries, cq_entries;
};

/* BE_URING_SQE: the request as an SQE would say it, rebuilt from the
 * kernel's io_kiocb (for FALLOCATE: off, addr = the length, len = the
 * mode; for vectored ops vec_bytes is the iovecs' sum; for path ops fd
 * the directory, len the mode, mask or new directory, and the paths, the
 * kernel's copies, follow: the first at data, the second (RENAMEAT's new
 * name) at data + BE_STR_MAX) */
#define BE_SQE_DECODED	1		/* the opcode's command was read */
#define BE_IOV_MAX	16		/* a vectored request's lengths, at most */
struct be_uring_sqe {
	struct be_hdr h;
	__s32 ring_fd;
	__u32 in_call;
	__u8 opcode, flags, decoded, nstr;
	__s32 fd;			/* the SQE's fd, or fixed-file index */
	__u64 off, addr, user_data, vec_bytes;
	__u32 len, rw_flags;
	__u32 buf_index;
	__u32 slen[2];			/* each path's length, or BE_FAULT */
	__u32 niov;			/* vectored: iovecs whose lengths are in iov */
	__u64 iov[BE_IOV_MAX];
	char data[];
};

struct be_uring_cqe {
	struct be_hdr h;
	__s32 ring_fd;
	__u32 in_call;
	__u64 user_data;
	__s32 res;
	__u32 flags;
	__u32 created;			/* an OPENAT made its file (FMODE_CREATED) */
	__u32 pad;
};

/* BE_URING_READY, at the sys_enter of a followed thread's io_uring_enter
 * that waits (GETEVENTS, min_complete): @n completions were in the ring
 * (h.pid's @ring_fd at its making), not yet reaped (CQ tail less head) */
struct be_uring_ready {
	struct be_hdr h;
	__s32 ring_fd;
	__u32 n;
};

/* BE_URING_REG: IORING_REGISTER_FILES (vals: the descriptors),
 * _BUFFERS (their lengths), _EVENTFD(_ASYNC) (the eventfd),
 * (UN)REGISTER_RING_FDS (index and ring descriptor pairs) */
#define BE_REG_MAX	256
struct be_uring_reg {
	struct be_hdr h;
	__s32 ring_fd;
	__u32 in_call;
	__u32 opcode, nvals;
	__s64 vals[BE_REG_MAX];
};
/* BE_FMAP, after a successful mmap of a file (its BE_CALL): the
 * mapping at @addr is of the file whose page cache is @mkey (its
 * address_space, an opaque key); BE_FMAP_UNWATCHED: the programs' table
 * of mapped files was full, its pages are not followed */
struct be_fmap {
	struct be_hdr h;
	__u64 addr;
	__u64 mkey;
	__u32 flags;
	__u32 pad;
};
#define BE_FMAP_UNWATCHED	1

/* BE_MPAGE: pages first..last (of the file) of @mkey that a followed
 * task mapped in by a fault (fault-around included), or, BE_MP_DIRTY,
 * that a store through a shared mapping made dirty */
struct be_mpage {
	struct be_hdr h;
	__u64 mkey;
	__u64 first, last;
	__u32 flags;
	__u32 pad;
};
#define BE_MP_DIRTY	1

/* libaio's records (BE_AIO_*).  h.t is the entry time of the call they
 * come with (its BE_CALL's t_enter): the recorder ties them to it. */
#define BE_AIO_CBS_MAX	4096		/* iocbs read per io_submit (as ptrace: MAX_BATCH) */
#define BE_AIO_VEC_MAX	1024		/* iovec lengths per vectored iocb (IOV_MAX) */
#define BE_AIO_EVS	64		/* io_events per BE_AIO_EVENTS record */
#define BE_AIO_EVS_MAX	4096		/* io_events read per call */

struct be_aio {
	struct be_hdr h;
	__s32 nr;			/* the call's number */
	__u32 n;			/* IOCB: iovec lengths (__u64) that follow;
					 * EVENTS: io_events (32 bytes each) */
	__u64 ctx;			/* the call's context; CTX: the one made */
	__u64 ptr;			/* IOCB: the iocb's address */
	__u32 lost;			/* requests (IOCB) or io_events (EVENTS)
					 * seen and not read: the record then
					 * holds none; CTX: 1, unread */
	__u32 pad;
	__u8 cb[64];			/* IOCB: the iocb as the program wrote it */
	/* n * 8 bytes follow */
};

#endif
