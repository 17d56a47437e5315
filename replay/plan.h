/*
 * plan.h - what the files of the planner share among themselves: the
 * planner's state while it walks the ops (plan_threads.c, plan_fds.c),
 * and the steps rpl_plan_build() (plan.c) runs in turn.  Nothing outside
 * plan*.c includes it; the plan itself is in rpl.h.
 */
#ifndef RPL_PLAN_H
#define RPL_PLAN_H

#include <stdint.h>

#include "rpl.h"

/* The planner's state for one pass over the ops in entry order. */
struct rpl_planner {
	struct rpl_map tid2thread, pid2proc, spawn;	/* spawn: child tid -> op */
	int32_t last_tid;			/* the last tid looked up in tid2thread */
	uint32_t last_ti;			/* ... its value (UINT32_MAX: none) */
	struct rpl_map files;			/* child tid -> clone flags (Process records) */
	struct rpl_map forked;			/* child tid -> its FORK record in plan.precs */
	struct rpl_map pipes;			/* resource ids of pipes (plan_fds.c, plan_pipes.c) */
	struct rpl_map locked;			/* open file's resource id -> index in lock_keys */
	uint64_t *lock_keys;			/* the lock key of each open file a lock was taken
						 * through (plan_locks.c rpl_held_lock()) */
	size_t n_lock_keys, cap_lock_keys;
	int frees_locks;			/* the op planned last is a close, exec or exit
						 * that lets locks go (rpl_held_lock()); 2: an exit
						 * that lets one go for good (rpl_deps_add()) */
	struct rpl_fdends ends;			/* the plan tables' copies of each pipe end */
	/* a FIFO's path (key_path()) -> the pipe resource its opens share
	 * (FIFO_GONE: removed or renamed since; fifo_res()) */
	struct rpl_map fifos;
	size_t ps_fifos;			/* path states of FIFOs */
	/* A forked child's table is its parent's at the fork, not at the
	 * child's first op: the parent goes on (a shell closes its end of
	 * the pipe the child writes to) before the child's first call. */
	struct rpl_map snap_of;			/* child tid -> index in snap */
	struct rpl_map gone;			/* threads ended by their exit record */
	struct rpl_fdtab **snap;
	size_t n_snap, cap_snap;
	uint32_t next_res;
	/* descriptors sent over a socket pair and not yet received: the
	 * sender's entries, by the pipe their message went into
	 * (plan_socks.c rpl_plan_msg_fds()) */
	struct rpl_flying {
		uint32_t way;
		struct rpl_fd e;
		uint32_t op;		/* conns: the connect's op */
		uint64_t ino;		/* conns: its socket (iot_sock_ino()) */
	} *flying;
	size_t n_flying, cap_flying;
	/* recvmsgs that found none of their descriptors in flight when
	 * they began, waiting for a sendmsg into their way that began
	 * before they returned (plan_socks.c rpl_plan_msg_fds()) */
	struct rpl_wmsg {
		struct rpl_fdtab *tab;		/* the receiving process's then */
		uint32_t proc, way;
		int n, k;			/* numbers it got, given entries so far */
		int cloexec;
		int64_t until;			/* the recvmsg's return */
		int32_t fds[IOT_MSG_FDS_MAX];
	} *wmsg;
	size_t n_wmsg, cap_wmsg;
	/* named Unix sockets: a bound name's key -> the socket's resource;
	 * connections made and not yet accepted, the accepting end's entry
	 * by the listener's resource (plan_socks.c rpl_sock_ends()) */
	struct rpl_map bound;
	/* a listener's resource -> how many connections its queue holds
	 * (its listen backlog + 1; plan_socks.c queue_full()) */
	struct rpl_map backlog;
	/* accepts that took a connection queued on a listener, by their
	 * return (plan_socks.c queue_full()) */
	struct rpl_accf { uint32_t listener; int64_t until; } *accf;
	size_t n_accf, cap_accf;
	struct rpl_flying *conns;
	size_t n_conns, cap_conns;
	/* accepts that found no connect queued when they began, waiting
	 * for one that began before they returned (plan_socks.c) */
	struct rpl_wacc {
		struct rpl_fdtab *tab;		/* the accepting process's then */
		uint32_t proc, listener, op;
		int32_t fd;
		int cloexec;
		uint64_t ino;
		int64_t until;			/* the accept's return */
	} *wacc;
	size_t n_wacc, cap_wacc;
	/* entries a new descriptor took the number of while another
	 * thread's close of it was under way (plan_fds.c displace()) */
#define RPL_DISPLACED 8
	struct rpl_displaced {
		const struct rpl_fdtab *tab;
		int64_t until;			/* the taking call's exit */
		uint32_t thread;		/* ... its thread */
		int32_t fd;
		struct rpl_fd e;
	} disp[RPL_DISPLACED];
	uint32_t n_disp;
	/* socket pairs' ends (their resources): the last send of data into
	 * each, and the process whose end closed it last (NO_PROC: an
	 * explicit close did; plan_pipes.c rpl_plan_socks_end()) */
	struct rpl_map sock_into, sock_gone;
	/* writes of data into a file keep their order across threads
	 * (plan_fds.c writes_data()): the trace holds the bytes
	 * (record --data), whose places that order decides */
	int writes_ordered;
};

/*! rpl_plan_socks_end() : process @pi's table @tab closes for good (its
 *  end): the socket pairs' ends it closes last.  @return : 0 or -ENOMEM. */
int rpl_plan_socks_end(struct rpl_plan *p, struct rpl_planner *pl, uint32_t pi,
		       const struct rpl_fdtab *tab);

/* What the plan of one event costs, about: its op, its share of the
 * paths, path states, dependencies and thread lists (measured: 199
 * bytes an event, peak, on 1 M events of traces/mongo.iotape repeated;
 * 223 with ops of 160 bytes, 245 with 192). */
#define RPL_PLAN_BYTES_PER_EVENT (sizeof(struct rpl_op) + 64)

/*! rpl_mem_available() : available memory and free swap, in bytes, or
 *  0 if unknown (/proc/meminfo). */
uint64_t rpl_mem_available(void);

/*! rpl_plan_read() : every event, path state, async request, mapped page
 *  and process record of the trace into @p, in file order.  A trace
 *  damaged or cut short keeps what was read (p->damaged, p->why).
 *  @return : 0, or -ENOMEM, -E2BIG (more events than an op index holds). */
int rpl_plan_read(struct rpl_plan *p);

/*! rpl_plan_sort_ops() : the ops in entry time order (file order among
 *  equal times), if they are not already.  @return : 0 or -ENOMEM. */
int rpl_plan_sort_ops(struct rpl_plan *p);

/*! rpl_plan_sort_ps() : the path states by path, the order
 *  rpl_path_state() looks them up in. */
void rpl_plan_sort_ps(struct rpl_plan *p);

/*! rpl_plan_threads() : the threads and processes of the sorted ops, each
 *  op's thread, raw think gap and skip reason, and its dependencies in
 *  @deps.  @return : 0, or -errno (-ENOMEM). */
int rpl_plan_threads(struct rpl_plan *p, struct rpl_deps *deps);

/* What pl->pipes holds for a pipe's resource, in its two low bits: one
 * for both ends, or one per end of a socket pair, each the pipe its end
 * writes; above them the index of its read end's count in pl->ends (its
 * write end's is the next: rpl_fd.wend). */
enum { PIPE_ONE = 1, PIPE_SOCK0, PIPE_SOCK1 };
#define PIPE_KIND(v) ((v) & 3)
#define PIPE_END0(v) ((v) >> 2)

/* What plan_fds.c, plan_pipes.c, plan_socks.c and plan_locks.c share. */

/*! rpl_key_norm() : key @k with its flag bits cleared, never 0. */
uint64_t rpl_key_norm(uint64_t k);
/*! rpl_key_path() : the key of path @s (@n bytes, its trailing slashes
 *  dropped). */
uint64_t rpl_key_path(const char *s, size_t n);
/*! rpl_key_res() : the key of resource @res. */
uint64_t rpl_key_res(uint32_t res);
/*! rpl_feeds_pipe() : does row @sc put data into a descriptor or close
 *  it (what a pipe's reader waits for)? */
int rpl_feeds_pipe(const struct iot_syscall *sc);
/*! rpl_closes_at() : does an exit (or, @cloexec, an exec) close entry @f? */
int rpl_closes_at(const struct rpl_fd *f, int cloexec);
/*! rpl_path_hash() : the hash of path @s (@n bytes, its trailing slashes
 *  dropped), which its keys are made of. */
uint64_t rpl_path_hash(const char *s, size_t n);
/*! rpl_has_key() : is @k one of the @n @keys? */
int rpl_has_key(const uint64_t *keys, int n, uint64_t k);

/* plan_locks.c: locks, and what lets them go. */

/*! rpl_locks_of() : the key of the locks of the file at path hash @h. */
uint64_t rpl_locks_of(uint64_t h);
/*! rpl_is_lock() : does @ev take, release or test a lock? */
int rpl_is_lock(const struct rpl_ev *ev);
/*! rpl_held_lock() : the lock key of the open file of live entry @f, if a
 *  lock was taken through it, else 0. */
uint64_t rpl_held_lock(const struct rpl_planner *pl, const struct rpl_fd *f);
/*! rpl_mark_locked() : a lock of key @k granted through the open file of
 *  @f.  @return : 0 or -ENOMEM. */
int rpl_mark_locked(struct rpl_planner *pl, const struct rpl_fd *f, uint64_t k);
/*! rpl_held_locks() : the lock keys of the files of @tab that an exit (an
 *  exec: @cloexec) closes, after the @n in @keys.  @return : how many now. */
int rpl_held_locks(const struct rpl_planner *pl, const struct rpl_fdtab *tab, int cloexec,
		   uint64_t *keys, int n);
/*! rpl_lets_go_for_good() : does an exit that closes @tab let a lock go for
 *  good (the open file it was taken through in no other table)? */
int rpl_lets_go_for_good(const struct rpl_plan *p, const struct rpl_planner *pl,
			 const struct rpl_fdtab *tab);

/* plan_pipes.c: pipes, FIFOs and socket pairs. */

/*! rpl_read_way() : the pipe the end with resource @res (@v from
 *  pl->pipes) reads: a socket pair's end reads what the other end wrote. */
uint32_t rpl_read_way(uint32_t res, uint32_t v);
/*! rpl_pipe_way() : the pipe a call of row @sc on the end with resource
 *  @res (@v from pl->pipes) moves data through. */
uint32_t rpl_pipe_way(const struct iot_syscall *sc, uint32_t res, uint32_t v);
/*! rpl_new_pipe() : pipe resource @res of @kind (PIPE_*) into pl->pipes.
 *  @return : its read end's index in pl->ends, or -ENOMEM. */
int64_t rpl_new_pipe(struct rpl_planner *pl, uint32_t res, uint32_t kind);
/*! rpl_sends() : is row @sc a write of data into a pipe or socket? */
int rpl_sends(const struct iot_syscall *sc);
/*! rpl_pipe_key() : how @op (row @sc) uses pipe @res, as its key (0: its
 *  data's order does not depend on it). */
uint64_t rpl_pipe_key(const struct iot_syscall *sc, const struct rpl_op *op, uint32_t res);
/*! rpl_reader_gone() : a write @ev (row @sc) of data into the pipe of entry
 *  @fe (@v from pl->pipes) that succeeded though every descriptor of its
 *  read end had closed before it. */
int rpl_reader_gone(const struct rpl_planner *pl, const struct iot_syscall *sc,
		    const struct rpl_ev *ev, const struct rpl_fd *fe, uint32_t v);
/*! rpl_pipe_keys() : the keys of the pipes open in @tab (only
 *  close-on-exec ones with @cloexec), at most @max into @keys.
 *  @return : how many. */
int rpl_pipe_keys(struct rpl_plan *p, const struct rpl_planner *pl,
		  const struct rpl_fdtab *tab, int cloexec, uint64_t *keys, int max);
/*! rpl_fifo_res() : the pipe resource of the FIFO at @path (@made: by
 *  this op), 0 if it is none.  @return : that, or -ENOMEM. */
int64_t rpl_fifo_res(struct rpl_plan *p, struct rpl_planner *pl, const char *path, int made);
/*! rpl_fifo_moved() : the name @path removed (@to NULL) or moved to @to,
 *  for the FIFOs.  @return : 0 or -ENOMEM. */
int rpl_fifo_moved(struct rpl_planner *pl, const char *path, const char *to);
/*! rpl_on_pipe_fd() : does @ev (row @sc) name no path of its own but a
 *  descriptor of @tab's that is a pipe (a FIFO opened by its path)? */
int rpl_on_pipe_fd(const struct rpl_planner *pl, struct rpl_fdtab *tab,
		   const struct iot_syscall *sc, const struct rpl_ev *ev);
/*! rpl_end_open_elsewhere() : does closing the descriptor of entry @fe
 *  leave its end of the pipe open elsewhere? */
int rpl_end_open_elsewhere(const struct rpl_planner *pl, const struct rpl_fd *fe);
/*! rpl_sock_end_gone() : does closing the descriptor of entry @fe (@v
 *  from pl->pipes) close a socket pair's end for good? */
int rpl_sock_end_gone(const struct rpl_planner *pl, const struct rpl_fd *fe, uint32_t v);
/* In pl->sock_gone: a socket end closed by a close, not by a process's
 * end. */
#define RPL_NO_PROC UINT32_MAX
/*! rpl_sent_into() : op @op sent into socket end @res.  @return : 0 or
 *  -ENOMEM. */
int rpl_sent_into(struct rpl_plan *p, struct rpl_planner *pl, struct rpl_op *op, uint32_t res);

/* plan_socks.c: sockets' connections, descriptors passed over them. */

/*! rpl_count_end() : entry @e, where it is a pipe's end, counts as that
 *  end (pl->ends). */
void rpl_count_end(const struct rpl_planner *pl, struct rpl_fd *e);
/*! rpl_plan_msg_fds() : the @n descriptors @fds a sendmsg or recvmsg @op
 *  (of row @sc, in table @tab) passed, from the sender's table to the
 *  receiver's (plan_socks.c).  @return : 0 or -ENOMEM. */
int rpl_plan_msg_fds(struct rpl_plan *p, struct rpl_planner *pl, struct rpl_fdtab *tab,
		     const struct iot_syscall *sc, const struct rpl_op *op, const int32_t *fds,
		     int n);
/*! rpl_sock_ino() : the inode of the socket that connected, past a
 *  connect's or accept's arguments, or 0. */
uint64_t rpl_sock_ino(const struct rpl_ev *ev);
/*! rpl_queue_of() : the key of the queue of the listener of resource
 *  @res: the order of its connects among themselves. */
uint64_t rpl_queue_of(uint32_t res);
/* In rpl_sock_ends()'s result: the connect found its listener's queue
 * full and waited for room. */
#define RPL_CONN_WAITED_ROOM (1LL << 32)
/*! rpl_sock_ends() : a socket, bind, connect, accept or accept4 @op that
 *  succeeded, or a listen, in table @tab: a connection's two ends as a
 *  socket pair's (plan_socks.c).  @return : 0, -ENOMEM, or for a connect
 *  to a name a listener is bound to, that listener's resource, with
 *  RPL_CONN_WAITED_ROOM if it found its queue full. */
int64_t rpl_sock_ends(struct rpl_plan *p, struct rpl_planner *pl, struct rpl_fdtab *tab,
		      struct rpl_op *op);

/*! rpl_plan_fds() : follow @op's descriptors through the plan's tables
 *  (open, dup, pipe, close, exec, exit change them) and collect the keys
 *  of the resources it orders on into @keys (RPL_MAXRES at most).
 *  @return : how many, or -ENOMEM. */
int rpl_plan_fds(struct rpl_plan *p, struct rpl_planner *pl, struct rpl_op *op,
		 uint64_t *keys);

#endif
