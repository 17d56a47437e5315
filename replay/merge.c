/*
 * merge.c - one profile from the profiles of many clients (--clients N,
 * iotape-mpi): every client's processes and calls, its pids moved apart
 * from the others', its times moved onto client 0's start.
 *
 * Why a pid offset and not a client field of its own: events name their
 * thread by pid and tid only, so N copies of one trace would otherwise
 * give N processes of one pid, which every reader (report per process,
 * phases, export) would take for one.  Client i's pids and tids are its
 * recorded ones plus i x RPL_CLIENT_PID_STRIDE (PID_MAX_LIMIT on 64-bit
 * Linux: no recorded pid reaches it), and the header says so
 * (replay.clients, replay.client_pid_stride): a reader of format 1.x
 * that knows nothing of clients reads the file as one workload of N times
 * the processes; one that knows splits it again (report --by client).
 *
 * Why times are moved: the clients start together on a barrier, but
 * under MPI on different hosts whose monotonic clocks have nothing in
 * common; each client's times are relative to its own start (its
 * header's start_ns), which the merge lays on client 0's.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "rpl.h"

static int32_t moved_pid(int32_t pid, int client)
{
	/* 0 and -1 mean "none" in Process records; keep them */
	return pid > 0 ? pid + client * RPL_CLIENT_PID_STRIDE : pid;
}

/* The header keys the whole run answers, not one client. */
static const char *const summed_keys[] = {
	"replay.elapsed_ns", "replay.df_used_bytes", "replay.mismatches", "replay.skipped",
	"replay.skipped_mmap", "replay.skipped_by",
	"replay.ordering_violations", "replay.prepare_ns", "replay.unhidden_ns",
	"replay.interrupted", "replay.failed", "replay.target_faults", "replay.clients",
	"replay.client_pid_stride",
};

static int is_summed(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(summed_keys) / sizeof(summed_keys[0]); i++)
		if (strcmp(key, summed_keys[i]) == 0)
			return 1;
	return 0;
}

#define MERGE_KV 64

static int merged_header(const struct iot_header *h0, const struct rpl_result *t, int n,
			 struct iot_kv *kv, char (*v)[32], char *faults, size_t flen,
			 char *why, size_t wlen)
{
	size_t i;
	int k = 0, stop = t->interrupted;

	for (i = 0; i < h0->n_extra && k < MERGE_KV - 16; i++)
		if (!is_summed(h0->extra[i].key))
			kv[k++] = h0->extra[i];
	snprintf(v[0], 32, "%lld", (long long)t->elapsed_ns);
	kv[k++] = (struct iot_kv){ "replay.elapsed_ns", v[0] };
	snprintf(v[1], 32, "%llu", (unsigned long long)t->df_used_bytes);
	kv[k++] = (struct iot_kv){ "replay.df_used_bytes", v[1] };
	snprintf(v[2], 32, "%llu", (unsigned long long)t->mismatches);
	kv[k++] = (struct iot_kv){ "replay.mismatches", v[2] };
	snprintf(v[3], 32, "%llu", (unsigned long long)(t->skipped -
		 t->skipped_by[RPL_SKIP_INTERRUPTED]));
	kv[k++] = (struct iot_kv){ "replay.skipped", v[3] };
	snprintf(v[10], 32, "%llu", (unsigned long long)t->skipped_by[RPL_SKIP_MMAP]);
	kv[k++] = (struct iot_kv){ "replay.skipped_mmap", v[10] };
	if (rpl_skipped_by(t, why, wlen))
		kv[k++] = (struct iot_kv){ "replay.skipped_by", why };
	snprintf(v[4], 32, "%llu", (unsigned long long)t->ordering_violations);
	kv[k++] = (struct iot_kv){ "replay.ordering_violations", v[4] };
	snprintf(v[5], 32, "%lld", (long long)t->prepare_ns);
	kv[k++] = (struct iot_kv){ "replay.prepare_ns", v[5] };
	snprintf(v[6], 32, "%lld", (long long)t->unhidden_ns);
	kv[k++] = (struct iot_kv){ "replay.unhidden_ns", v[6] };
	snprintf(v[7], 32, "%d", n);
	kv[k++] = (struct iot_kv){ "replay.clients", v[7] };
	snprintf(v[8], 32, "%d", RPL_CLIENT_PID_STRIDE);
	kv[k++] = (struct iot_kv){ "replay.client_pid_stride", v[8] };
	if (stop > 0) {
		snprintf(v[9], 32, "SIG%s", sigabbrev_np(stop));
		kv[k++] = (struct iot_kv){ "replay.interrupted", v[9] };
	}
	if (t->fault_stopped)
		kv[k++] = (struct iot_kv){ "replay.failed", t->fault };
	if (t->target_faults) {
		rpl_fault_counts(t, faults, flen);
		kv[k++] = (struct iot_kv){ "replay.target_faults", faults };
	}
	return k;
}

/* Each client's processes first (a reader meets them before the events
 * that need them), then the events of all, by entry time. */
struct src {
	struct iot_reader *r;
	int client;
	int64_t shift;
	int have;		/* an event waits in it */
	int written;		/* one of its events was written, as @last */
	uint64_t last;
	struct iot_item it;
};

/* A record of @s as the merged profile has it: its time on client 0's
 * clock, its process and thread moved apart from other clients'. */
static void move_ids(const struct src *s, int64_t *t, int32_t *pid, int32_t *tid)
{
	*t = iot_ns_add(*t, s->shift);
	*pid = moved_pid(*pid, s->client);
	*tid = moved_pid(*tid, s->client);
}

/* The next event of @s.  The async records and mapped pages met on the
 * way belong to the event of @s written last (a writer puts them right
 * after their event): written to @w as records of that event, when
 * @w is set and it was written. */
static int next_event(struct src *s, struct iot_writer *w)
{
	int rc = 0, err = 0;

	while (err == 0 && (rc = iot_reader_next(s->r, &s->it)) > 0) {
		if (s->it.kind == IOT_ITEM_EVENT)
			break;
		if (!w || !s->written)
			continue;
		if (s->it.kind == IOT_ITEM_AIO) {
			struct iot_aio a = s->it.u.aio;

			a.event = s->last;
			move_ids(s, &a.t_ns, &a.pid, &a.tid);
			err = iot_writer_aio(w, &a);
		} else if (s->it.kind == IOT_ITEM_MPAGES) {
			struct iot_mpages m = s->it.u.mp;

			m.event = s->last;
			move_ids(s, &m.t_ns, &m.pid, &m.tid);
			err = iot_writer_mpages(w, &m);
		}
	}
	if (err < 0)
		return err;
	s->have = rc > 0;
	return rc < 0 ? rc : 0;
}

static int copy_processes(struct src *s, struct iot_writer *w)
{
	struct iot_item it;
	int rc;

	while ((rc = iot_reader_next(s->r, &it)) > 0) {
		struct iot_process pr;

		if (it.kind != IOT_ITEM_PROCESS)
			continue;
		pr = it.u.proc;
		move_ids(s, &pr.t_ns, &pr.pid, &pr.tid);
		pr.ppid = moved_pid(pr.ppid, s->client);
		pr.ptid = moved_pid(pr.ptid, s->client);
		pr.old_tid = moved_pid(pr.old_tid, s->client);
		rc = iot_writer_process(w, &pr);
		if (rc < 0)
			return rc;
	}
	if (rc < 0)
		return rc;
	return iot_reader_rewind(s->r);
}

static int copy_events(struct src *s, int n, struct iot_writer *w)
{
	int i, err;

	for (i = 0; i < n; i++)
		if ((err = next_event(&s[i], NULL)) < 0)
			return err;
	for (;;) {
		struct src *best = NULL;
		struct iot_event ev;

		for (i = 0; i < n; i++)
			if (s[i].have && (!best || iot_ns_add(s[i].it.u.ev.t_enter, s[i].shift) <
					  iot_ns_add(best->it.u.ev.t_enter, best->shift)))
				best = &s[i];
		if (!best)
			return 0;
		ev = best->it.u.ev;
		ev.t_enter = iot_ns_add(ev.t_enter, best->shift);
		ev.t_exit = iot_ns_add(ev.t_exit, best->shift);
		ev.pid = moved_pid(ev.pid, best->client);
		ev.tid = moved_pid(ev.tid, best->client);
		err = iot_writer_event(w, &ev);
		best->written = 1;
		best->last = iot_writer_events(w) - 1;
		if (err == 0)
			err = next_event(best, w);
		if (err < 0)
			return err;
	}
}

int rpl_profiles_merge(const char *out, struct iot_reader **in, int n,
		       const struct rpl_result *total, const char *cmd)
{
	struct src *s = calloc((size_t)n + 1, sizeof(*s));
	const struct iot_header *h0 = NULL;
	struct iot_writer *w = NULL;
	struct iot_writer_opts wo = { .background = 1 };
	struct iot_header h;
	struct iot_kv kv[MERGE_KV];
	char v[11][32], faults[256], why[512];
	int i, ns = 0, err;

	if (!s) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct iot_header *hi;

		if (!in[i])
			continue;	/* that client made no profile */
		hi = iot_reader_header(in[i]);
		if (!h0)
			h0 = hi;
		s[ns].r = in[i];
		s[ns].client = i;
		/* 0 for clients of one host started together, but for the
		 * few microseconds the barrier let between them */
		s[ns].shift = h0->start_ns && hi->start_ns ? iot_ns_sub(h0->start_ns, hi->start_ns) : 0;
		ns++;
	}
	if (!h0) {
		iot_err(cmd, "%s: no client made a profile; nothing to write", out);
		err = -ENODATA;
		goto out;
	}
	h = *h0;
	h.n_syscalls = 0;
	h.syscalls = NULL;		/* the writer adds its own table */
	h.extra = kv;
	h.n_extra = (size_t)merged_header(h0, total, n, kv, v, faults, sizeof(faults),
						    why, sizeof(why));
	/* compressing in the writer's thread while this one decodes the
	 * clients' files: the merge comes after the run, and 8 clients of
	 * a 141,000-call trace took 3 s of it on one thread */
	err = iot_writer_open(&w, out, &h, &wo);
	for (i = 0; i < ns && err == 0; i++)
		err = copy_processes(&s[i], w);
	if (err == 0)
		err = copy_events(s, ns, w);
	if (err == 0) {
		err = iot_writer_close(w, 0);
		w = NULL;
	}
	if (err < 0)
		iot_err(cmd, "%s: cannot write the profile of the %d clients: %s; check the path "
			"and free space", out, n, iot_strerror(err));
out:
	if (w)
		iot_writer_abort(w);
	free(s);
	return err;
}

/* The sums of the clients' results, what the summary and the exit status
 * of the whole run come from.  Latency quantiles: the largest of the
 * clients' (a bound, not a quantile of the union). */
void rpl_result_add(struct rpl_result *t, const struct rpl_result *r, int client)
{
	int i;

	t->prepare_ns = r->prepare_ns > t->prepare_ns ? r->prepare_ns : t->prepare_ns;
	t->elapsed_ns = r->elapsed_ns > t->elapsed_ns ? r->elapsed_ns : t->elapsed_ns;
	t->ops += r->ops;
	t->replayed += r->replayed;
	t->skipped += r->skipped;
	for (i = 0; i < RPL_SKIP_COUNT; i++)
		t->skipped_by[i] += r->skipped_by[i];
	t->mismatches += r->mismatches;
	t->probe_diffs += r->probe_diffs;
	t->ordering_violations += r->ordering_violations;
	t->deadlock_breaks += r->deadlock_breaks;
	t->mmap_calls += r->mmap_calls;
	t->fd_links += r->fd_links;
	t->fifo_alone += r->fifo_alone;
	t->creds = r->creds > t->creds ? r->creds : t->creds;
	t->creds_threads += r->creds_threads;
	t->creds_calls += r->creds_calls;
	t->creds_not_taken += r->creds_not_taken;
	t->subvols_made += r->subvols_made;
	t->subvols_emulated += r->subvols_emulated;
	t->subvols_rdonly += r->subvols_rdonly;
	if (r->umask_on && !t->umask_on) {
		t->umask_known = r->umask_known;
		t->umask0 = r->umask0;
	}
	t->umask_on |= r->umask_on;
	t->umask_calls += r->umask_calls;
	t->umask_not_taken += r->umask_not_taken;
	t->threads += r->threads;
	t->processes += r->processes;
#define MAX_OF(f) (t->f = r->f > t->f ? r->f : t->f)
	MAX_OF(first_call_ns);
	MAX_OF(late_p50_ns);
	MAX_OF(late_p99_ns);
	MAX_OF(late_max_ns);
	MAX_OF(unhidden_max_ns);
	MAX_OF(df_used_bytes);
	MAX_OF(root_free_bytes);
#undef MAX_OF
	t->unhidden_ns += r->unhidden_ns;
#define SUM(f) (t->f += r->f)
	SUM(aio_requests);
	SUM(aio_replayed);
	SUM(aio_skipped);
	SUM(aio_mismatches);
	SUM(aio_rec_completions);
	SUM(aio_completions);
	SUM(aio_rbytes);
	SUM(aio_wbytes);
	SUM(aio_rec_area);
	SUM(aio_rpl_area);
	SUM(aio_rec_span_ns);
	SUM(aio_rpl_span_ns);
	SUM(aio_waits_rec);
	SUM(aio_waits_rec_depth);
	SUM(aio_waits_rpl);
	SUM(aio_waits_rpl_depth);
	SUM(aio_waits_below);
	SUM(mp_records);
	SUM(mp_rbytes);
	SUM(mp_wbytes);
	SUM(mp_skipped);
	SUM(mp_skipped_bytes);
#undef SUM
	t->aio_skip_ops |= r->aio_skip_ops;
	t->uring_skip_ops |= r->uring_skip_ops;
	t->prep_dirs += r->prep_dirs;
	t->prep_files += r->prep_files;
	t->prep_kept += r->prep_kept;
	t->prep_xattrs += r->prep_xattrs;
	t->prep_xattrs_not += r->prep_xattrs_not;
	t->prep_attr_flags += r->prep_attr_flags;
	t->prep_attr_flags_not += r->prep_attr_flags_not;
	t->prep_devs += r->prep_devs;
	t->prep_devs_nodrv += r->prep_devs_nodrv;
	t->prep_devs_not += r->prep_devs_not;
	t->walk_opens += r->walk_opens;
	t->walk_back += r->walk_back;
	t->walk_dirs += r->walk_dirs;
	t->walk_moved += r->walk_moved;
	t->listings_reordered += r->listings_reordered;
	t->listing_calls += r->listing_calls;
	t->listings_differ += r->listings_differ;
	t->prep_links += r->prep_links;
	t->prep_symlinks += r->prep_symlinks;
	t->prep_bytes += r->prep_bytes;
	t->tree_bytes += r->tree_bytes;
	t->tree_copies++;	/* a tree per client */
	t->damaged |= r->damaged;
	if (!t->open_err)
		t->open_err = r->open_err;
	if (!t->interrupted)
		t->interrupted = r->interrupted;
	t->target_faults += r->target_faults;
	for (i = 0; i < RPL_FAULT_KINDS; i++)
		t->target_by[i] += r->target_by[i];
	if (r->fault[0] && !t->fault[0]) {
		snprintf(t->fault, sizeof(t->fault), "client %d: %.300s", client, r->fault);
		t->fault_errno = r->fault_errno;
	}
	t->fault_stopped |= r->fault_stopped;
	t->fault_unmounted |= r->fault_unmounted;
	t->tree_too_big |= r->tree_too_big;
	t->tree_sparse |= r->tree_sparse;
	for (i = 0; i < RPL_MAX_NR; i++) {
		t->sc[i].ops += r->sc[i].ops;
		t->sc[i].replayed += r->sc[i].replayed;
		t->sc[i].skipped += r->sc[i].skipped;
		t->sc[i].mismatches += r->sc[i].mismatches;
		t->sc[i].probe_diffs += r->sc[i].probe_diffs;
		t->sc[i].unsupported += r->sc[i].unsupported;
		t->sc[i].time_ns += r->sc[i].time_ns;
	}
	for (i = 0; i < r->n_examples && t->n_examples < 8; i++)
		snprintf(t->examples[t->n_examples++], sizeof(t->examples[0]), "client %d: %.300s",
			 client, r->examples[i]);
}
