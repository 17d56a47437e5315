/*
 * replay.h - the replayer as a library for the replay and bench commands:
 * read a trace, build the starting tree under a root, re-execute the
 * recorded syscalls there with their timing, and write a profile.
 */
#ifndef RPL_REPLAY_H
#define RPL_REPLAY_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

enum rpl_timing {
	RPL_TIMING_ORIGINAL = 0,	/* recorded think time */
	RPL_TIMING_AFAP,		/* no waits */
	RPL_TIMING_SCALE,		/* think time x scale */
	RPL_TIMING_RAW,			/* recorded gaps minus stop_cost_ns only */
};

/* --think: how a think time is spent (spin.c) */
enum rpl_think {
	RPL_THINK_CPU = 0,		/* as CPU time of the replaying thread */
	RPL_THINK_SLEEP,		/* slept */
};

/* Why an op was not replayed (counted per reason). */
enum rpl_skip {
	RPL_SKIP_NONE = 0,
	RPL_SKIP_PSEUDO,	/* /proc, /sys, /dev */
	RPL_SKIP_EXCLUDED,	/* --include/--exclude */
	RPL_SKIP_FD,		/* descriptor not open in replay (inherited, skipped, failed) */
	RPL_SKIP_UNFINISHED,	/* never returned in the recording */
	RPL_SKIP_MMAP,		/* mapped-file I/O */
	RPL_SKIP_UNSUPPORTED,	/* ioctl/fcntl/mknod kinds not replayed */
	RPL_SKIP_NOPATH,	/* the recorder kept no path */
	RPL_SKIP_BADARG,	/* impossible values (negative fd, huge size) */
	RPL_SKIP_CLONED,	/* data moved by a clone that failed when recorded */
	RPL_SKIP_INTERRUPTED,	/* not reached: the replay was interrupted (SIGINT, SIGTERM) */
	RPL_SKIP_XDEV,		/* a copy, rename or link across filesystems when recorded (EXDEV) */
	RPL_SKIP_OTHERFD,	/* an open of another process's descriptor (/proc/PID/fd/N) not found */
	RPL_SKIP_SIGNAL,	/* interrupted by a signal when recorded (EINTR, ERESTART*): no effect */
	RPL_SKIP_DIRFD,		/* failed when recorded, relative to a directory descriptor it did not know */
	RPL_SKIP_REFUSED,	/* refused when recorded by what the replay does not have: a lease (EAGAIN), a size limit (EFBIG) */
	RPL_SKIP_MOUNT,		/* mount, umount2, pivot_root: the replay runs in the replayer's mounts */
	RPL_SKIP_COUNT
};

/* --on-error: what a target fault does (fault.c) */
enum rpl_on_error {
	RPL_ON_ERROR_STOP = 0,	/* stop at the first one; the profile is marked failed */
	RPL_ON_ERROR_CONTINUE,	/* count them and go on (a stress run) */
};

/* Target faults: errors of the filesystem under test, not of the
 * workload (ENOSPC, EDQUOT, EIO, EROFS, ESTALE, ENOTCONN: fault.c). */
#define RPL_FAULT_KINDS 6

/* Above this share of the replayed calls (in percent), mismatches that
 * are no target faults make the summary say the timing may not be
 * representative: the replay then did other work than the recording. */
#define RPL_MISMATCH_WARN_PCT 1.0

struct rpl_opts {
	const char *trace;		/* input trace */
	const char *root;		/* directory to replay under */
	const char *out;		/* profile to write, or NULL */
	int timing;			/* enum rpl_timing */
	double scale;			/* RPL_TIMING_SCALE */
	int think;			/* enum rpl_think */
	int verify;			/* mismatches make rpl_run() report failure */
	int force;			/* accept a non-empty root */
	int no_prepare;			/* the tree is already there */
	int prepare_only;		/* stop after building the tree */
	const char *label, *mkfs;	/* stored in the profile header */
	const char *const *include;	/* path prefixes; none = everything */
	size_t n_include;
	const char *const *exclude;
	size_t n_exclude;
	int progress;			/* draw a progress line on stderr */
	int quiet;			/* no warnings on stderr */
	const char *cmd;		/* command name for messages ("replay") */
	int on_error;			/* enum rpl_on_error */
	int sparse_prepare;		/* a tree that does not fit is made sparse */
	/* Process starts: each successful execve starts a program that
	 * ends at once, natively, and waits for it (spawn.c). */
	int starts;
	/* called once the starting tree is there, before the first call:
	 * where many clients start together (clients.c); a negative return
	 * ends the replay there with that code */
	int (*start)(void *arg);
	void *start_arg;
	int clients;			/* --clients N: N copies at once (0 = 1) */
	/* a plan rpl_plan_new() built, replayed instead of planning again
	 * (NULL: rpl_run() plans @trace itself) */
	struct rpl_plan *plan;
	int fit;			/* enum rpl_fit */
	/* --events N: replay only the trace's first N events (file order),
	 * with the path states and records before the next one, as if the
	 * file ended there (0: all) */
	uint64_t max_events;
	/* chunks a thread of the reader decodes ahead while the plan reads
	 * the trace (iot_reader_set_ahead(); 0: none, one CPU) */
	int read_ahead;
};

/* Whether the starting tree fits the root: checked by rpl_run() itself,
 * or once for every client by the caller (rpl_plan_fit()), since a
 * client checking on its own would count the trees the others are
 * making at that moment. */
enum rpl_fit {
	RPL_FIT_CHECK = 0,		/* rpl_run() checks it */
	RPL_FIT_FITS,			/* checked: it fits */
	RPL_FIT_SPARSE,			/* checked: it does not; --sparse-prepare */
};

#define RPL_MAX_NR 512

struct rpl_sc_stat {
	uint64_t ops, replayed, skipped, mismatches, probe_diffs;
	uint64_t unsupported;		/* skipped as calls the replay does not make */
	int64_t time_ns;
};

struct rpl_result {
	int64_t prepare_ns, elapsed_ns;
	int64_t first_call_ns;		/* from the start (reading the trace) to the first call */
	uint64_t ops, replayed, skipped;
	uint64_t events_in_trace;	/* --events: how many the trace has */
	uint64_t dropped_in_trace;	/* events the recorder lost, as its index says */
	uint64_t skipped_by[RPL_SKIP_COUNT];
	uint64_t mismatches;		/* beyond the capability probes */
	uint64_t probe_diffs;		/* FICLONE, fallocate modes, copy_file_range EXDEV */
	uint64_t ordering_violations;
	uint64_t deadlock_breaks;	/* dependency waits given up (hostile traces) */
	uint64_t mmap_calls;
	/* async I/O: requests (iocbs, SQEs) in the trace, replayed, not
	 * replayed (and the opcodes of those, a bit each, io_uring's
	 * numbering in uring_skip_ops, libaio's in aio_skip_ops), results
	 * that differed; completions recorded and reaped */
	uint64_t aio_requests, aio_replayed, aio_skipped, aio_mismatches;
	uint64_t aio_skip_ops, uring_skip_ops;
	uint64_t aio_rec_completions, aio_completions;
	uint64_t aio_rbytes, aio_wbytes;
	/* requests in flight (aio_depth.c): the time each was in flight
	 * within its ring's first and last submission, summed (ns), and
	 * those spans summed, recorded and replayed; io_uring waits for
	 * completions, and the requests in flight at their start, summed */
	double aio_rec_area, aio_rpl_area;
	int64_t aio_rec_span_ns, aio_rpl_span_ns;
	uint64_t aio_waits_rec, aio_waits_rec_depth, aio_waits_rpl, aio_waits_rpl_depth;
	uint64_t aio_waits_below;	/* ... of the replayed, those that took the ring
					 * below the depth the recorded wait left */
	/* pages of file mappings: records, bytes read and written, records
	 * (and their bytes) not replayed */
	uint64_t mp_records, mp_rbytes, mp_wbytes, mp_skipped, mp_skipped_bytes;
	/* sleeps, polls, selects, epoll_waits (ops_wait.c): those that timed
	 * out slept their recorded time (waits_ns in all); those that
	 * returned for an event were left to the ordering */
	uint64_t waits_slept, waits_left;
	int64_t waits_ns;
	/* ... and those that timed out polling for a child's end (a wait4
	 * WNOHANG found it running after them), not slept: it had ended */
	uint64_t waits_polled;
	int64_t waits_polled_ns;
	/* gaps in which the recorded thread slept on a disk (slept_ns, bpf
	 * recordings), slept again on top of their think time */
	uint64_t gap_sleeps;
	int64_t gap_slept_ns;
	/* `record --data`: writes replayed with the program's own bytes
	 * (and those bytes), writes recorded with --data whose bytes were
	 * not kept (replayed with the pattern) */
	uint64_t data_ops, data_bytes, nodata_ops;
	/* think time (timed modes): planned in all, what the CPU budget
	 * took off the gaps, spent as CPU time (and the wall time that
	 * took), waited for by the clock; yields of spinning threads to the
	 * replay's process starts and wakes (spin.c) */
	int64_t think_ns, think_cut_ns, spun_ns, spin_wall_ns, think_wait_ns;
	int64_t spin_offcpu_ns;		/* of spun_ns: off the CPU from a call's end to its spin */
	uint64_t spin_yields;
	/* ops that waited for other threads' ops (resource order), and
	 * how long, from the end of their thread's previous call */
	uint64_t dep_waits;
	int64_t dep_wait_ns;
	uint64_t starts;		/* execs replayed as process starts (spawn.c) */
	int64_t starts_ns;		/* ... their time */
	uint64_t forks_only;		/* processes that made no exec: their fork is not replayed */
	uint64_t wakes;			/* ops after the call of another thread that woke theirs (wakes.c) */
	uint64_t call_wakes;		/* calls that returned when another thread woke them,
					 * after that thread's call before (wakes.c) */
	uint64_t gap_wakes;		/* ops another thread woke from a sleep in their gap,
					 * after that thread's call before (wakes.c) */
	uint64_t gap_wakes_new;		/* ... of them not so ordered already */
	uint64_t idle_wakes;		/* gaps woken by a thread without a call, kept */
	int64_t idle_kept_ns;		/* ... for so much of its CPU time */
	/* woken ops (wakes, gap wakes) that come as long after their
	 * waker's call as recorded; those that waited for it, how long */
	uint64_t wake_lags, wake_lag_waits;
	int64_t wake_lag_ns;
	int wake_lag_scaled;		/* ... scaled as their waker's gap is (wakes.c) */
	/* loops of sleeps polling for other threads' ends (polls.c), their
	 * rounds; the rounds not slept, the threads having ended here */
	uint64_t poll_loops, poll_rounds, poll_cut;
	int64_t poll_cut_ns;
	uint64_t start_fails;		/* process starts that could not be made */
	uint64_t exits;			/* reaps kept their child's recorded exit (ops_proc.c) */
	int64_t exits_ns;		/* ... waited for so */
	uint64_t pipe_gaveup;		/* pipe reads and writes whose other end never came */
	uint64_t conn_gaveup;		/* accepts whose connection never came (ops_sock.c) */
	uint64_t fifo_alone;		/* FIFO writers' opens whose reader did not come in
					 * time: opened read-write (ops_file.c) */
	uint64_t fd_links;		/* opens of /dev/fd/N and the like that opened the
					 * replayed descriptor (ops_file.c) */
	/* credentials (creds.c): RPL_CREDS_* of the run (rpl.h); threads
	 * that ran as another user, the set*id calls that changed a
	 * thread's, and the threads that ran as the replayer instead */
	int creds;
	uint64_t creds_threads, creds_calls, creds_not_taken;
	/* btrfs's subvolume calls: made as subvolumes, emulated (not on
	 * btrfs), and read-only snapshots of these left writable */
	uint64_t subvols_made, subvols_emulated, subvols_rdonly;
	/* masks (umask.c): followed or not; the first process's (from the
	 * header if @umask_known); umask calls replayed; threads that kept
	 * the replayer's */
	int umask_on, umask_known;
	uint32_t umask0;
	uint64_t umask_calls, umask_not_taken;

	uint64_t threads, processes;
	int64_t late_p50_ns, late_p99_ns, late_max_ns;
	/* the replayer's own work no think time could hide (timed modes):
	 * in all threads, and in the thread with the most */
	int64_t unhidden_ns, unhidden_max_ns;
	uint64_t df_used_bytes;
	uint64_t prep_dirs, prep_files, prep_links, prep_symlinks, prep_bytes;
	uint64_t prep_kept;		/* regular files found as recorded, kept (prepare.c) */
	/* extended attributes of the starting tree made; not made (a name
	 * of the host's security modules, or the filesystem refused) */
	uint64_t prep_xattrs, prep_xattrs_not;
	/* chattr's flags set on the starting tree's files, and not */
	uint64_t prep_attr_flags, prep_attr_flags_not;
	/* device nodes of the starting tree made; of them with no driver
	 * (rpl_dev_standin()); not made (not root) */
	uint64_t prep_devs, prep_devs_nodrv, prep_devs_not;
	/* files a walk opened under a directory listed here; those opened
	 * after one this filesystem lists later (dirwalk.c) */
	uint64_t walk_opens, walk_back;
	/* directory walks replayed in this filesystem's listing order, and
	 * the entries they took so (dirwalk.c) */
	uint64_t walk_dirs, walk_moved;
	uint64_t walk_runs, walk_run_moved;	/* ... their names given by path, by other processes too */
	/* directory listings (verify, listings.c): those that returned the
	 * recorded bytes in all, some of their getdents calls not (another
	 * order), and those calls; those whose bytes in all differ (entries
	 * missing or added: their calls are mismatches) */
	uint64_t listings_reordered, listing_calls, listings_differ;
	int damaged;			/* the trace was cut short: its complete part was used */
	int open_err;			/* iot_reader_open()'s code if the trace did not open */
	int interrupted;		/* the signal that stopped the replay, or 0 */
	int plan_only;			/* IOTAPE_REPLAY_PLAN=only: it stopped after the plan */
	/* target faults the recording did not have (fault.c): calls that
	 * failed so, per kind; the first one as text ("ENOSPC at 41 % (write
	 * /a/b at 1.234 s)"), and whether it stopped the replay */
	uint64_t target_faults, target_by[RPL_FAULT_KINDS];
	char fault[320];
	int fault_stopped, fault_unmounted, fault_errno;
	/* prepare: the starting tree's file data and the root's free space
	 * (rpl_prepare_fit()); tree_too_big when it did not fit */
	uint64_t tree_bytes, root_free_bytes;
	int tree_too_big, tree_sparse;
	int tree_copies;		/* trees in tree_bytes (clients): 0 or 1, one */
	struct rpl_sc_stat sc[RPL_MAX_NR];
	int n_examples;			/* the first mismatches, as text */
	char examples[8][320];
};

/*! rpl_run() :
 *  Plan, prepare and replay @o->trace under @o->root, then write the
 *  profile @o->out.  Messages go to the sink of engine.h, for @o->cmd.
 *  @return : 0 when done (see @res for mismatches and damage), or a
 *            negative code after a message, but for a trace that does
 *            not open: then @res->open_err says why, for the command to
 *            say. */
int rpl_run(const struct rpl_opts *o, struct rpl_result *res);

/* ---- a plan built once, replayed by many (clients.c, iotape-mpi) ---- */

struct rpl_plan;

/*! rpl_plan_new() : plan @o->trace into *@p and say what the plan found
 *  (damage, unused --include/--exclude, think times cut), once.  Then
 *  rpl_run() with opts.plan = *@p replays it without planning again:
 *  each run uses the plan up (its times, results and buffers are written
 *  into it, and freed at its end), so a plan is replayed once per
 *  process, e.g. by processes forked after this (clients.c: they share
 *  its pages copy-on-write).  @return : 0, or a negative code after a
 *  message, but for a trace that does not open (@res->open_err). */
int rpl_plan_new(const struct rpl_opts *o, struct rpl_plan **p, struct rpl_result *res);
void rpl_plan_delete(struct rpl_plan *p);

/*! rpl_plan_fit() : will @copies starting trees of @p fit the filesystem
 *  of @o->root (every client's on one filesystem)?  Sets @res->tree_bytes
 *  (all copies') and @res->root_free_bytes.  @return : RPL_FIT_FITS (or
 *  nothing is known: prepare finds out), RPL_FIT_SPARSE (they do not, and
 *  --sparse-prepare), or -ENOSPC with @res->tree_too_big set
 *  (rpl_print_tree_too_big() says it). */
int rpl_plan_fit(const struct rpl_plan *p, const struct rpl_opts *o, int copies,
		 struct rpl_result *res);

/* ---- many clients (clients.c, merge.c) ---- */

#define RPL_MAX_CLIENTS 256
/* Client i's pids and tids in a profile of many clients: its own plus
 * i x this (PID_MAX_LIMIT: no recorded pid reaches it; FORMAT.md). */
#define RPL_CLIENT_PID_STRIDE 4194304

/*! rpl_run_clients() :
 *  rpl_run() @o->clients times at once, in as many processes, client i
 *  under @o->root/client-i, all starting together once each has made its
 *  starting tree; then one profile @o->out of all (rpl_profiles_merge()).
 *  A client that fails or is killed is named (engine.h's sink); one
 *  killed stops the others.  @total : the sums (rpl_result_add()).
 *  @return : 0, -ECHILD (a client was killed), -ECANCELED (the clients
 *            were stopped before they started), or a client's code. */
int rpl_run_clients(const struct rpl_opts *o, struct rpl_result *total);

/*! rpl_root_open_msg() : open @o->root as the replay root (empty unless
 *  --force or --no-prepare), saying why not (engine.h's sink).
 *  @return : an O_PATH descriptor, or a negative code. */
int rpl_root_open_msg(const struct rpl_opts *o);

/* What `iotape replay` runs instead of rpl_run(), if set: iotape-mpi
 * (mpi/) sets it so that each MPI rank is one client of the run. */
extern int (*rpl_team_run)(const struct rpl_opts *o, struct rpl_result *res);

struct iot_reader;
/*! rpl_profiles_merge() :
 *  Write @out from the profiles @in[0 .. @n) of clients 0 .. n-1 (NULL:
 *  that client made none): client i's pids plus i x RPL_CLIENT_PID_STRIDE,
 *  its times moved onto the first one's start, the header's replay keys
 *  from @total, and replay.clients = @n.  @return : 0 or a negative code
 *  after a message for @cmd. */
int rpl_profiles_merge(const char *out, struct iot_reader **in, int n,
		       const struct rpl_result *total, const char *cmd);

/*! rpl_result_add() : add client @client's result @r to the sums @t
 *  (maxima for times; its first fault and mismatches named by client). */
void rpl_result_add(struct rpl_result *t, const struct rpl_result *r, int client);

/*! rpl_print_summary() : write the end-of-run summary of @res to @f. */
void rpl_print_summary(FILE *f, const struct rpl_opts *o, const struct rpl_result *res);

/*! rpl_print_fault() : say (engine.h's sink) which target fault stopped the
 *  replay (@res->fault_stopped), where, and what to do. */
void rpl_print_fault(const struct rpl_opts *o, const struct rpl_result *res);
/*! rpl_print_tree_too_big() : say (engine.h's sink) that the starting tree does
 *  not fit the root (@res->tree_too_big): how much, and what to do. */
void rpl_print_tree_too_big(const struct rpl_opts *o, const struct rpl_result *res);
/*! rpl_print_fault_summary() : the summary's lines on target faults, a
 *  sparse tree and a mismatch rate above RPL_MISMATCH_WARN_PCT, to @f. */
void rpl_print_fault_summary(FILE *f, const struct rpl_opts *o, const struct rpl_result *res);

/*! rpl_skipped_by() : "reason N, reason N" of the calls @res skipped
 *  (the profile's replay.skipped_by), into @buf (@len), the interrupted
 *  left out (not in a profile).  @return : its length, 0 if none (or no
 *  room). */
size_t rpl_skipped_by(const struct rpl_result *res, char *buf, size_t len);
/*! rpl_skip_name() : @return : a short name of skip reason @why. */
const char *rpl_skip_name(int why);

/*! rpl_fault_errno() : @return : the errno of target fault kind @kind
 *  (0 .. RPL_FAULT_KINDS - 1), or 0. */
int rpl_fault_errno(int kind);

/*! rpl_fault_counts() : "1234 (ENOSPC 1200, EIO 34)": the calls of @res
 *  that failed with a target fault, per kind. */
void rpl_fault_counts(const struct rpl_result *res, char *buf, size_t len);

/*! rpl_clear_attr_flags() : chattr's append-only and immutable flags off
 *  entry @name of @dirfd (AT_FDCWD: a path; NULL: @dirfd itself, a
 *  directory, O_PATH or not, or a file opened for reading), if it is a
 *  file or directory that has them, so that it can be written or
 *  removed; a tree a replay left is cleared so (prep_flags.c, bench). */
void rpl_clear_attr_flags(int dirfd, const char *name);

/*! rpl_tree_need() : plan @o->trace and @return : 0 with *@bytes set to
 *  the file data its starting tree needs (what prepare writes), or a
 *  negative code after a message.  bench sizes its images from it. */
int rpl_tree_need(const struct rpl_opts *o, uint64_t *bytes);

#endif
