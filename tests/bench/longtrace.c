/*
 * longtrace.c - a long, realistic trace made from a recorded one: the
 * recording is repeated, each repetition shifted in time and given its
 * own subtree (/iotape-rep.K/...) and its own pids, so that the starting
 * tree and the calls of every repetition stay consistent with each other
 * and with the others.  A driver process starts each repetition's first
 * process (clone) and waits for it (wait4), so the repetitions run one
 * after the other under any timing, as a shell running the workload in a
 * loop would.
 *
 * usage: longtrace [-H] [-n EVENTS] [-r REPS] [-f CHUNK] [-l LEVEL] IN OUT
 *        longtrace -d FILE   (decode FILE: events, bytes/event, events/s)
 * -H makes it hostile to a replayer that plans in a window: the driver
 * opens /iotape-hostile before everything and never closes it, and a
 * thread of the driver reads it after everything else, so the last event
 * depends on the first.
 * Stops after EVENTS events in all (driver calls counted) or after REPS
 * repetitions, whichever comes first (default: one repetition).  The
 * first N events of a longer output are those of a shorter one.
 * Paths under /proc, /sys and /dev are kept as they are.
 */
#include <asm/unistd_64.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iotape.h"

#define DRIVER_PID 100
#define ID_BASE 1000
#define REP_GAP_NS 1000000LL	/* between two repetitions */

/* Recorded pids and tids, numbered densely on a first pass. */
struct ids {
	int32_t *k;
	uint32_t cap, n;
};

static uint32_t id_slot(const struct ids *m, int32_t id)
{
	uint32_t h = (uint32_t)id * 2654435761u;

	for (h &= m->cap - 1; m->k[h] && m->k[h] != id; h = (h + 1) & (m->cap - 1))
		;
	return h;
}

static int id_add(struct ids *m, int32_t id)
{
	if (id <= 0)
		return 0;
	if ((m->n + 1) * 2 > m->cap) {
		struct ids g = { calloc(m->cap ? m->cap * 2 : 1024, sizeof(int32_t)),
				 m->cap ? m->cap * 2 : 1024, 0 };
		uint32_t i;

		if (!g.k)
			return -ENOMEM;
		for (i = 0; i < m->cap; i++)
			if (m->k[i])
				g.k[id_slot(&g, m->k[i])] = m->k[i], g.n++;
		free(m->k);
		*m = g;
	}
	if (!m->k[id_slot(m, id)]) {
		m->k[id_slot(m, id)] = id;
		m->n++;
	}
	return 0;
}

struct gen {
	struct ids ids;
	int32_t *dense;			/* slot -> dense number */
	uint64_t rep;
	int64_t shift;			/* time shift of this repetition */
	uint64_t ev_base;		/* output index of its first recorded event */
	char prefix[64];
	size_t plen;
	char *buf[4];			/* rewritten strings */
	size_t bufcap[4];
};

static int32_t map_id(const struct gen *g, int64_t id)
{
	uint32_t s;

	if (id <= 0 || id > INT32_MAX || !g->ids.cap)
		return (int32_t)id;
	s = id_slot(&g->ids, (int32_t)id);
	if (!g->ids.k[s])
		return (int32_t)id;
	return (int32_t)(ID_BASE + g->rep * g->ids.n + (uint64_t)g->dense[s]);
}

static int pseudo(const char *p, uint32_t n)
{
	static const char *const pre[] = { "/proc", "/sys", "/dev" };
	size_t i, l;

	for (i = 0; i < 3; i++) {
		l = strlen(pre[i]);
		if (n >= l && !memcmp(p, pre[i], l) && (n == l || p[l] == '/'))
			return 1;
	}
	return 0;
}

/* @s moved into this repetition's subtree (in buffer @slot). */
static const char *move_path(struct gen *g, int slot, const char *s, uint32_t *n)
{
	if (!s || *n == 0 || s[0] != '/' || pseudo(s, *n))
		return s;
	if (g->plen + *n + 1 > g->bufcap[slot]) {
		g->bufcap[slot] = (g->plen + *n + 1) * 2;
		free(g->buf[slot]);
		g->buf[slot] = malloc(g->bufcap[slot]);
		if (!g->buf[slot]) {
			fprintf(stderr, "longtrace: out of memory\n");
			exit(1);
		}
	}
	memcpy(g->buf[slot], g->prefix, g->plen);
	memcpy(g->buf[slot] + g->plen, s, *n);
	*n += (uint32_t)g->plen;
	g->buf[slot][*n] = 0;
	return g->buf[slot];
}

static int is_spawn_or_wait(int nr)
{
	return nr == __NR_clone || nr == __NR_clone3 || nr == __NR_fork ||
	       nr == __NR_vfork || nr == __NR_wait4 || nr == __NR_waitid;
}

static void move_event(struct gen *g, struct iot_event *e)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(e->nr);
	uint32_t a;

	e->t_enter += g->shift;
	e->t_exit += g->shift;
	e->pid = map_id(g, e->pid);
	e->tid = map_id(g, e->tid);
	if (is_spawn_or_wait(e->nr) && e->ret > 0)
		e->ret = map_id(g, e->ret);
	for (a = 0; sc && a < sc->nargs && a < e->nargs; a++)
		if (sc->arg[a] == IOT_ARG_PID && e->args[a] > 0)
			e->args[a] = map_id(g, e->args[a]);
	e->path = move_path(g, 0, e->path, &e->path_len);
	e->path2 = move_path(g, 1, e->path2, &e->path2_len);
}

static void move_item(struct gen *g, struct iot_item *it)
{
	switch (it->kind) {
	case IOT_ITEM_EVENT:
		move_event(g, &it->u.ev);
		break;
	case IOT_ITEM_PATH_STATE: {
		struct iot_path_state *ps = &it->u.ps;

		ps->t_ns += g->shift;
		ps->path = move_path(g, 0, ps->path, &ps->path_len);
		ps->target = move_path(g, 1, ps->target, &ps->target_len);
		if (ps->ino)
			ps->ino += g->rep << 40;
		break;
	}
	case IOT_ITEM_PROCESS: {
		struct iot_process *p = &it->u.proc;

		p->t_ns += g->shift;
		if (p->kind == IOT_PROC_START) {
			/* the driver forked it */
			p->kind = IOT_PROC_FORK;
			p->ppid = p->ptid = DRIVER_PID;
			p->clone_flags = 17;	/* SIGCHLD */
		} else {
			p->ppid = map_id(g, p->ppid);
			p->ptid = map_id(g, p->ptid);
		}
		p->pid = map_id(g, p->pid);
		p->tid = map_id(g, p->tid);
		p->old_tid = map_id(g, p->old_tid);
		p->cwd = move_path(g, 0, p->cwd, &p->cwd_len);
		p->exe = move_path(g, 1, p->exe, &p->exe_len);
		break;
	}
	case IOT_ITEM_AIO: {
		struct iot_aio *a = &it->u.aio;

		a->t_ns += g->shift;
		a->event += g->ev_base;
		a->pid = map_id(g, a->pid);
		a->tid = map_id(g, a->tid);
		a->path = move_path(g, 0, a->path, &a->path_len);
		a->path2 = move_path(g, 1, a->path2, &a->path2_len);
		break;
	}
	case IOT_ITEM_MPAGES: {
		struct iot_mpages *m = &it->u.mp;

		m->t_ns += g->shift;
		m->event += g->ev_base;
		m->pid = map_id(g, m->pid);
		m->tid = map_id(g, m->tid);
		m->path = move_path(g, 0, m->path, &m->path_len);
		break;
	}
	}
}

static int driver_start(struct iot_writer *w, int64_t t)
{
	static const char *const argv[] = { "sh", "-c", "while :; do workload; done" };
	static const uint32_t lens[] = { 2, 2, 26 };
	struct iot_process p;

	memset(&p, 0, sizeof(p));
	p.kind = IOT_PROC_START;
	p.t_ns = t;
	p.pid = p.tid = DRIVER_PID;
	p.argc = 3;
	p.argv = argv;
	p.argv_len = lens;
	p.cwd = "/";
	p.cwd_len = 1;
	p.exe = "/bin/sh";
	p.exe_len = 7;
	return iot_writer_process(w, &p);
}

static int driver_call(struct iot_writer *w, int nr, int64_t t0, int64_t t1,
		       int64_t ret)
{
	struct iot_event e;

	memset(&e, 0, sizeof(e));
	e.t_enter = t0;
	e.t_exit = t1;
	e.pid = e.tid = DRIVER_PID;
	e.nr = nr;
	e.ret = ret;
	e.nargs = nr == __NR_clone ? 5 : 4;
	e.args[0] = nr == __NR_clone ? 17 /* SIGCHLD */ : ret;
	return iot_writer_event(w, &e);
}

#define HOSTILE_PATH "/iotape-hostile"
#define HOSTILE_TID (DRIVER_PID + 1)
#define HOSTILE_FD 3
#define HOSTILE_SIZE 4096
#define THREAD_FLAGS 0x3d0f00	/* what pthread_create gives clone */

/* The driver opens the file, then starts the thread that will read it. */
static int hostile_start(struct iot_writer *w, int64_t t)
{
	struct iot_path_state ps;
	struct iot_process p;
	struct iot_event e;
	int err;

	memset(&ps, 0, sizeof(ps));
	ps.path = HOSTILE_PATH;
	ps.path_len = sizeof(HOSTILE_PATH) - 1;
	ps.type = 0100000;
	ps.size = HOSTILE_SIZE;
	ps.mode = 0644;
	ps.nlink = 1;
	ps.t_ns = t;
	if ((err = iot_writer_path_state(w, &ps)))
		return err;
	memset(&e, 0, sizeof(e));
	e.t_enter = t;
	e.t_exit = t + 5000;
	e.pid = e.tid = DRIVER_PID;
	e.nr = __NR_openat;
	e.ret = HOSTILE_FD;
	e.nargs = 4;
	e.args[0] = -100;	/* AT_FDCWD */
	e.path = HOSTILE_PATH;
	e.path_len = sizeof(HOSTILE_PATH) - 1;
	if ((err = iot_writer_event(w, &e)))
		return err;
	memset(&p, 0, sizeof(p));
	p.kind = IOT_PROC_THREAD;
	p.t_ns = t + 10000;
	p.pid = DRIVER_PID;
	p.tid = HOSTILE_TID;
	p.ppid = p.ptid = DRIVER_PID;
	p.clone_flags = THREAD_FLAGS;
	if ((err = iot_writer_process(w, &p)))
		return err;
	memset(&e, 0, sizeof(e));
	e.t_enter = t + 6000;
	e.t_exit = t + 12000;
	e.pid = e.tid = DRIVER_PID;
	e.nr = __NR_clone;
	e.ret = HOSTILE_TID;
	e.nargs = 5;
	e.args[0] = THREAD_FLAGS;
	return iot_writer_event(w, &e);
}

/* The thread reads the file the first event opened. */
static int hostile_end(struct iot_writer *w, int64_t t)
{
	struct iot_event e;

	memset(&e, 0, sizeof(e));
	e.t_enter = t;
	e.t_exit = t + 3000;
	e.pid = DRIVER_PID;
	e.tid = HOSTILE_TID;
	e.nr = __NR_read;
	e.ret = HOSTILE_SIZE;
	e.nargs = 3;
	e.args[0] = HOSTILE_FD;
	e.args[2] = HOSTILE_SIZE;
	e.path = HOSTILE_PATH;
	e.path_len = sizeof(HOSTILE_PATH) - 1;
	return iot_writer_event(w, &e);
}

static void usage(void)
{
	fprintf(stderr, "usage: longtrace [-H] [-n EVENTS] [-r REPS] [-f CHUNK] [-l LEVEL] IN OUT\n"
		"       longtrace -d FILE\n");
	exit(2);
}

/* Read every item of @path: how fast the format decodes on one core. */
static int decode(const char *path)
{
	struct iot_reader *r;
	struct iot_item it;
	uint64_t events = 0;
	int64_t t0;
	int rc;

	if ((rc = iot_reader_open(&r, path))) {
		fprintf(stderr, "longtrace: %s: %s\n", path, iot_strerror(rc));
		return 1;
	}
	t0 = iot_now_ns();
	while ((rc = iot_reader_next(r, &it)) > 0)
		events += it.kind == IOT_ITEM_EVENT;
	t0 = iot_now_ns() - t0;
	printf("events=%llu bytes_per_event=%.2f decode_events_per_s=%.0f\n",
	       (unsigned long long)events,
	       events ? (double)iot_reader_summary(r)->file_size / (double)events : 0.0,
	       t0 > 0 ? (double)events * 1e9 / (double)t0 : 0.0);
	iot_reader_close(r);
	return rc < 0;
}

int main(int argc, char **argv)
{
	struct iot_writer_opts wo = { 0 };
	uint64_t want = UINT64_MAX, reps = 1, in_events = 0, out = 0, k;
	struct iot_reader *r = NULL;
	struct iot_writer *w = NULL;
	struct iot_header h;
	struct iot_item it;
	struct gen g;
	int64_t t_min = INT64_MAX, t_max = INT64_MIN, period;
	int c, rc, err = 0, hostile = 0;
	uint32_t i, d;

	memset(&g, 0, sizeof(g));
	while ((c = getopt(argc, argv, "Hd:n:r:f:l:")) != -1) {
		switch (c) {
		case 'H': hostile = 1; break;
		case 'd': return decode(optarg);
		case 'n': want = strtoull(optarg, NULL, 0); reps = UINT64_MAX; break;
		case 'r': reps = strtoull(optarg, NULL, 0); break;
		case 'f': wo.flush_events = (uint32_t)atoi(optarg); break;
		case 'l': wo.level = atoi(optarg); break;
		default: usage();
		}
	}
	if (argc - optind != 2)
		usage();
	wo.flush_ms = (uint32_t)-1;	/* chunks by count: the output is the same every time */
	if ((err = iot_reader_open(&r, argv[optind])))
		goto fail;
	/* first pass: every pid and tid, and the time span */
	while ((rc = iot_reader_next(r, &it)) > 0) {
		if (it.kind == IOT_ITEM_EVENT) {
			const struct iot_event *e = &it.u.ev;

			in_events++;
			if (e->t_enter < t_min)
				t_min = e->t_enter;
			if (e->t_exit > t_max)
				t_max = e->t_exit;
			if ((err = id_add(&g.ids, e->pid)) || (err = id_add(&g.ids, e->tid)))
				goto fail;
			if (is_spawn_or_wait(e->nr) && e->ret > 0 && e->ret <= INT32_MAX &&
			    (err = id_add(&g.ids, (int32_t)e->ret)))
				goto fail;
		} else if (it.kind == IOT_ITEM_PROCESS) {
			const struct iot_process *p = &it.u.proc;

			if ((err = id_add(&g.ids, p->pid)) || (err = id_add(&g.ids, p->tid)) ||
			    (err = id_add(&g.ids, p->ppid)) || (err = id_add(&g.ids, p->ptid)))
				goto fail;
		}
	}
	if (rc < 0 || !in_events) {
		err = rc < 0 ? rc : IOT_E_EMPTY;
		goto fail;
	}
	g.dense = calloc(g.ids.cap, sizeof(*g.dense));
	if (!g.dense) {
		err = -ENOMEM;
		goto fail;
	}
	for (i = 0, d = 0; i < g.ids.cap; i++)
		if (g.ids.k[i])
			g.dense[i] = (int32_t)d++;
	period = t_max - t_min + REP_GAP_NS;
	h = *iot_reader_header(r);
	h.n_syscalls = 0;
	h.syscalls = NULL;
	if ((err = iot_writer_open(&w, argv[optind + 1], &h, &wo)))
		goto fail;
	if ((err = driver_start(w, t_min - REP_GAP_NS)))
		goto fail;
	if (hostile && (err = hostile_start(w, t_min - REP_GAP_NS + 1000)))
		goto fail;
	for (k = 0; k < reps && out < want; k++) {
		int root = 0;
		int64_t t0 = t_min + (int64_t)k * period - REP_GAP_NS / 2;

		g.rep = k;
		g.shift = (int64_t)k * period;
		g.plen = (size_t)snprintf(g.prefix, sizeof(g.prefix), "/iotape-rep.%llu",
					  (unsigned long long)k);
		if ((err = iot_reader_rewind(r)))
			goto fail;
		/* the driver's clone: its result is the root's pid, known
		 * from the first pass (the first START record's pid) */
		while ((rc = iot_reader_next(r, &it)) > 0 && !(it.kind == IOT_ITEM_PROCESS &&
								 it.u.proc.kind == IOT_PROC_START))
			;
		root = rc > 0 ? map_id(&g, it.u.proc.pid) : 0;
		if ((err = iot_reader_rewind(r)))
			goto fail;
		if (root > 0) {
			if ((err = driver_call(w, __NR_clone, t0, t0 + 20000, root)))
				goto fail;
			out++;
		}
		g.ev_base = out;
		while (out < want && (rc = iot_reader_next(r, &it)) > 0) {
			move_item(&g, &it);
			switch (it.kind) {
			case IOT_ITEM_EVENT:
				err = iot_writer_event(w, &it.u.ev);
				out++;
				break;
			case IOT_ITEM_PATH_STATE: err = iot_writer_path_state(w, &it.u.ps); break;
			case IOT_ITEM_PROCESS: err = iot_writer_process(w, &it.u.proc); break;
			case IOT_ITEM_AIO: err = iot_writer_aio(w, &it.u.aio); break;
			case IOT_ITEM_MPAGES: err = iot_writer_mpages(w, &it.u.mp); break;
			}
			if (err)
				goto fail;
		}
		if (rc < 0) {
			err = rc;
			goto fail;
		}
		if (root > 0 && out < want) {
			if ((err = driver_call(w, __NR_wait4, t0 + 20000,
					       t_max + g.shift + REP_GAP_NS / 4, root)))
				goto fail;
			out++;
		}
	}
	if (hostile && (err = hostile_end(w, t_max + (int64_t)k * period)))
		goto fail;
	err = iot_writer_close(w, 0);
	w = NULL;
	if (err)
		goto fail;
	iot_reader_close(r);
	return 0;
fail:
	fprintf(stderr, "longtrace: %s -> %s: %s\n", argv[optind],
		argc > optind + 1 ? argv[optind + 1] : "?", iot_strerror(err));
	if (w)
		iot_writer_abort(w);
	if (r)
		iot_reader_close(r);
	return 1;
}
