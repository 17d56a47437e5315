/*
 * rec.h - the recorder's internal interfaces (record/ only).
 *
 * One tracer thread drives every tracee through waitpid(); state lives in
 * a per-thread table (struct rec_task), descriptor tables shared the way
 * the kernel shares them (struct rec_fdtab, refcounted for CLONE_FILES),
 * and the cwd shared per CLONE_FS (struct rec_fs).
 */
#ifndef REC_H
#define REC_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "iotape.h"

#define REC_PATH_MAX 4096
#define REC_MAX_ARGV 4096

/*
 * memset(@p, 0, @n) for the structs cleared once or twice a recorded call
 * (the event, a record's view).  With the size known, gcc inlines a
 * memset of 100-300 bytes as `rep stosq`, which costs 20-35 ns on the
 * AMD EPYC this was measured on, where libc's vector memset costs 3-9:
 * the size is hidden from it so that it calls libc.
 */
static inline void rec_zero(void *p, size_t n)
{
	__asm__("" : "+r"(n));
	memset(p, 0, n);
}

/* Did a call end with @ret because a signal cut it short (the program
 * never saw it end)?  EINTR, or what the kernel leaves at the exit for a
 * call it restarts: ERESTARTSYS, ERESTARTNOINTR, ERESTARTNOHAND (512-514)
 * and ERESTART_RESTARTBLOCK (516). */
static inline int rec_cut_by_signal(int64_t ret)
{
	return ret == -EINTR || (ret <= -512 && ret >= -514) || ret == -516;
}

enum rec_cpu_policy { REC_CPU_AUTO = 0, REC_CPU_ONE, REC_CPU_NONE };
enum rec_backend { REC_BACKEND_PTRACE = 0, REC_BACKEND_BPF, REC_BACKEND_AUTO, REC_BACKEND_MIXED };

struct rec_fd {
	char *path;			/* NULL = unknown or closed */
	uint32_t len;
	uint8_t cloexec;
	uint8_t unnamed;		/* O_TMPFILE: path is its directory's */
	int64_t t_set;			/* the exit of the call that gave it
					 * (0: unknown): rec_fd_close_at() */
	uint8_t nwas;
	struct rec_fd_was *was;		/* REC_FD_WAS files it had before, in a
					 * table threads share: rec_fd_path_at() */
};

/*
 * A file a descriptor number had, from the exit of the call that gave it
 * to the entry of the close that freed it (INT64_MAX: not taken yet).
 * bpf and the fast path take threads' calls in the order they began or
 * ended, not in the order their effects on the table were made, so a
 * call may be taken after another thread's open of the number it used
 * had given the number again.
 */
#define REC_FD_WAS	4
struct rec_fd_was {
	char *path;
	uint32_t len;
	int64_t t_set, t_close;
};

struct rec_fdtab {
	int refs;
	int n;				/* slots allocated */
	struct rec_fd *fd;
};

struct rec_fs {
	int refs;
	char *cwd;
	char *root;		/* after chroot(): where "/" is, else NULL */
};

/* A recorded file mapping, so that munmap of it is kept and others are
 * dropped at their entry stop. */
struct rec_map {
	uint64_t addr, len;
};

struct rec_mm {
	int refs;
	int n, cap;
	struct rec_map *map;
};

/* A path's state just before a call, taken by the program itself (the
 * fast path) rather than by the recorder at the entry stop. */
struct rec_pre {
	int err;			/* 0: sb is valid; else lstat's errno */
	uint32_t missing;		/* ENOENT: trailing components missing (0: unknown) */
	struct stat sb;
	const char *target;		/* symlink target, or NULL */
	uint32_t target_len;
	/* a symlink: stat() through it, for its target's state (used when
	 * the target is not itself a symlink now) */
	const struct rec_pre *through;
	/* bpf backend, an open that found its file: sb is not set; the
	 * path is lstat()ed when its state is taken, and if it is still the
	 * inode the open returned (not a symlink to it), the kernel's
	 * values at the open's exit replace size, mode, owner, links and
	 * times, which the program may have changed since through the
	 * descriptor (states.c) */
	int opened;
	struct rec_opened {
		uint64_t ino, size;
		int64_t atime_ns, mtime_ns, ctime_ns;
		uint32_t mode, uid, gid, nlink;
		int times;		/* the three times were read */
	} op;
};

/* libaio's requests and completions as the BPF programs read them
 * (bpf_aio.c), in place of the program's memory, for aio.c */
struct rec_iocb {
	uint64_t ptr;			/* its address (0: seen, not read) */
	unsigned char cb[64];		/* struct iocb */
	int64_t *vals;			/* a vectored one's iovec lengths */
	uint32_t nvals;
};

struct rec_ioev {			/* struct io_event */
	uint64_t data, obj;
	int64_t res, res2;
};

struct rec_aio_view {
	/* (what the call's result counts past these was not read) */
	struct rec_iocb *cbs;		/* io_submit's, in order */
	uint32_t n_cbs, cap_cbs;
	struct rec_ioev *evs;		/* io_getevents' */
	uint32_t n_evs, cap_evs;
	int has_ctx;			/* io_setup's context: */
	uint64_t ctx;
};

/* What a fast-path record holds in place of the tracee's memory: the
 * string arguments and pre-call states, by argument index. */
struct rec_view {
	const char *str[IOT_MAX_ARGS];	/* NULL: a NULL pointer */
	uint32_t slen[IOT_MAX_ARGS];
	const struct rec_pre *pre[IOT_MAX_ARGS];
	/* BPF records: the call already ran, the tracee's memory is not
	 * read (its execve argv comes with the exec, pipe()'s fds here) */
	int no_mem;
	/* a write's bytes were all zeros (the library looked: fp_zeros()) */
	int zero;
	/* --data: the bytes a write asked to write, copied by the library
	 * (NULL: not copied) */
	const void *data;
	uint32_t data_len;
	int32_t pipe_fd[2];
	uint64_t pipe_ino[2];
	const struct rec_aio_view *aio;	/* BPF records: libaio's, or NULL */
};

/* An async request read at a call's entry, kept at its exit (aio.c). */
struct rec_aio_req {
	struct iot_aio a;		/* path, path2, vals point below */
	char *path, *path2;
	int64_t *vals;
	void *data;			/* --data: a write's bytes (data.c) */
	int created;			/* bpf: an OPENAT's completion made its file */
};

struct rec_task {
	pid_t tid, pid;			/* pid = thread group id */
	pid_t ppid;			/* the process that forked it (0: unknown) */
	struct rec_fdtab *fds;
	struct rec_fs *fs;
	struct rec_mm *mm;
	int attached;			/* its first stop was handled */
	int ready;			/* state set up (parent's event seen) */
	int stopped_early;		/* first stop seen before ready */
	int in_syscall;			/* entry seen, exit pending */
	int want_exit;			/* resume with PTRACE_SYSCALL */
	int exited_event;		/* PTRACE_EVENT_EXIT seen */
	/* ... 1 + the call it was killed on its way out of (0: none), and
	 * its result (tracer.c killed_leaving()) */
	long left_nr, left_rv;
	/* ... 1 + the call it was leaving when a signal was delivered to
	 * it (0: none, or the call was cut short), its result, and when
	 * (tracer.c signalled_leaving()) */
	long sig_nr, sig_rv;
	int64_t sig_ns;
	int64_t let_go_ns;		/* ... and resumed from it then: its end
					 * began (the exit record's time) */
	pid_t vfork_child;		/* vforked it; cleared at its next stop */
	int before_exec;		/* root, no filter: the recorder's own calls */
	int hidden;			/* the call loads the fast-path library: not recorded */
	int vfork_hold;			/* counted in the fast path's vfork hold */
	pid_t vfork_parent;		/* bpf: the thread that vforked it, until it execs or ends */
	const struct rec_view *view;	/* decoding a fast-path record */
	int mnt_ns;			/* mount_ns.c: its namespace's root + 1, -1 the
					 * recorder's view, 0 not looked at yet */
	int mnt_ns_was;			/* ... before it was to be looked at again */
	int64_t utime_ns, stime_ns;
	int64_t last_stop_ns;
	/* slept.c: its schedstat (fd + 1; 0: not open), read at its last
	 * exit stop (@ss_ok: no in-process call or other stop since;
	 * @run_ok: 1 read there, 2 and the entry stop of one call since) */
	int ss_fd, ss_ok, run_ok;
	int64_t ss_t, ss_cpu, ss_delay;
	long ss_majflt;
	/* the syscall in flight */
	struct iot_event ev;
	const struct iot_syscall *sc;
	uint64_t raw[IOT_MAX_ARGS];
	char *path, *path2;		/* owned; ev.path/ev.path2 point here */
	int slash;			/* 1, 2: path, path2 named with a trailing '/';
					 * 4, 8: ending in a "." a call makes, removes
					 * or renames (decode_exit.c, write_event()) */
	char **argv;			/* execve argv read at entry */
	uint32_t argc;
	char *exec_path;
	uint64_t clone_flags;
	struct rec_aio_req *aio;	/* io_submit / io_uring_enter requests */
	uint32_t n_aio;
	uint64_t aio_data;		/* bytes of their writes read (--data) */
	struct iot_mpages *mp;		/* pages taken at munmap/msync (mmap.c) */
	uint32_t n_mp;
	/* bpf: the gap of a call not recorded (anonymous memory unmapped
	 * or moved), for its next recorded call's (bpf_events.c) */
	struct {
		uint64_t slept, waited, ready, held;
		int64_t woke_at;		/* its last wake-up (0: none) */
		uint32_t gwaker;
	} gap;
};

struct rec_opts {
	const char *out;
	pid_t attach_pid;
	int seccomp;
	int flush_ms, flush_events;
	int cpu_policy;
	int fastpath;			/* try the in-process fast path */
	int listings;			/* take unnamed entries of listed directories */
	int quiet;
	int backend;			/* enum rec_backend, as asked (auto: resolved
					 * to ptrace at parse where an option
					 * only ptrace has was given) */
	const char *ptrace_opt;		/* the first such option given, or NULL */
	int bpf_ring_mb;
	int path_set_mb;		/* cap of the set of paths met (MiB) */
	uint64_t path_set_bytes;	/* the same in bytes (IOTAPE_PATH_SET_KB) */
	int bpf_wake_kb;		/* non-zero: no call's record wakes the drain (0: at once) */
	uint64_t data_max;		/* --data: keep writes of at most this (0: off) */
	uint64_t data_total;		/* --data-total: keep at most this in all */
	char **cmd;			/* the program and its arguments */
};

/* cmd_record_opts.c: iotape record's options into @o.  @return : 0, 1 after
 * --help, or -1 after a message */
int rec_parse_opts(int argc, char **argv, struct rec_opts *o);

struct rec_stats {
	uint64_t events, processes, dropped, stops;
	uint64_t chroots;		/* chroot() calls that succeeded */
	uint64_t mounts;		/* mount, umount2, pivot_root that succeeded */
	uint64_t compat_procs;		/* execs of 32-bit programs: not recorded */
	char compat_first[128];		/* the first one's program */
	uint64_t moves;			/* pinned pair moved off a busy CPU */
	int64_t spread_ns;		/* when auto unpinned (0: never) */
	uint64_t fast_events;		/* of events, logged in-process */
	uint64_t fast_flushes;		/* a ring was full and asked for a drain */
	uint64_t listed;		/* states of entries only listed */
	uint64_t listed_early;		/* times they were taken before the end */
	/* async I/O (aio.c) */
	uint64_t aio_submit, aio_complete;	/* requests and completions written */
	uint64_t aio_rbytes, aio_wbytes;	/* bytes requests asked to move */
	uint64_t aio_wreqs;			/* requests that write */
	uint64_t aio_undecoded;			/* requests of an opcode not decoded */
	uint64_t aio_undecoded_ops;		/* which (bit per opcode < 64) */
	uint64_t aio_orphan;			/* completions of no request seen */
	uint64_t aio_lost;			/* completions that could not be read */
	uint64_t aio_missed;			/* libaio requests taken, not read */
	uint64_t aio_unreaped;			/* requests never seen complete */
	uint64_t uring_sqpoll, uring_sqpoll_enters;	/* SQPOLL rings, their enters */
	uint64_t uring_missed;			/* requests rings took without a syscall */
	uint64_t uring_unknown;			/* enters on rings whose memory is unknown */
	uint64_t uring_bpf_undecoded;		/* bpf: requests whose command was not read */
	uint64_t uring_bpf_undecoded_ops;	/* ... which opcodes (bit per opcode < 64) */
	uint64_t file_maps;			/* file mappings followed (mmap.c) */
	uint64_t fmap_untaken;			/* ... whose pages could not be read */
	uint64_t fmap_untied;			/* file mappings tied to no file (mmap.c) */
	uint64_t mp_read, mp_written;		/* their pages read and written */
	uint64_t mp_shmem;			/* ... of those written, pages of tmpfs files (ptrace) */
	uint64_t bpf_events;		/* of events, logged by the BPF programs */
	uint64_t bpf_lost;		/* of dropped, records the programs could not write */
	uint64_t bpf_unseen_in;		/* calls resumed without a traced switch
					 * in (iotape.bpf.c's unseen_in()) */
	uint64_t guard_stops;		/* bpf: stops before removing calls */
	uint64_t guard_held_ns;		/* ... the time they held calls (pre_ns) */
	uint64_t guard_held;		/* ... calls so held */
	uint64_t bpf_slept_ns;		/* uninterruptible sleep between calls
					 * (slept_ns), bpf backend */
	uint64_t bpf_rec_ns, bpf_rec_runs;	/* the programs' runs between
						 * calls (page faults, slow
						 * ring writes), their time */
	uint64_t stop_slept_ns;		/* ptrace: sleep between stopped calls */
	uint64_t stop_slept;		/* ... calls given one (slept.c) */
	uint64_t bpf_reread;		/* bpf: strings unread at entry, read at exit */
	uint64_t xattrs_late;		/* fsetxattr()s of files whose attributes
					 * were taken after a change (decode.c) */
	uint64_t data_calls, data_bytes;	/* --data: writes whose bytes were kept */
	uint64_t nodata_calls, nodata_bytes;	/* ... and not kept (IOT_EV_NODATA) */
	uint64_t aio_data;			/* --data: write requests whose bytes were kept */
	uint64_t aio_nodata, aio_nodata_bytes;	/* ... and not kept */
	int64_t t_start, t_end;
	int64_t t_start_real;		/* t_start on CLOCK_REALTIME (a file's times) */
	int root_status;		/* wait status of the root */
	int root_done;
};

#include "rec_paths.h"

struct rec_ctx {
	const struct rec_opts *o;
	struct iot_writer *w;
	int seccomp_on;
	pid_t root;
	struct rec_task **by_tid;
	int pid_max;
	int ntasks;
	int diag_fd;			/* NETLINK_SOCK_DIAG (iot_unix_peer()), 0: none */
	/* ptrace: connections made and not yet accepted, by the process
	 * that connected (proc.c rec_conn_peer()), oldest first */
	struct rec_conn { pid_t pid; uint64_t ino; } *conns;
	size_t n_conns, cap_conns;
	struct rec_stats st;
	/* path states taken */
	struct rec_pathset seen;
	/* ... for the calls of this task: their states are taken in its
	 * mount namespace (mount_ns.c; NULL: the recorder's) */
	struct rec_task *state_task;
	/* ... the directory entries they are of, by their directory's
	 * device and inode and their name (names.c rec_entry_met()) */
	struct rec_pathset entries;
	int entries_cleaned;		/* ... and paths with "." or ".." cleaned */
	int entries_early;		/* ... and without symlinks (entry_early()) */
	/* symlinks the workload made, cleaned (states.c linked_origin()) */
	struct rec_pathset made_links;
	/* files whose extended attributes were taken after they changed
	 * since their open (bpf: states.c); an fsetxattr of one is counted */
	struct rec_pathset xattrs_after;
	struct rec_linkcache *links;	/* for paths with "..": names.c */
	uint8_t *xbuf;			/* a state's extended attributes (states.c) */
	/* directories the workload renamed, newest last (states.c:
	 * rec_dir_moved()) */
	struct rec_move { char *from, *to; uint32_t flen, tlen; int64_t t; } *moves;
	uint32_t n_moves;
	/* the starting tree's symlinks met, path to target (start_links.c) */
	struct rec_slinks *slinks;
	/* directories the workload listed (getdents), in the order it first
	 * did: their entries it never named are taken at the end */
	struct rec_pathset listed_set;
	struct rec_listed *listed;
	size_t n_listed, cap_listed;
	uint64_t listed_bytes;		/* what they hold, about */
	/* cpu policy state */
	int spread;			/* tracees spread over every CPU */
	int pinned_cpu;
	int detaching;
	int64_t last_flush_ns;
	uint64_t events_at_flush;
	char buf[REC_PATH_MAX * 2];	/* scratch for tracee strings */
	struct rec_fast *fast;		/* NULL: fast path off */
	struct rec_aio *aio;		/* async contexts and rings (aio.c) */
	struct rec_fmaps *fmaps;	/* file mappings (mmap.c) */
	struct rec_bpf *bpf;		/* NULL: the ptrace backend */
	const char *bpf_why;		/* auto: why bpf did not load */
	void *data_buf;			/* --data: written bytes read at a stop */
	size_t data_cap;
	int64_t stop_cost_ns;		/* calibrated, both stops of a call */
	long stop_majflt;		/* major faults of the process at this stop */
};

/* ---- slept.c: sleep between stopped calls (ptrace) ---- */
/* at @t's exit stop: its CPU and run-queue time, and the clock */
void rec_slept_exit(struct rec_ctx *c, struct rec_task *t);
/* at its next entry stop (after its entry is decoded, at @now): the
 * time it slept since, into t->ev.slept_ns */
void rec_slept_entry(struct rec_ctx *c, struct rec_task *t, int64_t now);
/* its schedstat closed (the task goes, or takes another tid) */
void rec_slept_close(struct rec_task *t);
/* At a call's entry stop: a second entry without an exit between (a
 * call not stopped at its exit) ends the interval run_ns measures. */
static inline void rec_run_entry(struct rec_task *t)
{
	t->run_ok = t->run_ok == 1 ? 2 : 0;
}

/* ---- proc.c: the task table, descriptor tables, cwd ---- */
int rec_tasks_init(struct rec_ctx *c);
void rec_tasks_free(struct rec_ctx *c);
struct rec_task *rec_task_get(struct rec_ctx *c, pid_t tid);
/* Each task in turn: the next after tid *@i (start at 0), or NULL.  Start
 * *@left at c->ntasks: the walk ends after that many, and the task it
 * returned may be deleted before the next call. */
struct rec_task *rec_task_next(struct rec_ctx *c, int *i, int *left);
struct rec_task *rec_task_new(struct rec_ctx *c, pid_t tid);
void rec_task_del(struct rec_ctx *c, struct rec_task *t);
/* @t takes tid @tid (exec from a non-leader thread) */
void rec_task_retid(struct rec_ctx *c, struct rec_task *t, pid_t tid);
void rec_task_clear_call(struct rec_task *t);
/* give @child its parent's tables per @flags (CLONE_FILES, CLONE_FS,
 * CLONE_VM, CLONE_THREAD) */
int rec_task_inherit(struct rec_task *child, const struct rec_task *parent,
		     uint64_t flags);
/* fill @t's tables from /proc (root process or attach) */
int rec_task_from_proc(struct rec_task *t);

/* inherit.c: the descriptors a started program inherits.
 * rec_fds_note() : the recorder's open descriptors, noted before it opens
 * any of its own.  @return : 0, or -errno (then every one counts as noted)
 * rec_fd_inherited() : was @fd open when they were noted?
 * rec_fds_seal() : in the forked child, every descriptor not noted made
 * close-on-exec (async-signal-safe) */
int rec_fds_note(void);
int rec_fd_inherited(int fd);
void rec_fds_seal(void);
void rec_fds_free(void);
const char *rec_fd_path(const struct rec_task *t, int64_t fd, uint32_t *len);
/* the inode of socket descriptor @fd of task @tid, 0 if unknown */
uint64_t rec_sock_ino(pid_t tid, int fd);
/* rec_conn_made() : process @pid's socket of inode @ino connected
 * (ptrace).  rec_conn_peer() : the connecting socket of the connection
 * process @pid accepted as descriptor @fd, whose peer the kernel says is
 * @peer (0: it has none left: iot_unix_peer()): @peer, else the one its
 * connecting process made (SO_PEERCRED), 0 if unknown. */
void rec_conn_made(struct rec_ctx *c, pid_t pid, uint64_t ino);
uint64_t rec_conn_peer(struct rec_ctx *c, pid_t pid, int fd, uint64_t peer);
/* rec_fd_path_at() : @fd's file for a call that entered at @t_enter: if
 * the call that gave the number returned after that, the file it had at
 * @t_enter (struct rec_fd_was), if it is known. */
const char *rec_fd_path_at(const struct rec_task *t, int64_t fd, uint32_t *len,
			   int64_t t_enter);
int rec_fd_set(struct rec_task *t, int fd, const char *path, uint32_t len,
	       int cloexec);
void rec_fd_close(struct rec_task *t, int fd);
/* rec_fd_close_at() : the close of @fd that entered at @t_enter, unless
 * the number was given again since (another thread's call that returned
 * it after the close freed it, which a backend may report first). */
void rec_fd_close_at(struct rec_task *t, int fd, int64_t t_enter);
void rec_fd_cloexec(struct rec_task *t, int fd, int on);
/* @fd was opened O_TMPFILE: a file with no name, its path its directory's */
void rec_fd_unnamed(struct rec_task *t, int fd);
/* a link named the file of @fd @path (@len bytes): if it had no name,
 * the descriptor's path is that one from now on */
void rec_fd_linked(struct rec_task *t, int fd, const char *path, uint32_t len);
int rec_fd_unshare(struct rec_task *t);
void rec_fd_exec(struct rec_task *t);
void rec_fd_rename(struct rec_task *t, const char *from, uint32_t flen,
		   const char *to, uint32_t tlen);
int rec_fs_set_cwd(struct rec_task *t, const char *cwd);
int rec_fs_set_root(struct rec_task *t, const char *root);
int rec_mm_add(struct rec_task *t, uint64_t addr, uint64_t len);
int rec_mm_del(struct rec_task *t, uint64_t addr, uint64_t len);
/* @return : 1 if [addr, addr+len) overlaps a recorded file mapping */
int rec_mm_has(const struct rec_task *t, uint64_t addr, uint64_t len);
/* the recorded mapping that started at @from starts at @to, @len long */
void rec_mm_move(struct rec_task *t, uint64_t from, uint64_t to, uint64_t len);
void rec_mm_exec(struct rec_task *t);

/* ---- tracee_mem.c: strings and structs from the tracee ---- */
/* read a NUL-terminated string at @addr of @tid into @buf (@cap bytes)
 * @return : its length, or -errno */
ssize_t rec_read_str(pid_t tid, uint64_t addr, char *buf, size_t cap);
/* subvol.c: btrfs's subvolume ioctls (iot_subvol_call()).
 * rec_subvol_read() : the struct at @ptr of thread @tid: its flags and fd
 * into *@flags, *@src, its name into @name.  @return : the name's length,
 * or -errno (not readable, a destroy by id).  rec_subvol_path() : @name
 * joined with @dirfd's directory (NULL: not known, or not a plain name).
 * rec_subvol_entry() : the event's arguments and paths at its entry
 * (@args: the registers, or a view's record).  @return : 1 if it has its
 * path.  rec_subvol_states() : the states of its paths, taken at bpf's
 * guard, before the call. */
ssize_t rec_subvol_read(pid_t tid, uint32_t req, uint64_t ptr, int64_t *flags, int64_t *src,
			char *name, size_t cap);
char *rec_subvol_path(const struct rec_task *t, int64_t dirfd, const char *name, int64_t t_enter,
		      uint32_t *len);
int rec_subvol_entry(struct rec_ctx *c, struct rec_task *t, const uint64_t *args);
void rec_subvol_states(struct rec_ctx *c, struct rec_task *t, const uint64_t *args);
ssize_t rec_read_mem(pid_t tid, uint64_t addr, void *buf, size_t len);
/* The descriptors the SCM_RIGHTS messages of the struct msghdr at @msg
 * in @tid carry (at a sendmsg's entry or exit, at a recvmsg's exit), up
 * to @max of them into @fds (-1 for one not readable).  @return : how
 * many they carry, 0 for none or an unreadable header. */
int rec_read_msg_fds(pid_t tid, uint64_t msg, int32_t *fds, int max);
/* the socket address of @alen bytes at @addr of @tid (bind, connect):
 * *@family its sa_family (-1 unreadable); an AF_UNIX one's path into
 * @buf.  @return : the path's length, 0 for none (another family, an
 * abstract name, no path), or -errno */
ssize_t rec_read_sun_path(pid_t tid, uint64_t addr, uint64_t alen, char *buf,
			  size_t cap, int64_t *family);
/* the bytes the write-family call of @sc with register arguments @args
 * asks to write are all zeros: read from @tid's memory, at most
 * FP_ZERO_MAX of them (tracee_mem.c) */
int rec_wbuf_zero(pid_t tid, const struct iot_syscall *sc, const uint64_t *args);

/* ---- data.c: the bytes writes wrote (--data) ---- */
/* keep the bytes of the write-family call of @t that just returned in
 * its event (t->ev.data), or flag it IOT_EV_NODATA; counted in c->st */
void rec_data_take(struct rec_ctx *c, struct rec_task *t);
/* the bytes async write request @r of @t asks to write (r->a.len), read
 * from @t's memory at its submission: at @addr, or (@vec) in the @cnt
 * iovecs at @addr; into r->data and r->a.data if --data keeps them */
void rec_data_req(struct rec_ctx *c, struct rec_task *t, struct rec_aio_req *r, int vec,
		  uint64_t addr, uint64_t cnt);
/* request @a about to be written: its bytes kept within the caps, or let
 * go and counted not kept; counted in c->st */
void rec_data_aio(struct rec_ctx *c, struct iot_aio *a);

/* ---- decode.c: per-syscall entry ---- */
/* @return : 1 to keep the call (wait for its exit), 0 to drop it */
int rec_decode_entry(struct rec_ctx *c, struct rec_task *t, int nr,
		     const uint64_t *args, int64_t now);

/* ---- decode_exit.c: per-syscall exit, the records written ---- */
void rec_decode_exit(struct rec_ctx *c, struct rec_task *t, int64_t ret,
		     int64_t now);
void rec_emit_unfinished(struct rec_ctx *c, struct rec_task *t, int64_t now);
int rec_emit_process(struct rec_ctx *c, struct iot_process *p);
/* @t made task @tid with @flags (as the kernel did it): its tables, its
 * FORK or THREAD record.  @return : the child (ready), or NULL */
struct rec_task *rec_emit_fork(struct rec_ctx *c, struct rec_task *t, pid_t tid,
			       uint64_t flags, int64_t now);
/* @t ended with wait status @status: its call in flight as unfinished, its
 * EXIT record (CPU times; @rec_ns of them the recorder's own work in it
 * outside its calls, 0: not known); @t is deleted */
void rec_emit_exit(struct rec_ctx *c, struct rec_task *t, int64_t now, int status,
		   int64_t utime_ns, int64_t stime_ns, int64_t rec_ns);

/* ---- aio.c: libaio and io_uring requests and completions ---- */
/* at the entry stop of io_submit, io_uring_enter/register, close:
 * read the requests while the program's memory still holds them */
void rec_aio_entry(struct rec_ctx *c, struct rec_task *t);
/* at the exit, before the event is written (io_setup's context) */
void rec_aio_exit_args(struct rec_ctx *c, struct rec_task *t);
/* after the event was written as event number @event */
void rec_aio_exit(struct rec_ctx *c, struct rec_task *t, uint64_t event);
/* the program mapped @fd at @off to @addr */
/* the program mapped @fd at @off to @addr: @return : 1 if that is one
 * of its rings, 0 if not */
int rec_aio_mmap(struct rec_ctx *c, struct rec_task *t, uint64_t addr, int fd,
		 uint64_t off);
void rec_aio_clear_call(struct rec_task *t);
void rec_aio_proc_gone(struct rec_ctx *c, struct rec_task *t);
void rec_aio_end(struct rec_ctx *c);
void rec_aio_free(struct rec_ctx *c);

/* ---- mmap.c: pages of file mappings ---- */
/* a file mapping was made: @return : 1 if followed, 0 if not (an image,
 * code, anonymous), or -errno */
int rec_fmap_add(struct rec_ctx *c, struct rec_task *t, uint64_t addr, uint64_t len,
		 uint32_t prot, uint32_t flags, int fd, uint64_t off);
/* at the entry of munmap (@munmap) or msync: take the range's pages */
void rec_fmap_entry(struct rec_ctx *c, struct rec_task *t, int munmap);
/* rec_fmap_fork() : @child, forked by @parent without CLONE_VM, has the
 * file mappings of @parent too.  @return : 0 or -ENOMEM. */
int rec_fmap_fork(struct rec_ctx *c, pid_t parent, pid_t child);
/* after the event numbered @event: write the pages taken */
void rec_fmap_emit(struct rec_ctx *c, struct rec_task *t, uint64_t event);
void rec_fmap_clear_call(struct rec_task *t);
void rec_fmap_exec_entry(struct rec_ctx *c, struct rec_task *t);
/* an mremap of @t's mapping (its raw arguments): its pages so far, with
 * the call; then (at its return) the mapping that started at @from
 * followed at @to, @len long */
void rec_fmap_remap_entry(struct rec_ctx *c, struct rec_task *t);
void rec_fmap_move(struct rec_ctx *c, struct rec_task *t, uint64_t from, uint64_t to,
		   uint64_t len);
void rec_fmap_proc_gone(struct rec_ctx *c, struct rec_task *t);
void rec_fmap_free(struct rec_ctx *c);

/* ---- fp_drain.c: the in-process fast path's rings ---- */
/* find the preload library, make the shared memory, set the child's
 * environment up in @env (LD_PRELOAD=..., IOTAPE_FAST_SHM=...).
 * @return : 0, or -errno / -ENOENT (no library) with the fast path off */
int rec_fast_setup(struct rec_ctx *c, const char **why);
void rec_fast_free(struct rec_ctx *c);
/* put the fast path's variables into this (child) process's environment */
void rec_fast_env(struct rec_ctx *c);
/* turn every complete record of every ring into events, in time order */
void rec_fast_drain(struct rec_ctx *c);
/* @tid is gone (exit, exec, death; @status: how it ended, a wait status,
 * 0 if it did not): drain, emit its call in flight as unfinished, free
 * its slots */
void rec_fast_release(struct rec_ctx *c, pid_t tid, int status);
/* a vfork child of @t runs (@on) or is done: rings are held meanwhile */
void rec_fast_hold(struct rec_ctx *c, struct rec_task *t, int on);
/* is @nr/@args the ring-full no-op? */
int rec_fast_is_flush(const struct rec_ctx *c, int nr, const uint64_t *args);
const char *rec_fast_lib(const struct rec_ctx *c);
/* @t is about to unmap or map over a range: if it holds the rings, turn
 * its library off first */
void rec_fast_unmapping(struct rec_ctx *c, struct rec_task *t, uint64_t addr,
			uint64_t len);
/* ... the same, with @drain_first (or none) before the library is turned
 * off: the bpf backend's guard, which has drained already */
void rec_fast_switch_off(struct rec_ctx *c, struct rec_task *t, uint64_t addr, uint64_t len,
			 void (*drain_first)(struct rec_ctx *));
/* process @pid's image is gone (exec, death): forget where it mapped */
void rec_fast_proc_gone(struct rec_ctx *c, pid_t pid);
/* the stub's instruction pointer for the seccomp filter (0: off) */
uint64_t rec_fast_ip(const struct rec_ctx *c);
/* the bpf backend's rounds: the records entered before @cut, merged by
 * the caller with its own (peek: the next one's entry time); @dead the
 * threads that ended, with how (@status) and the call each was leaving
 * + 1 and its result (@left, in pairs: be_gone's) */
size_t rec_fast_gather(struct rec_ctx *c, uint64_t cut, const pid_t *dead,
		       const int *status, const int64_t *left, size_t ndead);
int rec_fast_peek(const struct rec_ctx *c, uint64_t *t_enter);
void rec_fast_decode_next(struct rec_ctx *c);
void rec_fast_gather_end(struct rec_ctx *c);
void rec_fast_release_before(struct rec_ctx *c, pid_t tid, uint64_t t, int proc);

/* ---- bpf_uring.c: io_uring under the bpf backend ---- */
/* a BE_URING_* record of the programs */
void rec_bpf_uring_record(struct rec_ctx *c, const void *data, size_t size);
/* before @t's io_uring_enter or io_uring_register is decoded at its
 * exit: the ring records that came in it join the call's */
void rec_bpf_uring_call(struct rec_ctx *c, struct rec_task *t);
/* after it: what SQPOLL rings of its process took since goes with the
 * event of @t's call, if one was written (@events: the count before) */
void rec_bpf_uring_polled(struct rec_ctx *c, struct rec_task *t, uint64_t events);
/* io_uring's programs loaded and attached, once, at the guard's stop of a
 * followed task's first io_uring_setup.  @return : 0, or -errno (said
 * once; its rings' enters are counted unknown) */
int rec_bpf_uring_load(struct rec_ctx *c);
/* libaio's programs (bpf_aio.c) loaded, once, at the guard's stop of a
 * followed task's first io_setup.  @return : 0, or -errno (said once;
 * its requests are then not recorded) */
int rec_bpf_aio_load(struct rec_ctx *c);

/* ---- bpf.c, bpf_drain.c, bpf_calib.c: the BPF backend (record/bpf/) ---- */
/* load and attach the programs (@why: what failed, for the user).
 * @return : 0, or -errno with c->bpf NULL */
int rec_bpf_setup(struct rec_ctx *c, const char **why);
/* the same, in a thread: c->bpf is set at once (the recorder goes on as
 * for bpf), and rec_bpf_wait() says whether the load worked: it must
 * before the programs are used (rec_bpf_follow()).  @return : 0, or
 * -errno with nothing started (c->bpf NULL) */
int rec_bpf_start(struct rec_ctx *c);
/* @return : 0 when the programs are loaded and attached, or -errno with
 * @why set (c->bpf stays, for rec_bpf_free()) */
int rec_bpf_wait(struct rec_ctx *c, const char **why);
/* returns once the programs are in the kernel, before their attach (or
 * once their load failed: rec_bpf_wait() says so) */
void rec_bpf_wait_loaded(struct rec_ctx *c);
/* the programs, maps and ring let go in a thread, once every followed
 * task is gone (after rec_bpf_loop()); rec_bpf_free() waits for it */
void rec_bpf_unload_start(struct rec_ctx *c);
void rec_bpf_free(struct rec_ctx *c);
/* follow @pid (the program, before it runs) */
int rec_bpf_follow(struct rec_ctx *c, pid_t pid);
/* what the BPF programs add to a gap between two calls, measured once
 * they were attached (bpf_calib.c's rec_bpf_calib_start()), in ns; -1: not measured */
int64_t rec_bpf_gap_ns(struct rec_ctx *c);
/* drain the ring until every followed task is gone */
int rec_bpf_loop(struct rec_ctx *c);
/* NULL, or why this build has no bpf backend */
const char *rec_bpf_missing(void);
/* the guard's listener (bpf_guard.c), taken from the program's start */
void rec_bpf_set_guard(struct rec_ctx *c, int fd);

/* ---- bpf_guard.c: the stop before a call that removes or truncates ---- */
/* in the child: the filter; @return : its listener fd, or -errno */
int rec_guard_install(int fast);
/* the filter alone, into @f (room for @max instructions): its length, or
 * -E2BIG (record/bpf_calib.c's measuring child runs under it, as the program) */
struct sock_filter;
int rec_guard_filter(struct sock_filter *f, size_t max, int fast);
/* may call @nr stop in the guard's filter (@fast: with the fast path)? */
int rec_guard_may_stop(int nr, int fast);
/* the listener @child_fd of @child, as a descriptor of the recorder */
int rec_guard_take(pid_t child, int child_fd);
/* answer one notification on @fd: @drain the ring, take the states of
 * the call's paths, let it run.  @return : 0, or -errno */
int rec_guard_serve(struct rec_ctx *c, int fd, void (*drain)(struct rec_ctx *));

/* ---- tracer.c: the stop loop ---- */
int rec_trace_loop(struct rec_ctx *c);
int rec_attach(struct rec_ctx *c, pid_t pid);
/* @sig, or'ed with REC_SIG_FROM_TTY when the terminal sent it (and so
 * already reached the program's process group) */
#define REC_SIG_FROM_TTY 0x1000
void rec_request_stop(int sig);
/* the signal rec_request_stop() got (0: none) and whether a tick came
 * (*@tick), both cleared: for loops other than the stop loop */
int rec_take_request(int *tick);

/* ---- cpu.c: the CPU policy (--cpu) ---- */
/* @t stopped for a recorded call at @now: two programs at once? */
void rec_cpu_watch_stop(struct rec_ctx *c, struct rec_task *t, int64_t now);
/* @t exec'd: another program running beside it? */
void rec_cpu_watch_exec(struct rec_ctx *c, struct rec_task *t);
/* each tick: move a pinned pair off a busy CPU */
void rec_cpu_rebalance(struct rec_ctx *c);

/* ---- output.c: the trace file ---- */
struct rec_out {
	const char *path;		/* the trace's name (-o) */
	char *tmp;			/* written here until rec_out_commit(); NULL: path */
	int created;			/* path did not exist: removed by rec_out_discard() */
};
/* open the trace to write, leaving an existing one as it is until
 * rec_out_commit().  @return : a descriptor, or -errno */
int rec_out_open(struct rec_out *ro, const char *path);
/* the program runs: the trace takes its name.  @return : 0, or -errno
 * with the trace left at ro->tmp */
int rec_out_commit(struct rec_out *ro);
/* the program never ran: remove what rec_out_open() made */
void rec_out_discard(struct rec_out *ro);
void rec_out_free(struct rec_out *ro);

/* ---- summary.c: what the recorder says at the end ---- */
/* the summary line; @bytes: the trace's size */
void rec_summary(const struct rec_ctx *c, uint64_t bytes);
/* -q: only the events dropped, if any */
void rec_summary_quiet(const struct rec_ctx *c);
/* how the recording ended if a signal ended it (@sig: the recorder's, 0:
 * none), or the program was killed */
void rec_summary_end(const struct rec_ctx *c, int sig);

/* stamps.c: IOTAPE_RECORD_STAMPS=FILE, the recorder's wall and CPU time
 * at a point of its start or end (@name: a string that outlives the
 * recording), or a time taken from a record; written to FILE by
 * rec_stamps_write() at the end */
void rec_stamp(const char *name);
void rec_stamp_at(const char *name, uint64_t wall_ns);
void rec_stamps_write(void);
/* the trace @path could not be written to the end (@err): what it holds */
void rec_write_failed(const struct rec_ctx *c, const char *path, int err);

/* ---- setup.c: seccomp filter, calibration, header ---- */
/* @fast_ip: the fast path's stub address whose calls run untraced, or 0 */
struct sock_filter;
/*! rec_seccomp_filter() : the filter rec_seccomp_install() installs, into
 *  @f (room for @max instructions): every row of the syscall table stops
 *  the tracee, but calls from the fast path's stub at @fast_ip (0: none).
 *  @return : its length, or -E2BIG. */
int rec_seccomp_filter(struct sock_filter *f, size_t max, uint64_t fast_ip);
/* a filter's first instructions, into @f: calls of ABIs other than
 * x86_64 (int 0x80, x32) run, unrecorded.  @return : how many (3) */
int rec_filter_arch(struct sock_filter *f);
int rec_seccomp_install(uint64_t fast_ip);
int64_t rec_calibrate(int seccomp, int *seccomp_ok);
int rec_header_fill(struct iot_header *h, const struct rec_opts *o,
		    int seccomp, int64_t stop_cost, char **argv, const char *fastpath,
		    const char *backend);
/* the header's clocks read again (start_ns: the trace's time zero, from
 * which a replay times the program's first call), for a header filled
 * before the recorder was ready to start the program */
void rec_header_clock(struct iot_header *h);
void rec_header_free(struct iot_header *h);
int rec_pin_cpu(int cpu);
int rec_unpin_task(pid_t tid);
int rec_read_cputime(pid_t pid, pid_t tid, int64_t *utime, int64_t *stime);
/* What a stopped call costs the traced thread in CPU time, measured by
 * rec_calibrate(), where CPU times are exact; -1 if unknown. */
int64_t rec_stop_cpu(void);
/* What a traced process's start costs it in CPU time beyond an untraced
 * one's and its stops, measured by rec_calibrate_proc() (after
 * rec_calibrate(), with the same @seccomp, and the fast path's library
 * @preload, NULL if off); -1 if unknown. */
void rec_calibrate_proc(int seccomp, const char *preload);
int64_t rec_proc_cpu(void);

#endif
