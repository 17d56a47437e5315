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
 * that time, as the program was not, and its call starts later.
 *
 * The loop reads the monotonic clock (vDSO, no syscall) for a slice,
 * then the thread's CPU clock (a syscall) to see how much it got; it
 * makes no PAUSE: a virtual CPU that loops on PAUSE may be descheduled by
 * its hypervisor, which takes it for a spinning lock.
 */
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

int rpl_spin_cpu(int64_t ns)
{
	int64_t c0 = iot_thread_cpu_ns(), left = ns, used, slice;

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
		used = iot_thread_cpu_ns();
		if (used < 0)
			break;
		left = ns - (used - c0);
	}
	return 0;
}
