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
 * passes rather than buffering events.  Memory is per key (commands,
 * phases, syscalls) and per live process (pidtab.c).  Pass 1 and the
 * phases are in phases.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "load_int.h"

const char *ana_basename(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* argv joined by spaces (bytes kept as they are; output escapes them). */
char *ana_join_argv(uint32_t argc, const char *const *argv)
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

/* One call as each row it is counted in sees it: worked out once, for the
 * five or six rows of an event. */
static void call_of(struct ana_call *c, const struct iot_event *ev, int64_t dur, int timed,
		    uint64_t bytes)
{
	c->dur = dur;
	c->bytes = bytes;
	c->bucket = timed ? ana_hist_bucket(dur) : 0;
	c->timed = timed != 0;
	c->error = ev->ret < 0 && ev->ret >= -4095;
	c->mismatch = (ev->flags & IOT_EV_REPLAY_MISMATCH) != 0;
	c->skipped = (ev->flags & IOT_EV_REPLAY_SKIPPED) != 0;
}

void ana_stat_add(struct ana_stat *s, const struct iot_event *ev, int64_t dur,
		  int timed, uint64_t bytes)
{
	struct ana_call c;

	call_of(&c, ev, dur, timed, bytes);
	ana_stat_call(s, &c);
}

static int pass2_event(struct loader *L, const struct iot_event *ev)
{
	struct ana_trace *t = L->t;
	const struct iot_syscall *sc = ev->nr >= 0 && ev->nr < ANA_MAX_NR ? t->sc[ev->nr] : NULL;
	int cls = ana_class_of(sc), timed, ph, cmd;
	int64_t dur = iot_ns_sub(ev->t_exit, ev->t_enter);
	uint64_t bytes = 0;
	struct pident *e;
	struct ana_call call;

	L->events2++;
	/* unfinished calls and calls a replay skipped have no latency */
	timed = !(ev->flags & (IOT_EV_UNFINISHED | IOT_EV_NOEXIT_TS | IOT_EV_REPLAY_SKIPPED)) &&
		dur >= 0;
	if (ev->flags & IOT_EV_UNFINISHED)
		t->unfinished++;
	if (ev->flags & IOT_EV_REPLAY_MISMATCH)
		t->ev_mismatches++;
	if (ev->flags & IOT_EV_REPLAY_SKIPPED)
		t->ev_skipped++;
	iot_data_count_add(&t->data, ev);
	if ((cls == IOT_CLASS_READ || cls == IOT_CLASS_WRITE) && ev->ret > 0 && sc &&
	    (sc->flags & (IOT_SCF_READ | IOT_SCF_WRITE)))
		bytes = (uint64_t)ev->ret;
	call_of(&call, ev, dur, timed, bytes);
	ana_stat_call(&t->total, &call);
	ana_stat_call(&t->cls[cls], &call);
	if (ev->nr >= 0 && ev->nr < ANA_MAX_NR)
		ana_stat_call(&t->sys[ev->nr], &call);
	if (t->n_clients) {
		int c = ana_client_of(t, ev->pid);

		ana_stat_call(&t->clients[c < t->n_clients ? c : t->n_clients - 1], &call);
	}
	e = ana_pid_get(&L->pids, ev->pid, 0);
	if (e && e->orphan)
		ana_orphan_event(L, e, ev);
	if (t->by_time) {
		ph = ana_phase_at(t, ev->t_enter);
	} else if (ana_client_of(t, ev->pid) > 0) {
		/* the phases are client 0's; the others' calls go to the
		 * phase their counterpart in client 0 is in */
		struct pident *e0 = ana_pid_get(&L->pids, ev->pid % t->client_stride, 0);

		ph = e0 ? e0->phase2 : -1;
	} else {
		ph = e ? ana_phase_after(L, e->phase2, ev->pid, ev->t_enter) : -1;
	}
	if (ph < 0)
		ph = (int)t->n_phases - 1;
	ana_stat_call(&t->phases[ph].st, &call);
	if (e) {
		/* its command is final when its entry goes */
		struct ana_pend *pd = ana_pend_of(&L->pids, e);

		if (!pd || ana_pend_call(pd, &call) < 0)
			return -ENOMEM;
	} else {
		cmd = ana_cmd_row(L, -1);
		if (cmd < 0)
			return cmd;
		ana_stat_call(&t->procs[cmd].st, &call);
	}
	if (t->t_last > t->t_first) {
		double x = ((double)ev->t_enter - (double)t->t_first) * ANA_TL_BINS /
			   ((double)t->t_last - (double)t->t_first + 1);
		int64_t b = x < 0 ? 0 : x >= ANA_TL_BINS ? ANA_TL_BINS - 1 : (int64_t)x;

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
	t->workload = ana_join_argv(h->argc, h->argv);
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
	t->data_on = iot_header_get(h, "record.data") != NULL;
	t->kernel_timed = h->kind != IOT_KIND_PROFILE &&
			  (v = iot_header_get(h, "record.backend")) && strcmp(v, "bpf") == 0;
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
	if ((v = iot_header_get(h, "replay.skipped_by")))
		snprintf(t->skipped_by, sizeof(t->skipped_by), "%s", v);
	if ((v = iot_header_get(h, "replay.skipped_mmap")))
		t->hdr_skipped_mmap = strtoull(v, NULL, 10);
	if ((v = iot_header_get(h, "replay.failed")))
		snprintf(t->failed, sizeof(t->failed), "%s", *v ? v : "failed");
	if ((v = iot_header_get(h, "replay.target_faults")))
		snprintf(t->target_faults, sizeof(t->target_faults), "%s", v);
	if ((v = iot_header_get(h, "replay.clients")) && atoi(v) > 0 && atoi(v) <= 4096 &&
	    iot_header_get(h, "replay.client_pid_stride") &&
	    atoi(iot_header_get(h, "replay.client_pid_stride")) > 0) {
		t->clients = calloc((size_t)atoi(v), sizeof(*t->clients));
		if (t->clients) {
			t->n_clients = atoi(v);
			t->client_stride = atoi(iot_header_get(h, "replay.client_pid_stride"));
		}
	}
	if (t->n_clients && t->label && ana_series_len(t->label) == strlen(t->label)) {
		/* "ext4-c4": not the runs of one client on ext4 */
		char *l = malloc(strlen(t->label) + 16);

		if (l) {
			sprintf(l, "%s-c%d", t->label, t->n_clients);
			free(t->label);
			t->label = l;
		}
	}
	if ((v = iot_header_get(h, "replay.interrupted")))
		snprintf(t->interrupted, sizeof(t->interrupted), "%s", v);
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

/* Pass 3: pass 2 stopped at damage that pass 1 read past (pass 1 does
 * not decode the columns there).  Pass 1's processes past that point
 * count as they did in pass 1: their exits in the phases by time, and
 * the commands the processes alive at the stop went on to exec (their
 * calls count under it).  The table is made anew, the same as in the
 * other passes; pass 2's is kept in L->pids2 meanwhile. */
static int pass3(struct loader *L, struct iot_reader *r)
{
	struct pidmap keep = L->pids;
	struct iot_item it;
	int rc, n;

	memset(&L->pids, 0, sizeof(L->pids));
	L->pids2 = &keep;
	L->seq2 = L->seq;
	L->seq = 0;
	L->next_phase = 0;
	L->pass = 3;
	iot_reader_set_spans(r, 1);
	rc = iot_reader_rewind(r);
	while (rc == 0 && (n = iot_reader_next(r, &it)) > 0)
		if (it.kind == IOT_ITEM_PROCESS)
			rc = ana_pass2_proc(L, &it.u.proc, it.chunk);
	ana_pids_free(&L->pids);
	L->pids = keep;
	L->pids2 = NULL;
	L->pass = 2;
	return rc < 0 ? rc : 0;
}

int ana_load(struct ana_trace *t, const char *path)
{
	struct loader L = { .t = t, .unknown_cmd = SIZE_MAX, .pass = 1,
			   .cov_done_end = INT64_MIN, .floor = INT64_MAX };
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
	/* without the thread, reading goes on as well: no error to give */
	if (t->read_ahead)
		(void)iot_reader_set_ahead(r, t->read_ahead);
	/* pass 1 reads the processes and each chunk's time range only */
	iot_reader_set_spans(r, 1);
	for (pass = 1; pass <= 2; pass++) {
		if (pass == 2) {
			iot_reader_set_spans(r, 0);
			rc = ana_finish_phases(&L);
			if (rc < 0)
				goto out;
			rc = iot_reader_rewind(r);
			if (rc < 0)
				goto out;
			/* pass 2 makes its own table from the same records */
			ana_pids_free(&L.pids);
			ana_sort_orphans(&L);
			L.seq1 = L.seq;
			L.seq = 0;
			L.pass = 2;
		}
		while ((n = iot_reader_next(r, &it)) > 0) {
			rc = 0;
			if (it.kind == IOT_ITEM_PROCESS && pass == 1)
				rc = ana_pass1_proc(&L, &it.u.proc, it.chunk);
			else if (it.kind == IOT_ITEM_PROCESS)
				rc = ana_pass2_proc(&L, &it.u.proc, it.chunk);
			else if (it.kind == IOT_ITEM_SPAN)
				ana_pass1_span(&L, &it.u.span);
			else if (it.kind == IOT_ITEM_EVENT)
				rc = pass2_event(&L, &it.u.ev);
			else if (it.kind == IOT_ITEM_AIO && pass == 2)
				rc = ana_aio_item(&L, &it.u.aio);
			else if (it.kind == IOT_ITEM_MPAGES && pass == 2)
				rc = ana_mpages_item(&L, &it.u.mp);
			if (rc < 0)
				goto out;
		}
		if (n < 0 && n != IOT_E_CORRUPT && n != IOT_E_TRUNCATED) {
			rc = n;
			goto out;
		}
	}
	/* pass 1 did not check the columns it skipped: a chunk it counted may
	 * have been found damaged here, and the events are those analysed */
	t->events = L.events2;
	s = iot_reader_summary(r);
	t->damaged = iot_damage_text(t->damage_msg, sizeof(t->damage_msg), s,
				     iot_time_base(iot_reader_header(r), s));
	rc = L.seq < L.seq1 ? pass3(&L, r) : 0;
	if (rc == 0)
		rc = ana_aio_finish(&L);
	if (rc == 0)
		rc = ana_pend_flush_all(&L);
	if (rc < 0)
		goto out;
	ana_orphan_cpu(&L);
	ana_finish_exits(&L);
	if (!t->real_ns)
		t->real_ns = iot_ns_sub(t->t_last, t->t_first);
	rc = 0;
out:
	if (r)
		iot_reader_close(r);
	ana_pids_free(&L.pids);
	free(L.start_argv);
	free(L.orphans);
	free(L.orph_runs);
	free(L.cov);
	free(L.tail);
	free(L.fring);
	free(L.fold.name);
	free(L.w);
	free(L.ov);
	free(L.seg);
	free(L.end_max);
	free(L.aw);
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
	for (i = 0; i < IOT_CLASS_COUNT; i++)
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
	free(t->cmd_hash);
	free(t->phases);
	for (i = 0; t->clients && i < (size_t)t->n_clients; i++)
		ana_stat_free(&t->clients[i]);
	free(t->clients);
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

void ana_files_free(struct ana_trace *t, struct ana_group *g, int n)
{
	int i;

	for (i = 0; t && i < n; i++)
		ana_trace_free(&t[i]);
	free(t);
	free(g);
}
