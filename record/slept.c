/*
 * slept.c - under ptrace, the time a thread slept between two stopped
 * calls (the event's slept_ns, which the bpf backend takes from the
 * scheduler's tracepoints): the page-ins of its program and libraries
 * while the dynamic loader maps and relocates them, and any other sleep
 * outside a call, which a replay that spins the gap's CPU time would
 * drop (replay/think.c sleeps it apart).
 *
 * At a call's exit stop the thread is stopped, its counters still: the
 * tracer reads /proc/TID/schedstat (time on a CPU, time waiting for
 * one) and the clock.  At the entry stop of its next call, if nothing
 * was logged in-process in between and its process had a major fault
 * since (wait4()'s rusage at each stop says how many it had: free), it
 * reads them again: the wall time less the time on a CPU and the time
 * runnable is the time the thread was neither, asleep (less the stop
 * cost, the entry stop's own part of the interval).  The interval also
 * holds the time the stopped thread waited for the tracer to see its
 * entry stop: on a loaded machine, with the tracer kept off a CPU,
 * milliseconds, which without the fault test came out as sleep in
 * nearly every gap (a cold make -j2 at load 8: 0.33-0.40 s where the
 * bpf backend measured 0.014-0.017 s).  Costs one pread(2) of schedstat
 * per stopped call (at its exit stop; the entry's only after a fault),
 * on a descriptor kept per thread (the first SLEPT_FDS_MAX threads).
 *
 * The same read at each exit stop gives the call its run_ns: the
 * thread's time on a CPU since the exit stop of its previous call (the
 * gap, the call, and the kernel's work for the stops on the thread's
 * side), where nothing else came between (an in-process call, a stop of
 * another kind, an entry stop with no exit stop).  What a stop costs the
 * thread varies with what the tracer does at it and what runs beside it
 * (the calibration, a loop of close(-1), measured 5.4-6.5 us a call
 * where fio's libaio thread's io_getevents, a call of next to no work
 * after next to no code, took 9.9-10.5 us at the median): the replay
 * takes its stops' cost from these times (replay/budget.c).  No read
 * more than slept_ns's own.
 *
 * Where it can differ from the bpf backend's figure: it counts every
 * sleep in a gap with a page-in, not only the uninterruptible ones (a
 * stopped program's gap has no voluntary sleep but in a call iotape does
 * not record: futex, nanosleep, poll), and, there, the tracer's latency
 * beyond the calibrated stop cost; a fault of another thread of the
 * process opens the test too; gaps that hold an in-process (fast-path)
 * call, or a signal or group stop, get none, and so the page-ins of a
 * dynamically linked program after its loader are not counted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rec.h"

/* Under this (ns), a difference is the clocks' and the stops' noise. */
#define SLEPT_MIN_NS 20000
/* Descriptors kept open at most: a program of thousands of threads must
 * not take the recorder's own (its trace, its reads of /proc) */
#define SLEPT_FDS_MAX 256

static int fds_open;

/* @t's time on a CPU and waiting for one, from its schedstat, kept open
 * (a pread per stop, not an open). @return : 0 or -errno. */
static int read_sched(struct rec_task *t, int64_t *cpu, int64_t *delay)
{
	char buf[96];
	unsigned long long c, d;
	ssize_t n;
	int fd = t->ss_fd - 1;

	if (!t->ss_fd) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", t->pid, t->tid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (fds_open < SLEPT_FDS_MAX) {
			t->ss_fd = fd + 1;
			fds_open++;
		}
	}
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (!t->ss_fd)
		close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	if (sscanf(buf, "%llu %llu", &c, &d) != 2)
		return -EINVAL;
	*cpu = (int64_t)c;
	*delay = (int64_t)d;
	return 0;
}

void rec_slept_close(struct rec_task *t)
{
	if (t->ss_fd) {
		close(t->ss_fd - 1);
		fds_open--;
	}
	t->ss_fd = 0;
	t->ss_ok = t->run_ok = 0;
}

void rec_slept_exit(struct rec_ctx *c, struct rec_task *t)
{
	int64_t cpu, delay;

	t->ss_ok = 0;
	if (c->bpf || read_sched(t, &cpu, &delay) < 0) {
		t->run_ok = 0;
		return;
	}
	/* the same read, since the last exit stop: the call's run_ns */
	if (t->run_ok == 2 && t->in_syscall && cpu >= t->ss_cpu)
		t->ev.run_ns = cpu - t->ss_cpu < 0xffffffffLL ? (uint32_t)(cpu - t->ss_cpu) :
			       0xffffffffu;
	t->ss_cpu = cpu;
	t->ss_delay = delay;
	t->ss_t = iot_now_ns();
	t->ss_majflt = c->stop_majflt;
	t->ss_ok = t->run_ok = 1;
}

void rec_slept_entry(struct rec_ctx *c, struct rec_task *t, int64_t now)
{
	int64_t cpu, delay, s;

	if (!t->ss_ok)
		return;
	t->ss_ok = 0;
	/* too short to hold a sleep worth a read, or no page came in */
	if (now - t->ss_t < SLEPT_MIN_NS + c->stop_cost_ns || c->stop_majflt == t->ss_majflt ||
	    read_sched(t, &cpu, &delay) < 0)
		return;
	s = (now - t->ss_t) - (cpu - t->ss_cpu) - (delay - t->ss_delay) - c->stop_cost_ns;
	if (s < SLEPT_MIN_NS || !t->in_syscall)
		return;
	t->ev.slept_ns = s < 0xffffffffLL ? (uint32_t)s : 0xffffffffu;
	c->st.stop_slept_ns += t->ev.slept_ns;
	c->st.stop_slept++;
}
