/*
 * mmap.c - the pages of file mappings a program read and wrote, which no
 * syscall shows: loads and stores through a mapping fault pages in and
 * dirty them without entering the kernel by a call.
 *
 * When a mapping (or part of it) is unmapped, synced or moved (mremap),
 * and when its process exits, the recorder reads the program's page table from
 * /proc/PID/pagemap: a page present there was touched (read, at least;
 * the kernel's fault-around may map up to 16 neighbours of a touched
 * page, which a real page-in read too).  A page dirty in the page cache
 * (/proc/kpageflags, root only) of a shared writable mapping was written.
 * Each page counts as read once per mapping; as written again after each
 * msync (which cleans it).  A tmpfs file's pages are never cleaned: dirty
 * whether written or read (a page written before the mapping), they
 * count as written once per mapping, flagged IOT_MP_TOUCHED, and the
 * summary counts them.  The pages go into a MapPages record after
 * the munmap, msync or exit_group event (FORMAT.md).
 *
 * The bpf backends have no stop to read the page table at: their
 * programs log the pages faults map and read in and the pages stores
 * dirty, which bpf_mmap.c marks in the mapping's bitmaps (hit, dirty);
 * scan() reads those instead of the page table, and the rest is the same
 * (record/README.md, "Pages of file mappings under bpf").
 *
 * Not taken: mappings of the loader (MAP_DENYWRITE) and code (PROT_EXEC),
 * which are program images, not file I/O; anonymous memory; mappings
 * still there at exec (the image is gone before the recorder can look);
 * pages written back by the kernel before the mapping went (they are
 * clean by then).  The record summary counts mappings left untaken.
 *
 * A mapping is tied to its file by the descriptor it was made from: the
 * path that descriptor's open named, kept with the mapping from the mmap
 * on (and copied into a forked child), so an unlink after the open or
 * after the mmap changes nothing; the replay keeps a copy of its own
 * descriptor likewise (replay/mpages.c).  A descriptor the trace did not
 * see opened (a memfd, one inherited from before the recording whose
 * file was since unlinked) ties the mapping to no file: it is counted,
 * not recorded under a name no file has.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rec.h"
#include "mmap_int.h"

#define MAX_PAGES (1ULL << 24)		/* 64 GiB: beyond this a mapping is cut */
#define PM_PRESENT (1ULL << 63)
#define PM_PFN ((1ULL << 55) - 1)
#define KPF_DIRTY 4
#define KPF_SWAPBACKED 14

static void fmap_free(struct rec_fmap *m)
{
	free(m->path);
	free(m->seen);
	free(m->wseen);
	free(m->hit);
	free(m->dirty);
}

int rec_fmap_bits(struct rec_fmap *m)
{
	uint64_t words = (m->len / PAGE + 63) / 64;

	m->hit = calloc(words, 8);
	m->dirty = calloc(words, 8);
	if (m->hit && m->dirty)
		return 0;
	free(m->hit);
	free(m->dirty);
	m->hit = m->dirty = NULL;
	return -ENOMEM;
}

void rec_fmap_free(struct rec_ctx *c)
{
	uint32_t i;

	if (!c->fmaps)
		return;
	for (i = 0; i < c->fmaps->n; i++)
		fmap_free(&c->fmaps->v[i]);
	if (c->fmaps->kpf >= 0)
		close(c->fmaps->kpf);
	free(c->fmaps->v);
	free(c->fmaps);
	c->fmaps = NULL;
}

void rec_fmap_clear_call(struct rec_task *t)
{
	uint32_t i;

	for (i = 0; i < t->n_mp; i++) {
		free((char *)t->mp[i].path);
		free((uint64_t *)t->mp[i].read_runs);
		free((uint64_t *)t->mp[i].write_runs);
	}
	free(t->mp);
	t->mp = NULL;
	t->n_mp = 0;
}

/* @p (@len bytes) is what /proc/PID/fd said of a descriptor open before
 * the recording whose file was unlinked: no name of a file the trace or
 * the replay knows (a file really named so is taken for one too) */
static int name_gone(const char *p, uint32_t len)
{
	static const char del[] = " (deleted)";

	return len >= sizeof(del) - 1 && memcmp(p + len - (sizeof(del) - 1), del,
						  sizeof(del) - 1) == 0;
}

int rec_fmap_add(struct rec_ctx *c, struct rec_task *t, uint64_t addr, uint64_t len,
		 uint32_t prot, uint32_t flags, int fd, uint64_t off)
{
	struct rec_fmaps *s = c->fmaps;
	struct rec_fmap *m;
	const char *p;
	uint32_t plen = 0;
	uint64_t pages = (len + PAGE - 1) / PAGE;

	if ((flags & (MAP_ANONYMOUS | MAP_DENYWRITE)) || (prot & PROT_EXEC) || fd < 0)
		return 0;
	/* the file is the one the descriptor's open named: an unlink since
	 * changes nothing.  A descriptor the trace did not see opened has
	 * no such name: counted, not given one (below) */
	p = rec_fd_path(t, fd, &plen);
	if (!p || name_gone(p, plen)) {
		c->st.fmap_untied++;
		return 0;
	}
	/* sockets and anonymous inodes are no files; /proc, /sys and /dev
	 * are not replayed */
	if (p[0] != '/' || rec_path_skipped(p))
		return 0;
	if (pages > MAX_PAGES)
		pages = MAX_PAGES;
	if (!s) {
		if (!(s = c->fmaps = calloc(1, sizeof(*s))))
			return -ENOMEM;
		s->kpf = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	}
	if (s->n == s->cap) {
		uint32_t nc = s->cap ? s->cap * 2 : 16;
		struct rec_fmap *v = realloc(s->v, nc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = nc;
	}
	m = &s->v[s->n];
	memset(m, 0, sizeof(*m));
	m->pid = t->pid;
	m->addr = addr;
	m->len = pages * PAGE;
	m->off = off;
	m->shared_w = (flags & MAP_SHARED) && (prot & PROT_WRITE);
	m->path = strndup(p, plen);
	if (m->shared_w && m->path) {
		struct statfs sf;

		m->tmpfs = statfs(m->path, &sf) == 0 && sf.f_type == TMPFS_MAGIC;
	}
	m->path_len = plen;
	m->seen = calloc((pages + 63) / 64, 8);
	if (!m->path || !m->seen) {
		fmap_free(m);
		return -ENOMEM;
	}
	s->n++;
	c->st.file_maps++;
	return 1;
}

int rec_fmap_fork(struct rec_ctx *c, pid_t parent, pid_t child)
{
	struct rec_fmaps *s = c->fmaps;
	uint32_t i, n;
	int err = 0;

	if (!s || parent == child)
		return 0;
	/* a fork copies every mapping; the child's page table starts with
	 * no page of a shared file mapping (the kernel leaves them to
	 * faults), so what it touches is its own, counted from nothing */
	for (i = 0, n = s->n; i < n && !err; i++) {
		struct rec_fmap *m;
		uint64_t pages;

		if (s->v[i].pid != parent)
			continue;
		if (s->n == s->cap) {
			uint32_t nc = s->cap * 2;
			struct rec_fmap *v = realloc(s->v, nc * sizeof(*v));

			if (!v) {
				err = -ENOMEM;
				break;
			}
			s->v = v;
			s->cap = nc;
		}
		m = &s->v[s->n];
		*m = s->v[i];
		pages = m->len / PAGE;
		m->pid = child;
		m->taken = 0;
		m->path = strndup(s->v[i].path, s->v[i].path_len);
		m->seen = calloc((pages + 63) / 64, 8);
		m->hit = m->dirty = m->wseen = NULL;
		if (!m->path || !m->seen || (s->v[i].hit && rec_fmap_bits(m) < 0)) {
			fmap_free(m);
			err = -ENOMEM;
			break;
		}
		s->n++;
		c->st.file_maps++;
	}
	return err;
}

/* Append run (first, count) to *@v (@n pairs, @cap). */
static int run_add(uint64_t **v, uint32_t *n, uint32_t *cap, uint64_t first)
{
	if (*n && (*v)[2 * (*n - 1)] + (*v)[2 * (*n - 1) + 1] == first) {
		(*v)[2 * (*n - 1) + 1]++;
		return 0;
	}
	if (*n == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 16;
		uint64_t *nv = realloc(*v, 2 * (size_t)nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = nc;
	}
	(*v)[2 * *n] = first;
	(*v)[2 * *n + 1] = 1;
	(*n)++;
	return 0;
}

/* The pages of @m in [lo, hi) into @out: those the bpf programs saw
 * (bpf_mmap.c: @m's hit and dirty bits), else those of the page table.
 * @return : 0 or -errno */
static int scan(struct rec_ctx *c, struct rec_task *t, struct rec_fmap *m, uint64_t lo,
		uint64_t hi, struct iot_mpages *out)
{
	char name[64];
	uint64_t *pm = NULL, *rr = NULL, *wr = NULL, i, n = (hi - lo) / PAGE;
	uint32_t nr = 0, cr = 0, nw = 0, cw = 0;
	int fd = -1, err = 0, shmem = 0;

	if (!m->hit) {
		snprintf(name, sizeof(name), "/proc/%d/pagemap", (int)t->tid);
		if ((fd = open(name, O_RDONLY | O_CLOEXEC)) < 0)
			return -errno;
		if (!(pm = malloc(n * 8 + 8)) ||
		    pread(fd, pm, n * 8, (off_t)(lo / PAGE * 8)) != (ssize_t)(n * 8)) {
			err = pm ? -EIO : -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < n && !err; i++) {
		uint64_t idx = (lo - m->addr) / PAGE + i, page = m->off / PAGE + idx, fl = 0;
		uint64_t bit = 1ULL << (idx % 64);
		int dirty = 0;

		if (m->hit) {
			if (!(m->hit[idx / 64] & bit))
				continue;
			/* written again only if dirtied again */
			dirty = m->shared_w && (m->dirty[idx / 64] & bit);
			m->dirty[idx / 64] &= ~bit;
			/* a tmpfs page's store after a read fault faults not
			 * (its page is mapped writable at once) nor dirties
			 * it again: every page touched, once (below) */
			if (m->shared_w && m->tmpfs)
				dirty = 2;
		} else {
			if (!(pm[i] & PM_PRESENT))
				continue;
			dirty = m->shared_w && c->fmaps->kpf >= 0 && (pm[i] & PM_PFN) &&
				pread(c->fmaps->kpf, &fl, 8, (off_t)((pm[i] & PM_PFN) * 8)) == 8 &&
				(fl & (1ULL << KPF_DIRTY));
			/* a tmpfs file's pages stay dirty (nothing writes them
			 * back): read ones too, and after an msync.  Each
			 * counts as written once, and the record says that
			 * reads were not told from writes (IOT_MP_TOUCHED) */
			if (dirty && (fl & (1ULL << KPF_SWAPBACKED)))
				dirty = 2;
		}
		if (dirty == 2) {
			if (!m->wseen && !(m->wseen = calloc((m->len / PAGE + 63) / 64, 8))) {
				err = -ENOMEM;
				break;
			}
			shmem = 1;
			dirty = !(m->wseen[idx / 64] & bit);
			m->wseen[idx / 64] |= bit;
		}
		if (dirty)
			err = run_add(&wr, &nw, &cw, page);
		if (!err && !(m->seen[idx / 64] & bit)) {
			m->seen[idx / 64] |= bit;
			err = run_add(&rr, &nr, &cr, page);
		}
	}
	if (err)
		goto out;
	memset(out, 0, sizeof(*out));
	out->pid = t->pid;
	out->tid = t->tid;
	out->t_ns = t->ev.t_enter ? t->ev.t_enter : iot_now_ns();
	out->page_size = (uint32_t)PAGE;
	out->addr = m->addr;
	out->read_runs = rr;
	out->n_read = nr;
	out->write_runs = wr;
	out->n_write = nw;
	if (m->shared_w && !m->hit && c->fmaps->kpf < 0)
		out->flags |= IOT_MP_NO_DIRTY;
	if (shmem || (m->shared_w && m->tmpfs))
		out->flags |= IOT_MP_TOUCHED;
	for (i = 0; shmem && i < nw; i++)
		c->st.mp_shmem += wr[2 * i + 1];
	rr = wr = NULL;
	if (!(out->path = strndup(m->path, m->path_len)))
		err = -ENOMEM;
	out->path_len = m->path_len;
out:
	free(pm);
	free(rr);
	free(wr);
	if (fd >= 0)
		close(fd);
	return err;
}

/* The pages of @pid's mappings in [addr, addr+len) into @t's list; with
 * @drop the mappings inside the range go. */
static void take(struct rec_ctx *c, struct rec_task *t, uint64_t addr, uint64_t len,
		 uint32_t why, int drop)
{
	struct rec_fmaps *s = c->fmaps;
	uint32_t i = 0;

	while (s && i < s->n) {
		struct rec_fmap *m = &s->v[i];
		uint64_t lo = m->addr > addr ? m->addr : addr;
		uint64_t hi = m->addr + m->len < addr + len ? m->addr + m->len : addr + len;
		struct iot_mpages *o;

		/* the bpf backends have no stop: a page table read now is not
		 * the one of the call's time (if the process is still there);
		 * a mapping their programs do not follow is left untaken */
		if (m->pid != t->pid || lo >= hi || (c->bpf && !m->hit)) {
			i++;
			continue;
		}
		o = realloc(t->mp, (t->n_mp + 1) * sizeof(*o));
		if (o) {
			t->mp = o;
			if (scan(c, t, m, lo, hi, &o[t->n_mp]) == 0) {
				m->taken = 1;
				o[t->n_mp].why = why;
				if (o[t->n_mp].n_read || o[t->n_mp].n_write)
					t->n_mp++;
				else
					free((char *)o[t->n_mp].path);
			} else {
				c->st.fmap_untaken++;
			}
		}
		if (drop && lo == m->addr && hi == m->addr + m->len) {
			fmap_free(m);
			s->v[i] = s->v[--s->n];
			continue;
		}
		i++;
	}
}

void rec_fmap_entry(struct rec_ctx *c, struct rec_task *t, int munmap)
{
	if (!c->fmaps || (t->view && !c->bpf))
		return;
	/* the kernel unmaps and syncs whole pages */
	take(c, t, t->raw[0], (t->raw[1] + PAGE - 1) & ~(PAGE - 1),
	     munmap ? IOT_MP_MUNMAP : IOT_MP_MSYNC, munmap);
}

/*
 * mremap: at its return the mapping is followed at its new place and
 * length (sqlite grows its mapping of the database so, and unmaps it from
 * where it ended up).  A page keeps its index in the mapping: what was
 * touched before the move is found after it (the page table's entries
 * move with the mapping; the bpf programs' bits are kept by index), and
 * pages counted stay counted.  Only a shrink unmaps pages: those of the
 * tail are taken at its entry, with the call, as at a munmap.  (Taking
 * every page at a move counted a dirty page written twice: at the move
 * and at the msync that cleaned it.)  A mapping moved from an address
 * inside it is left where it was.
 */
void rec_fmap_remap_entry(struct rec_ctx *c, struct rec_task *t)
{
	uint64_t old = (t->raw[1] + PAGE - 1) & ~(PAGE - 1);
	uint64_t keep = (t->raw[2] + PAGE - 1) & ~(PAGE - 1);

	if (!c->fmaps || (t->view && !c->bpf) || keep >= old)
		return;
	take(c, t, t->raw[0] + keep, old - keep, IOT_MP_MREMAP, 0);
}

/* @v (a bit per page, @from pages) for @to pages: the new ones clear.
 * @return : 0, or -ENOMEM with @v as it was */
static int bits_resize(uint64_t **v, uint64_t from, uint64_t to)
{
	uint64_t wf = (from + 63) / 64, wt = (to + 63) / 64;
	uint64_t *n;

	if (!*v)
		return 0;
	if (!(n = realloc(*v, (wt ? wt : 1) * 8)))
		return -ENOMEM;
	if (wt > wf)
		memset(n + wf, 0, (wt - wf) * 8);
	if (to % 64 && to < from)
		n[to / 64] &= (1ULL << (to % 64)) - 1;
	*v = n;
	return 0;
}

void rec_fmap_move(struct rec_ctx *c, struct rec_task *t, uint64_t from, uint64_t to,
		   uint64_t len)
{
	struct rec_fmaps *s = c->fmaps;
	uint64_t pages = (len + PAGE - 1) / PAGE, was;
	uint32_t i;

	if (pages > MAX_PAGES)
		pages = MAX_PAGES;
	for (i = 0; s && i < s->n; i++) {
		struct rec_fmap *m = &s->v[i];

		if (m->pid != t->pid || m->addr != from)
			continue;
		was = m->len / PAGE;
		if (bits_resize(&m->seen, was, pages) < 0 || bits_resize(&m->hit, was, pages) < 0 ||
		    bits_resize(&m->dirty, was, pages) < 0 || bits_resize(&m->wseen, was, pages) < 0) {
			/* followed no further: its pages so far were taken */
			c->st.fmap_untaken++;
			fmap_free(m);
			s->v[i--] = s->v[--s->n];
			continue;
		}
		m->addr = to;
		m->len = pages * PAGE;
	}
}

/* execve is about to replace the image, or the process's leader exits
 * (PTRACE_EVENT_EXIT: its memory is still there): its mappings' pages
 * now, tied to the next event (the execve's or exit_group's own, unless
 * another thread writes one first: then the replay ties them to their
 * thread's next exec or exit, mpages.c rpl_mpages_tie()) */
void rec_fmap_exec_entry(struct rec_ctx *c, struct rec_task *t)
{
	struct iot_mpages *saved = t->mp;
	uint32_t n_saved = t->n_mp;

	if (!c->fmaps || (t->view && !c->bpf && t->ev.nr != SYS_exit_group))
		return;
	/* a call in flight keeps its own list */
	t->mp = NULL;
	t->n_mp = 0;
	take(c, t, 0, UINT64_MAX, IOT_MP_EXIT, 0);
	rec_fmap_emit(c, t, iot_writer_events(c->w));
	t->mp = saved;
	t->n_mp = n_saved;
}

void rec_fmap_emit(struct rec_ctx *c, struct rec_task *t, uint64_t event)
{
	uint32_t i;

	for (i = 0; i < t->n_mp; i++) {
		uint32_t k;

		t->mp[i].event = event;
		if (iot_writer_mpages(c->w, &t->mp[i]) < 0) {
			c->st.dropped++;
			continue;
		}
		for (k = 0; k < t->mp[i].n_read; k++)
			c->st.mp_read += t->mp[i].read_runs[2 * k + 1];
		for (k = 0; k < t->mp[i].n_write; k++)
			c->st.mp_written += t->mp[i].write_runs[2 * k + 1];
	}
	rec_fmap_clear_call(t);
}

/* @t's process is gone (died, or its image was replaced by exec): its
 * mappings too; those never taken are counted */
void rec_fmap_proc_gone(struct rec_ctx *c, struct rec_task *t)
{
	struct rec_fmaps *s = c->fmaps;
	uint32_t i = 0;

	if (!s)
		return;
	/* the bpf backends: what the programs saw since the last take goes
	 * with the next event (the exit_group's or execve's, as ptrace's
	 * take at its exit or exec stop) */
	if (c->bpf)
		rec_fmap_exec_entry(c, t);
	while (i < s->n) {
		if (s->v[i].pid != t->pid) {
			i++;
			continue;
		}
		if (!s->v[i].taken)
			c->st.fmap_untaken++;
		fmap_free(&s->v[i]);
		s->v[i] = s->v[--s->n];
	}
}
