/*
 * pidtab.c - the loader's table of processes (see load_int.h, struct
 * pident): an entry per live process and per process that exited in the
 * last few chunks, so that the report's memory grows with the processes
 * alive at once, not with all the processes of the trace.  Both passes
 * build the table from the process records alone, with the same entries
 * made and dropped at the same records, so that an entry's seq names the
 * same process in each.  Pass 2 also holds each live process's calls
 * until its command is final (ana_pend).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "load_int.h"

static inline size_t slot_of(int32_t pid, size_t mask)
{
	return ((uint32_t)pid * 2654435761u) & mask;
}

static int grow(struct pidmap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 256, i, j;
	struct pident *ne = calloc(ncap, sizeof(*ne));

	if (!ne)
		return -ENOMEM;
	for (j = 0; j < m->cap; j++) {
		if (!m->e[j].used)
			continue;
		i = slot_of(m->e[j].pid, ncap - 1);
		while (ne[i].used)
			i = (i + 1) & (ncap - 1);
		ne[i] = m->e[j];
	}
	free(m->e);
	m->e = ne;
	m->cap = ncap;
	return 0;
}

struct pident *ana_pid_get(struct pidmap *m, int32_t pid, int create)
{
	size_t i, mask;

	if (create && (m->n + 1) * 2 > m->cap && grow(m) < 0)
		return NULL;
	if (!m->cap)
		return NULL;
	mask = m->cap - 1;
	i = slot_of(pid, mask);
	while (m->e[i].used) {
		if (m->e[i].pid == pid)
			return &m->e[i];
		i = (i + 1) & mask;
	}
	if (!create)
		return NULL;
	memset(&m->e[i], 0, sizeof(m->e[i]));
	m->e[i].used = 1;
	m->e[i].pid = pid;
	m->e[i].cmd = -1;
	m->e[i].phase2 = -1;
	m->e[i].born = INT64_MIN;
	m->e[i].active_from = INT64_MIN;
	m->n++;
	return &m->e[i];
}

/* Remove @e (linear probing: the entries after it that would no longer be
 * found move back). */
static void pid_del(struct pidmap *m, struct pident *e)
{
	size_t mask = m->cap - 1, i = (size_t)(e - m->e), j = i, k;

	for (;;) {
		j = (j + 1) & mask;
		if (!m->e[j].used)
			break;
		k = slot_of(m->e[j].pid, mask);
		/* stays if its home slot k is cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		m->e[i] = m->e[j];
		i = j;
	}
	memset(&m->e[i], 0, sizeof(m->e[i]));
	m->n--;
}

static void pend_put(struct pidmap *m, struct ana_pend *p)
{
	ana_stat_free(&p->st);
	p->next = m->free_pend;
	m->free_pend = p;
}

struct ana_pend *ana_pend_new(struct pidmap *m, struct pident *e)
{
	struct ana_pend *p;

	if (m->free_pend) {
		p = m->free_pend;
		m->free_pend = p->next;
	} else {
		p = calloc(1, sizeof(*p));
		if (!p)
			return NULL;
	}
	p->n = 0;
	p->dense = 0;
	p->xbytes = 0;
	p->next = NULL;
	memset(&p->st, 0, sizeof(p->st));
	e->pend = p;
	return p;
}

int ana_pend_room(struct ana_pend *p, struct ana_call c)
{
	uint32_t i;

	if (p->n == ANA_PEND_LOG) {
		for (i = 0; i < p->n; i++)
			ana_stat_call(&p->st, &p->log[i]);
		p->n = 0;
		p->dense = 1;
		ana_stat_call(&p->st, &c);
		return 0;
	}
	if (p->n == p->cap) {
		/* the log grows with the calls held: the processes that
		 * ended lately hold no more than the last chunks' calls */
		uint32_t nc = p->cap ? p->cap * 2 : 4;
		struct ana_call *n = realloc(p->log, nc * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->log = n;
		p->cap = nc;
	}
	p->log[p->n++] = c;
	return 0;
}

/* The procs row of "(unknown)": the calls of a process whose command is
 * not known.  @return : its index, or -ENOMEM. */
static int unknown_row(struct loader *L)
{
	if (L->unknown_cmd == SIZE_MAX) {
		int k = ana_proc_index(L->t, "(unknown)");

		if (k < 0)
			return k;
		L->unknown_cmd = (size_t)k;
	}
	return (int)L->unknown_cmd;
}

int ana_cmd_row(struct loader *L, int32_t cmd)
{
	return cmd >= 0 ? cmd : unknown_row(L);
}

int ana_pend_flush(struct loader *L, struct pident *e)
{
	struct ana_pend *p = e->pend;
	struct ana_stat *d;
	uint32_t i;
	int row;

	if (!p)
		return 0;
	e->pend = NULL;
	/* as before: an async request's or a page's bytes count in its
	 * command's, and never make an "(unknown)" row */
	if (e->cmd >= 0)
		L->t->procs[e->cmd].st.bytes += p->xbytes;
	if (p->st.count == 0 && p->n == 0) {
		pend_put(&L->pids, p);
		return 0;
	}
	row = ana_cmd_row(L, e->cmd);
	if (row < 0) {
		pend_put(&L->pids, p);
		return row;
	}
	d = &L->t->procs[row].st;
	if (p->st.count) {
		d->count += p->st.count;
		d->errors += p->st.errors;
		d->bytes += p->st.bytes;
		d->timed += p->st.timed;
		d->mismatches += p->st.mismatches;
		d->skipped += p->st.skipped;
		d->total_ns = iot_ns_add(d->total_ns, p->st.total_ns);
		(void)ana_hist_merge(&d->lat, &p->st.lat);
	}
	for (i = 0; i < p->n; i++)
		ana_stat_call(d, &p->log[i]);
	pend_put(&L->pids, p);
	return 0;
}

int ana_pend_flush_all(struct loader *L)
{
	size_t i;
	int rc;

	for (i = 0; i < L->pids.cap; i++)
		if (L->pids.e[i].used && (rc = ana_pend_flush(L, &L->pids.e[i])) < 0)
			return rc;
	return 0;
}

/* What an entry leaves when it goes. */
static int pid_gone(struct loader *L, struct pident *e)
{
	struct ana_trace *t = L->t;
	size_t i;

	if (L->pass == 1 && e->phase1) {
		/* the name of a phase whose command never named it is its
		 * process's command (ana_finish_phases()) */
		struct ana_phase *ph = ana_phase_of(L, e->phase1);

		if (ph && ph->pid == e->pid)
			ph->cmd = e->cmd;
		if (L->have_root && e->pid == L->root)
			for (i = 0; i < t->n_phases; i++)
				if (t->phases[i].pid == e->pid)
					t->phases[i].cmd = e->cmd;
	}
	if (L->pass != 2)
		return 0;
	if (e->orphan && e->active_from != INT64_MIN && e->active_from != INT64_MAX) {
		if (L->n_orph_runs == L->cap_orph_runs) {
			size_t nc = L->cap_orph_runs ? L->cap_orph_runs * 2 : 16;
			struct ana_orphan_run *n = realloc(L->orph_runs, nc * sizeof(*n));

			if (!n)
				return -ENOMEM;
			L->orph_runs = n;
			L->cap_orph_runs = nc;
		}
		L->orph_runs[L->n_orph_runs].from = e->active_from;
		L->orph_runs[L->n_orph_runs++].to = e->exit_t;
	}
	/* its requests still waiting keep the command it had */
	for (i = 0; e->aio_out && i < L->aw_cap; i++)
		if (L->aw[i].key && !L->aw[i].done && L->aw[i].pid == e->pid &&
		    L->aw[i].cmd == -2)
			L->aw[i].cmd = e->cmd;
	return ana_pend_flush(L, e);
}

int ana_pids_evict(struct loader *L, uint64_t chunk)
{
	struct pidmap *m = &L->pids;
	struct ana_trace *t = L->t;
	int rc;

	while (m->g_n) {
		struct ana_grave *g = &m->grave[m->g_head];
		struct pident *e;

		if (m->g_n <= ANA_GRAVE_MAX && g->chunk + ANA_GRAVE_CHUNKS > chunk)
			break;
		e = ana_pid_get(m, g->pid, 0);
		m->g_head = (m->g_head + 1) % m->g_cap;
		m->g_n--;
		if (!e || !e->exited || e->exit_seq != g->seq)
			continue;	/* another process's pid now, or it went on */
		if (e->threads && m->g_n < ANA_GRAVE_MAX)
			continue;	/* back in with its last thread's exit */
		/* a profile of many clients: the other clients' processes
		 * are in their counterpart's phase, however late they run:
		 * client 0's entries stay (their calls are counted) */
		if (t->client_stride > 0 && e->pid < t->client_stride) {
			if (L->pass == 2 && (rc = ana_pend_flush(L, e)) < 0)
				return rc;
			continue;
		}
		if ((rc = pid_gone(L, e)) < 0)
			return rc;
		pid_del(m, e);
	}
	return 0;
}

/* @e's entry goes ANA_GRAVE_CHUNKS chunks after @chunk (ana_pids_evict()). */
static int grave_add(struct pidmap *m, const struct pident *e, uint64_t chunk)
{
	if (m->g_n == m->g_cap) {
		size_t nc = m->g_cap ? m->g_cap * 2 : 256, i;
		struct ana_grave *n = malloc(nc * sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (i = 0; i < m->g_n; i++)
			n[i] = m->grave[(m->g_head + i) % m->g_cap];
		free(m->grave);
		m->grave = n;
		m->g_cap = nc;
		m->g_head = 0;
	}
	m->grave[(m->g_head + m->g_n) % m->g_cap] = (struct ana_grave){ e->pid, e->exit_seq, chunk };
	m->g_n++;
	return 0;
}

int ana_pid_exited(struct loader *L, struct pident *e, uint64_t chunk)
{
	if (e->exited)
		return 0;
	e->exited = 1;
	e->exit_seq = L->seq;
	return grave_add(&L->pids, e, chunk);
}

int ana_pid_thread(struct loader *L, struct pident *e, const struct iot_process *p,
		   uint64_t chunk)
{
	if (p->kind == IOT_PROC_THREAD) {
		e->threads++;
		return 0;
	}
	if (p->kind != IOT_PROC_EXIT || !e->threads)
		return 0;
	/* the last thread of a process whose leader has exited: its
	 * entry goes as a leader's does after its exit */
	if (--e->threads == 0 && e->exited)
		return grave_add(&L->pids, e, chunk);
	return 0;
}

struct pident *ana_pid_of_record(struct loader *L, const struct iot_process *p, int *made)
{
	struct pident *e = ana_pid_get(&L->pids, p->pid, 0);
	int thread = p->kind == IOT_PROC_THREAD ||
		     (p->kind == IOT_PROC_EXIT && p->tid != p->pid && p->tid != 0);

	*made = 0;
	if (e && e->exited && (p->kind == IOT_PROC_START || p->kind == IOT_PROC_FORK)) {
		/* the pid is another process's now */
		if ((*made = pid_gone(L, e)) < 0)
			return NULL;
		pid_del(&L->pids, e);
		e = NULL;
	}
	if (e && e->exited && p->kind == IOT_PROC_EXEC)
		e->exited = 0;	/* it goes on (an exec from a thread) */
	if (e && p->kind == IOT_PROC_EXEC)
		e->threads = 0;	/* an exec ends the others */
	if (e || thread)
		return e;
	e = ana_pid_get(&L->pids, p->pid, 1);
	if (!e) {
		*made = -ENOMEM;
		return NULL;
	}
	e->seq = L->seq;
	*made = 1;
	return e;
}

void ana_pids_free(struct pidmap *m)
{
	struct ana_pend *p;
	size_t i;

	for (i = 0; i < m->cap; i++)
		if (m->e[i].used && m->e[i].pend)
			pend_put(m, m->e[i].pend);
	while ((p = m->free_pend)) {
		m->free_pend = p->next;
		free(p->log);
		free(p);
	}
	free(m->e);
	free(m->grave);
	memset(m, 0, sizeof(*m));
}
