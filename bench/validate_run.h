/*
 * validate_run.h - the runs of 'iotape validate': record a command once
 * on a fresh filesystem, run it natively on fresh filesystems and bench
 * its trace on others, and read back what each run took per phase.
 */
#ifndef RPL_VALIDATE_RUN_H
#define RPL_VALIDATE_RUN_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "../analyze/validate.h"
#include "bench.h"

#define VAL_MAX_PHASES 250

struct val_opts {
	char **cmd;			/* COMMAND and its arguments */
	const char *record_on;		/* configuration to record on */
	const char *backend;		/* iotape record --backend, or NULL */
	const char *setup;		/* --setup CMD, or NULL */
	const char *scratch;		/* images and mount points */
	const char *outdir;		/* trace, profiles, phase logs */
	uint64_t image_size;		/* of every filesystem but the recording's */
	uint64_t record_size;		/* of the recording's */
	int cold;			/* drop caches before each run */
	int quiet;
};

/* One run: its phases (start marks) and total, in seconds from its start. */
struct val_times {
	double total;
	int n;
	char name[VAL_MAX_PHASES][64];
	double start[VAL_MAX_PHASES];	/* phase i lasts to start[i+1], or total */
	int status;			/* the command's: 0, its exit code, or 128+signal */
	/* CPU time (user + system, s) of the command's processes: a native
	 * run's rusage (it and the children it waited for), a trace's EXIT
	 * records; NAN: unknown */
	double cpu, cpu_user;
	int bpf;			/* a trace recorded by the bpf backend: its
					 * system time is the program's own */
	uint64_t mismatches, skipped;	/* replays: what the profile's header says */
	uint64_t skipped_mmap;		/* ... of the skipped, mappings (pages replayed) */
	/* the command's read and write calls and bytes (ANA_VAL_IO_*): a
	 * native run's from /proc/self/io, less its phase marks' lines; a
	 * trace's read- and write-family calls; NAN: not counted */
	double io[ANA_VAL_IO_N];
	double execs;			/* a trace's execs that succeeded */
	/* the same at each phase mark, from the run's start: a native run's
	 * first process's (its own, its reaped children's), a trace's calls
	 * that began before the mark; [i][0] NAN: not counted */
	double mark_io[VAL_MAX_PHASES][ANA_VAL_IO_N];
};

/*! val_signals() : catch SIGINT, SIGTERM and SIGHUP: the run in progress
 *  gets the signal, and val_stopped() says which came. */
void val_signals(void);
int val_stopped(void);

/*! val_workdir() : where the workload runs, as the trace records it: the
 *  directory "work" on the recording's filesystem, @l->mnt of the
 *  configuration @record_on.  Native runs use it under their own mount
 *  point, as the replay does under its root: the same depth of paths. */
void val_workdir(const struct bench_live *l, const char *record_on, char *dir, size_t len);

/*! val_record() : make the @record_on filesystem, run --setup, record
 *  COMMAND into @trace with its working directory @workdir, measure the
 *  bytes the filesystem then holds (*@used), and take it all down.
 *  @return : 0 (t->status holds COMMAND's status, which may be non-zero),
 *  -ECANCELED (--setup failed), or -errno (said why). */
int val_record(const struct val_opts *o, struct bench_live *l, const char *trace,
	       const char *workdir, uint64_t *used, struct val_times *t);

/*! val_native() : one native run of COMMAND on a fresh @fs filesystem
 *  (--setup first, untimed), its phase marks read from @log (a FIFO made
 *  there for the run, which the command is given as $IOTAPE_PHASE_LOG;
 *  left a file of "NAME SECONDS" lines).  @return : 0 (t->status holds
 *  COMMAND's status), -ECANCELED (--setup failed) or -errno (said why). */
int val_native(const struct val_opts *o, struct bench_live *l, const struct bench_config *c,
	       const char *workdir, const char *log, struct val_times *t);

/*! val_proc_io() : the read and write calls and bytes (ANA_VAL_IO_*) of
 *  process @pid (0: this one) and of the children it reaped, from
 *  /proc/PID/io.  @return : 0, or -1 (gone, or not counted). */
int val_proc_io(pid_t pid, double io[ANA_VAL_IO_N]);
/*! val_tree_io() : the same of @pid and all its live descendants, each
 *  with the children it reaped: what the command's processes read and
 *  wrote so far (but for processes it left, which come to this one).
 *  @return : 0, or -1 (@pid gone, or not counted). */
int val_tree_io(pid_t pid, double io[ANA_VAL_IO_N]);
/*! val_running() : the first process of the command running now, or 0. */
pid_t val_running(void);

/* CLOCK_REALTIME in seconds: a run's start and end, its marks' times. */
double val_real_now(void);

/* ---- a native run's phase marks (validate_marks.c) ---- */
struct val_marks;
/*! val_marks_open() : make a FIFO at @path and read it on a thread that
 *  stamps each line "NAME" (or "NAME SECONDS", whose time is kept) as it
 *  comes, into @t's marks (t->n, t->name, t->start, which nothing else
 *  may touch until val_marks_close()).  @return : 0 or -errno. */
int val_marks_open(struct val_marks **m, const char *path, struct val_times *t);
/*! val_marks_close() : stop reading; the marks' times made relative to
 *  @t0 (val_real_now()); the FIFO replaced by a file of "NAME SECONDS"
 *  lines; @m freed. */
void val_marks_close(struct val_marks *m, double t0);

/*! val_replay() : 'iotape bench TRACE --fs @fs' into @profdir, one run,
 *  with --timing @timing (NULL: the recorded timing).
 *  @return : bench's exit status, or -errno (said why). */
int val_replay(const struct val_opts *o, const char *fs, const char *trace,
	       const char *profdir, const char *timing);

/*! val_replay_times() : the phases of the profile val_replay() left in
 *  @profdir into @t.  @return : 0 or -errno (said why). */
int val_replay_times(const char *fs, const char *profdir, struct val_times *t);

/*! val_trace_cwd() : the working directory @path was recorded in.
 *  @return : 0 or the reader's code. */
int val_trace_cwd(const char *path, char *dir, size_t len);

/*! val_trace_times() : the phases and the real time of a trace or
 *  profile @path, from its phase marks; with @io, its reads and writes
 *  too (t->io, t->mark_io: one more pass over its events; else NAN).
 *  @return : 0 or -errno. */
int val_trace_times(const char *path, struct val_times *t, int io);

#endif
