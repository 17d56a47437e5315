/*
 * spin.c - think time spent as CPU time (--think cpu, the default).
 *
 * Under --timing original a think time is bounded by the CPU time the
 * thread used (think.c): it is the program's computing between two calls.
 * Slept, it costs the machine nothing, so a replay does not compete for
 * the CPUs as the program did: xz compressing at one thread next to tar,
 * make -j2 with its compilers, anything replayed on a loaded machine
 * replays as fast as on an idle one (the compress phase of a tar | xz
 * pipeline: the replay used 0.19x the recorded CPU and took 0.66x the
 * native time).  So the replaying thread spends it as CPU: it runs until
 * its own CPU clock (CLOCK_THREAD_CPUTIME_ID) has advanced by the think
 * time.  A thread that other work keeps off the CPU is not credited for
 * that time, as the program was not, and its call starts later.  Nor is
 * it for the time it was kept off the CPU between the previous call's
 * end and the spin (exec_thread.c adds it to the think time it asks for): right
 * after a write that wakes another replayed thread, which takes the CPU,
 * the program too would have computed later.
 *
 * The loop reads the monotonic clock (vDSO, no syscall) for a slice,
 * then the thread's CPU clock (a syscall) to see how much it got; it
 * makes no PAUSE: a virtual CPU that loops on PAUSE may be descheduled by
 * its hypervisor, which takes it for a spinning lock.
 *
 * Between two slices it yields the CPU (sched_yield) while a hand-over of
 * the replay's own is pending: a process start (spawn.c: its program,
 * then the thread that waits for it), a thread made and not yet running,
 * a thread woken from a wait for another's op or a process's end.  Each
 * of those is one task the program did not have or had run at once, and
 * queued behind the spinning threads it waited up to a scheduler slice
 * (the 171 starts of a make -j2 took 3.5-5.5x as long with think time
 * spun as without).  The yield costs a spinning thread no CPU time it is
 * owed: its think time is counted on its own CPU clock, not the wall
 * clock; a yield with nothing else to run returns at once.
 */
#include <sched.h>
#include <time.h>

#include "rpl.h"
#include "engine.h"

/* how long to run between two reads of the thread's CPU clock */
#define SPIN_SLICE_NS 20000

int rpl_spin_wanted(const struct rpl_plan *p, int64_t ns)
{
	return p->o->think == RPL_THINK_CPU && p->o->timing != RPL_TIMING_RAW &&
	       ns > RPL_SPIN_MIN_NS;
}

/* A hand-over is pending: starts under way, or a wake since @seen. */
static int handover(struct rpl_plan *p, uint32_t *seen)
{
	uint32_t w = atomic_load_explicit(&p->wake_seq, memory_order_relaxed);

	if (w != *seen) {
		*seen = w;
		return 1;
	}
	return atomic_load_explicit(&p->handovers, memory_order_relaxed) > 0;
}

int rpl_spin_cpu(struct rpl_plan *p, int64_t ns, int64_t cpu0)
{
	int64_t c0 = cpu0 >= 0 ? cpu0 : iot_thread_cpu_ns(), left = ns, used, slice;
	uint32_t seen = atomic_load_explicit(&p->wake_seq, memory_order_relaxed);

	if (c0 < 0)
		return 0;	/* no CPU clock: think time is not spent */
	while (left > 0) {
		int64_t until;

		slice = left < SPIN_SLICE_NS ? left : SPIN_SLICE_NS;
		until = iot_now_ns() + slice;
		while (iot_now_ns() < until)
			;
		if (atomic_load_explicit(&rpl_stop_sig, memory_order_relaxed))
			return 1;
		if (handover(p, &seen)) {
			sched_yield();
			atomic_fetch_add_explicit(&p->spin_yields, 1, memory_order_relaxed);
		}
		used = iot_thread_cpu_ns();
		if (used < 0)
			break;
		left = ns - (used - c0);
	}
	return 0;
}
