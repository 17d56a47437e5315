/*
 * budget_calls.c - what each recorded call used of the CPU, as the
 * budget (budget.c) counts it: its cpu_ns where the trace has it, else
 * an estimate from the calls of its kind that a call that blocked, or
 * that the tracer held at its stops, cannot inflate (rpl_call_caps(),
 * rpl_call_cpu(), rpl_call_low()); and what its stops cost a thread, as the
 * trace measured it (rpl_run_cost()).
 *
 * What a call used of the CPU is not its duration where it blocked (a
 * wait4, a pselect6, a read of a pipe or a cold disk, a clone waiting
 * for its child's memory): given its duration, such a call soaked up the
 * system time the process spent between calls (execve's and the
 * loader's page faults, the calls not recorded), and the gaps lost it.
 * Each call's share (rpl_call_cpu()) is therefore its on-CPU time where the
 * trace has it (cpu_ns, the bpf backend's), else an estimate that no
 * blocked call can inflate: a wait (the WAIT rows, wait4, waitid) uses
 * next to nothing of the CPU, 0; any other call at most CALL_BLOCKED
 * times the median of the durations of the calls of its kind in the
 * trace without cpu_ns (its syscall, failed or not: a failed execve is a
 * lookup, a successful one loads a program).  A call that blocked (a
 * pipe read, a read from the disk, a vfork's parent) lasts orders of
 * magnitude longer than the median of its kind; one that did more work
 * (a larger read, a longer path) some times longer, and keeps it.  A
 * kind with fewer than CALL_MIN_SAMPLES calls keeps its durations, as
 * before: so few say nothing of the kind (fio's one fadvise that drops
 * 96 MiB of page cache is all CPU).
 *
 * A stopped call's duration, between the tracer's timestamps at its two
 * stops, holds how long the tracer took to answer them, the thread
 * asleep meanwhile: on a busy machine that is most of it, and it is no
 * CPU time of the thread's (held_cost(), taken off, is only the least of
 * it).  python's ioctl(TCGETS) on each file it opens, answered ENOTTY at
 * once, used 1 us of CPU each (bpf, cpu_ns) but lasted 17-24 us at the
 * 5th percentile of a ptrace recording, 48-88 us at the median and up to
 * 11 ms; compileall's 670 counted as 78-225 ms of its workers' system
 * time, more than the gaps had left (the workers' gaps got none).  So a
 * stopped call counts at most what the calls of its kind that the tracer
 * answered at once took: the 5th percentile of in_call() over the stopped
 * calls of its kind (CALL_MIN_SAMPLES of them or more; else as above).
 * The calls the fast path logged and the bpf backend's are not held.
 * Where every call stops (--no-fastpath), calls whose work varies count
 * too little: cp -a's 36 ms against bpf's 160 ms (their durations:
 * 420 ms).  The 25th percentile or the median instead moved the planned
 * think time of compileall, configure and make by 0.3-2.5 %.
 *
 * CALL_BLOCKED was chosen on five workloads outside the validation
 * suite, recorded with bpf (60 gcc -fsyntax-only, tar | gzip, find |
 * xargs grep, cp -a and rm -rf of /usr/share/doc, git log and git grep),
 * by how far the system time the estimate leaves each thread for its
 * gaps is from what the recorded cpu_ns leave it, summed over threads:
 * 0.168 s with durations as CPU time, 0.311 s with 8 medians (cp -a's
 * large reads and writes: 0.271 s of it), 0.106 s with 16, 0.105 s with
 * 32, 0.110 s with 64; with 1 median 0.86 s.  On the suite's bpf recordings, with 16
 * (durations as CPU time in brackets): make -j2 0.301 s left against
 * 0.329 s measured, 0.037 s off (0.092; its 53,000 calls last 25.5 s,
 * 19.5 s of it wait4), configure 0.013 s off (0.029), postmark 0.014 s
 * (0.209), fio 0.025 s (0.025).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "engine.h"
#include "rpl.h"
#include "think.h"
#include "budget_int.h"

/* How long @op's call lasted, less the stops around it (which a stopped
 * call's timestamps, taken by the tracer, hold: @held, held_cost(),
 * stands for it); 0 if unknown. */
static int64_t in_call(int64_t held, const struct rpl_op *op)
{
	int64_t d = op->ev.t_exit - op->ev.t_enter;

	if (op->ev.flags & IOT_EV_NOEXIT_TS)
		return 0;
	if (rpl_op_stopped(op))
		d -= held;
	return d > 0 ? d : 0;
}

/* A call that waits for time or for another process: its duration is
 * not CPU time. */
int rpl_is_wait(const struct rpl_op *op)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);

	return (sc && sc->cls == IOT_CLASS_WAIT) || op->ev.nr == SYS_wait4 ||
	       op->ev.nr == SYS_waitid;
}

/* The recorded on-CPU time of @op's call (0: unknown). */
static uint32_t rec_cpu(const struct rpl_plan *p, const struct rpl_op *op)
{
	return rpl_op_col(p->cpu_ns, p->n_cpu, op);
}

/* Is @op a wait (rpl_is_wait()), by @waits where its number is in it. */
static int wait_op(const uint8_t *waits, const struct rpl_op *op)
{
	return op->ev.nr >= 0 && op->ev.nr < CALL_NR_MAX ? waits[op->ev.nr] : rpl_is_wait(op);
}

/* Calls whose share rpl_call_cpu() estimates from the others of their kind. */
static int estimated(const struct rpl_plan *p, const uint8_t *waits, const struct rpl_op *op)
{
	return !rec_cpu(p, op) && !wait_op(waits, op) && !(op->ev.flags & IOT_EV_NOEXIT_TS);
}

/* @op's kind for rpl_call_caps(): its syscall, failed or not (-1: none). */
static int call_key(const struct rpl_op *op)
{
	if (op->ev.nr < 0 || op->ev.nr >= CALL_NR_MAX)
		return -1;
	return op->ev.nr * 2 + (op->ev.ret < 0);
}

/* @op's call_key() if it is estimated(), else -1; @waits[nr]: rpl_is_wait()
 * of a call nr (looked up once, not per op and pass: a sixth of the
 * plan's instructions went to estimated() when each quantile took two
 * passes of its own). */
static int estimated_key(const struct rpl_plan *p, const struct rpl_op *op,
			 const uint8_t *waits)
{
	int key = call_key(op);

	if (key < 0 || rec_cpu(p, op) || waits[op->ev.nr] || (op->ev.flags & IOT_EV_NOEXIT_TS))
		return -1;
	return key;
}

/*
 * Quantiles of in_call() over the estimated calls of each kind
 * (call_key()), with a heap of n / per + 1 of each kind's n values (per
 * 2: the median; 20: the 5th percentile), kept for kinds of
 * CALL_MIN_SAMPLES calls or more.  The calls of each set are counted
 * once for all of them (quant_count()), each set's heaps filled in one
 * pass (quant_fill()): a pass to count and one to fill per quantile
 * were eight passes over the ops.
 */
struct quant {
	struct rpl_smallest by[CALL_KEYS];
	size_t per;
	int64_t *mem;
};

/* The estimated calls per kind into @cnt, the stopped ones into @cnt_held. */
static void quant_count(const struct rpl_plan *p, const uint8_t *waits, size_t *cnt,
			size_t *cnt_held)
{
	size_t i;
	int key;

	for (i = 0; i < p->n_ops; i++)
		if ((key = estimated_key(p, &p->ops[i], waits)) >= 0) {
			cnt[key]++;
			cnt_held[key] += rpl_op_stopped(&p->ops[i]);
		}
}

static int quant_new(struct quant *q, const size_t *cnt, size_t per)
{
	size_t i, total = 0;

	q->per = per;
	for (i = 0; i < CALL_KEYS; i++) {
		q->by[i].n = 0;
		q->by[i].cap = cnt[i] >= CALL_MIN_SAMPLES ? cnt[i] / per + 1 : 0;
		total += q->by[i].cap;
	}
	q->mem = malloc((total + 1) * sizeof(*q->mem));
	if (!q->mem)
		return -ENOMEM;
	for (i = 0, total = 0; i < CALL_KEYS; i++) {
		q->by[i].h = q->mem + total;
		total += q->by[i].cap;
	}
	return 0;
}

/* A pair of quantile heaps made by calloc(2, ...), and their memory. */
static void quant_free(struct quant *q)
{
	if (q) {
		free(q[0].mem);
		free(q[1].mem);
	}
	free(q);
}

/* In_call(@cost) of the estimated calls (the stopped ones only if
 * @held) into the heaps of @q[0 .. @nq). */
static void quant_fill(const struct rpl_plan *p, int held, const uint8_t *waits, int64_t cost,
		       struct quant *q, size_t nq)
{
	size_t i, j;
	int key;

	for (i = 0; i < p->n_ops; i++) {
		const struct rpl_op *op = &p->ops[i];
		int64_t d;

		if ((key = estimated_key(p, op, waits)) < 0 || (held && !rpl_op_stopped(op)))
			continue;
		d = in_call(cost, op);
		for (j = 0; j < nq; j++)
			rpl_smallest_add(&q[j].by[key], d);
	}
}

/* @q's values into @out: per kind, the value at index n / per of its
 * @cnt[kind] values (-1: fewer than CALL_MIN_SAMPLES). */
static void quant_get(const struct quant *q, const size_t *cnt, int64_t *out)
{
	size_t i;

	for (i = 0; i < CALL_KEYS; i++)
		out[i] = cnt[i] >= CALL_MIN_SAMPLES ? rpl_smallest_top(&q->by[i]) : -1;
}

/*
 * What the stops hold of a stopped call's duration.  gap_cost_ns, the
 * 5th percentile of the gaps between two stopped calls (think.c), holds
 * besides the two stops the least of the program's own code between two
 * calls, which a call's duration does not: fio's libaio job thread
 * recorded with ptrace (4 KiB O_DIRECT random writes, iodepth 8 and 32,
 * xfs and ext4) had gaps of 13 us at the 5th percentile (gap_cost_ns
 * 11.0-12.8 us) and io_getevents calls of 8-10 us, stops and all.  Less
 * gap_cost_ns, over 5 % of the io_getevents came out at 0, and so did
 * each one's share (the 5th percentile of its kind); io_submit counted
 * 3.7-5.4 us (bpf's cpu_ns: 5.6 us), and the calls' system time went to
 * the gaps.  A call lasts no less than the stops around it, so the stops
 * hold no more than the stopped calls of the kind that lasted least took
 * at the 5th percentile (@q5: their durations, stops included): the
 * lesser of that and gap_cost_ns.  Its own calls then count 0 at the 5th
 * percentile (their CPU time is not told apart from the stops).
 */
static int64_t held_cost(const struct rpl_plan *p, const int64_t *q5)
{
	int64_t cost = p->gap_cost_ns;
	size_t i;

	for (i = 0; i < CALL_KEYS; i++)
		if (q5[i] >= 0 && q5[i] < cost)
			cost = q5[i];
	return cost;
}

/* The recorded run_ns of @op (0: unknown). */
static uint32_t rec_run(const struct rpl_plan *p, const struct rpl_op *op)
{
	return rpl_op_col(p->run_ns, p->n_run, op);
}

/* The least, over the kinds of call in @v[@n] (call_key() << 32 | its
 * run_ns) with CALL_MIN_SAMPLES calls or more, of their median run_ns
 * (their values gathered by kind in @w[@n], counted in @cnt[CALL_KEYS]);
 * -1: no such kind.  A pass to count, one to gather, a selection per
 * kind: a sort of 350,000 calls was a fifth of the plan's instructions. */
static int64_t least_median(const uint64_t *v, size_t n, uint32_t *w, size_t *cnt)
{
	size_t i, at, c;
	int64_t best = -1, m;

	memset(cnt, 0, CALL_KEYS * sizeof(*cnt));
	for (i = 0; i < n; i++)
		cnt[v[i] >> 32]++;
	for (i = 0, at = 0; i < CALL_KEYS; i++) {
		c = cnt[i];
		cnt[i] = at;
		at += c;
	}
	for (i = 0; i < n; i++)
		w[cnt[v[i] >> 32]++] = (uint32_t)v[i];
	/* cnt[k] is now where kind k's values end */
	for (i = 0, at = 0; i < CALL_KEYS; at = cnt[i++]) {
		if (cnt[i] - at < CALL_MIN_SAMPLES)
			continue;
		m = rpl_select_u32(w + at, cnt[i] - at, (cnt[i] - at) / 2);
		if (best < 0 || m < best)
			best = m;
	}
	return best;
}

/* @op's call_key() << 32 | its run_ns, or 0 if it has none. */
static uint64_t run_item(const struct rpl_plan *p, const struct rpl_op *op)
{
	uint32_t r = rec_run(p, op);
	int key = call_key(op);

	return r && key >= 0 && rpl_op_stopped(op) ? (uint64_t)key << 32 | r : 0;
}

/*
 * What the stops of one call cost its thread in CPU time, as the trace
 * itself measured it, into @cost[thread] (-1: unknown, the calibration
 * stands).  A stopped call's run_ns is its thread's CPU time from the
 * exit stop of the call before it to its own (record/slept.c): the
 * gap's code, the call's, and the kernel's work for the two stops.  For
 * the kind of call with the least of it (at the median: the gap before
 * it holds next to no code, the call does next to no work), that is
 * the stops' cost as the workload paid it: with the tracer's work at
 * each stop (reading requests and paths, writing the trace), with what
 * the tracer and the other threads on the same CPU left of the caches,
 * at the load of the moment.  The calibration at the recorder's start
 * (record.stop_cpu_ns) measures once a loop of close(-1) under a tracer
 * that does nothing else.  fio's libaio job thread (4 KiB O_DIRECT
 * random writes, iodepth 8, xfs and ext4, eight recordings on a shared
 * machine): calibrated 5.1-6.5 us a call, its io_getevents' run_ns
 * 8.4-10.5 us at the median (in four of them 6.7-7.8 at the 5th
 * percentile, 11.0-12.1 on average, io_submit's 16-23 at the median);
 * its 230-380 ms of CPU time less its calls' estimate (87-193 ms) and
 * 16,381 calibrated stops left 44-97 ms of think time, where untraced
 * its user time is 3-20 ms (fio's own count); with the median, 0-51 ms,
 * each its user time as the clock ticks split it or near it.  The median, not the 5th
 * percentile that gap_cost_ns and held_cost() take: the stop's cost
 * varies from stop to stop (the tracer's work, the caches it leaves),
 * and a thread pays it at every call; the least holds only the cheapest
 * (39-83 ms left in four of them).  It holds, too, the typical code of
 * the gap before that kind and its work, a microsecond or two of fio's,
 * taken off the budget with it; a thread whose every kind of call works
 * (fio's io_uring thread: its io_uring_enter submit, 15.6-24.7 us at the
 * median) counts that work twice, and its budget falls to its user time,
 * where the calibration's had left it already.
 *
 * Per thread, where the thread has CALL_MIN_SAMPLES calls of a kind
 * with run_ns (fio's main thread, sharing the recorder's CPU with the
 * job thread, paid 7.4 us a newfstatat); else the least over the
 * trace's kinds, which p->run_cost_ns keeps for the profile's header.
 * @return : 0 or -ENOMEM.
 */
int rpl_run_cost(struct rpl_plan *p, int64_t *cost)
{
	uint64_t *v = NULL, x;
	uint32_t *w = NULL, k;
	size_t *cnt = NULL, i, n = 0, m;
	int64_t all;
	int err = -ENOMEM;

	for (i = 0; i < p->n_threads; i++)
		cost[i] = -1;
	if (!p->run_ns)
		return 0;
	v = malloc((p->n_ops + 1) * sizeof(*v));
	w = malloc((p->n_ops + 1) * sizeof(*w));
	cnt = malloc(CALL_KEYS * sizeof(*cnt));
	if (!v || !w || !cnt)
		goto out;
	for (i = 0; i < p->n_ops; i++)
		if ((x = run_item(p, &p->ops[i])))
			v[n++] = x;
	all = least_median(v, n, w, cnt);
	p->run_cost_ns = all > 0 ? all : 0;
	for (i = 0; all >= 0 && i < p->n_threads; i++) {
		const struct rpl_thread *t = &p->threads[i];

		for (k = 0, m = 0; k < t->n_ops; k++)
			if ((x = run_item(p, &p->ops[t->ops[k]])))
				v[m++] = x;
		cost[i] = m >= CALL_MIN_SAMPLES ? least_median(v, m, w, cnt) : -1;
		if (cost[i] < 0)
			cost[i] = all;
	}
	err = 0;
out:
	free(cnt);
	free(w);
	free(v);
	return err;
}

/*
 * The in_call(@held) of each estimated call of the kinds of
 * CALL_MIN_SAMPLES calls or more, gathered by kind, 4 bytes each (cut at
 * 2^32 - 1 ns): kind i's from @at[i] (CALL_KEYS of them) in the array
 * returned, its @cnt_held[i] stopped calls first where @cnt_held is not
 * NULL.  NULL: no memory.
 */
static uint32_t *gather_calls(const struct rpl_plan *p, const uint8_t *waits, int64_t held,
			      const size_t *cnt, const size_t *cnt_held, size_t *at)
{
	size_t *fs = malloc(2 * CALL_KEYS * sizeof(*fs)), *fu, i, total = 0;
	uint32_t *w = NULL;
	int key;

	if (!fs)
		return NULL;
	fu = fs + CALL_KEYS;
	for (i = 0; i < CALL_KEYS; i++) {
		at[i] = fs[i] = total;
		fu[i] = total + (cnt_held ? cnt_held[i] : 0);
		total += cnt[i] >= CALL_MIN_SAMPLES ? cnt[i] : 0;
	}
	w = malloc((total + 1) * sizeof(*w));
	for (i = 0; w && i < p->n_ops; i++) {
		const struct rpl_op *op = &p->ops[i];
		int64_t d;
		uint32_t v;

		if ((key = estimated_key(p, op, waits)) < 0 || cnt[key] < CALL_MIN_SAMPLES)
			continue;
		d = in_call(held, op);
		v = d >= UINT32_MAX ? UINT32_MAX : (uint32_t)d;
		if (!cnt_held || rpl_op_stopped(op))
			w[fs[key]++] = v;
		else
			w[fu[key]++] = v;
	}
	free(fs);
	return w;
}

/*
 * The median and the 5th percentile of in_call(@held) over the estimated
 * calls of each kind of @cnt[kind] (CALL_MIN_SAMPLES or more) into
 * @med[kind] and @low[kind] (-1: fewer): the values gathered by kind,
 * each kind's median selected, then its 5th percentile among the values
 * below it.  As uint32, 4 bytes a call, where heaps of the median and of
 * the 5th percentile took 4.4 and n log n steps (a heap as deep as half
 * the calls of a kind took half of them in, a step per level).  A
 * median of 2^32 - 1 ns or more, which the values gathered, cut there,
 * cannot tell, is taken by heaps (a kind whose median call lasted 4 s).
 */
static int all_quantiles(const struct rpl_plan *p, const uint8_t *waits, int64_t held,
			 const size_t *cnt, int64_t *med, int64_t *low)
{
	size_t *at = malloc(CALL_KEYS * sizeof(*at)), i, c;
	size_t *big = NULL;
	struct quant *q = NULL;
	uint32_t *w = NULL, m;
	int err = -ENOMEM, n_big = 0;

	if (!at || !(w = gather_calls(p, waits, held, cnt, NULL, at)))
		goto out;
	for (i = 0; i < CALL_KEYS; i++) {
		med[i] = low[i] = -1;
		if ((c = cnt[i]) < CALL_MIN_SAMPLES)
			continue;
		m = rpl_select_u32(w + at[i], c, c / 2);
		med[i] = m;
		/* the first c / 2 are now the least: the 5th percentile is
		 * among them */
		low[i] = rpl_select_u32(w + at[i], c / 2, c / 20);
		n_big += m == UINT32_MAX;
	}
	free(w);
	w = NULL;
	if (n_big) {
		/* those kinds by heaps, the others left out */
		if (!(big = calloc(CALL_KEYS, sizeof(*big))) || !(q = calloc(2, sizeof(*q))))
			goto out;
		for (i = 0; i < CALL_KEYS; i++)
			big[i] = med[i] == UINT32_MAX ? cnt[i] : 0;
		if (quant_new(&q[0], big, 2) < 0 || quant_new(&q[1], big, 20) < 0)
			goto out;
		quant_fill(p, 0, waits, held, q, 2);
		for (i = 0; i < CALL_KEYS; i++)
			if (big[i]) {
				med[i] = rpl_smallest_top(&q[0].by[i]);
				low[i] = rpl_smallest_top(&q[1].by[i]);
			}
	}
	err = 0;
out:
	quant_free(q);
	free(big);
	free(w);
	free(at);
	return err;
}

/*
 * rpl_call_caps() in one pass over the ops after the count: each kind's
 * in_call(0) gathered (4 bytes a call), its stopped calls first; their
 * 5th percentile selected among them, held_cost() from those, the
 * stopped ones' values less it in place (in_call(held) is max(d - held,
 * 0): the same order), then each kind's median and 5th percentile
 * selected (all_quantiles()).  The heaps of the stopped calls took a pass
 * of their own and a step per level for each call kept.  @return : 1
 * done; 0 where a value it needs is 2^32 - 1 ns or more (the values
 * gathered are cut there) or @held < 0 (a call that ended before it
 * began), which rpl_call_caps() takes by heaps; -ENOMEM.
 */
static int caps_selected(const struct rpl_plan *p, const uint8_t *waits, const size_t *cnt,
			 const size_t *cnt_held, int64_t *caps, int64_t *held)
{
	size_t *at = malloc(CALL_KEYS * sizeof(*at)), i, j, c;
	uint32_t *w = NULL, v;
	int r = -ENOMEM;

	if (!at || !(w = gather_calls(p, waits, 0, cnt, cnt_held, at)))
		goto out;
	r = 0;
	for (i = 0; i < CALL_KEYS; i++) {
		caps[CALL_KEYS + i] = -1;
		if ((c = cnt_held[i]) < CALL_MIN_SAMPLES)
			continue;
		if ((v = rpl_select_u32(w + at[i], c, c / 20)) == UINT32_MAX)
			goto out;
		caps[CALL_KEYS + i] = v;
	}
	*held = held_cost(p, caps + CALL_KEYS);
	if (*held < 0)
		goto out;
	for (i = CALL_KEYS; i < 2 * CALL_KEYS; i++)
		if (caps[i] >= 0)
			caps[i] = caps[i] > *held ? caps[i] - *held : 0;
	for (i = 0; i < CALL_KEYS; i++) {
		caps[i] = caps[2 * CALL_KEYS + i] = -1;
		if ((c = cnt[i]) < CALL_MIN_SAMPLES)
			continue;
		/* a value cut at 2^32 - 1 stays there: it is still above the others */
		for (j = at[i]; j < at[i] + cnt_held[i]; j++)
			if (w[j] != UINT32_MAX)
				w[j] = w[j] > *held ? w[j] - (uint32_t)*held : 0;
		if ((v = rpl_select_u32(w + at[i], c, c / 2)) == UINT32_MAX)
			goto out;
		caps[i] = v;
		/* the first c / 2 are now the least: the 5th percentile is
		 * among them */
		caps[2 * CALL_KEYS + i] = rpl_select_u32(w + at[i], c / 2, c / 20);
	}
	r = 1;
out:
	free(w);
	free(at);
	return r;
}

/* Per kind, into @caps[CALL_KEYS * 3]: the median of its estimated
 * calls, then the 5th percentile of its stopped ones, then the 5th
 * percentile of all its estimated ones; into @held, held_cost(), which
 * in_call() takes off each stopped call for them. */
int rpl_call_caps(const struct rpl_plan *p, const uint8_t *waits, int64_t *caps, int64_t *held)
{
	size_t *cnt = calloc(2 * CALL_KEYS, sizeof(*cnt)), *cnt_held = cnt + CALL_KEYS, i;
	struct quant *q = calloc(2, sizeof(*q));
	int err = -ENOMEM;

	if (!cnt || !q)
		goto out;
	quant_count(p, waits, cnt, cnt_held);
	if ((err = caps_selected(p, waits, cnt, cnt_held, caps, held)) != 0) {
		err = err < 0 ? err : 0;
		goto out;
	}
	err = -ENOMEM;
	/* the stopped calls' durations first (caps + CALL_KEYS) */
	if (quant_new(&q[0], cnt_held, 20) < 0)
		goto out;
	quant_fill(p, 1, waits, 0, q, 1);
	quant_get(&q[0], cnt_held, caps + CALL_KEYS);
	*held = held_cost(p, caps + CALL_KEYS);
	/* then less @held: in_call() takes max(d - held, 0), which keeps
	 * their order, so their 5th percentile is the one above less @held,
	 * with no second pass over the ops (not so where @held < 0: a call
	 * that ended before it began counts 0 above, more with it) */
	if (*held >= 0) {
		for (i = CALL_KEYS; i < 2 * CALL_KEYS; i++)
			if (caps[i] >= 0)
				caps[i] = caps[i] > *held ? caps[i] - *held : 0;
	} else {
		for (i = 0; i < CALL_KEYS; i++)
			q[0].by[i].n = 0;
		quant_fill(p, 1, waits, *held, q, 1);
		quant_get(&q[0], cnt_held, caps + CALL_KEYS);
	}
	free(q[0].mem);
	q[0].mem = NULL;
	err = all_quantiles(p, waits, *held, cnt, caps, caps + 2 * CALL_KEYS);
out:
	quant_free(q);
	free(cnt);
	return err;
}

/* What @op's call used of the CPU, as the budget counts it (see above):
 * its cpu_ns, 0 for a wait, else its duration up to CALL_BLOCKED times
 * its kind's median, and a stopped one up to its kind's unheld calls. */
int64_t rpl_call_cpu(const struct rpl_plan *p, const uint8_t *waits, const struct rpl_op *op,
			const int64_t *caps, int64_t held)
{
	int64_t d = in_call(held, op), cap;
	uint32_t cpu = rec_cpu(p, op);
	int key = call_key(op);

	if (cpu)
		return cpu;
	if (wait_op(waits, op))
		return 0;
	if (rpl_op_stopped(op) && key >= 0 && caps[CALL_KEYS + key] >= 0 && d > caps[CALL_KEYS + key])
		return caps[CALL_KEYS + key];
	cap = key >= 0 ? caps[key] : -1;
	if (cap < 0 || d / CALL_BLOCKED < cap)
		return d;
	return cap * CALL_BLOCKED;
}

/*
 * Where most calls of a kind block, its median is itself a blocked
 * call's duration and CALL_BLOCKED medians bound nothing: fio's job
 * threads (psync random reads of a file whose cache fio dropped: 4,300
 * preads each, median 40-50 us, nearly all of it waiting for the
 * device; 86 fsyncs, median 0.6-3 ms) had their calls counted as
 * 437-446 ms of CPU time in a ptrace recording, where each thread used
 * 82 ms of CPU time in all (bpf recording: its calls 75 ms of it), and
 * their gaps got none (bpf: 11-12 ms).  A thread's calls cannot have
 * used more CPU time than the thread did: where the estimate says they
 * did, each estimated call counts at most the 5th percentile of its kind
 * instead, what such a call takes when it does not block (budget_of()).
 */
int64_t rpl_call_low(const struct rpl_plan *p, const uint8_t *waits, const struct rpl_op *op,
			const int64_t *caps, int64_t cpu)
{
	int key = call_key(op);

	if (!estimated(p, waits, op) || key < 0 || caps[2 * CALL_KEYS + key] < 0)
		return cpu;
	return cpu < caps[2 * CALL_KEYS + key] ? cpu : caps[2 * CALL_KEYS + key];
}
