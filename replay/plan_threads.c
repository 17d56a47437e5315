/*
 * plan_threads.c - the threads and processes of a trace, found in one
 * pass over the ops in entry order: each op's thread (a new one on a
 * tid's first op, or after a reused tid's spawn), each thread's process
 * and whether it shares its parent's descriptor table (clone flags, from
 * the spawn call or the trace's Process records), the raw gap before
 * each op, and, for each op in turn, its resources (plan_fds.c) and its
 * dependencies on other threads (deps.c).
 *
 * A forked child starts from its parent's table as it was at the fork,
 * kept aside until the child's first op: the parent goes on before the
 * child runs (a shell closes its end of the pipe the child writes to).
 * A process's table goes with its last thread's end, its exit call or
 * its exit record (plan_ended()), as the kernel closes it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "engine.h"
#include "plan.h"
#include "think.h"

/*
 * A call a signal interrupted when recorded: EINTR, or one of the
 * kernel's ERESTART* codes that a tracer sees before the call is made
 * again.  It changed nothing, and a replayed call is not interrupted: an
 * open of a FIFO or a lock's wait would then succeed (a descriptor or a
 * lock the program never had) or block on what the recording never
 * waited for.  It is not made; its time is waited (exec_thread.c).  Not so a
 * wait (ops_wait.c), a process call (a fork is made again), an async one
 * (aio.c), or a close (the descriptor is gone, whatever it returns).
 */
static int interrupted(const struct rpl_op *op)
{
	const struct iot_syscall *sc;
	int64_t r = op->ev.ret;

	/* ERESTARTSYS, ERESTARTNOINTR, ERESTARTNOHAND, ERESTART_RESTARTBLOCK */
	if (r != -EINTR && r != -512 && r != -513 && r != -514 && r != -516)
		return 0;
	sc = iot_syscall_by_nr(op->ev.nr);
	return sc && sc->cls != IOT_CLASS_WAIT && sc->cls != IOT_CLASS_PROCESS &&
	       sc->cls != IOT_CLASS_ASYNC && op->ev.nr != SYS_close &&
	       op->ev.nr != SYS_close_range;
}

/*
 * A call refused when recorded by what the replay does not take on: an
 * open that met another process's lease (EAGAIN: the replay takes no
 * leases, whose breaks signal their holder; or openat2's RESOLVE_CACHED,
 * whose answer is the recording machine's cache), a write or fallocate past
 * the program's file size limit (EFBIG: RLIMIT_FSIZE, which the replay's
 * one process cannot have per recorded process).  Made here, they
 * succeed: a descriptor, a file's size the program never had (stress-ng's
 * lease and fsize stressors: 299-50,925 and 12,800 mismatches).  So is
 * a call refused a descriptor by the program's own limit (EMFILE:
 * RLIMIT_NOFILE, counted per process, where the replay's one process
 * holds every recorded process's) or the system's (ENFILE).
 */
static int refused(const struct rpl_op *op)
{
	const struct iot_syscall *sc;

	if (op->ev.ret == -EMFILE || op->ev.ret == -ENFILE)
		return 1;
	if (op->ev.ret != -EAGAIN && op->ev.ret != -EFBIG)
		return 0;
	if (op->ev.ret == -EFBIG)
		return 1;
	sc = iot_syscall_by_nr(op->ev.nr);
	return sc && (sc->flags & IOT_SCF_RETFD) && (sc->flags & IOT_SCF_NAMES);
}

/* A path the recorder wrote under a directory descriptor it did not know
 * ("/?/NAME": record/decode.c): a bad one, when the call failed (EBADF,
 * ENOTDIR), which the replay's path under its root cannot fail alike. */
static int unknown_dir(const char *path)
{
	return path && path[0] == '/' && path[1] == '?' && path[2] == '/';
}

/*
 * Symlinks of the starting tree that lead into /proc, /sys or /dev
 * (/etc/mtab -> ../proc/self/mounts), by the hash of their paths, into
 * @m: a call that follows one reads the kernel's files, which the replay
 * does not; under the root the link leads nowhere (ENOENT where the
 * recording read the mount table: df, getmntent(), stress-ng).
 */
static int leads_to_pseudo(const char *path, size_t path_len, const char *target, size_t target_len)
{
	char buf[4096];
	size_t n = 0;

	if (!target || !target_len || path_len + target_len + 2 > sizeof(buf))
		return 0;
	if (target[0] != '/') {	/* relative: from the link's directory */
		for (n = path_len; n > 0 && path[n - 1] != '/'; n--)
			;
		memcpy(buf, path, n);
	}
	memcpy(buf + n, target, target_len);
	buf[n + target_len] = 0;
	rpl_path_plain(buf, n + target_len);
	return rpl_path_skip(NULL, buf) == RPL_SKIP_PSEUDO;
}

static int pseudo_links(const struct rpl_plan *p, struct rpl_map *m)
{
	size_t i;

	for (i = 0; i < p->n_ps; i++) {
		const struct iot_path_state *ps = &p->ps[i];

		if ((ps->type & S_IFMT) == S_IFLNK &&
		    leads_to_pseudo(ps->path, ps->path_len, ps->target, ps->target_len) &&
		    rpl_map_put(m, iot_hash(ps->path, ps->path_len, 11), 1) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The key of @path in the map of pseudo links, trailing slashes left out;
 * @*slash : whether it had one (then the link is followed whatever the
 * call's flags). */
static uint64_t plink_key(const char *path, int *slash)
{
	size_t n = strlen(path);

	*slash = 0;
	while (n > 1 && path[n - 1] == '/') {
		n--;
		*slash = 1;
	}
	return iot_hash(path, n, 11);
}

/*
 * Keep @m, the pseudo links by path, as the workload's op @op changes
 * them: a symlink it makes into /proc, /sys or /dev (systemctl mask:
 * UNIT -> /dev/null) is one from then on, and a call that follows it
 * is left out as one through a link of the starting tree is (systemctl
 * revert's open of the masked unit with O_DIRECTORY: ENOTDIR recorded,
 * ENOENT under the root, where ROOT/dev/null is not); a link removed or
 * renamed is one no more, or one under its new name.
 */
static int pseudo_links_follow(const struct rpl_op *op, struct rpl_map *m)
{
	uint32_t v = 0;
	int sl;

	if (op->ev.ret != 0 || !op->ev.path)
		return 0;
	switch (op->ev.nr) {
	case SYS_symlink: case SYS_symlinkat:
		if (!op->ev.path2 || !leads_to_pseudo(op->ev.path, strlen(op->ev.path), op->ev.path2,
						      strlen(op->ev.path2)))
			break;
		return rpl_map_put(m, plink_key(op->ev.path, &sl), 1);
	case SYS_unlink: case SYS_unlinkat:
		if (m->n && rpl_map_get(m, plink_key(op->ev.path, &sl), &v) && v)
			return rpl_map_put(m, plink_key(op->ev.path, &sl), 0);
		break;
	case SYS_rename: case SYS_renameat: case SYS_renameat2:
		if (!m->n || !op->ev.path2)
			break;
		if (rpl_map_get(m, plink_key(op->ev.path2, &sl), &v) && v &&
		    rpl_map_put(m, plink_key(op->ev.path2, &sl), 0) < 0)
			return -ENOMEM;
		if (rpl_map_get(m, plink_key(op->ev.path, &sl), &v) && v &&
		    (rpl_map_put(m, plink_key(op->ev.path, &sl), 0) < 0 ||
		     rpl_map_put(m, plink_key(op->ev.path2, &sl), 1) < 0))
			return -ENOMEM;
		break;
	}
	return 0;
}

/* Does @op follow a symlink at the end of its path? */
static int follows_last(const struct rpl_op *op)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);
	int fl, of;

	if (!sc)
		return 0;
	switch (op->ev.nr) {
	case SYS_lstat: case SYS_lgetxattr: case SYS_llistxattr: case SYS_lremovexattr:
	case SYS_lsetxattr: case SYS_lchown: case SYS_readlink: case SYS_readlinkat:
	case SYS_unlink: case SYS_unlinkat: case SYS_rmdir: case SYS_mkdir: case SYS_mkdirat:
	case SYS_mknod: case SYS_mknodat: case SYS_symlink: case SYS_symlinkat:
	case SYS_rename: case SYS_renameat: case SYS_renameat2: case SYS_link:
	case SYS_linkat:
		return 0;
	}
	fl = iot_syscall_arg(sc, IOT_ARG_AT_FLAGS);
	of = rpl_open_flags_arg(sc);
	return !(fl >= 0 && (op->ev.args[fl] & AT_SYMLINK_NOFOLLOW)) &&
	       !(of >= 0 && (op->ev.args[of] & O_NOFOLLOW));
}

static int is_spawn(int nr)
{
	return nr == SYS_clone || nr == SYS_clone3 || nr == SYS_fork || nr == SYS_vfork;
}

/* A plan table made anew, its pipe ends counted in @pl->ends, as copies
 * count in their original's. */
static struct rpl_fdtab *plan_tab_new(struct rpl_planner *pl)
{
	struct rpl_fdtab *t = rpl_fdtab_new(0);

	if (t)
		t->ends = &pl->ends;
	return t;
}

/* @snap : the table the spawn gave the child (a copy of its parent's as
 * it was then, or with CLONE_FILES a reference to it), or NULL (then its
 * parent's table as it is now, or a new one where the parent has ended:
 * plan_ended()). */
static int new_proc(struct rpl_plan *p, struct rpl_planner *pl, int32_t pid, int32_t parent,
		    int share, struct rpl_fdtab *snap)
{
	struct rpl_fdtab *ptab = parent >= 0 ? p->procs[parent].tab : NULL;
	struct rpl_proc *pr;
	int err = 0;

	RPL_GROW(p->procs, p->n_procs, p->cap_procs);
	pr = &p->procs[p->n_procs];
	memset(pr, 0, sizeof(*pr));
	pr->pid = pid;
	pr->parent = parent;
	pr->share_files = share;
	if (snap)
		pr->tab = snap;
	else if (ptab)
		pr->tab = share ? rpl_fdtab_ref(ptab) : rpl_fdtab_copy(ptab);
	else
		pr->tab = plan_tab_new(pl);
	if (!pr->tab)
		return -ENOMEM;
	err = (int)p->n_procs++;
out:
	return err;
}

/* Clone flags of the spawn op @s of child @tid. */
static uint64_t spawn_flags(const struct rpl_planner *pl, const struct rpl_op *s, int32_t tid)
{
	uint64_t flags = 0;
	uint32_t f;

	if (s->ev.nr == SYS_clone || s->ev.nr == SYS_clone3)
		flags = (uint64_t)s->ev.args[0];
	if (rpl_map_get(&pl->files, RPL_IK(tid), &f))
		flags = f;
	return flags;
}

/* The thread op @i belongs to, created on its first op. */
static int thread_of(struct rpl_plan *p, struct rpl_planner *pl, uint32_t i)
{
	struct rpl_op *op = &p->ops[i];
	/* the op keeps no pid: the read left it in the field of its
	 * thread until now */
	int32_t pid = (int32_t)op->thread;
	struct rpl_thread *t;
	uint32_t ti, spawn, pi;
	int32_t proc = -1;
	int64_t copied_ns = 0;
	int err = 0;

	/* the same tid in another process (its exit not recorded) is a new
	 * thread: a thread's ops have its pid.  The last tid's thread is
	 * kept aside (most ops are of the thread of the op before them):
	 * tid2thread changes only below, which keeps it too. */
	if (pl->last_ti != UINT32_MAX && pl->last_tid == op->ev.tid) {
		ti = pl->last_ti;
	} else if (rpl_map_get(&pl->tid2thread, RPL_IK(op->ev.tid), &ti)) {
		pl->last_tid = op->ev.tid;
		pl->last_ti = ti;
	} else {
		ti = UINT32_MAX;
	}
	if (ti != UINT32_MAX && !p->threads[ti].ended && !p->procs[p->threads[ti].proc].ended &&
	    p->threads[ti].pid == pid)
		return (int)ti;
	RPL_GROW(p->threads, p->n_threads, p->cap_threads);
	t = &p->threads[p->n_threads];
	memset(t, 0, sizeof(*t));
	t->tid = op->ev.tid;
	t->pid = pid;
	t->spawn_op = -1;
	if (rpl_map_get(&pl->spawn, RPL_IK(op->ev.tid), &spawn) && rpl_op_child(&p->ops[spawn]) < 0) {
		const struct rpl_op *s = &p->ops[spawn];
		uint32_t sproc = p->threads[s->thread].proc;
		uint64_t flags = spawn_flags(pl, s, op->ev.tid);
		struct rpl_fdtab *snap = NULL;
		uint32_t k;

		if (rpl_map_get(&pl->snap_of, RPL_IK(op->ev.tid), &k) && k < pl->n_snap) {
			snap = pl->snap[k];
			pl->snap[k] = NULL;
		}
		t->spawn_op = (int32_t)spawn;
		if ((flags & 0x00010000 /* CLONE_THREAD */) || pid == p->threads[s->thread].pid) {
			proc = (int32_t)sproc;
			rpl_fdtab_unref(snap);
			if ((flags & 0x00010000) && p->procs[proc].n_unborn)
				p->procs[proc].n_unborn--;
		} else {
			proc = new_proc(p, pl, pid, (int32_t)sproc,
					(flags & 0x00000400 /* CLONE_FILES */) != 0, snap);
			/* the recorders write the FORK record after the copy
			 * of the table (bpf: sched_process_fork; ptrace: the
			 * parent's fork event) */
			copied_ns = s->ev.t_enter;
			if (rpl_map_get(&pl->forked, RPL_IK(op->ev.tid), &k) && k < p->n_precs &&
			    p->precs[k].t_ns > copied_ns)
				copied_ns = p->precs[k].t_ns;
		}
		rpl_op_set_link(&p->ops[spawn], RPL_OPF_CHILD, (uint32_t)p->n_threads);
	} else if (rpl_map_get(&pl->pid2proc, RPL_IK(pid), &pi) && !p->procs[pi].ended) {
		proc = (int32_t)pi;
	} else {
		proc = new_proc(p, pl, pid, -1, 0, NULL);
	}
	if (proc < 0)
		return proc;
	t = &p->threads[p->n_threads];	/* new_proc does not move threads */
	t->proc = (uint32_t)proc;
	t->copied_ns = copied_ns;
	p->procs[proc].n_threads++;
	p->procs[proc].n_live++;
	if (rpl_map_put(&pl->pid2proc, RPL_IK(pid), (uint32_t)proc) < 0 ||
	    rpl_map_put(&pl->tid2thread, RPL_IK(op->ev.tid), (uint32_t)p->n_threads) < 0)
		return -ENOMEM;
	pl->last_tid = op->ev.tid;
	pl->last_ti = (uint32_t)p->n_threads;
	err = (int)p->n_threads++;
out:
	return err;
}

/*
 * A thread of @pr ended (@all: every thread, exit_group).  With its last
 * thread the process lets its table go, as the kernel does at its end:
 * the last reference closes every descriptor in it, and the counts of
 * the pipe ends open (pl->ends) lose them.  Kept to the plan's end, the
 * table of a process that ended without closing its pipe ends (a writer
 * that exits, its output still open) counted them open for good: a
 * later close of the last other copy was taken for a copy's, and the
 * exit of a process that shared its table (CLONE_FILES) with one that
 * had ended closed nothing.  Ops of the process after its end, if a
 * trace has any, get a new empty table (rpl_plan_fds()).  The socket
 * ends it closes for good are noted first (rpl_plan_socks_end()).
 * @return : 0 or -ENOMEM.
 */
static int plan_ended(struct rpl_plan *p, struct rpl_planner *pl, struct rpl_proc *pr, int all)
{
	if (pr->n_live > 0)
		pr->n_live--;
	if (all)
		pr->n_live = 0;
	if (pr->n_live == 0 && pr->tab) {
		if (atomic_load(&pr->tab->refs) == 1 &&
		    rpl_plan_socks_end(p, pl, (uint32_t)(pr - p->procs), pr->tab) < 0)
			return -ENOMEM;
		rpl_fdtab_unref(pr->tab);
		pr->tab = NULL;
	}
	return 0;
}

/*
 * A thread's exit record ends a thread that made no exit call as its
 * exit would (plan_ended()): one killed by a signal (a writer that
 * SIGPIPE ended, `yes | head`), whose process then closed its table as
 * well.  Its calls (a call it was killed in too) entered before it.
 */
static int exit_rec_ends(struct rpl_plan *p, struct rpl_planner *pl, const struct iot_process *x)
{
	uint32_t ti, v;
	struct rpl_thread *t;

	if (!rpl_map_get(&pl->tid2thread, RPL_IK(x->tid ? x->tid : x->pid), &ti))
		return 0;
	t = &p->threads[ti];
	if (t->ended || t->pid != x->pid || rpl_map_get(&pl->gone, RPL_IK(ti), &v))
		return 0;
	if (rpl_map_put(&pl->gone, RPL_IK(ti), 1) < 0)
		return -ENOMEM;
	return plan_ended(p, pl, &p->procs[t->proc], 0);
}

static int cmp_prec_time(const void *a, const void *b)
{
	const struct iot_process *x = *(const struct iot_process *const *)a;
	const struct iot_process *y = *(const struct iot_process *const *)b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * A thread that polls for a child's end (wait4 with WNOHANG, which
 * returns 0 while the child runs, then a sleep, again and again) makes as
 * many rounds as the child ran long when recorded, and the child ran
 * slower under the recorder: fio's main process, 10 ms sleeps between
 * such wait4s, slept 85 times (0.84 s) while its job did 16 MiB of
 * O_DIRECT io_uring writes under ptrace, which take 0.07 s natively, and
 * the replay slept all 85 after the replayed job had ended (whole run
 * 1.0 s, native 0.5 s).  So the sleeps of a thread (@t, its last op
 * reaping process @pi) from the child's spawn (or its previous reap) to
 * that reap, where it polled for the child at least once in between,
 * were spent waiting for the child: they are marked with it (wait_proc),
 * and a replay that reaches one once the child has ended does not sleep
 * it (ops_wait.c).
 */
static void poll_sleeps(struct rpl_plan *p, const struct rpl_thread *t, uint32_t pi)
{
	int32_t pid = p->procs[pi].pid;
	uint32_t k, from;
	int polled = 0;

	for (from = t->n_ops - 1; from > 0; from--) {
		const struct rpl_op *op = &p->ops[t->ops[from - 1]];

		if ((rpl_op_child(op) >= 0 && p->threads[op->link].proc == pi) ||
		    (op->ev.nr == SYS_wait4 && op->ev.ret > 0))
			break;
		if (op->ev.nr == SYS_wait4 && op->ev.ret == 0 && (op->ev.args[2] & WNOHANG) &&
		    (op->ev.args[0] <= 0 || op->ev.args[0] == pid))
			polled = 1;
	}
	for (k = from; polled && k + 1 < t->n_ops; k++) {
		struct rpl_op *op = &p->ops[t->ops[k]];

		if (rpl_wait_sleep_ns(&op->ev) >= 0)
			rpl_op_set_link(op, RPL_OPF_WAITS, pi);
	}
}

/*
 * A process's end is the workload's own time as much as its start: the
 * kernel tears its memory down, closes its files and wakes its parent,
 * after its last call (cat of a small file: ~0.3 ms from its exit_group
 * to its shell's wait4 returning, of 0.6-0.8 ms of CPU in all).  A
 * replay's process is a thread, which ends at once: a configure script's
 * 431 reaps took 256 ms after their children's exit_group in a bpf
 * recording, 89 ms in its replay, where the rest was missing (replays
 * 12-16 % fast).  So where the parent was waiting in the wait4 that
 * reaped the child before the child's exit_group began, and neither call
 * was stopped by a tracer (whose stops at the exit and at the wait4's
 * return the interval would hold), the wait4 returns no earlier than the
 * recorded interval after the child's end here (ops_proc.c): its own
 * wake-up is within it, as the recorded one was.
 *
 * A ptrace recording stops both calls: the exit_group's entry holds the
 * tracer's work at the stop and at the exit event after it (the CPU
 * times read, the mappings' pages), and the wait4's return its exit
 * stop.  There (header record.exit_at = event) the child's exit record
 * is timed when the tracer let it go at its exit event (record/tracer.c),
 * where its end began; from then to the wait4's recorded return, less
 * the calibrated cost of a call's two stops (the tracer's wake-up at the
 * death, the wait4's exit stop), is its end.  configure's ptrace
 * recording: 316 such reaps, 0 ms before (each replayed as a thread's
 * end), against 134 ms for 349 in its bpf recording.
 */
struct exit_rec {
	int32_t pid;
	int64_t t;
};

static int cmp_exit_rec(const void *a, const void *b)
{
	const struct exit_rec *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* The process @pid's exit record within (@lo, @hi): its time, 0 if none. */
static int64_t exit_rec_in(const struct exit_rec *x, size_t n, int32_t pid, int64_t lo,
			   int64_t hi)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (x[m].pid < pid || (x[m].pid == pid && x[m].t <= lo))
			a = m + 1;
		else
			b = m;
	}
	return a < n && x[a].pid == pid && x[a].t < hi ? x[a].t : 0;
}

/* A stopped reap's recorded end, less the stops in it (0: none). */
static int64_t stopped_exit_ns(const struct rpl_plan *p, const struct rpl_op *op,
			       const struct exit_rec *x, size_t n)
{
	int64_t at = exit_rec_in(x, n, p->procs[rpl_op_wait_proc(op)].pid, op->ev.t_enter,
				 op->ev.t_exit);
	int64_t d = at ? op->ev.t_exit - at - p->stop_cost_ns : 0;

	return d > 0 ? d : 0;
}

/* The reaps' exit times, of the wait4 ops @w[@nw] (their indices, in
 * order: the ops of no other call, not a pass over every op). */
static int reap_times(struct rpl_plan *p, const uint32_t *w, size_t nw)
{
	const char *v = p->hdr ? iot_header_get(p->hdr, "record.exit_at") : NULL;
	struct exit_rec *x = NULL;
	size_t i, n = 0;

	if (v && strcmp(v, "event") == 0 && p->n_precs) {
		x = malloc(p->n_precs * sizeof(*x));
		if (!x)
			return -ENOMEM;
		for (i = 0; i < p->n_precs; i++)
			if (p->precs[i].kind == IOT_PROC_EXIT && p->precs[i].pid == p->precs[i].tid)
				x[n++] = (struct exit_rec){ p->precs[i].pid, p->precs[i].t_ns };
		qsort(x, n, sizeof(*x), cmp_exit_rec);
	}
	for (i = 0; i < nw; i++) {
		const struct rpl_op *op = &p->ops[w[i]];
		struct rpl_proc *pr;
		int32_t pi;

		if (op->ev.nr != SYS_wait4 || (pi = rpl_op_wait_proc(op)) < 0 ||
		    (op->ev.flags & IOT_EV_NOEXIT_TS))
			continue;
		pr = &p->procs[pi];
		if (rpl_op_stopped(op)) {
			if (x)
				pr->exit_ns = stopped_exit_ns(p, op, x, n);
		} else if (pr->exit_at && op->ev.t_enter < pr->exit_at &&
			   op->ev.t_exit > pr->exit_at) {
			pr->exit_ns = op->ev.t_exit - pr->exit_at;
		}
	}
	free(x);
	return 0;
}

int rpl_plan_threads(struct rpl_plan *p, struct rpl_deps *deps)
{
	uint64_t keys[RPL_MAXRES];
	struct rpl_planner pl = { .last_ti = UINT32_MAX };
	struct rpl_map plinks = { 0 };
	uint32_t pv;
	int slash;
	int64_t base = p->n_ops ? p->ops[0].ev.t_enter : 0;
	const struct iot_process **exits = NULL;	/* exit records by time */
	uint32_t *waits = NULL;				/* the wait4 ops */
	struct { uint32_t op, spawn; } *early = NULL;	/* wait4s before their child's first op */
	size_t i, j, n_exits = 0, next_exit = 0, n_waits = 0, cap_waits = 0;
	size_t n_early = 0, cap_early = 0;
	int err = 0;

	for (i = 0; i < p->n_precs; i++) {
		const struct iot_process *pr = &p->precs[i];

		if (pr->kind == IOT_PROC_FORK || pr->kind == IOT_PROC_THREAD) {
			uint64_t f = pr->clone_flags;

			if (pr->kind == IOT_PROC_THREAD)
				f |= 0x00010000 | 0x00000400;
			if (rpl_map_put(&pl.files, RPL_IK(pr->tid), (uint32_t)f) < 0 ||
			    (pr->kind == IOT_PROC_FORK &&
			     rpl_map_put(&pl.forked, RPL_IK(pr->tid), (uint32_t)i) < 0))
				goto nomem;
		} else if (pr->kind == IOT_PROC_EXIT) {
			n_exits++;
		}
	}
	for (i = 0; i < p->n_ps; i++)
		pl.ps_fifos += (p->ps[i].type & S_IFMT) == S_IFIFO;
	if (pseudo_links(p, &plinks) < 0)
		goto nomem;
	pl.writes_ordered = p->hdr && iot_header_get(p->hdr, "record.data") != NULL;
	if (n_exits && !(exits = malloc(n_exits * sizeof(*exits))))
		goto nomem;
	for (i = 0, j = 0, n_exits = 0; i < p->n_precs; i++)
		if (p->precs[i].kind == IOT_PROC_EXIT) {
			exits[n_exits] = &p->precs[i];
			j += n_exits && exits[n_exits]->t_ns < exits[n_exits - 1]->t_ns;
			n_exits++;
		}
	if (j)		/* the recorders write them in time order: rarely */
		qsort(exits, n_exits, sizeof(*exits), cmp_prec_time);
	if (p->hdr && p->hdr->start_ns > 0 && p->hdr->start_ns <= base)
		base = p->hdr->start_ns;
	for (i = 0; i < p->n_ops; i++) {
		struct rpl_op *op = &p->ops[i];
		struct rpl_thread *t;
		int ti;
		int64_t prev_end, gap;

		while (next_exit < n_exits && exits[next_exit]->t_ns < op->ev.t_enter)
			if ((err = exit_rec_ends(p, &pl, exits[next_exit++])) < 0)
				goto out;
		ti = thread_of(p, &pl, (uint32_t)i);
		if (ti < 0) {
			err = ti;
			goto out;
		}
		op->thread = (uint32_t)ti;
		t = &p->threads[ti];
		if (t->n_ops)
			prev_end = rpl_op_end(&p->ops[t->ops[t->n_ops - 1]]);
		else if (t->spawn_op >= 0)
			prev_end = rpl_op_end(&p->ops[t->spawn_op]);
		else
			prev_end = base;
		gap = iot_ns_sub(op->ev.t_enter, prev_end);
		op->think_ns = gap > 0 ? gap : 0;	/* raw: see think_times() */
		RPL_GROW(t->ops, t->n_ops, t->cap_ops);
		t->ops[t->n_ops++] = (uint32_t)i;
		if ((op->ev.flags & IOT_EV_UNFINISHED) &&
		    !(iot_syscall_by_nr(op->ev.nr) &&
		      (iot_syscall_by_nr(op->ev.nr)->flags & IOT_SCF_NOEXIT)))
			op->skip = RPL_SKIP_UNFINISHED;
		else if (interrupted(op))
			op->skip = RPL_SKIP_SIGNAL;
		else if (op->ev.ret < 0 && (unknown_dir(op->ev.path) || unknown_dir(op->ev.path2)))
			op->skip = RPL_SKIP_DIRFD;
		else if (refused(op))
			op->skip = RPL_SKIP_REFUSED;
		else if (plinks.n && op->ev.path &&
			 rpl_map_get(&plinks, plink_key(op->ev.path, &slash), &pv) && pv &&
			 (slash || follows_last(op)))
			op->skip = RPL_SKIP_PSEUDO;
		if (!op->skip && pseudo_links_follow(op, &plinks) < 0)
			goto nomem;
		for (j = 0; j < RPL_MAXRES; j++)
			keys[j] = 0;
		pl.frees_locks = 0;
		if (!op->skip && rpl_plan_fds(p, &pl, op, keys) < 0)
			goto nomem;
		if ((err = rpl_deps_add(p, deps, (uint32_t)i, keys, pl.frees_locks)) < 0)
			goto out;
		if (op->ev.nr == SYS_wait4) {
			RPL_GROW(waits, n_waits, cap_waits);
			waits[n_waits++] = (uint32_t)i;
		}
		if (is_spawn(op->ev.nr) && op->ev.ret > 0 && !op->skip) {
			uint32_t old;

			/* A reused tid starts a new thread from here on. */
			if (rpl_map_get(&pl.tid2thread, RPL_IK(op->ev.ret), &old))
				p->threads[old].ended = 1;
			if (rpl_map_put(&pl.spawn, RPL_IK(op->ev.ret), (uint32_t)i) < 0)
				goto nomem;
			uint64_t fl = spawn_flags(&pl, op, (int32_t)op->ev.ret);

			/* A thread shares its process's table from here on,
			 * not from its first op: the process's open and close
			 * of a number before then, and the thread's open of
			 * it after, keep their order (rpl_plan_fds(): shared).
			 * rrdtool's fontconfig thread opened fonts.conf as the
			 * fd 3 its parent had just closed, 300 us after its
			 * start; replayed at once, it took the number while the
			 * parent still held it (a lock EBADF, or calls on the
			 * parent's file left out, with 0 mismatches). */
			if (fl & 0x00010000 /* CLONE_THREAD */)
				p->procs[t->proc].n_unborn++;
			/* a process's table, copied or (CLONE_FILES) shared
			 * from here on: its parent's end must not close
			 * what the child shares (plan_ended()) */
			if (!(fl & 0x00010000 /* CLONE_THREAD */) && p->procs[t->proc].tab) {
				struct rpl_fdtab *c = fl & 0x00000400 /* CLONE_FILES */ ?
						      rpl_fdtab_ref(p->procs[t->proc].tab) :
						      rpl_fdtab_copy(p->procs[t->proc].tab);

				if (!c)
					goto nomem;
				if (pl.n_snap == pl.cap_snap) {
					size_t nc = pl.cap_snap ? pl.cap_snap * 2 : 64;
					struct rpl_fdtab **v = realloc(pl.snap, nc * sizeof(*v));

					if (!v) {
						rpl_fdtab_unref(c);
						goto nomem;
					}
					pl.snap = v;
					pl.cap_snap = nc;
				}
				pl.snap[pl.n_snap] = c;
				if (rpl_map_put(&pl.snap_of, RPL_IK(op->ev.ret), (uint32_t)pl.n_snap++) < 0)
					goto nomem;
			}
		} else if (op->ev.nr == SYS_exit) {
			t->ended = 1;
			if (plan_ended(p, &pl, &p->procs[t->proc], 0) < 0)
				goto nomem;
		} else if (op->ev.nr == SYS_exit_group) {
			t->ended = 1;
			p->procs[t->proc].ended = 1;
			if (!rpl_op_stopped(op))
				p->procs[t->proc].exit_at = op->ev.t_enter;
			if (plan_ended(p, &pl, &p->procs[t->proc], 1) < 0)
				goto nomem;
		} else if (op->ev.nr == SYS_wait4 && op->ev.ret > 0) {
			uint32_t pi, sp;

			if (rpl_map_get(&pl.spawn, RPL_IK(op->ev.ret), &sp) &&
			    rpl_op_child(&p->ops[sp]) < 0) {
				/* Its child has made no call yet: a parent
				 * that waits at once (a shell's subshell that
				 * execs a long build) entered its wait4 before
				 * the child's first call.  Its process is known
				 * once the child's first op is planned. */
				RPL_GROW(early, n_early, cap_early);
				early[n_early].op = (uint32_t)i;
				early[n_early++].spawn = sp;
			} else if (rpl_map_get(&pl.pid2proc, RPL_IK(op->ev.ret), &pi) &&
			    pi != t->proc) {
				rpl_op_set_link(op, RPL_OPF_WAITS, pi);
				poll_sleeps(p, t, pi);
				p->procs[pi].reaped_at = rpl_op_end(op);
			}
		}
	}
	for (j = 0; j < n_early; j++) {
		struct rpl_op *op = &p->ops[early[j].op];
		int32_t ct = rpl_op_child(&p->ops[early[j].spawn]);

		/* a child that never made a call has no process here: its
		 * wait returns at once, as before */
		if (ct >= 0 && p->threads[ct].proc != p->threads[op->thread].proc)
			rpl_op_set_link(op, RPL_OPF_WAITS, p->threads[ct].proc);
	}
	if ((err = reap_times(p, waits, n_waits)) < 0)
		goto out;
	err = rpl_deps_finish(p, deps);
	goto out;
nomem:
	err = -ENOMEM;
out:
	rpl_map_free(&pl.tid2thread);
	rpl_map_free(&pl.pid2proc);
	rpl_map_free(&pl.spawn);
	rpl_map_free(&pl.files);
	rpl_map_free(&pl.forked);
	rpl_map_free(&plinks);
	rpl_map_free(&pl.pipes);
	rpl_map_free(&pl.locked);
	free(pl.lock_keys);
	rpl_map_free(&pl.fifos);
	rpl_map_free(&pl.snap_of);
	rpl_map_free(&pl.gone);
	free(exits);
	free(waits);
	free(early);
	for (i = 0; i < pl.n_snap; i++)
		rpl_fdtab_unref(pl.snap[i]);	/* children that made no call */
	free(pl.snap);
	free(pl.flying);
	free(pl.conns);
	rpl_map_free(&pl.bound);
	rpl_map_free(&pl.backlog);
	free(pl.accf);

	free(pl.wacc);
	free(pl.wmsg);
	rpl_map_free(&pl.sock_into);
	rpl_map_free(&pl.sock_gone);
	/* the processes' tables outlive the counts (plan.c drops them) */
	for (i = 0; i < p->n_procs; i++)
		if (p->procs[i].tab)
			p->procs[i].tab->ends = NULL;
	free(pl.ends.n);
	return err;
}
