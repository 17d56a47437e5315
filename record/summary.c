/*
 * summary.c - what iotape record says when the recording ends: the
 * summary line, how it ended if a signal ended it, and what the trace
 * holds when it could not be written to the end.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "engine.h"
#include "aio_int.h"

#define CMD "record"

static void aio_summary(const struct rec_ctx *c);

/* 32-bit programs run: what they did is not in the trace (also with -q) */
static void compat_summary(const struct rec_ctx *c)
{
	if (c->st.compat_procs)
		iot_msg(IOT_MSG_WARNING, CMD, "%llu execs of 32-bit programs (the first %s): "
			"their calls are not recorded (the recorder decodes x86_64's calls "
			"only)", (unsigned long long)c->st.compat_procs, c->st.compat_first);
}

void rec_summary(const struct rec_ctx *c, uint64_t bytes)
{
	char b1[256], b2[32], b3[80], b4[64], n1[32];
	double secs = (double)(c->st.t_end - c->st.t_start) / 1e9;
	uint64_t v = c->st.events;
	int len, i, o = 0;

	/* 12,345 */
	len = snprintf(b1, sizeof(b1), "%llu", (unsigned long long)v);
	for (i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			n1[o++] = ',';
		n1[o++] = b1[i];
	}
	n1[o] = 0;
	if (c->fast && c->bpf)
		snprintf(b1, sizeof(b1), " (%.1f%% in-process, the rest by BPF; %llu stops "
			 "before calls that change names, %.3f s held; %.3f s asleep on a disk "
			 "between calls; %.3f s in %llu runs of the programs between calls: "
			 "page faults, slow ring writes)",
			 v ? 100.0 * (double)c->st.fast_events / (double)v : 0.0,
			 (unsigned long long)c->st.guard_stops, (double)c->st.guard_held_ns / 1e9,
			 (double)c->st.bpf_slept_ns / 1e9, (double)c->st.bpf_rec_ns / 1e9,
			 (unsigned long long)c->st.bpf_rec_runs);
	else if (c->fast)
		snprintf(b1, sizeof(b1), " (%.1f%% in-process, %llu ptrace stops)",
			 v ? 100.0 * (double)c->st.fast_events / (double)v : 0.0,
			 (unsigned long long)c->st.stops);
	else if (c->bpf)
		snprintf(b1, sizeof(b1), " (by BPF; %llu stops before calls that change names, "
			 "%.3f s held; %.3f s asleep on a disk between calls; %.3f s in %llu "
			 "runs of the programs between calls: page faults, slow ring writes)",
			 (unsigned long long)c->st.guard_stops, (double)c->st.guard_held_ns / 1e9,
			 (double)c->st.bpf_slept_ns / 1e9, (double)c->st.bpf_rec_ns / 1e9,
			 (unsigned long long)c->st.bpf_rec_runs);
	else
		b1[0] = 0;
	/* auto: did it stay on one CPU (cheap stops) or spread? */
	b3[0] = 0;
	if (c->o->cpu_policy == REC_CPU_AUTO && c->st.spread_ns)
		snprintf(b3, sizeof(b3), ", CPUs spread at %.3f s (programs ran side by side)",
			 (double)(c->st.spread_ns - c->st.t_start) / 1e9);
	else if (c->o->cpu_policy == REC_CPU_AUTO && c->pinned_cpu >= 0)
		snprintf(b3, sizeof(b3), ", one CPU");
	b4[0] = 0;
	if (c->st.listed)
		snprintf(b4, sizeof(b4), ", %llu unnamed entries of listed directories",
			 (unsigned long long)c->st.listed);
	iot_msg(IOT_MSG_INFO, CMD, "%s events%s, %llu processes, %.3f s%s%s, %s written to %s, "
		"%llu dropped", n1, b1, (unsigned long long)c->st.processes, secs, b3, b4,
		iot_fmt_bytes(b2, sizeof(b2), (double)bytes), c->o->out,
		(unsigned long long)c->st.dropped);
	b3[0] = 0;
	if (c->st.aio_data)
		snprintf(b3, sizeof(b3), " and %llu async write requests",
			 (unsigned long long)c->st.aio_data);
	if (c->o->data_max && !c->st.nodata_calls)
		iot_msg(IOT_MSG_INFO, CMD, "data: %s kept of %llu writes%s%s",
			iot_fmt_bytes(b2, sizeof(b2), (double)c->st.data_bytes),
			(unsigned long long)c->st.data_calls, b3,
			c->st.aio_nodata || c->st.mp_written ? "" : ", every write's bytes");
	else if (c->o->data_max)
		iot_msg(IOT_MSG_WARNING, CMD, "data: %s kept of %llu writes%s; %llu writes' bytes "
			"not kept (%s): asked to write more than --data=%llu, past --data-total "
			"%llu, or logged by BPF; a replay writes its own pattern for them",
			iot_fmt_bytes(b2, sizeof(b2), (double)c->st.data_bytes),
			(unsigned long long)c->st.data_calls, b3, (unsigned long long)c->st.nodata_calls,
			iot_fmt_bytes(b4, sizeof(b4), (double)c->st.nodata_bytes),
			(unsigned long long)c->o->data_max, (unsigned long long)c->o->data_total);
	/* --data keeps no bytes of mapped pages, nor of requests logged by
	 * BPF or over its caps: said, not left for "every write" to hide */
	if (c->o->data_max && (c->st.aio_nodata || c->st.mp_written))
		iot_msg(IOT_MSG_WARNING, CMD, "data: not kept: the bytes of %llu async write "
			"requests (%s: logged by BPF, more than --data=%llu, or past --data-total) "
			"and of %llu pages written through file mappings (--data keeps none of "
			"those); a replay writes its own pattern for them",
			(unsigned long long)c->st.aio_nodata,
			iot_fmt_bytes(b2, sizeof(b2), (double)c->st.aio_nodata_bytes),
			(unsigned long long)c->o->data_max, (unsigned long long)c->st.mp_written);
	if (c->st.listed_early)
		iot_msg(IOT_MSG_INFO, CMD, "the entries of the directories listed were taken "
			"%llu times before the end: their paths held a quarter of --path-set-mb",
			(unsigned long long)c->st.listed_early);
	if (c->seen.forgot)
		iot_msg(c->seen.again ? IOT_MSG_WARNING : IOT_MSG_INFO, CMD,
			"the set of paths met was full (%s, %llu paths "
			"kept): it forgot %llu paths not met for longest; %llu states were taken "
			"again of paths named after that, or of new paths its filter of forgotten "
			"ones took for such (flagged 'again'; replay uses a path's first state); a "
			"larger --path-set-mb avoids the repeats",
			iot_fmt_bytes(b2, sizeof(b2), (double)c->o->path_set_bytes),
			(unsigned long long)c->seen.n, (unsigned long long)c->seen.forgot,
			(unsigned long long)c->seen.again);
	if (c->st.bpf_reread)
		iot_msg(IOT_MSG_INFO, CMD, "%llu path strings were not in memory when their "
			"call began and were read when it returned",
			(unsigned long long)c->st.bpf_reread);
	if (c->st.xattrs_late)
		iot_msg(IOT_MSG_WARNING, CMD, "%llu extended attributes set through a descriptor (fsetxattr) "
			"on files whose starting state was taken after the program had changed "
			"them: the starting tree may have the value it set, not the one before",
			(unsigned long long)c->st.xattrs_late);
	if (c->st.bpf_unseen_in)
		iot_msg(IOT_MSG_INFO, CMD, "%llu times a call's task was back on a CPU with no "
			"switch traced by the kernel: its time on a CPU since it was switched out "
			"is the scheduler's count (up to a tick short)",
			(unsigned long long)c->st.bpf_unseen_in);
	if (c->st.bpf_lost)
		iot_msg(IOT_MSG_WARNING, CMD, "%llu of the dropped events were lost in the BPF "
			"ring buffer (full); a larger --bpf-ring-mb keeps them",
			(unsigned long long)c->st.bpf_lost);
	compat_summary(c);
	/* the preloaded library's path is outside a chroot: ld.so says so
	 * at each start there, and those programs stop at every call */
	if (c->st.chroots && c->fast && !c->bpf)
		iot_msg(IOT_MSG_INFO, CMD, "chroot() made a new root %llu times: programs started "
			"under one cannot load the fast path's library (ld.so said so, once a "
			"start), and their calls were recorded at ptrace stops; --backend bpf "
			"preloads nothing", (unsigned long long)c->st.chroots);
	/* names are the program's, and so are the states: taken in its
	 * mount namespace (mount_ns.c; under ptrace's fast path, the
	 * program's own lstat before the call); the replay runs in the
	 * replayer's mounts */
	if (c->st.mounts)
		iot_msg(IOT_MSG_WARNING, CMD, "the workload changed its mounts %llu times "
			"(mount, umount2, pivot_root): paths are recorded as it saw them, and "
			"their starting states too, but the replay makes no mount: calls on "
			"files under those mount points may give other results when replayed",
			(unsigned long long)c->st.mounts);
	if (c->st.mounts && rec_ns_gone())
		iot_msg(IOT_MSG_WARNING, CMD, "%llu processes ended before the recorder "
			"knew their mount namespace: the starting states of the paths they "
			"named were taken as the recorder sees them, not through their mounts",
			(unsigned long long)rec_ns_gone());
	if (rec_fuse_made())
		iot_msg(IOT_MSG_WARNING, CMD, "the workload mounted %d FUSE filesystems: no "
			"starting state was taken under them (a look there waits for their "
			"daemon, which the recorder follows), so the replay starts without "
			"those files", rec_fuse_made());
	if (c->bpf_why)
		iot_msg(IOT_MSG_INFO, CMD, "recorded with ptrace: the bpf backend did "
			"not load (%s)", c->bpf_why);
	else if (c->o->ptrace_opt && strcmp(c->o->ptrace_opt, "-p") == 0)
		iot_msg(IOT_MSG_INFO, CMD, "recorded with ptrace: the bpf backend does not "
			"attach to a running process (-p)");
	else if (c->o->ptrace_opt)
		iot_msg(IOT_MSG_INFO, CMD, "recorded with ptrace: %s is an option of the "
			"ptrace backend only (--backend bpf records without it)",
			c->o->ptrace_opt);
	aio_summary(c);
}

/* Async and mapped I/O: what was captured, and every kind of it that was
 * seen but not captured, with counts (nothing is lost silently). */
/* the names of the io_uring opcodes of @mask into @ops */
static void ops_list(char *ops, size_t size, uint64_t mask)
{
	size_t o = 0;
	unsigned op;

	ops[0] = 0;
	for (op = 0; op < 64 && o < size - 32; op++)
		if (mask & (1ULL << op)) {
			const char *n = iot_aio_op_name(IOT_AIO_URING, op);

			o += (size_t)snprintf(ops + o, size - o, " %s", n ? n : "?");
		}
}

static void aio_summary(const struct rec_ctx *c)
{
	const struct rec_stats *st = &c->st;
	char r[32], w[32], ops[512];

	if (st->stop_slept)
		iot_msg(IOT_MSG_INFO, CMD, "%.3f s asleep between stopped calls, in %llu gaps "
			"with a page-in (slept again by the replay)",
			(double)st->stop_slept_ns / 1e9, (unsigned long long)st->stop_slept);
	if (st->file_maps)
		iot_msg(IOT_MSG_INFO, CMD, "%llu file mappings: %llu pages read and %llu "
			"written through them (%s at munmap, msync and exit)%s",
			(unsigned long long)st->file_maps,
			(unsigned long long)st->mp_read, (unsigned long long)st->mp_written,
			c->bpf ? "the BPF programs' page faults and dirtied pages" :
			"page table and page cache",
			st->fmap_untaken ? "" : "; every mapping taken");
	if (st->mp_shmem)
		iot_msg(IOT_MSG_INFO, CMD, "%llu of the pages written through mappings are of tmpfs "
			"files, whose pages stay dirty whether written or read, and whose stores "
			"after a read fault make no fault: every page of such a mapping that was "
			"touched counts as written, once", (unsigned long long)st->mp_shmem);
	if (st->fmap_untaken && c->bpf)
		iot_msg(IOT_MSG_INFO, CMD, "%llu file mappings whose pages were not taken: the "
			"BPF programs did not follow them (their table of mapped files was full); "
			"their page I/O is not in the trace (--backend ptrace takes it)",
			(unsigned long long)st->fmap_untaken);
	else if (st->fmap_untaken)
		iot_msg(IOT_MSG_INFO, CMD, "%llu file mappings whose pages could not be read "
			"(/proc/PID/pagemap unreadable): their page I/O is not in the trace",
			(unsigned long long)st->fmap_untaken);
	if (st->fmap_untied)
		iot_msg(IOT_MSG_INFO, CMD, "%llu file mappings of descriptors the trace has "
			"no file for (a memfd, or a file opened before the recording and since "
			"unlinked): their page I/O is not in the trace",
			(unsigned long long)st->fmap_untied);
	if (!st->aio_submit && !st->aio_complete && !st->uring_sqpoll && !st->uring_unknown)
		return;
	iot_msg(IOT_MSG_INFO, CMD, "async I/O: %llu requests (%s to read, %s to write), "
		"%llu completions", (unsigned long long)st->aio_submit,
		iot_fmt_bytes(r, sizeof(r), (double)st->aio_rbytes),
		iot_fmt_bytes(w, sizeof(w), (double)st->aio_wbytes),
		(unsigned long long)st->aio_complete);
	if (st->aio_undecoded) {
		ops_list(ops, sizeof(ops), st->aio_undecoded_ops);
		iot_msg(IOT_MSG_INFO, CMD, "async I/O: %llu requests of opcodes recorded but "
			"not decoded (not replayed):%s", (unsigned long long)st->aio_undecoded, ops);
	}
	if (st->uring_bpf_undecoded) {
		ops_list(ops, sizeof(ops), st->uring_bpf_undecoded_ops);
		iot_msg(IOT_MSG_INFO, CMD, "async I/O: %llu io_uring requests whose command the "
			"bpf backend does not read (their paths; --backend ptrace does), written "
			"without it:%s", (unsigned long long)st->uring_bpf_undecoded, ops);
	}
	if (st->uring_sqpoll && c->bpf)
		iot_msg(IOT_MSG_INFO, CMD, "async I/O: %llu io_uring rings poll their "
			"submission queue in the kernel (SQPOLL): their requests, taken by the "
			"kernel's thread, are in the trace, each after the next call of its "
			"process", (unsigned long long)st->uring_sqpoll);
	else if (st->uring_sqpoll)
		iot_msg(IOT_MSG_INFO, CMD, "async I/O: %llu io_uring rings poll their "
			"submission queue in the kernel (SQPOLL): their requests and "
			"completions need no syscall and are not captured; %llu requests "
			"taken by the kernel are missing from the trace (read from the "
			"ring's head when it went)", (unsigned long long)st->uring_sqpoll,
			(unsigned long long)st->uring_missed);
	else if (st->uring_missed)
		iot_msg(IOT_MSG_INFO, CMD, "async I/O: %llu io_uring requests taken by the "
			"kernel are missing from the trace", (unsigned long long)st->uring_missed);
	if (st->uring_unknown)
		iot_msg(IOT_MSG_INFO, CMD, "async I/O: %llu io_uring_enter calls "
			"on rings the recorder could not find (a ring registered or "
			"mapped before the recording): their requests are not in the trace",
			(unsigned long long)st->uring_unknown);
	if (st->aio_missed)
		iot_msg(IOT_MSG_WARNING, CMD, "async I/O: %llu libaio requests io_submit took are "
			"not in the trace: their iocbs could not be read (past %d in one call, or "
			"not in memory)", (unsigned long long)st->aio_missed, MAX_BATCH);
	if (st->aio_orphan || st->aio_lost || st->aio_unreaped)
		iot_msg(IOT_MSG_INFO, CMD, "async I/O: %llu completions of no "
			"request seen, %llu completions that could not be read, %llu "
			"requests never seen complete",
			(unsigned long long)st->aio_orphan, (unsigned long long)st->aio_lost,
			(unsigned long long)st->aio_unreaped);
}

/* With -q, no summary; but events lost are said all the same: the
 * trace counts them, and a quiet recording that lost events in a full
 * BPF ring said nothing (a sanitizer build's recording of 66,102 writes
 * from three threads held 62,434 and the recorder exited 0). */
void rec_summary_quiet(const struct rec_ctx *c)
{
	char b[128];

	compat_summary(c);
	if (!c->st.dropped)
		return;
	b[0] = 0;
	if (c->st.bpf_lost)
		snprintf(b, sizeof(b), ", %llu of them lost in the BPF ring buffer (full; a "
			 "larger --bpf-ring-mb keeps them)", (unsigned long long)c->st.bpf_lost);
	iot_msg(IOT_MSG_WARNING, CMD, "%s: %llu events dropped%s; the trace counts them "
		"('iotape check')", c->o->out, (unsigned long long)c->st.dropped, b);
}

/* How the recording ended, when not by the program's own exit: the exit
 * status says it too, but only to a script. */
void rec_summary_end(const struct rec_ctx *c, int sig)
{
	double secs = (double)(c->st.t_end - c->st.t_start) / 1e9;
	int st = c->st.root_status;
	char by[32], killed[32];

	if (sig)
		iot_format_arg(by, sizeof(by), IOT_ARG_SIGNAL, sig);
	if (c->o->attach_pid) {
		if (sig)
			iot_msg(IOT_MSG_INFO, CMD, "detached from %d on %s after "
				"%.3f s; it runs on, and the trace holds every event up "
				"to then", (int)c->o->attach_pid, by, secs);
		return;
	}
	if (!WIFSIGNALED(st)) {
		if (sig)
			iot_msg(IOT_MSG_INFO, CMD, "recording interrupted by %s "
				"after %.3f s; the program exited with %d and the trace "
				"holds every event", by, secs, WEXITSTATUS(st));
		return;
	}
	iot_format_arg(killed, sizeof(killed), IOT_ARG_SIGNAL, WTERMSIG(st));
	if (sig == WTERMSIG(st))
		iot_msg(IOT_MSG_INFO, CMD, "recording interrupted by %s after "
			"%.3f s; the program was killed by it and the trace holds "
			"every event up to then", by, secs);
	else
		iot_msg(IOT_MSG_INFO, CMD, "the program was killed by %s after "
			"%.3f s; the trace holds every event up to then", killed, secs);
}

/* The trace could not be written to the end: say what the file holds,
 * read back from it. */
void rec_write_failed(const struct rec_ctx *c, const char *path, int err)
{
	const struct iot_summary *s;
	struct iot_reader *r = NULL;
	unsigned long long seen = c->st.events + c->st.dropped;

	if (iot_reader_open(&r, path) < 0) {
		iot_err(CMD, "%s: %s; nothing readable was written; record again "
			"with -o on a filesystem with space", path, iot_strerror(err));
		return;
	}
	s = iot_reader_summary(r);
	if (s->has_index && !s->index_damaged && !s->damage)
		/* the index was written: only the final fsync failed */
		iot_err(CMD, "%s: %s after the whole trace was written (%llu events, "
			"with its index); it may not all be on disk: 'iotape check "
			"%s' reads it back", path, iot_strerror(err),
			(unsigned long long)s->events, path);
	else if (!s->events)
		iot_err(CMD, "%s: %s; the trace is incomplete: it holds none of the "
			"%llu events recorded; record again with -o on a filesystem "
			"with space", path, iot_strerror(err), seen);
	else
		iot_err(CMD, "%s: %s; the trace is incomplete: it holds %llu of the "
			"%llu events recorded (up to %.3f s) and no index; 'iotape "
			"check --repair %s' keeps them (it writes a copy: free some "
			"space first, or add -o OUT on another filesystem)",
			path, iot_strerror(err), (unsigned long long)s->events, seen,
			(double)(s->good_t_max - c->st.t_start) / 1e9, path);
	iot_reader_close(r);
}
