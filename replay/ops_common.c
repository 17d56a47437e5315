/*
 * ops_common.c - what the replay handlers share: marking an op skipped,
 * the live descriptor of a recorded one, the op's path within the
 * replay's confinement, the bytes replayed writes carry, and a
 * descriptor of no file made again under its recorded number.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpl.h"

static pthread_once_t wbuf_once = PTHREAD_ONCE_INIT;
static char *write_buf;
static char *_Atomic wbuf_made;

static void init_wbuf(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	size_t i;

	write_buf = aligned_alloc(4096, RPL_SCRATCH);
	for (i = 0; write_buf && i + 8 <= RPL_SCRATCH; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(write_buf + i, &x, 8);
	}
	atomic_store_explicit(&wbuf_made, write_buf, memory_order_release);
}

const char *rpl_wbuf(void)
{
	/* every write asks: once made, a load answers, not pthread_once() */
	char *b = atomic_load_explicit(&wbuf_made, memory_order_acquire);

	if (b)
		return b;
	pthread_once(&wbuf_once, init_wbuf);
	return write_buf;
}

void rpl_proc_fd(char *buf, int fd)
{
	static const char pre[] = "/proc/thread-self/fd/";
	char d[12];
	unsigned int v = fd < 0 ? 0 : (unsigned int)fd;
	int n = 0;

	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(buf, pre, sizeof(pre) - 1);
	buf += sizeof(pre) - 1;
	while (n)
		*buf++ = d[--n];
	*buf = 0;
}

const char *rpl_wbuf_of(const struct rpl_op *op)
{
	/* in .bss: the pages a write reads from are the kernel's zero page,
	 * never touched by the replay; page aligned, as O_DIRECT asks */
	static const char zeros[RPL_SCRATCH] __attribute__((aligned(4096)));

	return (op->ev.flags & IOT_EV_ZERO) ? zeros : rpl_wbuf();
}

int64_t rpl_skip(struct rpl_op *op, int why)
{
	op->skip = (uint8_t)why;
	return RPL_SKIPPED;
}

int rpl_live_fd_entry(struct rpl_ctx *c, struct rpl_op *op, int64_t fd, struct rpl_fd *e)
{
	if (fd < 0 || fd >= RPL_FD_MAX) {
		rpl_skip(op, RPL_SKIP_BADARG);
		return -1;
	}
	if (rpl_fdtab_get(c->pr->tab, (long)fd, e) < 0 || e->state != RPL_FD_LIVE) {
		rpl_skip(op, RPL_SKIP_FD);
		return -1;
	}
	return e->live;
}

int rpl_live_fd_marks(struct rpl_ctx *c, struct rpl_op *op, int64_t fd, int *marks)
{
	struct rpl_fd e;
	int live = rpl_live_fd_entry(c, op, fd, &e);

	if (live >= 0 && marks)
		*marks = e.marks;
	return live;
}

int rpl_live_fd(struct rpl_ctx *c, struct rpl_op *op, int64_t fd)
{
	return rpl_live_fd_marks(c, op, fd, NULL);
}

const char *rpl_op_path(struct rpl_ctx *c, struct rpl_op *op, const char *path)
{
	int why;

	if (!path) {
		rpl_skip(op, RPL_SKIP_NOPATH);
		return NULL;
	}
	why = rpl_path_skip(c->p->o, path);
	if (why) {
		rpl_skip(op, why);
		return NULL;
	}
	return path;
}

int64_t rpl_anon_fd(struct rpl_ctx *c, struct rpl_op *op, int cloexec,
		    int64_t (*make)(struct rpl_ctx *c, const struct rpl_op *op))
{
	struct rpl_fd e = { .state = RPL_FD_LIVE, .cloexec = cloexec != 0, .path = op->ev.path };
	int64_t r;

	if (op->ev.ret < 0)
		return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
	if (op->ev.ret >= RPL_FD_MAX)
		return rpl_skip(op, RPL_SKIP_BADARG);
	r = make(c, op);
	if (r < 0)
		return r;
	e.live = (int)r;
	if (rpl_fdtab_set(c->pr->tab, (long)op->ev.ret, &e) < 0) {
		close(e.live);
		return -ENOMEM;
	}
	return op->ev.ret;
}
