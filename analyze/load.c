/*
 * load.c - read a trace or profile into a struct ana_trace.
 *
 * Two streaming passes over the file:
 *   1. process records only: the root pid, the command of every pid (the
 *      basename of its last exec), CPU time at exit, the event time range
 *      and the phases (marks, or the root's top-level commands);
 *   2. events: each is added to its syscall, class, command and phase row.
 * Phases need the whole process history before events can be attributed
 * (a phase mark may be read after events of the same moment), hence two
 * passes rather than buffering events.  Memory is per key: pids, commands,
 * phases, syscalls.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ana.h"
#include "commands.h"

struct pident {
	int32_t pid;
	int32_t used;
	int32_t cmd;		/* index into procs (final, from pass 1) */
	int32_t phase1;		/* phase while walking pass 1 */
	int32_t phase2;		/* phase while walking pass 2 */
	int64_t born;		/* START/FORK time */
};

struct pidmap {
	struct pident *e;
	size_t cap, n;
};

struct exit_rec {
	int64_t t, cpu, born;
};

struct loader {
	struct ana_trace *t;
	struct pidmap pids;
	int32_t root;
	int have_root;
	int root_images;	/* images the root has run (START argv, EXECs) */
	char *start_argv;
	int32_t root_phase;	/* open root-exec phase, -1 if none */
	struct ana_phase *marks;
	size_t n_marks, n_marks_seen;
	struct exit_rec *exits;
	size_t n_exits, cap_exits;
	uint64_t seq;
	size_t next_phase;	/* pass 2: the next phase to open by seq */
	size_t unknown_cmd;	/* procs index of "(unknown)", or SIZE_MAX */
};

static struct pident *pid_get(struct pidmap *m, int32_t pid, int create)
{
	size_t i, mask;

	if (create && (m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 256, j;
		struct pident *ne = calloc(ncap, sizeof(*ne));

		if (!ne)
			return NULL;
		for (j = 0; j < m->cap; j++) {
			if (!m->e[j].used)
				continue;
			i = ((uint32_t)m->e[j].pid * 2654435761u) & (ncap - 1);
			while (ne[i].used)
				i = (i + 1) & (ncap - 1);
			ne[i] = m->e[j];
		}
		free(m->e);
		m->e = ne;
		m->cap = ncap;
	}
	if (!m->cap)
		return NULL;
	mask = m->cap - 1;
	i = ((uint32_t)pid * 2654435761u) & mask;
	while (m->e[i].used) {
		if (m->e[i].pid == pid)
			return &m->e[i];
		i = (i + 1) & mask;
	}
	if (!create)
		return NULL;
	m->e[i].used = 1;
	m->e[i].pid = pid;
	m->e[i].cmd = -1;
	m->e[i].phase1 = m->e[i].phase2 = -1;
	m->e[i].born = INT64_MIN;
	m->n++;
	return &m->e[i];
}

const char *ana_basename(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* argv joined by spaces (bytes kept as they are; output escapes them). */
static char *join_argv(uint32_t argc, const char *const *argv)
{
	size_t len = 1, i, o = 0;
	char *s;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	for (i = 0; i < argc; i++) {
		size_t l = strlen(argv[i]);

		if (i)
			s[o++] = ' ';
		memcpy(s + o, argv[i], l);
		o += l;
	}
	s[o] = '\0';
	return s;
}

static int proc_index(struct ana_trace *t, const char *cmd)
{
	struct ana_proc *np;
	size_t i;

	for (i = 0; i < t->n_procs; i++)
		if (strcmp(t->procs[i].cmd, cmd) == 0)
			return (int)i;
	np = realloc(t->procs, (t->n_procs + 1) * sizeof(*np));
	if (!np)
		return -ENOMEM;
	t->procs = np;
	memset(&np[t->n_procs], 0, sizeof(*np));
	np[t->n_procs].cmd = strdup(cmd);
	if (!np[t->n_procs].cmd)
		return -ENOMEM;
	return (int)t->n_procs++;
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
	nv[*n].seq = seq;
	return (int)(*n)++;
}

static int pass1_proc(struct loader *L, const struct iot_process *p)
{
	struct ana_trace *t = L->t;
	struct pident *e, *par;
	char *argv = NULL;
	int rc = 0, idx;

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
	e = pid_get(&L->pids, p->pid, 1);
	if (!e)
		return -ENOMEM;
	if (p->kind == IOT_PROC_START || p->kind == IOT_PROC_FORK)
		e->born = p->t_ns;
	if (p->argc)
		argv = join_argv(p->argc, p->argv);
	switch (p->kind) {
	case IOT_PROC_START:
		if (p->argc) {
			e->cmd = proc_index(t, ana_basename(p->argv[0]));
			free(L->start_argv);
			L->start_argv = argv;
			argv = NULL;
			L->root_images++;
		}
		break;
	case IOT_PROC_FORK:
		par = pid_get(&L->pids, p->ppid, 0);
		e = pid_get(&L->pids, p->pid, 0);	/* the table may have moved */
		e->cmd = par ? par->cmd : -1;
		e->phase1 = par ? par->phase1 : -1;
		if (L->have_root && p->ppid == L->root) {
			idx = add_phase(&t->phases, &t->n_phases, NULL, p->t_ns,
					p->pid, L->seq);
			if (idx < 0)
				goto nomem;
			e->phase1 = idx;
		}
		break;
	case IOT_PROC_EXEC:
		if (p->argc)
			e->cmd = proc_index(t, ana_basename(p->argv[0]));
		else if (p->exe)
			e->cmd = proc_index(t, ana_basename(p->exe));
		if (e->cmd < 0 && e->cmd != -1)
			goto nomem;
		if (p->pid == L->root) {
			/* the root's first image is the workload itself, not a
			 * phase; later ones (`exec cmd`, a shell running its
			 * last command in place) are */
			int dup = L->start_argv && argv && t->n_phases == 0 &&
				  strcmp(L->start_argv, argv) == 0;

			if (L->root_images++ == 0 || dup)
				break;
			if (L->root_phase >= 0)
				t->phases[L->root_phase].end = p->t_ns;
			idx = add_phase(&t->phases, &t->n_phases, argv, p->t_ns,
					p->pid, L->seq);
			if (idx < 0)
				goto nomem;
			L->root_phase = idx;
			e->phase1 = idx;
		} else if (e->phase1 >= 0 && t->phases[e->phase1].pid == p->pid &&
			   !t->phases[e->phase1].name && argv) {
			t->phases[e->phase1].name = argv;
			argv = NULL;
		}
		break;
	case IOT_PROC_EXIT:
		if (p->tid != p->pid && p->tid != 0)
			break;	/* a thread; the leader's exit closes the process */
		if (L->n_exits == L->cap_exits) {
			size_t nc = L->cap_exits ? L->cap_exits * 2 : 64;
			struct exit_rec *ne = realloc(L->exits, nc * sizeof(*ne));

			if (!ne)
				goto nomem;
			L->exits = ne;
			L->cap_exits = nc;
		}
		L->exits[L->n_exits].t = p->t_ns;
		L->exits[L->n_exits].born = e->born;
		L->exits[L->n_exits++].cpu = p->utime_ns + p->stime_ns;
		t->cpu_ns += p->utime_ns + p->stime_ns;
		t->has_cpu = 1;
		if (e->cmd >= 0) {
			t->procs[e->cmd].cpu_ns += p->utime_ns + p->stime_ns;
			t->procs[e->cmd].pids++;
		}
		if (e->phase1 >= 0) {
			struct ana_phase *ph = &t->phases[e->phase1];

			ph->cpu_ns += p->utime_ns + p->stime_ns;
			ph->procs++;
			if (ph->pid == p->pid && ph->end == INT64_MIN)
				ph->end = p->t_ns;
		}
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

static void pass1_event(struct loader *L, const struct iot_event *ev)
{
	struct ana_trace *t = L->t;
	int64_t end = ev->t_exit > ev->t_enter ? ev->t_exit : ev->t_enter;

	if (t->events == 0 || ev->t_enter < t->t_first)
		t->t_first = ev->t_enter;
	if (t->events == 0 || end > t->t_last)
		t->t_last = end;
	t->events++;
	if (!L->have_root) {
		L->root = ev->pid;
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
static int phase_at(const struct ana_trace *t, int64_t ts)
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

/* Real time not covered by any phase: "(gaps)". */
static int64_t gap_time(const struct ana_trace *t, size_t n)
{
	int64_t *s = malloc(2 * (n + 1) * sizeof(*s)), cov = 0, cur_s = 0, cur_e = 0;
	size_t i;
	int have = 0;

	if (!s)
		return 0;
	for (i = 0; i < n; i++) {
		s[2 * i] = t->phases[i].start < t->t_first ? t->t_first : t->phases[i].start;
		s[2 * i + 1] = t->phases[i].end > t->t_last ? t->t_last : t->phases[i].end;
	}
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
			cov += cur_e - cur_s;
		cur_s = s[2 * i];
		cur_e = s[2 * i + 1];
		have = 1;
	}
	if (have)
		cov += cur_e - cur_s;
	free(s);
	return t->t_last - t->t_first - cov > 0 ? t->t_last - t->t_first - cov : 0;
}

/* After pass 1: settle the phase list and append "(gaps)". */
static int finish_phases(struct loader *L)
{
	struct ana_trace *t = L->t;
	size_t i, j;
	int idx;

	L->n_marks_seen = L->n_marks;
	if (L->n_marks || t->n_phases == 0) {
		/* marks win over top-level commands; with neither, the whole
		 * run is one phase named after the workload */
		for (i = 0; i < t->n_phases; i++)
			free(t->phases[i].name);
		free(t->phases);
		t->phases = L->marks;
		t->n_phases = L->n_marks;
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
		for (i = 0; i < t->n_phases; i++) {
			t->phases[i].end = i + 1 < t->n_phases ? t->phases[i + 1].start : t->t_last;
			/* a process's CPU time is known only at its exit: it
			 * counts in a phase when it started and ended there */
			for (j = 0; j < L->n_exits; j++) {
				if (L->exits[j].t >= t->phases[i].start &&
				    L->exits[j].born >= t->phases[i].start &&
				    (L->exits[j].t < t->phases[i].end || i + 1 == t->n_phases)) {
					t->phases[i].cpu_ns += L->exits[j].cpu;
					t->phases[i].procs++;
				}
			}
			if (t->phases[i].procs == 0 && L->n_exits)
				t->phases[i].cpu_ns = -1;
		}
		t->by_time = 1;
		t->marks = t->n_phases > 0 && L->n_marks_seen > 0;
	}
	for (i = 0; i < t->n_phases; i++) {
		struct ana_phase *ph = &t->phases[i];

		if (ph->end == INT64_MIN || ph->end > t->t_last)
			ph->end = t->t_last > ph->start ? t->t_last : ph->start;
		if (!ph->name) {
			struct pident *e = pid_get(&L->pids, ph->pid, 0);
			const char *c = e && e->cmd >= 0 ? t->procs[e->cmd].cmd : "(subshell)";

			ph->name = strdup(c);
			if (!ph->name)
				return -ENOMEM;
		}
	}
	t->gaps_real_ns = gap_time(t, t->n_phases);
	idx = add_phase(&t->phases, &t->n_phases, "(gaps)", t->t_first, 0, UINT64_MAX);
	if (idx < 0)
		return idx;
	t->phases[idx].end = t->t_first + t->gaps_real_ns;
	/* CPU outside every phase: the root itself, between its commands;
	 * with marks, processes that outlived a phase are in no phase */
	t->phases[idx].cpu_ns = t->by_time ? -1 : t->cpu_ns;
	if (t->by_time)
		return 0;
	for (i = 0; i + 1 < t->n_phases; i++)
		t->phases[idx].cpu_ns -= t->phases[i].cpu_ns;
	if (t->phases[idx].cpu_ns < 0)
		t->phases[idx].cpu_ns = 0;
	return 0;
}

static void pass2_proc(struct loader *L, const struct iot_process *p)
{
	struct ana_trace *t = L->t;
	struct pident *e, *par;
	int32_t opened = -1;

	L->seq++;
	if (t->by_time || p->kind == IOT_PROC_PHASE)
		return;
	while (L->next_phase + 1 < t->n_phases && t->phases[L->next_phase].seq < L->seq)
		L->next_phase++;
	if (L->next_phase + 1 < t->n_phases && t->phases[L->next_phase].seq == L->seq)
		opened = (int32_t)L->next_phase;
	e = pid_get(&L->pids, p->pid, 0);
	if (!e)
		return;
	if (p->kind == IOT_PROC_FORK) {
		par = pid_get(&L->pids, p->ppid, 0);
		e->phase2 = opened >= 0 ? opened : par ? par->phase2 : -1;
	} else if (p->kind == IOT_PROC_EXEC && opened >= 0) {
		e->phase2 = opened;
	}
}

static void stat_add(struct ana_stat *s, const struct iot_event *ev, int64_t dur,
		     int timed, uint64_t bytes)
{
	s->count++;
	if (ev->ret < 0 && ev->ret >= -4095)
		s->errors++;
	s->bytes += bytes;
	if (ev->flags & IOT_EV_REPLAY_MISMATCH)
		s->mismatches++;
	if (ev->flags & IOT_EV_REPLAY_SKIPPED)
		s->skipped++;
	if (timed) {
		s->timed++;
		s->total_ns += dur;
		ana_hist_add(&s->lat, dur);
	}
}

static int pass2_event(struct loader *L, const struct iot_event *ev)
{
	struct ana_trace *t = L->t;
	const struct iot_syscall *sc = ev->nr >= 0 && ev->nr < ANA_MAX_NR ? t->sc[ev->nr] : NULL;
	int cls = ana_class_of(sc), timed, ph, cmd;
	int64_t dur = ev->t_exit - ev->t_enter;
	uint64_t bytes = 0;
	struct pident *e;

	/* unfinished calls and calls a replay skipped have no latency */
	timed = !(ev->flags & (IOT_EV_UNFINISHED | IOT_EV_NOEXIT_TS | IOT_EV_REPLAY_SKIPPED)) &&
		dur >= 0;
	if (ev->flags & IOT_EV_UNFINISHED)
		t->unfinished++;
	if (ev->flags & IOT_EV_REPLAY_MISMATCH)
		t->ev_mismatches++;
	if (ev->flags & IOT_EV_REPLAY_SKIPPED)
		t->ev_skipped++;
	if ((cls == ANA_CL_READ || cls == ANA_CL_WRITE) && ev->ret > 0 && sc &&
	    (sc->flags & (IOT_SCF_READ | IOT_SCF_WRITE)))
		bytes = (uint64_t)ev->ret;
	stat_add(&t->total, ev, dur, timed, bytes);
	stat_add(&t->cls[cls], ev, dur, timed, bytes);
	if (ev->nr >= 0 && ev->nr < ANA_MAX_NR)
		stat_add(&t->sys[ev->nr], ev, dur, timed, bytes);
	e = pid_get(&L->pids, ev->pid, 0);
	if (t->by_time)
		ph = phase_at(t, ev->t_enter);
	else
		ph = e ? e->phase2 : -1;
	if (ph < 0)
		ph = (int)t->n_phases - 1;
	stat_add(&t->phases[ph].st, ev, dur, timed, bytes);
	cmd = e ? e->cmd : -1;
	if (cmd < 0) {
		if (L->unknown_cmd == SIZE_MAX) {
			int k = proc_index(t, "(unknown)");

			if (k < 0)
				return k;
			L->unknown_cmd = (size_t)k;
		}
		cmd = (int)L->unknown_cmd;
	}
	stat_add(&t->procs[cmd].st, ev, dur, timed, bytes);
	if (t->t_last > t->t_first) {
		int64_t b = (int64_t)((double)(ev->t_enter - t->t_first) * ANA_TL_BINS /
				      (double)(t->t_last - t->t_first + 1));

		if (b < 0)
			b = 0;
		if (b >= ANA_TL_BINS)
			b = ANA_TL_BINS - 1;
		t->tl_count[b][cls]++;
		if (timed)
			t->tl_busy[b][cls] += dur;
	}
	return 0;
}

static void load_header(struct ana_trace *t, const struct iot_header *h)
{
	const char *v;
	size_t i;
	char buf[512];

	t->kind = (int)h->kind;
	t->workload = join_argv(h->argc, h->argv);
	if (h->target_label && *h->target_label)
		t->label = strdup(h->target_label);
	else if (h->kind == IOT_KIND_PROFILE && h->target_fstype && *h->target_fstype)
		t->label = strdup(h->target_fstype);
	else
		t->label = strdup(ana_basename(t->path));
	if (h->kind == IOT_KIND_PROFILE) {
		snprintf(buf, sizeof(buf), "%s%s%s%s%s", h->target_fstype ? h->target_fstype : "?",
			 h->target_mount_options && *h->target_mount_options ? ", -o " : "",
			 h->target_mount_options ? h->target_mount_options : "",
			 h->target_mkfs && *h->target_mkfs ? ", " : "",
			 h->target_mkfs ? h->target_mkfs : "");
		t->target = strdup(buf);
	}
	if ((v = iot_header_get(h, "replay.elapsed_ns")))
		t->real_ns = strtoll(v, NULL, 10);
	if ((v = iot_header_get(h, "replay.df_used_bytes"))) {
		t->df_bytes = strtoll(v, NULL, 10);
		t->has_df = 1;
	}
	if ((v = iot_header_get(h, "replay.mismatches"))) {
		t->hdr_mismatches = strtoull(v, NULL, 10);
		t->has_hdr_mismatches = 1;
	}
	if ((v = iot_header_get(h, "replay.skipped"))) {
		t->hdr_skipped = strtoull(v, NULL, 10);
		t->has_hdr_skipped = 1;
	}
	/* classify by the file's own table (numbers are the recorder's); a
	 * copy, as the header goes away with the reader */
	t->sc_rows = calloc(h->n_syscalls + 1, sizeof(*t->sc_rows));
	for (i = 0; t->sc_rows && i < h->n_syscalls; i++) {
		const struct iot_syscall *row = &h->syscalls[i];

		if (row->nr < 0 || row->nr >= ANA_MAX_NR || !row->name)
			continue;
		t->sc_rows[t->n_sc_rows] = *row;
		t->sc_rows[t->n_sc_rows].name = strdup(row->name);
		if (!t->sc_rows[t->n_sc_rows].name)
			break;
		t->sc[row->nr] = &t->sc_rows[t->n_sc_rows++];
	}
	for (i = 0; i < ANA_MAX_NR; i++)
		if (!t->sc[i])
			t->sc[i] = iot_syscall_by_nr((int)i);
}

static void note_damage(struct ana_trace *t, const struct iot_summary *s, int err)
{
	char when[32];

	t->damaged = 1;
	if (s && s->damage)
		snprintf(t->damage_msg, sizeof(t->damage_msg),
			 "%s at frame %llu (byte %llu); events up to %s were analyzed",
			 iot_strerror(s->damage), (unsigned long long)s->damage_frame,
			 (unsigned long long)s->damage_offset,
			 ana_fmt_ns(when, sizeof(when), (double)(s->good_t_max - t->t_first)));
	else
		snprintf(t->damage_msg, sizeof(t->damage_msg),
			 "%s; the part before it was analyzed", iot_strerror(err));
}

int ana_load(struct ana_trace *t, const char *path)
{
	struct loader L = { .t = t, .root_phase = -1, .unknown_cmd = SIZE_MAX };
	struct iot_reader *r = NULL;
	struct iot_item it;
	const struct iot_summary *s;
	int rc, pass, n;

	t->path = strdup(path);
	t->sys = calloc(ANA_MAX_NR, sizeof(*t->sys));
	t->sc = calloc(ANA_MAX_NR, sizeof(*t->sc));
	if (!t->path || !t->sys || !t->sc) {
		rc = -ENOMEM;
		goto out;
	}
	rc = iot_reader_open(&r, path);
	if (rc < 0)
		goto out;
	load_header(t, iot_reader_header(r));
	for (pass = 1; pass <= 2; pass++) {
		if (pass == 2) {
			rc = finish_phases(&L);
			if (rc < 0)
				goto out;
			rc = iot_reader_rewind(r);
			if (rc < 0)
				goto out;
			L.seq = 0;
		}
		while ((n = iot_reader_next(r, &it)) > 0) {
			rc = 0;
			if (it.kind == IOT_ITEM_PROCESS && pass == 1)
				rc = pass1_proc(&L, &it.u.proc);
			else if (it.kind == IOT_ITEM_PROCESS)
				pass2_proc(&L, &it.u.proc);
			else if (it.kind == IOT_ITEM_EVENT && pass == 1)
				pass1_event(&L, &it.u.ev);
			else if (it.kind == IOT_ITEM_EVENT)
				rc = pass2_event(&L, &it.u.ev);
			if (rc < 0)
				goto out;
		}
		if (n < 0 && pass == 1)
			note_damage(t, NULL, n);
	}
	s = iot_reader_summary(r);
	if (s->damage && !t->damaged)
		note_damage(t, s, s->damage);
	if (!t->real_ns)
		t->real_ns = t->t_last - t->t_first;
	rc = 0;
out:
	if (r)
		iot_reader_close(r);
	free(L.pids.e);
	free(L.start_argv);
	free(L.exits);
	for (size_t i = 0; i < L.n_marks; i++)
		free(L.marks[i].name);
	free(L.marks);
	return rc;
}

void ana_trace_free(struct ana_trace *t)
{
	size_t i;

	if (t->sys)
		for (i = 0; i < ANA_MAX_NR; i++)
			ana_stat_free(&t->sys[i]);
	for (i = 0; i < ANA_CL_COUNT; i++)
		ana_stat_free(&t->cls[i]);
	ana_stat_free(&t->total);
	for (i = 0; i < t->n_procs; i++) {
		free(t->procs[i].cmd);
		ana_stat_free(&t->procs[i].st);
	}
	for (i = 0; i < t->n_phases; i++) {
		free(t->phases[i].name);
		ana_stat_free(&t->phases[i].st);
	}
	free(t->procs);
	free(t->phases);
	free(t->sys);
	free(t->sc);
	for (i = 0; i < t->n_sc_rows; i++)
		free((char *)t->sc_rows[i].name);
	free(t->sc_rows);
	free(t->path);
	free(t->label);
	free(t->workload);
	free(t->target);
	memset(t, 0, sizeof(*t));
}

int ana_load_all(const char *cmd, char **paths, int n, struct ana_trace *t)
{
	int i, rc, ret = IOT_EXIT_OK;

	for (i = 0; i < n; i++) {
		rc = ana_load(&t[i], paths[i]);
		if (rc < 0) {
			if (rc == -ENOMEM)
				cli_err(cmd, "%s: out of memory", paths[i]);
			else
				cli_open_trace_msg(cmd, paths[i], rc);
			while (i >= 0)
				ana_trace_free(&t[i--]);
			return IOT_EXIT_FAIL;
		}
		if (t[i].damaged) {
			cli_warn(cmd, "%s: %s; run 'iotape check --repair' to rewrite its index",
				 paths[i], t[i].damage_msg);
			ret = IOT_EXIT_DAMAGED;
		}
	}
	return ret;
}
