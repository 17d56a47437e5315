/*
 * think.c - the think time before each op: the recorded gap since the
 * thread's previous op, less what tracing added to it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "rpl.h"
#include "think.h"

/*
 * The 5th percentile of a set of gaps, exactly as sorting them would give
 * it (the value at index n / 20), with memory for n / 20 + 1 of them, not
 * n: a max-heap of the smallest seen so far.  The plan holds one gap per
 * op of the trace; a sorted copy of them all was a sixth of its memory.
 * The gaps' floors are selected among the gaps gathered in 32 bits, 4
 * bytes each while the step runs (floors_select()); the heaps take a
 * value that needs more (floors_keep()), as they do the budget's
 * quantiles (budget_calls.c).
 */
void rpl_smallest_add(struct rpl_smallest *s, int64_t x)
{
	size_t i, c;

	if (s->n < s->cap) {
		for (i = s->n++; i > 0 && s->h[(i - 1) / 2] < x; i = (i - 1) / 2)
			s->h[i] = s->h[(i - 1) / 2];
		s->h[i] = x;
		return;
	}
	if (!s->cap || x >= s->h[0])
		return;
	for (i = 0; (c = 2 * i + 1) < s->n; i = c) {
		if (c + 1 < s->n && s->h[c + 1] > s->h[c])
			c++;
		if (s->h[c] <= x)
			break;
		s->h[i] = s->h[c];
	}
	s->h[i] = x;
}

/* The largest value kept: with a heap of @n / 20 + 1 of @n values
 * added, the value at index @n / 20 in sorted order (their 5th
 * percentile); with @n / 2 + 1, at @n / 2 (their median). */
int64_t rpl_smallest_top(const struct rpl_smallest *s)
{
	return s->n ? s->h[0] : 0;
}

/*
 * Each op in the plan's order with the op before it in its thread (the
 * clone that started the thread, for its first op; NULL for a thread
 * there from the start): a pass over the ops as they lie, not thread by
 * thread, which went through the whole array once per thread.  A
 * thread's ops come in its order either way (its list is ascending).
 */
#define WALK_NONE UINT32_MAX

struct walk {
	uint32_t *last;			/* per thread: its op before the next one */
	uint8_t *seen;			/* per thread: an op of it walked */
};

static void walk_reset(const struct rpl_plan *p, struct walk *w)
{
	size_t i;

	for (i = 0; i < p->n_threads; i++) {
		w->last[i] = p->threads[i].spawn_op >= 0 ? (uint32_t)p->threads[i].spawn_op :
			     WALK_NONE;
		w->seen[i] = 0;
	}
}

static int walk_new(const struct rpl_plan *p, struct walk *w)
{
	w->last = malloc((p->n_threads + 1) * sizeof(*w->last));
	w->seen = malloc(p->n_threads + 1);
	if (!w->last || !w->seen) {
		free(w->last);
		free(w->seen);
		return -ENOMEM;
	}
	walk_reset(p, w);
	return 0;
}

static void walk_free(struct walk *w)
{
	free(w->last);
	free(w->seen);
	w->last = NULL;
	w->seen = NULL;
}

/* Op @i's op before it (see above); *@first: it is its thread's first. */
static inline const struct rpl_op *walk_prev(const struct rpl_plan *p, struct walk *w, size_t i,
					     int *first)
{
	uint32_t t = p->ops[i].thread, l = w->last[t];

	*first = !w->seen[t];
	w->seen[t] = 1;
	w->last[t] = (uint32_t)i;
	return l == WALK_NONE ? NULL : &p->ops[l];
}

/*
 * Think time = recorded gap minus what tracing added to it.  The recorder
 * measures its cost per call (header stop_cost_ns: the entry and exit
 * stops together), but on a loaded machine the real cost of a gap varies
 * with scheduling; the trace itself shows it: in the programs iotape
 * records, a good share of syscalls follow each other with next to no
 * user code between them, so the 5th percentile of the gaps between two
 * stopped calls is what such a gap costs under the tracer.  With 100 such
 * gaps or more, that is the per-call cost, else the measured one (floor
 * 0, cut to RPL_THINK_MAX); the profile header says which was used.  The
 * 5th percentile is what the gaps held while the workload ran; the
 * measurement, one moment at the recorder's start: a configure-style
 * script recorded on a loaded machine measured 39 us, where 5 % of its
 * gaps between two stopped calls were under 7.3 us, so they could not
 * have held it (with the larger of the two its replay, think time
 * slept, took 2.27 s, with the 5th percentile 2.46 s).
 *
 * A gap holds the tracer's cost only where it touches a stopped call:
 * the exit stop of the call before it, the entry stop of the call after
 * it.  Events logged inside the traced process (IOT_EV_FASTPATH) stop
 * nothing, so a gap loses half the per-call cost for each neighbour that
 * was stopped: all of it between two stopped calls (every gap of a trace
 * without fast-path events), none between two fast-path ones.  The 5th
 * percentile is taken over stopped-stopped gaps only: a fast-path gap of
 * next to nothing would otherwise pass for the cost of a stop.
 *
 * Traces recorded since the fast path timestamps its own start carry,
 * per in-process event, the time the library spent before the call
 * (pre_ns: copying arguments, the lstat of each path): that, not a
 * floor, is what such a gap loses.  The floor left ~0.3 us of the lstat
 * in every gap before a path call (cp -a: think time 0.11 s where cp
 * itself spent 0.04 s).
 *
 * What remains can still hold the tracer's stalls (a chunk flush, a
 * descheduled tracer), which no constant removes.  A thread cannot have
 * thought longer than the CPU time it used: its think times are scaled
 * down to fit its CPU time, and what is left is computing, which the
 * replay spends as CPU time (spin.c).  Where it slept (nanosleep, poll,
 * select, epoll_wait), that time is a recorded wait (ops_wait.c) between
 * its entry and exit, never in a gap, so the budget never counts it.
 * With --timing raw, only stop_cost_ns is subtracted (and slept: such a
 * gap is not all CPU time).
 *
 * Nor is a gap in which the thread slept on a disk: the major page
 * faults of its program and libraries (a cold make -j2 recorded with
 * bpf: 1.10 s of 21 s of gaps; the replay, which spun only the CPU part,
 * ran 8-18 % fast).  The bpf backend records that sleep per gap
 * (slept_ns); it comes out of the think time here, before the budget,
 * which bounds computing only, and is slept on its own before the call
 * (exec_thread.c).  Under --timing raw the gap stays whole and is slept.
 *
 * A bpf recording's gap also holds the time its thread was preempted on
 * its way back from the call before: the backend ends a call at its exit
 * tracepoint, and the kernel switches to a task the call woke only after
 * it.  fio's libaio job thread (O_DIRECT writes, iodepth 32, ext4 and
 * xfs loop images): every switch out of a gap was a preemption, most
 * within 2 us of an io_submit's exit, by the kworkers running the loop
 * device's work and the writes' completions, and on a loaded machine by
 * anything else.  The budget leaves that time out (it is not the
 * thread's CPU time), and rightly: the replay's own io_submit wakes the
 * same workers and is preempted at the same point (docs/FIGURES.md,
 * "What fio's job thread waits for between its calls").
 *
 * The CPU budget that bounds what is left, and what each call used of
 * the CPU within it, are budget.c's (rpl_think_budget()).
 */

/* The part of @op's gap its thread slept on a disk, as recorded and,
 * after rpl_plan_think(), as it is slept (0: none). */
static uint32_t rec_slept(const struct rpl_plan *p, const struct rpl_op *op)
{
	return rpl_op_col(p->slept_ns, p->n_slept, op);
}

/*
 * Between two fast-path calls there is no stop, but the recorder's library
 * did its own work in the gap: it took an lstat of each path argument,
 * two clock reads and a ring record before the call (0.3-1 us a call,
 * more for path calls).  As with stops, the trace shows what that costs:
 * the 5th percentile of the fast-to-fast gaps before each syscall (pooled
 * over all syscalls when one has too few), removed from each such gap.
 * The bpf backend's calls are such gaps too: its programs' work at each
 * call's entry and exit, outside the call's timestamps.
 *
 * A bpf call held by the guard's stop (bpf_guard.c: a call that makes,
 * removes or renames a name, or truncates) has its hold in pre_ns, from
 * the moment its thread went to sleep in the stop to the call's entry,
 * which rpl_plan_think() takes off its gap.  What the stop cost before
 * that (the seccomp filter, the notification, the switch away) and the
 * BPF programs' work stay in the gap; the 5th percentile of those gaps,
 * less their holds, is what they cost, per syscall as above, over held
 * gaps only (fast_floors() with @held).  A held gap is left out of the
 * unheld ones' floor: it holds the stop.  postmark recorded with bpf
 * (48,151 of its 338,109 calls held): after the hold, the held gaps' 5th
 * percentiles were 3.2 us (unlink) and 3.7 us (openat with O_TRUNC), the
 * unheld openat's 2.3 us; without this floor its held gaps kept 0.33 s
 * of its 0.73 s of think time, 0.16 s of it the recorder's.
 *
 * The BPF programs run in the recorded thread, in the kernel, so what
 * the floors take off a bpf recording's gaps was CPU time of the
 * thread's, in the system time of its EXIT record, which bounds its
 * think time (budget.c): the budget loses what the floors took too
 * (rec_cpu, per thread; no more than each gap held).  Left in it, the
 * budget let a thread the machine kept off the CPU in its gaps (their
 * wall time longer than its computing) spin the programs' cost as think
 * time: 200,000 fstat() in a loop (0.45 us of CPU a call natively, 1.4
 * recorded, the floor 0.50 us) planned 115 ms of think time, 15 ms with
 * it taken off, where the loop's user time is 7-14 ms.  A fast-path
 * event's floor is left in the budget: such a trace's calls carry their
 * library's time (pre_ns), which the budget takes off itself.
 *
 * What the BPF programs cost a gap does not depend on the call after it
 * (their work outside a call's timestamps is the exit's record of the
 * call before and the entry's first look at the task), but what the
 * program computes there does: a kind of call whose every gap holds the
 * program's code has that code in its 5th percentile too, and the floor
 * took it as the recorder's.  fio's libaio job thread (64 MiB of 4 KiB
 * O_DIRECT random writes, iodepth 32, 32,738 io_submit and io_getevents
 * with 1.1-1.5 us between them at the median): floors of 0.86-0.99 us, a
 * third of its gaps' 76-80 ms, taken off and, as the programs' CPU time,
 * off its budget (26-32 ms of 38-49 ms of CPU time outside its calls),
 * which left it 9.5-21 ms of think time; the same recorder's gaps in a
 * loop of lseek() with no code between them are 0.50 us at the 5th
 * percentile, 1.53 us with 1 us of computing in each.  The kinds of
 * call with the least code before them show the programs' cost: in the
 * suite's bpf recordings the least floor of a syscall is 0.50-0.60 us
 * (close, fadvise64, fcntl, getdents64), the others' up to 1.1 us
 * (postmark's openat after it makes a name, cp's ioctl).  So a bpf gap
 * loses at most the least of the per-syscall floors (bpf_floor_ns; the
 * kinds with FAST_MIN_SAMPLES gaps, all of them between two bpf calls).
 * A program whose gaps all compute (one kind of call in a loop of
 * computing) still loses its least code with the programs' cost: the
 * trace does not tell them apart.
 */
#define FAST_MIN_SAMPLES 50
#define FAST_NR_MAX 512

/*
 * Where the recorder measured what its programs add to a gap (header
 * key record.bpf_gap_ns, which the index holds: the median gap of 400
 * close(-1) back to back in a child it followed, record/bpf_calib.c's
 * rec_bpf_calib_start(), from traces of 2026-12-03 on), a gap between two bpf
 * calls loses that, no more than the gap, rather than the trace's least
 * floor alone: a program whose every gap computes keeps its computing.
 * Older traces, as above.
 *
 * The measure is a floor, not the whole cost: the child's calls are a
 * null loop, its code, data and the programs' maps hot, where a program's
 * gaps also hold the kernel's way out and in and the programs' runs as
 * its own work left the caches and TLB (flushed at every call here: page
 * table isolation without PCID).  Measured (docs/FIGURES.md, "A program's
 * gaps under the bpf recorder", 2026-12-04): a program that times its
 * own code between its calls had 0.2-0.45 us more in each gap than the
 * measure, and postmark's replay was 16 % slow with its think time as
 * planned, within 3 % with half of it.  The trace's own least floor,
 * the 5th percentile of the gaps before the kind of call with the least
 * (postmark: 1.38 us against the measure's 1.16; the suite's 12 bpf
 * recordings: 0-220 ns above it, or below), holds the program's least
 * code too; where its calls are of LEAST_KINDS kinds or more (those with
 * FAST_MIN_SAMPLES gaps, all between bpf calls), the kind with the least
 * code before it is taken to have next to none, and a gap loses that
 * floor where it is the higher.  A program of one kind of call in a loop
 * of computing keeps the measure: its only floor is its code.
 */
#define LEAST_KINDS 2
int64_t rpl_bpf_gap_measured(const struct rpl_plan *p)
{
	return rpl_header_ns(p, "record.bpf_gap_ns", 1000000LL);
}

/* A bpf call held by the guard's stop: its gap holds the hold (pre_ns). */
static int held_op(const struct rpl_plan *p, const struct rpl_op *op)
{
	return (op->ev.flags & IOT_EV_BPF) && rpl_op_pre(p, op);
}

/* A fast-path gap: neither call was stopped, not a thread's first; of a
 * held call (@held) or of one not held.  Its value: the gap less the
 * hold. */
static int fast_gap(const struct rpl_plan *p, const struct rpl_op *op, const struct rpl_op *prev,
		    int first, int held)
{
	return !first && prev && !rpl_op_stopped(prev) && !rpl_op_stopped(op) &&
	       held_op(p, op) == held;
}

static int64_t fast_value(const struct rpl_plan *p, const struct rpl_op *op, int held)
{
	return held ? op->think_ns - rpl_op_pre(p, op) : op->think_ns;
}

/*
 * The gaps whose floors are taken, counted in one pass over the ops and
 * kept in a second (each pass over every op costs as much as its work
 * in it: they were seven): the gaps between two stopped calls, whose 5th
 * percentile is a stop's cost (think_times()); and the fast-path gaps,
 * [0] of calls not held, [1] of held ones (fast_gap()), per syscall and
 * pooled (fast_floors()).  A gap is of one kind at most.
 */
struct floors {
	size_t n_stop;
	struct rpl_smallest stop;
	size_t n[2], cnt[2][FAST_NR_MAX], bpf[2][FAST_NR_MAX];
	struct rpl_smallest pool[2], by[2][FAST_NR_MAX];
	int64_t *mem;
	/* the 5th percentiles: of the stops' gaps, of each kind's pooled
	 * and by syscall (floors_select(), or the heaps' tops) */
	int64_t stop_q, pool_q[2], by_q[2][FAST_NR_MAX];
};

enum { GAP_FAST, GAP_HELD, GAP_STOP, GAP_NONE };

static int gap_kind(const struct rpl_plan *p, const struct rpl_op *op, const struct rpl_op *prev,
		    int first)
{
	if (first || !prev)
		return GAP_NONE;
	if (rpl_op_stopped(prev))
		return rpl_op_stopped(op) ? GAP_STOP : GAP_NONE;
	if (rpl_op_stopped(op))
		return GAP_NONE;
	return held_op(p, op) ? GAP_HELD : GAP_FAST;
}

/* The gaps of each kind counted (@fast: the fast-path ones too). */
static void floors_count(struct rpl_plan *p, struct walk *w, struct floors *f, int fast)
{
	const struct rpl_op *op, *prev;
	size_t i;
	int first, kind;

	for (i = 0; i < p->n_ops; i++) {
		op = &p->ops[i];
		prev = walk_prev(p, w, i, &first);
		kind = gap_kind(p, op, prev, first);
		if (kind == GAP_STOP) {
			f->n_stop++;
		} else if (kind != GAP_NONE && fast) {
			f->n[kind]++;
			if (op->ev.nr >= 0 && op->ev.nr < FAST_NR_MAX) {
				f->cnt[kind][op->ev.nr]++;
				f->bpf[kind][op->ev.nr] += (op->ev.flags & IOT_EV_BPF) &&
							   (prev->ev.flags & IOT_EV_BPF);
			}
		}
	}
}

/* Room for the heaps of floors_keep(). */
static int floors_heaps(struct floors *f)
{
	size_t i, total, h;

	f->stop.cap = f->n_stop >= 100 ? f->n_stop / 20 + 1 : 0;
	total = f->stop.cap;
	for (h = 0; h < 2; h++) {
		f->pool[h].cap = f->n[h] >= FAST_MIN_SAMPLES ? f->n[h] / 20 + 1 : 0;
		total += f->pool[h].cap;
		for (i = 0; i < FAST_NR_MAX; i++) {
			f->by[h][i].cap = f->cnt[h][i] >= FAST_MIN_SAMPLES ? f->cnt[h][i] / 20 + 1 : 0;
			total += f->by[h][i].cap;
		}
	}
	f->mem = malloc((total + 1) * sizeof(*f->mem));
	if (!f->mem)
		return -ENOMEM;
	f->stop.h = f->mem;
	total = f->stop.cap;
	for (h = 0; h < 2; h++) {
		f->pool[h].h = f->mem + total;
		total += f->pool[h].cap;
		for (i = 0; i < FAST_NR_MAX; i++) {
			f->by[h][i].h = f->mem + total;
			total += f->by[h][i].cap;
		}
	}
	return 0;
}

/* The gaps counted by floors_count() kept, each among the smallest of
 * its kind, and their tops taken: where floors_select() cannot tell. */
static void floors_keep(struct rpl_plan *p, struct walk *w, struct floors *f, int fast)
{
	const struct rpl_op *op, *prev;
	size_t i, h;
	int first, kind;

	walk_reset(p, w);
	for (i = 0; i < p->n_ops; i++) {
		op = &p->ops[i];
		prev = walk_prev(p, w, i, &first);
		kind = gap_kind(p, op, prev, first);
		if (kind == GAP_STOP) {
			if (f->stop.cap)
				rpl_smallest_add(&f->stop, op->think_ns);
		} else if (kind != GAP_NONE && fast) {
			int64_t v = fast_value(p, op, kind == GAP_HELD);

			rpl_smallest_add(&f->pool[kind], v);
			if (op->ev.nr >= 0 && op->ev.nr < FAST_NR_MAX)
				rpl_smallest_add(&f->by[kind][op->ev.nr], v);
		}
	}
	f->stop_q = rpl_smallest_top(&f->stop);
	for (h = 0; h < 2; h++) {
		f->pool_q[h] = rpl_smallest_top(&f->pool[h]);
		for (i = 0; i < FAST_NR_MAX; i++)
			f->by_q[h][i] = rpl_smallest_top(&f->by[h][i]);
	}
}

/* The value at index @k of @a[@n] in sorted order (@a reordered):
 * Hoare's selection, the middle of three as pivot.  budget_calls.c's too. */
uint32_t rpl_select_u32(uint32_t *a, size_t n, size_t k)
{
	long lo = 0, hi = (long)n - 1, i, j, t = (long)k;

	while (lo < hi) {
		uint32_t x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi], piv, tmp;

		piv = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
		for (i = lo, j = hi; i <= j;) {
			while (a[i] < piv)
				i++;
			while (a[j] > piv)
				j--;
			if (i <= j) {
				tmp = a[i];
				a[i++] = a[j];
				a[j--] = tmp;
			}
		}
		if (t <= j)
			hi = j;
		else if (t >= i)
			lo = i;
		else
			break;
	}
	return a[k];
}

/* A gap as 32 bits without sign that order as the gap does: clamped to
 * +-2.1 s and moved up by 2^31. */
static uint32_t gap32(int64_t v)
{
	v = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
	return (uint32_t)(v + 0x80000000LL);
}

/* The 5th percentile of @a[@n] into @q; 1 if it may have been clamped. */
static int select_q(uint32_t *a, size_t n, int64_t *q)
{
	*q = (int64_t)rpl_select_u32(a, n, n / 20) - 0x80000000LL;
	return *q == INT32_MAX || *q == INT32_MIN;
}

/*
 * The gaps counted by floors_count() gathered, 4 bytes each (clamped to
 * 32 bits: 2.1 s), and their 5th percentiles selected among them, not
 * kept in heaps (an add a gap, a step per level of the heap: ~80 M
 * instructions at 1 M events).  The fast-path gaps of each kind lie by
 * syscall, the others after: each syscall's are selected first, then the
 * kind's all together.  @return : 0; 1 if a percentile is at a clamp's
 * bound (floors_keep() then); -ENOMEM.
 */
static int floors_select(struct rpl_plan *p, struct walk *w, struct floors *f, int fast)
{
	size_t at[2][FAST_NR_MAX + 1], base[2], i, h, total;
	const struct rpl_op *op, *prev;
	uint32_t *v;
	int first, kind, clamped = 0;

	total = f->n_stop + (fast ? f->n[0] + f->n[1] : 0);
	v = malloc((total + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	rpl_mem_huge(v, (total + 1) * sizeof(*v));
	total = f->n_stop;
	for (h = 0; h < 2 && fast; h++) {
		base[h] = total;
		for (i = 0; i < FAST_NR_MAX; i++) {
			at[h][i] = total;
			total += f->cnt[h][i];
		}
		at[h][FAST_NR_MAX] = total;	/* syscalls out of the table's */
		total = base[h] + f->n[h];
	}
	walk_reset(p, w);
	for (i = 0, total = 0; i < p->n_ops; i++) {
		op = &p->ops[i];
		prev = walk_prev(p, w, i, &first);
		kind = gap_kind(p, op, prev, first);
		if (kind == GAP_STOP) {
			v[total++] = gap32(op->think_ns);
		} else if (kind != GAP_NONE && fast) {
			int nr = op->ev.nr >= 0 && op->ev.nr < FAST_NR_MAX ? op->ev.nr : FAST_NR_MAX;

			v[at[kind][nr]++] = gap32(fast_value(p, op, kind == GAP_HELD));
		}
	}
	if (f->n_stop >= 100)
		clamped |= select_q(v, f->n_stop, &f->stop_q);
	for (h = 0; h < 2 && fast; h++) {
		for (i = 0, total = base[h]; i < FAST_NR_MAX; total += f->cnt[h][i], i++)
			if (f->cnt[h][i] >= FAST_MIN_SAMPLES)
				clamped |= select_q(v + total, f->cnt[h][i], &f->by_q[h][i]);
		if (f->n[h] >= FAST_MIN_SAMPLES)
			clamped |= select_q(v + base[h], f->n[h], &f->pool_q[h]);
	}
	free(v);
	return clamped;
}

/* The floors of the fast-path gaps (@held: of the held bpf calls' gaps,
 * less their holds) per syscall into @floor_nr (-1: none of that kind),
 * the pooled one into @pooled_out, and the least of those of the kinds
 * whose FAST_MIN_SAMPLES or more gaps are all between two bpf calls into
 * @least_bpf (-1: none such), and how many kinds those are into @n_bpf. */
static void fast_floors(const struct floors *f, int held, int64_t *floor_nr, int64_t *pooled_out,
			int64_t *least_bpf, int *n_bpf)
{
	const size_t *cnt = f->cnt[held], *bpf = f->bpf[held];
	int64_t pooled = 0, least = -1;
	size_t i;
	int n = 0;

	if (f->n[held] >= FAST_MIN_SAMPLES)
		pooled = f->pool_q[held];
	for (i = 0; i < FAST_NR_MAX; i++) {
		floor_nr[i] = !cnt[i] ? -1 : cnt[i] >= FAST_MIN_SAMPLES ?
			      f->by_q[held][i] : pooled;
		if (cnt[i] >= FAST_MIN_SAMPLES && bpf[i] == cnt[i]) {
			n++;
			if (least < 0 || floor_nr[i] < least)
				least = floor_nr[i];
		}
	}
	*pooled_out = pooled;
	*least_bpf = least;
	*n_bpf = n;
}

/* The processes that made no exec: a replay starts a program for each
 * exec (spawn.c), not for a fork alone (the summary says how many). */
static void count_forks_only(struct rpl_plan *p)
{
	uint8_t *execs = calloc(p->n_procs + 1, 1);
	size_t i;

	if (!execs)
		return;
	for (i = 0; i < p->n_ops; i++)
		if (rpl_op_is_exec(&p->ops[i]))
			execs[p->threads[p->ops[i].thread].proc] = 1;
	for (i = 0; i < p->n_procs; i++)
		p->forks_only += p->procs[i].parent >= 0 && !execs[i];
	free(execs);
}

/* What @floor takes off a gap that is @th long: the recorder's CPU time
 * in it, which no gap held more of than its own length. */
static int64_t floor_taken(int64_t th, int64_t floor)
{
	return th <= 0 ? 0 : th < floor ? th : floor;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Under IOTAPE_REPLAY_BUDGET: per thread, its recorded gaps and their
 * median, into @dbg (the rest is filled as the floors are taken). */
static int think_dbg_start(const struct rpl_plan *p, struct rpl_think_dbg *dbg)
{
	int64_t *g = malloc((p->n_ops + 1) * sizeof(*g));
	size_t i;
	uint32_t k;

	if (!g)
		return -ENOMEM;
	for (i = 0; i < p->n_threads; i++) {
		const struct rpl_thread *t = &p->threads[i];

		for (k = 0; k < t->n_ops; k++)
			g[k] = p->ops[t->ops[k]].think_ns;
		qsort(g, t->n_ops, sizeof(*g), cmp_i64);
		dbg[i].p50 = t->n_ops ? g[t->n_ops / 2] : 0;
		dbg[i].n = t->n_ops;
	}
	free(g);
	return 0;
}

static double pos_of(int64_t v)
{
	return v > 0 ? (double)v : 0.0;
}

int rpl_plan_think(struct rpl_plan *p)
{
	struct rpl_think_dbg *dbg = NULL;
	int64_t floor_nr[FAST_NR_MAX], held_nr[FAST_NR_MAX], cost, least = -1, unused;
	int64_t measured = rpl_bpf_gap_measured(p), gap_measure;
	int n_least = 0, n_unused;
	int fast = p->o->timing != RPL_TIMING_RAW;
	const struct rpl_thread *t;
	const struct rpl_op *prev;
	struct floors *fl = calloc(1, sizeof(*fl));
	struct walk w = { 0 };
	struct rpl_op *op;
	double *rec_cpu = NULL;
	size_t i;
	int first, err = -ENOMEM;

	if (!fl || walk_new(p, &w) < 0)
		goto out;
	floors_count(p, &w, fl, fast);
	if ((err = floors_select(p, &w, fl, fast)) > 0) {
		/* a 5th percentile of 2.1 s or more, or below -2.1 s */
		err = floors_heaps(fl);
		if (err == 0)
			floors_keep(p, &w, fl, fast);
	}
	if (err < 0)
		goto out;
	err = -ENOMEM;
	cost = p->stop_cost_ns;
	if (fl->n_stop >= 100) {
		p->gap_floor_ns = fl->stop_q;
		cost = p->gap_floor_ns;
	}
	if (p->o->timing == RPL_TIMING_RAW)
		cost = p->stop_cost_ns;
	p->gap_cost_ns = cost;
	p->bpf_floor_ns = 0;
	if (fast) {
		fast_floors(fl, 0, floor_nr, &p->fast_floor_ns, &least, &n_least);
		fast_floors(fl, 1, held_nr, &p->held_floor_ns, &unused, &n_unused);
		if (!(rec_cpu = calloc(p->n_threads + 1, sizeof(*rec_cpu))))
			goto out;
	}
	free(fl->mem);
	fl->mem = NULL;
	if (!fast)
		measured = -1;
	/* the recorder's measure, or the trace's least floor where its calls
	 * are of several kinds and that floor is higher (above) */
	gap_measure = measured;
	if (measured >= 0 && n_least >= LEAST_KINDS && least > measured)
		measured = least;
	p->bpf_floor_ns = measured >= 0 ? measured : least > 0 ? least : 0;
	if (getenv("IOTAPE_REPLAY_BUDGET") && p->o->timing != RPL_TIMING_RAW) {
		dbg = calloc(p->n_threads + 1, sizeof(*dbg));
		if (!dbg || think_dbg_start(p, dbg) < 0)
			goto out;
		if (measured >= 0 && measured != gap_measure)
			iot_msg(IOT_MSG_INFO, "replay", "budget: a gap between two bpf calls loses "
				"%lld ns, the least of %d syscalls' floors, above the recorder's "
				"measure (record.bpf_gap_ns, %lld ns)", (long long)measured, n_least,
				(long long)gap_measure);
		else if (measured >= 0)
			iot_msg(IOT_MSG_INFO, "replay", "budget: a gap between two bpf calls loses "
				"%lld ns, the recorder's measure (record.bpf_gap_ns)",
				(long long)measured);
		else if (least > 0)
			iot_msg(IOT_MSG_INFO, "replay", "budget: a gap between two bpf calls loses "
				"at most %lld ns, the least syscall's floor (no record.bpf_gap_ns)",
				(long long)least);
	}
	walk_reset(p, &w);
	for (i = 0; i < p->n_ops; i++) {
		int64_t th, sl, rd, fl_ns, th0, th1;

		op = &p->ops[i];
		prev = walk_prev(p, &w, i, &first);
		t = &p->threads[op->thread];
		th = th0 = op->think_ns;

		/* Logged in-process: the library's own work before the call,
		 * measured (pre_ns, traces from this version on); else, fast
		 * path on both sides, its floor.  A bpf call's floor is the
		 * BPF programs' CPU time in the gap: the budget loses it too
		 * (rec_cpu, above). */
		if (p->o->timing != RPL_TIMING_RAW && !rpl_op_stopped(op) && rpl_op_pre(p, op)) {
			th -= rpl_op_pre(p, op);
			if (dbg)
				dbg[t - p->threads].holds += pos_of(th0) - pos_of(th);
			/* held by the bpf guard: what its stop and the BPF
			 * programs cost besides the hold */
			if (fast_gap(p, op, prev, first, 1) &&
			    op->ev.nr >= 0 && op->ev.nr < FAST_NR_MAX && held_nr[op->ev.nr] > 0) {
				fl_ns = floor_taken(th, held_nr[op->ev.nr]);
				rec_cpu[t - p->threads] += (double)fl_ns;
				th -= held_nr[op->ev.nr];
			}
		} else if (measured >= 0 && prev &&
			   (op->ev.flags & IOT_EV_BPF) && (prev->ev.flags & IOT_EV_BPF)) {
			/* between two bpf calls: the programs' cost as the
			 * recorder measured it */
			fl_ns = floor_taken(th, measured);
			rec_cpu[t - p->threads] += (double)fl_ns;
			th -= fl_ns;
		} else if (p->o->timing != RPL_TIMING_RAW && prev && !rpl_op_stopped(prev) &&
			 !rpl_op_stopped(op) && op->ev.nr >= 0 && op->ev.nr < FAST_NR_MAX &&
			 floor_nr[op->ev.nr] > 0) {
			int64_t f = floor_nr[op->ev.nr];

			/* between two bpf calls: the programs' cost, no
			 * more than the least syscall's floor (above) */
			if ((op->ev.flags & IOT_EV_BPF) && (prev->ev.flags & IOT_EV_BPF) &&
			    least >= 0 && least < f)
				f = least;
			fl_ns = floor_taken(th, f);
			if (op->ev.flags & IOT_EV_BPF)
				rec_cpu[t - p->threads] += (double)fl_ns;
			th -= f;
		}

		th1 = th;
		/* half before the gap (the exit stop), half after (the entry
		 * stop): the whole cost between two stopped calls */
		if (!prev || rpl_op_stopped(prev))
			th -= cost / 2;
		if (rpl_op_stopped(op))
			th -= cost - cost / 2;
		if (first && t->spawn_op < 0)
			th = op->think_ns;	/* from the start of the workload */
		if (th > RPL_THINK_MAX) {
			th = RPL_THINK_MAX;
			p->capped++;
		}
		th = th > 0 ? th : 0;
		if (dbg && !(first && t->spawn_op < 0)) {
			struct rpl_think_dbg *d = &dbg[t - p->threads];

			d->raw += pos_of(th0);
			d->floors += pos_of(th0) - pos_of(th1);
			d->stops += pos_of(th1) - pos_of(th);
			d->zeroed += th0 > 0 && th1 <= 0;
		}
		/* the sleep on a disk, no more than the gap holds: out of the
		 * think time, slept apart (raw: left in it) */
		if ((sl = rec_slept(p, op))) {
			if (p->o->timing == RPL_TIMING_RAW)
				sl = 0;
			else if (sl > th)
				sl = th;
			p->slept_ns[op->seq] = (uint32_t)sl;
			th -= sl;
		}
		/* the gap's wait for a CPU, no more than its think time:
		 * what the budget cuts first (budget.c) */
		if ((rd = rpl_op_col(p->ready_ns, p->n_ready, op)) > 0)
			p->ready_ns[op->seq] = (uint32_t)(rd < th ? rd : th);
		op->think_ns = th;
	}
	walk_free(&w);
	free(fl);
	fl = NULL;
	if (p->o->starts)
		count_forks_only(p);
	p->think_ns = p->think_cut_ns = 0;
	if (p->o->timing != RPL_TIMING_RAW) {
		err = rpl_think_budget(p, rec_cpu, dbg);
		goto out;
	}
	for (i = 0; i < p->n_ops; i++)
		p->think_ns += p->ops[i].think_ns;
	err = 0;
out:
	if (fl)
		free(fl->mem);
	free(fl);
	walk_free(&w);
	free(rec_cpu);
	free(dbg);
	return err;
}
