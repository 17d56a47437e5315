/*
 * ops_pipe.c - reads and writes of pipes and sockets move what they moved
 * when recorded.
 *
 * A program that makes its pipe ends non-blocking (xz does, to poll them)
 * gets EAGAIN where the other end is not ready, polls, and calls again;
 * iotape records the calls, not the polls.  Replayed as they were, a
 * call that failed with EAGAIN when recorded could move data here (its
 * other end happened to be ready), and one that moved data could find
 * its other end not yet ready here: the data then no longer flows as it
 * did, the pipe fills or runs dry at other calls, and every later result
 * differs (3,040 of a package install's calls).  The plan orders the ops
 * on one pipe as recorded, so if every call moves what it moved then,
 * the pipe holds what it held then.  So a call that moved nothing
 * (EAGAIN) moves nothing here and is not made; one that moved N bytes
 * moves N here, waiting (poll) for its other end where needed, as the
 * program did.  The wait has a limit: a trace whose other end never comes
 * (a writer not recorded) must not hang the replay.  It counts from the
 * last byte moved, not from the call's start (a 1 MiB write into a pipe
 * whose reader takes 64 KiB at a time, with think time between, moves
 * data all along), and it is RPL_PIPE_WAIT_NS more than the call took when
 * recorded (a read blocked that long then, waiting for its writer); once
 * a wait was given up, later ones wait RPL_PIPE_WAIT_SHORT_NS more (such
 * a trace may have thousands), and the summary counts them.
 *
 * What the plan may order a read after (rpl_pipe_fit()): the write that
 * put the read's last byte in the pipe, unless that write could only
 * return once this very read made room.  The kernel lets a write into a
 * full pipe move what fits and block for the rest, so a read recorded as
 * returning 65,515 bytes can hold part of an 8 KiB write that returned
 * after it (git's pack-objects writing, upload-pack reading); ordered
 * after that write, the read waited for it and the write for the read,
 * until the wait was given up.  The read then follows the last write
 * that certainly fits in the pipe with it, and waits for its remaining
 * bytes as it runs (as a blocking read does).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "rpl.h"

#define RPL_PIPE_WAIT_NS 2000000000LL
#define RPL_PIPE_WAIT_SHORT_NS 20000000LL
/* What certainly fits in a pipe of the default 16 pages: a write of s
 * bytes takes at most s / 4096 + 2 pages (its unaligned head and tail),
 * the reader's partly read page one more, so 16 KiB in at most 5 writes
 * take at most 4 + 10 + 1 = 15 pages.  Few writes also keep a socket's
 * per-message overhead well inside its buffer. */
#define RPL_PIPE_ROOM 16384
#define RPL_PIPE_ROOM_WRITES 5

int rpl_fd_is_stream(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

int rpl_pipe_nothing(const struct rpl_op *op)
{
	const struct iot_syscall *sc;

	/* every read and write asks: the result rules most out */
	if (op->ev.ret != -EAGAIN)
		return 0;
	sc = iot_syscall_by_nr(op->ev.nr);
	return sc && (sc->flags & IOT_SCF_COUNT);
}

ptrdiff_t rpl_pipe_fit(const int64_t *w_end, size_t first, size_t cur, int64_t from)
{
	ptrdiff_t j = (ptrdiff_t)cur, lo = (ptrdiff_t)first;

	if (j - lo >= RPL_PIPE_ROOM_WRITES)
		j = lo + RPL_PIPE_ROOM_WRITES - 1;
	while (j >= lo && w_end[j] - from > RPL_PIPE_ROOM)
		j--;
	return j >= lo ? j : -1;
}

/* How long a wait for @op's other end may last without progress. */
static int64_t wait_limit(const struct rpl_ctx *c, const struct rpl_op *op)
{
	int64_t took = op->ev.t_exit > op->ev.t_enter ? op->ev.t_exit - op->ev.t_enter : 0;

	return took + (atomic_load(&c->p->pipe_gaveup) ? RPL_PIPE_WAIT_SHORT_NS : RPL_PIPE_WAIT_NS);
}

/* The deadline of a pipe call's waits for its other end, set at its first
 * wait (*@deadline 0).  @return : 1 when it has passed (counted as given
 * up), else 0. */
static int waited_out(struct rpl_ctx *c, const struct rpl_op *op, int64_t *deadline)
{
	int64_t now = iot_now_ns();

	if (!*deadline) {
		*deadline = now + wait_limit(c, op);
		return 0;
	}
	if (now <= *deadline)
		return 0;
	atomic_fetch_add(&c->p->pipe_gaveup, 1);
	return 1;
}

int rpl_wait_again(struct rpl_ctx *c, const struct rpl_op *op, struct pollfd *pfd,
		   int64_t *deadline)
{
	if (atomic_load(&rpl_stop_sig) || waited_out(c, op, deadline))
		return 0;
	poll(pfd, 1, 20);
	return 1;
}

/*
 * A read that saw end of file when recorded, replayed while a write end
 * is still open (EAGAIN), waits for the end: the plan orders it after the
 * close or exit that ended the pipe when these are recorded, but a process
 * whose exit has no call in the trace (its descriptors closed as it ended)
 * gives it nothing to follow.  Data that comes instead is left in the pipe
 * (the result differs either way).  So does one that met ECONNRESET: its
 * peer closed a stream socket with bytes it never read, which the plan
 * does not order the read after either (a multiprocessing manager's
 * client, whose last request the server left unread as it shut down, got
 * EAGAIN here); the read after the end fails as it did.
 */
static int64_t wait_eof(struct rpl_ctx *c, struct rpl_op *op, int fd, int64_t r)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int64_t deadline = iot_now_ns() + wait_limit(c, op);

	while (!atomic_load(&rpl_stop_sig)) {
		int avail = 0;

		/* readable with nothing to read: the end (a socket's end is
		 * POLLIN, a pipe's POLLHUP) */
		if (poll(&pfd, 1, 20) == 1) {
			if (ioctl(fd, FIONREAD, &avail) == 0 && avail == 0)
				return RPL_CALL(c, read(fd, c->scratch, 1));
			break;
		}
		if (iot_now_ns() > deadline) {
			atomic_fetch_add(&c->p->pipe_gaveup, 1);
			break;
		}
	}
	return r;
}

/*
 * A write that met EPIPE when recorded, replayed while its pipe or socket
 * is full and the reading end still open (EAGAIN): that end was closing
 * then (a killed process's descriptors close a while after its end:
 * plan_pipes.c rpl_plan_socks_end()).  It waits for the end, as a blocking
 * write into the full pipe did, then fails as it did.
 *
 * The replay's pipe can have room where the recorded one had none: a
 * pipe is full when its 16 buffers are, however few bytes they hold,
 * and how writes of odd sizes share buffers follows how far the reader
 * had gone at each (`cat parts | gzip -dc | cmp`: cmp's exit killed gzip,
 * and cat's write, which had moved nothing, got 53248 bytes in, or the
 * 1 byte written here once the pipe polled writable).  Such a write
 * (@r a count) fills the room and waits on: the recorded one moved
 * nothing, and its reader reads no more.
 */
static int64_t wait_epipe(struct rpl_ctx *c, struct rpl_op *op, int fd, int64_t r)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int64_t deadline = 0, w;

	while (!atomic_load(&rpl_stop_sig)) {
		if (poll(&pfd, 1, 20) == 1) {
			w = RPL_CALL(c, write(fd, rpl_wbuf(), RPL_SCRATCH));
			if (w != -EAGAIN && w <= 0)
				return w;
			continue;
		}
		if (waited_out(c, op, &deadline))
			break;
	}
	return r;
}

/* Opened through the thread's own descriptor, as a FIFO is by its name:
 * non-blocking, it does not wait for a writer (there is one, @fd).  A
 * pipe made under other credentials may refuse it: the write then meets
 * what the plan's ends say, EPIPE. */
int rpl_pipe_reader(int fd)
{
	char name[48];

	snprintf(name, sizeof(name), "/proc/thread-self/fd/%d", fd);
	return open(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
}

int rpl_msg_got_fds(const struct msghdr *m, int *live, int max)
{
	struct cmsghdr *h;
	int k = 0;

	for (h = CMSG_FIRSTHDR(m); h; h = CMSG_NXTHDR((struct msghdr *)m, h)) {
		size_t i, c;

		if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
			continue;
		c = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < c; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(h) + i * sizeof(int), sizeof(int));
			if (k < max)
				live[k++] = fd;
			else
				close(fd);
		}
	}
	return k;
}

/* The descriptors a recvmsg takes: as many as the recorded call got
 * (@n), and those received so far (@k of them in @live). */
struct msg_fds {
	int n, k;
	int live[IOT_MSG_FDS_MAX];
};

/* A recvmsg of up to @len bytes from @fd, its descriptors added to @mf. */
static ssize_t recv_fds(struct rpl_ctx *c, int fd, size_t len, struct msg_fds *mf)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(IOT_MSG_FDS_MAX * sizeof(int))]; } u;
	struct iovec iov = { c->scratch, len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = u.b, .msg_controllen = sizeof(u.b) };
	ssize_t r = recvmsg(fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

	if (r > 0)
		mf->k += rpl_msg_got_fds(&m, mf->live + mf->k, IOT_MSG_FDS_MAX - mf->k);
	return r;
}

/* Is @fd a FIFO opened by its name (not an anonymous pipe, on pipefs)?
 * Its reader sees end of file whenever no writer has it open, and a
 * writer may open it after that. */
static int named_fifo(int fd)
{
	struct statfs sf;
	struct stat sb;

	return fstat(fd, &sb) == 0 && S_ISFIFO(sb.st_mode) && fstatfs(fd, &sf) == 0 &&
	       sf.f_type != PIPEFS_MAGIC;
}

/*
 * A read of a FIFO that found no writer (0) where the recorded one read
 * data waits for a writer, as long as a read waits for its writer.  Two
 * ways to get there: the writer's open, blocked when recorded until the
 * reader came, is tried again here while no reader has the FIFO open
 * (ops_file.c fifo_writer()), and the reader's open, which returned
 * first, and its read may run before the writer's next try (`cat big >ff
 * & cat ff` read nothing, and every later read and write differed:
 * 108-275 of ten such rounds; pv into a FIFO, 6-189); and a FIFO's
 * writers may come one after another while its read waits, with moments
 * when none has it open (4 shells' `exec 8>fifo` into one `cat fifo`: a
 * read of 60 bytes got 45, from those before such a moment).  A FIFO's
 * reader polls neither readable nor hung up until a writer opens it
 * after the reader did; hung up (a writer came and went), it is looked
 * at again a little later.
 * @return : 1 if data came, 0 if not (the read's 0 stands).
 */
static int fifo_writer_due(struct rpl_ctx *c, const struct rpl_op *op, int fd, int64_t *deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec ts = { 0, 100000 };

	if (!named_fifo(fd))
		return 0;
	while (!atomic_load(&rpl_stop_sig) && !waited_out(c, op, deadline)) {
		if (poll(&pfd, 1, 20) != 1)
			continue;
		if (pfd.revents & POLLIN)
			return 1;
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* rpl_pipe_rest(), and for a recvmsg (@mf) the descriptors that come
 * with the rest of its bytes: a message that carried them came last in
 * what the recorded call took, and may come only after the call began
 * here.  read() would have the kernel drop them. */
static int64_t pipe_rest(struct rpl_ctx *c, struct rpl_op *op, int fd, int64_t r, int wr,
			 struct msg_fds *mf)
{
	int64_t want = op->ev.ret, done = r > 0 ? r : 0, deadline = 0;
	struct pollfd pfd;

	if ((want == 0 || want == -ECONNRESET) && !wr && r == -EAGAIN && rpl_fd_is_stream(fd))
		return wait_eof(c, op, fd, r);
	if (want == -EPIPE && wr && (r == -EAGAIN || r > 0) && rpl_fd_is_stream(fd))
		return wait_epipe(c, op, fd, r);
	if (want <= 0 || done >= want || (r < 0 && r != -EAGAIN) ||
	    (r == 0 && !wr && !fifo_writer_due(c, op, fd, &deadline)))
		return r;
	if (!rpl_fd_is_stream(fd))
		return r;
	pfd = (struct pollfd){ .fd = fd, .events = wr ? POLLOUT : POLLIN };
	while (done < want && !atomic_load(&rpl_stop_sig)) {
		int64_t n = want - done < RPL_SCRATCH ? want - done : RPL_SCRATCH;

		r = RPL_CALL(c, wr ? write(fd, rpl_wbuf(), (size_t)n) :
			     mf && mf->k < mf->n ? recv_fds(c, fd, (size_t)n, mf) :
			     read(fd, c->scratch, (size_t)n));
		if (r > 0) {
			done += r;
			deadline = 0;	/* the other end is there: wait anew */
			continue;
		}
		/* end of file: the writer is gone, or a FIFO's next one
		 * is still to come */
		if (r == 0 && !wr) {
			if (!fifo_writer_due(c, op, fd, &deadline))
				break;
			continue;
		}
		if ((r < 0 && r != -EAGAIN && r != -EINTR) || waited_out(c, op, &deadline))
			break;
		poll(&pfd, 1, 20);
	}
	return done > 0 ? done : r;
}

int64_t rpl_pipe_rest(struct rpl_ctx *c, struct rpl_op *op, int fd, int64_t r, int wr)
{
	return pipe_rest(c, op, fd, r, wr, NULL);
}

void rpl_pipe_gone_first(struct rpl_ctx *c, const struct rpl_op *op)
{
	if (rpl_op_wait_proc(op) >= 0)
		rpl_wait_proc(c->p, op->link);
}

/* Has socket @fd a peer to send to?  A datagram socket that is not
 * connected sends to the address each message names, which the trace
 * does not keep (sd_notify's to $NOTIFY_SOCKET): such a send is not made
 * here.  Pipes and stream sockets: yes. */
static int connected(int fd)
{
	struct sockaddr_un sa;
	socklen_t len = sizeof(sa);
	int type = 0;
	socklen_t tl = sizeof(type);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0 || type == SOCK_STREAM)
		return 1;
	return getpeername(fd, (struct sockaddr *)&sa, &len) == 0;
}

/* The sender's live descriptors for the @n numbers @fds of its message
 * into @live.  @return : how many it has (a number it had not open is
 * left out: the receiver gets one fewer, as the kernel would have
 * refused the message). */
static int live_fds(struct rpl_ctx *c, const int32_t *fds, int n, int *live)
{
	struct rpl_fd e;
	int i, k = 0;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0 && fds[i] < RPL_FD_MAX &&
		    rpl_fdtab_get(c->pr->tab, fds[i], &e) == 0 && e.state == RPL_FD_LIVE &&
		    e.live >= 0)
			live[k++] = e.live;
	return k;
}

/*
 * sendmsg, recvmsg on an end of the replay's socket pair (non-blocking:
 * ops_file.c make_pair()): each moves the bytes it moved when recorded,
 * as a write or a read does (waiting for the other end likewise:
 * rpl_pipe_rest()), and the descriptors its message carried.  The
 * sender's message carries its live descriptors for the numbers it sent,
 * with its first bytes (SCM_RIGHTS); the receiver keeps those it is
 * given under the numbers it was given when recorded, so that what it
 * does through them reaches the files the sender opened (plan_socks.c
 * orders it so).  A socket the replay has no pair for (a named or
 * network one) is not replayed.
 */
int64_t rpl_msg_rw(struct rpl_ctx *c, struct rpl_op *op)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(IOT_MSG_FDS_MAX * sizeof(int))]; } u;
	int wr = op->ev.nr == SYS_sendmsg, peek = (op->ev.args[2] & MSG_PEEK) != 0;
	int32_t fds[IOT_MSG_FDS_MAX];
	struct msg_fds mf = { .n = rpl_msg_fds(&op->ev, fds) };
	int n = mf.n, *live = mf.live, k = 0, i;
	int fd = rpl_live_fd(c, op, op->ev.args[0]);
	int64_t want = op->ev.ret, r, deadline = 0;
	struct pollfd pfd = { .fd = fd, .events = wr ? POLLOUT : POLLIN };
	struct iovec iov;
	struct msghdr m;

	if (fd < 0)
		return RPL_SKIPPED;
	if (rpl_pipe_nothing(op))
		return op->ev.ret;
	if (!rpl_fd_is_stream(fd) || (want < 0 && !(wr && want == -EBADF && n > 0)) ||
	    (wr && !connected(fd)))
		return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
	if (n > IOT_MSG_FDS_MAX)
		n = mf.n = IOT_MSG_FDS_MAX;
	if (wr) {
		rpl_pipe_gone_first(c, op);
		k = live_fds(c, fds, n, live);
	}
	/* a message of a descriptor not open when recorded (EBADF): one not
	 * open here, which the kernel refuses alike */
	if (want < 0) {
		live[0] = -1;
		k = 1;
		want = 1;
	}
	memset(&m, 0, sizeof(m));
	memset(&u, 0, sizeof(u));
	iov.iov_base = wr ? (void *)rpl_wbuf() : c->scratch;
	iov.iov_len = (size_t)(want < RPL_SCRATCH ? want : RPL_SCRATCH);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	if (wr ? k > 0 : n > 0) {
		m.msg_control = u.b;
		m.msg_controllen = wr ? CMSG_SPACE(k * sizeof(int)) : sizeof(u.b);
	}
	if (wr && k > 0) {
		u.h.cmsg_level = SOL_SOCKET;
		u.h.cmsg_type = SCM_RIGHTS;
		u.h.cmsg_len = CMSG_LEN(k * sizeof(int));
		memcpy(CMSG_DATA(&u.h), live, k * sizeof(int));
	}
	do
		r = RPL_CALL(c, wr ? sendmsg(fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL) :
				     recvmsg(fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC |
						 (peek ? MSG_PEEK : 0)));
	while (r == -EAGAIN && rpl_wait_again(c, op, &pfd, &deadline));
	if (wr)
		return rpl_pipe_rest(c, op, fd, r, wr);
	if (r > 0)
		mf.k = rpl_msg_got_fds(&m, live, IOT_MSG_FDS_MAX);
	if (!peek)
		r = pipe_rest(c, op, fd, r, wr, &mf);
	for (i = 0; i < mf.k; i++) {
		struct rpl_fd e = { .state = RPL_FD_LIVE, .live = live[i],
				    .cloexec = (op->ev.args[2] & MSG_CMSG_CLOEXEC) != 0 };

		if (i >= n || fds[i] < 0 || fds[i] >= RPL_FD_MAX ||
		    rpl_fdtab_set(c->pr->tab, fds[i], &e) < 0)
			close(live[i]);
	}
	return r;
}

/*
 * sendto, recvfrom (send and recv) on an end of the replay's socket pair
 * (ops_file.c make_pair(), or a named socket's connection: ops_sock.c):
 * each moves what it moved when recorded, as a write or a read does
 * (rpl_pipe_rest()).  A peek (MSG_PEEK) leaves its bytes for the next
 * read: it waits until as many are there as it saw when recorded.  A
 * send to an address from a socket that is not connected is not made
 * (the address is not kept: connected()).
 */
int64_t rpl_send_recv(struct rpl_ctx *c, struct rpl_op *op, int fd, int wr)
{
	const int64_t *a = op->ev.args;
	int64_t want = op->ev.ret, asked = a[2] > 0 ? a[2] : 0, r, deadline = 0;
	int peek = !wr && (a[3] & MSG_PEEK);
	int fl = MSG_DONTWAIT | (int)(a[3] & (wr ? MSG_MORE | MSG_EOR | MSG_OOB :
						      MSG_PEEK | MSG_TRUNC | MSG_OOB));
	struct pollfd pfd = { .fd = fd, .events = wr ? POLLOUT : POLLIN };
	size_t n;

	if (wr && a[5] > 0 && !connected(fd))
		return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
	n = (size_t)(want > 0 ? want : asked);
	if (n > RPL_SCRATCH)
		n = RPL_SCRATCH;
	for (;;) {
		r = RPL_CALL(c, wr ? send(fd, rpl_wbuf_of(op), n, fl | MSG_NOSIGNAL) :
				     recv(fd, c->scratch, n, fl));
		if (r == -EAGAIN && want > 0) {
			if (!rpl_wait_again(c, op, &pfd, &deadline))
				break;
		} else if (peek && r >= 0 && r < want) {
			/* part of what it saw: the socket polls readable
			 * until it is read, so the wait for the rest is a
			 * pause, not a poll (which returned at once) */
			if (atomic_load(&rpl_stop_sig) || waited_out(c, op, &deadline))
				break;
			nanosleep(&(struct timespec){ 0, 20000 }, NULL);
		} else {
			break;
		}
	}
	return peek ? r : rpl_pipe_rest(c, op, fd, r, wr);
}

/*
 * vmsplice: user memory into a pipe (its write end), or out of it (its
 * read end), moving what it moved when recorded as a writev or readv of
 * the pipe would, waiting for its other end likewise.  The replay's
 * pipes never block: the first part goes by vmsplice itself, the rest by
 * rpl_pipe_rest().
 */
int64_t rpl_vmsplice(struct rpl_ctx *c, struct rpl_op *op)
{
	int fd = rpl_live_fd(c, op, op->ev.args[0]), fl, wr;
	unsigned int how = ((unsigned int)op->ev.args[3] & ~SPLICE_F_GIFT) | SPLICE_F_NONBLOCK;
	int64_t want = op->ev.ret, r, deadline = 0;
	struct pollfd pfd;
	struct iovec iov;

	if (fd < 0)
		return RPL_SKIPPED;
	if (rpl_pipe_nothing(op))
		return op->ev.ret;
	if ((fl = fcntl(fd, F_GETFL)) < 0)
		return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
	wr = (fl & O_ACCMODE) != O_RDONLY;
	iov.iov_base = wr ? (void *)rpl_wbuf_of(op) : c->scratch;
	iov.iov_len = (size_t)(want < RPL_SCRATCH ? want : RPL_SCRATCH);
	/* failed when recorded: made so again, once (fio's splice engine
	 * reading gets EFAULT from its first vmsplice of each request, and
	 * makes it again) */
	if (want <= 0) {
		if (want == -EFAULT)
			iov.iov_base = NULL;
		iov.iov_len = op->ev.args[1] > 0 && op->ev.args[1] < RPL_SCRATCH ?
			      (size_t)op->ev.args[1] : 1;
		return RPL_CALL(c, vmsplice(fd, &iov, 1, how));
	}
	pfd = (struct pollfd){ .fd = fd, .events = wr ? POLLOUT : POLLIN };
	do
		r = RPL_CALL(c, vmsplice(fd, &iov, 1, how));
	while (r == -EAGAIN && rpl_wait_again(c, op, &pfd, &deadline));
	return rpl_pipe_rest(c, op, fd, r, wr);
}

/*
 * An eventfd's read or write (ops_io.c h_rw()): a write adds one to the
 * counter; a read that took the count when recorded and finds none here
 * (EAGAIN: the replay's eventfds never block) waits for it as a pipe's
 * read waits for its writer, for as long.
 */
int64_t rpl_eventfd_rw(struct rpl_ctx *c, struct rpl_op *op, int fd, int wr)
{
	struct pollfd pfd = { .fd = fd, .events = wr ? POLLOUT : POLLIN };
	int64_t r, deadline = 0;
	/* a write refused when recorded (EINVAL: the value ~0, which no
	 * count may take) writes that value again */
	uint64_t v = wr && op->ev.ret == -EINVAL ? ~0ULL : 1;

	do
		r = RPL_CALL(c, wr ? write(fd, &v, 8) : read(fd, &v, 8));
	while (r == -EAGAIN && op->ev.ret == 8 && rpl_wait_again(c, op, &pfd, &deadline));
	return r;
}

/*
 * A sendfile into one of the replay's pipes (busybox tar into its gzip):
 * the pipe never blocks here, so one that finds it full gets EAGAIN where
 * the program's call waited for the reader.  It waits, as a write does,
 * for as long as a write would, until it has moved what it moved when
 * recorded.  @r : the first try's result.  @return : the bytes moved, or
 * @r.
 */
int64_t rpl_sendfile_rest(struct rpl_ctx *c, struct rpl_op *op, int out, int in, off_t *off,
			  size_t n, int64_t r)
{
	int64_t done = r > 0 ? r : 0, deadline = 0;

	while (done < op->ev.ret && (size_t)done < n && !atomic_load(&rpl_stop_sig)) {
		if (r == 0 || (r < 0 && r != -EAGAIN && r != -EINTR))
			break;
		if (r < 0) {
			struct pollfd pout = { .fd = out, .events = POLLOUT };

			if (waited_out(c, op, &deadline))
				break;
			poll(&pout, 1, 20);
		} else {
			deadline = 0;	/* the reader is there: wait anew */
		}
		r = RPL_CALL(c, sendfile(out, in, off, n - (size_t)done));
		if (r > 0)
			done += r;
	}
	return done > 0 ? done : r;
}

/*
 * A splice or tee between two live descriptors, with the replay's pipes
 * never blocking (SPLICE_F_NONBLOCK).  One that moved bytes when recorded
 * and finds its input empty or its output full here (EAGAIN) waits for
 * them, as the blocking call did, for as long as a read or write would;
 * a tee copied from a pipe its reader had not yet emptied, a slot a
 * copy, and met a full pipe where the reader had kept up (stress-ng's tee
 * stressor).  What a tee moved in part stays so: another tee would copy
 * the same bytes again.  A splice moves the rest, as a write does: the
 * blocking one moved them all, waiting for room (pv splicing a file into
 * a pipe that tee read 8 KiB at a time moved 64 KiB a call; here 8 KiB,
 * the rest of the file left for a read after the loop, and the reader
 * met its end early: 2,211 reads differed).  And a splice that found the
 * end of its input (0) waits for room in a full output as well: the
 * kernel asks for room before it reads, and the program's call waited for
 * it (as a sendfile does).
 */
int64_t rpl_pipe_move(struct rpl_ctx *c, struct rpl_op *op, int in, int out, size_t n)
{
	const int64_t *a = op->ev.args;
	int splice_rest = op->ev.nr == SYS_splice;
	int64_t r, done = 0, deadline = 0;
	loff_t o1 = a[1], o2 = a[3];

	for (;;) {
		if (op->ev.nr == SYS_tee)
			r = RPL_CALL(c, tee(in, out, n, (unsigned)a[3] | SPLICE_F_NONBLOCK));
		else
			r = RPL_CALL(c, splice(in, a[1] == -1 ? NULL : &o1, out,
					       a[3] == -1 ? NULL : &o2, n - (size_t)done,
					       (unsigned)a[5] | SPLICE_F_NONBLOCK));
		if (splice_rest && r > 0) {
			done += r;
			if (done >= op->ev.ret || (size_t)done >= n)
				return done;
			deadline = 0;	/* its other end is there: wait anew */
			continue;
		}
		if (r != -EAGAIN || op->ev.ret < 0 || (op->ev.ret == 0 && !splice_rest) ||
		    atomic_load(&rpl_stop_sig) || waited_out(c, op, &deadline))
			return done > 0 ? done : r;
		{
			/* the input, while it has nothing; then the output */
			struct pollfd pin = { .fd = in, .events = POLLIN };
			struct pollfd pout = { .fd = out, .events = POLLOUT };

			if (poll(&pin, 1, 0) == 1)
				poll(&pout, 1, 20);
			else
				poll(&pin, 1, 20);
		}
	}
}
