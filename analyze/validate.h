/*
 * validate.h - the arithmetic and the table of 'iotape validate': for each
 * phase of a workload (and its total) and each filesystem, the times of
 * the native runs and of the replays, compared by their medians.
 *
 * The engine only computes and writes to the stream it is given; running
 * the workload, recording and benching it is bench/validate_run.c's job,
 * and what the user is told is cmd_validate.c's.
 */
#ifndef ANA_VALIDATE_H
#define ANA_VALIDATE_H

#include <stdint.h>
#include <stdio.h>

#define ANA_VAL_MAX_RUNS 20
#define ANA_VAL_MAX_FS 16
/* values one median, spread or range takes: every filesystem's runs pooled */
#define ANA_VAL_MAX_POOL (ANA_VAL_MAX_FS * ANA_VAL_MAX_RUNS)
#define ANA_VAL_MAX_ROWS 256
/* filesystems are ranked only where their native medians differ by more
 * than this (percent of the smaller): closer than that, the order of two
 * filesystems is noise on a shared machine, and a replay need not keep it */
#define ANA_VAL_RANK_PCT 10.0

/* Exit codes of iotape validate beyond the common ones (iotape(1)); 5 is
 * replay's (the filesystem under test failed). */
#define ANA_VAL_EXIT_MISSED 6	/* a total is off by more than --tolerance */
#define ANA_VAL_EXIT_REFUSED 7	/* COMMAND (or --setup) failed: nothing to compare */

/* The command's read and write calls and bytes (ana_val_add_io()): a
 * native run's as the kernel counts them for its processes (syscr,
 * syscw, rchar, wchar of /proc/PID/io), a recording's its read- and
 * write-family calls. */
enum {
	ANA_VAL_IO_READS,
	ANA_VAL_IO_WRITES,
	ANA_VAL_IO_RBYTES,
	ANA_VAL_IO_WBYTES,
	ANA_VAL_IO_N
};
/* A process start reads its program's and its loader's headers in the
 * kernel: counted natively, no recorded call.  The two counts are not
 * compared closer than this much per recorded exec (measured here: 5 to
 * 7 reads, 2.5 to 4 KiB). */
#define ANA_VAL_IO_EXEC_CALLS 8.0
#define ANA_VAL_IO_EXEC_BYTES 8192.0
/* Differences smaller than these are not judged, whatever their share. */
#define ANA_VAL_IO_MIN_CALLS 64.0
#define ANA_VAL_IO_MIN_BYTES 1048576.0

enum ana_val_rank {
	ANA_VAL_RANK_NA = 0,	/* no two filesystems differ enough natively */
	ANA_VAL_RANK_SAME,	/* the replays order them as the native runs */
	ANA_VAL_RANK_DIFFERS,
};

/* The runs of one row on one filesystem, in seconds; NAN: not measured
 * (a phase the run did not reach). */
struct ana_val_cell {
	double native[ANA_VAL_MAX_RUNS], replay[ANA_VAL_MAX_RUNS];
	int n_native, n_replay;
	/* replays with --timing afap: no think time, no sleeps */
	double afap[ANA_VAL_MAX_RUNS];
	int n_afap;
};

/* ana_val_add()'s @replay */
#define ANA_VAL_NATIVE 0
#define ANA_VAL_REPLAY 1
#define ANA_VAL_AFAP 2

struct ana_val_row {
	char name[64];
	struct ana_val_cell cell[ANA_VAL_MAX_FS];
	/* a phase's read and write calls and bytes, [0] the recordings',
	 * [1 + fs] the native runs' (ana_val_add_row_io()) */
	double io[ANA_VAL_MAX_FS + 1][ANA_VAL_MAX_RUNS][ANA_VAL_IO_N];
	int n_io[ANA_VAL_MAX_FS + 1];
};

/* --recordings N: one recording's own total (its trace's real time) and
 * the totals of its replays on each filesystem, in seconds. */
struct ana_val_rec {
	double total;
	double replay[ANA_VAL_MAX_FS][ANA_VAL_MAX_RUNS];
	int n_replay[ANA_VAL_MAX_FS];
};

struct ana_val {
	char fs[ANA_VAL_MAX_FS][32];
	int n_fs;
	struct ana_val_row *rows;	/* the phases in order, then "total" */
	int n_rows;
	double tolerance;		/* percent, for the totals */
	/* per filesystem, the most any replay had: calls whose result
	 * differed from the recorded one, and calls not replayed */
	uint64_t mismatches[ANA_VAL_MAX_FS], skipped[ANA_VAL_MAX_FS];
	uint64_t skipped_mapped[ANA_VAL_MAX_FS];	/* ... of them mappings, pages replayed */
	/* what the table's notes say; may stay NULL */
	const char *workload, *cache, *record_on, *date;
	int runs;
	int has_afap;			/* an afap replay was added: its column shows */
	struct ana_val_rec *recs;	/* in the order made; shown if more than one */
	int n_recs;
	/* CPU time (user + system) of the command's processes, seconds: [0]
	 * the recordings' (their EXIT records), [1 + fs] the native runs on
	 * fs (their rusage); ana_val_add_cpu() */
	double cpu[ANA_VAL_MAX_FS + 1][ANA_VAL_MAX_RUNS];
	double cpu_user[ANA_VAL_MAX_FS + 1][ANA_VAL_MAX_RUNS];	/* of it, user time */
	int n_cpu[ANA_VAL_MAX_FS + 1];
	/* the recorder's system time is not the program's (ptrace's stops):
	 * ana_val_why() predicts from the user time alone */
	int cpu_user_only;
	/* the command's read and write calls and bytes, [0] the recordings',
	 * [1 + fs] the native runs' on fs (ana_val_add_io()); the
	 * recordings' execs */
	double io[ANA_VAL_MAX_FS + 1][ANA_VAL_MAX_RUNS][ANA_VAL_IO_N];
	int n_io[ANA_VAL_MAX_FS + 1];
	double io_execs[ANA_VAL_MAX_RUNS];
};

/* ana_val_add_cpu()'s @fs for a recording */
#define ANA_VAL_RECORDED (-1)

/* What one cell comes to. */
struct ana_val_stat {
	double native, replay;		/* medians, NAN without a run */
	double native_spread, replay_spread;	/* (max - min) / median */
	double error;			/* (replay - native) / native, percent */
	int apart;			/* the two ranges do not overlap */
	double afap;			/* median of the afap replays, NAN without */
	double afap_error;		/* (afap - native) / native, percent */
	/* the afap replay is more than the tolerance slower than native: no
	 * timing can bring the replay within it (the replayer's own speed) */
	int floor;
};

/*! ana_val_init() : an empty table of the @n_fs filesystems @fs.
 *  @return : 0, or -EINVAL (no filesystem, too many, a name too long). */
int ana_val_init(struct ana_val *v, const char *const *fs, int n_fs, double tolerance);
void ana_val_free(struct ana_val *v);

/*! ana_val_add_row() : append row @name (phases first, "total" last).
 *  @return : its index, or -ENOMEM / -E2BIG. */
int ana_val_add_row(struct ana_val *v, const char *name);

/*! ana_val_add() : one run's @secs for @row on filesystem @fs: @replay
 *  ANA_VAL_NATIVE, ANA_VAL_REPLAY or ANA_VAL_AFAP (a replay with
 *  --timing afap).  @return : 0, or -EINVAL / -E2BIG. */
int ana_val_add(struct ana_val *v, int row, int fs, int replay, double secs);

/*! ana_val_add_counts() : one replay's @mismatches and @skipped calls on
 *  filesystem @fs, @mapped of those mappings whose pages were replayed
 *  (the table keeps the most of its runs, and that run's @mapped).
 *  @return : 0 or -EINVAL. */
int ana_val_add_counts(struct ana_val *v, int fs, uint64_t mismatches, uint64_t skipped,
		       uint64_t mapped);

/*! ana_val_add_rec() : a recording whose trace took @total seconds.
 *  @return : its index, or -ENOMEM / -E2BIG (more than ANA_VAL_MAX_RUNS). */
int ana_val_add_rec(struct ana_val *v, double total);

/*! ana_val_add_cpu() : the CPU time @secs (user + system, seconds), @user
 *  of it user time, the command's processes used in a native run on
 *  filesystem @fs, or in a recording (@fs ANA_VAL_RECORDED); NAN
 *  (unknown) is left out.  @return : 0, or -EINVAL / -E2BIG. */
int ana_val_add_cpu(struct ana_val *v, int fs, double secs, double user);

/*! ana_val_add_io() (validate_io.c) : the read and write calls and bytes
 *  @io (ANA_VAL_IO_*) of the command's processes in a native run on
 *  filesystem @fs, or in a recording (@fs ANA_VAL_RECORDED) that made
 *  @execs execs; a run with a NAN is left out.
 *  @return : 0, or -EINVAL / -E2BIG. */
int ana_val_add_io(struct ana_val *v, int fs, const double *io, double execs);

/* How a recording's I/O compares with the native runs' (ana_val_io()). */
struct ana_val_io {
	int known;			/* both sides counted */
	double rec[ANA_VAL_IO_N];	/* the recordings' medians */
	double nat[ANA_VAL_IO_N];	/* the native runs' medians (every fs) */
	double lo[ANA_VAL_IO_N], hi[ANA_VAL_IO_N];	/* ... their range */
	double excess[ANA_VAL_IO_N];	/* (rec - nat) / nat, percent */
	double spread[ANA_VAL_IO_N];	/* (hi - lo) / nat, percent */
	/* the recording lies outside the native runs' range by more than
	 * the exec allowance and the tolerance: it did other work */
	int apart[ANA_VAL_IO_N];
	/* the native runs spread more than the tolerance among themselves */
	int varies[ANA_VAL_IO_N];
	/* the native runs of two filesystems are apart by more than the
	 * tolerance (cp clones a file on one and copies it on another): the
	 * recording is compared with the runs on its own filesystem alone
	 * (rec_fs, -1 if not in the table: not compared), and the medians
	 * per filesystem are in fs_nat */
	int dep[ANA_VAL_IO_N];
	int rec_fs;
	double fs_nat[ANA_VAL_MAX_FS][ANA_VAL_IO_N];
	int n_native;
};

/* the measures' names in JSON: "reads", "writes", "bytes_read",
 * "bytes_written" */
extern const char *const ana_val_io_key[ANA_VAL_IO_N];

/*! ana_val_add_row_io() : the same of phase @row (not the total, which
 *  ana_val_add_io() gives): what the run read and wrote from its start
 *  to the next mark.  @return : 0, or -EINVAL / -E2BIG. */
int ana_val_add_row_io(struct ana_val *v, int row, int fs, const double *io);

/*! ana_val_io() : the recordings' reads and writes against the native
 *  runs', with v->tolerance: of the totals (@row -1, or the total row)
 *  or of phase @row. */
void ana_val_io(const struct ana_val *v, int row, struct ana_val_io *io);
/*! ana_val_io_text() / ana_val_io_json() : the lines under the table (of
 *  the totals, then of each phase whose reads or writes differ: @html,
 *  names escaped), the "io" member of its JSON object; nothing where
 *  either side is unknown. */
void ana_val_io_text(FILE *f, const struct ana_val *v, int html);
void ana_val_io_json(FILE *f, const struct ana_val *v);

/*! ana_val_add_rec_replay() : a replay of recording @rec on filesystem
 *  @fs that took @secs.  @return : 0, or -EINVAL / -E2BIG. */
int ana_val_add_rec_replay(struct ana_val *v, int rec, int fs, double secs);

/*! ana_val_median() : median of the @n values of @x, NANs left out
 *  (the first ANA_VAL_MAX_POOL numbers of them).
 *  @return : NAN if none is left. */
double ana_val_median(const double *x, int n);

/*! ana_val_spread() : (max - min) / median of @x (NANs left out), a
 *  fraction.  @return : 0 for one value, NAN if none or the median is 0. */
double ana_val_spread(const double *x, int n);

/*! ana_val_apart() : whether the ranges [min, max] of @a and @b do not
 *  overlap.  A single run has no range, so it takes two runs each.
 *  @return : 1 or 0. */
int ana_val_apart(const double *a, int na, const double *b, int nb);

/*! ana_val_cell_stat() : medians, spreads, error and '*' of a cell. */
void ana_val_cell_stat(const struct ana_val *v, int row, int fs, struct ana_val_stat *s);

/*! ana_val_rank() : whether the replays rank the filesystems as the
 *  native runs do in @row, over the pairs whose native medians differ by
 *  more than ANA_VAL_RANK_PCT.  @agree and @pairs (may be NULL) get the
 *  count of agreeing pairs and of pairs compared.
 *  @return : ANA_VAL_RANK_*. */
int ana_val_rank(const struct ana_val *v, int row, int *agree, int *pairs);

/*! ana_val_verdict() : the totals within the tolerance.  @within and
 *  @total (may be NULL) get the counts.
 *  @return : 0 if every total is within, else ANA_VAL_EXIT_MISSED. */
int ana_val_verdict(const struct ana_val *v, int *within, int *total);

/*! ana_val_text() / ana_val_json() / ana_val_html() : the table, as text
 *  in the layout of 'make validate', as one JSON object, or as a
 *  self-contained HTML page. */
void ana_val_text(FILE *f, const struct ana_val *v);
void ana_val_json(FILE *f, const struct ana_val *v);
void ana_val_html(FILE *f, const struct ana_val *v);

/*! ana_val_recs_text() / ana_val_recs_json() (validate_recs.c) : with
 *  more than one recording, the recordings' own totals and their replays'
 *  medians per filesystem, and their spreads: as lines under the table,
 *  or as members of the table's JSON object (",\"recordings\":..."). */
void ana_val_recs_text(FILE *f, const struct ana_val *v);
void ana_val_recs_json(FILE *f, const struct ana_val *v);
/*! ana_val_cpu_text() / ana_val_cpu_json() (validate_recs.c) : the CPU
 *  time the recordings and the native runs used, and how far apart, where
 *  both are known (nothing otherwise). */
void ana_val_cpu_text(FILE *f, const struct ana_val *v);
void ana_val_cpu_json(FILE *f, const struct ana_val *v);

/*! ana_val_cpu_excess() (validate_recs.c) : (recorded - native) / native
 *  CPU time in percent over the medians of the recordings and of every
 *  native run (@user: of their user time), NAN where either is unknown. */
double ana_val_cpu_excess(const struct ana_val *v, int user);

/*! ana_val_recs_spread() (validate_recs.c) : with two recordings or more,
 *  (max - min) / median of their replays' medians on @fs (a fraction), NAN
 *  otherwise. */
double ana_val_recs_spread(const struct ana_val *v, int fs);

/* What accounts for a total that misses (ana_val_why()), each a bit; none
 * set: none of these measures does. */
#define ANA_VAL_WHY_FLOOR	1	/* slow, and the afap replay too: the replayer's speed */
#define ANA_VAL_WHY_RECORDING	2	/* the recording's CPU time predicts the error */
#define ANA_VAL_WHY_NOISE	4	/* the replays' median is inside the native runs' range */
#define ANA_VAL_WHY_RECORDINGS	8	/* the recordings' replays differ by as much */
#define ANA_VAL_WHY_WORK	16	/* the recording read or wrote other than the
					 * native runs, the way of the miss */
#define ANA_VAL_WHY_VARIES	32	/* the native runs' reads or writes differ
					 * among themselves by as much as the miss */

struct ana_val_why {
	int miss;			/* the total is off by more than the tolerance */
	int causes;			/* ANA_VAL_WHY_* (of a miss) */
	/* (replay - afap) / replay: the share of the replay its timing adds
	 * (think time and sleeps), NAN without an afap replay */
	double timing;
	/* percent: the error the recording's CPU time predicts, from its user
	 * time and from its user + system time against the native runs' (the
	 * timing's share grown or shrunk by as much), lowest and highest; NAN
	 * where not known */
	double pred_lo, pred_hi;
	/* the phase (row) holding most of the total's difference, -1 where
	 * the table has one phase or none goes the total's way; replay less
	 * native medians, seconds */
	int phase;
	double phase_secs, total_secs;
	/* what it was judged on: the total's cell, the recording's CPU
	 * excess over the native runs (ana_val_cpu_excess(), all and user,
	 * percent) and the recordings' spread (ana_val_recs_spread()) */
	struct ana_val_stat stat;
	double cpu_excess, user_excess, recs_spread;
	/* ANA_VAL_WHY_WORK: the measure (ANA_VAL_IO_*) most apart;
	 * ANA_VAL_WHY_VARIES alone: the one that varies most; -1 none;
	 * io_row: of the totals (-1), or of the phase (w->phase) */
	int io_kind, io_row;
	struct ana_val_io io;
};

/*! ana_val_why() : what accounts for the total of filesystem @fs (of a
 *  miss: the replayer's speed, the recording's CPU time, the native runs'
 *  noise) and which phase holds most of it (validate_why.c). */
void ana_val_why(const struct ana_val *v, int fs, struct ana_val_why *w);
/*! ana_val_why_text() / ana_val_why_json() : a line per total that misses
 *  (@html: names escaped), nothing if none does; the "why" member of the
 *  table's JSON object, every filesystem's. */
void ana_val_why_text(FILE *f, const struct ana_val *v, int html);
void ana_val_why_json(FILE *f, const struct ana_val *v);

/* Shared by the writers: @x in @w columns with @prec decimals (a sign if
 * @sign), "-" if NAN; @x as a JSON number, null if NAN or infinite. */
void ana_val_num(FILE *f, int w, int prec, int sign, double x);
void ana_val_json_num(FILE *f, double x);
/*! ana_val_json_runs() : @x[@n] as a JSON array of numbers (NAN: null). */
void ana_val_json_runs(FILE *f, const double *x, int n);

#endif
