/*
 * rpl_plan.h - the replayer's plan: its ops, threads, processes and
 * their fields (rpl.h's part on the plan).
 * Included by rpl.h only, at its place there (what comes before it in
 * rpl.h is in scope).
 */
#ifndef RPL_RPL_PLAN_H
#define RPL_RPL_PLAN_H

/* ---- the plan ---- */

#define RPL_OPF_MISMATCH 0x01
#define RPL_OPF_PROBE	 0x02	/* a capability probe that differed */
#define RPL_OPF_VIOLATION 0x04
#define RPL_OPF_ORDER_ENTER 0x08 /* plan: resource order from its entry (plan_fds.c) */
#define RPL_OPF_NODIR	 0x10	/* a rename known to move no directory (moves.c) */
#define RPL_OPF_CHILD	 0x20	/* op.link: the thread it starts */
#define RPL_OPF_WAITS	 0x40	/* op.link: the process it waits for */
#define RPL_OPF_WAITT	 0x80	/* op.link: the thread whose end it polls for */
/* plan, from plan_read.c to clean.c only: a path of it has "/." or "//"
 * (rpl_intern()); cleared there, so the bit is free for the run's
 * RPL_OPF_MISMATCH (set by profile.c after the run) */
#define RPL_OPF_DOTS	 RPL_OPF_MISMATCH
/* an open whose path names another process's descriptor (/proc/PID/fd/N):
 * op.link is that process (plan_fds.c; rpl_op_fd_proc()); the bit is
 * RPL_OPF_NODIR's, which only renames have */
#define RPL_OPF_FDPROC	 RPL_OPF_NODIR
/* a write into a pipe whose read ends had all closed, as the plan counts
 * them, that succeeded when recorded: the replay gives it a read end
 * (plan_pipes.c rpl_reader_gone()); the bit is RPL_OPF_NODIR's too */
#define RPL_OPF_LATE_READER RPL_OPF_NODIR
/* a connect or accept of a connection known by its connecting socket:
 * op.link indexes plan.connq (plan_socks.c conn_take()); the bit is
 * RPL_OPF_NODIR's too */
#define RPL_OPF_CONNQ RPL_OPF_NODIR

/* Resources an op can be ordered on: path, its parent, path2, its
 * parent, two open files, and in a table threads share the descriptor
 * numbers it uses or makes (more are dropped: rpl_plan_fds()). */
#define RPL_MAXRES 8

/* The longest think time replayed: a longer gap (a trace claiming hours
 * of idleness between two calls) is cut to this. */
#define RPL_THINK_MAX (60LL * 1000000000LL)

/* An event as the plan keeps it: the fields of struct iot_event, by the
 * same names, packed into 96 bytes instead of 128 (the plan holds one
 * per event of the trace).  A syscall number beyond int16 becomes -1 (no
 * syscall: not replayed); flags keep IOT_EV_*'s low byte.  The paths end
 * in NUL (no lengths); the pid is its thread's; pre_ns, cpu_ns,
 * slept_ns and woke_ns are columns of the plan, kept only if the trace
 * has them. */
struct rpl_ev {
	int64_t t_enter, t_exit;
	int64_t ret;
	int64_t args[IOT_MAX_ARGS];
	const char *path, *path2;	/* NUL-terminated: no lengths kept */
	int32_t tid;			/* pid: its thread's (rpl_thread.pid) */
	int16_t nr;
	uint8_t flags;
	uint8_t nargs;
};

/* rpl_msg_fds() : the descriptors a sendmsg or recvmsg @ev passed (up
 * to IOT_MSG_FDS_MAX into @fds; plan_socks.c).  @return : how many its
 * message carried, 0 for none. */
int rpl_msg_fds(const struct rpl_ev *ev, int32_t *fds);

/* rpl_ev_pack() : @e as the plan keeps it (strings not copied). */
void rpl_ev_pack(struct rpl_ev *d, const struct iot_event *e);
/* rpl_ev_unpack() : @d, of a thread of process @pid, as a struct
 * iot_event again. */
void rpl_ev_unpack(struct iot_event *e, const struct rpl_ev *d, int32_t pid);

struct rpl_op {
	struct rpl_ev ev;		/* as recorded; strings in the plan arena */
	int64_t think_ns;		/* recorded gap before it in its thread */
	uint32_t seq;			/* position in the file (sort tie-break) */
	uint32_t thread;		/* index in plan.threads */
	uint32_t dep_off;		/* deps in plan.deps[dep_off ...] */
	/* RPL_OPF_CHILD: the thread this clone starts; RPL_OPF_WAITS: the
	 * process this wait4 reaps, or this sleep polls for (plan_threads.c);
	 * RPL_OPF_WAITT: the thread this sleep polls for (polls.c).  One
	 * field for all: read them with rpl_op_child(), rpl_op_wait_proc()
	 * and rpl_op_wait_thread() */
	uint32_t link;
	uint32_t aio_off;
	uint32_t mp_off;
	uint16_t n_aio;			/* its async requests: plan.aio[aio_off ...] */
	uint16_t n_mp;			/* pages of mappings: plan.mp[mp_off ...] */
	uint8_t ndeps;			/* at most RPL_DEPS_MAX (deps.c) */
	uint8_t skip;			/* enum rpl_skip */
	uint8_t rflags;			/* RPL_OPF_* */
	uint8_t needed;			/* an op of another thread waits for it */
};
/* the thread clone op @op starts, or -1 */
static inline int32_t rpl_op_child(const struct rpl_op *op)
{
	return op->rflags & RPL_OPF_CHILD ? (int32_t)op->link : -1;
}

/* the process wait4 op @op reaps, or sleep op @op polls for, or -1 */
static inline int32_t rpl_op_wait_proc(const struct rpl_op *op)
{
	return op->rflags & RPL_OPF_WAITS ? (int32_t)op->link : -1;
}

/* the thread whose end sleep op @op polls for, or -1 */
static inline int32_t rpl_op_wait_thread(const struct rpl_op *op)
{
	return op->rflags & RPL_OPF_WAITT ? (int32_t)op->link : -1;
}

static inline void rpl_op_set_link(struct rpl_op *op, uint8_t flag, uint32_t v)
{
	op->rflags = (uint8_t)((op->rflags & ~(RPL_OPF_CHILD | RPL_OPF_WAITS | RPL_OPF_WAITT)) |
			       flag);
	op->link = v;
}

/* the process whose descriptor @op, an open, names (/proc/PID/fd/N), or -1 */
static inline int32_t rpl_op_fd_proc(const struct rpl_op *op)
{
	return (op->rflags & (RPL_OPF_FDPROC | RPL_OPF_CHILD | RPL_OPF_WAITS | RPL_OPF_WAITT)) ==
	       RPL_OPF_FDPROC ? (int32_t)op->link : -1;
}

/*! rpl_path_fd() : the descriptor the path of open op @op names, where
 *  the program named one instead of a file: its own descriptor N, kept
 *  as 1 + N in the path argument (record/decode.c: /proc/self/fd/N of a
 *  file, whose path the recorder wrote in its place), or a path the
 *  recorder kept as written (a pipe's, or a link to a descriptor it
 *  does not follow): /proc/self/fd/N, /proc/thread-self/fd/N,
 *  /proc/PID/fd/N, /dev/fd/N, /dev/stdin, /dev/stdout, /dev/stderr.
 *  *@pid : PID of /proc/PID/fd/N (perhaps its own), else 0.
 *  @return : N, or -1 (a path of its own). */
int64_t rpl_path_fd(const struct rpl_op *op, int32_t *pid);

/* the plan holds one per event; what the replay measured of it is not
 * kept here but in its thread's outcomes (outcome.c) */
_Static_assert(sizeof(struct rpl_op) == 136, "struct rpl_op grew");

/* An op woken by another thread (wakes.c): it entered @lag_ns after
 * the end of its waker's call as recorded (UINT32_MAX: that or more),
 * which is its dependency plan.deps[op->dep_off + @dep]. */
struct rpl_wake_lag {
	uint32_t lag_ns;
	uint32_t dep;
};

/* How a woken op's lag is kept (IOTAPE_REPLAY_WAKE_LAG 0, 1, else):
 * none; as recorded; scaled as its waker's gap is here (exec_wait.c). */
enum rpl_wake_lag_mode { RPL_WAKE_LAG_NONE, RPL_WAKE_LAG_RECORDED, RPL_WAKE_LAG_SCALED };

/* What the replay measured of an op: when its call started and ended,
 * on the replay's clock (0, 0: it did not run), and its result. */
struct rpl_outcome {
	int64_t enter, exit, ret;
};

/* An async request (iocb, SQE), context set-up or registration an op
 * replays (aio.c, uring.c), or a completion the recording saw at the op
 * (kept so that the replay waits for the same requests there). */
struct rpl_aio {
	struct iot_aio a;		/* strings and vals in the plan arena */
	int64_t rec_res;		/* the result recorded for it; RPL_AIO_NORES: none seen */
	int64_t r_res;			/* its result in the replay */
	int64_t r_t_ns;			/* when the replay saw its completion */
	int64_t r_s_ns;			/* when the replay submitted it */
	uint32_t r_reaper;		/* 1 + the op that reaped it; 0: none */
	uint32_t req;			/* a completion: 1 + its request's index; 0: none */
	uint32_t same_prev;		/* a request: 1 + the one before it with its key,
					 * still in flight then; 0: none (aio.c) */
	/* a ring's set-up: the most requests it had in flight when recorded
	 * (submitted, their completion not yet seen), and while planning,
	 * how many it has */
	uint32_t depth, cur;
	uint8_t state;			/* RPL_AIO_* */
};

#define RPL_AIO_NORES INT64_MIN
enum { RPL_AIO_PENDING = 0, RPL_AIO_SUBMITTED, RPL_AIO_DONE, RPL_AIO_SKIPPED };

/* A dependency: the op at position @pos of thread @thread (its ops[pos])
 * must have run first.  Named by thread and position, not by op, so that
 * it is tested against the thread's count of ops run alone. */
struct rpl_dep {
	uint32_t thread, pos;
};
/* per op: 8 resources x (1 + RPL_LOOKERS) fit (deps.c), and a wake (wakes.c) */
#define RPL_DEPS_MAX 64

struct rpl_plan;

/* What a replayed thread's file calls run as (creds.c): its ids as the
 * kernel keeps them (real, effective, saved, filesystem), followed
 * through the recorded set*id calls, and its supplementary groups. */
struct rpl_cred {
	uint32_t uid[4], gid[4];
	uint32_t ngroups;
	const uint32_t *groups;		/* the plan's (plan.groups0), or NULL */
	/* its file access capabilities are effective (CAP_DAC_OVERRIDE...):
	 * root's permission checks with its filesystem ids as owners */
	uint8_t capable;
};

/* What a replay thread's kernel ids are now (rpl_thread.cred_set) */
enum rpl_cred_set {
	RPL_CRED_UNSET,		/* unknown: groups and ids to set */
	RPL_CRED_THREAD,	/* its cred's */
	RPL_CRED_ROOT,		/* root's, around the replayer's own work */
	RPL_CRED_IDS,		/* neither: its groups are its cred's, its ids to set */
};
#define RPL_CRED_FS 3			/* the filesystem id's index */

#define RPL_NOLINK 4

struct rpl_thread {
	int32_t tid, pid;
	uint32_t proc;			/* index in plan.procs */
	uint32_t *ops;			/* op indices, entry order */
	uint32_t n_ops, cap_ops;
	int32_t spawn_op;		/* clone op that starts it, -1: at start */
	/* a forked process's first thread: when the recorded fork had
	 * copied its parent's table, at the latest (its FORK record, else
	 * the clone's entry; 0: not forked) */
	int64_t copied_ns;
	int ended;			/* plan: its exit was seen */
	/* plan: what budget.c scaled its think times by (0: not scaled) */
	double think_scale;
	/* run */
	pthread_t th;
	int started;
	int joined;			/* main thread: th joined (exec.c) */
	int start_failed;		/* could not be started: none of its ops run */
	uint32_t ended_next;		/* plan.ended: the one that ended before it */
	struct rpl_plan *plan;
	char *scratch;			/* read buffer */
	const char *xattr_src;		/* path whose xattrs it read last (cp -a) */
	struct {			/* names it saw are no symlinks: ops_meta.c */
		uint64_t h;
		uint32_t gen;
	} nolink[RPL_NOLINK];
	uint32_t nolink_next;
	struct rpl_dcache *dcache;	/* parent directories it opened */
	/* run: its credentials (from its parent thread at the clone, the
	 * header's for a thread the replay starts), and what its kernel
	 * thread's ids are now (enum rpl_cred_set, creds.c) */
	struct rpl_cred cred;
	uint8_t cred_set;
	uint8_t cred_refused;		/* counted in plan.creds_not_taken */
	int32_t umask_now;		/* run: its kernel mask (umask.c); -1: not its own */
	struct rpl_dirwalk *dirwalk;	/* names of the directories it listed (dirwalk.c) */
	uint64_t walk_opens, walk_back;	/* files opened under them; after one listed later */
	uint64_t walk_dirs, walk_moved;	/* walks put in the order listed here; their entries */
	uint64_t walk_runs, walk_run_moved; /* ... of names given by path (rpl_dirwalk_paths()) */
	uint32_t pw_from;		/* ops before it were looked at by rpl_dirwalk_paths() */
	int64_t start_ns, end_ns, utime_ns, stime_ns;
	int64_t lag_ns;			/* its own work think time could not hide */
	int64_t late_max_ns;		/* the latest start of its calls (late.c) */
	/* its think time: spent as CPU time (asked for, and the wall time
	 * that took), and waited for by the clock */
	int64_t spun_ns, spin_wall_ns, think_wait_ns;
	int64_t offcpu_ns;		/* off the CPU from a call's end to a spin */
	/* the outcomes of its first n_out ops, in the plan's file of them
	 * (outcome.c): whole blocks at the offsets out_blk[0 .. n_blk),
	 * the last one in out_buf (out_fill) until the thread ends */
	struct rpl_outcome *out_buf;
	uint32_t out_fill, n_out;
	uint64_t *out_blk;
	uint32_t n_blk, cap_blk;
	int64_t first_ns;		/* when its first call started (0: none) */
	int64_t dep_wait_ns;		/* waiting for other threads' ops */
	uint32_t dep_waits;
	/* ops run (or given up at a stop): the first n_done of @ops.  A
	 * dependency on this thread's op at position k is met once n_done
	 * > k, read without touching the op (struct rpl_dep). */
	_Atomic uint32_t n_done;
	/* the end of its last op another thread waits for, on the replay's
	 * clock, and that op's position (UINT32_MAX while it is being
	 * written): rpl_wake_lag_of()'s ops wait from there (exec_wait.c) */
	_Atomic int64_t needed_end_ns;
	_Atomic uint32_t needed_end_pos;
	/* its ops that waited so, beyond their waker's call, and how long */
	uint32_t wake_lag_waits;
	int64_t wake_lag_ns;
	/* the lowest position a thread sleeping on done_word waits for to
	 * be run (UINT32_MAX: none): its completion wakes them (exec_wait.c) */
	_Atomic uint32_t wait_pos;
	/* the threads sleeping until an op of it has run, each with the
	 * position it waits for, under wl_lock: a completion wakes those it
	 * lets go alone (exec_wait.c) */
	pthread_mutex_t wl_lock;
	struct rpl_waiter *waiters;
	/* own_files: it makes its process's table itself (rpl_fdtab_fork),
	 * from @fork_from (NULL: an empty one), and sets @forked when done */
	int fork_table;
	struct rpl_fdtab *fork_from;
	_Atomic uint32_t forked;
};

struct rpl_proc {
	int32_t pid;
	int32_t parent;			/* proc index, -1 if none */
	int share_files;		/* CLONE_FILES: the parent's table */
	int ended;			/* plan: exit_group seen */
	uint32_t n_live;		/* plan: its threads whose end is not yet seen */
	int fds_named;			/* plan: another process opens its descriptors'
					 * magic links (/proc/PID/fd/N): its table locks */
	int64_t exit_at;		/* plan: its exit_group's entry (0: none, or stopped) */
	int64_t exit_ns;		/* plan: from then to its reaping (0: none) */
	int64_t reaped_at;		/* plan: the end of the wait4 that reaped it, where
					 * that began before its exit (0: none yet; deps.c
					 * freed_at()) */
	/* plan: 1 + the ops its descriptors stay open for after its end (0:
	 * none): the last sends into the socket ends it closed last, one a
	 * sending thread (plan_pipes.c rpl_plan_socks_end()) */
#define RPL_LINGER 4
	uint32_t linger[RPL_LINGER];
	_Atomic int64_t gone_ns;	/* run: when its last thread ended */
	uint32_t n_threads;
	uint32_t n_unborn;		/* plan: threads spawned, none of their ops
					 * met yet: its table is shared already */
	struct rpl_fdtab *tab;		/* run */
	struct rpl_actab *aio;		/* run: its aio contexts and rings (aio.c) */
	struct rpl_maps *maps;		/* run: the files its mappings map (mpages.c) */
	/* run: its first thread unshared its kernel descriptor table
	 * (own_table()): the descriptors it made went with that table */
	int own_kernel_table;
	/* run: the mask its files are made without, and whether it was set
	 * at its start (umask.c) */
	_Atomic uint32_t umask;
	uint8_t umask_set;
	_Atomic int live;		/* threads not finished */
	_Atomic int finished;
	_Atomic int copied;		/* run: its table is made (rpl_table_made()) */
	/* run: its working directory, kept open (0: none; cwd.c) */
	pthread_mutex_t cwd_lock;
	int cwd_fd;
	const char *cwd_path;
	/* run: the opens that hold its POSIX record locks, one a file
	 * (plocks.c) */
	_Atomic(struct rpl_plocks *) plocks;
};

/* The first target fault of a replay (fault.c). */
struct rpl_fault {
	int err;			/* positive errno; 0 if @unmounted */
	int unmounted;			/* the root was detached (umount -l) */
	uint32_t op;			/* index in plan.ops (ops done, if @unmounted) */
	int64_t t_ns;			/* since the replay started */
	char path[256];
};

struct rpl_plan {
	const struct rpl_opts *o;
	struct iot_reader *rd;
	const struct iot_header *hdr;
	struct iot_arena *arena;
	struct rpl_op *ops;
	size_t n_ops, cap_ops;
	struct rpl_thread *threads;
	size_t n_threads, cap_threads;
	struct rpl_proc *procs;
	size_t n_procs, cap_procs;
	struct rpl_dep *deps;
	size_t n_deps, cap_deps;
	struct iot_path_state *ps;	/* starting tree, sorted by path */
	size_t n_ps, cap_ps;
	uint64_t *ps_ix;		/* a path's first state: rpl_plan_sort_ps() */
	size_t ps_ix_mask;
	int64_t *ps_made_t;		/* per state: rpl_prep_made_t() */
	struct iot_process *precs;	/* Process records, for the profile */
	size_t n_precs, cap_precs;
	int open_err;			/* the trace could not be opened: why */
	struct rpl_aio *aio;		/* async requests, in file order */
	size_t n_aio, cap_aio;
	uint64_t aio_completes;		/* completions recorded */
	char *aio_buf;			/* async writes' data: aio_buf_len bytes, */
	uint64_t aio_buf_len;		/* + a page for statx (aio.c) */
	char *aio_rbuf;			/* async reads' ring: aio_rlen bytes, */
	uint64_t aio_rlen;
	int aio_reads;			/* the plan has async reads */
	_Atomic uint64_t aio_rcur;	/* ... the next read's start, unwrapped */
	struct iot_mpages *mp;		/* pages of file mappings, in file order */
	size_t n_mp, cap_mp;
	struct rpl_map aio_key;		/* request key -> index in aio (plan) */
	struct rpl_map aio_ring;	/* ring key -> index of its set-up (plan) */
	uint32_t *reap_head, *reap_next; /* profile: requests by reaping op */
	/* io_uring waits for completions, [0] recorded, [1] replayed: how
	 * many, and the requests in flight summed at their start
	 * (rpl_aio_wait_seen()) */
	uint64_t ring_waits[2], ring_wait_depth[2];
	uint64_t ring_waits_below;	/* replayed waits that went below the
					 * depth the recorded wait left */
	pthread_mutex_t aio_lock;	/* the processes' aio tables */
	uint64_t events_in_trace;	/* --events: the trace's count, when it
					 * has more than were read (0: all read) */
	uint64_t dropped_in_trace;	/* events its recorder lost (its index) */
	int damaged;			/* damaged or not closed cleanly: */
	char why[320];			/* what iot_damage_text() says */
	int64_t stop_cost_ns;
	uint64_t capped;		/* think times cut to RPL_THINK_MAX */
	int64_t think_ns;		/* think time planned, in all (think.c) */
	int64_t think_cut_ns;		/* ... and what the CPU budget took off it */
	int64_t gap_floor_ns;		/* 5th percentile of recorded gaps */
	int64_t gap_cost_ns;		/* what each gap lost: see think_times() */
	int64_t fast_floor_ns;		/* 5th percentile of fast-path gaps (pooled) */
	int64_t held_floor_ns;		/* ... of bpf-held gaps less their holds */
	int64_t bpf_floor_ns;		/* the least syscall's floor of bpf gaps: at
					 * most what one loses (think.c; 0: none) */
	int64_t run_cost_ns;		/* a call's stops' CPU cost from run_ns,
					 * the trace's (budget.c; 0: none) */
	uint32_t *cpu_ns;		/* per op, by seq: its call's recorded time on a
					 * CPU (iot_event.cpu_ns, 0: unknown), n_cpu of
					 * them; NULL: none in the trace (think.c) */
	size_t n_cpu;
	uint32_t *slept_ns;		/* per op, by seq: the part of its gap its
					 * thread slept on a disk (iot_event.slept_ns,
					 * out of think_ns by think.c), n_slept of
					 * them; NULL: none in the trace */
	size_t n_slept;
	uint32_t *run_ns;		/* per op, by seq: iot_event.run_ns (a stopped
					 * call's thread's CPU time since the exit stop
					 * before it), n_run of them; NULL: none in the
					 * trace (budget.c) */
	size_t n_run;
	uint32_t *woke_ns;		/* per op, by seq: how long before its call
					 * its thread was woken from a voluntary
					 * sleep in its gap (iot_event.woke_ns,
					 * wakes.c), n_woke of them; NULL: none in
					 * the trace */
	size_t n_woke;
	uint32_t *waited_ns;		/* per op, by seq: how long its thread slept
					 * voluntarily in its gap (iot_event.waited_ns,
					 * wakes.c), n_waited of them; NULL: none */
	size_t n_waited;
	uint32_t *ready_ns;		/* per op, by seq: how long its thread was
					 * runnable, waiting for a CPU, in its gap
					 * (iot_event.ready_ns, think.c), n_ready of
					 * them; NULL: none */
	size_t n_ready;
	uint32_t *waker;		/* per op, by seq: the tid whose wake-up
					 * ended its call's sleep (iot_event.waker,
					 * wakes.c), n_waker of them; NULL: none */
	size_t n_waker;
	uint32_t *gap_waker;		/* per op, by seq: the tid whose wake-up
					 * ended the sleep in its gap
					 * (iot_event.gap_waker, wakes.c),
					 * n_gap_waker of them; NULL: none */
	size_t n_gap_waker;
	/* per op, by seq: how long after its waker's call it entered, as
	 * recorded, and which of its deps that call is (wakes.c,
	 * rpl_wake_lag_of()), n_wake_lag of them; NULL: no wake */
	struct rpl_wake_lag *wake_lag;
	size_t n_wake_lag;
	uint64_t wake_lags;		/* ops given one */
	int wake_lag_mode;		/* enum rpl_wake_lag_mode (IOTAPE_REPLAY_WAKE_LAG) */
	uint32_t *pre_ns;		/* per op, by seq: iot_event.pre_ns (the fast
					 * path's work before the call), n_pre of them;
					 * NULL: none in the trace (think.c) */
	size_t n_pre;
	/* per op, by seq: the bytes its write wrote, as `record --data`
	 * kept them (iot_event.data, ev.ret of them), in the arena, n_data
	 * of them; NULL: none in the trace (plan_read.c) */
	const void **data;
	size_t n_data;
	uint64_t data_ops, data_bytes;	/* writes with their bytes kept */
	uint64_t nodata_ops;		/* ... recorded with --data, not kept */
	/* calls started late, by how late: late.c's buckets (exec_thread.c) */
	_Atomic uint64_t *late;
	_Atomic uint64_t gap_sleeps;	/* gaps slept so (exec_thread.c) */
	_Atomic uint64_t gap_slept_ns;	/* ... their time in all */
	_Atomic uint64_t waits_slept;	/* waits that timed out, slept (ops_wait.c) */
	_Atomic uint64_t waits_ns;	/* ... their time in all */
	_Atomic uint64_t waits_left;	/* waits that returned for an event: not slept */
	_Atomic uint64_t waits_polled;	/* ... timed out polling for a child that */
	_Atomic uint64_t waits_polled_ns; /* had ended here: not slept (ops_wait.c) */
	_Atomic uint64_t polls_cut;	/* ... for a thread that had ended here (polls.c) */
	_Atomic uint64_t polls_cut_ns;
	uint64_t forks_only;		/* processes that made no exec (think.c) */
	uint64_t wakes;			/* ops that follow the call their thread was woken after (wakes.c) */
	uint64_t call_wakes;		/* calls that follow their waker's call before (wakes.c) */
	uint64_t gap_wakes;		/* ops whose gap's waker the trace names, after its call before */
	uint64_t gap_wakes_new;	/* ... of them not so ordered already */
	uint64_t idle_wakes;		/* gaps woken by a thread without an op, kept (wakes.c) */
	int64_t idle_kept_ns;		/* ... what they kept of its CPU time */
	uint64_t poll_loops;		/* loops of sleeps polling for threads' ends (polls.c) */
	uint64_t poll_rounds;		/* ... their sleeps */
	/* descriptor-table slots the planner read to find the pipes an
	 * exec or an exit closes (plan_pipes.c rpl_pipe_keys(); whether a close
	 * leaves a copy of its end open is counted, rpl_fdends) */
	uint64_t fd_slots_read;
	/* each process's threads, for wakes.c and polls.c: process i's are
	 * proc_thr[proc_thr_off[i] .. proc_thr_off[i + 1]] (rpl_proc_threads());
	 * how many times they were listed (once a plan) */
	uint32_t *proc_thr_off, *proc_thr;
	uint32_t proc_thr_made;
	int start_fd;			/* spawn.c: the program a process start runs */
	/* Tasks of the replay waiting for a CPU that spinning threads hold
	 * (spin.c yields to them): process starts under way, threads made
	 * and not yet running; and a count of wakes of sleeping threads. */
	_Atomic int handovers;
	_Atomic uint32_t wake_seq;
	_Atomic uint64_t spin_yields;	/* yields of spinning threads to them */
	_Atomic uint64_t start_fails;	/* process starts that failed */
	_Atomic uint64_t exits;		/* reaps kept after their child's end (ops_proc.c) */
	_Atomic uint64_t exits_ns;	/* ... waited for so in all */
	_Atomic uint64_t pipe_gaveup;	/* pipe waits given up (ops_pipe.c) */
	/* a connect and the accept that took it, known by the connecting
	 * socket (plan_socks.c conn_take()): both have RPL_OPF_CONNQ and
	 * link to connq, which holds the connect's socket's key here once
	 * it is known (ops_sock.c conn_peer(): its name, which it is bound
	 * to before it connects, else its inode once it connected);
	 * conn_tag names this replay in those names; connections an
	 * accept took that were another's wait in conn_pool for theirs
	 * (ops_sock.c): each a message in the courier (fd -1), else a
	 * descriptor of process proc's table; the courier, conn_sock, is
	 * a socket pair under the same two numbers in every kernel table
	 * (-1: none) */
	struct rpl_connq { _Atomic uint64_t ino; uint32_t aproc; } *connq;
	uint32_t n_connq, cap_connq, conn_tag;
	pthread_mutex_t conn_lock;
	struct rpl_conn_kept { uint64_t peer; int fd; uint32_t proc; } *conn_pool;
	uint32_t n_conn_pool, cap_conn_pool;
	int conn_sock[2];
	_Atomic uint64_t conn_gaveup;	/* accepts that took another's connection */
	_Atomic uint64_t fd_links;	/* opens of a descriptor's magic link (ops_file.c) */
	_Atomic uint64_t fifo_alone;	/* FIFO writers' opens no reader came for (ops_file.c) */
	/* credentials (creds.c): RPL_CREDS_*; the first threads' (the
	 * header's) and the groups they name */
	int creds;
	int setid_calls;		/* the trace has set*id calls (plan_read.c) */
	/* ops ordered before another whose result showed they came first,
	 * though they ended after it (deps_seen.c rpl_pull_seen()) */
	uint64_t order_pulled;

	struct rpl_cred cred0;
	uint32_t *groups0;
	_Atomic uint64_t creds_not_taken;	/* threads run with the replayer's */
	_Atomic uint64_t creds_threads;		/* threads that ran as another */
	_Atomic uint64_t creds_calls;		/* set*id calls that changed them */
	/* btrfs's subvolume calls (ops_subvol.c): made as such, emulated
	 * (a mkdir, a copy, a removal), read-only snapshots left writable */
	_Atomic uint64_t subvols_made, subvols_emulated, subvols_rdonly;
	/* masks (umask.c): followed; the first process's, and whether the
	 * header gave it; umask calls in the trace (plan_read.c), replayed;
	 * threads that could not have their own */
	int umask_on, umask_known;
	uint32_t umask0;
	uint64_t umask_calls;
	_Atomic uint64_t umask_calls_done;
	_Atomic uint64_t umask_not_taken;
	/* run */
	int root_fd;
	int64_t t0;			/* replay start, monotonic */
	int out_fd;			/* the ops' outcomes (outcome.c), -1: none */
	_Atomic uint64_t out_end;	/* ... the file's length */
	_Atomic int out_err;		/* ... the first write that failed */
	_Atomic uint32_t gen;		/* bumped at each completion (futex word) */
	_Atomic uint32_t exit_gen;	/* bumped when a thread ends (futex word) */
	/* threads ended but not yet joined, the last first: index + 1 of
	 * the last (0: none), each naming the one before in ended_next */
	_Atomic uint32_t ended;
	_Atomic uint32_t ns_gen;	/* bumped by removes, renames, symlinks */
	_Atomic uint32_t dir_gen;	/* ... of those, by what may remove or move a directory */
	int own_files;			/* processes get kernel descriptor tables of their own */
	_Atomic int waiters;		/* threads sleeping on gen (rpl_wait_lag()) */
	_Atomic int active;		/* threads running */
	_Atomic int depwait;		/* threads waiting on a dependency */
	_Atomic uint64_t breaks;
	_Atomic uint64_t violations;
	_Atomic int threads_alive;
	pthread_mutex_t spawn_lock;
	/* what every thread listed, in this filesystem's order (dirwalk_paths.c):
	 * hash of (directory, name) -> rank, under listed_lock; listed_any
	 * once one is kept */
	pthread_mutex_t listed_lock;
	struct rpl_map listed;
	uint32_t listed_next;
	_Atomic int listed_any;
	_Atomic int fault_claimed;	/* @fault is set */
	struct rpl_fault fault;
	uint64_t root_dev, root_ino;	/* what --root led to at the start */
};

/* The op dependency @d names, as an index in plan.ops. */
static inline uint32_t rpl_dep_op(const struct rpl_plan *p, const struct rpl_dep *d)
{
	return p->threads[d->thread].ops[d->pos];
}

/* @op's value in a per-op column of the plan (cpu_ns, slept_ns, woke_ns), @n
 * long; 0 where it has none. */
static inline uint32_t rpl_op_col(const uint32_t *col, size_t n, const struct rpl_op *op)
{
	return col && op->seq < n ? col[op->seq] : 0;
}

/* rpl_wake_lag_ns() : how long after its waker's call woken op @op, of
 * wake lag @wl, comes (wakes.c), before its timing. */
int64_t rpl_wake_lag_ns(const struct rpl_plan *p, const struct rpl_op *op,
			const struct rpl_wake_lag *wl);

/* @op's wake lag (struct rpl_wake_lag), or NULL: none */
static inline const struct rpl_wake_lag *rpl_wake_lag_of(const struct rpl_plan *p,
							 const struct rpl_op *op)
{
	const struct rpl_wake_lag *w;

	if (!p->wake_lag || op->seq >= p->n_wake_lag)
		return NULL;
	w = &p->wake_lag[op->seq];
	return w->lag_ns && w->dep < op->ndeps ? w : NULL;
}

/* The bytes @op's write wrote, kept by `record --data` (op->ev.ret of
 * them), or NULL. */
static inline const void *rpl_op_data(const struct rpl_plan *p, const struct rpl_op *op)
{
	return p->data && op->seq < p->n_data ? p->data[op->seq] : NULL;
}

/* When @op completed, for resource order (the entry of a call that has
 * no exit, or one recorded before its entry). */
static inline int64_t rpl_op_end(const struct rpl_op *op)
{
	if ((op->ev.flags & (IOT_EV_UNFINISHED | IOT_EV_NOEXIT_TS)) ||
	    op->ev.t_exit < op->ev.t_enter)
		return op->ev.t_enter;
	return op->ev.t_exit;
}

/* When @op's effect counts for resource order (deps.c says why): its end,
 * or its entry (RPL_OPF_ORDER_ENTER: a pipe write or close, an exec that
 * closes pipes).  Every dependency points to an op of an earlier time. */
static inline int64_t rpl_op_order_time(const struct rpl_op *op)
{
	return (op->rflags & RPL_OPF_ORDER_ENTER) ? op->ev.t_enter : rpl_op_end(op);
}

#endif
