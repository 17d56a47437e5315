/*
 * budget.c - the CPU time that bounds think time: a thread cannot have
 * thought longer than it used the CPU outside its recorded calls, so the
 * think times think.c leaves are scaled down to fit each thread's (or its
 * process's) recorded CPU time, less what each call used of it.  Apart
 * from think.c because what a call used is its own question, apart here
 * too (budget_calls.c): its recorded cpu_ns, or an estimate from the
 * calls of its kind that a call that blocked, or that the tracer held at
 * its stops, cannot inflate.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "rpl.h"
#include "think.h"
#include "budget_int.h"

/*
 * The user CPU time of a traced process is itself inflated: after each
 * stop its code resumes with caches and TLB the tracer has used, so a
 * program that makes a call every microsecond or two uses several times
 * the user time it uses untraced (cp -a of a 2,174-entry tree: 40-60 ms
 * traced, 10-20 ms untraced; tar c: 20 ms against 3 ms).  Measured, the
 * excess is about one twentieth of the stop cost per stopped call (a
 * fast-path call does not leave the process), so the budget is the EXIT
 * records' utime less that per stopped call (never below a quarter of
 * the utime), plus half a clock tick: utime is sampled per tick, and a
 * process seen for no tick still ran for up to one.
 */
#define RPL_TICK_NS 10000000.0	/* utime is counted in 1/100 s */

/*
 * Traces whose CPU times are exact (header record.stop_cpu_ns, recorders
 * from this version on: schedstat, not clock ticks) bound think time by
 * user and system time together: what a program does between two
 * recorded calls includes the kernel's work for it (page faults, the
 * calls iotape does not record: brk, mprotect, anonymous mmap), which is
 * its own time.  Less what tracing added to that time: the kernel's work
 * for each stop (measured by the recorder's calibration) and the fast
 * path's own work before each in-process call (pre_ns).  And less the
 * recorded calls' own system time, which the replay's calls spend again:
 * system time goes to the calls first, up to what each used of the CPU
 * (budget_calls.c), and only the rest to the gaps.  Counted twice, it was spun as
 * think time: fio's libaio thread (64 MiB in 4 KiB O_DIRECT writes,
 * 32,768 io_submit and io_getevents, 21 ms of user and 337 ms of system
 * time, most of it io_submit's in-call submission) got 5.5 us of think
 * time per gap where fio thinks under 1 us, and its replay took 1.5x
 * fio's time; with the budget of its user time, 0.8 us.
 *
 * The split of a task's exact CPU time into user and system time is the
 * split of the clock ticks that fell in it (record/setup.c,
 * rec_read_cputime(), and the bpf backend alike), and a program that
 * runs for under a tick or two is often seen by none in the kernel: all
 * its time is then user time, system time 0.  Its calls' CPU time was
 * then taken from nothing, and the budget was its whole CPU time: a
 * ptrace recording of make -j2 planned each sh, gcc driver, mkdir and as
 * about all their CPU time as think time (sh 34 ms, gcc 36 ms), where
 * the bpf recording of the same minute, whose gaps are not inflated by
 * stops and so are rarely cut, planned their CPU time less their calls'
 * (21 and 23 ms).  So where no tick fell in the kernel (system time 0),
 * the calls' CPU time comes out of the user time.
 *
 * A bpf recording's system time also holds the BPF programs' work at
 * each call's entry and exit outside the call's timestamps (~0.5 us a
 * call: 200,000 fstat() used 1.4 us of CPU a call recorded, 0.45
 * natively, 0.77 us of it in the calls' cpu_ns).  think.c takes it off
 * each gap as the floor of its syscall's gaps and hands what it took per
 * thread to the budget (rec_cpu), which loses it too: else a thread
 * whose gaps the machine stretched (preempted in them) kept the
 * programs' time in its budget and spun it as think time.
 */
int64_t rpl_header_ns(const struct rpl_plan *p, const char *key, int64_t max)
{
	const char *v = p->hdr ? iot_header_get(p->hdr, key) : NULL;
	char *end;
	long long n;

	if (!v || !*v)
		return -1;
	n = strtoll(v, &end, 10);
	return *end || n < 0 || n > max ? -1 : n;
}

static int64_t exact_stop_cpu(const struct rpl_plan *p)
{
	return rpl_header_ns(p, "record.stop_cpu_ns", 1000000000LL);
}

/*
 * A program started under the tracer used more CPU time than its stops
 * account for: the exec's event stop, the caches and TLB the tracer
 * used, the loading of the fast path's library: 0.3-0.7 ms for
 * /bin/true on a loaded 2-CPU machine (header
 * record.proc_cpu_ns, calibrated by the recorder, record/setup.c).
 * configure's ptrace recording, 432 programs, held 0.8 s more user time
 * than its bpf recording, and its replay spent it as think time.  Each
 * successful exec takes it off the budget of the thread that made it and
 * of its process: the traced start's excess, not the workload's time.
 */
static double proc_start_cpu(const struct rpl_plan *p)
{
	int64_t v = rpl_header_ns(p, "record.proc_cpu_ns", 1000000000LL);

	return v > 0 ? (double)v : 0.0;
}

/* What a thread or a process used, as the budget counts it. */
struct cpu_use {
	double sum;		/* its think times */
	double pre;		/* the fast path's own work before its calls */
	double in_calls;	/* its recorded calls' CPU time (rpl_call_cpu()) */
	double in_low;		/* ... each at most its kind's 5th percentile */
	double rec;		/* the BPF programs' time think.c's floors
				 * took off its gaps (rec_cpu) */
	double ready;		/* its gaps' waits for a CPU in their think
				 * times (ready_ns, as think.c bounded them) */
	double stops;		/* its stopped calls' stops (rpl_run_cost()) */
	uint32_t calls;		/* its stopped calls */
	uint32_t starts;	/* its programs started (successful execs) */
};

/* The CPU time of a process or thread (its EXIT record), in microseconds
 * (71 minutes fit): user and system time apart, and of them the
 * recorder's own work outside the calls (rec_ns). */
struct cpu_maps {
	struct rpl_map user, sys, rec;
};

static uint32_t us_of(int64_t ns)
{
	return ns <= 0 ? 0 : (uint32_t)(ns / 1000 > UINT32_MAX ? UINT32_MAX : ns / 1000);
}

/* Add @us to @key's value in @m. */
static int add_us(struct rpl_map *m, uint64_t key, uint32_t us)
{
	uint32_t v = 0;

	rpl_map_get(m, key, &v);
	return rpl_map_put(m, key, v + (us > UINT32_MAX - v ? UINT32_MAX - v : us));
}

/* The CPU time of the EXIT records per thread (@by_tid) and per process
 * (@by_pid); system time only where it is @exact.
 *
 * An EXIT record's rec_ns is time the recorder spent in the task outside
 * its calls that the task's CPU time holds: the bpf backend's programs
 * at its page faults (record/bpf/mpages.bpf.h), as they timed
 * themselves, and the exit program's runs that took 3 us or more after
 * its stamp (a record written into a page of the ring not written
 * before: ~10 us in a VM, 2,048 times in a recording's first 8 MiB of
 * records; record/bpf/iotape.bpf.c's exit_tail()).  It is not the
 * program's, and no floor of think.c took it off a gap: it comes off
 * the budget, as think.c's rec_cpu does, and off the gaps' sum
 * (rpl_think_budget()).  It is small: configure (432
 * processes) 7-8 ms in ~38,000 runs of 1.4-1.8 s of recorded CPU time
 * (17-23 ms in ~160,000 while small read-only mappings left in the table
 * of 2 MiB blocks had page_fault_user's program look up every fault,
 * mpages.bpf.h); make -j2 15-17 ms then.  Not in
 * it: the tracepoints' calls of the programs and their first look-up
 * (~0.1 us a file fault for a task not followed, by its CPU time with a
 * recorder loaded and without, in this VM). */
static int exit_cpu(const struct rpl_plan *p, int exact, struct cpu_maps *by_tid,
		    struct cpu_maps *by_pid)
{
	size_t i;

	for (i = 0; i < p->n_precs; i++) {
		const struct iot_process *pr = &p->precs[i];
		uint32_t ut, st, rt;

		if (pr->kind != IOT_PROC_EXIT || pr->utime_ns < 0)
			continue;
		ut = us_of(pr->utime_ns);
		st = exact ? us_of(pr->stime_ns) : 0;
		rt = us_of(pr->rec_ns);
		if (add_us(&by_pid->user, RPL_IK(pr->pid), ut) < 0 ||
		    add_us(&by_pid->sys, RPL_IK(pr->pid), st) < 0 ||
		    (rt && add_us(&by_pid->rec, RPL_IK(pr->pid), rt) < 0) ||
		    (pr->tid > 0 && (rpl_map_put(&by_tid->user, RPL_IK(pr->tid), ut) < 0 ||
				     rpl_map_put(&by_tid->sys, RPL_IK(pr->tid), st) < 0 ||
				     (rt && rpl_map_put(&by_tid->rec, RPL_IK(pr->tid), rt) < 0))))
			return -ENOMEM;
	}
	return 0;
}

/* The budget of @u, which used @ut microseconds of user time and @st of
 * system time (0 unless exact), @rt of them the recorder's outside its
 * calls (exit_cpu()): less @per_call a stopped call where not exact,
 * else its stops' cost (u->stops). */
static double budget_of(const struct cpu_use *u, uint32_t ut, uint32_t st, uint32_t rt,
			double per_call, double per_start, int exact)
{
	double us = (double)ut + (double)st, kern, budget, rec = u->rec + (double)rt * 1000.0;
	/* more than the thread used in all: they blocked (rpl_call_low()) */
	double in = u->in_calls > us * 1000.0 ? u->in_low : u->in_calls;

	if (!exact) {
		budget = us * 1000.0 - per_call * u->calls - per_start * u->starts - rec;
		if (budget < us * 250.0)
			budget = us * 250.0;
		return budget + RPL_TICK_NS / 2;
	}
	/* system time goes to the recorded calls first, up to what they
	 * used of it (rpl_call_cpu()): the replay's own calls spend it again;
	 * where no tick fell in the kernel, from the user time, which then
	 * holds all of it (below) */
	kern = (double)st * 1000.0 - u->stops;
	if (!st)
		kern -= in;
	else if (kern > 0)
		kern = kern > in ? kern - in : 0;
	budget = (double)ut * 1000.0 + kern - u->pre - per_start * u->starts - rec;
	if (budget < (double)ut * 250.0)
		budget = (double)ut * 250.0;
	return budget;
}

/*
 * Scale each thread's think times to fit its CPU time, where the trace
 * has an EXIT record of that thread (each thread's, since the recorder
 * reads CPU time per thread); else its process's, as a whole.  Per
 * process, a thread that waits (a futex, a condition variable: calls not
 * recorded) shares its process's budget with the threads that compute:
 * in python's process pool, two threads that mostly wait (1.16 and
 * 1.09 s of gaps, 91 and 32 ms of CPU) cut the gaps of the thread that
 * reads the workers' results (0.11 s of gaps, 70 ms of CPU) to 0.06 of
 * them with the budget of the process; its own allows 0.6.
 */
/* IOTAPE_REPLAY_BUDGET: how thread @i's think time was planned, in ms:
 * its recorded gaps (their sum and median), what think.c's floors and
 * the stops took off them (and how many gaps the floors took whole),
 * what was left, the CPU time it is bounded by and of what that is made,
 * and the factor the budget cut it by. */
static void budget_dbg(const struct rpl_plan *p, size_t i, const struct rpl_think_dbg *d,
		       const struct cpu_use *u, uint32_t ut, uint32_t st, uint32_t rt, double budget,
		       double scale, double rcut, int own)
{
	const struct rpl_thread *t = &p->threads[i];

	iot_msg(IOT_MSG_INFO, "replay",
		"budget: tid %d%s: %u gaps %.3f ms (p50 %.2f us), floors -%.3f ms (holds %.3f; %u whole), "
		"stops -%.3f ms, left %.3f ms (waits for a CPU %.3f, cut first: x%.3f of them); cpu user %.3f + sys %.3f ms, calls %.3f (low %.3f), "
		"stops %.3f (%u), pre %.3f, rec %.3f + %.3f: budget %.3f ms, x%.3f -> %.3f ms",
		t->tid, own ? "" : " (its process's)", d->n, d->raw / 1e6, (double)d->p50 / 1e3,
		d->floors / 1e6, d->holds / 1e6, d->zeroed, d->stops / 1e6, u->sum / 1e6, u->ready / 1e6,
		rcut, ut / 1e3, st / 1e3,
		u->in_calls / 1e6, u->in_low / 1e6, u->stops / 1e6, u->calls, u->pre / 1e6,
		u->rec / 1e6, rt / 1e3, budget / 1e6, scale, u->sum * scale / 1e6);
}

/*
 * What of @op's think time was no computing, which the budget cuts first:
 * its gap's wait for a CPU (ready_ns, bounded by think.c) and, with
 * @sleeps, the voluntary sleep the bpf backend timed in it (waited_ns: a
 * futex, a condition variable), what of the think time the wait left.
 * Cut alike with the rest, the sleeps took the computing of a thread
 * that both computes and waits: rustc's main thread computes alone for
 * 124 ms of gaps, then waits for its code generation threads (20 and
 * 81 ms of two gaps' 146); its budget (190 ms of CPU time for 334 ms of
 * gaps) cut every gap to 0.51, the wakes gave back 1.33 times that to
 * the others (wakes.c), and its first 158 ms replayed in 93 (a Rust build
 * 14-21 % fast on ext4, xfs and btrfs).
 */
static int64_t off_cpu(const struct rpl_plan *p, const struct rpl_op *op, int sleeps)
{
	int64_t rd = rpl_op_col(p->ready_ns, p->n_ready, op), wt;

	if (!sleeps || !p->waited_ns || !(op->ev.flags & IOT_EV_BPF))
		return rd;
	wt = rpl_op_col(p->waited_ns, p->n_waited, op);
	if (wt > op->think_ns - rd)
		wt = op->think_ns - rd;
	return wt > 0 ? rd + wt : rd;
}

int rpl_think_budget(struct rpl_plan *p, const double *rec_cpu, const struct rpl_think_dbg *dbg)
{
	struct cpu_use *th = calloc(p->n_threads + 1, sizeof(*th));
	struct cpu_use *pc = calloc(p->n_procs + 1, sizeof(*pc));
	double *scale = calloc(p->n_threads + 1, sizeof(*scale));
	double *rcut = calloc(p->n_threads + 1, sizeof(*rcut));
	int64_t *run = malloc((p->n_threads + 1) * sizeof(*run));
	int64_t stop_cpu = exact_stop_cpu(p);
	double per_call = stop_cpu >= 0 ? (double)stop_cpu : (double)p->stop_cost_ns / 20.0;
	double per_start = proc_start_cpu(p);
	struct cpu_maps by_tid = { 0 }, by_pid = { 0 };
	int64_t *caps = malloc(3 * CALL_KEYS * sizeof(*caps)), held = 0;
	/* rpl_is_wait() of a call nr, looked up once, not per op and pass
	 * (estimated_key(), rpl_call_cpu(), rpl_call_low()) */
	uint8_t waits[CALL_NR_MAX];
	struct rpl_op wop = { 0 };
	/* IOTAPE_REPLAY_READY=0: every gap cut alike (to measure what the
	 * waits for a CPU do) */
	const char *env = getenv("IOTAPE_REPLAY_READY");
	int by_ready = !env || strcmp(env, "0") != 0;
	/* IOTAPE_REPLAY_SLEEPS=0: the sleeps in the gaps cut alike with
	 * the rest (off_cpu(); to measure what they do) */
	const char *sl_env = getenv("IOTAPE_REPLAY_SLEEPS");
	int sleeps = !sl_env || strcmp(sl_env, "0") != 0;
	size_t i;
	int err = -ENOMEM;

	for (i = 0; i < CALL_NR_MAX; i++) {
		wop.ev.nr = (int16_t)i;
		waits[i] = (uint8_t)rpl_is_wait(&wop);
	}
	if (!th || !pc || !scale || !rcut || !caps || !run || rpl_call_caps(p, waits, caps, &held) < 0 ||
	    exit_cpu(p, stop_cpu >= 0, &by_tid, &by_pid) < 0 || rpl_run_cost(p, run) < 0)
		goto out;
	for (i = 0; i < p->n_ops; i++) {
		const struct rpl_op *op = &p->ops[i];
		struct cpu_use *u[2] = { &th[op->thread], &pc[p->threads[op->thread].proc] };
		int64_t cpu = rpl_call_cpu(p, waits, op, caps, held);
		double in = (double)cpu, low = (double)rpl_call_low(p, waits, op, caps, cpu);
		double rd = (double)off_cpu(p, op, sleeps);
		int k;

		for (k = 0; k < 2; k++) {
			u[k]->sum += (double)op->think_ns;
			u[k]->ready += rd;
			u[k]->in_calls += in;
			u[k]->in_low += low;
			u[k]->starts += rpl_op_is_exec(op);
			/* a BPF event's pre_ns is time the recorder's stop held
			 * it asleep, not CPU time of the thread's */
			if (rpl_op_stopped(op)) {
				u[k]->calls++;
				u[k]->stops += run[op->thread] >= 0 ? (double)run[op->thread] :
					       per_call;
			} else if (op->ev.flags & IOT_EV_FASTPATH) {
				u[k]->pre += (double)rpl_op_pre(p, op);
			}
		}
	}
	for (i = 0; rec_cpu && i < p->n_threads; i++) {
		th[i].rec = rec_cpu[i];
		pc[p->threads[i].proc].rec += rec_cpu[i];
	}
	/* each thread's factor once, not a look-up per op (1: not cut) */
	for (i = 0; i < p->n_threads; i++) {
		const struct rpl_thread *t = &p->threads[i];
		const struct cpu_use *u = &th[i];
		uint32_t ut, st = 0, rt = 0;
		double budget;

		/* the thread's factor as a whole (wakes.c): its think time
		 * after the cut over before */
		scale[i] = p->threads[i].think_scale = 1.0;
		if (rpl_map_get(&by_tid.user, RPL_IK(t->tid), &ut)) {
			rpl_map_get(&by_tid.sys, RPL_IK(t->tid), &st);
			rpl_map_get(&by_tid.rec, RPL_IK(t->tid), &rt);
		} else {
			u = &pc[t->proc];
			if (!rpl_map_get(&by_pid.user, RPL_IK(p->procs[t->proc].pid), &ut))
				continue;	/* no EXIT record: nothing to go by */
			rpl_map_get(&by_pid.sys, RPL_IK(p->procs[t->proc].pid), &st);
			rpl_map_get(&by_pid.rec, RPL_IK(p->procs[t->proc].pid), &rt);
		}
		budget = budget_of(u, ut, st, rt, per_call, per_start, stop_cpu >= 0);
		/* the programs' time at its faults (rec_ns) was spent in its
		 * gaps: they lose it even where the budget leaves them whole
		 * (which gaps held the faults is not in the trace: the sum is
		 * scaled) */
		if (rt && u->sum - (double)rt * 1000.0 < budget)
			budget = u->sum > (double)rt * 1000.0 ? u->sum - (double)rt * 1000.0 : 0;
		if (u->sum > budget) {
			scale[i] = p->threads[i].think_scale = budget / u->sum;
			/* the cut comes first out of the gaps' waits for a CPU
			 * (the bpf backend's ready_ns: preempted, or woken and
			 * not yet running), which were no computing, and only
			 * then out of every gap alike: rcut is the share of
			 * each wait cut, scale what is left of the rest */
			if (by_ready && u->ready > 0.0) {
				double cut = u->sum - budget;

				rcut[i] = cut >= u->ready ? 1.0 : cut / u->ready;
				scale[i] = cut >= u->ready ?
					   (u->sum > u->ready ? budget / (u->sum - u->ready) : 0.0) : 1.0;
			}
		}
		if (dbg)
			budget_dbg(p, i, &dbg[i], u, ut, st, rt, budget, p->threads[i].think_scale,
				   rcut[i], u == &th[i]);
	}
	for (i = 0; i < p->n_ops; i++) {
		struct rpl_op *op = &p->ops[i];

		if (rcut[op->thread] > 0.0) {
			int64_t rd = (int64_t)((double)off_cpu(p, op, sleeps) * rcut[op->thread]);

			p->think_cut_ns += rd;
			op->think_ns -= rd;
		}
		if (scale[op->thread] < 1.0) {
			int64_t cut = (int64_t)((double)op->think_ns * scale[op->thread]);

			p->think_cut_ns += op->think_ns - cut;
			op->think_ns = cut;
		}
		p->think_ns += op->think_ns;
	}
	err = 0;
out:
	rpl_map_free(&by_pid.user);
	rpl_map_free(&by_pid.sys);
	rpl_map_free(&by_pid.rec);
	rpl_map_free(&by_tid.user);
	rpl_map_free(&by_tid.sys);
	rpl_map_free(&by_tid.rec);
	free(run);
	free(caps);
	free(scale);
	free(rcut);
	free(pc);
	free(th);
	return err;
}
