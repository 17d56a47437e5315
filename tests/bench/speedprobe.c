/*
 * speedprobe.c - the machine's speed, sampled while something else runs:
 * every PERIOD ms a fixed amount of work is timed by the thread's CPU
 * clock and by the monotonic clock, and one line is logged per sample.
 * Work per CPU-ns is the speed; a program's CPU time that grows in a
 * minute the probe's loops also took longer is the machine's, one the
 * probe did not see is the program's own.
 *
 * Three loops per sample, one after the other:
 *   alu    ITERS steps of an xorshift64 chain: each step needs the one
 *          before, no memory, no PAUSE; ~35 us at the default 20,000 on
 *          a 3-4 GHz core.  It sees the core's clock and the host taking
 *          the vCPU away (a guest without steal accounting counts the
 *          stolen time as the thread's own CPU time).
 *   ilp    the same steps in 8 independent chains (ITERS in all): as
 *          much work as the core can issue at once, which a busy
 *          hyperthread sibling on the host would share.
 *   chase  STEPS loads along a random cycle of cache lines over KIB KiB
 *          (default 256: a core's L2), continuing where the previous
 *          sample stopped.  It sees what evicted the buffer from the
 *          caches in between: the programs on this VM and the host's
 *          other tenants alike (on a 2-vCPU cloud VM, 256 KiB read
 *          after a 5 ms gap cost 140-180 ns a load, read in a loop
 *          11 ns: little of it stays), and the memory's latency.
 *          -m 0 leaves it out.
 * Nothing is pinned unless -c is given; -f runs the probe SCHED_FIFO
 * (then the guest's own programs cannot preempt a loop).
 *
 * The three take ~100 us; with the clock reads and the wake-up a probe
 * at the default period used 3.1-3.3 % of a CPU (2-vCPU cloud VM).
 * The thread's CPU clock is read by a system call (2-3 us with page
 * table isolation), so a loop's wall time is that much above its CPU
 * time even when nothing preempted it.
 *
 * usage: speedprobe [-p MS] [-n ITERS] [-m KIB] [-s STEPS] [-c CPU] [-f]
 *                   [-t SECONDS] [-o FILE]
 * Runs until SIGINT or SIGTERM (or for -t SECONDS), then flushes its log
 * (default: stdout).  Header lines start with '#'; then per sample:
 *   mono_ns alu_cpu_ns alu_wall_ns ilp_cpu_ns ilp_wall_ns chase_cpu_ns chase_wall_ns cpu
 * (mono_ns: CLOCK_MONOTONIC at the sample's start; cpu: the CPU it ended
 * on, -1 if it moved during the sample).  SIGUSR1 logs '# mark MONO_NS'
 * (the time the signal came), to cut the log into a command's runs.
 *
 * Example: two probes, one per CPU, around a command, and the median alu
 * time of each over the command's run:
 *   P=build/tests/bench/speedprobe
 *   $P -c 0 -o p0.log & a=$!; $P -c 1 -o p1.log & b=$!; sleep 0.1
 *   kill -USR1 $a $b; make -j2; kill -USR1 $a $b; kill $a $b; wait
 *   for f in p0.log p1.log; do
 *     awk '/^# mark/ {m++; next} !/^#/ && m == 1 {print $2}' $f | sort -n |
 *       awk -v f=$f '{v[NR] = $1} END {print f, v[int((NR + 1) / 2)]}'
 *   done
 * docs/VALIDATION.md ("Is the recording's minute the machine's speed?")
 * ran two such probes around rounds of native runs and bpf recordings
 * of the validation suite's tarxz and make, each run's window taken from
 * its driver's CLOCK_MONOTONIC stamps.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LINE 64

static volatile sig_atomic_t stop, marked;
static volatile int64_t mark_ns;
static volatile uint64_t sink;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* clock_gettime() is async-signal-safe; the line is written by the loop */
static void on_mark(int sig)
{
	(void)sig;
	mark_ns = now_ns(CLOCK_MONOTONIC);
	marked = 1;
}

/* The chain cannot be shortened by the compiler: each step needs the
 * previous state, and the result is stored where it must be kept. */
static void alu(uint64_t iters)
{
	uint64_t x = sink | 1;

	for (uint64_t i = 0; i < iters; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	sink = x;
}

static void ilp(uint64_t iters)
{
	uint64_t x[8];

	for (int j = 0; j < 8; j++)
		x[j] = sink + (uint64_t)j * 0x9e3779b97f4a7c15ull + 1;
	for (uint64_t i = 0; i < iters / 8; i++) {
		for (int j = 0; j < 8; j++) {
			x[j] ^= x[j] << 13;
			x[j] ^= x[j] >> 7;
			x[j] ^= x[j] << 17;
		}
	}
	sink = x[0] ^ x[1] ^ x[2] ^ x[3] ^ x[4] ^ x[5] ^ x[6] ^ x[7];
}

/* A random single cycle over all lines (Sattolo's shuffle), so that the
 * hardware prefetchers cannot guess the next line. */
static uint64_t *chase_make(size_t kib)
{
	size_t n = kib * 1024 / LINE, stride = LINE / sizeof(uint64_t);
	uint64_t *buf, *perm, r = 0x9e3779b97f4a7c15ull;

	if (n < 2 || !(buf = aligned_alloc(LINE, n * LINE)))
		return NULL;
	if (!(perm = malloc(n * sizeof(*perm)))) {
		free(buf);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j;
		uint64_t t;

		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		j = r % i;
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	memset(buf, 0, n * LINE);
	for (size_t i = 0; i < n; i++)
		buf[perm[i] * stride] = perm[(i + 1) % n] * stride;
	free(perm);
	return buf;
}

static uint64_t chase(const uint64_t *buf, uint64_t pos, uint64_t steps)
{
	for (uint64_t i = 0; i < steps; i++)
		pos = buf[pos];
	return pos;
}

static void usage(void)
{
	fprintf(stderr, "usage: speedprobe [-p MS] [-n ITERS] [-m KIB] [-s STEPS] [-c CPU] [-f]\n"
			"                  [-t SECONDS] [-o FILE]\n"
			"  -p MS      one sample every MS ms (default 5)\n"
			"  -n ITERS   steps of the alu and ilp loops (default 20000)\n"
			"  -m KIB     the chase's buffer in KiB (default 256; 0: no chase)\n"
			"  -s STEPS   loads of the chase per sample (default 300)\n"
			"  -c CPU     pin to CPU\n"
			"  -f         SCHED_FIFO (priority 1)\n"
			"  -t SECONDS stop after SECONDS (default: at SIGINT or SIGTERM)\n"
			"  -o FILE    log to FILE (default stdout)\n"
			"  SIGUSR1 logs '# mark MONO_NS'; SIGINT or SIGTERM ends it\n");
	exit(2);
}

int main(int argc, char **argv)
{
	long period_ms = 5, cpu_pin = -1, kib = 256;
	uint64_t iters = 20000, steps = 300, pos = 0, *buf = NULL;
	double secs = 0;
	int fifo = 0, c;
	const char *out = NULL;
	FILE *f = stdout;
	struct timespec next;
	int64_t end = 0;

	while ((c = getopt(argc, argv, "p:n:m:s:c:ft:o:h")) != -1) {
		switch (c) {
		case 'p': period_ms = strtol(optarg, NULL, 10); break;
		case 'n': iters = strtoull(optarg, NULL, 10); break;
		case 'm': kib = strtol(optarg, NULL, 10); break;
		case 's': steps = strtoull(optarg, NULL, 10); break;
		case 'c': cpu_pin = strtol(optarg, NULL, 10); break;
		case 'f': fifo = 1; break;
		case 't': secs = strtod(optarg, NULL); break;
		case 'o': out = optarg; break;
		default: usage();
		}
	}
	if (optind != argc || period_ms < 1 || !iters || kib < 0)
		usage();
	if (cpu_pin >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET((int)cpu_pin, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			fprintf(stderr, "speedprobe: cannot pin to CPU %ld: %s\n", cpu_pin, strerror(errno));
			return 1;
		}
	}
	if (fifo) {
		struct sched_param sp = { .sched_priority = 1 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
			fprintf(stderr, "speedprobe: SCHED_FIFO: %s (needs root)\n", strerror(errno));
			return 1;
		}
	}
	if (kib && !(buf = chase_make((size_t)kib))) {
		fprintf(stderr, "speedprobe: no memory for a %ld KiB chase\n", kib);
		return 1;
	}
	if (out && !(f = fopen(out, "w"))) {
		fprintf(stderr, "speedprobe: %s: %s\n", out, strerror(errno));
		return 1;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGUSR1, on_mark);
	fprintf(f, "# speedprobe period_ms=%ld iters=%llu chase_kib=%ld steps=%llu cpu=%ld fifo=%d\n",
		period_ms, (unsigned long long)iters, kib, (unsigned long long)steps, cpu_pin, fifo);
	fprintf(f, "# mono_ns alu_cpu_ns alu_wall_ns ilp_cpu_ns ilp_wall_ns chase_cpu_ns chase_wall_ns cpu\n");
	clock_gettime(CLOCK_MONOTONIC, &next);
	if (secs > 0)
		end = now_ns(CLOCK_MONOTONIC) + (int64_t)(secs * 1e9);
	while (!stop) {
		int64_t m0, m1, m2, m3, c0, c1, c2, c3;
		int cpu0, cpu1;

		if (marked) {
			marked = 0;
			fprintf(f, "# mark %lld\n", (long long)mark_ns);
		}
		cpu0 = sched_getcpu();
		m0 = now_ns(CLOCK_MONOTONIC);
		c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		alu(iters);
		c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		m1 = now_ns(CLOCK_MONOTONIC);
		ilp(iters);
		c2 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		m2 = now_ns(CLOCK_MONOTONIC);
		if (buf)
			pos = chase(buf, pos, steps);
		c3 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		m3 = now_ns(CLOCK_MONOTONIC);
		cpu1 = sched_getcpu();
		fprintf(f, "%lld %lld %lld %lld %lld %lld %lld %d\n", (long long)m0,
			(long long)(c1 - c0), (long long)(m1 - m0), (long long)(c2 - c1),
			(long long)(m2 - m1), (long long)(buf ? c3 - c2 : 0),
			(long long)(buf ? m3 - m2 : 0), cpu0 == cpu1 ? cpu1 : -1);
		if (end && m3 >= end)
			break;
		next.tv_nsec += period_ms * 1000000;
		while (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		/* late (the probe waited for a CPU): no burst of samples to
		 * catch up, the next one a period from now */
		if ((int64_t)next.tv_sec * 1000000000 + next.tv_nsec < m3) {
			next.tv_sec = m3 / 1000000000 + (m3 % 1000000000 + period_ms * 1000000) / 1000000000;
			next.tv_nsec = (m3 % 1000000000 + period_ms * 1000000) % 1000000000;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR && !stop)
			;
	}
	if (marked)
		fprintf(f, "# mark %lld\n", (long long)mark_ns);
	sink += pos;
	if (fflush(f) != 0 || ferror(f) || (f != stdout && fclose(f) != 0)) {
		fprintf(stderr, "speedprobe: writing the log: %s\n", strerror(errno));
		return 1;
	}
	free(buf);
	return 0;
}
