/*
 * mpages.c - replaying the pages of file mappings (MapPages records):
 * the pages a program read through a mapping are read from the file,
 * those it wrote are written, at the munmap, msync or exit that the
 * recorder took them at (the program touched them within the mapping's
 * life, before that call).  A mapping moved by mremap is found where it
 * went (the MapPages records after it name its new address).  A read of a page not cached pages it in from
 * the filesystem, as the program's fault did; a write dirties it, as the
 * program's store did; an msync with MS_SYNC then syncs the file's data.
 * Read runs go as preads of up to RPL_SCRATCH bytes; written pages are
 * stored to through a shared mapping of their run, one store a page, as
 * the program's were (touch_run()), so that each takes the filesystem's
 * write fault (btrfs reserves and copies on write there, ext4 opens a
 * journal handle): 215 MiB dirtied so took btrfs 0.82-0.97 s where
 * pwrite took 0.10-0.12 s, ext4 0.29-0.51 s against 0.05 s, and man-db's
 * mandb, which writes its database through a mapping, replayed 13.8 %
 * fast on btrfs with pwrites (2026-12-07).  Where the file cannot be
 * mapped so (a descriptor not open for writing), pwrites, as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rpl.h"

/* A file mapping of a replayed process: where it was recorded, a copy of
 * the descriptor it mapped. */
struct rpl_map_fd {
	uint64_t addr, len;
	int fd;
};

struct rpl_maps {
	struct rpl_map_fd *v;
	uint32_t n, cap;
};

/*
 * A mapping made, or moved, to @addr: no other can be there any more (the
 * kernel unmapped it), so an entry of @m at that address is gone.  Traces
 * before 2026-12-06 keep no munmap's address (it was a pointer argument,
 * stored as 0), so the entries of unmapped mappings stay until then; a
 * later mapping at a reused address found the earlier one's file:
 * sqlite3's grown mapping, moved by mremap to where a locale file had
 * been mapped, read and wrote that file.
 */
static void gone_at(struct rpl_maps *m, uint64_t addr)
{
	uint32_t i;

	for (i = 0; m && i < m->n;) {
		if (m->v[i].addr == addr) {
			close(m->v[i].fd);
			m->v[i] = m->v[--m->n];
			continue;
		}
		i++;
	}
}

int64_t rpl_mpages_mmap(struct rpl_ctx *c, struct rpl_op *op)
{
	const int64_t *a = op->ev.args;
	struct rpl_maps *m;
	struct rpl_fd e;
	uint32_t i;

	pthread_mutex_lock(&c->p->aio_lock);
	m = c->pr->maps;
	/* (an mremap that grew the mapping in place keeps its entry) */
	if ((op->ev.nr == SYS_mmap || (op->ev.nr == SYS_mremap && op->ev.ret != a[0])) &&
	    (uint64_t)op->ev.ret < (uint64_t)-4095)
		gone_at(m, (uint64_t)op->ev.ret);
	if (op->ev.nr == SYS_mmap && (uint64_t)op->ev.ret < (uint64_t)-4095 &&
	    !(a[3] & MAP_ANONYMOUS) && (int32_t)a[4] >= 0 &&
	    rpl_fdtab_get(c->pr->tab, (int32_t)a[4], &e) == 0 && e.state == RPL_FD_LIVE) {
		if (!m && !(m = c->pr->maps = calloc(1, sizeof(*m))))
			goto out;
		if (m->n == m->cap) {
			uint32_t nc = m->cap ? m->cap * 2 : 16;
			struct rpl_map_fd *v = realloc(m->v, nc * sizeof(*v));

			if (!v)
				goto out;
			m->v = v;
			m->cap = nc;
		}
		m->v[m->n].fd = fcntl(e.live, F_DUPFD_CLOEXEC, 0);
		if (m->v[m->n].fd < 0)
			goto out;
		m->v[m->n].addr = (uint64_t)op->ev.ret;
		m->v[m->n].len = (uint64_t)a[1];
		m->n++;
	} else if (op->ev.nr == SYS_mremap && m && (uint64_t)op->ev.ret < (uint64_t)-4095) {
		/* moved or resized: its pages are found by where it is now */
		for (i = 0; i < m->n; i++)
			if (m->v[i].addr == (uint64_t)a[0]) {
				m->v[i].addr = (uint64_t)op->ev.ret;
				m->v[i].len = (uint64_t)a[2];
			}
	} else if (op->ev.nr == SYS_munmap && m && a[0]) {
		/* whole pages, as the kernel unmaps: the copy of the file's
		 * descriptor goes with the mapping (kept, an unlinked file's
		 * space stayed taken until the process ended) */
		uint64_t lo = (uint64_t)a[0], hi = lo + (((uint64_t)a[1] + 4095) & ~4095ULL);

		for (i = 0; i < m->n;) {
			uint64_t end = m->v[i].addr + ((m->v[i].len + 4095) & ~4095ULL);

			if (m->v[i].addr >= lo && end <= hi) {
				close(m->v[i].fd);
				m->v[i] = m->v[--m->n];
				continue;
			}
			i++;
		}
	}
out:
	pthread_mutex_unlock(&c->p->aio_lock);
	return rpl_skip(op, RPL_SKIP_MMAP);
}

int rpl_mpages_fork(struct rpl_plan *p, struct rpl_proc *pr, int dup)
{
	const struct rpl_maps *pm;
	struct rpl_maps *m;
	uint32_t i;
	int err = 0;

	if (pr->parent < 0 || pr->maps || !(pm = p->procs[pr->parent].maps) || !pm->n)
		goto out;
	/* a fork copies every mapping, and the mapping holds its file, not
	 * its name: the child's pages go to the file its parent mapped even
	 * when that file has no name left (unlinked, or opened and unlinked
	 * before the mmap) */
	err = -ENOMEM;
	if (!(m = calloc(1, sizeof(*m))) || !(m->v = malloc(pm->n * sizeof(*m->v)))) {
		free(m);
		goto out;
	}
	m->cap = pm->n;
	for (i = 0; i < pm->n; i++) {
		m->v[m->n] = pm->v[i];
		if (dup && (m->v[m->n].fd = fcntl(pm->v[i].fd, F_DUPFD_CLOEXEC, 0)) < 0)
			continue;	/* its pages go by name, or are counted */
		m->n++;
	}
	pr->maps = m;
	err = 0;
out:
	return err;
}

int rpl_mpages_fds(const struct rpl_proc *pr, int **v, uint32_t *n)
{
	const struct rpl_maps *m = pr->maps;
	uint32_t i;

	*v = NULL;
	*n = 0;
	if (!m || !m->n)
		return 0;
	if (!(*v = malloc(m->n * sizeof(**v))))
		return -ENOMEM;
	for (i = 0; i < m->n; i++)
		(*v)[i] = m->v[i].fd;
	*n = m->n;
	return 0;
}

void rpl_mpages_exec(struct rpl_ctx *c)
{
	struct rpl_maps *m;
	uint32_t i;

	/* the image goes with its mappings (their pages were replayed at
	 * the execve, before this): a mapping the new image makes at the
	 * same address is another file's */
	pthread_mutex_lock(&c->p->aio_lock);
	m = c->pr->maps;
	for (i = 0; m && i < m->n; i++)
		close(m->v[i].fd);
	if (m)
		m->n = 0;
	pthread_mutex_unlock(&c->p->aio_lock);
}

/* The copy of the descriptor mapped at @addr, or -1 */
static int map_fd(struct rpl_ctx *c, uint64_t addr)
{
	struct rpl_maps *m;
	int fd = -1;
	uint32_t i;

	pthread_mutex_lock(&c->p->aio_lock);
	m = c->pr->maps;
	for (i = 0; m && i < m->n; i++)
		if (m->v[i].addr == addr) {
			fd = fcntl(m->v[i].fd, F_DUPFD_CLOEXEC, 0);
			break;
		}
	pthread_mutex_unlock(&c->p->aio_lock);
	return fd;
}

void rpl_mpages_free(struct rpl_plan *p)
{
	size_t i;
	uint32_t k;

	for (i = 0; i < p->n_procs; i++) {
		struct rpl_maps *m = p->procs[i].maps;

		if (!m)
			continue;
		/* in a table of the process's own, its copies went with it;
		 * the same numbers here are other files (the profile's,
		 * the root's, an MPI library's) */
		for (k = 0; k < m->n && !p->procs[i].own_kernel_table; k++)
			close(m->v[k].fd);
		free(m->v);
		free(m);
		p->procs[i].maps = NULL;
	}
	free(p->mp);
	p->mp = NULL;
}

static uint64_t *copy_runs(struct rpl_plan *p, const uint64_t *v, uint32_t pairs)
{
	uint64_t *c = pairs ? iot_arena_alloc(p->arena, 2 * pairs * sizeof(*c)) : NULL;

	if (c)
		memcpy(c, v, 2 * pairs * sizeof(*c));
	return c;
}

int rpl_mpages_collect(struct rpl_plan *p, const struct iot_mpages *m)
{
	struct iot_mpages *x;
	struct rpl_op *op;
	size_t k;

	if (p->n_mp == p->cap_mp) {
		size_t nc = p->cap_mp ? p->cap_mp * 2 : 64;
		void *v = realloc(p->mp, nc * sizeof(*p->mp));

		if (!v)
			return -ENOMEM;
		p->mp = v;
		p->cap_mp = nc;
	}
	x = &p->mp[p->n_mp];
	*x = *m;
	x->path = m->path ? iot_arena_strndup(p->arena, m->path, m->path_len) : NULL;
	x->read_runs = copy_runs(p, m->read_runs, m->n_read);
	x->write_runs = copy_runs(p, m->write_runs, m->n_write);
	if ((m->path && !x->path) || (m->n_read && !x->read_runs) ||
	    (m->n_write && !x->write_runs))
		return -ENOMEM;
	k = p->n_mp++;
	/* ops are in file order here; pages whose event is not their
	 * thread's yet (a race at exec or exit) are tied after the read */
	if (m->event >= p->n_ops || p->ops[m->event].ev.tid != m->tid) {
		x->flags |= RPL_MP_LOOSE;
		return 0;
	}
	op = &p->ops[m->event];
	if (!op->n_mp)
		op->mp_off = (uint32_t)k;
	if (op->mp_off + op->n_mp == k && op->n_mp < UINT16_MAX)
		op->n_mp++;
	return 0;
}

static int exec_or_exit(const struct rpl_op *o)
{
	return o->ev.nr == SYS_execve || o->ev.nr == SYS_execveat || o->ev.nr == SYS_exit ||
	       o->ev.nr == SYS_exit_group;
}

#define MP_TIE_SCAN 100000	/* ops looked through for a loose record's call */

/*
 * A ptrace recording takes a process's pages at its execve's entry stop
 * (or its leader's exit) and ties them to the next event the trace will
 * hold, which is that call's own only if no other thread writes one
 * while the exec runs: a shell's background job (`cmd &`) forks a child
 * that reads the parent's locale mapping and execs while the parent
 * goes on, so the event there was the parent's next clone, and every
 * such child's pages were left out (`for i in 1 2 3; do /bin/true & done`
 * under bash with a UTF-8 locale: 3 of 20 records not replayed; a clang
 * ThinLTO build: 19 of 190).  The call they were taken at is the first
 * exec or exit of their thread at or after that event: in file order
 * still, before the ops are sorted.
 */
void rpl_mpages_tie(struct rpl_plan *p)
{
	size_t k;

	for (k = 0; k < p->n_mp; k++) {
		struct iot_mpages *m = &p->mp[k];
		struct rpl_op *op = NULL;
		uint64_t e, end;

		if (!(m->flags & RPL_MP_LOOSE))
			continue;
		m->flags &= ~(uint32_t)RPL_MP_LOOSE;
		end = m->event + MP_TIE_SCAN < p->n_ops ? m->event + MP_TIE_SCAN : p->n_ops;
		for (e = m->event; e < end; e++) {
			struct rpl_op *o = &p->ops[e];

			if (o->ev.tid == m->tid && exec_or_exit(o)) {
				op = o;
				break;
			}
		}
		/* the bpf backends take a process's pages once it is gone,
		 * tied to whatever event comes next: its end is the last exec
		 * or exit of any of its threads before (a JVM's exit_group
		 * from a thread other than its leader's: 76 of 222 records
		 * of a jlink run left out) */
		for (e = m->event < p->n_ops ? m->event + 1 : p->n_ops;
		     !op && e-- > 0 && m->event - e <= MP_TIE_SCAN;) {
			struct rpl_op *o = &p->ops[e];

			if ((int32_t)o->thread == m->pid && exec_or_exit(o))
				op = o;
		}
		if (!op)
			continue;	/* counted, not replayed */
		if (!op->n_mp)
			op->mp_off = (uint32_t)k;
		if (op->mp_off + op->n_mp == k && op->n_mp < UINT16_MAX)
			op->n_mp++;
	}
}

/*
 * A store into a page past the file's end (another thread truncated the
 * file since its size was read) raises SIGBUS: the thread storing goes
 * back to touch_run(), which gives up the run; a SIGBUS anywhere else
 * does what it did without the handler.
 */
static __thread sigjmp_buf *touch_jb;

static void on_sigbus(int sig)
{
	if (touch_jb)
		siglongjmp(*touch_jb, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void sigbus_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGBUS, &sa, NULL);
}

/*
 * Store to each page of the @n runs (first page, pages) of @fd, below
 * @end, through one shared mapping of them all, as the program had one
 * (gdbm dirties pages all over its file in each of its 5,586 mappings: a
 * mapping of each run, and its unmapping, cost the replay more calls and
 * TLB shootdowns than the program made, +29 % as fast as it could go).
 * @return : the bytes dirtied, or -1 if @fd cannot be mapped so (the
 * caller writes them instead).
 */
static int64_t touch_runs(int fd, const uint64_t *runs, uint32_t n, uint32_t page, uint64_t end)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	uint64_t first = runs[0] * page, last = (runs[2 * (n - 1)] + runs[2 * (n - 1) + 1]) * page;
	volatile int64_t done = 0;
	volatile uint32_t k = 0;
	volatile char *m;
	sigjmp_buf jb;

	if (last > end)
		last = end;
	if (first >= last)
		return 0;
	m = mmap(NULL, last - first, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)first);
	if (m == MAP_FAILED)
		return -1;
	pthread_once(&once, sigbus_install);
	if (sigsetjmp(jb, 1) == 0) {
		touch_jb = &jb;
		for (k = 0; k < n; k++) {
			uint64_t o = runs[2 * k] * page, e = o + runs[2 * k + 1] * page;

			for (; o < e && o < last; o += page) {
				m[o - first] = (char)(0x5a ^ (o >> 12));
				done += (int64_t)(last - o < page ? last - o : page);
			}
		}
	}
	touch_jb = NULL;
	munmap((void *)m, last - first);
	return done;
}

/* @return : bytes moved, or -1.  Writes stop at @end, the file's size: a
 * store through a mapping never makes the file longer, and the bytes of
 * its last page past the end are not the file's (a linker's output of
 * 1,997,958 bytes written as 488 whole pages grew by 890). */
static int64_t runs_io(struct rpl_ctx *c, int fd, const uint64_t *runs, uint32_t n,
		       uint32_t page, int wr, uint64_t end)
{
	int64_t done = 0;
	uint32_t i;

	/* (the runs' offsets, multiples of page, are page-aligned for mmap) */
	if (wr && n && page >= 4096 && !(page & (page - 1))) {
		done = touch_runs(fd, runs, n, page, end);
		if (done >= 0)
			return done;
		done = 0;
	}
	for (i = 0; i < n; i++) {
		uint64_t off = runs[2 * i] * page, left = runs[2 * i + 1] * page;

		if (wr)
			left = off >= end ? 0 : left < end - off ? left : end - off;
		while (left > 0) {
			size_t k = left < RPL_SCRATCH ? (size_t)left : RPL_SCRATCH;
			ssize_t r = wr ? pwrite(fd, rpl_wbuf(), k, (off_t)off) :
				pread(fd, c->scratch, k, (off_t)off);

			if (r <= 0)
				return done ? done : -1;
			done += r;
			off += (uint64_t)r;
			left -= (uint64_t)r;
		}
	}
	return done;
}

void rpl_mpages_run(struct rpl_ctx *c, struct rpl_op *op)
{
	uint32_t i;

	for (i = 0; i < op->n_mp; i++) {
		struct iot_mpages *m = &c->p->mp[op->mp_off + i];
		int fd, wr = m->n_write > 0;
		struct stat st;
		int64_t r;

		/* the descriptor it mapped, else its name (a trace without
		 * its mmap, or one the replay could not open) */
		if (!m->path || rpl_path_skip(c->p->o, m->path) ||
		    ((fd = map_fd(c, m->addr)) < 0 &&
		     (fd = rpl_open_at(c, m->path, (wr ? O_RDWR : O_RDONLY) | O_NOCTTY, 0)) < 0)) {
			m->flags |= RPL_MP_FAILED;
			continue;
		}
		r = runs_io(c, fd, m->read_runs, m->n_read, m->page_size, 0, UINT64_MAX);
		if (r >= 0 && wr)
			r = fstat(fd, &st) < 0 ? -1 :
			    runs_io(c, fd, m->write_runs, m->n_write, m->page_size, 1,
				    (uint64_t)st.st_size);
		/* msync(MS_SYNC) waited for its pages to reach the disk */
		if (r >= 0 && wr && op->ev.nr == SYS_msync && (op->ev.args[2] & MS_SYNC))
			fdatasync(fd);
		close(fd);
		m->flags |= r < 0 ? RPL_MP_FAILED : RPL_MP_DONE;
	}
}

int rpl_mpages_profile(struct rpl_plan *p, struct iot_writer *w, const struct rpl_op *op,
		       int64_t t_ns, uint64_t event)
{
	struct iot_mpages m;
	uint32_t i;
	int err = 0;

	for (i = 0; i < op->n_mp && !err; i++) {
		m = p->mp[op->mp_off + i];
		if (!(m.flags & RPL_MP_DONE))
			continue;	/* not replayed: it moved nothing */
		m.flags &= ~(uint32_t)(RPL_MP_DONE | RPL_MP_FAILED);
		m.event = event;
		m.t_ns = t_ns;
		err = iot_writer_mpages(w, &m);
	}
	return err;
}

void rpl_mpages_tally(struct rpl_plan *p, struct rpl_result *res)
{
	size_t i;
	uint32_t k;

	for (i = 0; i < p->n_mp; i++) {
		const struct iot_mpages *m = &p->mp[i];
		uint64_t rd = 0, wr = 0;

		for (k = 0; k < m->n_read; k++)
			rd += m->read_runs[2 * k + 1] * m->page_size;
		for (k = 0; k < m->n_write; k++)
			wr += m->write_runs[2 * k + 1] * m->page_size;
		res->mp_records++;
		if (m->flags & RPL_MP_DONE) {
			res->mp_rbytes += rd;
			res->mp_wbytes += wr;
		} else {
			res->mp_skipped++;
			res->mp_skipped_bytes += rd + wr;
		}
	}
}

/* Does op @o make or move the mapping at @addr, or take its pages? */
static int maps_at(const struct rpl_op *o, uint64_t addr)
{
	return ((o->ev.nr == SYS_mmap || o->ev.nr == SYS_mremap) && (uint64_t)o->ev.ret == addr) ||
	       (o->ev.nr == SYS_msync && (uint64_t)o->ev.args[0] == addr);
}

#define MP_SCAN 200000		/* ops looked back through for a mapping's start */

/* Does op @o change the data or size of a file @x's records are of? */
static int writes_mapped(const struct rpl_plan *p, const struct rpl_op *o,
			 const struct rpl_op *x)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(o->ev.nr);
	uint32_t i;

	if (!sc || !(sc->flags & IOT_SCF_WRITE) || !o->ev.path)
		return 0;
	for (i = 0; i < x->n_mp; i++) {
		const struct iot_mpages *m = &p->mp[x->mp_off + i];

		if (m->path && strncmp(m->path, o->ev.path, m->path_len) == 0 &&
		    o->ev.path[m->path_len] == 0)
			return 1;
	}
	return 0;
}

/*
 * The pages a program touched through a mapping are taken at the munmap
 * or exit after it (the recorder sees them only then), but they were
 * touched in the computing before, whose faults and page-ins the recorded
 * gaps since the mapping was made hold; made after the taking op's gap,
 * their time counted twice (fio's mmap engine: its random reads and
 * writes are the gap before its job's last close, the pages taken at its
 * exit; its replays were 4 % slower than without the pages, which were
 * as long as the native runs).  So an op's records move to the op of its
 * thread with the longest gap since each of its mappings was made (or
 * last synced), and are made at that gap's start, their time taken out of
 * it (exec_thread.c).  Only where the thread made each mapping itself, to an op
 * with no records of its own, and after any call that wrote or sized a
 * file they are of (a page past the end then is not there yet); an msync
 * keeps its own (it syncs what they write).
 */
void rpl_mpages_plan(struct rpl_plan *p)
{
	uint32_t ti;

	for (ti = 0; ti < p->n_threads; ti++) {
		const struct rpl_thread *t = &p->threads[ti];
		uint32_t k;

		for (k = 0; k < t->n_ops; k++) {
			struct rpl_op *x = &p->ops[t->ops[k]], *y;
			uint32_t lo = 0, best = k, i, j;

			if (!x->n_mp || x->ev.nr == SYS_msync)
				continue;
			for (i = 0; i < x->n_mp && lo != UINT32_MAX; i++) {
				uint64_t addr = p->mp[x->mp_off + i].addr;

				for (j = k; j-- > 0 && k - j <= MP_SCAN;)
					if (maps_at(&p->ops[t->ops[j]], addr))
						break;
				if (j == UINT32_MAX || k - j > MP_SCAN)
					lo = UINT32_MAX;	/* not made here */
				else if (j > lo)
					lo = j;
			}
			if (lo == UINT32_MAX)
				continue;
			for (j = lo + 1; j < k; j++) {
				const struct rpl_op *o = &p->ops[t->ops[j]];

				/* not before a call that sized or wrote a mapped
				 * file (kchashmgr maps its new, empty file, then
				 * sizes it): the gaps after it only */
				if (writes_mapped(p, o, x))
					best = k;
				else if (!o->n_mp && !o->n_aio &&
					 o->think_ns > p->ops[t->ops[best]].think_ns)
					best = j;
			}
			if (best == k)
				continue;
			y = &p->ops[t->ops[best]];
			y->mp_off = x->mp_off;
			y->n_mp = x->n_mp;
			x->n_mp = 0;
		}
	}
}

int rpl_mp_taken_here(const struct rpl_op *op)
{
	switch (op->ev.nr) {
	case SYS_munmap: case SYS_msync: case SYS_mremap: case SYS_exit:
	case SYS_exit_group: case SYS_execve: case SYS_execveat:
		return op->n_mp != 0;
	}
	return 0;
}
