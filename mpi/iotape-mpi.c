/*
 * iotape-mpi.c - iotape replay with each MPI rank one client:
 *
 *   mpirun -np N -H a,b,c iotape-mpi replay TRACE --root /shared/dir -o P
 *
 * Rank r replays TRACE under ROOT/client-r (the command line of `iotape
 * replay`, parsed by the same code), the ranks make their starting trees
 * at once, start on a barrier, replay with times relative to that start,
 * and rank 0 gathers their profiles into one (merge.c: client r's pids
 * moved by r x 4194304, its times laid on rank 0's start, since hosts'
 * clocks differ).
 *
 * Why a program of its own, not `iotape replay --mpi`: the iotape binary
 * then needs no MPI library where none is installed, and MPI_Init() runs
 * only where mpirun started the program.  It is iotape's own replay with
 * one hook (rpl_team_run): the barrier and the gathering are here.
 *
 * Whether the ranks' N starting trees fit the shared filesystem is
 * checked once, by rank 0, before any rank makes its tree (a rank
 * checking on its own would count the trees the others are making).
 *
 * Failures: a rank whose replay fails before the start (an unusable
 * root, a trace it cannot read) says so as "replay: client r: ..."; the
 * barrier is an MPI_Allreduce of "ready", so every rank learns it and
 * none replays.  A rank killed is mpirun's to see: it names the rank and
 * ends the others (SIGTERM: each stops as a replay stops on Ctrl-C).
 * Profiles stay in memory (memfd), so a rank killed leaves no file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "replay.h"

static int rank, size;
static int barrier_done;
static int too_big;		/* the ranks' trees do not fit: every rank exits 5 */

/* Wait for @req without spinning: Open MPI's blocking calls poll a CPU
 * at full speed, which a rank waiting for the others (at the start, for
 * the gathering) would take from the ranks still replaying on its host.
 * 100 us naps: the start of the ranks differs by no more. */
static int wait_req(MPI_Request *req)
{
	const struct timespec nap = { 0, 100000 };
	int done = 0;

	while (!done) {
		if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return -EIO;
		if (!done)
			nanosleep(&nap, NULL);
	}
	return 0;
}

static int allreduce(int v, MPI_Op op)
{
	MPI_Request req;
	int out = 0;

	if (MPI_Iallreduce(&v, &out, 1, MPI_INT, op, MPI_COMM_WORLD, &req) != MPI_SUCCESS ||
	    wait_req(&req) < 0)
		return -1;
	return out;
}

/* Every rank ready (its tree made)?  The allreduce is the barrier; a
 * rank that failed before joins it from mpi_run() with ready = 0. */
static int barrier(int ready)
{
	int all;

	barrier_done = 1;
	all = allreduce(ready, MPI_MIN);
	if (all < 0)
		return -EIO;
	return all ? 0 : -ECANCELED;
}

static int start_hook(void *arg)
{
	(void)arg;
	return barrier(1);
}

/* Rank 0 checks the root (empty unless --force) before any rank makes
 * its client directory in it. */
static int root_check(const struct rpl_opts *o)
{
	int ok = 1, fd;

	if (rank == 0) {
		struct rpl_opts ro = *o;

		fd = rpl_root_open_msg(&ro);
		ok = fd >= 0;
		if (fd >= 0)
			close(fd);
	}
	MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return ok ? 0 : -EINVAL;
}

/* Plan the trace (every rank: the hosts may differ), then rank 0 checks
 * that the ranks' trees fit the shared root, once for all, and tells the
 * others: RPL_FIT_*, or -ECANCELED (the others stop without a word). */
static int plan_rank(struct rpl_opts *co, const struct rpl_opts *o, struct rpl_result *res)
{
	int err, fit = RPL_FIT_CHECK;

	err = rpl_plan_new(co, &co->plan, res);
	if (rank == 0 && !o->no_prepare)
		fit = err < 0 ? -ECANCELED : rpl_plan_fit(co->plan, o, size, res);
	MPI_Bcast(&fit, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (err < 0)
		return err;
	too_big = fit == -ENOSPC;
	if (too_big && rank == 0)
		return -ENOSPC;	/* res->tree_too_big: the command says it */
	if (fit < 0)
		return -ECANCELED;
	co->fit = fit;
	return 0;
}

static int read_all(int fd, char **buf, uint64_t *len)
{
	struct stat st;
	ssize_t n;
	uint64_t off = 0;

	*buf = NULL;
	*len = 0;
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size == 0)
		return 0;
	*buf = malloc((size_t)st.st_size);
	if (!*buf)
		return -ENOMEM;
	while (off < (uint64_t)st.st_size) {
		n = pread(fd, *buf + off, (size_t)st.st_size - off, (off_t)off);
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += (uint64_t)n;
	}
	*len = off;
	return 0;
}

#define CHUNK (1 << 30)

/* Rank 0 receives every rank's result and profile bytes; the others
 * send theirs. */
static int gather(struct rpl_result *mine, int my_err, char *buf, uint64_t len,
		  struct rpl_result *all, int *errs, char **bufs, uint64_t *lens)
{
	int r;

	if (rank != 0) {
		MPI_Send(mine, (int)sizeof(*mine), MPI_BYTE, 0, 1, MPI_COMM_WORLD);
		MPI_Send(&my_err, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
		MPI_Send(&len, 1, MPI_UINT64_T, 0, 3, MPI_COMM_WORLD);
		for (uint64_t off = 0; off < len; off += CHUNK)
			MPI_Send(buf + off, (int)(len - off < CHUNK ? len - off : CHUNK), MPI_BYTE, 0,
				 4, MPI_COMM_WORLD);
		return 0;
	}
	all[0] = *mine;
	errs[0] = my_err;
	bufs[0] = buf;
	lens[0] = len;
	for (r = 1; r < size; r++) {
		MPI_Recv(&all[r], (int)sizeof(all[r]), MPI_BYTE, r, 1, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		MPI_Recv(&errs[r], 1, MPI_INT, r, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(&lens[r], 1, MPI_UINT64_T, r, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		bufs[r] = lens[r] ? malloc(lens[r]) : NULL;
		if (lens[r] && !bufs[r])
			return -ENOMEM;
		for (uint64_t off = 0; off < lens[r]; off += CHUNK)
			MPI_Recv(bufs[r] + off, (int)(lens[r] - off < CHUNK ? lens[r] - off : CHUNK),
				 MPI_BYTE, r, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	return 0;
}

/* Rank 0: the sums, the messages naming failed ranks, one profile. */
static int finish(const struct rpl_opts *o, struct rpl_result *total, struct rpl_result *all,
		  int *errs, char **bufs, uint64_t *lens, int started)
{
	struct iot_reader **rd = calloc((size_t)size, sizeof(*rd));
	int r, err = 0;

	if (!rd)
		return -ENOMEM;
	memset(total, 0, sizeof(*total));
	for (r = 0; r < size; r++) {
		rpl_result_add(total, &all[r], r);
		if (errs[r] < 0 && errs[r] != -ECANCELED) {
			if (!err)
				err = errs[r];
			if (!all[r].tree_too_big)	/* the command says that one */
				iot_err(o->cmd, "client %d (rank %d) failed: %s (see its messages "
					"above)", r, r, iot_strerror(errs[r]));
		}
		if (bufs[r] && iot_reader_open_mem(&rd[r], bufs[r], lens[r]) < 0)
			rd[r] = NULL;
	}
	if (!err && !started)
		err = -ECANCELED;
	if (o->out && started && rpl_profiles_merge(o->out, rd, size, total, o->cmd) < 0 && !err)
		err = -EIO;
	if (!o->quiet && started)
		iot_msg(IOT_MSG_INFO, o->cmd, "%d clients (MPI ranks), client r under %s/client-r",
			size, o->root);
	for (r = 0; r < size; r++)
		if (rd[r])
			iot_reader_close(rd[r]);
	free(rd);
	return err;
}

static int mpi_run(const struct rpl_opts *o, struct rpl_result *res)
{
	struct rpl_opts co = *o;
	struct rpl_result *all = NULL;
	char root[PATH_MAX], who[64], out[64], **bufs = NULL, *buf = NULL;
	uint64_t *lens = NULL, len = 0;
	int *errs = NULL, err, mem = -1, started;
	int64_t plan_ns = iot_now_ns();

	memset(res, 0, sizeof(*res));
	if (root_check(o) < 0)
		return -EINVAL;
	snprintf(root, sizeof(root), "%s/client-%d", o->root, rank);
	snprintf(who, sizeof(who), "%s: client %d", o->cmd, rank);
	co.root = root;
	co.cmd = who;
	co.start = o->prepare_only ? NULL : start_hook;
	co.out = NULL;
	err = plan_rank(&co, o, res);
	plan_ns = iot_now_ns() - plan_ns;
	if (err < 0)
		goto run_done;
	if (mkdir(root, 0755) < 0 && !(errno == EEXIST && (o->force || o->no_prepare))) {
		err = -errno;
		iot_err(o->cmd, "%s: cannot create client %d's root: %s", root, rank,
			iot_strerror(err));
		goto run_done;
	}
	if (o->out) {
		mem = memfd_create("iotape-rank", MFD_CLOEXEC);
		if (mem < 0) {
			err = -errno;
			goto run_done;
		}
		snprintf(out, sizeof(out), "/proc/self/fd/%d", mem);
		co.out = out;
	}
	err = rpl_run(&co, res);
	if (res->first_call_ns)
		res->first_call_ns += plan_ns;	/* its clock started after planning */
run_done:
	rpl_plan_delete(co.plan);
	/* a rank that stopped before the barrier still meets the others there */
	if (!barrier_done && !o->prepare_only)
		barrier(0);
	started = !o->prepare_only;
	if (started) {
		/* also where every rank waits for the last to finish */
		started = allreduce(res->elapsed_ns > 0 || err == 0, MPI_MAX) > 0;
	}
	if (read_all(mem, &buf, &len) < 0)
		len = 0;
	if (rank == 0) {
		all = calloc((size_t)size, sizeof(*all));
		errs = calloc((size_t)size, sizeof(*errs));
		bufs = calloc((size_t)size, sizeof(*bufs));
		lens = calloc((size_t)size, sizeof(*lens));
		if (!all || !errs || !bufs || !lens) {
			MPI_Abort(MPI_COMM_WORLD, 1);
			return -ENOMEM;
		}
	}
	if (gather(res, err, buf, len, all, errs, bufs, lens) < 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (rank == 0) {
		err = finish(o, res, all, errs, bufs, lens, started);
		for (int r = 1; r < size; r++)
			free(bufs[r]);
	}
	free(buf);
	free(all);
	free(errs);
	free(bufs);
	free(lens);
	if (mem >= 0)
		close(mem);
	return err;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: mpirun -np N [-H HOSTS] iotape-mpi replay TRACE --root DIR [-o PROFILE]\n"
		"                  [replay options]\n\n"
		"Each MPI rank r replays TRACE as one client under DIR/client-r (a directory\n"
		"on a filesystem every host mounts); the ranks make their trees at once,\n"
		"start together, and rank 0 writes one profile of all ('iotape report\n"
		"--by client' splits it).  The options are those of 'iotape replay'\n"
		"(iotape replay --help), but --clients: the ranks are the clients.\n\n"
		"Examples:\n"
		"  mpirun -np 8 -H a,b,c,d iotape-mpi replay build.iotape --root /mnt/nfs/t \\\n"
		"      -o build.nfs.8.iotape\n"
		"  mpirun -np 2 --oversubscribe iotape-mpi replay t.iotape --root /tmp/r -o p.iotape\n\n"
		"Exit status: as iotape replay's, per rank; rank 0's is the run's.\n");
}

int main(int argc, char **argv)
{
	char **av;
	int rc, i, ac = 0;

	iot_msg_set_sink(cli_msg);
	if (argc < 2 || cli_is_help(argv[1]) || strcmp(argv[1], "replay") != 0) {
		usage(argc < 2 || !cli_is_help(argv[1]) ? stderr : stdout);
		return argc >= 2 && cli_is_help(argv[1]) ? IOT_EXIT_OK : IOT_EXIT_USAGE;
	}
	for (i = 2; i < argc; i++)
		if (cli_is_help(argv[i]))
			return cmd_replay(argc - 1, argv + 1);
	if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
		cli_err("replay", "MPI_Init failed; start iotape-mpi with mpirun");
		return IOT_EXIT_FAIL;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	/* the summary once, from rank 0 (errors are said by every rank) */
	av = calloc((size_t)argc + 2, sizeof(*av));
	if (!av)
		return IOT_EXIT_FAIL;
	for (i = 1; i < argc; i++)
		av[ac++] = argv[i];
	if (rank > 0)
		av[ac++] = (char *)"--quiet";
	rpl_team_run = mpi_run;
	rc = cmd_replay(ac, av);
	if (too_big)	/* said once, by rank 0 */
		rc = IOT_EXIT_TARGET;
	free(av);
	MPI_Finalize();
	return rc;
}
