/*
 * plan_fds.c - an op's resources, as the keys deps.c orders on: its path,
 * its parent directory when it makes, removes or renames a name, and its
 * open files, followed through the plan's descriptor tables (open, dup,
 * fcntl, pipe, socketpair, close, exec and exit change them, per process
 * and shared as the clone flags say).  An open file's key is its resource
 * id, new at each open, so a reused descriptor number is another file.
 *
 * Pipes and socket pairs order by their data, not by every use: a read
 * follows the writes that fed it, a write of data or one that met EPIPE
 * the reads and the close before it (plan_pipes.c rpl_pipe_key()); calls
 * that only look (rpl_only_looks()) follow the last change, not each
 * other.  Sockets' connections and the descriptors passed over them are
 * plan_socks.c's.
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

uint64_t rpl_key_norm(uint64_t k)
{
	k &= ~(RPL_KEY_HOW | RPL_KEY_RES);
	return k ? k : 64;
}

/* The hash of path @s (@n bytes, its trailing slashes dropped): its key
 * (rpl_key_path()) and the key of its names (names_of()) are made of it. */
uint64_t rpl_path_hash(const char *s, size_t n)
{
	while (n > 1 && s[n - 1] == '/')
		n--;
	return iot_hash(s, n, 1);
}

uint64_t rpl_key_path(const char *s, size_t n)
{
	return rpl_key_norm(rpl_path_hash(s, n));
}

uint64_t rpl_path_key(const char *path)
{
	return rpl_key_path(path, strlen(path));
}

uint64_t rpl_parent_key(const char *path, size_t *name_len)
{
	size_t len = strlen(path), end, k = rpl_last_name(path, len, &end);

	*name_len = end - k;
	return rpl_key_path(path, k ? k : 1);
}

int rpl_open_flags_arg(const struct iot_syscall *sc)
{
	int i = iot_syscall_arg(sc, IOT_ARG_OPEN_FLAGS);

	return i >= 0 ? i : iot_syscall_arg(sc, IOT_ARG_OPENHOW);
}

/* The length of the path of @s's parent (@s is @n bytes): "/" for a name
 * in the root, trailing slashes left to rpl_path_hash(). */
static size_t parent_len(const char *s, size_t n)
{
	size_t end, k = rpl_last_name(s, n, &end);

	return k ? k : 1;
}

/* The names in directory @s (its entries), apart from the directory
 * itself (rpl_key_path()): a listing or a removal of the directory depends
 * on them, a look-up of the directory (a mkdir -p, a stat, an open of a
 * file in it) does not.  Their key, from the directory's rpl_path_hash() @h
 * mixed (one to one: two paths' keys of names are as unlikely to meet as
 * their keys), not a second hash of the path with another seed. */
static uint64_t names_of(uint64_t h)
{
	h = (h ^ 0x2545f4914f6cdd1dULL) * IOT_HASH_M;
	return rpl_key_norm(h ^ (h >> 29));
}

uint64_t rpl_key_res(uint32_t res)
{
	return (uint64_t)res << 32 | RPL_KEY_RES;
}

/* A descriptor number in a table: in a table several threads share,
 * the ops that make, use and close fd N keep their recorded order, or a
 * thread could open its N before a sibling's close of the N before
 * (rel_threads: four threads each opening, writing and closing files,
 * wrote one file's data into another's).  The table by its serial
 * number: by its address, a table made where an ended process's had been
 * freed had the same keys, and its calls on fd N followed the ended
 * one's (a plan changed with where malloc put tables). */
static uint64_t key_slot(const struct rpl_fdtab *tab, int64_t fd)
{
	struct { uint64_t t; int64_t fd; } k = { tab->serial, fd };

	return rpl_key_norm(iot_hash(&k, sizeof(k), 5));
}

/* Does row @sc put data into a descriptor or close it (what a pipe's
 * reader waits for)? */
int rpl_feeds_pipe(const struct iot_syscall *sc)
{
	return sc && (sc->flags & (IOT_SCF_PIPE | IOT_SCF_CLOSE));
}

int rpl_has_key(const uint64_t *keys, int n, uint64_t k)
{
	while (n-- > 0)
		if (keys[n] == k)
			return 1;
	return 0;
}

/* The files an op's async requests (io_submit, io_uring_enter) and its
 * mapped pages (munmap, msync, exit) touch are its resources too: a
 * request keeps its place among the other uses of its open file or
 * path.  @return : the keys now in @keys (@n before). */
static int async_keys(const struct rpl_plan *p, struct rpl_fdtab *tab,
		      const struct rpl_op *op, uint64_t *keys, int n)
{
	uint32_t i;

	for (i = 0; i < op->n_aio && n < RPL_MAXRES; i++) {
		const struct iot_aio *x = &p->aio[op->aio_off + i].a;
		struct rpl_fd fe;
		uint64_t k = 0;

		if (x->kind != IOT_AIO_SUBMIT)
			continue;
		if (x->api == IOT_AIO_URING && x->path &&
		    (x->opcode == 18 || x->opcode == 21 || (x->opcode >= 35 && x->opcode <= 37)))
			k = rpl_key_path(x->path, x->path_len);
		else if (!(x->api == IOT_AIO_URING && (x->flags & 1 /* IOSQE_FIXED_FILE */)) &&
			 rpl_fdtab_get(tab, x->fd, &fe) == 0 && fe.res)
			k = rpl_key_res(fe.res);
		if (k && !rpl_has_key(keys, n, k))
			keys[n++] = k;
	}
	for (i = 0; i < op->n_mp && n < RPL_MAXRES; i++) {
		const struct iot_mpages *m = &p->mp[op->mp_off + i];
		uint64_t k = m->path ? rpl_key_path(m->path, m->path_len) : 0;

		if (k && !rpl_has_key(keys, n, k))
			keys[n++] = k;
	}
	return n;
}

/* The name the recorder gives a descriptor that is no file (a pipe, a
 * socket): its order is the descriptor's (rpl_pipe_key()), not a path's. */
static int not_a_path(const char *s)
{
	if (*s == '/')			/* most are: no compare needed */
		return 0;
	return strncmp(s, "pipe:[", 6) == 0 || strncmp(s, "socket:[", 8) == 0 ||
	       strncmp(s, "anon_inode:", 11) == 0;
}

/*
 * A call that moves data between two descriptors in the kernel (splice,
 * tee, sendfile): the argument of the descriptor it takes data from, or
 * -1.  Read from a pipe, that end is a read of the pipe: it follows the
 * writes that fed it, and the call is ordered from its end, as a read is.
 * Ordered from its entry as a feed (its other end's writes), a tee that
 * waited in an empty pipe for the write that woke it came before that
 * write and found the pipe empty (EAGAIN), and its reader's reads of what
 * it copied waited in vain, one wait given up after another (stress-ng's
 * tee stressor: a replay of 0.5 s of recording not done in 300 s).
 */
static int moves_from(const struct rpl_ev *ev)
{
	switch (ev->nr) {
	case SYS_splice: case SYS_tee:
		return 0;
	case SYS_sendfile:
		return 1;
	}
	return -1;
}

/* Which of btrfs's subvolume calls @ev is (iot_subvol_call()), with the
 * name it makes or removes as its path; 0: none, or a trace's from
 * before they had it */
static int subvol_of(const struct rpl_ev *ev)
{
	if (ev->nr != SYS_ioctl || ev->nargs < IOT_SUBVOL_NARGS || ev->args[IOT_SUBVOL_FLAGS] < 0)
		return IOT_SUBVOL_NONE;
	return iot_subvol_call((uint32_t)ev->args[1], NULL, NULL);
}

/* Does @op create, remove or rename a name (so it orders on the parent)?
 * An open does with O_CREAT only (openat2's how holds its flags). */
static int changes_names(const struct iot_syscall *sc, const struct rpl_op *op)
{
	int i;

	if (!sc || !(sc->flags & IOT_SCF_NAMES))
		return 0;
	i = rpl_open_flags_arg(sc);
	return i < 0 || (op->ev.args[i] & O_CREAT) != 0;
}

/*
 * Does @op leave its path, and the names of its parent, as it found them?
 * A look-up, a read, a sync, a close, an exec (IOT_SCF_LOOK), an open
 * that neither creates nor truncates; and every call that failed: a
 * failed call changed nothing (a mkdir of a directory that is there, an
 * unlink of a name that is not).  Such an op need only follow the last
 * op that changed the path, not every op that looked at it before.
 */
int rpl_only_looks(const struct iot_syscall *sc, const struct rpl_op *op)
{
	int i;

	if (op->ev.ret < 0 || (sc && (sc->flags & IOT_SCF_LOOK)))
		return 1;
	if (!sc || !(sc->flags & IOT_SCF_RETFD) || !(sc->flags & IOT_SCF_NAMES))
		return 0;
	/* an open: one that neither creates nor truncates only looks */
	i = rpl_open_flags_arg(sc);
	return i >= 0 && !(op->ev.args[i] & (O_CREAT | O_TRUNC));
}

/*
 * Does @op write data into a file (a call of the write family that wrote,
 * not into a pipe or socket: the caller tells)?  Such writes of other
 * threads keep no order among themselves (RPL_KEY_NAME on the file's
 * keys, deps.c): what one thread writes does not change what another's
 * write does or costs, only where the bytes land and which come last,
 * and the replay writes its own bytes.  A read, a stat, an fsync, a
 * truncation, a close still follow every write before them.  Two
 * processes that append lines to one output file (two sha256sum of
 * 'xargs -P2' writing one line per file to the shell's >sums) were made
 * to take turns, line by line, in the order the recording's machine gave
 * them, and a late one held the other.  Where the trace holds the bytes
 * (record --data), their order decides the file's content: kept.
 */
static int writes_data(const struct rpl_planner *pl, const struct iot_syscall *sc,
		       const struct rpl_op *op)
{
	return !pl->writes_ordered && sc && op->ev.ret > 0 && iot_syscall_wbuf(sc) >= 0 &&
	       !(sc->flags & IOT_SCF_READ);
}

/* Does @op see or replace the names in directory @path: an open that
 * only looks (the directory a listing reads), a read of its entries (the
 * names there when it is made: another process's creates and removals
 * between the open and the read were left unordered, and the replayed
 * listing had entries added or missing: stress-ng's dir stressor, dbench
 * listing as another client works), an rmdir, a rename (of a directory,
 * perhaps: its names go with it)? */
static int lists_names(const struct iot_syscall *sc, const struct rpl_op *op)
{
	switch (op->ev.nr) {
	case SYS_rmdir: case SYS_rename: case SYS_renameat: case SYS_renameat2:
		return 1;
	case SYS_getdents: case SYS_getdents64:
		return op->ev.ret >= 0;
	case SYS_unlinkat:
		return (op->ev.args[2] & AT_REMOVEDIR) != 0;
	}
	return sc && (sc->flags & IOT_SCF_RETFD) && (sc->flags & IOT_SCF_NAMES) &&
	       op->ev.ret >= 0 && rpl_only_looks(sc, op);
}

int rpl_closes_at(const struct rpl_fd *f, int cloexec)
{
	return f->state == RPL_FD_LIVE && (!cloexec || f->cloexec);
}

/*
 * The kernel frees a descriptor's number early in its close: where
 * threads share a table, another thread's open (socket, accept, dup) can
 * take it before the close returns, and entered before the close began,
 * that open is planned first (entry order).  Its new file replaced the
 * entry the close was closing, and the close then closed the new file:
 * the thread's writes through it were left out, the file stayed empty
 * (squid's aufs threads: 20 mismatches a replay).  So a call that gets a
 * number the table still holds keeps the entry it replaced aside until
 * it returned, for another thread's close of that number that began by
 * then (displaced()).  Not dup2, dup3: they replace the number they are
 * given, closing it.
 */
static void displace(struct rpl_planner *pl, const struct rpl_fdtab *tab, const struct rpl_op *op,
		     const struct rpl_fd *old)
{
	struct rpl_displaced *d;

	if (pl->n_disp == RPL_DISPLACED)
		memmove(pl->disp, pl->disp + 1, --pl->n_disp * sizeof(*pl->disp));
	d = &pl->disp[pl->n_disp++];
	d->tab = tab;
	d->until = op->ev.t_exit;
	d->thread = op->thread;
	d->fd = (int32_t)op->ev.ret;
	d->e = *old;
}

/* The entry another thread's call took number @fd of while close @op of
 * it was under way, into *@e (taken out of the list): 1, else 0. */
static int displaced(struct rpl_planner *pl, const struct rpl_fdtab *tab, const struct rpl_op *op,
		     int64_t fd, struct rpl_fd *e)
{
	uint32_t i;

	for (i = 0; i < pl->n_disp; i++) {
		struct rpl_displaced *d = &pl->disp[i];

		if (d->tab != tab || d->fd != fd || d->thread == op->thread ||
		    op->ev.t_enter > d->until)
			continue;
		*e = d->e;
		memmove(d, d + 1, (--pl->n_disp - i) * sizeof(*d));
		return 1;
	}
	return 0;
}

/*
 * And the other way round: the number a call took was the one another
 * thread's close freed, though the call entered before the number's
 * last taker.  zmq's threads (Jupyter's kernel, ptrace): eventfd2 entered
 * first and returned 174 us later with 21, after another thread's
 * socket took 21 and closed it; in entry order the socket
 * displaced the eventfd, the close closed the socket and left the
 * number free, and the eventfd's write and read, the read ordered before
 * the write by their ends, went through no descriptor: the read waited
 * 2 s for a count and met EAGAIN.  An entry displaced by a call that
 * returned before the call that made it did (its made_ns, the plan
 * tables' return) is that number's file again after a close of it that
 * began before that return: into *@e, taken out of the list.  1, else 0.
 */
static int reborn(struct rpl_planner *pl, const struct rpl_fdtab *tab, const struct rpl_op *op,
		  int64_t fd, struct rpl_fd *e)
{
	uint32_t i;

	for (i = 0; i < pl->n_disp; i++) {
		struct rpl_displaced *d = &pl->disp[i];

		if (d->tab != tab || d->fd != fd ||
		    d->e.made_ns <= d->until || d->e.made_ns <= op->ev.t_enter)
			continue;
		*e = d->e;
		memmove(d, d + 1, (--pl->n_disp - i) * sizeof(*d));
		return 1;
	}
	return 0;
}

/*
 * An open of a descriptor's magic link (/proc/self/fd/N, /dev/fd/N,
 * /dev/stdin, /proc/PID/fd/N: rpl_path_fd()) opens that descriptor's
 * file or pipe, not the path recorded: bash's `cat <(cmd)` has cat open
 * /dev/fd/63, the read end of a pipe cmd writes.  The descriptor's
 * entry into *@src, from the table of the op's process or of the
 * process with that pid (then op.link, RPL_OPF_FDPROC, names it for the
 * replay, ops_file.c).  @return : 1 if found, else 0.
 */
static int reopened_fd(struct rpl_plan *p, struct rpl_planner *pl, struct rpl_op *op,
		       struct rpl_fd *src)
{
	const struct rpl_thread *t = &p->threads[op->thread];
	struct rpl_fdtab *tab = p->procs[t->proc].tab;
	int64_t fd;
	int32_t pid;
	uint32_t pi;

	if (op->ev.ret < 0 || (fd = rpl_path_fd(op, &pid)) < 0)
		return 0;
	if (pid && pid != t->pid) {
		if (!rpl_map_get(&pl->pid2proc, RPL_IK(pid), &pi) || p->procs[pi].ended ||
		    !p->procs[pi].tab)
			return 0;
		tab = p->procs[pi].tab;
		p->procs[pi].fds_named = 1;
		op->rflags |= RPL_OPF_FDPROC;
		op->link = pi;
	}
	return rpl_fdtab_get(tab, (long)fd, src) == 0 && src->state == RPL_FD_LIVE && src->res;
}

/* Follow the descriptors through the plan tables; collect the op's
 * resource keys into @keys. @return : how many. */
int rpl_plan_fds(struct rpl_plan *p, struct rpl_planner *pl, struct rpl_op *op,
		 uint64_t *keys)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);
	struct rpl_proc *pr = &p->procs[p->threads[op->thread].proc];
	struct rpl_fdtab *tab = pr->tab;
	const struct rpl_ev *ev = &op->ev;
	int shared;
	int is_open = ev->nr == SYS_open || ev->nr == SYS_openat || ev->nr == SYS_openat2;
	/* a FIFO's open makes no change to it, whatever its flags say
	 * (O_CREAT, O_TRUNC): the reader's open does not follow the
	 * writer's, which waits for it */
	int64_t fifo = is_open && ev->path && ev->ret >= 0 ? rpl_fifo_res(p, pl, ev->path, 0) : 0;
	/* a subvolume made, snapshot or removed: ordered as a mkdir, or
	 * an rmdir, of its path (deps.c orders a snapshot and a removal
	 * after every op before them, what is under the path among them) */
	int sv = subvol_of(ev);
	uint64_t look = rpl_only_looks(sc, op) || fifo > 0 ? RPL_KEY_LOOK : 0;
	uint64_t meet = fifo > 0 ? RPL_KEY_MEET : 0;
	/* a write of data into a file: on its file's keys, one change of
	 * many that need no order among themselves */
	int wdata = writes_data(pl, sc, op);
	struct rpl_fd e = { 0 };
	struct rpl_fd back;
	int n = 0, nfd = 0, pair, from_pipe = 0, into_pipe = 0, gone = 0, again = 0;
	int ends_proc = ev->nr == SYS_exit || ev->nr == SYS_exit_group ||
			ev->nr == SYS_execve || ev->nr == SYS_execveat;
	uint32_t a;

	if (fifo < 0)
		return (int)fifo;
	if (!tab) {
		/* a call after its process's end (plan_threads.c
		 * plan_ended()): what it names was closed then */
		if (!(tab = rpl_fdtab_new(0)))
			return -ENOMEM;
		tab->ends = &pl->ends;
		pr->tab = tab;
	}
	shared = pr->n_threads > 1 || pr->n_unborn || tab->refs > 1;
	tab->made_ns = ev->t_exit;

#define ADD(k) do { if (n < RPL_MAXRES) keys[n++] = (k); } while (0)
	if (ev->path && !not_a_path(ev->path) && !rpl_on_pipe_fd(pl, tab, sc, ev)) {
		/* each path hashed once, and its parent's once (its key and
		 * the key of its names) */
		size_t len = strlen(ev->path);
		uint64_t h = rpl_path_hash(ev->path, len);

		ADD(rpl_key_norm(h) | (look ? look : wdata ? RPL_KEY_NAME : 0));
		/* A name made or removed looks up its directory (made
		 * before it), and changes the directory's names; changes of
		 * other names in it need no order among themselves (two
		 * compilers writing their objects into one directory, or
		 * temporary files into /tmp, were made to take turns as
		 * recorded).  Failed, it changed no name. */
		if (changes_names(sc, op) || sv) {
			uint64_t hp = rpl_path_hash(ev->path, parent_len(ev->path, len));

			ADD(rpl_key_norm(hp) | RPL_KEY_LOOK);
			if (!look)
				ADD(names_of(hp) | RPL_KEY_NAME);
		} else if (parent_len(ev->path, len) < len) {
			/* Any other path is looked up through its directory
			 * too, which another thread may have just made: npm's
			 * workers make node_modules/a -> ../packages/a again
			 * in one thread and stat node_modules/a/cli.js in
			 * another, a path of its own, which was replayed
			 * first and met ENOENT.  Its directory only: a deeper
			 * ancestor made was looked up by what made the
			 * directories below it. */
			ADD(rpl_key_norm(rpl_path_hash(ev->path, parent_len(ev->path, len))) | RPL_KEY_LOOK);
		}
		/* what sees a directory's names: an open of it (a listing
		 * reads them through that descriptor), its removal */
		if (lists_names(sc, op) || sv == IOT_SUBVOL_DESTROY)
			ADD(names_of(h) | look);
		if (rpl_is_lock(ev)) {
			ADD(rpl_locks_of(h) | (ev->ret < 0 || (ev->nr == SYS_fcntl &&
							   (ev->args[1] == F_GETLK ||
							    ev->args[1] == F_OFD_GETLK)) ?
					   RPL_KEY_LOOK : 0));
			if (ev->ret == 0) {
				struct rpl_fd lf;
				int err;

				if (rpl_fdtab_get(tab, (long)ev->args[0], &lf) == 0 &&
				    (err = rpl_mark_locked(pl, &lf, rpl_locks_of(h))) < 0)
					return err;
			}
		}
	}
	/* a second name (rename's and link's target) is made too */
	if (ev->path2 && iot_syscall_arg(sc, IOT_ARG_PATH2) >= 0) {
		size_t len = strlen(ev->path2);
		uint64_t hp = rpl_path_hash(ev->path2, parent_len(ev->path2, len));

		ADD(rpl_key_path(ev->path2, len) | look);
		ADD(rpl_key_norm(hp) | RPL_KEY_LOOK);
		if (!look)
			ADD(names_of(hp) | RPL_KEY_NAME);
	} else if (ev->path2 && sv == IOT_SUBVOL_SNAP) {
		/* a snapshot's source: its tree read */
		size_t len = strlen(ev->path2);

		ADD(rpl_key_path(ev->path2, len) | RPL_KEY_LOOK);
		ADD(names_of(rpl_path_hash(ev->path2, len)) | RPL_KEY_LOOK);
	}
	for (a = 0; sc && a < sc->nargs && a < ev->nargs && nfd < 2; a++) {
		struct rpl_fd fe;
		uint32_t v;
		int efd = 0;

		if (sc->arg[a] != IOT_ARG_FD)
			continue;
		nfd++;
		if (ev->nr == SYS_close && pl->n_disp && shared)
			again = reborn(pl, tab, op, ev->args[a], &back);
		if ((ev->nr == SYS_close && pl->n_disp && shared && !again &&
		     (gone = displaced(pl, tab, op, ev->args[a], &fe))) ||
		    rpl_fdtab_get(tab, (long)ev->args[a], &fe) == 0) {
			efd = (fe.marks & RPL_FD_EVENTFD) != 0;
			if (!rpl_map_get(&pl->pipes, RPL_IK(fe.res), &v)) {
				ADD(rpl_key_res(fe.res) | (wdata ? RPL_KEY_NAME : 0));
			} else if (moves_from(ev) >= 0) {
				/* moved nothing (failed): no order to keep */
				if (ev->ret >= 0 && (int)a == moves_from(ev)) {
					ADD(rpl_key_res(rpl_read_way(fe.res, v)) | RPL_KEY_PIPE | RPL_KEY_LOOK);
					from_pipe = 1;
				} else if (ev->ret > 0) {
					ADD(rpl_key_res(fe.res) | RPL_KEY_PIPE);
					into_pipe = 1;
				}
			} else {
				uint64_t pk = rpl_pipe_key(sc, op, rpl_pipe_way(sc, fe.res, v));

				if (pk && ev->nr == SYS_close && rpl_end_open_elsewhere(pl, &fe))
					pk |= RPL_KEY_LOOSE;
				if (pk)
					ADD(pk);
				if (ev->nr == SYS_close && rpl_sock_end_gone(pl, &fe, v)) {
					ADD(rpl_key_res(rpl_read_way(fe.res, v)) | RPL_KEY_PIPE);
					if (pl->sock_gone.n &&
					    rpl_map_put(&pl->sock_gone, RPL_IK(fe.res), RPL_NO_PROC) < 0)
						return -ENOMEM;
				}
				if (PIPE_KIND(v) != PIPE_ONE && rpl_sends(sc) &&
				    rpl_sent_into(p, pl, op, rpl_read_way(fe.res, v)) < 0)
					return -ENOMEM;
				/* a write that met EPIPE failed at the read
				 * end's last close, which it waited for in a
				 * full pipe (yes(1) feeding shuf's
				 * --random-source, 0.14 s): from its end */
				if (rpl_feeds_pipe(sc) && ev->ret != -EPIPE)
					op->rflags |= RPL_OPF_ORDER_ENTER;
				if (rpl_reader_gone(pl, sc, ev, &fe, v))
					op->rflags |= RPL_OPF_LATE_READER;
			}
		}
		/* the descriptor's number: a write through it only uses it,
		 * and so does any call on an eventfd, which has no offset (a
		 * read ordered as a change of the number came before the
		 * write it took the count of, where their ends were recorded
		 * the other way round: ptrace's latency in the write's) */
		if (shared && ev->args[a] >= 0)
			ADD(key_slot(tab, ev->args[a]) | (wdata || efd ? RPL_KEY_LOOK : 0));
	}
	/* into a pipe only, as a write from its entry; from one, as a read
	 * from its end (moves_from()) */
	if (into_pipe && !from_pipe)
		op->rflags |= RPL_OPF_ORDER_ENTER;
	/* an exit's or exec's pipes first: the files mapped at an exit
	 * (shuf's 13 locale files) took all RPL_MAXRES keys, and the read
	 * end it closed was left out of the pipe's order: a write that met
	 * EPIPE there replayed before it, into a full pipe (EAGAIN) */
	if (!ends_proc)
		n = async_keys(p, tab, op, keys, n);
	if (ev->ret < 0)
		return n;
	if (shared && sc && ((sc->flags & IOT_SCF_RETFD) ||
			     (ev->nr == SYS_fcntl && (ev->args[1] == F_DUPFD ||
						      ev->args[1] == F_DUPFD_CLOEXEC)))) {
		struct rpl_fd old;

		ADD(key_slot(tab, ev->ret));
		if (ev->nr != SYS_dup2 && ev->nr != SYS_dup3 && ev->ret < RPL_FD_MAX &&
		    rpl_fdtab_get(tab, (long)ev->ret, &old) == 0 && old.state == RPL_FD_LIVE)
			displace(pl, tab, op, &old);
	}
	/* (its argument looked up where it is needed: a call of another
	 * kind looked through the row's arguments for nothing) */
	if (shared && (pair = sc ? iot_syscall_arg(sc, IOT_ARG_FDPAIR) : -1) >= 0) {
		ADD(key_slot(tab, (int32_t)(ev->args[pair] & 0xffffffff)));
		ADD(key_slot(tab, (int32_t)((uint64_t)ev->args[pair] >> 32)));
	}
	switch (ev->nr) {
	case SYS_open: case SYS_openat: case SYS_openat2: case SYS_creat: {
		int flags = ev->nr == SYS_open ? (int)ev->args[1] :
			    ev->nr == SYS_creat ? 0 : (int)ev->args[2];
		struct rpl_fd src;
		uint32_t v;
		/* a pipe opened anew through a FIFO's path or a descriptor's
		 * magic link (/dev/fd/N: reopened_fd()) */
		uint32_t pipe = fifo > 0 ? (uint32_t)fifo : 0;

		if (!pipe && reopened_fd(p, pl, op, &src)) {
			if (rpl_map_get(&pl->pipes, RPL_IK(src.res), &v) && PIPE_KIND(v) == PIPE_ONE)
				pipe = src.res;
			else		/* a file's new open follows its uses */
				ADD(rpl_key_res(src.res) | RPL_KEY_LOOK);
		}
		e.state = RPL_FD_LIVE;
		e.res = pipe ? pipe : ++pl->next_res;
		e.wend = pipe && (flags & O_ACCMODE) == O_WRONLY;
		e.cloexec = (flags & O_CLOEXEC) != 0;
		if (pipe)
			rpl_count_end(pl, &e);
		rpl_fdtab_set(tab, (long)ev->ret, &e);
		/* later uses follow the open; a FIFO's two opens meet (the
		 * writer's waits for the reader's, ops_file.c), so neither
		 * follows the other; a pipe's end opened again is a look
		 * at it, as a FIFO's open is: its reads follow the writes
		 * that fed them */
		ADD(rpl_key_res(e.res) | (pipe ? RPL_KEY_LOOK : 0));
		break;
	}
	case SYS_dup: case SYS_dup2:
		rpl_fdtab_dup(tab, (long)ev->args[0], (long)ev->ret, 0);
		break;
	case SYS_dup3:
		rpl_fdtab_dup(tab, (long)ev->args[0], (long)ev->ret,
			      (ev->args[2] & O_CLOEXEC) != 0);
		break;
	case SYS_fcntl:
		if (ev->args[1] == F_DUPFD || ev->args[1] == F_DUPFD_CLOEXEC)
			rpl_fdtab_dup(tab, (long)ev->args[0], (long)ev->ret,
				      ev->args[1] == F_DUPFD_CLOEXEC);
		else if (ev->args[1] == F_SETFD)
			rpl_fdtab_set_cloexec(tab, (long)ev->args[0], ev->args[2] & FD_CLOEXEC);
		break;
	case SYS_ioctl:		/* close-on-exec as F_SETFD sets it */
		if ((unsigned long)ev->args[1] == FIOCLEX || (unsigned long)ev->args[1] == FIONCLEX)
			rpl_fdtab_set_cloexec(tab, (long)ev->args[0],
					      (unsigned long)ev->args[1] == FIOCLEX);
		break;
	case SYS_pipe: case SYS_pipe2: case SYS_socketpair: {
		/* a socket pair is two pipes: each end writes one, reads
		 * the other's (rpl_pipe_way()); SOCK_CLOEXEC is O_CLOEXEC */
		int sock = ev->nr == SYS_socketpair;
		int64_t end0;

		if ((pair = sc ? iot_syscall_arg(sc, IOT_ARG_FDPAIR) : -1) < 0)
			break;

		e.state = RPL_FD_LIVE;
		e.res = ++pl->next_res;
		e.cloexec = ev->nr != SYS_pipe && (ev->args[1] & O_CLOEXEC);
		if ((end0 = rpl_new_pipe(pl, e.res, sock ? PIPE_SOCK0 : PIPE_ONE)) < 0)
			return -ENOMEM;
		e.end = (uint32_t)end0;
		rpl_fdtab_set(tab, (long)(int32_t)(ev->args[pair] & 0xffffffff), &e);
		e.wend = !sock;		/* fds[1]: a pipe's write end */
		e.end += e.wend;
		ADD(rpl_key_res(e.res));
		if (sock) {
			e.res = ++pl->next_res;
			ADD(rpl_key_res(e.res));
			if ((end0 = rpl_new_pipe(pl, e.res, PIPE_SOCK1)) < 0)
				return -ENOMEM;
			e.end = (uint32_t)end0;
		}
		rpl_fdtab_set(tab, (long)(int32_t)((uint64_t)ev->args[pair] >> 32), &e);
		break;
	}
	case SYS_socket: case SYS_bind: case SYS_connect: case SYS_accept: case SYS_accept4:
	case SYS_listen: {
		int64_t l = rpl_sock_ends(p, pl, tab, op);

		/* A connect is queued on the listener, and its accepts take
		 * the connects in that order (rpl_sock_ends() pairs the k-th of
		 * each): connects to one name in their recorded order, with
		 * the listener's accepts (on its key).  Unordered, two
		 * postgres clients' connects came the other way round, and
		 * each backend served the other's client (pgbench -C:
		 * 611 mismatches).  The connection is queued during the
		 * connect, as a pipe's data during its write: it counts from
		 * its entry (the accept it woke had its return recorded
		 * first, and replayed first it waited for the connect, which
		 * waited for it). */
		if (l < 0)
			return -ENOMEM;
		if (l > 0 && (l & RPL_CONN_WAITED_ROOM)) {
			/* it waited for room: from its end, after the
			 * connects queued before it, not on the listener
			 * (queue_full()) */
			ADD(rpl_queue_of((uint32_t)l));
		} else if (l > 0) {
			/* (one known by its socket need not keep the others'
			 * order: its accept takes its connection) */
			ADD(rpl_key_res((uint32_t)l) | (rpl_sock_ino(ev) ? RPL_KEY_LOOK : 0));
			if (ev->nr == SYS_connect)
				ADD(rpl_queue_of((uint32_t)l));
			op->rflags |= RPL_OPF_ORDER_ENTER;
		}
		break;
	}
	case SYS_sendmsg: case SYS_recvmsg: {
		int32_t fds[IOT_MSG_FDS_MAX];
		int k, m = rpl_msg_fds(ev, fds);

		if (m <= 0)
			break;
		if (rpl_plan_msg_fds(p, pl, tab, sc, op, fds, m) < 0)
			return -ENOMEM;
		for (k = 0; shared && ev->nr == SYS_recvmsg && k < m && k < IOT_MSG_FDS_MAX; k++)
			ADD(key_slot(tab, fds[k]));
		break;
	}
	case SYS_eventfd: case SYS_eventfd2: {
		/* its writes add to a count its reads take: ordered as a
		 * pipe's, a read after the write of its 8 bytes
		 * (ops_pipe.c rpl_eventfd_rw()) */
		int64_t end0;

		if (ev->ret < 0)
			break;
		e.state = RPL_FD_LIVE;
		e.res = ++pl->next_res;
		e.cloexec = ev->nr == SYS_eventfd2 && (ev->args[1] & O_CLOEXEC);
		e.marks = RPL_FD_EVENTFD;
		if ((end0 = rpl_new_pipe(pl, e.res, PIPE_ONE)) < 0)
			return -ENOMEM;
		e.end = (uint32_t)end0;
		rpl_fdtab_set(tab, (long)ev->ret, &e);
		ADD(rpl_key_res(e.res));
		break;
	}
	case SYS_mknod: case SYS_mknodat:
		if (ev->path && S_ISFIFO((mode_t)ev->args[ev->nr == SYS_mknodat ? 2 : 1]) &&
		    rpl_fifo_res(p, pl, ev->path, 1) < 0)
			return -ENOMEM;
		break;
	case SYS_unlink: case SYS_unlinkat: case SYS_rename: case SYS_renameat:
	case SYS_renameat2:
		if (ev->path && rpl_fifo_moved(pl, ev->path, ev->nr == SYS_unlink ||
					   ev->nr == SYS_unlinkat ? NULL : ev->path2) < 0)
			return -ENOMEM;
		break;
	case SYS_close:
		/* The kernel frees the number early in the call: where
		 * threads share the table, another's open can take it before
		 * this close returns, and ordered from the close's end, that
		 * open came first here and the close closed the file it
		 * opened (its next call EBADF).  It counts from its entry. */
		if (shared)
			op->rflags |= RPL_OPF_ORDER_ENTER;
		/* (the file it closed was another's by its return: displace()) */
		if (!gone) {
			struct rpl_fd c;
			uint64_t k;

			if (rpl_fdtab_get(tab, (long)ev->args[0], &c) == 0 &&
			    (k = rpl_held_lock(pl, &c))) {
				pl->frees_locks = 1;
				if (!rpl_has_key(keys, n, k))
					ADD(k);
			}
			rpl_fdtab_close(tab, (long)ev->args[0]);
		}
		if (again && rpl_fdtab_set(tab, (long)ev->args[0], &back) == -ENOMEM)
			return -ENOMEM;
		break;
	case SYS_close_range:
		rpl_fdtab_close_range(tab, (unsigned long)ev->args[0],
				      (unsigned long)ev->args[1], (unsigned)ev->args[2]);
		break;
	case SYS_execve: case SYS_execveat: {
		/* The pipes it closes (close-on-exec) are closed during the
		 * call: a reader that saw end of file may have returned
		 * before the exec did, so the exec counts from its entry. */
		int k = rpl_pipe_keys(p, pl, tab, 1, keys + n, RPL_MAXRES - n);

		n += k;
		if (k)
			op->rflags |= RPL_OPF_ORDER_ENTER;
		k = n;
		n = rpl_held_locks(pl, tab, 1, keys, n);
		pl->frees_locks = n > k;
		rpl_fdtab_exec(tab);
		break;
	}
	case SYS_exit: case SYS_exit_group: {
		/* Its descriptors close as it ends: a reader of one of its
		 * pipes that saw end of file waits for the end (ops_proc.c
		 * h_exit() closes them then). */
		if (tab->refs == 1 && (ev->nr == SYS_exit_group || pr->n_threads == 1)) {
			int k;

			n += rpl_pipe_keys(p, pl, tab, 0, keys + n, RPL_MAXRES - n);
			k = n;
			n = rpl_held_locks(pl, tab, 0, keys, n);
			pl->frees_locks = n <= k ? 0 : rpl_lets_go_for_good(p, pl, tab) ? 2 : 1;
		}
		break;
	}
	}
	if (ends_proc)
		n = async_keys(p, tab, op, keys, n);
	/* a FIFO's open meets the other end's: each of its looks (its
	 * path, its directory, the FIFO) says so (deps.c add_looker()) */
	for (a = 0; meet && a < (uint32_t)n; a++)
		if (keys[a] & RPL_KEY_LOOK)
			keys[a] |= meet;
	return n;
#undef ADD
}
