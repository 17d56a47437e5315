/*
 * plan_socks.c - the keys of sockets' connections and of the descriptors
 * passed over them, for plan_fds.c's rpl_plan_fds(): a named Unix
 * socket's connect and the accept that took it made one socket pair, its
 * two ends (rpl_sock_ends()), the connects to one listener queued in
 * their order and those that found its queue full waiting for room
 * (queue_full()); a sendmsg's descriptors (SCM_RIGHTS) given to the
 * recvmsg that got them, the sender's entries at its send, and a
 * receiver blocked before the send waiting for it (rpl_plan_msg_fds(),
 * wait_msg(), give_waiting()).  Apart from plan_fds.c, which follows
 * every other descriptor, as these calls make the sockets' pipes
 * (plan_pipes.c rpl_new_pipe()) and move entries between the plan's
 * tables through the plan's lists of those in flight.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "engine.h"
#include "plan.h"

/* The descriptors @ev (a sendmsg or recvmsg) passed, into @fds (up to
 * IOT_MSG_FDS_MAX).  @return : how many its message carried. */
int rpl_msg_fds(const struct rpl_ev *ev, int32_t *fds)
{
	struct iot_event e = { .nr = ev->nr, .nargs = ev->nargs };

	memcpy(e.args, ev->args, sizeof(e.args));
	return iot_msg_fds(&e, fds);
}

/* The first entry of @way among the @*n in flight at @v (a message's
 * descriptor, a connection's other end), taken out into *@e with its
 * pipe end counted again (rpl_fd.end: none is kept for one in flight).
 * @return : 1, or 0 for none. */
/* Entry @e, where it is a pipe's end, counts as that end (pl->ends). */
void rpl_count_end(const struct rpl_planner *pl, struct rpl_fd *e)
{
	uint32_t v;

	if (e->res && rpl_map_get(&pl->pipes, RPL_IK(e->res), &v))
		e->end = PIPE_END0(v) + e->wend;
}

/* Entry @j of @v (*@n of them) into *@e, taken out of @v. */
static void take_at(const struct rpl_planner *pl, struct rpl_flying *v, size_t *n, size_t j,
		    struct rpl_fd *e)
{
	*e = v[j].e;
	rpl_count_end(pl, e);
	memmove(&v[j], &v[j + 1], (--*n - j) * sizeof(*v));
}

static int take_flying(const struct rpl_planner *pl, struct rpl_flying *v, size_t *n,
		       uint32_t way, struct rpl_fd *e)
{
	size_t j;

	for (j = 0; j < *n && v[j].way != way; j++)
		;
	if (j == *n)
		return 0;
	take_at(pl, v, n, j, e);
	return 1;
}

/*
 * A recvmsg that began before the sendmsg it took (a server blocked in
 * it: Python's forkserver, whose clients send a new process's pipes)
 * was planned first, in entry order, and found nothing in flight: each
 * number it got was made a file of its own, though the replay's recvmsg
 * gets the sender's live descriptors.  The calls through them then kept
 * no order on their pipes: a pool worker's read of its task queue,
 * forked from that server, took bytes another worker's read was ordered
 * to get, which then waited for them until the wait was given up.  So
 * it waits here (pl->wmsg) for a sendmsg into its way that began before
 * it returned, which gives its numbers the sender's entries
 * (give_waiting()), as an accept waits for its connect.
 */
static int wait_msg(struct rpl_plan *p, struct rpl_planner *pl, struct rpl_fdtab *tab,
		    const struct rpl_op *op, uint32_t way, const int32_t *fds, int n)
{
	struct rpl_wmsg *w;
	int err = 0;

	RPL_GROW(pl->wmsg, pl->n_wmsg, pl->cap_wmsg);
	w = &pl->wmsg[pl->n_wmsg++];
	*w = (struct rpl_wmsg){ .tab = tab, .proc = p->threads[op->thread].proc, .way = way,
				.n = n, .cloexec = (op->ev.args[2] & MSG_CMSG_CLOEXEC) != 0,
				.until = op->ev.t_exit };
	memcpy(w->fds, fds, (size_t)n * sizeof(*fds));
out:
	return err;
}

/* Entry @e, sent into @way by a sendmsg that began at @t, to the first
 * recvmsg waiting there (wait_msg()).  @return : 1 if one took it, 0,
 * -ENOMEM. */
static int give_waiting(struct rpl_plan *p, struct rpl_planner *pl, uint32_t way, int64_t t,
			struct rpl_fd *e)
{
	size_t j = 0;
	struct rpl_wmsg *w;
	int32_t fd;

	while (j < pl->n_wmsg && (pl->wmsg[j].until < t || pl->wmsg[j].way != way)) {
		if (pl->wmsg[j].until < t)	/* returned before: gone */
			memmove(&pl->wmsg[j], &pl->wmsg[j + 1],
				(--pl->n_wmsg - j) * sizeof(*pl->wmsg));
		else
			j++;
	}
	if (j == pl->n_wmsg)
		return 0;
	w = &pl->wmsg[j];
	fd = w->fds[w->k++];
	if (p->procs[w->proc].tab == w->tab && e->state == RPL_FD_LIVE &&
	    fd >= 0 && fd < RPL_FD_MAX) {
		rpl_count_end(pl, e);
		e->cloexec = (uint8_t)w->cloexec;
		e->marks = 0;
		if (rpl_fdtab_set(w->tab, fd, e) == -ENOMEM)
			return -ENOMEM;
	}
	if (w->k == w->n)
		memmove(w, w + 1, (--pl->n_wmsg - j) * sizeof(*w));
	return 1;
}

/*
 * Descriptors passed over a socket (SCM_RIGHTS): a received one is the
 * sender's open file, as a dup is, so the calls made through it follow
 * the sender's on that file (a child writing into files its parent
 * opened).  The sender's entries at its sendmsg wait in pl->flying, by
 * the pipe the message went into, for the recvmsg at the other end that
 * takes them, in the order they were sent, or go to a recvmsg that began
 * before it and waits for them (wait_msg()); one the trace did not see
 * sent (a sender not recorded) is a file of its own.  @fds : the @n
 * descriptors of @op's message (rpl_msg_fds()).  @return : 0 or -ENOMEM.
 */
int rpl_plan_msg_fds(struct rpl_plan *p, struct rpl_planner *pl, struct rpl_fdtab *tab,
		     const struct iot_syscall *sc, const struct rpl_op *op, const int32_t *fds, int n)
{
	const struct rpl_ev *ev = &op->ev;
	struct rpl_fd fe;
	uint32_t way = 0, v;
	int err = 0, i, r, waits = 0;

	if (n > IOT_MSG_FDS_MAX)
		n = IOT_MSG_FDS_MAX;
	if (rpl_fdtab_get(tab, (long)ev->args[0], &fe) == 0 &&
	    rpl_map_get(&pl->pipes, RPL_IK(fe.res), &v))
		way = rpl_pipe_way(sc, fe.res, v);
	for (i = 0; i < n; i++) {
		struct rpl_fd e;

		if (ev->nr == SYS_sendmsg) {
			if (rpl_fdtab_get(tab, fds[i], &e) < 0)
				e = (struct rpl_fd){ .state = RPL_FD_FREE };
			e.end = 0;	/* (its pipe end's count is the table's) */
			if (way && pl->n_wmsg && (r = give_waiting(p, pl, way, ev->t_enter, &e)) != 0) {
				if (r < 0)
					return r;
				continue;
			}
			RPL_GROW(pl->flying, pl->n_flying, pl->cap_flying);
			pl->flying[pl->n_flying].way = way;
			pl->flying[pl->n_flying++].e = e;
			continue;
		}
		if (way && !waits && !take_flying(pl, pl->flying, &pl->n_flying, way, &e)) {
			/* this one and the rest: from a sendmsg yet to come */
			if (wait_msg(p, pl, tab, op, way, fds + i, n - i) < 0)
				return -ENOMEM;
			waits = 1;
		}
		if (!way || waits || e.state != RPL_FD_LIVE)
			e = (struct rpl_fd){ .state = RPL_FD_LIVE, .res = ++pl->next_res };
		e.cloexec = (ev->args[2] & MSG_CMSG_CLOEXEC) != 0;
		e.marks = 0;
		if (fds[i] >= 0 && fds[i] < RPL_FD_MAX && rpl_fdtab_set(tab, fds[i], &e) < 0)
			return -ENOMEM;
	}
	return 0;
out:
	return err;
}

/* The inode of the socket that connected, past a connect's or accept's
 * own arguments (iot_sock_ino()), 0 if unknown */
uint64_t rpl_sock_ino(const struct rpl_ev *ev)
{
	uint32_t a = iot_sock_ino_arg(ev->nr);

	return a && a < ev->nargs ? (uint64_t)ev->args[a] : 0;
}

/* Connect @c and accept @a, each known by the connecting socket, take one
 * connection (RPL_OPF_CONNQ). @return : 0 or -ENOMEM. */
static int conn_mark(struct rpl_plan *p, struct rpl_op *c, struct rpl_op *a)
{
	int err = 0;

	if ((c->rflags | a->rflags) & (RPL_OPF_CHILD | RPL_OPF_WAITS | RPL_OPF_WAITT | RPL_OPF_CONNQ))
		return 0;
	RPL_GROW(p->connq, p->n_connq, p->cap_connq);
	atomic_init(&p->connq[p->n_connq].ino, 0);
	p->connq[p->n_connq].aproc = p->threads[a->thread].proc;
	c->rflags |= RPL_OPF_CONNQ;
	a->rflags |= RPL_OPF_CONNQ;
	c->link = a->link = p->n_connq++;
out:
	return err;
}

/*
 * An accept that began before any connect was queued (a server waiting
 * in accept) took the one that came before it returned: planned at its
 * entry, it found none, its descriptor was made a socket of no
 * connection, and each later accept took the connect before its own
 * (a server thread a connection: its replies met EPIPE, 17-59 of 300).
 * So it waits here (pl->wacc) for a connect to its listener that began
 * before it returned, which gives its descriptor the connection
 * (waited_conn()).  @return : 1 if @e (the accepting end of connect
 * @op's connection to @listener, socket @ino) went to one, 0, -ENOMEM.
 */
static int waited_conn(struct rpl_plan *p, struct rpl_planner *pl, struct rpl_op *op,
		       uint32_t listener, uint64_t ino, struct rpl_fd *e)
{
	size_t j = 0;

	while (j < pl->n_wacc) {
		struct rpl_wacc *w = &pl->wacc[j];

		if (w->until < op->ev.t_enter) {	/* returned before: gone */
			*w = pl->wacc[--pl->n_wacc];
			continue;
		}
		if (w->listener != listener || (w->ino && ino && w->ino != ino)) {
			j++;
			continue;
		}
		if (p->procs[w->proc].tab == w->tab) {
			rpl_count_end(pl, e);
			e->cloexec = w->cloexec;
			if (rpl_fdtab_set(w->tab, w->fd, e) == -ENOMEM)
				return -ENOMEM;
			if (w->ino && ino && conn_mark(p, op, &p->ops[w->op]) < 0)
				return -ENOMEM;
		}
		*w = pl->wacc[--pl->n_wacc];
		return 1;
	}
	return 0;
}

/*
 * Accept @op takes the connect its peer socket made (@ino), where the
 * trace says which, else the first queued on listener @listener, into
 * *@e.  Several clients' connects to one name at once are queued in an
 * order no recorded time gives (a tracer's stops delay them: MariaDB
 * with mysqlslap -c4 under ptrace, 135-162 mismatches, its server threads
 * serving other clients); an accept that knows its connect takes that
 * one's connection here too, whichever the kernel queued first
 * (RPL_OPF_CONNQ, ops_sock.c).  One whose connect is not queued yet
 * waits for it (waited_conn()), not taking the first queued: a tracer
 * that took an accept's entry stop first may let the connect run first,
 * and the accept's entry comes before its connect's in the trace, while
 * another client's connect waits for another accept (a prefork server
 * recorded by ptrace under load: each worker then served the other's
 * clients, 28-34 mismatches a replay).  @return : 1 if one was taken,
 * 0, -ENOMEM.
 */
static int conn_take(struct rpl_plan *p, struct rpl_planner *pl, struct rpl_op *op,
		     uint32_t listener, uint64_t ino, struct rpl_fd *e)
{
	struct rpl_flying *v = pl->conns;
	size_t j;

	if (!ino)
		return take_flying(pl, pl->conns, &pl->n_conns, listener, e);
	for (j = 0; j < pl->n_conns && (v[j].way != listener || v[j].ino != ino); j++)
		;
	if (j == pl->n_conns)
		return 0;	/* its connect is yet to come: waited_conn() */
	if (conn_mark(p, &p->ops[v[j].op], op) < 0)
		return -ENOMEM;
	take_at(pl, v, &pl->n_conns, j, e);
	return 1;
}

/* The queue of the listener of resource @res: the order of its connects
 * among themselves (queue_full()), a key of its own, made from the
 * resource as names_of() is from a path. */
uint64_t rpl_queue_of(uint32_t res)
{
	uint64_t h = ((uint64_t)res ^ 0xc2b2ae3d27d4eb4fULL) * IOT_HASH_M;

	return rpl_key_norm(h ^ (h >> 29));
}

/* A listen's backlog, as the kernel takes it (more than somaxconn, or
 * below 0: somaxconn, 4096 by default) */
#define SOMAXCONN_DEFAULT 4096

/* listen(@ev) on a socket of resource @res: how many connections its
 * queue holds, kept (a Unix socket's is full past its backlog: one more
 * than it).  @return : 0 or -ENOMEM. */
static int listened(struct rpl_planner *pl, const struct rpl_ev *ev, uint32_t res)
{
	int64_t b = (int)ev->args[1];

	if (b < 0 || b > SOMAXCONN_DEFAULT)
		b = SOMAXCONN_DEFAULT;
	return rpl_map_put(&pl->backlog, RPL_IK(res), (uint32_t)b + 1) < 0 ? -ENOMEM : 0;
}

/*
 * Did connect @op to listener @listener find its queue full, as the plan
 * counts it (the connections made and not accepted by an accept that had
 * returned by its entry, against the listen's backlog)?  Such a connect
 * waited in the kernel
 * for an accept to make room: 20 clients at once on socat's backlog of
 * 5, a Python server's backlog of 2.  Counted from its entry as the
 * others are, and on the listener's key, it came before the accepts
 * that returned after its entry: the server's first accept waited for it,
 * and it for room that only the accepts make; a forked handler's close
 * of its copy of the listener waited for it too.  Nothing moved for 2 s,
 * until the connects gave up (EAGAIN, and ENOTCONN at their sends), until
 * 2026-12-07.  It keeps no order with the listener's accepts (the
 * replay's connect waits for room, its accept for a connection), only
 * with the other connects, in the order they were queued (rpl_queue_of()):
 * one that found room from its entry, one that waited for it from its
 * end, when it had just been queued.  Not in the order they began to
 * wait: the kernel let a connect that came as an accept made room take
 * it before four that had waited longer (socat under ptrace), and the
 * replay's, made to follow those, waited for room that the server's
 * next accept made only after a process whose data came through that
 * connect had ended.  Nor in no order: those that waited took the room
 * meant for the one before them, whose data the server's later accepts
 * waited for, through its handlers' ends.  So the replay's queue holds
 * what the recorded one held, and the accepts that do not know their
 * connect take them in the recorded order.
 */
static int queue_full(struct rpl_planner *pl, const struct rpl_op *op, uint32_t listener)
{
	uint32_t cap;
	size_t j, n = 0;

	if (!pl->backlog.n || !rpl_map_get(&pl->backlog, RPL_IK(listener), &cap))
		return 0;
	for (j = 0; j < pl->n_conns && n < cap; j++)
		n += pl->conns[j].way == listener;
	/* An accept that had begun and not returned: the room it makes may
	 * come after the connect's entry, which needed it (socat's server,
	 * under ptrace: an accept from 235,241 to 235,403 us, a connect
	 * from 235,396 into the full queue; on the listener's key from its
	 * entry, the connect came before that accept, and waited for it) */
	for (j = 0; j < pl->n_accf; j++) {
		if (pl->accf[j].until <= op->ev.t_enter) {
			pl->accf[j--] = pl->accf[--pl->n_accf];
			continue;
		}
		n += pl->accf[j].listener == listener;
	}
	return n >= cap;
}

/* Accept @op took a connection queued on @listener. @return : 0 or -ENOMEM. */
static int accept_flying(struct rpl_planner *pl, const struct rpl_op *op, uint32_t listener)
{
	int err = 0;

	if (!pl->backlog.n)
		return 0;
	RPL_GROW(pl->accf, pl->n_accf, pl->cap_accf);
	pl->accf[pl->n_accf].listener = listener;
	pl->accf[pl->n_accf++].until = op->ev.t_exit;
out:
	return err;
}

/*
 * A named Unix socket's connection is a socket pair made by two calls:
 * the connect, whose socket becomes one end, and the accept of the
 * listener bound to the name it connected to, whose new descriptor is
 * the other (ops_sock.c makes them for real).  The connect makes the
 * pair's two pipes (rpl_pipe_way()) and keeps the accepting end in
 * pl->conns, by the listener's resource, for the listener's accepts to
 * take in the order the connects came.  @ev : a socket, bind, connect,
 * accept or accept4 that succeeded, or a listen.  @return : 0, -ENOMEM,
 * or for a connect to a name a listener is bound to, that listener's
 * resource, with RPL_CONN_WAITED_ROOM if it found its queue full
 * (queue_full()).
 */
int64_t rpl_sock_ends(struct rpl_plan *p, struct rpl_planner *pl, struct rpl_fdtab *tab,
		      struct rpl_op *op)
{
	const struct rpl_ev *ev = &op->ev;
	int r;
	struct rpl_fd e = { .state = RPL_FD_LIVE }, fe;
	uint32_t listener;
	int64_t end0, full;
	int err = 0;

	switch (ev->nr) {
	case SYS_socket:
		e.res = ++pl->next_res;
		e.cloexec = (ev->args[1] & SOCK_CLOEXEC) != 0;
		return ev->ret < RPL_FD_MAX ? rpl_fdtab_set(tab, (long)ev->ret, &e) == -ENOMEM ?
					      -ENOMEM : 0 : 0;
	case SYS_bind:
		if (!ev->path || rpl_fdtab_get(tab, (long)ev->args[0], &fe) < 0 || !fe.res)
			return 0;
		return rpl_map_put(&pl->bound, rpl_key_path(ev->path, strlen(ev->path)), fe.res) < 0 ?
		       -ENOMEM : 0;
	case SYS_connect:
		if (!ev->path || !rpl_map_get(&pl->bound, rpl_key_path(ev->path, strlen(ev->path)), &listener))
			return 0;
		if (rpl_fdtab_get(tab, (long)ev->args[0], &fe) < 0)
			return listener;	/* ordered, not paired */
		e.cloexec = fe.cloexec;
		e.res = ++pl->next_res;
		if ((end0 = rpl_new_pipe(pl, e.res, PIPE_SOCK0)) < 0)
			return -ENOMEM;
		e.end = (uint32_t)end0;
		if (rpl_fdtab_set(tab, (long)ev->args[0], &e) == -ENOMEM)
			return -ENOMEM;
		e.res = ++pl->next_res;
		if ((end0 = rpl_new_pipe(pl, e.res, PIPE_SOCK1)) < 0)
			return -ENOMEM;
		e.end = 0;	/* counted when an accept takes it */
		if (pl->n_wacc && (r = waited_conn(p, pl, op, listener, rpl_sock_ino(ev), &e)) != 0)
			return r < 0 ? (int64_t)r : (int64_t)listener;
		full = queue_full(pl, op, listener) ? RPL_CONN_WAITED_ROOM : 0;
		RPL_GROW(pl->conns, pl->n_conns, pl->cap_conns);
		pl->conns[pl->n_conns].way = listener;
		pl->conns[pl->n_conns].op = (uint32_t)(op - p->ops);
		pl->conns[pl->n_conns].ino = rpl_sock_ino(ev);
		pl->conns[pl->n_conns++].e = e;
		return (int64_t)listener | full;
	case SYS_listen:
		if (rpl_fdtab_get(tab, (long)ev->args[0], &fe) < 0 || !fe.res)
			return 0;
		return listened(pl, ev, fe.res);
	case SYS_accept: case SYS_accept4:
		if (rpl_fdtab_get(tab, (long)ev->args[0], &fe) < 0 || ev->ret >= RPL_FD_MAX)
			return 0;
		if ((r = conn_take(p, pl, op, fe.res, rpl_sock_ino(ev), &e)) < 0 ||
		    (r && accept_flying(pl, op, fe.res) < 0))
			return -ENOMEM;
		e.cloexec = ev->nr == SYS_accept4 && (ev->args[3] & SOCK_CLOEXEC);
		if (!r) {
			/* a connect the trace does not hold, or one yet to come */
			e.res = ++pl->next_res;
			RPL_GROW(pl->wacc, pl->n_wacc, pl->cap_wacc);
			pl->wacc[pl->n_wacc++] = (struct rpl_wacc){
				.tab = tab, .proc = p->threads[op->thread].proc, .listener = fe.res,
				.op = (uint32_t)(op - p->ops), .fd = (int32_t)ev->ret,
				.cloexec = e.cloexec, .ino = rpl_sock_ino(ev), .until = ev->t_exit };
		}
		return rpl_fdtab_set(tab, (long)ev->ret, &e) == -ENOMEM ? -ENOMEM : 0;
	}
	return 0;
out:
	return err;
}
