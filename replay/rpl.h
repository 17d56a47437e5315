/*
 * rpl.h - the replayer's internals, shared by the replay/ sources (not by other
 * modules: they use replay.h).
 *
 * The plan is one array of ops (every recorded event, sorted by entry
 * time), one op list per recorded thread, the processes those threads
 * belong to, and for each op the ops of other threads it must wait for
 * (resource order: same path, same open file, same pipe).
 */
#ifndef RPL_RPL_H
#define RPL_RPL_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hash.h"
#include "iotape.h"
#include "replay.h"

/* ---- descriptor tables ---- */

enum rpl_fd_state {
	RPL_FD_FREE = 0,
	RPL_FD_LIVE,		/* mapped to a live descriptor */
	RPL_FD_SKIP,		/* open in the recording, not in the replay */
};

struct rpl_fd {
	int live;		/* live descriptor (real tables only) */
	uint8_t state;		/* enum rpl_fd_state */
	uint8_t cloexec;	/* as recorded: closed at exec */
	uint8_t marks;		/* what the replay made of it: RPL_FD_CLONE_* (ops_io.c
				 * h_ioctl()), RPL_FD_EVENTFD */
	uint8_t wend;		/* plan tables: a pipe's write end (plan_fds.c) */
	uint32_t res;		/* open-file resource id (plan tables) */
	uint32_t end;		/* plan tables: its pipe end's count in the
				 * tables' rpl_fdends (0: no pipe) */
	const char *path;	/* path it was opened with, or NULL */
	int64_t made_ns;	/* real tables: when the op that made it began,
				 * as recorded (0: none; rpl_fdtab_drop_after());
				 * plan tables: when it returned (plan_fds.c
				 * reborn()) */
};

/* Real tables: the recorded entry time of the op a thread replays now,
 * given to the entries it makes (exec_thread.c sets it before each op). */
extern __thread int64_t rpl_fd_made_ns;

/* Plan tables: how many entries of all the tables that share this hold
 * each pipe end (n[rpl_fd.end]), kept as entries are set, copied and
 * dropped, so that the planner tells whether a close leaves a copy of
 * its end open without looking at every table (plan_fds.c). */
struct rpl_fdends {
	uint32_t *n;
	size_t len, cap;	/* n[0] is no end's */
};

/* A recorded process's descriptor table.  "real" tables hold live
 * descriptors that copying dups and dropping closes; plan tables only
 * carry resource ids.  Calls lock the table where threads share it. */
struct rpl_fdtab {
	pthread_mutex_t lock;
	_Atomic int refs;
	int real;
	int single;		/* its process has one thread: see tab_lock() */
	uint32_t n;
	struct rpl_fd *v;
	struct rpl_fdends *ends;	/* plan tables (NULL: none counted);
					 * copies count in it too */
	/* which table it is, never another's (its address is, once it is
	 * freed: plan_fds.c key_slot()) */
	uint64_t serial;
	/* plan tables: the recorded return of the op being planned, which
	 * the entries it makes keep as their made_ns */
	int64_t made_ns;
	/* run: the replay thread whose kernel table holds the live
	 * descriptors (own_table() in exec_thread.c; 0: the replayer's, shared) */
	int ktid;
};

/* A FICLONE that failed when recorded succeeded in the replay: the
 * program would not have copied the data between these two files. */
#define RPL_FD_CLONE_SRC 0x01
#define RPL_FD_CLONE_DST 0x02
/* An eventfd: a write adds its 8 bytes' value to a counter, which a
 * write of the replay's own bytes overflows (ops_io.c h_rw()). */
#define RPL_FD_EVENTFD 0x04

/* Recorded descriptors above this are refused (a hostile trace could ask
 * for a table of 2^31 entries). */
#define RPL_FD_MAX (1 << 20)

struct rpl_fdtab *rpl_fdtab_new(int real);
struct rpl_fdtab *rpl_fdtab_ref(struct rpl_fdtab *t);
/* @t belongs to a process of one thread: while no other process shares
 * it, its calls need not lock it. */
void rpl_fdtab_single(struct rpl_fdtab *t);
void rpl_fdtab_unref(struct rpl_fdtab *t);
/* fork: a new table with every entry copied (live ones dup'ed). */
struct rpl_fdtab *rpl_fdtab_copy(struct rpl_fdtab *t);
/* fork, in the child's replay thread: a copy of the kernel's descriptor
 * table for the thread, and of @parent (NULL: an empty one) with the same
 * live numbers.  *@own is set if the thread's kernel table is its own
 * now; if not, live entries were dup'ed as rpl_fdtab_copy() does. */
struct rpl_fdtab *rpl_fdtab_fork(struct rpl_fdtab *parent, int *own);
/* A forked child's copy: the entries made by ops that began after @t_ns
 * (the recorded fork's entry: the kernel copies the table early in the
 * call, and a vfork returns only at the child's exec) closed; another
 * thread of the parent made them before the child's copy here, and the
 * recorded child never had them. */
void rpl_fdtab_drop_after(struct rpl_fdtab *t, int64_t t_ns);
/* The closes of a forked child's parent's table that other threads of
 * the parent began before the recorded fork had copied it and have not
 * made here yet (fork_fds.c): descriptors lo..hi, closed by an op that
 * began at t_ns. */
#define RPL_FORK_CLOSES 64
struct rpl_fork_closes {
	uint32_t n;
	struct { int64_t lo, hi, t_ns; } v[RPL_FORK_CLOSES];
};
/* A forked child's copy: the entries @fc's closes close (those made
 * before the close began) closed; the recorded child never had them. */
void rpl_fdtab_drop_closed(struct rpl_fdtab *t, const struct rpl_fork_closes *fc);
/* In a thread whose kernel table is its own: close every descriptor but
 * @t's live ones, 0-2, @keep, @keep2, @keep3 and the @n_more of @more
 * (what the copy brought from others). */
void rpl_fdtab_close_others(struct rpl_fdtab *t, int keep, int keep2, int keep3, const int *more,
			    uint32_t n_more);
/* Install @e at recorded fd @fd, closing what was there. */
int rpl_fdtab_set(struct rpl_fdtab *t, long fd, const struct rpl_fd *e);
/* Copy the entry of @fd into *@e. @return : 0 or -EBADF. */
int rpl_fdtab_get(struct rpl_fdtab *t, long fd, struct rpl_fd *e);
int rpl_fdtab_close(struct rpl_fdtab *t, long fd);
/* dup/dup2/dup3/F_DUPFD: @newfd (the recorded result) gets a copy of
 * @oldfd (its live fd dup'ed) with close-on-exec @cloexec. */
int rpl_fdtab_dup(struct rpl_fdtab *t, long oldfd, long newfd, int cloexec);
/* close_range(2) flags: CLOSE_RANGE_CLOEXEC marks instead of closing. */
int rpl_fdtab_close_range(struct rpl_fdtab *t, unsigned long first,
			  unsigned long last, unsigned int flags);
int rpl_fdtab_set_cloexec(struct rpl_fdtab *t, long fd, int on);
/* OR @flags (RPL_FD_CLONE_*, RPL_FD_EVENTFD) into the entry of @fd.
 * @return : 0 or -EBADF. */
int rpl_fdtab_mark(struct rpl_fdtab *t, long fd, int flags);
/* exec: close the close-on-exec entries. @return : how many. */
int rpl_fdtab_exec(struct rpl_fdtab *t);
/* rpl_fdtab_each_live() : @fn(@arg, live descriptor) for each live entry
 * of @t from @first to @last (@cloexec: close-on-exec ones only), under
 * the table's lock. */
void rpl_fdtab_each_live(struct rpl_fdtab *t, unsigned long first, unsigned long last,
			 int cloexec, void (*fn)(void *arg, int live), void *arg);

/* ---- paths under the root ---- */

/*! rpl_root_open() : open @root for replay.  Refuses "/" (or anything that
 *  is the system root) with -EPERM, a missing root with -ENOENT, a
 *  non-directory with -ENOTDIR, and with @need_empty a root holding
 *  anything but lost+found with -ENOTEMPTY.
 *  @return : an O_PATH descriptor or a negative code. */
int rpl_root_open(const char *root, int need_empty);

/*! rpl_resolve() : open recorded absolute @path inside the root with
 *  openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS): neither ".." nor
 *  absolute symlinks leave the root.  O_CLOEXEC is added.
 *  @return : a descriptor or -errno. */
int rpl_resolve(int root_fd, const char *path, int flags, mode_t mode);

/*! rpl_resolve_how() : rpl_resolve() with openat2 bits @resolve added
 *  (RESOLVE_NO_SYMLINKS, RESOLVE_NO_XDEV: a recorded openat2's own).
 *  @return : a descriptor or -errno. */
int rpl_resolve_how(int root_fd, const char *path, int flags, mode_t mode, uint64_t resolve);

/*! rpl_open_below() : open relative @path below directory @dirfd
 *  (obtained inside the root) with openat2 bits @resolve, which hold
 *  RESOLVE_BENEATH or RESOLVE_IN_ROOT, and RESOLVE_NO_MAGICLINKS: the
 *  lookup does not leave @dirfd.  O_CLOEXEC is added.
 *  @return : a descriptor or -errno (-EINVAL: @resolve confines nothing,
 *  or @path is absolute). */
int rpl_open_below(int dirfd, const char *path, int flags, mode_t mode, uint64_t resolve);

/*! rpl_open_name() : open plain component @name of directory @dirfd
 *  (obtained inside the root) with openat2(RESOLVE_BENEATH |
 *  RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS): a symlink there gets
 *  -ELOOP, "", ".", ".." or a '/' in @name -EINVAL.  O_CLOEXEC is added.
 *  @return : a descriptor or -errno. */
int rpl_open_name(int dirfd, const char *name, int flags, mode_t mode);

/* Is @name "." or ".."?  (Two strcmp() calls on every name a replayed
 * call opens or removes, inline here.) */
static inline int rpl_dot_name(const char *name)
{
	return name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0));
}

/* A name inside a confined parent directory. */
struct rpl_name {
	int dirfd;			/* O_PATH|O_DIRECTORY */
	int owned;			/* rpl_name_done() closes dirfd */
	char name[256];			/* last component: never "", ".", ".." */
};

/*! rpl_parent() : open the parent of @path inside the root and copy its
 *  last component (trailing slashes dropped) to @n->name.  A last
 *  component "." or ".." (or the root itself) gets -EINVAL: creating,
 *  removing or renaming through it could act outside the named place.
 *  @return : 0 or -errno; on success close @n->dirfd. */
int rpl_parent(int root_fd, const char *path, struct rpl_name *n);
/* As rpl_parent(); @*plain : whether no symlink was on the way. */
int rpl_parent_plain(int root_fd, const char *path, struct rpl_name *n, int *plain);

/* ---- directory walks in the recorded order (dirwalk*.c) ---- */
struct rpl_dirwalk;
struct rpl_thread;
/* @len bytes of dirent64 records that a getdents of recorded descriptor
 * @fd, the directory recorded as @dir (NULL: not known), returned here */
void rpl_dirwalk_listed(struct rpl_thread *t, int64_t fd, const char *dir, const char *buf,
			int64_t len);
/* @path was opened relative to recorded descriptor @fd */
void rpl_dirwalk_opened(struct rpl_thread *t, int64_t fd, const char *path);
/* the recorded listing of @fd ended (getdents returned 0 when recorded):
 * the ops from position @next on that walk it are put in the order it
 * was listed here, where they can be */
void rpl_dirwalk_end(struct rpl_thread *t, int64_t fd, uint32_t next);
/* thread @t is at its op in position @pos, which may name by its path an
 * entry of a directory some thread listed here (t->pw_from <= @pos, a
 * listing published): the ops from there that name that directory's
 * entries (or of directories in it) by their paths are put in the order
 * they are listed here, where they can be */
void rpl_dirwalk_paths(struct rpl_thread *t, uint32_t pos);
void rpl_dirwalk_free(struct rpl_thread *t);
/* the names every thread listed, freed at the replay's end */
void rpl_dirwalk_listed_free(struct rpl_plan *p);

/* ---- a listing's getdents calls judged as one (listings.c) ---- */
struct rpl_listings;
struct rpl_plan;
struct rpl_op;
/* judge what op @op returned here, @ret, against the recorded result */
typedef void rpl_judge_fn(void *arg, struct rpl_op *op, int64_t ret);
/*! rpl_listings_new() : listings for a tally that judges a call with
 *  @judge(@arg, ...).  @return : NULL if out of memory (then every call
 *  is judged by itself). */
struct rpl_listings *rpl_listings_new(rpl_judge_fn *judge, void *arg);
/*! rpl_listings_op() : op @op, which returned @ret here (every op of the
 *  tally, in the plan's order, skipped ones too).  @return : 1 if its
 *  result is judged with its listing's (a getdents: later, through the
 *  judge, or not at all when the listing's total matched), 0 if the
 *  tally judges it now. */
int rpl_listings_op(struct rpl_listings *l, const struct rpl_plan *p, struct rpl_op *op,
		    int64_t ret);
/*! rpl_listings_end() : the tally's end: listings the trace did not end
 *  have their calls judged one by one; the counts go to @res; @l freed. */
void rpl_listings_end(struct rpl_listings *l, struct rpl_result *res);

/*! rpl_last_name() : where the last component of @path (@len bytes,
 *  trailing slashes dropped) starts; @*end : where it ends (start == end:
 *  no component, the root or an empty path). */
size_t rpl_last_name(const char *path, size_t len, size_t *end);

/*! rpl_slashed() : does @path (NULL: none) end in a '/' after a name?
 *  The recorder keeps one where the program gave it: the last name must
 *  be a directory, which only the whole path, looked up confined, says
 *  (a call made from the parent with the slash would follow a symlink
 *  there, out of the root if it points out). */
int rpl_slashed(const char *path);

/*! rpl_split_name() : copy the last component of @path (@len bytes,
 *  trailing slashes dropped) to @n->name.  @return : where it starts in
 *  @path, or -EINVAL (the root, ".", "..") or -ENAMETOOLONG. */
long rpl_split_name(const char *path, size_t len, struct rpl_name *n);

/*! rpl_path_skip() : @return : RPL_SKIP_PSEUDO for /proc, /sys, /dev,
 *  RPL_SKIP_EXCLUDED per the include/exclude prefixes, else 0. */
int rpl_path_skip(const struct rpl_opts *o, const char *path);

/*! rpl_prefix_match() : @return : 1 if @path is @prefix or under it. */
int rpl_prefix_match(const char *path, const char *prefix);

/*! rpl_mem_huge() : ask for transparent huge pages for the 2 MiB-aligned
 *  part of @p's @n bytes, if @n is 4 MiB or more (a no-op otherwise, and
 *  where the kernel has none).  On this kind of VM a first touch of a
 *  4 KiB page costs ~12 us: the plan's arrays, written once each, spent
 *  a third of the planning in page faults. */
void rpl_mem_huge(void *p, size_t n);

/* Make room for one more element at @arr[@n] (@cap elements allocated,
 * doubled when full), or set err = -ENOMEM and goto out: for functions
 * with the house's one cleanup label. */
#define RPL_GROW(arr, n, cap) do {					\
	if ((n) == (cap)) {						\
		size_t nc_ = (cap) ? (cap) * 2 : 256;			\
		void *na_ = realloc((arr), nc_ * sizeof(*(arr)));	\
		if (!na_) { err = -ENOMEM; goto out; }			\
		rpl_mem_huge(na_, nc_ * sizeof(*(arr)));		\
		(arr) = na_;						\
		(cap) = nc_;						\
	}								\
} while (0)

/* ---- a uint64 -> uint32 hash map (map.c) ---- */
struct rpl_map_slot {
	uint32_t k[2];			/* the key, 4-aligned (map.c); 0: empty */
	uint32_t v;
};
struct rpl_map {
	struct rpl_map_slot *s;
	size_t cap, n;
};
/* Integer keys (tids, pids) in their own range, never 0. */
#define RPL_IK(x) ((1ULL << 32) | (uint32_t)(x))
/* The key of a slot of an open-addressed table (map.c's, deps.c's): two
 * 4-aligned words, 0: empty. */
static inline uint64_t rpl_slot_key(const uint32_t k[2])
{
	uint64_t v;

	__builtin_memcpy(&v, k, sizeof(v));
	return v;
}
/* @key's first slot in a table of @cap slots (a power of two): its bits
 * mixed (Fibonacci hashing), so that keys that differ only above the low
 * bits do not share a run. */
static inline size_t rpl_slot_first(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> (64 - __builtin_ctzll(cap)));
}
int rpl_map_put(struct rpl_map *m, uint64_t key, uint32_t val);
/* @return : 1 with *@val set if @key is there, else 0. */
int rpl_map_get(const struct rpl_map *m, uint64_t key, uint32_t *val);
/* @return : @key's value in its slot, to read or change (valid until the
 * next rpl_map_put() or rpl_map_free() of @m), or NULL if not there. */
uint32_t *rpl_map_find(const struct rpl_map *m, uint64_t key);
void rpl_map_free(struct rpl_map *m);
/* rpl_table_new() : @bytes zeroed for a hash table's slots, mapped when
 * large (map.c); rpl_table_free() : them, given the same size. */
void *rpl_table_new(size_t bytes);
void rpl_table_free(void *s, size_t bytes);

/* ---- paths kept once (intern.c) ---- */
struct rpl_intern {
	struct rpl_intern_slot {
		uint64_t h;		/* the hash of v */
		const char *v;		/* NULL: empty */
	} *s;				/* one array: a hit reads one cache line */
	size_t cap, n;
};
/*! rpl_intern() : @s (@n bytes) as a string of arena @a: the same
 *  pointer for the same bytes, but for paths the plan cleans in place
 *  (rpl_path_has_dots(): a copy each, and *@dots set to 1 if @dots).
 *  @return : NULL if @s is NULL or memory ran out. */
const char *rpl_intern(struct rpl_intern *t, struct iot_arena *a, const char *s, uint32_t n,
		       int *dots);
void rpl_intern_free(struct rpl_intern *t);
/*! rpl_path_has_dots() : @return : 1 if @s (@n bytes; NULL: none) has
 *  "/." or "//" in it: a path rpl_plan_clean_paths() may rewrite. */
int rpl_path_has_dots(const char *s, uint32_t n);
/* ... of NUL-terminated @s, in one pass (an op's paths) */
int rpl_cpath_has_dots(const char *s);

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
	/* the lowest position a thread sleeping on plan.gen waits for to be
	 * run (UINT32_MAX: none): its completion wakes them (exec_wait.c) */
	_Atomic uint32_t wait_pos;
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
	_Atomic int waiters;
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

/* ---- resource order (deps.c) ---- */

/* The three low bits of a resource key say how an op uses the resource:
 * it changes it (none), only looks at it (RPL_KEY_LOOK), or moves data
 * into a pipe or closes it (RPL_KEY_PIPE), or reads a pipe (both), or
 * makes or removes one name in a directory (RPL_KEY_NAME, on the key of
 * the directory's names: such changes of other names need no order among
 * themselves; also a write of data into a file, on the file's keys:
 * plan_fds.c writes_data()), or closes a copy of a pipe's end that stays open elsewhere
 * (RPL_KEY_PIPE | RPL_KEY_LOOSE: it follows nothing; the next write or
 * last close, and a read that sees end of file, follow it).  The keys
 * themselves have them clear, and are never 0 (the end of an op's list). */
#define RPL_KEY_LOOK 1ULL
#define RPL_KEY_PIPE 2ULL
#define RPL_KEY_NAME 4ULL
#define RPL_KEY_LOOSE 8ULL
/* with RPL_KEY_LOOK: a look that meets another's (a FIFO's open, which
 * waits for the other end's open): kept as a looker, but no other look
 * follows it, nor it another, when the lookers kept overflow (deps.c) */
#define RPL_KEY_MEET 32ULL
#define RPL_KEY_HOW (RPL_KEY_LOOK | RPL_KEY_PIPE | RPL_KEY_NAME | RPL_KEY_LOOSE | RPL_KEY_MEET)
/* An open file's key (plan_fds.c rpl_key_res()): its resource id in the high
 * 32 bits, with this bit, which no other key has (they are hashes with
 * it clear): deps.c keeps its state in an array by the id, not in a map
 * by the key (ids come one after the other, and an open file's calls
 * close together: a map's slot was a cache miss a call). */
#define RPL_KEY_RES 16ULL

struct rpl_deps;
struct rpl_deps *rpl_deps_new(void);
/*! rpl_deps_add() : op @oi of @p (ops are added in entry order) has the
 *  resource keys @keys (0-ended, at most RPL_MAXRES): give the dependencies
 *  of every op added before it whose effect counted by its entry, and keep
 *  it until its own counts.  @frees: 1 where the op is a close, exec or
 *  exit that lets locks go (plan_locks.c rpl_held_lock()), 2 an exit that lets
 *  one go for good, whose effect counts later (deps.c says when), else 0.
 *  @return : 0 or -ENOMEM, -E2BIG. */
int rpl_deps_add(struct rpl_plan *p, struct rpl_deps *d, uint32_t oi, const uint64_t *keys,
		 int frees);
/*! rpl_deps_finish() : every op was added: the dependencies of those kept;
 *  each dependency then names its op by its position in its thread (by
 *  its index in plan.ops until then). */
int rpl_deps_finish(struct rpl_plan *p, struct rpl_deps *d);
void rpl_deps_free(struct rpl_deps *d);
/*! rpl_position_of() : the position in thread @t of op @on (its index in
 *  plan.ops; each thread's ops ascend): the first of @t's ops not below
 *  it, searched from position @from outwards. */
size_t rpl_position_of(const struct rpl_thread *t, uint32_t on, size_t from);

/* ---- what a read's byte count shows (seen.c, for deps_seen.c) ---- */

/* an op's offset of none (no file data), or the end (an append) */
#define RPL_AT_NONE (-1)
#define RPL_AT_END (-2)
struct rpl_seen;
struct rpl_seen *rpl_seen_new(void);
void rpl_seen_free(struct rpl_seen *s);
/* what an op does to a file's data or mode (rpl_seen_add()) */
enum {
	RPL_DATA_NONE, RPL_DATA_READ, RPL_DATA_WRITE, RPL_DATA_TRUNC, RPL_DATA_OPEN, RPL_DATA_SEEK,
	RPL_DATA_ACCESS, RPL_DATA_CHMOD, RPL_DATA_LIST, RPL_DATA_NAME, RPL_DATA_CREATE
};
/* an op of kind @kind at @at whose result tells which change came first
 * (a read or a directory's read at a known offset, an access) */
static inline int rpl_seen_looks(int kind, int64_t at)
{
	return ((kind == RPL_DATA_READ || kind == RPL_DATA_LIST) && at != RPL_AT_NONE) ||
	       kind == RPL_DATA_ACCESS;
}

/* ... one that such a result weighs (a write at a known offset or an
 * append, a chmod, a name made or removed: RPL_DATA_CREATE an open with
 * O_CREAT, RPL_DATA_NAME any other): @return : the kind of the looks
 * that weigh it, or 0 */
static inline int rpl_seen_changes(int kind, int64_t at)
{
	if (kind == RPL_DATA_WRITE)
		return at != RPL_AT_NONE ? RPL_DATA_READ : 0;
	if (kind == RPL_DATA_CHMOD)
		return RPL_DATA_ACCESS;
	return kind == RPL_DATA_NAME || kind == RPL_DATA_CREATE ? RPL_DATA_LIST : 0;
}

/*! rpl_seen_add() : op @op, with resource keys @keys (@nk of them), is
 *  added (in entry order): *@at gets the offset in its file at which it
 *  read or wrote (RPL_AT_END: an append; RPL_AT_NONE: no file data), and
 *  its open file's position moves.  @return : what it does to a file's
 *  data or mode (RPL_DATA_*), or -ENOMEM. */
int rpl_seen_add(struct rpl_seen *s, const struct rpl_op *op, const uint64_t *keys,
		 uint32_t nk, int64_t *at);
/*! rpl_seen_done() : op @op (keys; @kind and offset @at as
 *  rpl_seen_add() gave) is ordered: the size and mode of its file as it
 *  leaves them.  @return : 0 or -ENOMEM. */
int rpl_seen_done(const struct rpl_plan *p, struct rpl_seen *s, const struct rpl_op *op,
		  const uint64_t *keys, uint32_t nk, int kind, int64_t at);
/*! rpl_seen_first() : op @x (keys @xkeys, kind @xkind, offset @xat) is
 *  to be ordered, and op @y (@ykind, @yat), another thread's on the same
 *  file, entered before @x's effect counted and is still pending:
 *  @return : 1 if the results show that @y came first (a read that
 *  returned @y's bytes, or met the end of the file where truncate @y
 *  cut it; a read @y that met the end of the file before write @x made
 *  it longer; an access whose answer @y's chmod gave, or one that chmod
 *  @x would have answered otherwise; a listing that showed @y's name
 *  made or removed, or one @y that ended before name change @x), else 0. */
int rpl_seen_first(const struct rpl_plan *p, const struct rpl_seen *s,
		   const struct rpl_op *x, const uint64_t *xkeys, uint32_t xnk, int xkind,
		   int64_t xat, const struct rpl_op *y, int ykind, int64_t yat);
/*! rpl_seen_found() : is @op, an open with O_CREAT but not O_EXCL, one
 *  of a name that is there as the ops ordered so far leave it (made by
 *  an op ordered before, not removed since): it makes none.  @return :
 *  1 if so, else 0 (not such an open, or not known). */
int rpl_seen_found(const struct rpl_seen *s, const struct rpl_op *op);

/*! rpl_plan_build() : read @o->trace into @p.
 *  @return : 0 or negative after a message, but for a trace that cannot be
 *  opened: then @p->open_err holds iot_reader_open()'s code and the
 *  command says it. */
int rpl_plan_build(struct rpl_plan *p, const struct rpl_opts *o);
void rpl_plan_free(struct rpl_plan *p);

/*! rpl_plan_think() : turn the raw recorded gaps in op->think_ns into
 *  think times (think.c). */
int rpl_plan_think(struct rpl_plan *p);

/*! rpl_plan_wakes() : after rpl_plan_think(): an op whose gap the CPU
 *  budget cut, and which entered just after another thread of its process
 *  returned from a call, follows that call (wakes.c).  @return : 0 or
 *  -ENOMEM. */
int rpl_plan_wakes(struct rpl_plan *p);

/*! rpl_dep_append() : @op also follows the op at @pos of thread @thread
 *  (its dependencies copied to the end of plan.deps with that one).
 *  @return : 1 added, 0 it had it or has RPL_DEPS_MAX already, or -ENOMEM */
int rpl_dep_append(struct rpl_plan *p, struct rpl_op *op, uint32_t thread, uint32_t pos);

/*! rpl_mem_note() : with IOTAPE_REPLAY_MEM set, a line saying the
 *  process's memory after the step @what (plan.c's steps, the run, the
 *  profile): its anonymous pages resident, all its pages resident, and
 *  the peak of those so far (VmHWM).  The anonymous pages are the plan's
 *  and the run's own; the resident set adds the program's and the
 *  trace's mapped pages, which differ from run to run. */
void rpl_mem_note(const char *what);

/*! rpl_proc_threads() : each process's threads, in index order, into
 *  @p (proc_thr_off, proc_thr), listed once a plan: the planning steps
 *  after the threads step add no thread.  rpl_proc_threads_free() drops
 *  them.  @return : 0 or -ENOMEM. */
int rpl_proc_threads(struct rpl_plan *p);
void rpl_proc_threads_free(struct rpl_plan *p);

/*! rpl_plan_polls() : after rpl_plan_wakes(): a thread's loop of sleeps
 *  that timed out, which ended with the round in which other threads of
 *  its process ended: its rounds are marked RPL_OPF_WAITT (not slept once
 *  that thread has ended in the replay, ops_wait.c) and its op after the
 *  loop follows those threads' ends (polls.c).  @return : 0 or -ENOMEM */
int rpl_plan_polls(struct rpl_plan *p);

/*! rpl_plan_clean_paths() : drop the "." and "NAME/.." components the
 *  recorder left in the ops' and path states' paths where that names the
 *  same file (clean.c); p->ps in any order (the caller sorts them after).
 *  @return : how many states changed or went, or -ENOMEM. */
int rpl_plan_clean_paths(struct rpl_plan *p);

/*! rpl_prepare() : create the starting tree under the root. */
int rpl_prepare(struct rpl_plan *p, struct rpl_result *res);
/* The device number a device node of @type recorded as @rdev is made
 * with: @rdev for the memory devices (null, zero, full, random,
 * urandom), else 0:0, which no driver serves (its open fails ENXIO): a
 * trace must not reach a disk or a terminal of this machine from inside
 * the root (ops_dir.c) */
dev_t rpl_dev_standin(uint32_t type, uint64_t rdev);

/* prep_tree.c: directories of the starting tree kept open while it is
 * made, and which states the workload made itself. */
struct rpl_pdirs;
struct rpl_pdirs *rpl_pdirs_new(int root_fd);
void rpl_pdirs_free(struct rpl_pdirs *d);
/* The directory at @path (@len bytes) opened (O_PATH) inside the root,
 * or -errno; the descriptor is the cache's, good until the next call. */
int rpl_pdirs_get(struct rpl_pdirs *d, const char *path, size_t len);
/* As rpl_parent(), with a parent kept open (@n->dirfd not owned, good
 * until the next call); release with rpl_name_done(). */
int rpl_pdirs_parent(struct rpl_pdirs *d, const char *path, struct rpl_name *n);
/* Per state of @p: when the first of its ancestors whose first state is
 * "absent" (the workload made it) was met, INT64_MAX if none; NULL if
 * out of memory. */
int64_t *rpl_prep_made_t(const struct rpl_plan *p);

/* prep_flags.c: chattr's flags of the starting tree. */
/* unlinkat() of @n (0, or -1 and errno), once more after taking those
 * flags off it and its directory where it was refused EPERM. */
int rpl_prep_unlink_in_way(const struct rpl_name *n);
/* The flags of IOT_PS_ATTR_FLAGS of entry @name of @dirfd (a plain name,
 * opened inside the root) set to @flags, its others kept: 0 or -errno
 * (EOPNOTSUPP: a filesystem without them; EPERM: no CAP_LINUX_IMMUTABLE). */
int rpl_prep_set_attr_flags(int dirfd, const char *name, uint32_t flags);

/* ---- execution ---- */

/* Per-thread context of the executor. */
struct rpl_ctx {
	struct rpl_plan *p;
	struct rpl_thread *t;
	struct rpl_proc *pr;
	char *scratch;			/* RPL_SCRATCH bytes, page aligned */
	int64_t sys0, sys1;		/* the op's own calls: first start, last end */
	uint32_t pos;			/* the op's position in its thread (t->ops[pos]) */
};

/* cwd.c: a process's working directory, kept open for when it is removed:
 * set (taking @fd), copied to a child, closed; and @path, that directory or
 * its "..", opened through it with @flags (no O_CREAT, no O_TRUNC), or
 * -ENOENT */
void rpl_cwd_set(struct rpl_ctx *c, int fd, const char *path);
void rpl_cwd_inherit(struct rpl_proc *pr, struct rpl_proc *parent);
void rpl_cwd_drop(struct rpl_proc *pr);

/*! rpl_fork_closes() : into @fc, the closes that other threads of the
 *  process forking @t's process (@t its first thread) began before the
 *  recorded fork had copied the table (@t->copied_ns) and have not run
 *  here yet (fork_fds.c); at most RPL_FORK_CLOSES; none where the
 *  process has one thread or its threads are not listed (the run lists
 *  them: rpl_proc_threads()).  Called before the copy of the table: an op
 *  run after it may have closed its descriptor after the copy. */
void rpl_fork_closes(struct rpl_plan *p, const struct rpl_thread *t, struct rpl_fork_closes *fc);

/* ---- plocks.c: POSIX record locks, each recorded process's own ---- */
struct rpl_plocks;
/* rpl_plock_fd() : the descriptor a record lock of the running process
 * is taken on for the file @live has open (its process's own open of
 * it, made at its first use; @live where none can be made). */
int rpl_plock_fd(struct rpl_ctx *c, int live);
/* rpl_plock_closing_fds() : @pr is closing its recorded descriptors
 * @first to @last (@cloexec: those of them that close on exec; a close,
 * a close_range, a dup2 onto one, an exec), before they close: its locks
 * of their files go. */
void rpl_plock_closing_fds(struct rpl_proc *pr, unsigned long first, unsigned long last,
			   int cloexec);
/* rpl_plock_drop() : @pr ended: its locks go. */
void rpl_plock_drop(struct rpl_proc *pr);
int rpl_cwd_open(struct rpl_ctx *c, const char *path, int flags);

/* RPL_CALL(c, call): make the op's own syscall, timed.  @return : its
 * result, or -errno.  The profile's times and the schedule are those of
 * the calls the op makes on the filesystem, not of the replayer's work
 * around them (looking up caches and descriptor maps, opening a parent
 * directory), so that the schedule can hide that work in think time. */
#define RPL_CALL(c, call) __extension__ ({				\
	int64_t t0_ = iot_now_ns();					\
	long r_ = (long)(call);						\
	int e_ = errno;							\
	rpl_called((c), t0_);						\
	r_ < 0 ? -(int64_t)e_ : (int64_t)r_;				\
})

static inline void rpl_called(struct rpl_ctx *c, int64_t t0)
{
	if (!c->sys0)
		c->sys0 = t0;
	c->sys1 = iot_now_ns();
}

/* RPL_TIMED(c, expr): as RPL_CALL, for a helper that makes the op's
 * call and returns its result itself (-errno, not errno). */
#define RPL_TIMED(c, expr) __extension__ ({				\
	int64_t t0_ = iot_now_ns();					\
	__typeof__(expr) v_ = (expr);					\
	rpl_called((c), t0_);						\
	v_;								\
})

#define RPL_SCRATCH (1 << 20)
#define RPL_IO_MAX (256LL << 20)	/* largest transfer one call replays */

/*
 * The closed-loop schedule of one replay thread (exec_thread.c explains it):
 * @lag : how much later than ideal its calls have started, in all, not
 * yet made up.  An op whose call should ideally start at @ideal (the
 * previous call's end plus think time) is started at rpl_sched_start();
 * once it ran, rpl_sched_ran() takes when its call really started.
 */
struct rpl_sched {
	int64_t lag;
};

static inline int64_t rpl_sched_start(const struct rpl_sched *s, int64_t ideal)
{
	return ideal - s->lag;
}

static inline void rpl_sched_ran(struct rpl_sched *s, int64_t ideal, int64_t started)
{
	s->lag += started - ideal;
	if (s->lag < 0)
		s->lag = 0;
}

/*
 * How long a thread was kept off the CPU from @wall0 to @wall1 (the wall
 * clock), its CPU clock reading @cpu0 and @cpu1 there: the wall time its
 * CPU clock did not advance.  From a call's end to the spin of the next
 * think time this is the workload's time, as the spin's own (exec_thread.c):
 * a program preempted there computes later.
 */
static inline int64_t rpl_sched_offcpu(int64_t wall0, int64_t cpu0, int64_t wall1, int64_t cpu1)
{
	int64_t off = (wall1 - wall0) - (cpu1 - cpu0);

	return off > 0 ? off : 0;
}

/* A handler replays one op: @return : the result (>= 0 or -errno), or
 * RPL_SKIPPED after setting op->skip. */
#define RPL_SKIPPED INT64_MIN
typedef int64_t (*rpl_handler)(struct rpl_ctx *c, struct rpl_op *op);

/* The handler of syscall @nr, or NULL (ops_table.c); the first call fills
 * rpl_handlers[], which the executor then reads directly. */
rpl_handler rpl_handler_for(int nr);
extern rpl_handler rpl_handlers[RPL_MAX_NR];
/* Family tables: fill h[nr] for the syscalls each file handles. */
void rpl_ops_file(rpl_handler *h);
void rpl_ops_io(rpl_handler *h);
void rpl_ops_meta(rpl_handler *h);
void rpl_ops_xattr(rpl_handler *h);
void rpl_ops_dir(rpl_handler *h);
void rpl_ops_proc(rpl_handler *h);
void rpl_ops_aio(rpl_handler *h);
void rpl_ops_uring(rpl_handler *h);
void rpl_ops_wait(rpl_handler *h);

/*! rpl_wait_sleep_ns() : what a WAIT op (ops_wait.c) sleeps in the replay.
 *  @return : its recorded duration, no longer than its relative timeout,
 *  where it ended by that timeout; -1 where it returned for an event or a
 *  signal (left to the plan's order) or is no wait. */
int64_t rpl_wait_sleep_ns(const struct rpl_ev *ev);

/*! rpl_wait_timeout_ns() : the relative timeout WAIT op @ev was given, in
 *  ns (ops_wait.c).  @return : it, or -1: none, absolute, or no WAIT op */
int64_t rpl_wait_timeout_ns(const struct rpl_ev *ev);
/*! rpl_timed_ns() : a recorded time @ns as the replay's timing plays it:
 *  none under afap, multiplied under scale, as recorded otherwise. */
static inline int64_t rpl_timed_ns(const struct rpl_opts *o, int64_t ns)
{
	if (o->timing == RPL_TIMING_AFAP)
		return 0;
	if (o->timing == RPL_TIMING_SCALE)
		return (int64_t)((double)ns * o->scale);
	return ns;
}

/*! rpl_sleep_until() : sleep until @t (the monotonic clock) as a wait
 *  the replay sleeps (ops_wait.c, aio.c); a stop (SIGINT) ends it.
 *  @return : 0, or -EINTR if stopped. */
int64_t rpl_sleep_until(int64_t t);

/*! rpl_wait_until() : wait until @t (the monotonic clock), asleep but for
 *  its last RPL_SPIN_NS, spun; a stop ends the wait (it may be a long
 *  think time).
 *  @return : 0, or 1 if stopped. */
int rpl_wait_until(int64_t t);

/* ---- async I/O (aio.c, uring.c) ---- */
/*! rpl_aio_collect() : keep AsyncOp @a read from the trace, tied to the
 *  op of its event.  @return : 0 or -ENOMEM. */
int rpl_aio_collect(struct rpl_plan *p, const struct iot_aio *a);
/*! rpl_aio_tally() : the async counts of @res. */
void rpl_aio_tally(struct rpl_plan *p, struct rpl_result *res);
/*! rpl_aio_ring_key() : the key of @a's ring or libaio context (in
 *  plan.aio_ring, and aio_depth.c's): its process and its descriptor. */
uint64_t rpl_aio_ring_key(const struct iot_aio *a);
/*! rpl_aio_depth() : the requests in flight, recorded and replayed, into
 *  @res (aio_depth.c says how they are counted). */
void rpl_aio_depth(const struct rpl_plan *p, struct rpl_result *res);
/*! rpl_aio_wait_seen() : a wait for completions began with @inflight
 *  requests in flight, in the recording (@replay 0) or the replay. */
void rpl_aio_wait_seen(struct rpl_plan *p, int replay, uint64_t inflight);
/*! rpl_aio_fault() : request @ra, reaped by @op, failed with a fault of
 *  the filesystem under test: stop as for a failed call. */
void rpl_aio_fault(struct rpl_ctx *c, struct rpl_op *op, const struct rpl_aio *ra);
/*! rpl_aio_profile() : write to profile @w the async records of @op,
 *  written as the profile's event @event: its requests, set-ups and
 *  registrations as the replay made them (those it could not make are
 *  left out), at the op's entry (@t_ns, its call's start in the replay),
 *  and the completions it reaped, with their results and the time the
 *  replay saw them.  The first call indexes the completions by the op
 *  that reaped them.
 *  @return : 0 or a negative code of the writer. */
int rpl_aio_profile(struct rpl_plan *p, struct iot_writer *w, const struct rpl_op *op,
		    int64_t t_ns, uint64_t event);
/*! rpl_aio_await() : before @op (a close, munmap or exit, not an
 *  io_uring_enter, which waits itself): the io_uring requests whose
 *  completions the recording saw there are waited for here too (after
 *  those a polling ring took, rpl_uring_submit_polled()). */
void rpl_aio_await(struct rpl_ctx *c, struct rpl_op *op);
/* free every process's contexts and rings */
void rpl_aio_free(struct rpl_plan *p);

/* ---- pages of file mappings (mpages.c) ---- */
#define RPL_MP_DONE	0x100	/* iot_mpages.flags: replayed */
#define RPL_MP_FAILED	0x200	/* ... could not be */
/*! rpl_mpages_collect() : keep MapPages @m, tied to the op of its event. */
int rpl_mpages_collect(struct rpl_plan *p, const struct iot_mpages *m);
/*! rpl_path_plain() : absolute @path of @len bytes with its "." and
 *  ".." components taken out, lexically, in place (clean.c).  @return :
 *  its new length. */
size_t rpl_path_plain(char *path, size_t len);
/*! rpl_mp_taken_here() : does @op carry pages taken by its own call (a
 *  munmap, msync, mremap, exit or exec), which stay in its recorded place?
 *  Pages moved to an op of the gap that held them (rpl_mpages_plan())
 *  go with that op, wherever a walk takes its path (dirwalk.c). */
int rpl_mp_taken_here(const struct rpl_op *op);
/*! rpl_mpages_plan() : after rpl_plan_think(): tie each op's pages to the
 *  op of its thread with the longest gap since their mappings were made
 *  (mpages.c). */
void rpl_mpages_plan(struct rpl_plan *p);
/*! rpl_mpages_run() : read and write the pages tied to @op. */
void rpl_mpages_run(struct rpl_ctx *c, struct rpl_op *op);
void rpl_mpages_tally(struct rpl_plan *p, struct rpl_result *res);
/*! rpl_mpages_profile() : write to profile @w the pages @op read and
 *  wrote (those of its MapPages records it replayed), as records of the
 *  profile's event @event at the op's exit (@t_ns, its call's end in the
 *  replay).  @return : 0 or a negative code of the writer. */
int rpl_mpages_profile(struct rpl_plan *p, struct iot_writer *w, const struct rpl_op *op,
		       int64_t t_ns, uint64_t event);
/*! rpl_mpages_mmap() : replayed mmap, munmap and msync: an mmap of a
 *  file keeps a copy of its descriptor for the pages taken later (the
 *  name may be gone by then), a munmap drops those it unmaps.  The call
 *  itself is not made: @return : RPL_SKIPPED (RPL_SKIP_MMAP). */
int64_t rpl_mpages_mmap(struct rpl_ctx *c, struct rpl_op *op);
/*! rpl_mpages_fork() : @pr, forked without CLONE_VM, gets a copy of its
 *  parent's file mappings: with @dup, of their descriptors (F_DUPFD); else
 *  the same numbers, which the child's own kernel table holds since it
 *  was copied.  The caller holds plan.aio_lock.  @return : 0 or -ENOMEM */
int rpl_mpages_fork(struct rpl_plan *p, struct rpl_proc *pr, int dup);
/*! rpl_mpages_fds() : the descriptors @pr's mappings hold, into *@v
 *  (malloc'd; NULL if none) and *@n.  @return : 0 or -ENOMEM */
int rpl_mpages_fds(const struct rpl_proc *pr, int **v, uint32_t *n);
/*! rpl_mpages_exec() : a successful execve of @c's process: its file
 *  mappings are gone, and their copies of descriptors closed. */
void rpl_mpages_exec(struct rpl_ctx *c);
void rpl_mpages_free(struct rpl_plan *p);

/* A context (libaio) or ring (io_uring) of a replayed process. */
struct rpl_actx {
	uint32_t api;
	uint64_t rec;			/* recorded aio_context_t or ring fd */
	uint64_t live;			/* live aio_context_t */
	void *ring;			/* struct io_uring * */
	int ring_fd;
	uint32_t inflight;
	uint32_t depth;			/* io_uring: most in flight when recorded; 0: unknown */
	uint64_t rec_sub, rec_done;	/* io_uring: requests submitted and completions
					 * seen when recorded, up to the op replayed */
	void **bufs;			/* registered buffers (io_uring) */
	uint64_t *buf_len;
	uint32_t n_bufs;
	pthread_mutex_t lock;		/* one call on it at a time */
};

#define RPL_AIO_BUF (8 << 20)
#define RPL_AIO_IOVS 64		/* iovecs of a vectored request replayed */

/* the context @api/@rec of @c's process, or NULL; created if @make */
struct rpl_actx *rpl_actx_get(struct rpl_ctx *c, uint32_t api, uint64_t rec, int make);
void rpl_actx_drop(struct rpl_ctx *c, uint32_t api, uint64_t rec);
/*! rpl_aio_buf() : where async request @a writes from (the bytes
 *  `record --data` kept, or plan.aio_buf) or reads into (its own bytes
 *  of plan.aio_rbuf while it is in flight); *@cap its length. */
char *rpl_aio_buf(struct rpl_plan *p, const struct iot_aio *a, uint64_t *cap);
/*! rpl_aio_iovs() : the iovecs of vectored request @a (its recorded
 *  lengths, at most RPL_AIO_IOVS) laid end to end in @buf of @cap bytes,
 *  into @iov; none reaches past @cap.  @return : how many. */
struct iovec;
uint32_t rpl_aio_iovs(const struct iot_aio *a, char *buf, uint64_t cap, struct iovec *iov);
/*! rpl_aio_plan_buf() : plan.aio_buf made (aio.c says why before the
 *  run).  @return : 0 or -errno */
int rpl_aio_plan_buf(struct rpl_plan *p);
void rpl_uring_free(struct rpl_actx *x);
#define RPL_RING_REGS 16	/* IO_RINGFD_REG_MAX */
/* rpl_aio_reg_get() : the recorded ring descriptor that registered index
 * @idx names in @c's process (*@live: the replay's index), or -1;
 * rpl_aio_reg_set() : @idx names @rec (-1: none) */
int64_t rpl_aio_reg_get(struct rpl_ctx *c, uint32_t idx, uint32_t *live);
void rpl_aio_reg_set(struct rpl_ctx *c, uint32_t idx, int64_t rec, uint32_t live);
/* rpl_uring_submit_polled() : before @op (not an io_uring_enter): the
 * requests recorded after it, which a ring in SQPOLL mode took with no
 * call of the program's, submitted through the replay's ring (which
 * does not poll) */
void rpl_uring_submit_polled(struct rpl_ctx *c, struct rpl_op *op);
/* rpl_uring_await() : with @x locked, wait until the requests of the
 * completions among @op's records [@from, @to) are complete here */
void rpl_uring_await(struct rpl_ctx *c, struct rpl_op *op, struct rpl_actx *x,
		     uint32_t from, uint32_t to);
/* rpl_uring_drain() : with @x locked, at the ring's end: wait until no
 * more requests are in flight here than were when recorded */
void rpl_uring_drain(struct rpl_ctx *c, struct rpl_op *op, struct rpl_actx *x);

/* helpers for handlers (ops_common.c) */
int64_t rpl_skip(struct rpl_op *op, int why);
/* The live fd of recorded fd @fd, or -1 after setting op->skip. */
int rpl_live_fd(struct rpl_ctx *c, struct rpl_op *op, int64_t fd);
/* As rpl_live_fd(), and *@e gets the whole entry. */
int rpl_live_fd_entry(struct rpl_ctx *c, struct rpl_op *op, int64_t fd, struct rpl_fd *e);
/* As rpl_live_fd(), and *@marks gets the entry's RPL_FD_CLONE_* and
 * RPL_FD_EVENTFD flags. */
int rpl_live_fd_marks(struct rpl_ctx *c, struct rpl_op *op, int64_t fd, int *marks);
/* The op's path, or NULL after setting op->skip (none, pseudo, excluded). */
const char *rpl_op_path(struct rpl_ctx *c, struct rpl_op *op, const char *path);
/* Deterministic, incompressible bytes for writes (RPL_SCRATCH long). */
const char *rpl_wbuf(void);
/* "/proc/thread-self/fd/@fd" into @buf (32 bytes at least): a path
 * naming a descriptor, without snprintf() (~700 instructions) */
void rpl_proc_fd(char *buf, int fd);
/* What @op's write writes: zeros where the program wrote zeros
 * (IOT_EV_ZERO), else rpl_wbuf(); RPL_SCRATCH long. */
const char *rpl_wbuf_of(const struct rpl_op *op);
/* A descriptor of no file (an eventfd, a memfd) made again by @make (a
 * live descriptor, or -errno) under @op's recorded result; a failed or
 * out-of-range one is skipped.  @return : as a handler's. */
int64_t rpl_anon_fd(struct rpl_ctx *c, struct rpl_op *op, int cloexec,
		    int64_t (*make)(struct rpl_ctx *c, const struct rpl_op *op));
/*! rpl_starts_open() : make the program a process start runs (spawn.c)
 *  into p->start_fd (-errno if it cannot be made: the starts then fail,
 *  and are counted).  rpl_starts_close() : close it. */
void rpl_starts_open(struct rpl_plan *p);
void rpl_starts_close(struct rpl_plan *p);
/*! rpl_start_process() : run that program, natively, and wait for it: a
 *  process start.  @return : 0, or -errno. */
int64_t rpl_start_process(struct rpl_plan *p);
/*! rpl_spin_wanted() : a think time of @ns is spent as CPU time (spin.c:
 *  --think cpu, a timing that budgets think time by CPU time, longer than
 *  the wall-clock spin that ends every wait anyway).
 *  rpl_spin_cpu() : run until this thread has used @ns more CPU time
 *  than @cpu0, its CPU clock read by the caller (or < 0: read here),
 *  yielding the CPU while @p has a hand-over pending (plan.handovers,
 *  plan.wake_seq moved).  @return : 0, or 1 if the replay was asked to
 *  stop. */
#define RPL_SPIN_MIN_NS 50000
int rpl_spin_wanted(const struct rpl_plan *p, int64_t ns);
int rpl_spin_cpu(struct rpl_plan *p, int64_t ns, int64_t cpu0);
/*! rpl_woke() : a sleeping thread of the replay was woken: spinning
 *  threads yield once to it. */
static inline void rpl_woke(struct rpl_plan *p)
{
	atomic_fetch_add_explicit(&p->wake_seq, 1, memory_order_relaxed);
}
/* Pipes and sockets (ops_pipe.c): rpl_pipe_nothing() : @op moved nothing
 * when recorded (EAGAIN), and is not made.  rpl_pipe_rest() : after the
 * replayed call's result @r on live @fd (a read or write at the file
 * position), move the rest of what @op moved when recorded, waiting for
 * the other end.  @return : the bytes moved, or @r. */
int rpl_pipe_nothing(const struct rpl_op *op);
int64_t rpl_pipe_rest(struct rpl_ctx *c, struct rpl_op *op, int fd, int64_t r, int wr);
/* ops_sock.c: rpl_conn_name() : before connect @op (RPL_OPF_CONNQ)
 *  connects live socket @sock, a name for it that its accept knows it
 *  by.  rpl_conn_made() : it connected: its accept takes the connection
 *  of that socket. */
void rpl_conn_name(struct rpl_ctx *c, const struct rpl_op *op, int sock);
void rpl_conn_made(struct rpl_ctx *c, const struct rpl_op *op, int sock);
/* rpl_conn_courier() : the courier of kept connections made (before any
 * thread copies the replayer's kernel table), where the plan pairs
 * connects with accepts; rpl_conn_courier_close() : it closed. */
void rpl_conn_courier(struct rpl_plan *p);
void rpl_conn_courier_close(struct rpl_plan *p);
/* rpl_pipe_gone_first() : before a write that met EPIPE when recorded,
 * the end of the process whose descriptors closed its reading end
 * (RPL_OPF_WAITS: plan_pipes.c rpl_sent_into()). */
void rpl_pipe_gone_first(struct rpl_ctx *c, const struct rpl_op *op);
/* rpl_pipe_reader() : a new read end of the pipe whose write end is live
 * @fd (RPL_OPF_LATE_READER), to be closed by the caller, or -1. */
int rpl_pipe_reader(int fd);
/* rpl_msg_got_fds() : the descriptors a received message @m carried,
 * into @live (up to @max; those beyond are closed).  @return : how many
 * were kept. */
struct msghdr;
int rpl_msg_got_fds(const struct msghdr *m, int *live, int max);
/* rpl_pipe_move() : @op's splice or tee of @n bytes from live @in to live
 * @out, waiting for its pipes where it moved bytes when recorded.
 * @return : its result, or -errno. */
int64_t rpl_pipe_move(struct rpl_ctx *c, struct rpl_op *op, int in, int out, size_t n);
/* rpl_sendfile_rest() : @op's sendfile of @n bytes from @in (at *@off,
 * or its offset) into @out, whose first try gave @r (EAGAIN: a full pipe
 * of the replay's, or fewer bytes than recorded): the rest of what it
 * moved when recorded, waiting for room as a write does.  @return : the
 * bytes moved, or @r. */
int64_t rpl_sendfile_rest(struct rpl_ctx *c, struct rpl_op *op, int out, int in, off_t *off,
			  size_t n, int64_t r);
/* rpl_fd_is_stream() : is live descriptor @fd a pipe or a socket (not a
 * file, where short is short)? */
int rpl_fd_is_stream(int fd);
/* rpl_msg_rw() : @op's sendmsg or recvmsg, with the descriptors its
 * message carried (ops_pipe.c). */
int64_t rpl_msg_rw(struct rpl_ctx *c, struct rpl_op *op);
/* rpl_wait_again() : after an EAGAIN of @op's call on @pfd's descriptor,
 * wait (20 ms at most) for it to be ready, unless the replay is stopping
 * or the wait is given up, as a pipe's is (ops_pipe.c).  @return : 1 to
 * make the call again, else 0. */
struct pollfd;
int rpl_wait_again(struct rpl_ctx *c, const struct rpl_op *op, struct pollfd *pfd,
		   int64_t *deadline);
/* ---- ops_sock.c: Unix sockets with names ---- */
struct sockaddr_un;
/* rpl_sock_live() : the replay's own socket for descriptor @fd of the
 * running process, or -1 (none, not a socket). */
int rpl_sock_live(struct rpl_ctx *c, int64_t fd);
/* rpl_sock_addr() : into @sa, the address of NAME in directory @dirfd
 * (NULL @name: of @dirfd itself) through /proc/thread-self/fd.
 * @return : 0, or -ENAMETOOLONG where it does not fit. */
int rpl_sock_addr(struct sockaddr_un *sa, int dirfd, const char *name);
void rpl_ops_sock(rpl_handler *h);
/* rpl_send_recv() : @op's sendto or recvfrom (@wr: the first) on live
 * descriptor @fd, moving what it moved when recorded (ops_pipe.c). */
int64_t rpl_send_recv(struct rpl_ctx *c, struct rpl_op *op, int fd, int wr);
/* rpl_vmsplice() : @op's vmsplice into (or out of) a pipe (ops_pipe.c). */
int64_t rpl_vmsplice(struct rpl_ctx *c, struct rpl_op *op);
/* rpl_eventfd_rw() : @op's read or write of eventfd @fd, live (ops_pipe.c).
 * @return : as a handler's. */
int64_t rpl_eventfd_rw(struct rpl_ctx *c, struct rpl_op *op, int fd, int wr);
/* rpl_pipe_fit() : of a pipe's writes, ending after @w_end[i] bytes, the
 * latest from @first (the first with bytes a read from byte @from moves)
 * to @cur (the one that put its last byte in) that fits in the pipe with
 * the bytes from @from: the write that read may be ordered after.
 * @return : its index, or -1 (none: the read waits for its bytes alone). */
ptrdiff_t rpl_pipe_fit(const int64_t *w_end, size_t first, size_t cur, int64_t from);
/* The executor (exec.c), for the process handlers: start thread @ti (a
 * clone op did, or the run at start). */
int rpl_thread_start(struct rpl_plan *p, uint32_t ti);
/* Wait until process @pi finished (wait4; exec_wait.c). */
void rpl_wait_proc(struct rpl_plan *p, uint32_t pi);

/* ---- credentials (creds.c) ---- */
enum {
	RPL_CREDS_OFF = 0,		/* none recorded, or IOTAPE_REPLAY_CREDS=0 */
	RPL_CREDS_ON,			/* threads take theirs */
	RPL_CREDS_CANNOT,		/* not root: counted, not taken */
	RPL_CREDS_ROOT_CLOSED,		/* --root not searchable by others: as root */
};
/*! rpl_creds_init() : whether the run follows credentials, and the
 *  first threads' from the header (before any thread starts). */
void rpl_creds_init(struct rpl_plan *p);
void rpl_creds_free(struct rpl_plan *p);
/* syscall @nr changes a thread's credentials (the set*id calls, capset) */
int rpl_creds_call(int nr);
/* thread @t, not yet running, started by @parent (NULL: by the replay) */
void rpl_creds_inherit(struct rpl_plan *p, struct rpl_thread *t, const struct rpl_thread *parent);
/* the calling replay thread's kernel filesystem ids and groups set to
 * its cred (a no-op where they are) */
void rpl_creds_apply(struct rpl_ctx *c);
/* ... set to root's, for the replayer's own work in the thread: undone
 * by rpl_creds_apply() */
void rpl_creds_root(struct rpl_ctx *c);
/* a successful exec of the calling thread's process: its saved and
 * filesystem ids become its effective ones, and it keeps capabilities
 * only as root */
void rpl_creds_exec(struct rpl_ctx *c);
static inline int rpl_creds_other(const struct rpl_ctx *c)
{
	return c->t->cred_set == RPL_CRED_THREAD &&
	       (c->t->cred.uid[RPL_CRED_FS] || c->t->cred.gid[RPL_CRED_FS]);
}
void rpl_ops_creds(rpl_handler *h);

/* ---- the mask new files are made without (umask.c) ---- */
/*! rpl_umask_init() : whether the run follows the processes' masks, and
 *  the first one's from the header (before any thread starts). */
void rpl_umask_init(struct rpl_plan *p);
/* an octal mask (record.umask; blanks after it allowed) into @mask.
 * @return : 0, or -1 */
int rpl_umask_parse(const char *s, uint32_t *mask);
/* process @pr's mask at its start: its parent's now (under spawn_lock) */
void rpl_umask_inherit(struct rpl_plan *p, struct rpl_proc *pr);
/* the calling replay thread's own filesystem context, with its mask */
void rpl_umask_start(struct rpl_ctx *c);
/* the thread's kernel mask set to its process's, changed by another thread */
void rpl_umask_take(struct rpl_ctx *c);
static inline void rpl_umask_sync(struct rpl_ctx *c)
{
	if (c->t->umask_now >= 0 &&
	    (int32_t)atomic_load_explicit(&c->pr->umask, memory_order_relaxed) != c->t->umask_now)
		rpl_umask_take(c);
}
void rpl_ops_umask(rpl_handler *h);

/* Parent directories, cached per thread (dcache.c). */
struct rpl_dcache;
/* Slots: a thread whose process has its kernel descriptor table to
 * itself keeps more parents open than one whose table other threads fill
 * too (RLIMIT_NOFILE counts per table: 20,000 here). */
#define RPL_DC_OWN 256
#define RPL_DC_SHARED 64
/* slots a parent may take: the set its path's hash picks (dcache.c) */
#define RPL_DC_WAYS 4
struct rpl_dcache *rpl_dcache_new(uint32_t slots);
void rpl_dcache_free(struct rpl_dcache *d);
/* Close every parent @d holds: its thread's credentials changed, and a
 * parent it opened before may be one it could not reach now (creds.c). */
void rpl_dcache_drop(struct rpl_dcache *d);
/* As rpl_parent(), through the thread's cache; release with
 * rpl_name_done(). */
int rpl_parent_at(struct rpl_ctx *c, const char *path, struct rpl_name *n);
/* As rpl_parent_at(), for an op's second name while @first (its first's)
 * is in use: the cache never closes @first's descriptor for it. */
int rpl_parent_at2(struct rpl_ctx *c, const char *path, struct rpl_name *n,
		   const struct rpl_name *first);
/* The op's path as one plain name in the live descriptor its dirfd
 * argument names: @return : 0 (n->dirfd is not owned) or -1. */
int rpl_parent_fd(struct rpl_ctx *c, const struct rpl_op *op, struct rpl_name *n);
/* As rpl_resolve(), first as one component of the cached parent. */
int rpl_open_at(struct rpl_ctx *c, const char *path, int flags, mode_t mode);
void rpl_name_done(struct rpl_name *n);
/* @fd, a directory opened at @path (no name changed since @gen), is a
 * parent for the names below it. */
void rpl_dcache_offer(struct rpl_ctx *c, const char *path, int fd, uint32_t gen);
/* A name was removed, renamed or made a symlink: cached parents are stale. */
void rpl_ns_changed(struct rpl_plan *p);
/* A name that was no directory was removed (unlink), renamed over no
 * directory, or made a symlink: stale only are the cached parents whose
 * path went through a symlink. */
void rpl_ns_nodir(struct rpl_plan *p);
/*! rpl_op_flock() : fcntl lock op @op's struct flock, as the trace keeps
 *  it (iot_flock_pack()), into *@fl, l_pid 0.  @return : 0, or -1 if
 *  its struct was not recorded (ops_file.c). */
struct flock;
int rpl_op_flock(const struct rpl_op *op, struct flock *fl);
/*! rpl_only_looks() : whether @op (of syscall @sc) leaves its path, and
 *  its parent's names, as it found them: a look-up, a read, a close, an
 *  open that neither creates nor truncates, any call that failed
 *  (plan_fds.c). */
int rpl_only_looks(const struct iot_syscall *sc, const struct rpl_op *op);
/*! rpl_path_key() : the resource key of @path (its trailing slashes
 *  dropped), as an op that names it has it (plan_fds.c). */
uint64_t rpl_path_key(const char *path);
/*! rpl_parent_key() : the resource key of the directory of @path's last
 *  name, whose length goes to *@name_len (plan_fds.c). */
uint64_t rpl_parent_key(const char *path, size_t *name_len);
/*! rpl_locks_key() : the resource key of the locks of the file at
 *  @path, as its lock calls have it (plan_fds.c). */
uint64_t rpl_locks_key(const char *path);
/*! rpl_open_flags_arg() : @return : the index of @sc's open flags (an
 *  open's flags argument, or openat2's open_how, whose flags the trace
 *  keeps there), or -1: not an open. */
int rpl_open_flags_arg(const struct iot_syscall *sc);

/*! rpl_plan_moves() : mark RPL_OPF_NODIR the renames the recorded calls
 *  and path states show to move no directory, over none (moves.c).
 *  @return : 0 or -ENOMEM. */
int rpl_plan_moves(struct rpl_plan *p);

/*! rpl_stop_sig : the signal (SIGINT, SIGTERM, SIGHUP) that asked the
 *  replay to stop, RPL_STOP_FAULT if a target fault did (fault.c), or 0.
 *  Threads finish the op they are in and stop; the ops not reached are
 *  skipped as RPL_SKIP_INTERRUPTED. */
extern _Atomic int rpl_stop_sig;
#define RPL_STOP_FAULT (-1)

/* ---- faults of the filesystem under test (fault.c) ---- */

/*! rpl_fault_kind() : @return : the kind (0 .. RPL_FAULT_KINDS - 1) of
 *  result @r if it is a target fault (-ENOSPC ...), else -1. */
int rpl_fault_kind(int64_t r);
/*! rpl_fault_of() : as rpl_fault_kind(), for result @r of @op: -1 for
 *  what only looks like a target fault (setxattr's ENOSPC: a value too
 *  large for the filesystem). */
int rpl_fault_of(const struct rpl_op *op, int64_t r);
/*! rpl_fault_seen() : @op failed with target fault @r that the recording
 *  did not have: keep the first one and, unless --on-error continue,
 *  stop the replay. */
void rpl_fault_seen(struct rpl_ctx *c, struct rpl_op *op, int64_t r);
/*! rpl_fault_watch_start(), rpl_fault_watch() : note what --root leads
 *  to; later, stop the replay if it leads elsewhere (the mount was
 *  detached).  @ops_done : about how many ops ran.  @return : 1 if it
 *  stopped the replay now. */
void rpl_fault_watch_start(struct rpl_plan *p);
int rpl_fault_watch(struct rpl_plan *p, uint64_t ops_done);
/*! rpl_fault_result() : the first fault, as text, into @res. */
void rpl_fault_result(const struct rpl_plan *p, struct rpl_result *res);

/*! rpl_prepare_fit() : does the starting tree of @p fit the root?  Sets
 *  res->tree_bytes and res->root_free_bytes.  @return : 0 (*@sparse set
 *  if it does not fit and --sparse-prepare asked for sparse files), or
 *  -ENOSPC with res->tree_too_big set (the caller says so). */
int rpl_prepare_fit(struct rpl_plan *p, struct rpl_result *res, int *sparse);

/*! rpl_ps_data_bytes() : the bytes of data the prepare writes for the
 *  regular file state @ps (its size; a sparse file's data ranges). */
uint64_t rpl_ps_data_bytes(const struct iot_path_state *ps);
/*! rpl_ps_range() : data range @i of the sparse state @ps, cut to its
 *  size (ranges ascend: none after one past it).  @return : 1 and *@off,
 *  *@len; 0 when there is no such range. */
int rpl_ps_range(const struct iot_path_state *ps, uint32_t i, uint64_t *off, uint64_t *len);
/*! rpl_ps_made_by_workload() : whether the workload made @ps (or an
 *  ancestor) itself: not part of the starting tree (prepare.c). */
int rpl_ps_made_by_workload(const struct rpl_plan *p, const struct iot_path_state *ps);

/* ends a call a stopped thread is blocked in (its handler does nothing) */
#define RPL_POKE_SIG	SIGURG

/*! rpl_execute() : run every thread; fills the timing fields of the ops. */
int rpl_execute(struct rpl_plan *p, struct rpl_result *res);

/*! rpl_profile_write() : write the profile @o->out and fill @res's
 *  counters. */
int rpl_profile_write(struct rpl_plan *p, struct rpl_result *res);
/* The run's counters into @res, from every op's outcome: 0, or -errno
 * (said) if the outcomes could not be kept or read back. */
int rpl_tally(struct rpl_plan *p, struct rpl_result *res);

/* The ops' outcomes (outcome.c): rpl_outcome_open() before the threads
 * run (-errno, said), rpl_outcome_add() by a thread for each op it ran,
 * in its order, rpl_outcome_end() when it ends, rpl_outcome_free() with
 * the plan.  After the run, rpl_outs_open() goes through every op with
 * its outcome (enter 0: it did not run), in the plan's order or, with
 * @by_time, by when it started (then its position in the file):
 * rpl_outs_next() gives 1 and the next one, 0 at the end, or -errno;
 * rpl_outcome_at() one of them. */
struct rpl_outs;
int rpl_outcome_open(struct rpl_plan *p);
#define RPL_OUT_BLOCK 512	/* outcomes a thread writes at once (12 KiB) */
void rpl_outcome_put(struct rpl_plan *p, struct rpl_thread *t, int64_t enter, int64_t exit,
		     int64_t ret);
/* Inline: the one call the replay makes for every op.  What is not a
 * plain store in a block in hand (the first call, the block's first
 * outcome, its last, which writes it) is rpl_outcome_put()'s. */
static inline void rpl_outcome_add(struct rpl_plan *p, struct rpl_thread *t, int64_t enter,
				   int64_t exit, int64_t ret)
{
	if (t->first_ns && t->out_buf && t->out_fill + 1 < RPL_OUT_BLOCK) {
		t->out_buf[t->out_fill++] = (struct rpl_outcome){ enter, exit, ret };
		t->n_out++;
		return;
	}
	rpl_outcome_put(p, t, enter, exit, ret);
}
void rpl_outcome_end(struct rpl_plan *p, struct rpl_thread *t);
void rpl_outcome_free(struct rpl_plan *p);
int rpl_outs_open(struct rpl_plan *p, int by_time, struct rpl_outs **m);
/* the outcome of @t's op at position @k alone: 0 or -errno */
int rpl_outcome_at(const struct rpl_plan *p, const struct rpl_thread *t, uint32_t k,
		   struct rpl_outcome *oc);
int rpl_outs_next(struct rpl_outs *m, struct rpl_op **op, struct rpl_outcome *oc);
void rpl_outs_close(struct rpl_outs *m);

/* How late calls started (late.c): rpl_late_init() before the threads
 * run, rpl_late_add() by each thread (@ns > 0: a late call),
 * rpl_late_result() the p50, p99 and max of @replayed calls into @res. */
int rpl_late_init(struct rpl_plan *p);
void rpl_late_add(struct rpl_plan *p, struct rpl_thread *t, int64_t ns);
void rpl_late_result(const struct rpl_plan *p, uint64_t replayed, struct rpl_result *res);

/* The starting-tree state of @path, or NULL. */
const struct iot_path_state *rpl_path_state(const struct rpl_plan *p, const char *path);

#endif
