/*
 * phases.c - the loader's pass 1 (see load.c): process records give the
 * root pid, the command of every pid, CPU time at exit and the phases
 * (phase marks, or the root's top-level commands); then the phase list is
 * settled and "(gaps)", the time in no phase, appended.  Pass 2 only asks
 * which phase a process is in (ana_pass2_proc()).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "load_int.h"

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

/* The slot of @cmd in t->cmd_hash: its row's, or the empty one it would
 * take. */
static size_t cmd_slot(const struct ana_trace *t, const char *cmd)
{
	size_t i = name_hash(cmd) & (ANA_CMD_HASH - 1);

	while (t->cmd_hash[i] && strcmp(t->procs[t->cmd_hash[i] - 1].cmd, cmd) != 0)
		i = (i + 1) & (ANA_CMD_HASH - 1);
	return i;
}

static int add_proc(struct ana_trace *t, const char *cmd, size_t slot)
{
	struct ana_proc *np = realloc(t->procs, (t->n_procs + 1) * sizeof(*np));

	if (!np)
		return -ENOMEM;
	t->procs = np;
	memset(&np[t->n_procs], 0, sizeof(*np));
	np[t->n_procs].cmd = strdup(cmd);
	if (!np[t->n_procs].cmd)
		return -ENOMEM;
	t->cmd_hash[slot] = (uint32_t)t->n_procs + 1;
	return (int)t->n_procs++;
}

int ana_proc_index(struct ana_trace *t, const char *cmd)
{
	size_t slot;
	int k;

	if (!t->cmd_hash && !(t->cmd_hash = calloc(ANA_CMD_HASH, sizeof(*t->cmd_hash))))
		return -ENOMEM;
	slot = cmd_slot(t, cmd);
	if (t->cmd_hash[slot])
		return (int)t->cmd_hash[slot] - 1;
	/* past ANA_CMDS_MAX names, a new one's processes and calls count
	 * under "(other commands)"; both passes see the names in the same
	 * order, so each gives a name the same row */
	if (t->n_procs - (t->cmds_fold ? 1 : 0) < ANA_CMDS_MAX || strcmp(cmd, "(unknown)") == 0)
		return add_proc(t, cmd, slot);
	if (t->cmds_fold)
		return (int)t->cmds_fold - 1;
	slot = cmd_slot(t, ANA_OTHER_CMDS);
	k = t->cmd_hash[slot] ? (int)t->cmd_hash[slot] - 1 : add_proc(t, ANA_OTHER_CMDS, slot);
	if (k >= 0)
		t->cmds_fold = (size_t)k + 1;
	return k;
}

static int add_phase(struct ana_phase **v, size_t *n, const char *name,
		     int64_t start, int32_t pid, uint64_t seq)
{
	struct ana_phase *nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	memset(&nv[*n], 0, sizeof(*nv));
	nv[*n].name = name ? strdup(name) : NULL;
	nv[*n].start = start;
	nv[*n].end = INT64_MIN;
	nv[*n].pid = pid;
	nv[*n].cmd = -1;
	nv[*n].seq = seq;
	return (int)(*n)++;
}

/* Pass 1: a phase of a top-level command opens at record L->seq.
 * @return : 0 or -ENOMEM. */
static int open_phase(struct loader *L, const char *name, int64_t start, int32_t pid)
{
	struct ana_trace *t = L->t;

	if (!L->cov && !(L->cov = malloc((ANA_COV_MAX + 1) * sizeof(*L->cov))))
		return -ENOMEM;
	if (!L->tail && !(L->tail = malloc(ANA_TAIL_MAX * sizeof(*L->tail))))
		return -ENOMEM;
	if (L->n_dead > ANA_PHASES_MAX)
		ana_phases_compact(L);
	L->n_opened++;
	return add_phase(&t->phases, &t->n_phases, name, start, pid, L->seq) < 0 ? -ENOMEM : 0;
}

/* The command of a process after exec record @p (its argv[0], else the
 * executable, by basename), @cur if the record names neither; -ENOMEM. */
static int32_t exec_cmd(struct ana_trace *t, const struct iot_process *p, int32_t cur)
{
	if (p->argc)
		return ana_proc_index(t, ana_basename(p->argv[0]));
	if (p->exe)
		return ana_proc_index(t, ana_basename(p->exe));
	return cur;
}

/* Pass 1: a process in no phase exited (its lifetime's seq). */
static int add_orphan(struct loader *L, const struct pident *e, int64_t t_ns)
{
	size_t i;

	if (e->orphan) {
		/* a second exit of the same process: the last one counts */
		for (i = L->n_orphans; i-- > 0;)
			if (L->orphans[i].seq == e->seq) {
				L->orphans[i].exit_t = t_ns;
				return 0;
			}
	}
	if (L->n_orphans == L->cap_orphans) {
		size_t nc = L->cap_orphans ? L->cap_orphans * 2 : 16;
		struct ana_orphan *n = realloc(L->orphans, nc * sizeof(*n));

		if (!n)
			return -ENOMEM;
		L->orphans = n;
		L->cap_orphans = nc;
	}
	L->orphans[L->n_orphans].seq = e->seq;
	L->orphans[L->n_orphans++].exit_t = t_ns;
	return 0;
}

/* Pass 1: a task's exit record's CPU time (each task's holds its own)
 * to the trace's, its command's and its process's phase's (NULL: none,
 * or a phase that had ended: a server a phase started ran on through
 * the phases after it, and its CPU time went to the one that started it,
 * 3,123 % of its real time, where it now goes where it ran, as a process
 * in no phase's does; @return : that phase, &L->fold where it was
 * folded). */
static struct ana_phase *exit_cpu(struct loader *L, const struct pident *e,
				  const struct iot_process *p)
{
	struct ana_trace *t = L->t;
	struct ana_phase *ph;

	t->cpu_ns += p->utime_ns + p->stime_ns;
	t->utime_ns += p->utime_ns;
	t->has_cpu = 1;
	if (e->cmd >= 0)
		t->procs[e->cmd].cpu_ns += p->utime_ns + p->stime_ns;
	if (!e->phase1)
		return NULL;
	ph = ana_phase_of(L, e->phase1);
	if (!ph)
		ph = &L->fold;	/* its phase was folded */
	else if (ph->pid != p->pid && ph->end != INT64_MIN && ph->end < p->t_ns)
		return NULL;
	ph->cpu_ns += p->utime_ns + p->stime_ns;
	return ph;
}

int ana_pass1_proc(struct loader *L, const struct iot_process *p, uint64_t chunk)
{
	struct ana_trace *t = L->t;
	struct pident *e, *par;
	struct ana_phase *ph;
	char *argv = NULL;
	int rc = 0, idx, made;

	L->seq++;
	t->processes++;
	if (!L->have_root && (p->kind == IOT_PROC_START || p->kind == IOT_PROC_FORK ||
			      p->kind == IOT_PROC_EXEC)) {
		L->root = p->kind == IOT_PROC_FORK ? p->ppid : p->pid;
		L->have_root = 1;
	}
	if (p->kind == IOT_PROC_PHASE) {
		const char *name = p->argc ? p->argv[0] : "(unnamed)";

		idx = add_phase(&L->marks, &L->n_marks, name, p->t_ns, 0, L->seq);
		return idx < 0 ? idx : 0;
	}
	if ((rc = ana_pids_evict(L, chunk)) < 0)
		return rc;
	e = ana_pid_of_record(L, p, &made);
	if (made < 0)
		return made;
	if (!e)
		return 0;	/* a thread of a process not in the table */
	if (p->kind == IOT_PROC_START || p->kind == IOT_PROC_FORK)
		e->born = e->active_from = p->t_ns;
	if (p->argc && !(argv = ana_join_argv(p->argc, p->argv)))
		goto nomem;
	switch (p->kind) {
	case IOT_PROC_START:
		if (p->argc) {
			e->cmd = ana_proc_index(t, ana_basename(p->argv[0]));
			if (e->cmd < -1)
				goto nomem;
		}
		(void)ana_opens_phase(L, p, argv);
		break;
	case IOT_PROC_FORK:
		par = ana_pid_get(&L->pids, p->ppid, 0);
		e->cmd = par ? par->cmd : -1;
		e->phase1 = par ? par->phase1 : 0;
		if (ana_client_of(t, p->pid) > 0) {
			/* a profile of many clients: phases are client 0's
			 * (written first); another client's process is in its
			 * counterpart's, so its CPU time goes there too */
			struct pident *e0 = ana_pid_get(&L->pids, p->pid % t->client_stride, 0);

			if (e0)
				e->phase1 = e0->phase1;
		} else if (ana_opens_phase(L, p, argv)) {
			if (open_phase(L, NULL, p->t_ns, p->pid) < 0)
				goto nomem;
			e->phase1 = L->seq;
		}
		break;
	case IOT_PROC_EXEC:
		e->cmd = exec_cmd(t, p, e->cmd);
		if (e->cmd < -1)
			goto nomem;
		if (p->pid == L->root) {
			if (!ana_opens_phase(L, p, argv))
				break;
			if ((ph = ana_phase_of(L, L->root_phase))) {
				int open = ph->end == INT64_MIN;

				ph->end = p->t_ns;
				if (open)
					ana_phase_closed(L, ph);
			}
			if (open_phase(L, argv, p->t_ns, p->pid) < 0)
				goto nomem;
			L->root_phase = L->seq;
			e->phase1 = L->seq;
		} else if ((ph = ana_phase_of(L, e->phase1)) && ph->pid == p->pid && !ph->name &&
			   argv) {
			ph->name = argv;
			argv = NULL;
		}
		break;
	case IOT_PROC_THREAD:
		if (ana_pid_thread(L, e, p, chunk) < 0)
			goto nomem;
		break;
	case IOT_PROC_EXIT:
		if (p->tid != p->pid && p->tid != 0) {
			/* a thread; the leader's exit closes the process.
			 * Each task's exit holds its own CPU time (the
			 * recorders read it per thread): a Go compiler's
			 * leader held a third of its process's. */
			(void)exit_cpu(L, e, p);
			if (ana_pid_thread(L, e, p, chunk) < 0)
				goto nomem;
			break;
		}
		/* a process's CPU time in a phase by time is known only when
		 * the phases are: pass 2 adds it (ana_pass2_proc()) */
		L->n_exits++;
		if (e->cmd >= 0)
			t->procs[e->cmd].pids++;
		if ((ph = exit_cpu(L, e, p))) {
			ph->procs++;
			if (ph != &L->fold && ph->pid == p->pid && ph->end == INT64_MIN) {
				ph->end = p->t_ns;
				ana_phase_closed(L, ph);
			}
		} else {
			if (add_orphan(L, e, p->t_ns) < 0)
				goto nomem;
			e->orphan = 1;
			e->exit_t = p->t_ns;
		}
		if (ana_pid_exited(L, e, chunk) < 0)
			goto nomem;
		break;
	default:
		break;
	}
	goto out;
nomem:
	rc = -ENOMEM;
out:
	free(argv);
	return rc;
}

void ana_pass1_span(struct loader *L, const struct iot_span *sp)
{
	struct ana_trace *t = L->t;

	if (t->events == 0 || sp->t_min < t->t_first)
		t->t_first = sp->t_min;
	if (t->events == 0 || sp->t_end > t->t_last)
		t->t_last = sp->t_end;
	t->events += sp->events;
	if (L->n_tail)
		ana_fold_tail(L);
	if (!L->have_root) {
		L->root = sp->pid;
		L->have_root = 1;
	}
}

static int cmp_phase_start(const void *a, const void *b)
{
	const struct ana_phase *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The phase that holds time @ts (marks: phases are sorted and tile time). */
int ana_phase_at(const struct ana_trace *t, int64_t ts)
{
	size_t lo = 0, hi = t->n_phases - 1;	/* the last one is (gaps) */

	if (hi == 0 || ts < t->phases[0].start)
		return -1;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (t->phases[mid].start <= ts)
			lo = mid;
		else
			hi = mid;
	}
	return (int)lo;
}

static int cmp_span(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Length of the union of the @n spans (start, end pairs) in @s; sorts @s. */
static int64_t union_len(int64_t *s, size_t n)
{
	int64_t cov = 0, cur_s = 0, cur_e = 0;
	size_t i;
	int have = 0;

	ana_sort(s, n, 2 * sizeof(*s), cmp_span);
	for (i = 0; i < n; i++) {
		if (s[2 * i + 1] <= s[2 * i])
			continue;
		if (have && s[2 * i] <= cur_e) {
			if (s[2 * i + 1] > cur_e)
				cur_e = s[2 * i + 1];
			continue;
		}
		if (have)
			cov = iot_ns_add(cov, iot_ns_sub(cur_e, cur_s));
		cur_s = s[2 * i];
		cur_e = s[2 * i + 1];
		have = 1;
	}
	if (have)
		cov = iot_ns_add(cov, iot_ns_sub(cur_e, cur_s));
	return cov;
}

/* Real time not covered by any phase: "(gaps)". */
static int64_t gap_time(const struct ana_trace *t, size_t n)
{
	int64_t *s = malloc(2 * (n + 1) * sizeof(*s)), cov;
	size_t i;

	if (!s)
		return 0;
	for (i = 0; i < n; i++) {
		s[2 * i] = t->phases[i].start < t->t_first ? t->t_first : t->phases[i].start;
		s[2 * i + 1] = t->phases[i].end > t->t_last ? t->t_last : t->phases[i].end;
	}
	cov = union_len(s, n);
	free(s);
	cov = iot_ns_sub(iot_ns_sub(t->t_last, t->t_first), cov);
	return cov > 0 ? cov : 0;
}

/* After pass 1: settle the phase list and append "(gaps)". */
int ana_finish_phases(struct loader *L)
{
	struct ana_trace *t = L->t;
	size_t i, n_kept;
	int idx;

	L->n_marks_seen = L->n_marks;
	if (L->n_marks || L->n_opened == 0) {
		/* marks win over top-level commands; with neither, the whole
		 * run is one phase named after the workload */
		for (i = 0; i < t->n_phases; i++)
			free(t->phases[i].name);
		free(t->phases);
		t->phases = L->marks;
		t->n_phases = L->n_marks;
		t->phases_folded = 0;
		L->marks = NULL;
		L->n_marks = 0;
		if (t->n_phases == 0 && t->events) {
			idx = add_phase(&t->phases, &t->n_phases,
					t->workload && *t->workload ? t->workload : "(all)",
					t->t_first, 0, 0);
			if (idx < 0)
				return idx;
		}
		ana_sort(t->phases, t->n_phases, sizeof(*t->phases), cmp_phase_start);
		for (i = 0; i < t->n_phases; i++)
			t->phases[i].end = i + 1 < t->n_phases ? t->phases[i + 1].start : t->t_last;
		t->by_time = 1;
		t->marks = t->n_phases > 0 && L->n_marks_seen > 0;
	}
	for (i = 0; i < t->n_phases; i++) {
		struct ana_phase *ph = &t->phases[i];

		if (ph->folded)
			continue;
		if (ph->end == INT64_MIN || ph->end > t->t_last) {
			int open = ph->end == INT64_MIN;

			ph->end = t->t_last > ph->start ? t->t_last : ph->start;
			if (open && !t->by_time) {
				ana_cov_add(L, ph->start, ph->end);
				L->n_closed++;
			}
		}
	}
	if (!t->by_time) {
		/* the phases still open count as ended at the end */
		ana_fold_shortest(L);
		ana_phases_compact(L);
	}
	for (i = 0; i < t->n_phases; i++) {
		struct ana_phase *ph = &t->phases[i];

		if (!ph->name) {
			struct pident *e = ana_pid_get(&L->pids, ph->pid, 0);
			int32_t cmd = e ? e->cmd : ph->cmd;
			const char *c = cmd >= 0 ? t->procs[cmd].cmd : "(subshell)";

			ph->name = strdup(c);
			if (!ph->name)
				return -ENOMEM;
		}
	}
	if (t->phases_folded) {
		t->gaps_real_ns = ana_cov_gap_time(L);
		ana_fold_tail_cut(L);
		idx = add_phase(&t->phases, &t->n_phases, ANA_OTHER_CMDS, L->fold.start, 0,
				UINT64_MAX - 1);
		if (idx < 0)
			return idx;
		t->phases[idx].end = iot_ns_add(L->fold.start, L->fold.end);
		t->phases[idx].cpu_ns = L->fold.cpu_ns;
		t->phases[idx].procs = L->fold.procs;
	} else {
		t->gaps_real_ns = gap_time(t, t->n_phases);
	}
	idx = add_phase(&t->phases, &t->n_phases, "(gaps)", t->t_first, 0, UINT64_MAX);
	if (idx < 0)
		return idx;
	t->phases[idx].end = t->t_first + t->gaps_real_ns;
	/* pass 2 finds the records that open phases anew */
	free(L->start_argv);
	L->start_argv = NULL;
	L->root_images = 0;
	L->n_opened = 0;
	/* CPU outside every phase: the root itself; with marks, processes
	 * that outlived a phase are in no phase */
	t->phases[idx].cpu_ns = t->by_time ? -1 : t->cpu_ns;
	if (t->by_time)
		return 0;
	for (i = 0; i + 1 < t->n_phases; i++)
		t->phases[idx].cpu_ns -= t->phases[i].cpu_ns;
	if (t->phases[idx].cpu_ns < 0)
		t->phases[idx].cpu_ns = 0;
	/* ... until pass 2 has seen when they ran (ana_orphan_cpu()) */
	L->orphan_cpu = t->phases[idx].cpu_ns;
	L->w = calloc(t->n_phases, sizeof(*L->w));
	L->ov = calloc(t->n_phases, sizeof(*L->ov));
	L->seg = calloc(2 * (t->n_phases + (t->phases_folded ? ANA_FOLD_RING : 0)),
			sizeof(*L->seg));
	if (t->phases_folded)
		L->fring = malloc(ANA_FOLD_RING * sizeof(*L->fring));
	/* add_active() looks at the phases an interval can meet, when they
	 * are in order of their starts (records in time order) */
	n_kept = t->n_phases - 1 - (t->phases_folded ? 1 : 0);
	for (i = 1; i < n_kept && t->phases[i - 1].start <= t->phases[i].start; i++)
		;
	if (n_kept && i >= n_kept && (L->end_max = malloc(n_kept * sizeof(*L->end_max))))
		for (i = 0; i < n_kept; i++)
			L->end_max[i] = i && L->end_max[i - 1] > t->phases[i].end ?
					L->end_max[i - 1] : t->phases[i].end;
	if (!L->w || !L->ov || !L->seg || (t->phases_folded && !L->fring))
		return -ENOMEM;
	return 0;
}

/*
 * The root's CPU time is known only as one number at its exit, and it
 * is not the gaps' own: a shell runs between its commands, but make -j2
 * runs while its jobs do, and the root's CPU over the gaps' short real
 * time gave "(gaps)" 600% and more.  So the CPU of a process in no phase
 * goes where it ran: in proportion to the time it spent outside its
 * system calls (blocked in wait4 it does not run) within each phase and
 * within no phase.  Phases that overlap share their common time by how
 * much of the span each covers.  An estimate (it assumes a steady rate
 * while running), but the rows add up to the total and "(gaps)" gets only
 * the CPU time that its own real time can hold.
 */
static void add_active(struct loader *L, int64_t a, int64_t b)
{
	struct ana_trace *t = L->t;
	size_t i, n = 0, np = t->n_phases - 1;	/* the last one is (gaps) */
	size_t nk = t->phases_folded ? np - 1 : np, lo = 0, hi = nk, m;
	double sum = 0;
	int64_t cov;

	if (b <= a)
		return;
	if (L->end_max) {
		/* phases in order of their starts: those before lo end by
		 * @a, those from hi start at @b or later */
		size_t x = 0, y = nk;

		while (x < y) {
			m = (x + y) / 2;
			if (L->end_max[m] <= a)
				x = m + 1;
			else
				y = m;
		}
		lo = x;
		for (y = nk; x < y;) {
			m = (x + y) / 2;
			if (t->phases[m].start < b)
				x = m + 1;
			else
				y = m;
		}
		hi = x;
	}
	for (i = lo; i < hi; i++) {
		int64_t s = t->phases[i].start > a ? t->phases[i].start : a;
		int64_t e = t->phases[i].end < b ? t->phases[i].end : b;

		L->ov[i] = s < e ? (double)iot_ns_sub(e, s) : 0;
		if (s < e) {
			sum += L->ov[i];
			L->seg[2 * n] = s;
			L->seg[2 * n++ + 1] = e;
		}
	}
	if (nk < np) {
		/* "(other commands)": when one of its phases was open (pass 2
		 * follows them) */
		L->ov[nk] = (double)ana_fold_overlap(L, a, b, L->seg, &n);
		sum += L->ov[nk];
	}
	cov = union_len(L->seg, n);
	L->w_gap += (double)iot_ns_sub(iot_ns_sub(b, a), cov);
	for (i = lo; sum > 0 && i < hi; i++)
		L->w[i] += L->ov[i] * (double)cov / sum;
	if (sum > 0 && nk < np)
		L->w[nk] += L->ov[nk] * (double)cov / sum;
}

int ana_phase_after(const struct loader *L, int ph, int32_t pid, int64_t ts)
{
	const struct ana_trace *t = L->t;
	size_t lo = 0, hi, nk = t->n_phases - 1 - (t->phases_folded ? 1 : 0);

	if (ph < 0 || (size_t)ph >= nk || t->phases[ph].pid == pid ||
	    t->phases[ph].end == INT64_MIN || ts <= t->phases[ph].end || !L->end_max)
		return ph;
	/* the last phase that started by @ts, if it is still open then */
	for (hi = nk; lo < hi;) {
		size_t m = (lo + hi) / 2;

		if (t->phases[m].start <= ts)
			lo = m + 1;
		else
			hi = m;
	}
	if (lo > 0 && ts <= t->phases[lo - 1].end)
		return (int)lo - 1;
	return (int)t->n_phases - 1;	/* (gaps) */
}

void ana_orphan_event(struct loader *L, struct pident *e, const struct iot_event *ev)
{
	if (L->t->by_time || !L->w)
		return;
	/* another thread's call may come earlier: then nothing ran */
	if (e->active_from != INT64_MIN && e->active_from != INT64_MAX &&
	    ev->t_enter > e->active_from)
		add_active(L, e->active_from, ev->t_enter);
	if (ev->flags & IOT_EV_UNFINISHED)
		e->active_from = INT64_MAX;
	else
		e->active_from = ev->t_exit > ev->t_enter ? ev->t_exit : ev->t_enter;
}

void ana_orphan_cpu(struct loader *L)
{
	struct ana_trace *t = L->t;
	struct ana_phase *gaps;
	double total;
	int64_t given = 0;
	size_t i;

	if (t->by_time || !L->w || t->n_phases == 0 || L->orphan_cpu <= 0)
		return;
	for (i = 0; i < L->n_orph_runs; i++)
		add_active(L, L->orph_runs[i].from, L->orph_runs[i].to);
	for (i = 0; i < L->pids.cap; i++) {
		struct pident *e = &L->pids.e[i];

		if (e->used && e->orphan && e->active_from != INT64_MIN &&
		    e->active_from != INT64_MAX)
			add_active(L, e->active_from, e->exit_t);
	}
	total = L->w_gap;
	for (i = 0; i + 1 < t->n_phases; i++)
		total += L->w[i];
	if (total <= 0)
		return;		/* never seen running: all stays in (gaps) */
	for (i = 0; i + 1 < t->n_phases; i++) {
		int64_t share = llround((double)L->orphan_cpu * L->w[i] / total);

		t->phases[i].cpu_ns += share;
		given += share;
	}
	gaps = &t->phases[t->n_phases - 1];
	gaps->cpu_ns = L->orphan_cpu - given > 0 ? L->orphan_cpu - given : 0;
}

static int cmp_orphan(const void *a, const void *b)
{
	const struct ana_orphan *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void ana_sort_orphans(struct loader *L)
{
	ana_sort(L->orphans, L->n_orphans, sizeof(*L->orphans), cmp_orphan);
}

/* Pass 2: whether the process of entry @e exits in no phase (pass 1 said
 * so), and when. */
static void find_orphan(struct loader *L, struct pident *e)
{
	size_t lo = 0, hi = L->n_orphans;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (L->orphans[mid].seq < e->seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < L->n_orphans && L->orphans[lo].seq == e->seq) {
		e->orphan = 1;
		e->exit_t = L->orphans[lo].exit_t;
	}
}

/* Phases by time: a process's CPU time counts in a phase when it started
 * and ended there (phases tile time: the one its exit is in). */
static void exit_by_time(struct loader *L, const struct pident *e, const struct iot_process *p)
{
	struct ana_trace *t = L->t;
	int i = ana_phase_at(t, p->t_ns);

	if (i < 0 || e->born < t->phases[i].start)
		return;
	t->phases[i].cpu_ns += p->utime_ns + p->stime_ns;
	/* a thread's exit adds its time to its process's, not a process */
	if (p->tid == p->pid || p->tid == 0)
		t->phases[i].procs++;
}

void ana_finish_exits(struct loader *L)
{
	struct ana_trace *t = L->t;
	size_t i;

	if (!t->by_time || !L->n_exits)
		return;
	for (i = 0; i + 1 < t->n_phases; i++)
		if (t->phases[i].procs == 0)
			t->phases[i].cpu_ns = -1;
}

int ana_pass2_proc(struct loader *L, const struct iot_process *p, uint64_t chunk)
{
	struct ana_trace *t = L->t;
	struct pident *e, *par;
	int32_t opened = -1;
	int rc, made;

	L->seq++;
	if (p->kind == IOT_PROC_PHASE)
		return 0;
	if ((rc = ana_pids_evict(L, chunk)) < 0)
		return rc;
	if (!t->by_time) {
		/* the kept phases; "(other commands)" and "(gaps)" after them */
		size_t nk = t->n_phases - 1 - (t->phases_folded ? 1 : 0);

		while (L->next_phase < nk && t->phases[L->next_phase].seq < L->seq)
			L->next_phase++;
		if (L->next_phase < nk && t->phases[L->next_phase].seq == L->seq)
			opened = (int32_t)L->next_phase;
	}
	e = ana_pid_of_record(L, p, &made);
	if (made < 0)
		return made;
	if (!e)
		return 0;
	if (made)
		find_orphan(L, e);
	if (!t->by_time && t->phases_folded && L->pass == 2 &&
	    (opened = ana_pass2_opens(L, e, p, opened)) < -1)
		return opened;
	switch (p->kind) {
	case IOT_PROC_START:
		e->born = e->active_from = p->t_ns;
		if (p->argc && (e->cmd = ana_proc_index(t, ana_basename(p->argv[0]))) < 0)
			return e->cmd;
		break;
	case IOT_PROC_FORK:
		e->born = e->active_from = p->t_ns;
		par = ana_pid_get(&L->pids, p->ppid, 0);
		e->cmd = par ? par->cmd : -1;
		if (!t->by_time)
			e->phase2 = opened >= 0 ? opened : par ? par->phase2 : -1;
		break;
	case IOT_PROC_EXEC:
		/* the same command as pass 1's: the rows are there */
		e->cmd = exec_cmd(t, p, e->cmd);
		if (e->cmd < -1)
			return e->cmd;
		if (opened >= 0)
			e->phase2 = opened;
		break;
	case IOT_PROC_THREAD:
		return ana_pid_thread(L, e, p, chunk);
	case IOT_PROC_EXIT:
		if (p->tid != p->pid && p->tid != 0) {
			if (t->by_time && (L->pass == 2 || L->seq > L->seq2))
				exit_by_time(L, e, p);
			return ana_pid_thread(L, e, p, chunk);
		}
		if (e->fold_head) {
			e->fold_head = 0;
			ana_fold_close(L, p->t_ns);
		}
		if (t->by_time && (L->pass == 2 || L->seq > L->seq2))
			exit_by_time(L, e, p);
		return ana_pid_exited(L, e, chunk);
	default:
		break;
	}
	if (L->pass == 3 && L->seq > L->seq2 && e->seq <= L->seq2) {
		/* a process pass 2 left alive: its command as pass 1 had it */
		struct pident *e2 = ana_pid_get(L->pids2, e->pid, 0);

		if (e2 && e2->seq == e->seq)
			e2->cmd = e->cmd;
	}
	return 0;
}
