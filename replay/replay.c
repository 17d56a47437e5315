/*
 * replay.c - the whole replay of one trace on one root, rpl_run(): load
 * and plan (plan.c), prepare the tree (prepare.c), execute (exec.c),
 * write the profile (profile.c); and the end-of-run summary.  Used by
 * `iotape replay` and `iotape bench`.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine.h"
#include "rpl.h"

static const char *const skip_names[RPL_SKIP_COUNT] = {
	[RPL_SKIP_NONE] = "none",
	[RPL_SKIP_PSEUDO] = "/proc,/sys,/dev",
	[RPL_SKIP_EXCLUDED] = "excluded",
	[RPL_SKIP_FD] = "descriptor not replayed",
	[RPL_SKIP_UNFINISHED] = "unfinished",
	[RPL_SKIP_MMAP] = "mmap",
	[RPL_SKIP_UNSUPPORTED] = "unsupported",
	[RPL_SKIP_NOPATH] = "no path",
	[RPL_SKIP_BADARG] = "bad argument",
	[RPL_SKIP_CLONED] = "cloned instead",
	[RPL_SKIP_INTERRUPTED] = "interrupted",
	[RPL_SKIP_XDEV] = "copy, rename or link across filesystems when recorded",
	[RPL_SKIP_OTHERFD] = "another process's descriptor",
	[RPL_SKIP_SIGNAL] = "interrupted by a signal when recorded (their time waited)",
	[RPL_SKIP_DIRFD] = "failed under a directory descriptor the recording did not know",
	[RPL_SKIP_REFUSED] = "refused when recorded by a lease, a cached lookup, a file size or descriptor limit",
	[RPL_SKIP_MOUNT] = "mounts",
};

const char *rpl_skip_name(int why)
{
	return why >= 0 && why < RPL_SKIP_COUNT ? skip_names[why] : "?";
}

int rpl_root_open_msg(const struct rpl_opts *o)
{
	int fd = rpl_root_open(o->root, !o->force && !o->no_prepare);

	if (fd >= 0)
		return fd;
	if (fd == -EPERM)
		iot_err(o->cmd, "%s: refusing to replay into the system root; give an empty "
			"directory or a mounted test filesystem", o->root);
	else if (fd == -ENOENT)
		iot_err(o->cmd, "%s: no such directory; create it first (mkdir -p %s)",
			o->root, o->root);
	else if (fd == -ENOTEMPTY)
		iot_err(o->cmd, "%s: not empty; replay into an empty directory, or use --force "
			"to replay over what is there", o->root);
	else
		iot_err(o->cmd, "%s: cannot use as the replay root: %s", o->root,
			iot_strerror(fd));
	return fd;
}

/* An --include or --exclude prefix no recorded path lies under is
 * most likely mistyped: say so (the replay then does all or nothing). */
static void unused_prefixes(const struct rpl_plan *p)
{
	const struct rpl_opts *o = p->o;
	size_t i, k, n = o->n_include + o->n_exclude;

	for (k = 0; k < n; k++) {
		const char *pre = k < o->n_include ? o->include[k] : o->exclude[k - o->n_include];

		for (i = 0; i < p->n_ops; i++)
			if ((p->ops[i].ev.path && rpl_prefix_match(p->ops[i].ev.path, pre)) ||
			    (p->ops[i].ev.path2 && rpl_prefix_match(p->ops[i].ev.path2, pre)))
				break;
		if (i == p->n_ops)
			iot_warn(o->cmd, "%s: no recorded call names a path under --%s %s "
				 "('iotape dump' shows the paths)", o->trace,
				 k < o->n_include ? "include" : "exclude", pre);
	}
}

/* Printed under --quiet too: it is why the exit status is 3. */
static void damage_msg(const struct rpl_plan *p)
{
	iot_warn(p->o->cmd, "%s: %s; replaying the complete part", p->o->trace, p->why);
}

/* The first SIGINT, SIGTERM or SIGHUP asks the replay to stop; a second
 * one ends it at once. */
static void on_stop(int sig)
{
	int none = 0;

	atomic_compare_exchange_strong(&rpl_stop_sig, &none, sig);
	signal(sig, SIG_DFL);
}

static void on_poke(int sig)
{
	(void)sig;
}

static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };

static void catch_stops(struct sigaction *old)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;	/* no SA_RESTART: a stop ends waits */
	for (i = 0; i < 3; i++) {
		sigaction(stop_sigs[i], NULL, &old[i]);
		/* ignored stays ignored (nohup, a shell's background job) */
		if (old[i].sa_handler != SIG_IGN)
			sigaction(stop_sigs[i], &sa, NULL);
	}
	sa.sa_handler = on_poke;
	sigaction(RPL_POKE_SIG, &sa, &old[3]);
}

static void uncatch_stops(const struct sigaction *old)
{
	size_t i;

	for (i = 0; i < 3; i++)
		sigaction(stop_sigs[i], &old[i], NULL);
	sigaction(RPL_POKE_SIG, &old[3], NULL);
}

/* How long after @t_start the first replayed call started: what reading,
 * planning and preparing cost before anything ran. */
static int64_t first_call(const struct rpl_plan *p, int64_t t_start)
{
	int64_t first = INT64_MAX;
	size_t i;

	for (i = 0; i < p->n_threads; i++)
		if (p->threads[i].first_ns > 0 && p->threads[i].first_ns < first)
			first = p->threads[i].first_ns;
	return first == INT64_MAX ? 0 : first - t_start;
}

/* /dev/shm is a tmpfs, but the replay leaves it out with the rest of /dev
 * (programs keep shared memory and semaphores there too): a workload that
 * worked there replays little of what it did.  Said where the program
 * started there, or where it is a tenth of the calls or more, which
 * shared memory alone seldom is. */
static void shm_paths(const struct rpl_plan *p)
{
	const char *cwd = p->hdr ? p->hdr->cwd : NULL;
	size_t i, n = 0;

	for (i = 0; i < p->n_ops; i++)
		if ((p->ops[i].ev.path && rpl_prefix_match(p->ops[i].ev.path, "/dev/shm")) ||
		    (p->ops[i].ev.path2 && rpl_prefix_match(p->ops[i].ev.path2, "/dev/shm")))
			n++;
	if (n && ((cwd && rpl_prefix_match(cwd, "/dev/shm")) || n >= p->n_ops / 10))
		iot_warn(p->o->cmd, "%s: %zu of the %zu recorded calls name paths under /dev/shm, "
			 "which the replay leaves out with the rest of /dev: record the workload in "
			 "a directory elsewhere (a tmpfs mounted under /mnt, say) to replay them",
			 p->o->trace, n, p->n_ops);
}

/* Plan @o->trace into @p and say what the plan found. */
static int plan(struct rpl_plan *p, const struct rpl_opts *o, struct rpl_result *res)
{
	int err = rpl_plan_build(p, o);

	res->open_err = p->open_err;
	if (err < 0)
		return err;
	if (p->damaged)
		damage_msg(p);
	if (!o->quiet) {
		unused_prefixes(p);
		shm_paths(p);
	}
	if (p->capped && !o->quiet && o->timing != RPL_TIMING_AFAP)
		iot_warn(o->cmd, "%s: %llu think times longer than %lld s were cut to %lld s",
			 o->trace, (unsigned long long)p->capped, RPL_THINK_MAX / 1000000000LL,
			 RPL_THINK_MAX / 1000000000LL);
	return 0;
}

int rpl_plan_new(const struct rpl_opts *o, struct rpl_plan **pp, struct rpl_result *res)
{
	struct rpl_plan *p = malloc(sizeof(*p));
	int err;

	*pp = NULL;
	if (!p)
		return -ENOMEM;
	err = plan(p, o, res);
	if (err < 0) {
		rpl_plan_free(p);
		free(p);
		return err;
	}
	*pp = p;
	return 0;
}

void rpl_plan_delete(struct rpl_plan *p)
{
	if (!p)
		return;
	rpl_plan_free(p);
	free(p);
}

static int run(const struct rpl_opts *o, struct rpl_result *res)
{
	struct rpl_plan own, *p = o->plan ? o->plan : &own;
	const char *plan_env = getenv("IOTAPE_REPLAY_PLAN");
	int64_t t_start = iot_now_ns();
	int err = 0, root_fd;

	/* a recorded write to a pipe whose reader has gone (tar tf | head)
	 * must give EPIPE, as it did in the workload, not kill the replay */
	signal(SIGPIPE, SIG_IGN);
	root_fd = rpl_root_open_msg(o);
	if (root_fd < 0)
		return root_fd;
	if (o->plan)
		p->o = o;	/* this run's root, name, profile */
	else
		err = plan(p, o, res);
	p->root_fd = root_fd;
	if (err < 0)
		goto out;
	res->events_in_trace = p->events_in_trace;
	res->dropped_in_trace = p->dropped_in_trace;
	/* IOTAPE_REPLAY_PLAN=only: the plan alone, to measure it (plan.c) */
	if (plan_env && strcmp(plan_env, "only") == 0 && !o->plan) {
		res->plan_only = 1;
		res->damaged = p->damaged;
		goto out;
	}
	if (!o->no_prepare) {
		err = rpl_prepare(p, res);
		if (err < 0)
			goto out;
	}
	if (o->prepare_only) {
		res->damaged = p->damaged;
		goto out;
	}
	if (o->start && (err = o->start(o->start_arg)) < 0)
		goto out;
	rpl_mem_note("prepare");
	err = rpl_execute(p, res);
	rpl_mem_note("run");
	if (err < 0)
		goto out;
	res->first_call_ns = first_call(p, t_start);
	if ((err = rpl_tally(p, res)) < 0)
		goto out;
	rpl_fault_result(p, res);
	if (o->out)
		err = rpl_profile_write(p, res);
	rpl_mem_note("profile");
out:
	rpl_plan_free(p);	/* a plan given is used up too (rpl_plan_new()) */
	close(root_fd);
	return err;
}

int rpl_run(const struct rpl_opts *o, struct rpl_result *res)
{
	struct sigaction old[4];
	int err;

	memset(res, 0, sizeof(*res));
	atomic_store(&rpl_stop_sig, 0);
	catch_stops(old);
	err = run(o, res);
	uncatch_stops(old);
	/* a target fault stops the replay the same way: not a signal */
	res->interrupted = atomic_load(&rpl_stop_sig) > 0 ? atomic_load(&rpl_stop_sig) : 0;
	return err;
}

static void print_skips(FILE *f, const struct rpl_result *r)
{
	const char *sep = " (";
	int i;

	for (i = 1; i < RPL_SKIP_COUNT; i++) {
		if (!r->skipped_by[i])
			continue;
		fprintf(f, "%s%s %llu", sep, rpl_skip_name(i), (unsigned long long)r->skipped_by[i]);
		sep = ", ";
	}
	if (r->skipped)
		fprintf(f, ")");
	fprintf(f, "\n");
	if (!r->skipped_by[RPL_SKIP_UNSUPPORTED])
		return;
	/* which: an ioctl whose arguments the trace does not hold, a call
	 * no handler makes; their time is not in the replay's */
	sep = ": ";
	fprintf(f, "  unsupported  %llu calls the replay does not make, so neither their "
		"effect nor their time is in it", (unsigned long long)r->skipped_by[RPL_SKIP_UNSUPPORTED]);
	for (i = 0; i < RPL_MAX_NR; i++) {
		const struct iot_syscall *sc = iot_syscall_by_nr(i);

		if (!r->sc[i].unsupported)
			continue;
		fprintf(f, "%s%s %llu", sep, sc ? sc->name : "?", (unsigned long long)r->sc[i].unsupported);
		sep = ", ";
	}
	fprintf(f, "\n");
}

/* "read 3, openat 1" for the syscalls with a nonzero @field. */
static void print_by_sc(FILE *f, const struct rpl_result *r, int probes)
{
	const char *sep = " (";
	int nr, any = 0;

	for (nr = 0; nr < RPL_MAX_NR; nr++) {
		uint64_t n = probes ? r->sc[nr].probe_diffs : r->sc[nr].mismatches;
		const struct iot_syscall *sc;

		if (!n)
			continue;
		sc = iot_syscall_by_nr(nr);
		fprintf(f, "%s%s %llu of %llu", sep, sc ? sc->name : "?", (unsigned long long)n,
		       (unsigned long long)r->sc[nr].replayed);
		sep = ", ";
		any = 1;
	}
	if (!probes && r->aio_mismatches) {
		fprintf(f, "%sasync requests %llu of %llu", sep,
			(unsigned long long)r->aio_mismatches, (unsigned long long)r->aio_completions);
		any = 1;
	}
	fprintf(f, any ? ")\n" : "\n");
}

/* Async requests: replayed, and every kind not replayed, by opcode. */
static void print_aio(FILE *f, const struct rpl_result *r)
{
	char a[32], b[32];
	unsigned op;
	int api;

	if (!r->aio_requests && !r->aio_rec_completions)
		return;
	fprintf(f, "  async I/O    %llu of %llu requests replayed (%s read, %s written), "
	       "%llu completions reaped (%llu recorded), %llu results differ\n",
	       (unsigned long long)r->aio_replayed, (unsigned long long)r->aio_requests,
	       iot_fmt_bytes(a, sizeof(a), (double)r->aio_rbytes),
	       iot_fmt_bytes(b, sizeof(b), (double)r->aio_wbytes),
	       (unsigned long long)r->aio_completions,
	       (unsigned long long)r->aio_rec_completions,
	       (unsigned long long)r->aio_mismatches);
	if (r->aio_rec_span_ns > 0 && r->aio_rpl_span_ns > 0)
		fprintf(f, "  in flight    %.2f requests recorded, %.2f replayed (mean from a ring's "
			"first submission to its last)\n",
			r->aio_rec_area / (double)r->aio_rec_span_ns,
			r->aio_rpl_area / (double)r->aio_rpl_span_ns);
	if (r->aio_waits_rec || r->aio_waits_rpl)
		fprintf(f, "  in flight    at a wait for completions: %.2f recorded (%llu waits), "
			"%.2f replayed (%llu waits, %llu to below the depth the recorded wait left)\n",
			r->aio_waits_rec ? (double)r->aio_waits_rec_depth / (double)r->aio_waits_rec : 0,
			(unsigned long long)r->aio_waits_rec,
			r->aio_waits_rpl ? (double)r->aio_waits_rpl_depth / (double)r->aio_waits_rpl : 0,
			(unsigned long long)r->aio_waits_rpl,
			(unsigned long long)r->aio_waits_below);
	if (!r->aio_skipped)
		return;
	fprintf(f, "  async I/O    %llu requests not replayed (opcodes:",
	       (unsigned long long)r->aio_skipped);
	for (api = IOT_AIO_LIBAIO; api <= IOT_AIO_URING; api++)
		for (op = 0; op < 64; op++) {
			const char *n = iot_aio_op_name((uint32_t)api, op);

			if ((api == IOT_AIO_URING ? r->uring_skip_ops : r->aio_skip_ops) &
			    (1ULL << op))
				fprintf(f, " %s%s", api == IOT_AIO_URING ? "io_uring " : "aio ",
				       n ? n : "?");
		}
	fprintf(f, "; or their descriptor was not open here)\n");
}

void rpl_print_summary(FILE *f, const struct rpl_opts *o, const struct rpl_result *r)
{
	char a[32], b[32], c[32], d[32], e[32], g[32];

	fprintf(f, "replay: %s -> %s\n", o->trace, o->root);
	if (!o->no_prepare)
		fprintf(f, "  prepared     %llu dirs, %llu files (%s), %llu symlinks, %llu hard links "
		       "in %s\n", (unsigned long long)r->prep_dirs,
		       (unsigned long long)r->prep_files,
		       iot_fmt_bytes(a, sizeof(a), (double)r->prep_bytes),
		       (unsigned long long)r->prep_symlinks, (unsigned long long)r->prep_links,
		       iot_fmt_ns(b, sizeof(b), (double)r->prepare_ns));
	if (!o->no_prepare && r->prep_kept)
		fprintf(f, "  kept         %llu files and symlinks found as recorded (a setup's tree)\n",
			(unsigned long long)r->prep_kept);
	if (!o->no_prepare && (r->prep_xattrs || r->prep_xattrs_not))
		fprintf(f, "  xattrs       %llu extended attributes made on the starting tree, %llu not "
			"(names of the host's security modules are not made; or the filesystem "
			"refused them)\n", (unsigned long long)r->prep_xattrs,
			(unsigned long long)r->prep_xattrs_not);
	if (!o->no_prepare && (r->prep_attr_flags || r->prep_attr_flags_not))
		fprintf(f, "  attr flags   %llu files and directories given chattr's flags "
			"(append-only, immutable, no-dump) on the starting tree, %llu not (the "
			"filesystem has none, or the replay lacks CAP_LINUX_IMMUTABLE: calls they "
			"refused when recorded may succeed)\n",
			(unsigned long long)r->prep_attr_flags,
			(unsigned long long)r->prep_attr_flags_not);
	if (!o->no_prepare && (r->prep_devs || r->prep_devs_not))
		fprintf(f, "  devices      %llu device nodes made on the starting tree, %llu of them "
			"with no driver (not a memory device: opening one fails ENXIO); %llu not "
			"made (not root)\n", (unsigned long long)r->prep_devs,
			(unsigned long long)r->prep_devs_nodrv, (unsigned long long)r->prep_devs_not);
	if (o->prepare_only)
		return;
	fprintf(f, "  elapsed      %s (timing %s%s), %llu threads in %llu processes\n",
	       iot_fmt_ns(a, sizeof(a), (double)r->elapsed_ns),
	       o->timing == RPL_TIMING_AFAP ? "afap" :
	       o->timing == RPL_TIMING_SCALE ? "scaled" :
	       o->timing == RPL_TIMING_RAW ? "raw" : "original",
	       o->timing == RPL_TIMING_AFAP ? "" :
	       o->think == RPL_THINK_CPU && o->timing != RPL_TIMING_RAW ? ", think time as CPU" :
	       ", think time slept",
	       (unsigned long long)r->threads, (unsigned long long)r->processes);
	fprintf(f, "  first call   %s after the start (reading, planning, preparing)\n",
		iot_fmt_ns(a, sizeof(a), (double)r->first_call_ns));
	if (o->clients > 0)
		fprintf(f, "  clients      %d, under %s/client-0 .. client-%d\n", o->clients,
			o->root, o->clients - 1);
	if (r->events_in_trace)
		fprintf(f, "  events       the first %llu of the trace's %llu (--events)\n",
			(unsigned long long)o->max_events,
			(unsigned long long)r->events_in_trace);
	/* a bpf ring that filled: those calls are not in the trace, and
	 * the calls after them met another state than recorded (lock_flip
	 * under load: 4,231 lost, 1,372 mismatches, said only by check) */
	if (r->dropped_in_trace)
		fprintf(f, "  dropped      %llu events the recorder lost (its ring buffer full; "
			"'iotape check' counts them): their calls are not replayed, and calls "
			"after them may give other results than recorded\n",
			(unsigned long long)r->dropped_in_trace);
	fprintf(f, "  ops          %llu replayed, %llu skipped", (unsigned long long)r->replayed,
	       (unsigned long long)r->skipped);
	print_skips(f, r);
	if (r->fd_links)
		fprintf(f, "  fd links     %llu opens of a descriptor's link (/dev/fd/N, "
			"/proc/self/fd/N, /proc/PID/fd/N) opened the replayed descriptor's file or "
			"pipe\n", (unsigned long long)r->fd_links);
	if (r->subvols_made || r->subvols_emulated)
		fprintf(f, "  subvolumes   %llu btrfs subvolume calls made as recorded, %llu emulated "
			"(not on btrfs here: a create as a mkdir, a snapshot as a copy of its tree, a "
			"destroy as its removal), %llu of them read-only snapshots left writable\n",
			(unsigned long long)r->subvols_made, (unsigned long long)r->subvols_emulated,
			(unsigned long long)r->subvols_rdonly);
	if (r->creds == RPL_CREDS_ON && (r->creds_threads || r->creds_calls))
		fprintf(f, "  credentials  %llu threads made their file calls as the user recorded, "
			"%llu set*id calls changed a thread's (IOTAPE_REPLAY_CREDS=0: as root)\n",
			(unsigned long long)r->creds_threads, (unsigned long long)r->creds_calls);
	if (r->creds_not_taken)
		fprintf(f, "  credentials  not taken: %llu threads ran as another user when "
			"recorded and replayed as %s\n", (unsigned long long)r->creds_not_taken,
			r->creds == RPL_CREDS_ROOT_CLOSED ?
			"root: --root is not searchable by others (its mode is left as it is)" :
			"the replayer's user (only root can take another's)");
	if (r->umask_on)
		fprintf(f, "  umask        %04o for the first process%s, %llu umask calls: each "
			"replayed process made its files with its own mask (IOTAPE_REPLAY_UMASK=0: "
			"the replayer's)\n", (unsigned)r->umask0,
			r->umask_known ? " (recorded)" : " (the replayer's: not recorded)",
			(unsigned long long)r->umask_calls);
	if (r->umask_not_taken)
		fprintf(f, "  umask        not taken: %llu threads made their files with the "
			"replayer's mask (unshare(CLONE_FS) failed)\n",
			(unsigned long long)r->umask_not_taken);
	if (r->waits_slept || r->waits_left)
		fprintf(f, "  waits        %llu sleeps, polls or selects that timed out slept "
			"as recorded (%s in all), %llu that returned for an event left "
			"to the ordering\n", (unsigned long long)r->waits_slept,
			iot_fmt_ns(a, sizeof(a), (double)r->waits_ns),
			(unsigned long long)r->waits_left);
	if (o->timing != RPL_TIMING_AFAP)
		fprintf(f, "  think        %s planned (%s cut to the threads' CPU time), "
			"%s spun as CPU in %s (%s of it given back for time off the "
			"CPU between a call's end and its spin; %llu yields to process "
			"starts and wakes), %s waited for by the clock\n",
			iot_fmt_ns(a, sizeof(a), (double)r->think_ns),
			iot_fmt_ns(b, sizeof(b), (double)r->think_cut_ns),
			iot_fmt_ns(c, sizeof(c), (double)r->spun_ns),
			iot_fmt_ns(d, sizeof(d), (double)r->spin_wall_ns),
			iot_fmt_ns(g, sizeof(g), (double)r->spin_offcpu_ns),
			(unsigned long long)r->spin_yields,
			iot_fmt_ns(e, sizeof(e), (double)r->think_wait_ns));
	if (r->gap_sleeps)
		fprintf(f, "  gap sleeps   %llu gaps in which the program slept on a disk "
			"(page-ins) slept so on top of their think time, %s in all\n",
			(unsigned long long)r->gap_sleeps,
			iot_fmt_ns(a, sizeof(a), (double)r->gap_slept_ns));
	if (r->data_ops || r->nodata_ops)
		fprintf(f, "  data         %llu writes write the program's own bytes (%s), "
			"kept by record --data; %llu recorded without theirs write the "
			"replay's pattern\n", (unsigned long long)r->data_ops,
			iot_fmt_bytes(a, sizeof(a), (double)r->data_bytes),
			(unsigned long long)r->nodata_ops);
	if (r->wakes)
		fprintf(f, "  wakes        %llu calls after a gap the CPU budget cut, which "
			"ended as another thread of the process (or of one sharing its memory) returned from a call: "
			"replayed after that call (a wait the trace does not hold)\n",
			(unsigned long long)r->wakes);
	if (r->call_wakes)
		fprintf(f, "  woken calls  %llu calls that returned as another thread woke "
			"them (its send to a socket they polled, a lock it released, a signal) wait for "
			"that thread's last call before: what it did in between the trace "
			"does not hold\n", (unsigned long long)r->call_wakes);
	if (r->gap_wakes)
		fprintf(f, "  gap wakes    %llu calls whose thread another woke from a sleep between "
			"calls (a futex, a semaphore: a wait the trace does not hold) come after "
			"that thread's last call before (%llu not so ordered already)\n",
			(unsigned long long)r->gap_wakes, (unsigned long long)r->gap_wakes_new);
	if (r->idle_wakes && o->timing != RPL_TIMING_AFAP)
		fprintf(f, "  idle wakes   %llu gaps whose thread a thread without a call woke "
			"(a worker that computes, then wakes it) keep the sleep in them, "
			"up to that thread's CPU time: %s more think time, spun as its "
			"computing\n", (unsigned long long)r->idle_wakes,
			iot_fmt_ns(a, sizeof(a), (double)r->idle_kept_ns));
	if (r->wake_lags)
		fprintf(f, "  wake lags    %llu of the woken calls come as long after their "
			"waker's call as recorded%s (it went on in its gap before the wake-up), "
			"or at its next call: %llu waited for that, %s in all\n",
			(unsigned long long)r->wake_lags,
			r->wake_lag_scaled ? ", scaled as the waker's gap is here" : "",
			(unsigned long long)r->wake_lag_waits,
			iot_fmt_ns(a, sizeof(a), (double)r->wake_lag_ns));
	if (r->poll_loops)
		fprintf(f, "  thread polls %llu loops of sleeps that ended as other threads of "
			"the process ended: the op after each replayed after their end, "
			"%llu of their %llu rounds not slept, the thread polled for had "
			"ended here (%s recorded)\n", (unsigned long long)r->poll_loops,
			(unsigned long long)r->poll_cut, (unsigned long long)r->poll_rounds,
			iot_fmt_ns(a, sizeof(a), (double)r->poll_cut_ns));
	if (r->waits_polled)
		fprintf(f, "  polls        %llu sleeps between wait4 WNOHANG polls for a child "
			"not slept: the child had ended here (%s recorded)\n",
			(unsigned long long)r->waits_polled,
			iot_fmt_ns(a, sizeof(a), (double)r->waits_polled_ns));
	if (r->starts || r->forks_only)
		fprintf(f, "  processes    %llu execs replayed as native process starts (%s), "
			"%llu forks without exec not replayed\n",
			(unsigned long long)r->starts,
			iot_fmt_ns(a, sizeof(a), (double)r->starts_ns),
			(unsigned long long)r->forks_only);
	if (r->exits)
		fprintf(f, "  exits        %llu reaps waited for their child's exit as recorded "
			"(%s in all, after its end here)\n", (unsigned long long)r->exits,
			iot_fmt_ns(a, sizeof(a), (double)r->exits_ns));
	if (r->start_fails)
		fprintf(f, "  processes    %llu process starts failed (no memfd or no exec here?): "
			"their cost is missing\n", (unsigned long long)r->start_fails);
	if (r->mp_records)
		fprintf(f, "  mapped pages %s read, %s written through file mappings (%llu of %llu "
		       "records; %llu not replayed, %s: file not under the root or "
		       "not openable)\n", iot_fmt_bytes(a, sizeof(a), (double)r->mp_rbytes),
		       iot_fmt_bytes(b, sizeof(b), (double)r->mp_wbytes),
		       (unsigned long long)(r->mp_records - r->mp_skipped),
		       (unsigned long long)r->mp_records, (unsigned long long)r->mp_skipped,
		       iot_fmt_bytes(c, sizeof(c), (double)r->mp_skipped_bytes));
	else if (r->mmap_calls)
		fprintf(f, "  mapped-file I/O not replayed: %llu calls (the trace has no "
		       "pages of its mappings)\n", (unsigned long long)r->mmap_calls);
	print_aio(f, r);
	fprintf(f, "  mismatches   %llu", (unsigned long long)r->mismatches);
	print_by_sc(f, r, 0);
	for (int i = 0; i < r->n_examples; i++)
		fprintf(f, "    %s\n", r->examples[i]);
	if (r->listings_reordered)
		fprintf(f, "  listings     %llu directory listings returned the recorded bytes in "
			"all in another order (%llu getdents calls whose own counts differ: "
			"not mismatches)\n", (unsigned long long)r->listings_reordered,
			(unsigned long long)r->listing_calls);
	if (r->listings_differ)
		fprintf(f, "  listings     %llu directory listings returned other bytes in all than "
			"recorded (entries missing or added: their getdents calls are mismatches)\n",
			(unsigned long long)r->listings_differ);
	if (r->skipped_by[RPL_SKIP_MOUNT])
		fprintf(f, "  mounts       %llu mount, umount2 or pivot_root calls of the workload "
			"not made: the replay runs in the replayer's mounts, so calls on files "
			"it saw through its own (a bind, a tmpfs, an overlay, a new root) may "
			"give other results\n", (unsigned long long)r->skipped_by[RPL_SKIP_MOUNT]);
	if (r->probe_diffs) {
		fprintf(f, "  capability probes differing (expected across filesystems): %llu",
		       (unsigned long long)r->probe_diffs);
		print_by_sc(f, r, 1);
	}
	rpl_print_fault_summary(f, o, r);
	fprintf(f, "  ordering     %llu violations", (unsigned long long)r->ordering_violations);
	if (r->dep_waits)
		fprintf(f, ", %llu ops waited %s for other threads' ops",
			(unsigned long long)r->dep_waits,
			iot_fmt_ns(a, sizeof(a), (double)r->dep_wait_ns));
	if (r->pipe_gaveup)
		fprintf(f, ", %llu pipe reads or writes whose other end never came (waits given up)",
			(unsigned long long)r->pipe_gaveup);
	if (r->conn_gaveup)
		fprintf(f, ", %llu accepts whose connect's connection never came (another's taken)",
			(unsigned long long)r->conn_gaveup);
	if (r->fifo_alone)
		fprintf(f, ", %llu FIFO opens for writing whose reader did not come in time "
			"(opened read-write)", (unsigned long long)r->fifo_alone);
	if (r->deadlock_breaks)
		fprintf(f, ", %llu dependency waits broken (the trace orders ops in a circle)",
		       (unsigned long long)r->deadlock_breaks);
	if (r->walk_dirs)
		fprintf(f, "\n  walks        %llu directories walked in the order listed here "
			"(%llu entries; recorded in the recording filesystem's order)",
			(unsigned long long)r->walk_dirs, (unsigned long long)r->walk_moved);
	if (r->walk_runs)
		fprintf(f, "\n  by path      %llu runs of files named by their paths taken in the order "
			"their directories were listed here (%llu files; recorded in the recording "
			"filesystem's order)",
			(unsigned long long)r->walk_runs, (unsigned long long)r->walk_run_moved);
	if (r->walk_back)
		fprintf(f, "\n  walk order   %llu of %llu files opened under a directory listed here "
			"came after one it lists later (the recorded order, kept)",
			(unsigned long long)r->walk_back, (unsigned long long)r->walk_opens);
	fprintf(f, "\n  lateness     p50 %s, p99 %s, max %s\n",
	       iot_fmt_ns(a, sizeof(a), (double)r->late_p50_ns),
	       iot_fmt_ns(b, sizeof(b), (double)r->late_p99_ns),
	       iot_fmt_ns(c, sizeof(c), (double)r->late_max_ns));
	if (o->timing != RPL_TIMING_AFAP)
		fprintf(f, "  own work     %s not hidden in think time (calls back to back; "
		       "%s in the thread with the most)\n",
		       iot_fmt_ns(a, sizeof(a), (double)r->unhidden_ns),
		       iot_fmt_ns(b, sizeof(b), (double)r->unhidden_max_ns));
	if (o->out)
		fprintf(f, "  profile      %s\n", o->out);
}
