/*
 * ops_sock.c - Unix sockets with names: socket, listen, accept (bind and
 * connect: ops_dir.c, ops_meta.c).
 *
 * A program's processes that talk through a named Unix socket (Python's
 * multiprocessing fork server, a build tool's daemon, a local server and
 * its clients) pass data and descriptors through it as through a socket
 * pair.  The replay makes such sockets for real, so that what went
 * through them goes through them again: an AF_UNIX socket() is made
 * (non-blocking, as the replay's pipes and pairs are), its bind makes
 * its name under the root (through its parent, opened there:
 * /proc/thread-self/fd/N/NAME, never a path the kernel would resolve
 * from the machine's root), listen listens, connect connects to the
 * socket its name finds under the root (through a descriptor of it), and
 * accept takes the connection, waiting for it as a pipe's read waits for
 * its writer.  The plan pairs each connect with the accept that took it
 * (plan_socks.c), as the two ends of a socket pair.  Sockets of other
 * families are not made ("unsupported"), and calls on them are skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "engine.h"
#include "rpl.h"

/* The replay's own socket for descriptor @fd of the running process
 * (one h_socket() made), or -1: none, or not a socket. */
int rpl_sock_live(struct rpl_ctx *c, int64_t fd)
{
	struct rpl_fd e;
	struct stat st;

	if (fd < 0 || fd >= RPL_FD_MAX || rpl_fdtab_get(c->pr->tab, (long)fd, &e) < 0 ||
	    e.state != RPL_FD_LIVE || e.live < 0 || fstat(e.live, &st) < 0 || !S_ISSOCK(st.st_mode))
		return -1;
	return e.live;
}

int rpl_sock_addr(struct sockaddr_un *sa, int dirfd, const char *name)
{
	int n;

	sa->sun_family = AF_UNIX;
	n = name ? snprintf(sa->sun_path, sizeof(sa->sun_path), "/proc/thread-self/fd/%d/%s",
			    dirfd, name) :
		   snprintf(sa->sun_path, sizeof(sa->sun_path), "/proc/thread-self/fd/%d", dirfd);
	return n > 0 && (size_t)n < sizeof(sa->sun_path) ? 0 : -ENAMETOOLONG;
}

static int64_t h_socket(struct rpl_ctx *c, struct rpl_op *op)
{
	const int64_t *a = op->ev.args;
	int type = (int)a[1] & ~(SOCK_CLOEXEC | SOCK_NONBLOCK);
	struct rpl_fd e = { .state = RPL_FD_LIVE, .cloexec = ((int)a[1] & SOCK_CLOEXEC) != 0 };
	int64_t r;

	if (op->ev.ret < 0 || a[0] != AF_UNIX ||
	    (type != SOCK_STREAM && type != SOCK_SEQPACKET && type != SOCK_DGRAM))
		return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
	if (op->ev.ret >= RPL_FD_MAX)
		return rpl_skip(op, RPL_SKIP_BADARG);
	r = RPL_CALL(c, socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, (int)a[2]));
	if (r < 0)
		return r;
	e.live = (int)r;
	rpl_fdtab_set(c->pr->tab, (long)op->ev.ret, &e);
	return op->ev.ret;
}

static int64_t h_listen(struct rpl_ctx *c, struct rpl_op *op)
{
	int fd = rpl_sock_live(c, op->ev.args[0]);

	if (fd < 0)
		return rpl_skip(op, RPL_SKIP_FD);
	return RPL_CALL(c, listen(fd, (int)op->ev.args[1]));
}

/*
 * Connects to one listener are queued in the order they came here, not
 * always the order they came when recorded (several clients at once):
 * an accept that knows its connect (RPL_OPF_CONNQ, plan_socks.c
 * conn_take()) takes that connect's connection.  One the kernel gives it
 * that is another's is kept for that one's accept (conn_pool); the
 * kernel says whose it is (iot_unix_peer()).
 */
void rpl_conn_made(struct rpl_ctx *c, const struct rpl_op *op, int sock)
{
	uint64_t none = 0;
	struct stat st;

	/* (one named before it connected is known so: rpl_conn_name()) */
	if ((op->rflags & RPL_OPF_CONNQ) && op->link < c->p->n_connq && fstat(sock, &st) == 0)
		atomic_compare_exchange_strong(&c->p->connq[op->link].ino, &none,
					       (uint64_t)st.st_ino);
}

/*
 * The kernel says whose a connection is by its peer's inode, through
 * the peer's socket; a client that sent and closed before the server
 * accepted (a forking server whose backlog was full: socat, 20 clients
 * at once) has none left, and its connection was taken as the kernel
 * gave it (6 handlers a replay read another client's data).  So a
 * connect that its accept knows binds its socket, before it connects,
 * to an abstract name (no file, nothing under the root) that says which
 * it is: "\0iotape-conn.TAG.LINK", TAG this replay's (conn_tag), LINK
 * its index in connq; the accepted socket's peer keeps it as long as
 * the connection is queued, closed or not (getpeername()).  A socket
 * the program bound itself keeps its name, and is known by its inode.
 */
#define CONN_NAMED (1ULL << 63)

static socklen_t conn_addr(struct sockaddr_un *sa, uint32_t tag, uint32_t link)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1, "iotape-conn.%u.%u", tag, link);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

void rpl_conn_name(struct rpl_ctx *c, const struct rpl_op *op, int sock)
{
	struct sockaddr_un sa;
	socklen_t len = sizeof(sa);

	if (!(op->rflags & RPL_OPF_CONNQ) || op->link >= c->p->n_connq)
		return;
	/* bound already (by the program, or a connect tried before) */
	if (getsockname(sock, (struct sockaddr *)&sa, &len) < 0 ||
	    len > offsetof(struct sockaddr_un, sun_path))
		return;
	len = conn_addr(&sa, c->p->conn_tag, op->link);
	if (bind(sock, (struct sockaddr *)&sa, len) == 0)
		atomic_store(&c->p->connq[op->link].ino, CONN_NAMED | op->link);
}

/* The key of accepted connection @fd's peer: its name's (rpl_conn_name()),
 * else its inode, else 0 (unknown) */
static uint64_t conn_peer(const struct rpl_plan *p, int fd, int *diag)
{
	struct sockaddr_un sa, mine;
	socklen_t len = sizeof(sa), n;
	unsigned tag, link;
	struct stat st;

	/* (an abstract name has no NUL of its own: one past it, where the
	 * name is shorter than sun_path) */
	memset(&sa, 0, sizeof(sa));
	if (getpeername(fd, (struct sockaddr *)&sa, &len) == 0 && len < sizeof(sa) &&
	    len > offsetof(struct sockaddr_un, sun_path) + 1 &&
	    !sa.sun_path[0] &&
	    sscanf(sa.sun_path + 1, "iotape-conn.%u.%u", &tag, &link) == 2 &&
	    tag == p->conn_tag && link < p->n_connq &&
	    (n = conn_addr(&mine, tag, link)) == len && !memcmp(&mine, &sa, n))
		return CONN_NAMED | link;
	return fstat(fd, &st) == 0 ? iot_unix_peer(diag, (uint64_t)st.st_ino) : 0;
}

/*
 * The accept a kept connection is for may be another process's, which
 * has a kernel descriptor table of its own (exec_thread.c own_table()): there
 * the number it was accepted under is another file or none, and a
 * prefork server's workers, each taking the others' connections as the
 * kernel queued them, served the wrong clients (10-20 mismatches a
 * replay of three workers recorded with ptrace, 6-8 with bpf, and 2 s
 * waits for data that went to the other worker).  So it travels in the
 * courier: a datagram socket pair made before any table was copied from
 * the replayer's (conn_sock: the same two numbers in every table, kept
 * by own_table()), each message the peer's inode with the connection's
 * descriptor (SCM_RIGHTS).  The accept that wants it takes the messages
 * in turn under conn_lock, sending the others' back.  Where the courier
 * could not be made or has no room, a connection is kept in its table,
 * for an accept of that table only.
 */
void rpl_conn_courier(struct rpl_plan *p)
{
	int sndbuf = 4 << 20;

	p->conn_sock[0] = p->conn_sock[1] = -1;
	p->conn_tag = (uint32_t)getpid();
	if (!p->n_connq ||
	    socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, p->conn_sock) < 0)
		return;
	/* (a message held in its queue counts against its sender's room) */
	setsockopt(p->conn_sock[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
}

/* (the connections still in it, which no accept took, close with it) */
void rpl_conn_courier_close(struct rpl_plan *p)
{
	uint32_t i, n = 0;

	for (i = 0; i < 2; i++)
		if (p->conn_sock[i] >= 0)
			close(p->conn_sock[i]);
	p->conn_sock[0] = p->conn_sock[1] = -1;
	for (i = 0; i < p->n_conn_pool; i++)
		if (p->conn_pool[i].fd >= 0)
			p->conn_pool[n++] = p->conn_pool[i];
	p->n_conn_pool = n;
}

/* Connection @fd of peer @peer into the courier; the caller closes its
 * own.  @return : 0, or -1 (no courier, or no room). */
static int courier_send(struct rpl_plan *p, uint64_t peer, int fd)
{
	union { char b[CMSG_SPACE(sizeof(int))]; struct cmsghdr h; } u;
	struct iovec iov = { .iov_base = &peer, .iov_len = sizeof(peer) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b,
			    .msg_controllen = sizeof(u.b) };
	struct cmsghdr *h;

	if (p->conn_sock[0] < 0)
		return -1;
	memset(&u, 0, sizeof(u));
	h = CMSG_FIRSTHDR(&m);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof(fd));
	return sendmsg(p->conn_sock[0], &m, MSG_DONTWAIT | MSG_NOSIGNAL) == sizeof(peer) ? 0 : -1;
}

/* The courier's next connection, in the calling thread's table, its
 * peer in *@peer: its descriptor, or -1 */
static int courier_recv(struct rpl_plan *p, uint64_t *peer)
{
	union { char b[CMSG_SPACE(sizeof(int))]; struct cmsghdr h; } u;
	struct iovec iov = { .iov_base = peer, .iov_len = sizeof(*peer) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b,
			    .msg_controllen = sizeof(u.b) };
	int fd = -1;

	memset(&u, 0, sizeof(u));
	if (recvmsg(p->conn_sock[1], &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) != sizeof(*peer))
		return -1;
	rpl_msg_got_fds(&m, &fd, 1);
	return fd;
}

/* The connection of peer @peer out of the courier, into the table of
 * process @me: its descriptor, or -1.  The caller holds conn_lock. */
static int courier_take(struct rpl_plan *p, uint64_t peer, uint32_t me)
{
	uint32_t i, n = 0, k;
	uint64_t got;
	int fd;

	for (i = 0; i < p->n_conn_pool; i++)
		n += p->conn_pool[i].fd < 0;
	for (k = 0; k < n; k++) {
		if ((fd = courier_recv(p, &got)) < 0)
			return -1;
		if (got == peer)
			return fd;
		if (courier_send(p, got, fd) == 0) {
			close(fd);
			continue;
		}
		/* no room to send it back: kept here, in this table */
		for (i = 0; i < p->n_conn_pool; i++)
			if (p->conn_pool[i].peer == got && p->conn_pool[i].fd < 0) {
				p->conn_pool[i].fd = fd;
				p->conn_pool[i].proc = me;
				break;
			}
	}
	return -1;
}

/* Can a descriptor accepted by process @a be used by process @b?  In one
 * descriptor table: a process's own (own_table()), or the replayer's. */
static int one_table(const struct rpl_plan *p, uint32_t a, uint32_t b)
{
	return a == b || (!p->procs[a].own_kernel_table && !p->procs[b].own_kernel_table);
}

/* A kept connection whose peer is @peer, in the courier or in @c's
 * descriptor table, taken out: its descriptor (in @c's table), or -1 */
static int conn_kept(struct rpl_ctx *c, uint64_t peer)
{
	struct rpl_plan *p = c->p;
	uint32_t i, me = (uint32_t)(c->pr - p->procs);
	int fd = -1;

	pthread_mutex_lock(&p->conn_lock);
	for (i = 0; i < p->n_conn_pool; i++) {
		struct rpl_conn_kept *k = &p->conn_pool[i];

		if (k->peer != peer || (k->fd >= 0 && !one_table(p, k->proc, me)))
			continue;
		fd = k->fd >= 0 ? k->fd : courier_take(p, peer, me);
		/* (courier_take() may have kept others in this table: @k
		 * is the same entry still) */
		p->conn_pool[i] = p->conn_pool[--p->n_conn_pool];
		break;
	}
	pthread_mutex_unlock(&p->conn_lock);
	return fd;
}

/* Connection @fd of peer @peer, accepted by process @proc, kept: in the
 * courier, else in @proc's table */
static void conn_keep(struct rpl_plan *p, uint64_t peer, int fd, uint32_t proc)
{
	int err = 0;

	pthread_mutex_lock(&p->conn_lock);
	RPL_GROW(p->conn_pool, p->n_conn_pool, p->cap_conn_pool);
	if (courier_send(p, peer, fd) == 0) {
		close(fd);
		fd = -1;
	}
	p->conn_pool[p->n_conn_pool++] = (struct rpl_conn_kept){ .peer = peer, .fd = fd,
								  .proc = proc };
out:
	pthread_mutex_unlock(&p->conn_lock);
	if (err && fd >= 0)
		close(fd);
}

/* Is there an accept that takes the connection of peer @peer, and can it
 * have it from @c (through the courier, or in @c's descriptor table)?
 * Else the connection is taken here, as the kernel gave it. */
static int kept_for_one(struct rpl_ctx *c, uint64_t peer)
{
	const struct rpl_plan *p = c->p;
	uint32_t i, me = (uint32_t)(c->pr - p->procs);

	for (i = 0; i < p->n_connq; i++)
		if (atomic_load(&p->connq[i].ino) == peer)
			return p->connq[i].aproc < p->n_procs &&
			       (p->conn_sock[0] >= 0 || one_table(p, p->connq[i].aproc, me));
	return 0;
}

/* The connection accept @op took when recorded, accepted on @fd (made
 * its connect first: plan_socks.c orders it so), or @r, the one the kernel
 * gave, where it cannot tell. */
static int64_t conn_own(struct rpl_ctx *c, struct rpl_op *op, int fd, int64_t r,
			struct pollfd *pfd, int64_t *deadline)
{
	/* its connect's key: its name's (its connect may not have begun:
	 * one that waited for room is not ordered before it, plan_socks.c
	 * queue_full()), or its socket's inode once it connected */
	uint64_t want, named = CONN_NAMED | op->link, peer;
	int diag = -1, k;

	while (r >= 0 || r == -EAGAIN) {
		want = atomic_load(&c->p->connq[op->link].ino);
		if (r >= 0) {
			peer = conn_peer(c->p, (int)r, &diag);
			if (!peer || peer == named || peer == want || !kept_for_one(c, peer))
				break;
			conn_keep(c->p, peer, (int)r, (uint32_t)(c->pr - c->p->procs));
		}
		if ((k = conn_kept(c, named)) >= 0 ||
		    (want && want != named && (k = conn_kept(c, want)) >= 0)) {
			r = k;
			break;
		}
		r = RPL_CALL(c, accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC));
		if (r == -EAGAIN && !rpl_wait_again(c, op, pfd, deadline)) {
			atomic_fetch_add(&c->p->conn_gaveup, 1);
			break;
		}
	}
	if (diag > 0)
		close(diag);
	return r;
}

/* accept, accept4: the connection its connect made, waited for; the new
 * descriptor under the recorded number */
static int64_t h_accept(struct rpl_ctx *c, struct rpl_op *op)
{
	int fd = rpl_sock_live(c, op->ev.args[0]);
	int flags = op->ev.nr == SYS_accept4 ? (int)op->ev.args[3] : 0;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct rpl_fd e = { .state = RPL_FD_LIVE, .cloexec = (flags & SOCK_CLOEXEC) != 0 };
	int64_t r, deadline = 0;
	int pool;

	if (fd < 0)
		return rpl_skip(op, RPL_SKIP_FD);
	/* none was waiting when recorded (a non-blocking accept): one
	 * waiting here is a later accept's, and is left to it, as a pipe's
	 * read that moved nothing is not made (ops_pipe.c) */
	if (op->ev.ret == -EAGAIN)
		return op->ev.ret;
	if (op->ev.ret >= RPL_FD_MAX)
		return rpl_skip(op, RPL_SKIP_BADARG);
	pool = (op->rflags & RPL_OPF_CONNQ) && op->link < c->p->n_connq;
	if (pool && ((r = conn_kept(c, CONN_NAMED | op->link)) >= 0 ||
		     (r = conn_kept(c, atomic_load(&c->p->connq[op->link].ino))) >= 0))
		goto own;
	do
		r = RPL_CALL(c, accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC));
	while (r == -EAGAIN && op->ev.ret >= 0 && rpl_wait_again(c, op, &pfd, &deadline));
	if (pool && op->ev.ret >= 0)
		r = conn_own(c, op, fd, r, &pfd, &deadline);
own:
	if (r < 0 || op->ev.ret < 0) {
		if (r >= 0)
			close((int)r);
		return r < 0 ? r : 0;
	}
	e.live = (int)r;
	rpl_fdtab_set(c->pr->tab, (long)op->ev.ret, &e);
	return op->ev.ret;
}

/* A shutdown of one way of a socket's end: its peer reads end of file
 * (lighttpd ends a response so, and clamd, closing only later: the
 * peer's read waited 2 s each time and met EAGAIN, 192 of a proxy's
 * calls) */
static int64_t h_shutdown(struct rpl_ctx *c, struct rpl_op *op)
{
	int fd = rpl_live_fd(c, op, op->ev.args[0]);

	if (fd < 0)
		return RPL_SKIPPED;
	return RPL_CALL(c, shutdown(fd, (int)op->ev.args[1]));
}

void rpl_ops_sock(rpl_handler *h)
{
	h[SYS_shutdown] = h_shutdown;
	h[SYS_socket] = h_socket;
	h[SYS_listen] = h_listen;
	h[SYS_accept] = h_accept;
	h[SYS_accept4] = h_accept;
}
