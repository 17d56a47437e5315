/*
 * bpf_calib.c - what the BPF programs add to a gap between two calls,
 * measured by a child of the recorder at the attach (record.bpf_gap_ns).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rec.h"

#ifdef IOT_HAVE_BPF
#include <linux/types.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <bpf/bpf.h>

#include "bpf/event.h"
#include "bpf/bpf_int.h"
#include "iotape.skel.h"

/*
 * What the BPF programs add to a gap between two calls (a call's exit
 * stamp to the next one's entry stamp: the exit program's record of the
 * call before, the kernel's way out and in, the entry program's first
 * look), measured once they are attached: a child of the recorder,
 * followed as the program will be, makes CALIB_N close(-1) back to back,
 * and the median of its gaps goes into the trace (record.bpf_gap_ns, in
 * the index: the header is written by then, cmd_record.c), which the
 * replay takes off each gap between two bpf calls instead of the least
 * floor of the trace's gaps (replay/think.c).  The child's records are
 * taken out of the ring (rec_bpf_on_record()), never made events.  It is
 * started right after the attach (rec_bpf_calib_start()) and runs while the
 * loader maps the ring and the recorder writes the header; it is reaped
 * and its records read in rec_bpf_wait() (rec_bpf_calib_end()), before the
 * program is followed: its end must not count in the programs' tally of
 * live tasks once the program's start has set it.
 *
 * The child runs under the guard's seccomp filter (bpf_guard.c), as the
 * program will: the filter runs at every call of the program, before
 * the entry's tracepoint, so in its gaps.  Without it the measure was
 * 1.16 us a gap here, and a loop of raw close(-1) recorded as a program
 * had 1.24-1.26 us at the median, less its own code (a clock read).
 */
struct calib_state rec_bpf_calib;
static int64_t calib_gap_ns = -1;
static struct sock_filter calib_filter[1024];
static int calib_filter_len;
static char calib_stack[16384] __attribute__((aligned(16)));

void rec_bpf_calib_take(const void *data, size_t size)
{
	const struct be_call *x = data;

	if (size < sizeof(*x) || x->h.type != BE_CALL || x->nr != SYS_close)
		return;
	if (rec_bpf_calib.last_exit && x->t_enter >= rec_bpf_calib.last_exit && rec_bpf_calib.n < CALIB_N)
		rec_bpf_calib.gaps[rec_bpf_calib.n++] = (int64_t)(x->t_enter - rec_bpf_calib.last_exit);
	rec_bpf_calib.last_exit = x->h.t;
}

static int cmp_gap(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* A raw system call: the child shares the recorder's memory and its
 * thread's TLS (clone() with CLONE_VM, no CLONE_SETTLS), so nothing it
 * runs may write errno or take a lock of libc's. */
static inline long calib_sc5(long nr, long a, long b, long c, long d, long e)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return r;
}

static inline long calib_sc(long nr, long a, long b, long c)
{
	return calib_sc5(nr, a, b, c, 0, 0);
}

/* on a stack of its own that no sanitizer knows of: not instrumented */
__attribute__((no_sanitize_address))
static int calib_child(void *arg)
{
	struct sock_fprog prog = { (unsigned short)calib_filter_len, calib_filter };
	char ch;
	int i;

	/* the guard's filter, as in the program (this thread's alone) */
	if (calib_filter_len > 0 &&
	    calib_sc5(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
		calib_sc5(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, (long)&prog, 0, 0);
	/* followed once the recorder has written; nothing before is timed */
	if (calib_sc(SYS_read, (long)(intptr_t)arg, (long)&ch, 1) != 1)
		return 1;
	for (i = 0; i < CALIB_N; i++)
		calib_sc(SYS_close, -1, 0, 0);
	return 0;
}

/* The child started and followed, right after the attach: it runs while
 * the recorder maps the ring (rec_bpf_calib_end()). */
void rec_bpf_calib_start(struct rec_bpf *b)
{
	struct be_tstate st;
	uint32_t k = 0;
	int64_t one = 1;
	int p[2], pidfd;
	pid_t pid;

	memset(&rec_bpf_calib, 0, sizeof(rec_bpf_calib));
	rec_bpf_calib.pid = -1;
	calib_filter_len = rec_guard_filter(calib_filter, sizeof(calib_filter) /
					    sizeof(calib_filter[0]), b->stub_ip != 0);
	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	/* sharing the recorder's memory: no page tables copied (a fork()
	 * took 3-10 ms of the start here, with libbpf's BTF mapped) */
	pid = clone(calib_child, calib_stack + sizeof(calib_stack), CLONE_VM | SIGCHLD,
		    (void *)(intptr_t)p[0]);
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		return;
	}
	rec_bpf_calib.pid = rec_bpf_calib.tid = pid;
	memset(&st, 0, sizeof(st));
	st.st = BE_TID_ON;
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	/* live: 1, and its end takes it back to 0 for the program's follow */
	if (pidfd < 0 ||
	    bpf_map_update_elem(b->skel->maps.tstate.map_fd, &pidfd, &st, BPF_NOEXIST) < 0 ||
	    bpf_map_update_elem(b->skel->maps.live.map_fd, &k, &one, BPF_ANY) < 0)
		rec_bpf_calib.failed = 1;
	if (pidfd >= 0)
		close(pidfd);
	/* (a child not followed makes its calls all the same) */
	if (write(p[1], "c", 1) != 1)
		rec_bpf_calib.failed = 1;
	close(p[1]);
}

/* The child reaped, its records taken out of the ring and the median of
 * its gaps kept (calib_gap_ns).  Without a ring (mapped later, by
 * rec_bpf_follow()), its records are dropped there. */
void rec_bpf_calib_end(struct rec_bpf *b)
{
	int status;

	if (rec_bpf_calib.pid < 0)
		return;
	rec_stamp("bpf_calib_wait");
	while (waitpid(rec_bpf_calib.pid, &status, 0) < 0 && errno == EINTR)
		;
	rec_stamp("bpf_calib_reaped");
	rec_bpf_calib.pid = -1;
	if (b->ring.fd < 0)
		return;
	/* its records, its end's included, are in the ring by now */
	rec_ring_consume(&b->ring);
	rec_bpf_calib.tid = 0;
	if (!rec_bpf_calib.failed && rec_bpf_calib.n >= CALIB_N / 2) {
		qsort(rec_bpf_calib.gaps, rec_bpf_calib.n, sizeof(rec_bpf_calib.gaps[0]), cmp_gap);
		calib_gap_ns = rec_bpf_calib.gaps[rec_bpf_calib.n / 2];
	}
	rec_stamp("bpf_calibrated");
}

int64_t rec_bpf_gap_ns(struct rec_ctx *c)
{
	return c->bpf ? calib_gap_ns : -1;
}

#endif
