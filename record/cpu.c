/*
 * cpu.c - where the recorder and its tracees run (--cpu-policy).  A stop
 * is cheapest with the tracer and the tracee on one CPU, so `auto` and
 * `one` pin them together; `auto` lets the scheduler spread everything as
 * soon as two programs of the workload run at once, and any pinned pair
 * moves off a CPU that another process keeps busy.  The stop loop
 * (tracer.c) tells this file about each stop, exec and tick.
 */
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rec.h"

/* auto CPU policy: this many stops of one process that fall between two
 * stops of another (within WINDOW ns) means they run at the same time */
#define CONCURRENT_HITS 64
#define CONCURRENT_WINDOW 20000000LL
#define EXEC_HITS 3
#define EXEC_WINDOW 1000000000LL

static void spread_all(struct rec_ctx *c)
{
	int i = 0, left = c->ntasks;
	struct rec_task *t;

	c->spread = 1;
	c->st.spread_ns = iot_now_ns();
	rec_unpin_task(0);
	while ((t = rec_task_next(c, &i, &left)))
		rec_unpin_task(t->tid);
}

/* Whether @o is no sign of two programs running at once: waiting on a
 * child (wait4, waitid), lending the child its memory (vfork, until the
 * child's exec or exit, and until its own next stop after that), in the
 * fork that made the child, or ending (a serial script's last child, not
 * yet reaped). */
static int task_idle(const struct rec_task *o)
{
	if (o->vfork_hold || o->vfork_child || o->exited_event)
		return 1;
	if (!o->in_syscall)
		return 0;
	switch (o->ev.nr) {
	case SYS_wait4: case SYS_waitid: case SYS_vfork: case SYS_fork:
	case SYS_exit: case SYS_exit_group:
		return 1;
	case SYS_clone: case SYS_clone3:
		/* a fork whose return the tracer has not seen yet: its child
		 * already runs, and is no sign of two programs at once */
		return (o->clone_flags & CLONE_THREAD) == 0;
	}
	return 0;
}

/* auto: serial workloads stay on one CPU (cheap stops); as soon as two
 * processes keep making recorded calls in the same time window, let the
 * scheduler spread them. */
void rec_cpu_watch_stop(struct rec_ctx *c, struct rec_task *t, int64_t now)
{
	static pid_t last_pid;
	static int64_t last_ns;
	static int hits;

	if (c->o->cpu_policy != REC_CPU_AUTO || c->spread)
		return;
	if (last_pid && t->pid != last_pid && now - last_ns < CONCURRENT_WINDOW) {
		struct rec_task *o = rec_task_get(c, last_pid);

		/* either gone (a script's child that ended), or blocked
		 * or about to block in wait4 or vfork: not running
		 * alongside the other; nor is a parent between its fork and
		 * its wait4 (the hits add up over a whole run: a loaded
		 * machine made a bash loop of 200 programs spread near its
		 * end) */
		if (o && !task_idle(o) && !task_idle(t) && o->pid != t->ppid &&
		    t->pid != o->ppid && ++hits >= CONCURRENT_HITS)
			spread_all(c);
	}
	last_pid = t->pid;
	last_ns = now;
}

/*
 * auto, at each exec: a program starts while another process of the
 * workload is running (not blocked waiting for a child), as under make -j2.
 * With the fast path few calls stop, so rec_cpu_watch_stop() may never see
 * enough interleaved stops; a second program alongside is the clearer sign.
 */
void rec_cpu_watch_exec(struct rec_ctx *c, struct rec_task *t)
{
	/* A forking shell runs for a moment between its fork and its wait4,
	 * and its child's exec can fall in it (seen once in ~1,000 programs
	 * of a serial bash loop, more often on a loaded machine: a bash loop
	 * of 200 programs spread once in ~8 runs of make check): the parent
	 * running is no sign, and it takes EXEC_HITS execs beside another
	 * process within EXEC_WINDOW. */
	static int64_t hit_ns[EXEC_HITS];
	static unsigned n_hits;
	int64_t now;
	int i = 0, left = c->ntasks;
	struct rec_task *o;

	if (c->o->cpu_policy != REC_CPU_AUTO || c->spread || !c->fast)
		return;
	while ((o = rec_task_next(c, &i, &left))) {
		if (o->pid == t->pid || o->pid == t->ppid || !o->attached || task_idle(o))
			continue;
		now = iot_now_ns();
		hit_ns[n_hits++ % EXEC_HITS] = now;
		if (n_hits >= EXEC_HITS && now - hit_ns[n_hits % EXEC_HITS] < EXEC_WINDOW)
			spread_all(c);
		return;
	}
}

/* Pinned to a CPU that another process keeps busy, the tracer and its
 * tracees wait for it while another CPU may idle; the scheduler cannot
 * move them.  If the tracer waited on the run queue for over a quarter of
 * the last tick, move the pair to the next CPU. */
void rec_cpu_rebalance(struct rec_ctx *c)
{
	static int64_t last_ns, last_delay;
	unsigned long long run, delay = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int64_t now = iot_now_ns();
	FILE *f;
	struct rec_task *t;
	int i, left, cpu;
	cpu_set_t set;

	if (c->spread || c->o->cpu_policy == REC_CPU_NONE || ncpu < 2)
		return;
	f = fopen("/proc/thread-self/schedstat", "re");
	if (!f)
		return;
	if (fscanf(f, "%llu %llu", &run, &delay) != 2)
		delay = 0;
	fclose(f);
	if (last_ns && ((int64_t)delay - last_delay) * 4 > now - last_ns) {
		cpu = (int)((c->pinned_cpu + 1) % ncpu);
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		i = 0;
		left = c->ntasks;
		while ((t = rec_task_next(c, &i, &left)))
			sched_setaffinity(t->tid, sizeof(set), &set);
		rec_pin_cpu(cpu);
		c->pinned_cpu = cpu;
		c->st.moves++;
	}
	last_ns = now;
	last_delay = (int64_t)delay;
}
