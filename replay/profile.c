/*
 * profile.c - after the run: count results (verify), and write the
 * profile: the replayed events with measured times and real results,
 * the trace's Process records moved onto the replay's clock, and a
 * header naming the filesystem under test.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "rpl.h"
#include "think.h"

#define FICLONE_REQ 0x40049409UL
#define FIEMAP_REQ 0xc020660bUL		/* FS_IOC_FIEMAP */

/* Results that depend on what the filesystem can do, not on the replay:
 * of the calls that may ask (IOT_SCF_PROBE), an ioctl asks by its request
 * (a clone; where a file's data lies, which tmpfs does not say: mandb's
 * 351 EOPNOTSUPP replaying onto tmpfs were mismatches), a fallocate by
 * its mode; a copy's answer is EXDEV or EOPNOTSUPP, on either side.  An
 * attribute flag the filesystem does not have (chattr +C, btrfs's
 * no-copy-on-write, on tmpfs or ext4) is refused with EOPNOTSUPP: that
 * answer too, on either side, where the flags were set.  So is an
 * extended attribute's call (set, get, remove) answered EOPNOTSUPP: the
 * filesystem has no such namespace (btrfs.* on tmpfs, user.* where it is
 * not taken). */
static int is_probe(const struct rpl_op *op, int64_t b)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);
	int64_t a = op->ev.ret;
	int i;

	if (sc && sc->cls == IOT_CLASS_XATTR)
		return a == -EOPNOTSUPP || b == -EOPNOTSUPP;
	if (!sc || !(sc->flags & IOT_SCF_PROBE))
		return 0;
	if ((i = iot_syscall_arg(sc, IOT_ARG_IOCTL_REQ)) >= 0 &&
	    iot_ioctl_flags((uint32_t)op->ev.args[i]))
		return a == -EOPNOTSUPP || b == -EOPNOTSUPP;
	if (i >= 0)
		return (unsigned long)op->ev.args[i] == FICLONE_REQ ||
		       (uint32_t)op->ev.args[i] == IOT_FICLONERANGE ||
		       (unsigned long)op->ev.args[i] == FIEMAP_REQ;
	if ((i = iot_syscall_arg(sc, IOT_ARG_FALLOC_MODE)) >= 0)
		return op->ev.args[i] != 0;
	return a == -EXDEV || a == -EOPNOTSUPP || b == -EXDEV || b == -EOPNOTSUPP;
}

static int differs(const struct rpl_op *op, int64_t b)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);
	int64_t a = op->ev.ret;

	if ((a < 0) != (b < 0))
		return 1;
	if (a < 0)
		return a != b;
	return sc && (sc->flags & IOT_SCF_COUNT) && a != b;
}

static void example(const struct rpl_plan *p, const struct rpl_op *op, int64_t r_ret,
		    struct rpl_result *res)
{
	char line[256], got[48];
	const char *e;

	if (res->n_examples >= (int)(sizeof(res->examples) / sizeof(res->examples[0])))
		return;
	{
		struct iot_event ev;

		rpl_ev_unpack(&ev, &op->ev, p->threads[op->thread].pid);
		iot_format_event(line, sizeof(line), &ev);
	}
	e = r_ret < 0 ? iot_errno_name((int)-r_ret) : NULL;
	if (e)
		snprintf(got, sizeof(got), "-1 %s", e);
	else
		snprintf(got, sizeof(got), "%lld", (long long)r_ret);
	snprintf(res->examples[res->n_examples++], sizeof(res->examples[0]),
		 "%s, replayed: %s", line, got);
}

/* What the tally judges a call with (rpl_judge_fn). */
struct tally {
	struct rpl_plan *p;
	struct rpl_result *res;
};

/* @op returned @ret here: a mismatch, a capability probe that differed,
 * or neither. */
static void judge(void *arg, struct rpl_op *op, int64_t ret)
{
	struct tally *ty = arg;
	struct rpl_result *res = ty->res;
	struct rpl_sc_stat dummy, *sc = op->ev.nr >= 0 && op->ev.nr < RPL_MAX_NR ?
					 &res->sc[op->ev.nr] : &dummy;

	if (!differs(op, ret))
		return;
	if (rpl_fault_of(op, ret) >= 0) {
		/* a target fault: a mismatch too (--verify), and
		 * counted apart from the others */
		res->target_faults++;
		res->target_by[rpl_fault_of(op, ret)]++;
	}
	if (is_probe(op, ret)) {
		op->rflags |= RPL_OPF_PROBE;
		res->probe_diffs++;
		sc->probe_diffs++;
	} else {
		op->rflags |= RPL_OPF_MISMATCH;
		res->mismatches++;
		sc->mismatches++;
		example(ty->p, op, ret, res);
	}
}

int rpl_tally(struct rpl_plan *p, struct rpl_result *res)
{
	struct tally ty = { p, res };
	struct rpl_listings *ls = rpl_listings_new(judge, &ty);
	struct rpl_outs *m;
	struct rpl_outcome oc;
	struct rpl_op *op;
	size_t i;
	int err = rpl_outs_open(p, 0, &m);

	while (err == 0 && (err = rpl_outs_next(m, &op, &oc)) > 0) {
		struct rpl_sc_stat dummy, *sc = op->ev.nr >= 0 && op->ev.nr < RPL_MAX_NR ?
						 &res->sc[op->ev.nr] : &dummy;
		/* a getdents is judged with its listing (listings.c) */
		int held = rpl_listings_op(ls, p, op, oc.ret);

		err = 0;
		res->ops++;
		sc->ops++;
		if (op->rflags & RPL_OPF_VIOLATION)
			res->ordering_violations++;
		if (op->skip) {
			res->skipped++;
			res->skipped_by[op->skip < RPL_SKIP_COUNT ? op->skip : 0]++;
			sc->skipped++;
			if (op->skip == RPL_SKIP_UNSUPPORTED)
				sc->unsupported++;
			if (op->ev.nr == SYS_mmap && op->skip == RPL_SKIP_MMAP &&
			    !(op->ev.args[3] & MAP_ANONYMOUS) && (int32_t)op->ev.args[4] >= 0)
				res->mmap_calls++;
			continue;
		}
		res->replayed++;
		sc->replayed++;
		sc->time_ns += oc.exit - oc.enter;
		if (p->o->starts && (op->ev.nr == SYS_execve || op->ev.nr == SYS_execveat) &&
		    op->ev.ret == 0) {
			res->starts++;
			res->starts_ns += oc.exit - oc.enter;
		}
		if (!held)
			judge(&ty, op, oc.ret);
	}
	rpl_listings_end(ls, res);
	rpl_outs_close(m);
	if (err < 0)
		iot_err(p->o->cmd, "cannot keep or read back what the replayed calls returned: "
			"%s; it takes 24 bytes a call beside the profile (-o), else in $TMPDIR "
			"or /tmp: free space there", iot_strerror(err));
	rpl_late_result(p, res->replayed, res);
	res->spin_yields = atomic_load(&p->spin_yields);
	for (i = 0; i < p->n_threads; i++) {
		res->unhidden_ns += p->threads[i].lag_ns;
		res->spun_ns += p->threads[i].spun_ns;
		res->spin_wall_ns += p->threads[i].spin_wall_ns;
		res->spin_offcpu_ns += p->threads[i].offcpu_ns;
		res->think_wait_ns += p->threads[i].think_wait_ns;
		res->dep_waits += p->threads[i].dep_waits;
		res->dep_wait_ns += p->threads[i].dep_wait_ns;
		res->wake_lag_waits += p->threads[i].wake_lag_waits;
		res->wake_lag_ns += p->threads[i].wake_lag_ns;
		res->walk_opens += p->threads[i].walk_opens;
		res->walk_back += p->threads[i].walk_back;
		res->walk_dirs += p->threads[i].walk_dirs;
		res->walk_moved += p->threads[i].walk_moved;
		res->walk_runs += p->threads[i].walk_runs;
		res->walk_run_moved += p->threads[i].walk_run_moved;
		if (p->threads[i].lag_ns > res->unhidden_max_ns)
			res->unhidden_max_ns = p->threads[i].lag_ns;
	}
	rpl_aio_tally(p, res);
	/* an async request's result that differs is a mismatch too */
	res->mismatches += res->aio_mismatches;
	rpl_mpages_tally(p, res);
	res->threads = p->n_threads;
	res->processes = p->n_procs;
	res->waits_slept = atomic_load(&p->waits_slept);
	res->waits_left = atomic_load(&p->waits_left);
	res->waits_ns = (int64_t)atomic_load(&p->waits_ns);
	res->waits_polled = atomic_load(&p->waits_polled);
	res->waits_polled_ns = (int64_t)atomic_load(&p->waits_polled_ns);
	res->think_ns = p->think_ns;
	res->think_cut_ns = p->think_cut_ns;
	res->gap_sleeps = atomic_load(&p->gap_sleeps);
	res->data_ops = p->data_ops;
	res->data_bytes = p->data_bytes;
	res->nodata_ops = p->nodata_ops;
	res->gap_slept_ns = (int64_t)atomic_load(&p->gap_slept_ns);
	res->forks_only = p->forks_only;
	res->wakes = p->wakes;
	res->call_wakes = p->call_wakes;
	res->gap_wakes = p->gap_wakes;
	res->gap_wakes_new = p->gap_wakes_new;
	res->idle_wakes = p->idle_wakes;
	res->idle_kept_ns = p->idle_kept_ns;
	res->wake_lags = p->wake_lags;
	res->wake_lag_scaled = p->wake_lag_mode == RPL_WAKE_LAG_SCALED;
	res->poll_loops = p->poll_loops;
	res->poll_rounds = p->poll_rounds;
	res->poll_cut = atomic_load(&p->polls_cut);
	res->poll_cut_ns = (int64_t)atomic_load(&p->polls_cut_ns);
	res->start_fails = atomic_load(&p->start_fails);
	res->exits = atomic_load(&p->exits);
	res->exits_ns = (int64_t)atomic_load(&p->exits_ns);
	res->pipe_gaveup = atomic_load(&p->pipe_gaveup);
	res->conn_gaveup = atomic_load(&p->conn_gaveup);
	res->fd_links = atomic_load(&p->fd_links);
	res->fifo_alone = atomic_load(&p->fifo_alone);
	res->creds = p->creds;
	res->creds_threads = atomic_load(&p->creds_threads);
	res->creds_calls = atomic_load(&p->creds_calls);
	res->creds_not_taken = atomic_load(&p->creds_not_taken);
	res->subvols_made = atomic_load(&p->subvols_made);
	res->subvols_emulated = atomic_load(&p->subvols_emulated);
	res->subvols_rdonly = atomic_load(&p->subvols_rdonly);
	res->umask_on = p->umask_on;
	res->umask_known = p->umask_known;
	res->umask0 = p->umask0;
	res->umask_calls = atomic_load(&p->umask_calls_done);
	res->umask_not_taken = atomic_load(&p->umask_not_taken);
	res->damaged = p->damaged;
	{
		struct statvfs sv;

		if (p->root_fd >= 0 && fstatvfs(p->root_fd, &sv) == 0)
			res->df_used_bytes = (uint64_t)(sv.f_blocks - sv.f_bfree) * sv.f_frsize;
	}
	return err < 0 ? err : 0;
}

/* ---- the filesystem under test ---- */

struct target {
	char fstype[64], device[256], mountpoint[PATH_MAX], options[512];
};

/* The mount holding the root, from /proc/self/mountinfo: the longest
 * mount point that is a prefix of the root's real path, preferring one of
 * the same device.  btrfs reports an anonymous st_dev that matches no
 * line of mountinfo, hence the fallback on the prefix alone. */
static void find_mount(const char *root, struct target *t)
{
	char real[PATH_MAX], line[8192];
	size_t best = 0;
	int best_dev = 0;
	struct stat st;
	FILE *f;

	memset(t, 0, sizeof(*t));
	if (!realpath(root, real) || stat(real, &st) < 0)
		return;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char mp[PATH_MAX], opts[256], fstype[64], src[256], super[255];
		unsigned int maj, min;
		const char *dash = strstr(line, " - ");
		size_t n;
		int dev;

		if (!dash || sscanf(line, "%*d %*d %u:%u %*s %4095s %255s", &maj, &min, mp, opts) != 4)
			continue;
		if (sscanf(dash + 3, "%63s %255s %254s", fstype, src, super) != 3)
			continue;
		if (!rpl_prefix_match(real, mp))
			continue;
		dev = makedev(maj, min) == st.st_dev;
		n = strlen(mp);
		if (dev < best_dev || (dev == best_dev && n < best))
			continue;
		best = n;
		best_dev = dev;
		snprintf(t->fstype, sizeof(t->fstype), "%s", fstype);
		snprintf(t->device, sizeof(t->device), "%s", src);
		snprintf(t->mountpoint, sizeof(t->mountpoint), "%s", mp);
		snprintf(t->options, sizeof(t->options), "%s,%s", opts, super);
	}
	fclose(f);
}

/* ---- times of Process records on the replay clock ---- */

static const struct rpl_thread *thread_for(const struct rpl_plan *p, int32_t tid, int64_t t)
{
	const struct rpl_thread *best = NULL;
	size_t i;

	for (i = 0; i < p->n_threads; i++) {
		const struct rpl_thread *th = &p->threads[i];

		if (th->tid != tid || !th->n_ops)
			continue;
		if (!best || p->ops[th->ops[0]].ev.t_enter <= t)
			best = th;
	}
	return best;
}

static int64_t scaled(const struct rpl_plan *p, int64_t gap)
{
	return gap < 0 ? 0 : rpl_timed_ns(p->o, gap);
}

static int64_t map_time(const struct rpl_plan *p, const struct rpl_thread *th, int64_t t)
{
	struct rpl_outcome oc;
	uint32_t lo = 0, hi, k;

	if (!th)
		return p->t0;
	hi = th->n_ops;
	while (lo < hi) {		/* first op entered after t */
		uint32_t mid = (lo + hi) / 2;

		if (p->ops[th->ops[mid]].ev.t_enter <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return th->start_ns ? th->start_ns : p->t0;
	k = th->ops[lo - 1];
	if (rpl_outcome_at(p, th, lo - 1, &oc) < 0)
		oc.exit = 0;	/* unread: as if it did not run */
	return (oc.exit ? oc.exit : p->t0) + scaled(p, t - p->ops[k].ev.t_exit);
}

static int write_processes(struct rpl_plan *p, struct iot_writer *w)
{
	size_t i;
	int err = 0;

	/* Linear lookups per record: bounded by threads x records, which
	 * stays small next to the events for the workloads iotape records. */
	for (i = 0; i < p->n_precs && !err; i++) {
		struct iot_process pr = p->precs[i];
		const struct rpl_thread *th = thread_for(p, pr.tid, pr.t_ns);

		pr.t_ns = pr.kind == IOT_PROC_START ? p->t0 : map_time(p, th, pr.t_ns);
		if (pr.kind == IOT_PROC_EXIT && th) {
			pr.utime_ns = th->utime_ns;
			pr.stime_ns = th->stime_ns;
			/* When the replayed thread ended, not its last call plus
			 * the recorded gap: that gap is mostly the tracer's (du's
			 * exit_group to its exit record: 9 ms), and phases end
			 * with their processes. */
			if (th->end_ns)
				pr.t_ns = th->end_ns;
		}
		err = iot_writer_process(w, &pr);
	}
	return err;
}

/* The events in the order they started in the replay (an op that did
 * not run: at its start), then their position in the file. */
static int write_events(struct rpl_plan *p, struct iot_writer *w)
{
	struct rpl_outs *m;
	struct rpl_outcome oc;
	struct rpl_op *op;
	int err = rpl_outs_open(p, 1, &m);

	while (err == 0 && (err = rpl_outs_next(m, &op, &oc)) > 0) {
		struct iot_event ev;

		err = 0;
		if (op->skip == RPL_SKIP_INTERRUPTED)
			continue;	/* not reached: not in the profile */
		if (!oc.enter)
			oc.enter = oc.exit = p->t0;
		rpl_ev_unpack(&ev, &op->ev, p->threads[op->thread].pid);

		ev.t_enter = oc.enter;
		ev.t_exit = oc.exit >= oc.enter ? oc.exit : oc.enter;
		ev.ret = oc.ret;
		ev.pre_ns = 0;		/* the recording's, not the replay's */
		if (op->skip)
			ev.flags |= IOT_EV_REPLAY_SKIPPED;
		if (op->rflags & RPL_OPF_MISMATCH)
			ev.flags |= IOT_EV_REPLAY_MISMATCH;
		err = iot_writer_event(w, &ev);
		/* its async requests and mapped pages, after it as in a trace */
		if (!err)
			err = rpl_aio_profile(p, w, op, oc.enter, iot_writer_events(w) - 1);
		if (!err)
			err = rpl_mpages_profile(p, w, op, oc.exit, iot_writer_events(w) - 1);
	}
	rpl_outs_close(m);
	return err;
}

static void options_string(const struct rpl_plan *p, char *buf, size_t len)
{
	const struct rpl_opts *o = p->o;
	size_t i, n;

	if (o->timing == RPL_TIMING_SCALE)
		n = (size_t)snprintf(buf, len, "timing=scale=%g", o->scale);
	else
		n = (size_t)snprintf(buf, len, "timing=%s",
				     o->timing == RPL_TIMING_AFAP ? "afap" :
				     o->timing == RPL_TIMING_RAW ? "raw" : "original");
	n += (size_t)snprintf(buf + n, n < len ? len - n : 0,
			      " stop_cost_ns=%lld gap_p5_ns=%lld gap_cost_ns=%lld (subtracted from "
			      "each think-time gap next to a ptrace stop) fastpath_gap_p5_ns=%lld"
			      "%s%s", (long long)p->stop_cost_ns,
			      (long long)p->gap_floor_ns, (long long)p->gap_cost_ns,
			      (long long)p->fast_floor_ns,
			      o->verify ? " verify" : "", o->no_prepare ? " no-prepare" : "");
	if (p->held_floor_ns && n < len)
		n += (size_t)snprintf(buf + n, len - n, " held_gap_p5_ns=%lld (subtracted from "
				      "each gap before a call the bpf guard held, with its hold)",
				      (long long)p->held_floor_ns);
	if (p->bpf_floor_ns && rpl_bpf_gap_measured(p) >= 0 && n < len)
		n += (size_t)snprintf(buf + n, len - n, " bpf_gap_floor_ns=%lld (measured by the "
				      "recorder, record.bpf_gap_ns: what each gap between two bpf "
				      "calls lost, no more than the gap)",
				      (long long)p->bpf_floor_ns);
	else if (p->bpf_floor_ns && n < len)
		n += (size_t)snprintf(buf + n, len - n, " bpf_gap_floor_ns=%lld (the least "
				      "syscall's 5th percentile of the gaps between two bpf calls: "
				      "at most what each such gap lost)",
				      (long long)p->bpf_floor_ns);
	if (p->run_cost_ns && n < len)
		n += (size_t)snprintf(buf + n, len - n, " stop_run_ns=%lld (the CPU time a "
				      "stopped call's stops cost its thread, measured in the trace, "
				      "taken off its think-time budget)",
				      (long long)p->run_cost_ns);
	if (o->starts && n < len)
		n += (size_t)snprintf(buf + n, len - n, " starts=native");
	if (o->timing != RPL_TIMING_AFAP && n < len)
		n += (size_t)snprintf(buf + n, len - n, " think=%s",
				      o->think == RPL_THINK_CPU && o->timing != RPL_TIMING_RAW ?
				      "cpu" : "sleep");
	for (i = 0; i < o->n_include && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, " include=%s", o->include[i]);
	for (i = 0; i < o->n_exclude && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, " exclude=%s", o->exclude[i]);
}
size_t rpl_skipped_by(const struct rpl_result *res, char *buf, size_t len)
{
	size_t n = 0;
	int i, w;

	buf[0] = 0;
	for (i = 1; i < RPL_SKIP_COUNT; i++) {
		if (!res->skipped_by[i] || i == RPL_SKIP_INTERRUPTED)
			continue;
		w = snprintf(buf + n, len - n, "%s%s %llu", n ? ", " : "", rpl_skip_name(i),
			     (unsigned long long)res->skipped_by[i]);
		if (w < 0 || (size_t)w >= len - n) {
			buf[0] = 0;
			return 0;
		}
		n += (size_t)w;
	}
	return n;
}


int rpl_profile_write(struct rpl_plan *p, struct rpl_result *res)
{
	const struct iot_header *th = p->hdr;
	struct iot_header h = { 0 };
	struct iot_writer *w = NULL;
	struct target tg;
	struct timespec rt;
	char opts[1024], v[11][32], faults[256], why[512];
	struct iot_kv kv[16];
	int err, stop = atomic_load(&rpl_stop_sig), n_kv = 10;

	find_mount(p->o->root, &tg);
	options_string(p, opts, sizeof(opts));
	snprintf(v[0], sizeof(v[0]), "%lld", (long long)res->elapsed_ns);
	snprintf(v[1], sizeof(v[1]), "%llu", (unsigned long long)res->df_used_bytes);
	snprintf(v[2], sizeof(v[2]), "%llu", (unsigned long long)res->mismatches);
	/* the ops an interrupt kept from running are not in the profile */
	snprintf(v[3], sizeof(v[3]), "%llu", (unsigned long long)(res->skipped -
		 res->skipped_by[RPL_SKIP_INTERRUPTED]));
	snprintf(v[4], sizeof(v[4]), "%llu", (unsigned long long)res->ordering_violations);
	snprintf(v[5], sizeof(v[5]), "%lld", (long long)res->prepare_ns);
	kv[0] = (struct iot_kv){ "replay.elapsed_ns", v[0] };
	kv[1] = (struct iot_kv){ "replay.df_used_bytes", v[1] };
	kv[2] = (struct iot_kv){ "replay.mismatches", v[2] };
	kv[3] = (struct iot_kv){ "replay.skipped", v[3] };
	kv[4] = (struct iot_kv){ "replay.ordering_violations", v[4] };
	kv[5] = (struct iot_kv){ "replay.source", p->o->trace };
	kv[6] = (struct iot_kv){ "replay.prepare_ns", v[5] };
	snprintf(v[6], sizeof(v[6]), "%lld", (long long)res->unhidden_ns);
	kv[7] = (struct iot_kv){ "replay.unhidden_ns", v[6] };
	snprintf(v[8], sizeof(v[8]), "%lld", (long long)res->first_call_ns);
	kv[8] = (struct iot_kv){ "replay.first_call_ns", v[8] };
	/* of the skipped calls, the mappings (mmap, munmap): the pages they
	 * read and wrote are replayed all the same (mpages.c) */
	snprintf(v[10], sizeof(v[10]), "%llu", (unsigned long long)res->skipped_by[RPL_SKIP_MMAP]);
	kv[9] = (struct iot_kv){ "replay.skipped_mmap", v[10] };
	/* why the calls were skipped, as the summary gives it: "mmap 6,
	 * descriptor not replayed 10" ('report' and 'check' show it) */
	if (rpl_skipped_by(res, why, sizeof(why)))
		kv[n_kv++] = (struct iot_kv){ "replay.skipped_by", why };
	/* --events: the part of the trace replayed */
	if (res->events_in_trace) {
		snprintf(v[9], sizeof(v[9]), "%llu", (unsigned long long)p->o->max_events);
		kv[n_kv++] = (struct iot_kv){ "replay.events", v[9] };
	}
	if (stop > 0) {
		snprintf(v[7], sizeof(v[7]), "SIG%s", sigabbrev_np(stop));
		kv[n_kv++] = (struct iot_kv){ "replay.interrupted", v[7] };
	}
	/* a replay a target fault stopped, and the calls that failed so
	 * (fault.c): 'check' and 'report' show them */
	if (res->fault_stopped)
		kv[n_kv++] = (struct iot_kv){ "replay.failed", res->fault };
	if (res->target_faults) {
		rpl_fault_counts(res, faults, sizeof(faults));
		kv[n_kv++] = (struct iot_kv){ "replay.target_faults", faults };
	}
	h.kind = IOT_KIND_PROFILE;
	h.tool_version = IOT_VERSION;
	h.host = th->host;
	h.kernel = th->kernel;
	h.arch = th->arch;
	h.argc = th->argc;
	h.argv = th->argv;
	h.cwd = th->cwd;
	h.clock_id = CLOCK_MONOTONIC;
	clock_gettime(CLOCK_REALTIME, &rt);
	h.monotonic_ns = iot_now_ns();
	h.realtime_ns = rt.tv_sec * 1000000000LL + rt.tv_nsec;
	h.start_ns = p->t0;
	h.n_mounts = th->n_mounts;
	h.mounts = th->mounts;
	h.stop_cost_ns = 0;		/* replay times are measured directly */
	h.recorder = "iotape replay";
	h.target_fstype = tg.fstype;
	h.target_device = tg.device;
	h.target_mountpoint = tg.mountpoint;
	h.target_mount_options = tg.options;
	h.target_mkfs = p->o->mkfs;
	h.target_label = p->o->label;
	h.replay_options = opts;
	h.n_extra = (size_t)n_kv;
	h.extra = kv;
	err = iot_writer_open(&w, p->o->out, &h, NULL);
	if (err < 0)
		goto fail;
	err = write_processes(p, w);
	if (err == 0)
		err = write_events(p, w);
	if (err < 0) {
		iot_writer_abort(w);
		goto fail;
	}
	err = iot_writer_close(w, 0);
	if (err == 0)
		return 0;
fail:
	iot_err(p->o->cmd, "%s: cannot write the profile: %s; check the path and free space",
		p->o->out, iot_strerror(err));
	return err;
}
