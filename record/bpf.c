/*
 * bpf.c - `iotape record --backend bpf`: load the BPF programs
 * (bpf/iotape.bpf.c), follow the program's process tree with them, and
 * drain their ring buffer into the trace (bpf_events.c turns records into
 * events) while the program runs: no ptrace, and no stop but the one
 * bpf_guard.c keeps before calls that make, remove or rename a name or
 * truncate a path.
 *
 * Order: the ring buffer is one queue for every CPU, in the order records
 * were reserved; a task's records are in its own order, a fork's record
 * comes before its child's first one.
 *
 * Wake-ups: a record written while the recorder waits would wake it, one
 * context switch per record on a machine of two CPUs (13 us per fstatat()
 * instead of 5).  No call's record wakes it (IOTAPE_BPF_WAKE_KB=0: the
 * kernel's own wake-up, for a record written into an empty ring); the
 * last followed task's end does at once (with the fast path, any task's:
 * its ring slots are freed then), and the recorder drains every 10 ms.
 *
 * Lost records are counted per CPU by the programs (map drops) and added
 * to the trace's dropped count and the summary; the ring of --bpf-ring-mb
 * (default 8 MiB) holds about 80,000 records.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine.h"
#include "rec.h"

#ifdef IOT_HAVE_BPF
#include <linux/types.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/event.h"
#include "bpf/bpf_int.h"
#include "fastpath/fp.h"
#include "iotape.skel.h"

#define VLOG_BYTES	(1 << 20)
#define BK_PLAIN	0
#define BK_STR		1
#define BK_IOV		2
#define BK_OFFPTR	3
#define BK_OPENHOW	4
#define BK_CLONE3	5
#define BK_TIMESPEC	6
#define BK_TIMEVAL	7
#define BK_SOCKADDR	8
#define BK_FLOCK	9

const char *rec_bpf_missing(void)
{
	return NULL;
}

static int quiet_print(enum libbpf_print_level l, const char *f, va_list ap)
{
	return 0;
}

static void fill_sysinfo(struct rec_bpf *b, int fast)
{
	const struct iot_syscall *tab;
	size_t n, i;

	tab = iot_syscall_table(&n);
	for (i = 0; i < n; i++) {
		struct be_sysinfo si;
		uint32_t k = (uint32_t)tab[i].nr;
		int a;

		if (tab[i].nr < 0 || tab[i].nr >= BE_NR_MAX)
			continue;
		memset(&si, 0, sizeof(si));
		si.rec = 1;
		si.guard = (uint8_t)rec_guard_may_stop(tab[i].nr, fast);
		for (a = 0; a < tab[i].nargs && a < 6; a++) {
			switch (tab[i].arg[a]) {
			case IOT_ARG_PATH: case IOT_ARG_PATH2: case IOT_ARG_STR2:
				si.kind[a] = BK_STR;
				break;
			case IOT_ARG_IOVLEN: si.kind[a] = BK_IOV; break;
			case IOT_ARG_OFFPTR: si.kind[a] = BK_OFFPTR; break;
			case IOT_ARG_OPENHOW: si.kind[a] = BK_OPENHOW; break;
			case IOT_ARG_TIMESPEC: si.kind[a] = BK_TIMESPEC; break;
			case IOT_ARG_TIMEVAL: si.kind[a] = BK_TIMEVAL; break;
			case IOT_ARG_SOCKADDR: si.kind[a] = BK_SOCKADDR; break;
			case IOT_ARG_CLONE_FLAGS:
				si.kind[a] = tab[i].nr == SYS_clone3 ? BK_CLONE3 : BK_PLAIN;
				break;
			case IOT_ARG_HEX:
				/* fcntl's third: a lock's struct flock */
				si.kind[a] = tab[i].nr == SYS_fcntl && a == 2 ? BK_FLOCK : BK_PLAIN;
				break;
			default: si.kind[a] = BK_PLAIN; break;
			}
			/* the programs decode up to the last argument
			 * that is not plain: none for read, write, close */
			if (si.kind[a] != BK_PLAIN)
				si.nargs = (uint8_t)(a + 1);
		}
		/* one record, at its exit, when it has no string or only
		 * empty or NULL ones: not a process call (its fork and exec
		 * records come between its entry and exit), io_uring's (ring
		 * records), an open (its exit brings the file it found) nor
		 * an exec; with nothing to decode either (plain), the entry
		 * writes only the task's state */
		switch (tab[i].nr) {
		case SYS_clone: case SYS_clone3: case SYS_fork: case SYS_vfork:
		case SYS_exit: case SYS_exit_group: case SYS_execve: case SYS_execveat:
		case SYS_io_uring_setup: case SYS_io_uring_enter: case SYS_io_uring_register:
		case SYS_open: case SYS_creat: case SYS_openat: case SYS_openat2:
			break;
		default:
			si.one = 1;
		}
		si.plain = si.one && si.nargs == 0;
		b->skel->rodata->sysinfo[k] = si;
	}
}

/* ---- --backend mixed: the programs' records merged with the fast path's ---- */

/* The time a record sorts by: a call's entry (a BE_CALL or BE_CALLSTR
 * comes at its exit), else when it was written.  A thread's records come
 * in this order in the ring, and its fast-path records between them. */
static uint64_t rec_key(const struct be_hdr *h, size_t size)
{
	if ((h->type == BE_CALL || h->type == BE_CALLSTR) && size >= sizeof(struct be_call))
		return ((const struct be_call *)h)->t_enter;
	return h->t;
}

/* a record, copied out of the ring for its round (the ring's memory is
 * handed back when the callback returns) */
static int enqueue(struct rec_bpf *b, const void *data, size_t size)
{
	size_t need = (size + 7) & ~(size_t)7;

	if (b->qlen + need > b->qcap) {
		size_t cap = b->qcap ? b->qcap : 1 << 20;
		char *nb;

		while (cap < b->qlen + need)
			cap *= 2;
		if (!(nb = realloc(b->qbuf, cap)))
			return -ENOMEM;
		b->qbuf = nb;
		b->qcap = cap;
	}
	if (b->nq == b->capq) {
		size_t cap = b->capq ? b->capq * 2 : 4096;
		struct bq_item *nq = realloc(b->q, cap * sizeof(*nq));

		if (!nq)
			return -ENOMEM;
		b->q = nq;
		b->capq = cap;
	}
	memcpy(b->qbuf + b->qlen, data, size);
	b->q[b->nq].key = rec_key(data, size);
	b->q[b->nq].seq = b->seq++;
	b->q[b->nq].off = b->qlen;
	b->q[b->nq].len = size;
	b->nq++;
	b->qlen += need;
	return 0;
}

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
 * taken out of the ring here (on_record()), never made events.  It is
 * started right after the attach (calib_start()) and runs while the
 * loader maps the ring and the recorder writes the header; it is reaped
 * and its records read in rec_bpf_wait() (calib_end()), before the
 * program is followed: its end must not count in the programs' tally of
 * live tasks once the program's start has set it.
 *
 * The child runs under the guard's seccomp filter (bpf_guard.c), as the
 * program will: the filter runs at every call of the program, before
 * the entry's tracepoint, so in its gaps.  Without it the measure was
 * 1.16 us a gap here, and a loop of raw close(-1) recorded as a program
 * had 1.24-1.26 us at the median, less its own code (a clock read).
 */
#define CALIB_N 400

static struct {
	pid_t pid;			/* the child, until reaped (-1) */
	pid_t tid;			/* its records, until taken out */
	int failed;
	uint64_t last_exit;
	uint32_t n;
	int64_t gaps[CALIB_N];
} calib;
static int64_t calib_gap_ns = -1;
static struct sock_filter calib_filter[1024];
static int calib_filter_len;
static char calib_stack[16384] __attribute__((aligned(16)));

static void calib_take(const void *data, size_t size)
{
	const struct be_call *x = data;

	if (size < sizeof(*x) || x->h.type != BE_CALL || x->nr != SYS_close)
		return;
	if (calib.last_exit && x->t_enter >= calib.last_exit && calib.n < CALIB_N)
		calib.gaps[calib.n++] = (int64_t)(x->t_enter - calib.last_exit);
	calib.last_exit = x->h.t;
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
 * the recorder maps the ring (calib_end()). */
static void calib_start(struct rec_bpf *b)
{
	struct be_tstate st;
	uint32_t k = 0;
	int64_t one = 1;
	int p[2], pidfd;
	pid_t pid;

	memset(&calib, 0, sizeof(calib));
	calib.pid = -1;
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
	calib.pid = calib.tid = pid;
	memset(&st, 0, sizeof(st));
	st.st = BE_TID_ON;
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	/* live: 1, and its end takes it back to 0 for the program's follow */
	if (pidfd < 0 ||
	    bpf_map_update_elem(b->skel->maps.tstate.map_fd, &pidfd, &st, BPF_NOEXIST) < 0 ||
	    bpf_map_update_elem(b->skel->maps.live.map_fd, &k, &one, BPF_ANY) < 0)
		calib.failed = 1;
	if (pidfd >= 0)
		close(pidfd);
	/* (a child not followed makes its calls all the same) */
	if (write(p[1], "c", 1) != 1)
		calib.failed = 1;
	close(p[1]);
}

/* The child reaped, its records taken out of the ring and the median of
 * its gaps kept (calib_gap_ns).  Without a ring (mapped later, by
 * rec_bpf_follow()), its records are dropped there. */
static void calib_end(struct rec_bpf *b)
{
	int status;

	if (calib.pid < 0)
		return;
	rec_stamp("bpf_calib_wait");
	while (waitpid(calib.pid, &status, 0) < 0 && errno == EINTR)
		;
	rec_stamp("bpf_calib_reaped");
	calib.pid = -1;
	if (b->ring.fd < 0)
		return;
	/* its records, its end's included, are in the ring by now */
	rec_ring_consume(&b->ring);
	calib.tid = 0;
	if (!calib.failed && calib.n >= CALIB_N / 2) {
		qsort(calib.gaps, calib.n, sizeof(calib.gaps[0]), cmp_gap);
		calib_gap_ns = calib.gaps[calib.n / 2];
	}
	rec_stamp("bpf_calibrated");
}

int64_t rec_bpf_gap_ns(struct rec_ctx *c)
{
	return c->bpf ? calib_gap_ns : -1;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct rec_ctx *c = ctx;

	if (calib.tid && size >= sizeof(struct be_hdr) &&
	    ((const struct be_hdr *)data)->tid == (uint32_t)calib.tid) {
		calib_take(data, size);
		return 0;
	}
	if (!c->fast)
		return rec_bpf_record(ctx, data, size);
	if (size >= sizeof(struct be_hdr) && enqueue(c->bpf, data, size) == 0)
		return 0;
	c->st.dropped++;
	return 0;
}

static int cmp_q(const void *a, const void *b)
{
	const struct bq_item *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void rec_bpf_release(struct rec_ctx *c, pid_t tid, uint64_t t, int proc)
{
	struct rec_bpf *b = c->bpf;

	if (!c->fast)
		return;
	if (b->nrel == b->caprel) {
		size_t cap = b->caprel ? b->caprel * 2 : 64;
		struct bq_release *nr = realloc(b->rel, cap * sizeof(*nr));

		if (!nr)
			return;		/* the slot stays taken: its thread's calls go to BPF */
		b->rel = nr;
		b->caprel = cap;
	}
	b->rel[b->nrel].tid = tid;
	b->rel[b->nrel].t = t;
	b->rel[b->nrel].proc = proc;
	b->nrel++;
}

/*
 * One round: the programs' records and the fast path's rings, merged by
 * time, up to @cut, a time taken before the ring was read.  A record of
 * either kind that precedes one entered before @cut, in its thread or as
 * a fork precedes the child's calls, was written before its successor
 * entered, so before @cut: it is in this round.  Records at or after
 * @cut wait for the next, where what precedes them will be.
 */
static void mixed_round(struct rec_ctx *c, uint64_t cut)
{
	struct rec_bpf *b = c->bpf;
	size_t i, nd = 0, n, k;
	uint64_t tf;

	rec_ring_consume(&b->ring);
	if (b->nq > 1)
		qsort(b->q, b->nq, sizeof(*b->q), cmp_q);
	for (n = 0; n < b->nq && b->q[n].key < cut; n++) {
		const struct be_hdr *h = (const void *)(b->qbuf + b->q[n].off);

		/* a thread that ended: its call in flight in its ring is
		 * unfinished */
		if (h->type != BE_GONE || b->q[n].len < sizeof(struct be_gone))
			continue;
		if (nd == b->capdead) {
			size_t cap = b->capdead ? 2 * b->capdead : 64;
			pid_t *dt = realloc(b->dead, cap * sizeof(*dt));
			int *ds = dt ? realloc(b->dead_status, cap * sizeof(*ds)) : NULL;

			if (dt)
				b->dead = dt;
			if (ds)
				b->dead_status = ds;
			if (!dt || !ds)
				continue;
			b->capdead = cap;
		}
		b->dead[nd] = (pid_t)h->tid;
		b->dead_status[nd++] = ((const struct be_gone *)h)->status;
	}
	rec_fast_gather(c, cut, b->dead, b->dead_status, nd);
	for (i = 0;;) {
		int fast = rec_fast_peek(c, &tf);

		if (i >= n && !fast)
			break;
		if (fast && (i >= n || tf < b->q[i].key)) {
			rec_fast_decode_next(c);
		} else {
			rec_bpf_record(c, b->qbuf + b->q[i].off, b->q[i].len);
			i++;
		}
	}
	rec_fast_gather_end(c);
	for (k = 0; k < b->nrel; k++)
		rec_fast_release_before(c, b->rel[k].tid, b->rel[k].t, b->rel[k].proc);
	b->nrel = 0;
	/* the records left for the next round, to the front */
	if (n == b->nq) {
		b->nq = b->qlen = 0;
	} else if (n) {
		size_t base = b->q[n].off, end = 0;

		for (k = n; k < b->nq; k++) {
			if (b->q[k].off < base)
				base = b->q[k].off;
			if (b->q[k].off + b->q[k].len > end)
				end = b->q[k].off + b->q[k].len;
		}
		memmove(b->qbuf, b->qbuf + base, end - base);
		for (k = n; k < b->nq; k++) {
			b->q[k - n] = b->q[k];
			b->q[k - n].off -= base;
		}
		b->nq -= n;
		b->qlen = (end - base + 7) & ~(size_t)7;
	}
}

static struct rec_bpf *bpf_new(struct rec_ctx *c)
{
	struct rec_bpf *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->guard_fd = -1;
	b->ring.fd = -1;
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->cv, NULL);
	b->ring_bytes = (uint32_t)c->o->bpf_ring_mb << 20;
	b->wake_bytes = (uint64_t)c->o->bpf_wake_kb << 10;
	if (c->o->backend == REC_BACKEND_MIXED && c->o->fastpath)
		b->stub_ip = FP_STUB_ADDR + FP_STUB_RET_OFF;
	return b;
}

/* the programs are in the kernel, or will not be: rec_bpf_wait_loaded()
 * returns */
static void mark_loaded(struct rec_bpf *b)
{
	pthread_mutex_lock(&b->mu);
	b->loaded = 1;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
}

/* the object opened, loaded and attached into @b, which has none yet;
 * what it reads of the recording is in @b (bpf_new()): it may run in a
 * thread of its own (@ctx, the recording's, is only kept for the ring's
 * callback).  @return : 0, or -errno with *@why set */
static int bpf_load(struct rec_bpf *b, void *ctx, const char **why)
{
	char *vlog = NULL;
	FILE *f;
	int err;

	*why = NULL;
	if (!getenv("IOTAPE_BPF_DEBUG"))
		libbpf_set_print(quiet_print);
	if (access("/sys/kernel/btf/vmlinux", R_OK) < 0) {
		*why = "the kernel has no BTF (/sys/kernel/btf/vmlinux)";
		return -ENOENT;
	}
	b->pid_max = 4194304;
	f = fopen("/proc/sys/kernel/pid_max", "re");
	if (f) {
		if (fscanf(f, "%d", &b->pid_max) != 1 || b->pid_max <= 0)
			b->pid_max = 4194304;
		fclose(f);
	}
	b->pending = calloc((size_t)b->pid_max + 1, sizeof(*b->pending));
	rec_stamp("bpf_start");
	b->skel = iotape_bpf__open();
	if (!b->pending || !b->skel) {
		*why = "cannot open its BPF object";
		return b->pending ? -errno : -ENOMEM;
	}
	b->skel->maps.rb.max_entries = b->ring_bytes;
	b->skel->rodata->wake_bytes = b->wake_bytes;
	b->skel->rodata->stub_ip = b->stub_ip;
	fill_sysinfo(b, b->stub_ip != 0);
	/* a light skeleton: a loader program does the relocations in the
	 * kernel, against its own BTF; libbpf reading and matching the
	 * kernel's 5 MB of BTF in every recording was half its start-up */
	if (getenv("IOTAPE_BPF_DEBUG") && (vlog = calloc(1, VLOG_BYTES))) {
		b->skel->ctx.log_level = 1;
		b->skel->ctx.log_size = VLOG_BYTES;
		b->skel->ctx.log_buf = (uint64_t)(uintptr_t)vlog;
	}
	rec_stamp("bpf_opened");
	err = iotape_bpf__load(b->skel);
	rec_stamp("bpf_loaded");
	mark_loaded(b);
	if (err && vlog)
		iot_warn("record", "the verifier's log: %s", vlog);
	free(vlog);
	if (err) {
		*why = err == -EPERM ?
			"loading BPF programs needs root or CAP_BPF and CAP_PERFMON" :
			"the kernel refused its BPF programs (IOTAPE_BPF_DEBUG=1 shows why)";
		return err < 0 ? err : -EINVAL;
	}
	err = iotape_bpf__attach(b->skel);
	if (err) {
		*why = "cannot attach its BPF programs to the raw tracepoints";
		return err < 0 ? err : -EINVAL;
	}
	rec_stamp("bpf_attached");
	calib_start(b);
	/* the ring mapped here, not on the way to the program's start
	 * (~0.5 ms at 8 MiB: every page-table entry inserted at mmap); not
	 * copied by a fork (bpf_ring.c).  If it cannot be now, it is by
	 * rec_bpf_follow(). */
	rec_ring_open(&b->ring, b->skel->maps.rb.map_fd, b->ring_bytes, on_record, ctx);
	rec_stamp("ring_mapped");
	return 0;
}

/* the programs detached and their maps, the ring's mapping and the
 * guard's listener let go: what the kernel holds for the recording */
static void bpf_unload(struct rec_ctx *c)
{
	struct rec_bpf *b = c->bpf;

	if (!b->skel && b->ring.fd < 0 && b->guard_fd < 0 && !b->uskel && !b->askel)
		return;
	rec_ring_close(&b->ring);
	rec_stamp("ring_unmapped");
	if (b->guard_fd >= 0)
		close(b->guard_fd);
	b->guard_fd = -1;
	rec_bpf_uring_free(c);
	rec_bpf_aio_unload(c);
	iotape_bpf__destroy(b->skel);
	b->skel = NULL;
	rec_stamp("bpf_destroyed");
}

/* the rest of @b, once unloaded */
static void bpf_free(struct rec_bpf *b)
{
	int i;

	for (i = 0; b->pending && b->npend && i <= b->pid_max; i++) {
		struct pend *pd = b->pending[i];

		if (pd) {
			free(pd->e);
			b->npend--;
		}
		free(pd);
	}
	free(b->pending);
	while (b->spare) {
		struct pend *pd = b->spare;

		b->spare = pd->next;
		free(pd->e);
		free(pd);
	}
	free(b->cwd);
	free(b->qbuf);
	free(b->q);
	free(b->rel);
	free(b->dead);
	free(b->dead_status);
	pthread_mutex_destroy(&b->mu);
	pthread_cond_destroy(&b->cv);
	free(b);
}

int rec_bpf_setup(struct rec_ctx *c, const char **why)
{
	struct rec_bpf *b = bpf_new(c);
	int err;

	*why = NULL;
	if (!b)
		return -ENOMEM;
	err = bpf_load(b, c, why);
	if (err) {
		iotape_bpf__destroy(b->skel);
		bpf_free(b);
		return err;
	}
	c->bpf = b;
	return 0;
}

static void *loader(void *arg)
{
	struct rec_ctx *c = arg;
	struct rec_bpf *b = c->bpf;

	b->load_err = bpf_load(b, c, &b->load_why);
	mark_loaded(b);
	return NULL;
}

/*
 * The load takes most of a recording's start (~10 ms of CPU: the
 * verifier, the maps, the attach); nothing of it is needed before the
 * program's first call, so it runs in a thread while the recorder writes
 * the header, starts the writer and forks the program, which installs the
 * guard's filter meanwhile.
 */
int rec_bpf_start(struct rec_ctx *c)
{
	struct rec_bpf *b = bpf_new(c);

	if (!b)
		return -ENOMEM;
	/* the syscall table sorted here, not under the thread: a fork while
	 * it holds the table's pthread_once would leave the program's
	 * filter waiting for it forever */
	iot_syscall_table(NULL);
	c->bpf = b;
	if (pthread_create(&b->th, NULL, loader, c) == 0)
		b->th_running = 1;
	else
		loader(c);
	return 0;
}

void rec_bpf_wait_loaded(struct rec_ctx *c)
{
	struct rec_bpf *b = c->bpf;

	if (!b->th_running)
		return;
	pthread_mutex_lock(&b->mu);
	while (!b->loaded)
		pthread_cond_wait(&b->cv, &b->mu);
	pthread_mutex_unlock(&b->mu);
}

int rec_bpf_wait(struct rec_ctx *c, const char **why)
{
	struct rec_bpf *b = c->bpf;

	if (b->th_running) {
		pthread_join(b->th, NULL);
		b->th_running = 0;
	}
	if (!b->load_err)
		calib_end(b);
	*why = b->load_why;
	return b->load_err;
}

static void *unloader(void *arg)
{
	bpf_unload(arg);
	return NULL;
}

/*
 * Detaching twelve programs (the kernel's code patched on every CPU),
 * freeing their maps and unmapping the ring cost ~1-2 ms that no part of
 * the trace waits for: a thread does it while the recorder takes the
 * listed directories' entries and closes the trace.
 */
void rec_bpf_unload_start(struct rec_ctx *c)
{
	struct rec_bpf *b = c->bpf;

	if (!b || b->th_running)
		return;
	if (pthread_create(&b->th, NULL, unloader, c) == 0)
		b->th_running = 1;
}

int rec_bpf_share_maps(struct rec_bpf *b, struct bpf_map *rb, struct bpf_map *tstate,
		       struct bpf_map *scratch, struct bpf_map *drops)
{
	int err;

	if ((err = bpf_map__reuse_fd(rb, b->skel->maps.rb.map_fd)) ||
	    (err = bpf_map__reuse_fd(tstate, b->skel->maps.tstate.map_fd)) ||
	    (err = bpf_map__reuse_fd(scratch, b->skel->maps.scratch.map_fd)))
		return err;
	return bpf_map__reuse_fd(drops, b->skel->maps.drops.map_fd);
}

void rec_bpf_free(struct rec_ctx *c)
{
	struct rec_bpf *b = c->bpf;

	if (!b)
		return;
	/* a load still running (the program never started), or the unload */
	if (b->th_running)
		pthread_join(b->th, NULL);
	b->th_running = 0;
	bpf_unload(c);
	rec_bpf_aio_free(c);
	bpf_free(b);
	c->bpf = NULL;
}

int rec_bpf_follow(struct rec_ctx *c, pid_t pid)
{
	struct be_tstate st;
	struct rec_bpf *b = c->bpf;
	uint32_t k = 0;
	int64_t one = 1;
	int pidfd, r = 0;

	b->cwd = getcwd(NULL, 0);
	if (b->cwd) {
		b->cwd_len = (uint32_t)strlen(b->cwd);
		memset(&b->cwd_pre, 0, sizeof(b->cwd_pre));
		if (lstat(b->cwd, &b->cwd_pre.sb) < 0)
			b->cwd_pre.err = errno;
	}
	/* mapped with the load (bpf_load()), as a rule */
	if (b->ring.fd < 0 &&
	    (r = rec_ring_open(&b->ring, b->skel->maps.rb.map_fd, b->ring_bytes, on_record, c)) < 0)
		return r;
	/* the measuring child's records, if the ring was not mapped when
	 * it ended (calib_end()) */
	if (calib.tid) {
		rec_ring_consume(&b->ring);
		calib.tid = 0;
	}
	/* task storage is keyed by a pidfd from user space */
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return -errno;
	memset(&st, 0, sizeof(st));
	st.st = BE_TID_EXEC;
	if (bpf_map_update_elem(b->skel->maps.tstate.map_fd, &pidfd, &st, BPF_NOEXIST) < 0 ||
	    bpf_map_update_elem(b->skel->maps.live.map_fd, &k, &one, BPF_ANY) < 0)
		r = -errno;
	close(pidfd);
	return r;
}

void rec_bpf_set_guard(struct rec_ctx *c, int fd)
{
	c->bpf->guard_fd = fd;
}

/* a count of the programs' (map drops' key @k: BE_CNT_*), summed over CPUs */
static uint64_t bpf_count(struct rec_bpf *b, uint32_t k)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	uint64_t *v, sum = 0;

	if (ncpu <= 0 || !(v = calloc((size_t)ncpu, sizeof(*v))))
		return 0;
	if (bpf_map_lookup_elem(b->skel->maps.drops.map_fd, &k, v) == 0)
		for (i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

static void count_drops(struct rec_ctx *c)
{
	uint64_t d = bpf_count(c->bpf, BE_CNT_DROPS) + c->bpf->ring.lost;

	if (d > c->bpf->drops) {
		c->st.dropped += d - c->bpf->drops;
		c->st.bpf_lost += d - c->bpf->drops;
		c->bpf->drops = d;
	}
}

static void drain_ring(struct rec_ctx *c)
{
	if (c->fast)
		mixed_round(c, iot_now_ns());
	else
		rec_ring_consume(&c->bpf->ring);
}

/* a child changed state since the loop last asked: waitpid() only then,
 * not once per wake (a guard's stop, a tick) */
static volatile sig_atomic_t child_news = 1;

static void on_sigchld(int sig)
{
	child_news = 1;
}

/* is any task still followed by the programs? */
static int followed(struct rec_bpf *b)
{
	uint32_t k = 0;
	int64_t n = 0;

	return bpf_map_lookup_elem(b->skel->maps.live.map_fd, &k, &n) == 0 && n > 0;
}

/*
 * Drain until the program and every task it made are gone (a daemon it
 * left behind is followed to its end, as under ptrace).  The root is the
 * recorder's child: its wait status is the program's.
 */
int rec_bpf_loop(struct rec_ctx *c)
{
	struct rec_bpf *b = c->bpf;
	struct sigaction sa;
	int tick = 0, sig, wait_ms = c->o->bpf_wake_kb ? 10 : 100;

	/* the program's end must interrupt the wait (no SA_RESTART) */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;
	sigaction(SIGCHLD, &sa, NULL);
	/* (an end before the handler was in place) */
	child_news = 1;
	/*
	 * The ring's poll says "readable" whenever a record waits, not only
	 * at a wake-up: right after a drain, while the program runs on the
	 * other CPU, poll() returns at once and the loop drains a few
	 * records a turn (200,000 lseek(): 12-5,012 turns).  That is kept:
	 * an edge-triggered epoll that reported wake-ups only (5-14 turns)
	 * saved no CPU that could be measured, and a guard's stop then found
	 * the recorder asleep: busybox cp -a's 3,601 stops took its
	 * recording from 238 to 358 ms (medians of 7, load average 4).
	 */
	for (;;) {
		struct pollfd pf[2] = {
			{ .fd = b->ring.fd, .events = POLLIN },
			{ .fd = b->guard_fd, .events = POLLIN },
		};
		int n = poll(pf, b->guard_fd >= 0 ? 2 : 1, wait_ms);

		if (n < 0 && errno != EINTR)
			break;
		if (b->guard_fd >= 0 && (pf[1].revents & POLLIN))
			rec_guard_serve(c, b->guard_fd, drain_ring);
		else if (b->guard_fd >= 0 && (pf[1].revents & (POLLHUP | POLLERR))) {
			/* every task that could stop in it is gone */
			close(b->guard_fd);
			b->guard_fd = -1;
		}
		drain_ring(c);
		sig = rec_take_request(&tick);
		if (sig && c->root > 0 && !(sig & REC_SIG_FROM_TTY)) {
			rec_stamp("stop_passed_on");
			kill(c->root, sig);
		}
		if (tick) {
			count_drops(c);
			if (iot_writer_events(c->w) != c->events_at_flush) {
				c->events_at_flush = iot_writer_events(c->w);
				iot_writer_flush(c->w, 0);
			}
		}
		if (!c->st.root_done && child_news) {
			int st;

			child_news = 0;
			if (waitpid(c->root, &st, WNOHANG) == c->root) {
				rec_stamp("root_reaped");
				c->st.root_status = st;
				c->st.root_done = 1;
			}
		}
		if (c->st.root_done && !followed(b))
			break;
	}
	rec_stamp("loop_left");
	if (c->fast)
		mixed_round(c, UINT64_MAX);
	else
		rec_ring_consume(&b->ring);
	count_drops(c);
	/* for the summary only: read once, at the end */
	c->st.bpf_unseen_in = bpf_count(b, BE_CNT_UNSEEN_IN);
	/* tasks whose end was lost */
	{
		int i = 0, left = c->ntasks;
		struct rec_task *t;

		while ((t = rec_task_next(c, &i, &left)))
			rec_bpf_emit_exit(c, t, iot_now_ns(), 0, 0, 0, 0);
	}
	rec_stamp_at("first_record", b->t_first);
	rec_stamp_at("last_record", b->t_last);
	rec_stamp("drained");
	return 0;
}

#else /* !IOT_HAVE_BPF */

const char *rec_bpf_missing(void)
{
	return "this iotape was built without the bpf backend (libbpf-dev, bpftool "
	       "or clang were missing at build time; run tools/deps.sh check and rebuild)";
}

int rec_bpf_setup(struct rec_ctx *c, const char **why)
{
	*why = rec_bpf_missing();
	return -ENOSYS;
}

int rec_bpf_start(struct rec_ctx *c)
{
	return -ENOSYS;
}

void rec_bpf_wait_loaded(struct rec_ctx *c)
{
}

int rec_bpf_wait(struct rec_ctx *c, const char **why)
{
	*why = rec_bpf_missing();
	return -ENOSYS;
}

void rec_bpf_unload_start(struct rec_ctx *c)
{
}

void rec_bpf_free(struct rec_ctx *c)
{
}

int64_t rec_bpf_gap_ns(struct rec_ctx *c)
{
	return -1;
}

int rec_bpf_follow(struct rec_ctx *c, pid_t pid)
{
	return -ENOSYS;
}

int rec_bpf_loop(struct rec_ctx *c)
{
	return -ENOSYS;
}

void rec_bpf_set_guard(struct rec_ctx *c, int fd)
{
}

#endif
