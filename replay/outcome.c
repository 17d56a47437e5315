/*
 * outcome.c - what the replay measured of each op (when its call started
 * and ended, its result), kept out of memory: each thread writes its
 * ops' outcomes, in its own order, in blocks to a file of the run's, and
 * the tally and the profile read them back after the run, merged across
 * the threads.
 *
 * The op held them (24 bytes of its 160, all the plan long, for the tally
 * and the profile at the end); a plan that is not to hold every op
 * cannot keep them there.  A thread runs its ops one after the other, so
 * its outcomes come in the order of its ops, and their starts never go
 * back: the profile's order (by replay start, then position in the
 * file) is a merge of the threads' sequences, no sort of every op; the
 * tally's (the plan's) a merge by op index.  Memory: a block being
 * written per running thread, a few outcomes being read per thread.
 *
 * The file is unlinked from the start (O_TMPFILE), in the directory of
 * the profile (-o), else $TMPDIR or /tmp: 24 bytes an op, never under
 * --root, whose space the replay measures (a profile written under the
 * root has its results' file in $TMPDIR or /tmp).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "rpl.h"

#define OUT_BLOCK RPL_OUT_BLOCK
#define OUT_READ 64		/* ... and the merge reads of a thread at once */

/* 1 if @dir is the replay's root or under it (both resolved), or either
 * cannot be resolved: the file must not go there. */
static int under_root(const char *dir, const char *root)
{
	char rd[PATH_MAX], rr[PATH_MAX];

	if (!root)
		return 0;
	if (!realpath(dir, rd) || !realpath(root, rr))
		return 1;
	return rpl_prefix_match(rd, rr);
}

/* An unlinked file in @dir, or -errno; -EXDEV where @dir is under @root. */
static int tmp_in(const char *dir, const char *root)
{
	char path[PATH_MAX];
	int fd;

	if (under_root(dir, root))
		return -EXDEV;
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd >= 0 ? fd : -errno;
	/* no O_TMPFILE there: a named one, unlinked at once */
	if ((size_t)snprintf(path, sizeof(path), "%s/.iotape-outcome.XXXXXX", dir) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}

int rpl_outcome_open(struct rpl_plan *p)
{
	const char *out = p->o->out, *tmp = getenv("TMPDIR");
	char dir[PATH_MAX];
	const char *slash;
	int fd = -ENOENT;

	/* beside the profile, unless that is a descriptor (clients.c) */
	if (out && strncmp(out, "/proc/", 6) != 0) {
		slash = strrchr(out, '/');
		if (!slash)
			snprintf(dir, sizeof(dir), ".");
		else
			snprintf(dir, sizeof(dir), "%.*s", (int)(slash == out ? 1 : slash - out), out);
		fd = tmp_in(dir, p->o->root);
	}
	if (fd < 0) {
		snprintf(dir, sizeof(dir), "%s", tmp && *tmp ? tmp : "/tmp");
		fd = tmp_in(dir, p->o->root);
	}
	if (fd == -EXDEV && strcmp(dir, "/tmp") != 0) {	/* TMPDIR under the root */
		snprintf(dir, sizeof(dir), "/tmp");
		fd = tmp_in(dir, p->o->root);
	}
	if (fd < 0) {
		iot_err(p->o->cmd, "cannot make a file for the replay's results in %s: %s; set "
			"TMPDIR to a writable directory outside --root", dir,
			fd == -EXDEV ? "it is under --root" : iot_strerror(fd));
		return fd;
	}
	p->out_fd = fd;
	atomic_store(&p->out_end, 0);
	atomic_store(&p->out_err, 0);
	return 0;
}

/* Write @t's block in hand at a place of its own in the file. */
static void flush(struct rpl_plan *p, struct rpl_thread *t)
{
	size_t len = (size_t)t->out_fill * sizeof(*t->out_buf);
	uint64_t off;
	ssize_t got;
	int e = 0;

	if (!t->out_fill)
		return;
	if (t->n_blk == t->cap_blk) {
		uint32_t nc = t->cap_blk ? 2 * t->cap_blk : 16;
		uint64_t *v = realloc(t->out_blk, nc * sizeof(*v));

		if (!v) {
			e = -ENOMEM;
			goto out;
		}
		t->out_blk = v;
		t->cap_blk = nc;
	}
	off = atomic_fetch_add(&p->out_end, (uint64_t)OUT_BLOCK * sizeof(*t->out_buf));
	got = pwrite(p->out_fd, t->out_buf, len, (off_t)off);
	if (got != (ssize_t)len) {
		e = got < 0 ? -errno : -ENOSPC;
		goto out;
	}
	t->out_blk[t->n_blk++] = off;
out:
	if (e) {
		int none = 0;

		atomic_compare_exchange_strong(&p->out_err, &none, e);
	}
	t->out_fill = 0;
}

void rpl_outcome_put(struct rpl_plan *p, struct rpl_thread *t, int64_t enter, int64_t exit,
		     int64_t ret)
{
	if (enter > 0 && !t->first_ns)
		t->first_ns = enter;
	if (p->out_fd < 0)
		return;
	if (!t->out_buf && !(t->out_buf = malloc(OUT_BLOCK * sizeof(*t->out_buf)))) {
		int none = 0;

		atomic_compare_exchange_strong(&p->out_err, &none, -ENOMEM);
		return;
	}
	t->out_buf[t->out_fill++] = (struct rpl_outcome){ enter, exit, ret };
	t->n_out++;
	if (t->out_fill == OUT_BLOCK)
		flush(p, t);
}

void rpl_outcome_end(struct rpl_plan *p, struct rpl_thread *t)
{
	if (p->out_fd >= 0)
		flush(p, t);
	free(t->out_buf);
	t->out_buf = NULL;
}

void rpl_outcome_free(struct rpl_plan *p)
{
	size_t i;

	for (i = 0; i < p->n_threads; i++) {
		free(p->threads[i].out_buf);
		free(p->threads[i].out_blk);
		p->threads[i].out_buf = NULL;
		p->threads[i].out_blk = NULL;
	}
	if (p->out_fd >= 0)
		close(p->out_fd);
	p->out_fd = -1;
}

/* ---- read back, merged ---- */

int rpl_outcome_at(const struct rpl_plan *p, const struct rpl_thread *t, uint32_t k,
		   struct rpl_outcome *oc)
{
	uint32_t b = k / OUT_BLOCK;
	ssize_t got;

	*oc = (struct rpl_outcome){ 0, 0, k < t->n_ops ? p->ops[t->ops[k]].ev.ret : 0 };
	if (k >= t->n_out)
		return 0;
	if (b >= t->n_blk || p->out_fd < 0)
		return -EIO;
	got = pread(p->out_fd, oc, sizeof(*oc), (off_t)(t->out_blk[b] + (k % OUT_BLOCK) * sizeof(*oc)));
	if (got != (ssize_t)sizeof(*oc))
		return got < 0 ? -errno : -EIO;
	return 0;
}

struct cursor {
	uint32_t t;			/* its thread */
	uint32_t k;			/* the position of its next op */
	uint32_t from, n;		/* outcomes from..from+n in buf */
	struct rpl_outcome buf[OUT_READ];
};

struct rpl_outs {
	struct rpl_plan *p;
	int by_time;
	struct cursor *c;
	uint32_t *heap;			/* cursors by their next op's key */
	uint32_t n;
};

/* The outcome of @c's next op, from the file (or none: it did not run). */
static int cur_outcome(struct rpl_outs *m, struct cursor *c, struct rpl_outcome *oc)
{
	const struct rpl_thread *t = &m->p->threads[c->t];
	uint32_t b, in, cnt;
	ssize_t got;

	if (c->k >= t->n_out) {
		*oc = (struct rpl_outcome){ 0, 0, m->p->ops[t->ops[c->k]].ev.ret };
		return 0;
	}
	if (c->k < c->from || c->k >= c->from + c->n) {
		b = c->k / OUT_BLOCK;
		in = c->k % OUT_BLOCK;
		cnt = t->n_out - b * OUT_BLOCK;
		cnt = (cnt < OUT_BLOCK ? cnt : OUT_BLOCK) - in;
		cnt = cnt < OUT_READ ? cnt : OUT_READ;
		if (b >= t->n_blk)
			return -EIO;
		got = pread(m->p->out_fd, c->buf, cnt * sizeof(*c->buf),
			    (off_t)(t->out_blk[b] + in * sizeof(*c->buf)));
		if (got != (ssize_t)(cnt * sizeof(*c->buf)))
			return got < 0 ? -errno : -EIO;
		c->from = c->k;
		c->n = cnt;
	}
	*oc = c->buf[c->k - c->from];
	return 0;
}

/* Whether cursor @a's next op comes before @b's. */
static int before(struct rpl_outs *m, const struct cursor *a, const struct cursor *b)
{
	const struct rpl_plan *p = m->p;
	uint32_t ia = p->threads[a->t].ops[a->k], ib = p->threads[b->t].ops[b->k];
	int64_t ka, kb;

	if (!m->by_time)
		return ia < ib;
	/* an op that did not run counts as started when the replay did */
	ka = a->k < p->threads[a->t].n_out && a->from <= a->k ? a->buf[a->k - a->from].enter : 0;
	kb = b->k < p->threads[b->t].n_out && b->from <= b->k ? b->buf[b->k - b->from].enter : 0;
	ka = ka ? ka : p->t0;
	kb = kb ? kb : p->t0;
	if (ka != kb)
		return ka < kb;
	return p->ops[ia].seq < p->ops[ib].seq;
}

static void sift_down(struct rpl_outs *m, uint32_t i)
{
	uint32_t c, x = m->heap[i];

	while ((c = 2 * i + 1) < m->n) {
		if (c + 1 < m->n && before(m, &m->c[m->heap[c + 1]], &m->c[m->heap[c]]))
			c++;
		if (!before(m, &m->c[m->heap[c]], &m->c[x]))
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	m->heap[i] = x;
}

int rpl_outs_open(struct rpl_plan *p, int by_time, struct rpl_outs **out)
{
	struct rpl_outs *m = calloc(1, sizeof(*m));
	struct rpl_outcome oc;
	size_t i;
	int err = -ENOMEM;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->p = p;
	m->by_time = by_time;
	m->c = calloc(p->n_threads + 1, sizeof(*m->c));
	m->heap = calloc(p->n_threads + 1, sizeof(*m->heap));
	if (!m->c || !m->heap)
		goto out;
	if ((err = atomic_load(&p->out_err)) < 0 || (p->out_fd < 0 && (err = -EBADF)))
		goto out;
	for (i = 0; i < p->n_threads; i++) {
		struct cursor *c = &m->c[m->n];

		if (!p->threads[i].n_ops)
			continue;
		c->t = (uint32_t)i;
		if ((err = cur_outcome(m, c, &oc)) < 0)
			goto out;
		m->heap[m->n] = m->n;
		m->n++;
	}
	for (i = m->n / 2; i-- > 0;)
		sift_down(m, (uint32_t)i);
	*out = m;
	return 0;
out:
	rpl_outs_close(m);
	return err;
}

int rpl_outs_next(struct rpl_outs *m, struct rpl_op **op, struct rpl_outcome *oc)
{
	struct rpl_plan *p = m->p;
	struct cursor *c;
	struct rpl_outcome nx;
	int err;

	if (!m->n)
		return 0;
	c = &m->c[m->heap[0]];
	if ((err = cur_outcome(m, c, oc)) < 0)
		return err;
	*op = &p->ops[p->threads[c->t].ops[c->k]];
	if (++c->k < p->threads[c->t].n_ops) {
		if ((err = cur_outcome(m, c, &nx)) < 0)
			return err;
	} else {
		m->heap[0] = m->heap[--m->n];
	}
	if (m->n)
		sift_down(m, 0);
	return 1;
}

void rpl_outs_close(struct rpl_outs *m)
{
	if (!m)
		return;
	free(m->c);
	free(m->heap);
	free(m);
}
