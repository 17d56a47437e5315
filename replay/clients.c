/*
 * clients.c - replay --clients N: N copies of one trace at once on one
 * filesystem, client i under ROOT/client-i, all starting together once
 * every client has made its starting tree, and one profile of all.
 *
 * Why N processes, not N replay engines in one: a replayed process is
 * already a set of threads, each of which unshares its descriptor table
 * (rpl_fdtab_fork()) because a table shared between threads costs every
 * call a reference on its open file; N engines in one address space
 * would share one mm as well (its mmap lock taken by every fault of N
 * workloads) and the replayer's process-wide state (the stop signal,
 * the fault watch, RLIMIT_NOFILE).  A process per client costs what one
 * replay costs, no more, gives each client its own failure (a client
 * killed does not take the others down), and is what one MPI rank is
 * (iotape-mpi): the same code runs under both.
 *
 * The barrier: each client writes one byte to its own pipe when its tree
 * is made, then waits for the end of a pipe all share; the parent closes
 * that pipe when every client is ready.  A client that dies or fails
 * before (its pipe ends with no byte) makes the parent set `abort` and
 * close it all the same: the others then stop without replaying.
 * Profiles go to memory files (memfd), so a client killed leaves nothing
 * on disk; the parent merges them (merge.c).
 *
 * The plan is made once, by the parent, before the clients fork: they
 * share its pages copy-on-write, so N clients cost one planning's time;
 * its memory is shared but for the pages each client writes, and those
 * are most of it (every op's replay times and results sit in its struct
 * rpl_op, beside what was recorded).  The parent frees its own copy once
 * the clients have theirs.  Whether N starting trees fit is checked there
 * too, once for all: a client checking on its own would count the trees
 * the others are making at that moment.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine.h"
#include "rpl.h"

struct client {
	pid_t pid;
	int ready_fd;		/* parent: read end of the client's pipe */
	int mem_fd;		/* its profile, or -1 */
	int ready, done;
	int err;		/* rpl_run()'s return (written by the client) */
	int status;		/* wait status */
	struct rpl_result res;	/* written by the client */
};

struct shared {
	_Atomic int abort;
	struct client c[];
};

int (*rpl_team_run)(const struct rpl_opts *o, struct rpl_result *res);

static struct shared *sh;
static int n_clients;
static pid_t parent_pid;
static volatile sig_atomic_t parent_stop;
static int we_stopped;		/* the clients were stopped for one that failed */

/* Parent only: a stop reaches every client (they may be in a group of
 * their own, or not: the signal then reaches them twice, which ends the
 * wait a first one began; rpl_run() takes the first). */
static void on_stop(int sig)
{
	int i;

	if (getpid() != parent_pid)
		return;
	parent_stop = sig;
	for (i = 0; i < n_clients; i++)
		if (sh->c[i].pid > 0 && !sh->c[i].done)
			kill(sh->c[i].pid, sig);
}

struct gate {
	int ready_w, go_r;
	const struct rpl_plan *plan;
};

/* The pages of the ops are still the parent's, shared copy-on-write, and
 * the replay writes every op (its times and result): copy them now, while
 * the others make their trees, not at the first call on each page, in
 * the time measured (a page fault and a 4 KiB copy every ~20 ops). */
static void own_ops(const struct rpl_plan *p)
{
	volatile char *c = (volatile char *)p->ops;
	size_t len = p->n_ops * sizeof(*p->ops), off, page = (size_t)sysconf(_SC_PAGESIZE);

	for (off = 0; off < len; off += page)
		c[off] = c[off];
	if (len)
		c[len - 1] = c[len - 1];
}

/* In the client, its tree made: say so, then wait for everybody's. */
static int client_start(void *arg)
{
	struct gate *g = arg;
	char b = 'R';
	ssize_t n;

	own_ops(g->plan);
	if (write(g->ready_w, &b, 1) != 1)
		return -EPIPE;
	close(g->ready_w);
	do
		n = read(g->go_r, &b, 1);
	while (n < 0 && errno == EINTR && !atomic_load(&rpl_stop_sig));
	close(g->go_r);
	if (atomic_load(&sh->abort) || atomic_load(&rpl_stop_sig))
		return -ECANCELED;
	return 0;
}

static void run_client(const struct rpl_opts *o, int i, int ready_w, int go_r)
{
	struct client *c = &sh->c[i];
	struct rpl_opts co = *o;
	struct gate g = { ready_w, go_r, o->plan };
	char root[4096], out[64], who[64];

	snprintf(root, sizeof(root), "%s/client-%d", o->root, i);
	snprintf(who, sizeof(who), "%s: client %d", o->cmd, i);
	co.root = root;
	co.cmd = who;
	co.clients = 0;
	co.progress = 0;
	co.quiet = o->quiet || i > 0;	/* warnings about the trace once */
	co.start = o->prepare_only ? NULL : client_start;
	co.start_arg = &g;
	if (c->mem_fd >= 0) {
		snprintf(out, sizeof(out), "/proc/self/fd/%d", c->mem_fd);
		co.out = out;
	} else {
		co.out = NULL;
	}
	c->err = rpl_run(&co, &c->res);
	fflush(NULL);
	_exit(0);
}

/* Stop every client still running, for one that failed. */
static void stop_others(int sig)
{
	int i;

	we_stopped = 1;
	for (i = 0; i < n_clients; i++)
		if (sh->c[i].pid > 0 && !sh->c[i].done)
			kill(sh->c[i].pid, sig);
}

static void reap(int i, int status, int *killed, const char *cmd)
{
	struct client *c = &sh->c[i];

	c->done = 1;
	c->status = status;
	if (WIFSIGNALED(status) && !*killed && !parent_stop) {
		*killed = 1;
		iot_err(cmd, "client %d (pid %d) was killed by SIG%s%s; stopping the other clients",
			i, (int)c->pid, sigabbrev_np(WTERMSIG(status)),
			c->ready ? "" : " before it started");
		atomic_store(&sh->abort, 1);
		stop_others(SIGTERM);
	}
}

/* Until every client is ready (release them) or one fails first (abort
 * them all). @return : 1 released, 0 aborted. */
static int barrier(int go_w, int *killed, const char *cmd)
{
	struct pollfd *pf = calloc((size_t)n_clients, sizeof(*pf));
	int i, ready = 0, failed = 0, status;

	if (!pf) {
		failed = 1;
		goto out;
	}
	while (ready < n_clients && !failed && !parent_stop) {
		for (i = 0; i < n_clients; i++) {
			pf[i].fd = sh->c[i].ready || sh->c[i].ready_fd < 0 ? -1 : sh->c[i].ready_fd;
			pf[i].events = POLLIN;
		}
		if (poll(pf, (nfds_t)n_clients, 200) < 0 && errno != EINTR)
			break;
		for (i = 0; i < n_clients; i++) {
			char b;

			if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (read(sh->c[i].ready_fd, &b, 1) == 1) {
				sh->c[i].ready = 1;
				ready++;
				continue;
			}
			/* its pipe ended without a byte: it stopped before the start */
			close(sh->c[i].ready_fd);
			sh->c[i].ready_fd = -1;
			if (waitpid(sh->c[i].pid, &status, 0) == sh->c[i].pid)
				reap(i, status, killed, cmd);
			failed = 1;
		}
	}
out:
	free(pf);
	if (failed || parent_stop || ready < n_clients)
		atomic_store(&sh->abort, 1);
	close(go_w);		/* everybody goes, or sees abort */
	return !atomic_load(&sh->abort);
}

static int make_dirs(const struct rpl_opts *o, int fd, int n)
{
	int i, err = 0;
	char name[32];

	for (i = 0; i < n && !err; i++) {
		snprintf(name, sizeof(name), "client-%d", i);
		if (mkdirat(fd, name, 0755) == 0 || (errno == EEXIST && (o->force || o->no_prepare)))
			continue;
		err = -errno;
		iot_err(o->cmd, "%s/%s: cannot create the client's root: %s", o->root, name,
			iot_strerror(err));
	}
	return err;
}

/* What every client shares: the plan, and whether N trees fit.  The
 * root is checked first, as for one replay; no client directory is made
 * for a trace that does not plan or trees that do not fit. */
static int plan_all(struct rpl_opts *co, struct rpl_result *total)
{
	int n = co->clients, fd = rpl_root_open_msg(co), err;

	if (fd < 0)
		return fd;
	err = rpl_plan_new(co, &co->plan, total);
	if (err == 0 && !co->no_prepare) {
		err = rpl_plan_fit(co->plan, co, n, total);
		co->fit = err > 0 ? err : RPL_FIT_CHECK;
		if (err > 0)	/* the clients' own sums follow */
			total->tree_bytes = total->tree_copies = 0;
	}
	if (err >= 0)
		err = make_dirs(co, fd, n);
	(void)rpl_wbuf();	/* the data writes write: made once, shared too */
	/* what planning used and freed goes back before the clients fork:
	 * they would otherwise each keep it mapped */
	malloc_trim(0);
	close(fd);
	return err < 0 ? err : 0;
}

static int merge(const struct rpl_opts *o, struct rpl_result *total)
{
	struct iot_reader **r = calloc((size_t)n_clients, sizeof(*r));
	char path[64];
	int i, err;

	if (!r)
		return -ENOMEM;
	for (i = 0; i < n_clients; i++) {
		struct stat st;

		if (sh->c[i].mem_fd < 0 || fstat(sh->c[i].mem_fd, &st) < 0 || st.st_size == 0)
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", sh->c[i].mem_fd);
		if (iot_reader_open(&r[i], path) < 0)
			r[i] = NULL;
	}
	err = rpl_profiles_merge(o->out, r, n_clients, total, o->cmd);
	for (i = 0; i < n_clients; i++)
		if (r[i])
			iot_reader_close(r[i]);
	free(r);
	return err;
}

int rpl_run_clients(const struct rpl_opts *given, struct rpl_result *total)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa, old[3];
	struct rpl_opts opts = *given, *o = &opts;	/* with the plan */
	int n = o->clients, i, go[2] = { -1, -1 }, err = 0, killed = 0, status, released = 0;
	size_t size = sizeof(struct shared) + (size_t)n * sizeof(struct client);
	int64_t plan_ns = iot_now_ns();

	memset(total, 0, sizeof(*total));
	if (n < 1 || n > RPL_MAX_CLIENTS)
		return -EINVAL;
	err = plan_all(o, total);
	plan_ns = iot_now_ns() - plan_ns;
	if (err < 0) {
		rpl_plan_delete(o->plan);
		return err;
	}
	sh = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		sh = NULL;
		rpl_plan_delete(o->plan);
		return -errno;
	}
	n_clients = n;
	we_stopped = 0;
	parent_pid = getpid();
	parent_stop = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	signal(SIGPIPE, SIG_IGN);
	if (pipe2(go, O_CLOEXEC) < 0) {
		err = -errno;
		goto out;
	}
	for (i = 0; i < n; i++)
		sh->c[i].ready_fd = sh->c[i].mem_fd = -1;
	fflush(NULL);
	for (i = 0; i < n && !parent_stop; i++) {
		struct client *c = &sh->c[i];
		int rd[2];
		pid_t pid;

		c->mem_fd = o->out ? memfd_create("iotape-client", MFD_CLOEXEC) : -1;
		if ((o->out && c->mem_fd < 0) || pipe2(rd, O_CLOEXEC) < 0) {
			err = -errno;
			break;
		}
		/* the pid goes to the shared page in the parent only: the
		 * child writing its 0 there would race with it */
		pid = fork();
		if (pid == 0) {
			int j;

			close(rd[0]);
			close(go[1]);
			for (j = 0; j < i; j++) {
				if (sh->c[j].ready_fd >= 0)
					close(sh->c[j].ready_fd);
				if (sh->c[j].mem_fd >= 0)
					close(sh->c[j].mem_fd);
			}
			for (j = 0; j < 3; j++)
				sigaction(sigs[j], &old[j], NULL);
			run_client(o, i, rd[1], go[0]);
		}
		close(rd[1]);
		c->pid = pid;
		if (pid < 0) {
			err = -errno;
			close(rd[0]);
			break;
		}
		c->ready_fd = rd[0];
	}
	close(go[0]);
	/* the clients have their copies: the parent's would keep the first
	 * version of every page they write (the ops) beside theirs */
	rpl_plan_delete(o->plan);
	o->plan = NULL;
	if (err < 0) {
		iot_err(o->cmd, "cannot start client %d of %d: %s", i, n, iot_strerror(err));
		atomic_store(&sh->abort, 1);
		close(go[1]);
		stop_others(SIGTERM);
	} else if (o->prepare_only) {
		close(go[1]);
		released = 1;
	} else {
		released = barrier(go[1], &killed, o->cmd);
		if (!released && !parent_stop && !killed)
			stop_others(SIGTERM);
	}
	for (i = 0; i < n; i++)
		if (sh->c[i].ready_fd >= 0)
			close(sh->c[i].ready_fd);
	/* whichever ends first: a client killed must stop the others now,
	 * not when the clients before it have finished */
	for (;;) {
		int left = 0;
		pid_t pid;

		for (i = 0; i < n; i++)
			left += sh->c[i].pid > 0 && !sh->c[i].done;
		if (!left)
			break;
		pid = waitpid(-1, &status, 0);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;
		for (i = 0; i < n; i++)
			if (sh->c[i].pid == pid && !sh->c[i].done)
				reap(i, status, &killed, o->cmd);
	}
	for (i = 0; i < n; i++) {
		struct client *c = &sh->c[i];

		if (c->pid <= 0)
			continue;
		/* a client stopped for another one did not fail, and was
		 * not interrupted by the user */
		if (we_stopped && !parent_stop && (c->err == -EINTR || c->err == -ECANCELED ||
						   c->res.interrupted == SIGTERM)) {
			c->res.interrupted = 0;
			if (c->err == -EINTR)
				c->err = -ECANCELED;
		}
		rpl_result_add(total, &c->res, i);
		if (c->err < 0 && c->err != -ECANCELED && !err)
			err = c->err;
		if (c->err < 0 && c->err != -ECANCELED && c->err != -EINTR &&
		    !c->res.tree_too_big && WIFEXITED(c->status))
			iot_err(o->cmd, "client %d failed: %s (see its messages above)", i,
				iot_strerror(c->err));
	}
	if (!total->interrupted && parent_stop)
		total->interrupted = parent_stop;
	if (killed)
		err = -ECHILD;
	if (!released && !err && !total->interrupted)
		err = -ECANCELED;
	/* the clients' clocks started after the plan was made */
	if (total->first_call_ns)
		total->first_call_ns += plan_ns;
	if (o->out && !o->prepare_only && released)
		err = merge(o, total) < 0 && !err ? -EIO : err;
out:
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	for (i = 0; i < n; i++)
		if (sh->c[i].mem_fd >= 0)
			close(sh->c[i].mem_fd);
	munmap(sh, size);
	sh = NULL;
	n_clients = 0;
	rpl_plan_delete(o->plan);	/* if not yet */
	return err;
}
