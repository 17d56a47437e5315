/*
 * bpf_drain.c - `--backend bpf` and `mixed` while the program runs:
 * follow it, drain the programs' ring buffer into the trace (bpf_events.c
 * turns records into events; with `mixed`, merged by time with the fast
 * path's rings), count what the programs lost.  The load and unload:
 * bpf.c.
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
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rec.h"

#ifdef IOT_HAVE_BPF
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/event.h"
#include "bpf/bpf_int.h"
#include "iotape.skel.h"

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

int rec_bpf_on_record(void *ctx, void *data, size_t size)
{
	struct rec_ctx *c = ctx;

	if (rec_bpf_calib.tid && size >= sizeof(struct be_hdr) &&
	    ((const struct be_hdr *)data)->tid == (uint32_t)rec_bpf_calib.tid) {
		rec_bpf_calib_take(data, size);
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
			int64_t *dl = ds ? realloc(b->dead_left, 2 * cap * sizeof(*dl)) : NULL;

			if (dt)
				b->dead = dt;
			if (ds)
				b->dead_status = ds;
			if (dl)
				b->dead_left = dl;
			if (!dt || !ds || !dl)
				continue;
			b->capdead = cap;
		}
		b->dead[nd] = (pid_t)h->tid;
		b->dead_status[nd] = ((const struct be_gone *)h)->status;
		b->dead_left[2 * nd] = ((const struct be_gone *)h)->left_nr;
		b->dead_left[2 * nd + 1] = ((const struct be_gone *)h)->left_rv;
		nd++;
	}
	rec_fast_gather(c, cut, b->dead, b->dead_status, b->dead_left, nd);
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

/* PF_EXITING, include/linux/sched.h: set before sched_process_exit */
#define PF_EXITING_ 0x4

/* has task @pid begun to exit (or ended)?  From /proc/PID/stat's flags:
 * a zombie's too, and a task that is gone reads as ended */
static int task_exiting(pid_t pid)
{
	char path[64], buf[512], *p;
	unsigned long flags;
	char state;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = 0;
	/* after the name, which may hold anything: state ppid pgrp session
	 * tty_nr tpgid flags */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2)
		return 0;
	return state == 'Z' || state == 'X' || (flags & PF_EXITING_);
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
	    (r = rec_ring_open(&b->ring, b->skel->maps.rb.map_fd, b->ring_bytes,
			       rec_bpf_on_record, c)) < 0)
		return r;
	/* the measuring child's records, if the ring was not mapped when
	 * it ended (rec_bpf_calib_end()) */
	if (rec_bpf_calib.tid) {
		rec_ring_consume(&b->ring);
		rec_bpf_calib.tid = 0;
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
	/*
	 * The program waits to be let go, but a signal to its process
	 * group (a ^C while the recorder got ready) may have ended it
	 * already: if its end came before its storage was set, the
	 * programs never counted it, and the loop would wait for it
	 * forever.  A task that has begun to exit now either passed
	 * sched_process_exit or is about to; either way it is not live (a
	 * count that goes below 0 reads as none).
	 */
	if (!r && task_exiting(pid)) {
		int64_t none = 0;

		bpf_map_update_elem(b->skel->maps.live.map_fd, &k, &none, BPF_ANY);
	}
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

#endif
