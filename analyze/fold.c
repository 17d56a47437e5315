/*
 * fold.c - the loader's phases of top-level commands past ANA_PHASES_MAX:
 * which records open one (the same in both passes), which keep rows of
 * their own and which go into "(other commands)", and the time they
 * cover, for "(gaps)" and for the CPU time of the processes in no phase.
 * A trace of a shell that runs a million commands is reported in the
 * memory of a few hundred rows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "load_int.h"

/*
 * Phases of top-level commands in pass 1.  Each has a row (t->phases, in
 * the order they opened: by seq) while it runs; when one ends and more
 * than ANA_PHASES_MAX that ended have rows, the shortest of them goes
 * into "(other commands)" (L->fold): its CPU time, processes and real
 * time, and whatever its processes add later.  So the rows kept are the
 * ANA_PHASES_MAX longest, and a trace with fewer phases keeps them all,
 * as before.  A process knows its phase by the seq of the record that
 * opened it (pident.phase1): a folded one is no longer found.
 */
struct ana_phase *ana_phase_of(struct loader *L, uint64_t seq)
{
	struct ana_trace *t = L->t;
	size_t lo = 0, hi = t->n_phases;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->phases[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (seq == 0 || lo == t->n_phases || t->phases[lo].seq != seq || t->phases[lo].folded)
		return NULL;
	return &t->phases[lo];
}

/* Whether record @p opens a phase of a top-level command: a fork by the
 * root (not another client's), or an exec of the root past its first
 * image.  Every process record of a pass goes through it once, so that
 * pass 2 finds the same ones (@argv: the record's argv joined, or NULL). */
int ana_opens_phase(struct loader *L, const struct iot_process *p, const char *argv)
{
	int dup;

	switch (p->kind) {
	case IOT_PROC_START:
		if (p->argc && argv) {
			free(L->start_argv);
			L->start_argv = strdup(argv);
			L->root_images++;
		}
		return 0;
	case IOT_PROC_FORK:
		return ana_client_of(L->t, p->pid) == 0 && L->have_root && p->ppid == L->root;
	case IOT_PROC_EXEC:
		if (p->pid != L->root)
			return 0;
		/* the root's first image is the workload itself, not a
		 * phase; later ones (`exec cmd`, a shell running its last
		 * command in place) are */
		dup = L->start_argv && argv && L->n_opened == 0 && strcmp(L->start_argv, argv) == 0;
		return !(L->root_images++ == 0 || dup);
	default:
		return 0;
	}
}

/* Drop the rows folded away (their processes find no phase). */
void ana_phases_compact(struct loader *L)
{
	struct ana_trace *t = L->t;
	size_t i, o = 0;

	for (i = 0; i < t->n_phases; i++)
		if (!t->phases[i].folded)
			t->phases[o++] = t->phases[i];
	t->n_phases = o;
	L->n_dead = 0;
}

/* Add span [@s, @e) to the time covered by phases (L->cov).  The spans
 * are let go from the oldest when there are more than ANA_COV_MAX: those
 * that ended before the earliest phase still open started (no phase to
 * come can reach back to them, records being in time order) are added up
 * in cov_done, and those that began after it are inside that phase's own
 * span, to come.  Exact for records in time order; otherwise the part of
 * a span before what was let go is not counted. */
void ana_cov_add(struct loader *L, int64_t s, int64_t e)
{
	struct ana_trace *t = L->t;
	size_t lo, hi, i, o;
	int64_t m = INT64_MAX;

	if (L->cov_done_end != INT64_MIN && s < L->cov_done_end)
		s = L->cov_done_end;
	if (e <= s)
		return;
	for (lo = L->n_cov; lo > 0 && L->cov[lo - 1].e >= s; lo--)
		;
	for (hi = lo; hi < L->n_cov && L->cov[hi].s <= e; hi++)
		;
	if (hi > lo) {
		if (L->cov[lo].s < s)
			s = L->cov[lo].s;
		if (L->cov[hi - 1].e > e)
			e = L->cov[hi - 1].e;
	}
	memmove(&L->cov[lo + 1], &L->cov[hi], (L->n_cov - hi) * sizeof(*L->cov));
	L->n_cov = L->n_cov - (hi - lo) + 1;
	L->cov[lo] = (struct ana_span){ s, e };
	if (L->n_cov <= ANA_COV_MAX)
		return;
	for (i = 0; i < t->n_phases; i++)
		if (!t->phases[i].folded && t->phases[i].end == INT64_MIN && t->phases[i].start < m)
			m = t->phases[i].start;
	for (i = o = 0; i < L->n_cov; i++) {
		struct ana_span c = L->cov[i];

		if (c.s >= m)
			continue;	/* inside an open phase's span */
		if (c.e < m && i < ANA_COV_MAX / 2) {
			if (t->events && c.s < t->t_first)
				c.s = t->t_first;
			if (c.e > c.s)
				L->cov_done = iot_ns_add(L->cov_done, iot_ns_sub(c.e, c.s));
			L->cov_done_end = L->cov[i].e;
			continue;
		}
		L->cov[o++] = c;
	}
	L->n_cov = o;
}

/* Phase @ph goes into "(other commands)". */
static void fold_phase(struct loader *L, struct ana_phase *ph)
{
	struct ana_phase *f = &L->fold;
	int64_t real = ph->end > ph->start ? iot_ns_sub(ph->end, ph->start) : 0;

	if (L->t->phases_folded++ == 0 || ph->start < f->start)
		f->start = ph->start;
	f->end = iot_ns_add(f->end, real);	/* the real time, until settled */
	if ((!L->t->events || ph->end > L->t->t_last) && L->n_tail < ANA_TAIL_MAX && L->tail)
		L->tail[L->n_tail++] = (struct ana_span){ ph->start, ph->end };
	f->cpu_ns += ph->cpu_ns;
	f->procs += ph->procs;
	free(ph->name);
	ph->name = NULL;
	ph->folded = 1;
	L->n_dead++;
}

static int64_t phase_len(const struct ana_phase *ph)
{
	return iot_ns_sub(ph->end, ph->start);
}

/* Past ANA_PHASES_MAX phases that ended, the shortest goes (the latest
 * opened of those as short); then L->floor is the shortest left. */
void ana_fold_shortest(struct loader *L)
{
	struct ana_trace *t = L->t;
	struct ana_phase *v;
	size_t i;

	if (L->n_closed <= ANA_PHASES_MAX)
		return;
	while (L->n_closed > ANA_PHASES_MAX) {
		for (i = 0, v = NULL; i < t->n_phases; i++) {
			struct ana_phase *ph = &t->phases[i];

			if (ph->folded || ph->end == INT64_MIN)
				continue;
			if (!v || phase_len(ph) <= phase_len(v))
				v = ph;
		}
		if (!v)
			break;
		fold_phase(L, v);
		L->n_closed--;
	}
	L->floor = INT64_MAX;
	for (i = 0; i < t->n_phases; i++)
		if (!t->phases[i].folded && t->phases[i].end != INT64_MIN &&
		    phase_len(&t->phases[i]) < L->floor)
			L->floor = phase_len(&t->phases[i]);
}

void ana_phase_closed(struct loader *L, struct ana_phase *ph)
{
	int64_t len = phase_len(ph);

	ana_cov_add(L, ph->start, ph->end);
	if (L->n_closed >= ANA_PHASES_MAX && len < L->floor) {
		/* shorter than every one kept: no need to look */
		fold_phase(L, ph);
		return;
	}
	L->n_closed++;
	if (len < L->floor)
		L->floor = len;
	ana_fold_shortest(L);
}

void ana_fold_tail(struct loader *L)
{
	size_t i;

	for (i = 0; i < L->n_tail;)
		if (L->tail[i].e <= L->t->t_last)
			L->tail[i] = L->tail[--L->n_tail];
		else
			i++;
}

void ana_fold_tail_cut(struct loader *L)
{
	int64_t tl = L->t->t_last;
	size_t i;

	ana_fold_tail(L);
	for (i = 0; i < L->n_tail; i++) {
		const struct ana_span *c = &L->tail[i];
		int64_t real = c->e > c->s ? iot_ns_sub(c->e, c->s) : 0;
		int64_t cut = tl > c->s ? iot_ns_sub(tl, c->s) : 0;

		if (cut < real)
			L->fold.end = iot_ns_sub(L->fold.end, iot_ns_sub(real, cut));
	}
}

/* "(gaps)" once phases were folded: the time no span of L->cov covers. */
int64_t ana_cov_gap_time(const struct loader *L)
{
	const struct ana_trace *t = L->t;
	int64_t cov = L->cov_done;
	size_t i;

	for (i = 0; i < L->n_cov; i++) {
		int64_t s = L->cov[i].s < t->t_first ? t->t_first : L->cov[i].s;
		int64_t e = L->cov[i].e > t->t_last ? t->t_last : L->cov[i].e;

		if (e > s)
			cov = iot_ns_add(cov, iot_ns_sub(e, s));
	}
	cov = iot_ns_sub(iot_ns_sub(t->t_last, t->t_first), cov);
	return cov > 0 ? cov : 0;
}

/* Pass 2: a phase folded into "(other commands)" opens, or ends, at @t_ns. */
static void fold_open(struct loader *L, int64_t t_ns)
{
	if (L->fold_open++ == 0 && L->fring)
		L->fring[L->fring_n++ % ANA_FOLD_RING] = (struct ana_span){ t_ns, INT64_MAX };
}

void ana_fold_close(struct loader *L, int64_t t_ns)
{
	struct ana_span *r;

	if (L->fold_open == 0 || --L->fold_open > 0 || L->fring_n == 0 || !L->fring)
		return;
	r = &L->fring[(L->fring_n - 1) % ANA_FOLD_RING];
	r->e = t_ns > r->s ? t_ns : r->s;
}

static const struct ana_span *fring_at(const struct loader *L, size_t nr, size_t j)
{
	return &L->fring[(L->fring_n - nr + j) % ANA_FOLD_RING];
}

int64_t ana_fold_overlap(const struct loader *L, int64_t a, int64_t b, int64_t *seg, size_t *n)
{
	size_t nr = L->fring_n < ANA_FOLD_RING ? L->fring_n : ANA_FOLD_RING, lo = 0, hi = nr;
	int64_t sum = 0;

	/* the stretches follow one another (records in time order): the
	 * first that ends after @a, then on while they start before @b */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (fring_at(L, nr, mid)->e <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < nr && fring_at(L, nr, lo)->s < b; lo++) {
		const struct ana_span *r = fring_at(L, nr, lo);
		int64_t s = r->s > a ? r->s : a, e = r->e < b ? r->e : b;

		if (s < e) {
			sum = iot_ns_add(sum, iot_ns_sub(e, s));
			seg[2 * *n] = s;
			seg[2 * (*n)++ + 1] = e;
		}
	}
	return sum;
}

/* Pass 2, when phases were folded: whether record @p opens one, as pass 1
 * found (ana_opens_phase()); a folded one's processes are in "(other
 * commands)", and the times it is open are followed for add_active().
 * @opened : the kept phase @p opens (by seq), or -1.  @return : the phase
 * @p opens, -1 if none, or -ENOMEM. */
int ana_pass2_opens(struct loader *L, struct pident *e, const struct iot_process *p,
		       int32_t opened)
{
	struct ana_trace *t = L->t;
	char *argv = NULL;
	int op;

	if (p->argc && (p->kind == IOT_PROC_START ||
			(p->kind == IOT_PROC_EXEC && p->pid == L->root)) &&
	    !(argv = ana_join_argv(p->argc, p->argv)))
		return -ENOMEM;
	op = ana_opens_phase(L, p, argv);
	free(argv);
	if (!op)
		return opened;
	L->n_opened++;
	if (p->kind == IOT_PROC_EXEC && e->fold_head) {
		/* the root's exec ends the phase of its previous image */
		e->fold_head = 0;
		ana_fold_close(L, p->t_ns);
	}
	if (opened >= 0)
		return opened;
	e->fold_head = 1;
	fold_open(L, p->t_ns);
	return (int)t->n_phases - 2;
}

