/*
 * plan_pipes.c - pipes, FIFOs and socket pairs as the keys deps.c orders
 * on, for plan_fds.c's rpl_plan_fds(): each pipe's resource and its ends
 * (pl->pipes, pl->ends), a socket pair's two ways; which use of a pipe
 * orders on it (rpl_pipe_key()), the pipes an exit or exec closes
 * (rpl_pipe_keys()), a close that leaves its end open elsewhere
 * (rpl_end_open_elsewhere()) or a socket pair's end gone for good; a
 * FIFO opened by its path as a pipe (rpl_fifo_res()); the socket ends an
 * ending process keeps open for the sends into them (rpl_plan_socks_end(),
 * rpl_sent_into()).  Apart from plan_fds.c, which follows the descriptors
 * that name them, as what a pipe's data needs is its own.
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

/* The pipe the end with resource @res (@v from pl->pipes) reads: a
 * socket pair's end reads what the other end wrote. */
uint32_t rpl_read_way(uint32_t res, uint32_t v)
{
	return PIPE_KIND(v) == PIPE_ONE ? res : PIPE_KIND(v) == PIPE_SOCK0 ? res + 1 : res - 1;
}

/* The pipe a call of row @sc on the end with resource @res (@v from
 * pl->pipes) moves data through. */
uint32_t rpl_pipe_way(const struct iot_syscall *sc, uint32_t res, uint32_t v)
{
	if (!sc || !(sc->flags & IOT_SCF_READ) || (sc->flags & IOT_SCF_PIPE))
		return res;
	return rpl_read_way(res, v);
}

/* @res is a pipe resource of @kind (PIPE_*): into pl->pipes, with counts
 * of the descriptors open on its two ends in every plan table (pl->ends,
 * kept by fdtab.c).  @return : the read end's index in pl->ends, or
 * -ENOMEM. */
int64_t rpl_new_pipe(struct rpl_planner *pl, uint32_t res, uint32_t kind)
{
	struct rpl_fdends *e = &pl->ends;
	size_t end0 = e->len ? e->len : 1;	/* n[0]: no pipe's */
	int err = 0;

	if (end0 > (UINT32_MAX >> 2) - 2)
		return -ENOMEM;
	while (e->len < end0 + 2) {
		RPL_GROW(e->n, e->len, e->cap);
		e->n[e->len++] = 0;
	}
	if (rpl_map_put(&pl->pipes, RPL_IK(res), kind | (uint32_t)end0 << 2) < 0)
		return -ENOMEM;
	return (int64_t)end0;
out:
	return err;
}

/* Is row @sc a write of data into a pipe or socket (write, send)? */
int rpl_sends(const struct iot_syscall *sc)
{
	return (sc->flags & IOT_SCF_PIPE) && (sc->flags & IOT_SCF_COUNT) &&
	       !(sc->flags & IOT_SCF_READ);
}

/* How @op (row @sc) uses pipe @res, as its key (0: its data's order does
 * not depend on it: fstat, fcntl, a call that moved nothing): a read; a
 * write of data, or one that found the read end closed (EPIPE: it follows
 * that close, or replayed first it writes where it failed); or another
 * feed, a close, a splice (see deps.c). */
uint64_t rpl_pipe_key(const struct iot_syscall *sc, const struct rpl_op *op, uint32_t res)
{
	uint64_t k = rpl_key_res(res);

	if (!sc)
		return 0;
	if ((sc->flags & IOT_SCF_READ) && !(sc->flags & IOT_SCF_PIPE))
		return op->ev.ret >= 0 ? k | RPL_KEY_PIPE | RPL_KEY_LOOK : 0;
	if (rpl_sends(sc))
		return op->ev.ret > 0 || op->ev.ret == -EPIPE ? k | RPL_KEY_PIPE : 0;
	return rpl_feeds_pipe(sc) ? k | RPL_KEY_PIPE : 0;
}

/*
 * A write of data into a pipe that succeeded, though every descriptor of
 * its read end had closed before it (pl->ends): the last one was an
 * exiting process's, which the kernel closes a while after the exit
 * began.  gpg forks a child that runs a helper with a pipe as its
 * input; the exec fails, the child exits, and gpg writes 4 bytes into
 * the pipe 128 us after the child's exit_group began, when its end was
 * still open.  The replay closes an exiting process's descriptors at its
 * exit, and gave that write EPIPE; it opens a read end of its own for it
 * (ops_io.c).  The trace does not say when the closes came; the writes
 * that met EPIPE after them follow the exit as they did.
 */
int rpl_reader_gone(const struct rpl_planner *pl, const struct iot_syscall *sc,
		    const struct rpl_ev *ev, const struct rpl_fd *fe, uint32_t v)
{
	return ev->ret > 0 && fe->wend && PIPE_KIND(v) == PIPE_ONE && rpl_sends(sc) &&
	       pl->ends.n[PIPE_END0(v)] == 0;
}

/* Does an exec (@cloexec) or exit that closes @tab's descriptors leave
 * the pipe end of entry @i open elsewhere (rpl_end_open_elsewhere(), below)?
 * More descriptors hold it than this table closes. */
static int end_kept(const struct rpl_planner *pl, const struct rpl_fdtab *tab, uint32_t i,
		    int cloexec)
{
	uint32_t end = tab->v[i].end, j, here = 0;

	if (!end || end >= pl->ends.len)
		return 0;
	for (j = 0; j < tab->n && here < pl->ends.n[end]; j++)
		if (tab->v[j].end == end && rpl_closes_at(&tab->v[j], cloexec))
			here++;
	return pl->ends.n[end] > here;
}

/* The keys of the pipes open in @tab (only close-on-exec ones with
 * @cloexec), each once where its two ends sit side by side, at most @max
 * into @keys; RPL_KEY_LOOSE where every end of it closed here stays open
 * elsewhere, as for a close (a sleep that a subshell forked exits with
 * its copy of the read end, while the subshell, which then runs cat,
 * keeps its own: ordered as a last close, the exit followed tar's writes
 * into the full pipe, which waited for cat).  @return : how many. */
int rpl_pipe_keys(struct rpl_plan *p, const struct rpl_planner *pl,
		  const struct rpl_fdtab *tab, int cloexec, uint64_t *keys, int max)
{
	uint32_t i, v, prev = 0;
	int n = 0;

	p->fd_slots_read += tab->n;
	for (i = 0; i < tab->n; i++) {
		if (!rpl_closes_at(&tab->v[i], cloexec) || !rpl_map_get(&pl->pipes, RPL_IK(tab->v[i].res), &v))
			continue;
		if (tab->v[i].res == prev) {
			/* its other end, beside it: loose only if both are */
			if (!end_kept(pl, tab, i, cloexec))
				keys[n - 1] &= ~RPL_KEY_LOOSE;
			continue;
		}
		if (n == max)
			break;
		keys[n++] = rpl_key_res(tab->v[i].res) | RPL_KEY_PIPE |
			    (end_kept(pl, tab, i, cloexec) ? RPL_KEY_LOOSE : 0);
		prev = tab->v[i].res;
		/* a socket pair's end closed here for good: the way it reads
		 * too (rpl_sock_end_gone()) */
		if (PIPE_KIND(v) != PIPE_ONE && !(keys[n - 1] & RPL_KEY_LOOSE) && n < max)
			keys[n++] = rpl_key_res(rpl_read_way(tab->v[i].res, v)) | RPL_KEY_PIPE;
	}
	return n;
}

/*
 * A FIFO opened by its path is a pipe whose ends two opens make: its
 * reads follow the writes that fed them only if both ends share one pipe
 * resource, as a pipe's do (a reader's open and its reads are no change
 * of the path, and ran before the writer's write: a read of 0 bytes,
 * `mkfifo p; cat p & echo x >p`).  The FIFOs of the starting tree and
 * those the trace makes (mknod S_IFIFO; each one made anew a new pipe);
 * a name removed or moved is none until made again.  @return : the pipe
 * resource of the FIFO at @path, 0 if it is none, or -ENOMEM.
 */
#define FIFO_GONE UINT32_MAX

int64_t rpl_fifo_res(struct rpl_plan *p, struct rpl_planner *pl, const char *path, int made)
{
	const struct iot_path_state *ps;
	uint64_t k;
	uint32_t res;

	/* no FIFO made and none in the starting tree (most traces): every
	 * successful open asked the path states by bisection, strcmp() a
	 * step */
	if (!made && !pl->fifos.n && !pl->ps_fifos)
		return 0;
	k = rpl_key_path(path, strlen(path));
	if (!made) {
		if (rpl_map_get(&pl->fifos, k, &res))
			return res == FIFO_GONE ? 0 : res;
		if (!pl->ps_fifos)
			return 0;
		ps = rpl_path_state(p, path);
		if (!ps || ps->type != S_IFIFO)
			return 0;
	}
	res = ++pl->next_res;
	if (rpl_new_pipe(pl, res, PIPE_ONE) < 0 || rpl_map_put(&pl->fifos, k, res) < 0)
		return -ENOMEM;
	return res;
}

/* A name removed is no FIFO from then on; one moved is, at its new name
 * (a FIFO the rename put over is gone).  @return : 0 or -ENOMEM. */
int rpl_fifo_moved(struct rpl_planner *pl, const char *path, const char *to)
{
	uint64_t k, k2;
	uint32_t res = FIFO_GONE, old;

	if (!pl->fifos.n)
		return 0;
	k = rpl_key_path(path, strlen(path));
	if (rpl_map_get(&pl->fifos, k, &res) && res != FIFO_GONE &&
	    rpl_map_put(&pl->fifos, k, FIFO_GONE) < 0)
		return -ENOMEM;
	if (!to)
		return 0;
	k2 = rpl_key_path(to, strlen(to));
	if (res != FIFO_GONE || (rpl_map_get(&pl->fifos, k2, &old) && old != FIFO_GONE))
		return rpl_map_put(&pl->fifos, k2, res);
	return 0;
}

/* Does @op name no path of its own but a descriptor of a pipe (a FIFO
 * opened by its path, whose name the recorder gives the call): the data
 * it moves goes through the pipe, and it neither changes nor looks at
 * the name (a write there is no change of the FIFO the reader's open
 * must follow). */
int rpl_on_pipe_fd(const struct rpl_planner *pl, struct rpl_fdtab *tab,
		   const struct iot_syscall *sc, const struct rpl_ev *ev)
{
	struct rpl_fd fe;
	uint32_t a, v;

	if (!sc || !pl->fifos.n || iot_syscall_path_arg(sc) >= 0)
		return 0;
	for (a = 0; a < sc->nargs && a < ev->nargs; a++)
		if (sc->arg[a] == IOT_ARG_FD)
			return rpl_fdtab_get(tab, (long)ev->args[a], &fe) == 0 &&
			       rpl_map_get(&pl->pipes, RPL_IK(fe.res), &v);
	return 0;
}

/*
 * Does closing a descriptor whose entry is @fe leave its end of the pipe
 * open elsewhere: at another descriptor, in another process's table, or
 * in the table a forked child gets (pl->snap)?  Then the close changes
 * nothing a read or a write sees (end of file, EPIPE come with the end's
 * last close), and it need not follow the writes before it: a shell
 * that starts `seq | sort` closes its copies of both ends after forking
 * each, and sort closes the copy it moved to its input; ordered after
 * seq's writes, which filled the pipe before sort was started, each
 * waited for a write that waited for sort's read, until the wait was
 * given up (bpf recordings, where those writes entered first).  It still
 * comes before the next write or ordered close, and before a read that
 * sees end of file (deps.c, RPL_KEY_LOOSE): a write recorded meeting
 * EPIPE must find every copy of the read end closed, as it did.  Where
 * it cannot tell (the plan keeps no table of a process yet), the close
 * is ordered as before.
 *
 * The plan's tables count the descriptors open on each end (pl->ends,
 * kept by fdtab.c as entries are set, copied, replaced and dropped):
 * the end is open elsewhere if more than this one are, which is what a
 * look at this table's other descriptors and every other table (every
 * process's, ended or not: the plan keeps them to its end; the forked
 * children's yet to start) told, at a cost of processes x closes (a
 * shell's loop of 10,000 pipelines, 20,002 processes: 47-59 s of CPU).
 */
int rpl_end_open_elsewhere(const struct rpl_planner *pl, const struct rpl_fd *fe)
{
	return fe->end && fe->end < pl->ends.len && pl->ends.n[fe->end] > 1;
}

/*
 * Does closing the descriptor of entry @fe (@v from pl->pipes) close a
 * socket pair's end for good?  Its last close ends the way it reads as
 * well as the way it writes: a send from the other end after it fails
 * (EPIPE), so the sends before it, read or not, come before it.  Ordered
 * only on the way it writes, a peer's close of a channel it never read
 * again came before the last messages sent into it (chromium's renderers
 * and their browser, EPIPE).  A pipe's ends share one way, which a close
 * of either end keys.
 */
int rpl_sock_end_gone(const struct rpl_planner *pl, const struct rpl_fd *fe, uint32_t v)
{
	return PIPE_KIND(v) != PIPE_ONE && !rpl_end_open_elsewhere(pl, fe);
}

/*
 * A process's end closes its descriptors a while after it began: the
 * kernel tears its memory down first (a renderer chromium killed, its
 * mappings of hundreds of MiB: milliseconds), and a recorder holds it to
 * take its mappings' pages.  Sends into a socket end it held went
 * through until then, and the replay, whose process is a thread that
 * ends at once, gave them EPIPE (chromium's browser, 30-90 sends a
 * replay; a program that kills a child it writes to).  So each process
 * keeps the socket ends it closes last open until the last send into
 * them, recorded before its end or after it (rpl_proc.linger; the
 * replay's thread_done() waits for it).  Pipes: see rpl_reader_gone().
 */

/* Process @pr keeps its descriptors open for op @oi too: the latest op
 * of each thread, in RPL_LINGER slots (full: the earliest one goes). */
static void linger_for(struct rpl_plan *p, struct rpl_proc *pr, uint32_t oi)
{
	uint32_t i, k = 0;

	for (i = 0; i < RPL_LINGER; i++) {
		uint32_t o = pr->linger[i];

		if (!o || p->ops[o - 1].thread == p->ops[oi].thread) {
			if (oi + 1 > o)
				pr->linger[i] = oi + 1;
			return;
		}
		if (o < pr->linger[k])
			k = i;
	}
	if (oi + 1 > pr->linger[k])
		pr->linger[k] = oi + 1;
}

int rpl_plan_socks_end(struct rpl_plan *p, struct rpl_planner *pl, uint32_t pi,
		       const struct rpl_fdtab *tab)
{
	uint32_t i, v, s;

	if (!pl->pipes.n)
		return 0;
	p->fd_slots_read += tab->n;
	for (i = 0; i < tab->n; i++) {
		const struct rpl_fd *e = &tab->v[i];

		if (e->state != RPL_FD_LIVE || !e->end ||
		    !rpl_map_get(&pl->pipes, RPL_IK(e->res), &v) || PIPE_KIND(v) == PIPE_ONE ||
		    end_kept(pl, tab, i, 0))
			continue;
		if (rpl_map_put(&pl->sock_gone, RPL_IK(e->res), pi) < 0)
			return -ENOMEM;
		if (rpl_map_get(&pl->sock_into, RPL_IK(e->res), &s))
			linger_for(p, &p->procs[pi], s);
	}
	return 0;
}

/* Op @op sent into socket end @res: data (the last such send, and one
 * after the end of the process that closed it last, rpl_plan_socks_end()),
 * or met EPIPE, which that end's close, where it lingers, gave it: it
 * waits for that process's end (RPL_OPF_WAITS, ops_pipe.c). */
int rpl_sent_into(struct rpl_plan *p, struct rpl_planner *pl, struct rpl_op *op, uint32_t res)
{
	uint32_t oi = (uint32_t)(op - p->ops), v, pi;
	int gone = rpl_map_get(&pl->sock_gone, RPL_IK(res), &pi) && pi != RPL_NO_PROC &&
		   rpl_map_get(&pl->pipes, RPL_IK(res), &v) && !pl->ends.n[PIPE_END0(v)];

	if (op->ev.ret == -EPIPE && gone)
		rpl_op_set_link(op, RPL_OPF_WAITS, pi);
	if (op->ev.ret <= 0)
		return 0;
	if (rpl_map_put(&pl->sock_into, RPL_IK(res), oi) < 0)
		return -ENOMEM;
	if (gone)
		linger_for(p, &p->procs[pi], oi);
	return 0;
}
