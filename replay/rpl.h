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

#include "rpl_plan.h"

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

#include "rpl_exec.h"

#endif
