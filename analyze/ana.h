/*
 * ana.h - the analyzer's internal interface: latency histograms, the
 * per-trace summary that report, diff, export and the HTML page share,
 * and the small output helpers (JSON strings, CSV fields, units).
 *
 * A trace is read in two streaming passes (see load.c), so memory grows
 * with the number of distinct keys (syscalls, commands, pids, phases),
 * never with the number of events.
 */
#ifndef ANA_H
#define ANA_H

#include <stdlib.h>

#include <stdint.h>
#include <stdio.h>

#include "iotape.h"

/* ---- log-linear latency histogram (hist.c) ---- */

/* Values below 2^ANA_HIST_LINEAR_BITS ns are counted exactly; above, each
 * power of two is cut into 2^ANA_HIST_SUB_BITS buckets, so a bucket is at
 * most 1/128 of its value wide: quantiles are within 0.4% (bucket middle). */
#define ANA_HIST_SUB_BITS 7
#define ANA_HIST_LINEAR_BITS 8

struct ana_hist {
	uint32_t *b;		/* counts, grown on demand to the top bucket */
	uint32_t nb;
	uint64_t n;
	int64_t min, max;
	double sum;
};

void ana_hist_add(struct ana_hist *h, int64_t v);

/*! ana_hist_bucket() : @return : the bucket of value @v. */
static inline uint32_t ana_hist_bucket(int64_t v)
{
	uint64_t u = v < 0 ? 0 : (uint64_t)v;
	int e;

	if (u < (1u << ANA_HIST_LINEAR_BITS))
		return (uint32_t)u;
	e = 63 - __builtin_clzll(u);
	return (1u << ANA_HIST_LINEAR_BITS) +
	       (uint32_t)(e - ANA_HIST_LINEAR_BITS) * (1u << ANA_HIST_SUB_BITS) +
	       (uint32_t)((u >> (e - ANA_HIST_SUB_BITS)) & ((1u << ANA_HIST_SUB_BITS) - 1));
}

/*! ana_hist_grow() : make room for bucket @i. @return : 0 or -ENOMEM. */
int ana_hist_grow(struct ana_hist *h, uint32_t i);

/*! ana_hist_add_at() : ana_hist_add() of @v whose bucket @i is known: a
 *  call counted in several rows finds its bucket once. */
static inline void ana_hist_add_at(struct ana_hist *h, int64_t v, uint32_t i)
{
	if (i >= h->nb && ana_hist_grow(h, i))
		return;	/* keep the exact min/max/sum; lose one count */
	h->b[i]++;
	if (h->n == 0 || v < h->min)
		h->min = v;
	if (h->n == 0 || v > h->max)
		h->max = v;
	h->n++;
	h->sum += (double)v;
}
/*! ana_hist_quantile() : @return : the value at quantile @q (0..1) by
 *  nearest rank, or 0 for an empty histogram. */
int64_t ana_hist_quantile(const struct ana_hist *h, double q);
/*! ana_hist_merge() : add @src's counts to @dst. @return : 0 or -ENOMEM. */
int ana_hist_merge(struct ana_hist *dst, const struct ana_hist *src);
/*! ana_hist_cdf() : fill @x (ns) and @y (0..1) with up to @max points of
 *  the cumulative distribution. @return : the number of points. */
int ana_hist_cdf(const struct ana_hist *h, double *x, double *y, int max);
void ana_hist_free(struct ana_hist *h);

/* ---- classes ---- */

/*! ana_class_of() : @return : the class (enum iot_class, the column of
 *  format/syscalls.def) of syscall row @sc; a number no table names is
 *  IOT_CLASS_OTHER. */
static inline int ana_class_of(const struct iot_syscall *sc)
{
	return sc ? sc->cls : IOT_CLASS_OTHER;
}

/* ---- one row of statistics ---- */

struct ana_stat {
	uint64_t count;		/* calls */
	uint64_t errors;	/* returned -errno */
	uint64_t bytes;		/* data moved by read/write-like calls */
	uint64_t timed;		/* calls with a known duration */
	uint64_t mismatches, skipped;	/* profiles */
	int64_t total_ns;	/* sum of durations */
	struct ana_hist lat;
};

void ana_stat_free(struct ana_stat *s);

struct ana_proc {
	char *cmd;		/* argv[0] basename of the last exec */
	uint64_t pids;
	int64_t cpu_ns;
	struct ana_stat st;
};

struct ana_phase {
	char *name;
	int64_t start, end;	/* monotonic ns; "(other commands)": its
				 * first start, plus its phases' real time */
	int64_t cpu_ns;		/* -1: not known */
	uint64_t procs;		/* processes that exited in it */
	int32_t pid;		/* implicit phases: the command's pid */
	int32_t cmd;		/* pass 1: its process's command when that
				 * entry went, else -1 */
	uint8_t folded;		/* pass 1: gone into "(other commands)" */
	uint64_t seq;		/* process record that opened it */
	struct ana_stat st;
};

/* Top-level commands (phases without marks) with rows of their own: past
 * this many, the longest (real time) keep theirs and the others are
 * counted together in one row, "(other commands)", before "(gaps)": a
 * trace of a million commands is reported in the memory of a few hundred
 * rows (each holds a latency histogram, ~8 KB), and a table of 256 is
 * already more than one reads. */
#define ANA_PHASES_MAX 256
/* Commands (argv[0] basenames) with rows of their own: the first this
 * many named; the calls and processes of any other count in one row,
 * "(other commands)". */
#define ANA_CMDS_MAX 256
#define ANA_OTHER_CMDS "(other commands)"
#define ANA_CMD_HASH 1024	/* > 2 x the rows: (unknown), the fold row */

#define ANA_TL_BINS 240
#define ANA_MAX_NR 512

struct ana_trace {
	int read_ahead;		/* set before ana_load(): chunks decoded ahead
				 * (iot_reader_set_ahead()), 0 none */
	char *path;
	char *label;		/* target label, else the file name */
	int kind;		/* IOT_KIND_* */
	char *workload;		/* header argv, joined */
	char *target;		/* profiles: "fstype, -o options, mkfs ..." */
	int damaged;		/* damaged, or not closed cleanly */
	char damage_msg[320];
	uint64_t events, processes;
	int64_t t_first, t_last;
	int64_t real_ns;	/* replay.elapsed_ns, else last - first */
	int64_t cpu_ns;
	int64_t utime_ns;	/* of cpu_ns, user time */
	int has_cpu;
	int64_t df_bytes;
	int has_df;
	uint64_t hdr_mismatches, hdr_skipped;	/* header extras */
	uint64_t hdr_skipped_mmap;	/* ... of the skipped, mappings (pages replayed) */
	int has_hdr_mismatches, has_hdr_skipped;
	uint64_t ev_mismatches, ev_skipped, unfinished;
	/* record --data: writes with their bytes kept, and those recorded
	 * with --data whose bytes were not (IOT_EV_NODATA) */
	struct iot_data_count data;
	int data_on;		/* recorded with --data (header record.data) */
	int kernel_timed;	/* a bpf recording: calls timed in the kernel, without
				 * the way in and out that a replay's calls hold */
	/* profiles: the target fault that stopped the replay ("ENOSPC at
	 * 41 % (write /a at 1.234 s)": a partial profile, never compared as
	 * a complete one), the calls that failed so, the stopping signal;
	 * "" if none */
	char failed[320], target_faults[256], interrupted[16];
	char skipped_by[512];		/* "reason N, reason N": why a replay skipped calls */
	int marks;		/* phases come from phase marks */
	int by_time;		/* events go to phases by time, not by pid */
	struct iot_syscall *sc_rows;	/* copy of the file's syscall table */
	size_t n_sc_rows;
	struct ana_stat total;
	struct ana_stat cls[IOT_CLASS_COUNT];
	struct ana_stat *sys;	/* ANA_MAX_NR rows, by syscall number */
	const struct iot_syscall **sc;	/* ANA_MAX_NR rows of the file's table */
	struct ana_proc *procs;
	size_t n_procs;
	struct ana_phase *phases;	/* the last one is "(gaps)" */
	size_t n_phases;
	/* top-level commands in the row "(other commands)", the one before
	 * "(gaps)" when not 0 (ANA_PHASES_MAX) */
	uint64_t phases_folded;
	/* the procs row of "(other commands)" plus 1, 0 if none (ANA_CMDS_MAX) */
	size_t cmds_fold;
	uint32_t *cmd_hash;	/* ANA_CMD_HASH slots: a procs row plus 1, 0 empty */
	int64_t gaps_real_ns;
	/* a profile of many clients (replay --clients, iotape-mpi): client i's
	 * pids are its own plus i x client_stride; 0 if not one */
	int n_clients;
	int32_t client_stride;
	struct ana_stat *clients;	/* n_clients rows */
	/* events over time per class, ANA_TL_BINS bins from t_first to t_last */
	uint32_t tl_count[ANA_TL_BINS][IOT_CLASS_COUNT];
	int64_t tl_busy[ANA_TL_BINS][IOT_CLASS_COUNT];
};

/*! ana_load() :
 *  Read @path into @t (zeroed by the caller, who may set read_ahead).  A
 *  damaged but readable file is loaded with t->damaged set.  @return : 0, or the reader's code (the
 *  command prints it with cli_open_trace_msg()), or -ENOMEM. */
int ana_load(struct ana_trace *t, const char *path);
void ana_trace_free(struct ana_trace *t);

/*! ana_load_all() (cmd_files.c) : load @n files, printing messages for @cmd.
 *  @return : IOT_EXIT_OK, IOT_EXIT_DAMAGED (some file damaged; loaded) or
 *  IOT_EXIT_FAIL (a file could not be read; nothing is kept). */
int ana_load_all(const char *cmd, char **paths, int n, struct ana_trace *t);

struct ana_group;
/*! ana_load_files() : what report and diff start with: allocate @n traces
 *  and room for @n groups, and load @paths (ana_load_all()).
 *  @return : IOT_EXIT_OK or IOT_EXIT_DAMAGED with *@tp and *@gp set (free
 *  them with ana_files_free()), or IOT_EXIT_FAIL with both NULL (the
 *  message is printed). */
int ana_load_files(const char *cmd, char **paths, int n,
		   struct ana_trace **tp, struct ana_group **gp);
/*! ana_files_free() : free what ana_load_files() gave (NULLs are fine). */
void ana_files_free(struct ana_trace *t, struct ana_group *g, int n);

/* ---- report (report_text.c, report_json.c) ---- */

enum ana_by {
	ANA_BY_ALL = 0,
	ANA_BY_PHASE,
	ANA_BY_PROCESS,
	ANA_BY_SYSCALL,
	ANA_BY_CLASS,
	ANA_BY_CLIENT,
};

/*! ana_client_of() : @return : the client (0 ..) of pid @pid in @t, or 0
 *  if @t is not a profile of many clients. */
static inline int ana_client_of(const struct ana_trace *t, int32_t pid)
{
	return t->client_stride > 0 && pid > 0 ? (int)(pid / t->client_stride) : 0;
}

/*! ana_parse_by() : @return : ANA_BY_* for "phase", "process", ..., or -1. */
int ana_parse_by(const char *s);
void ana_report_text(FILE *f, const struct ana_trace *t, int by, int top);
void ana_report_json(FILE *f, const struct ana_trace *t, int by);

/* ---- diff (diff.c) ---- */

/* Traces grouped into configurations: runs of one configuration are
 * summarised by medians. */
struct ana_group {
	const char *label;
	struct ana_trace **runs;
	int n;			/* complete runs: runs[0 .. n) */
	int n_failed;		/* failed runs: runs[n .. n + n_failed) */
	const char *failed;	/* the group ran only into failures: why, else NULL */
};

void ana_diff_text(FILE *f, struct ana_group *g, int ng);
/*! ana_diff_warn() : warn on stderr when the traces are not of the same
 *  workload.  @return : the number of warnings. */
int ana_diff_warn(const char *cmd, struct ana_group *g, int ng);
/*! ana_group_traces() : group @n loaded traces: by "--" separators in
 *  @sep (sep[i] != 0: a new group starts at trace i), else by label.
 *  @return : the number of groups (fills @g, which has room for @n). */
int ana_group_traces(struct ana_trace *t, int n, const int *sep,
		     struct ana_group *g);
void ana_groups_free(struct ana_group *g, int ng);
/*! ana_groups_failed() : in every group, move the runs whose replay
 *  failed (t->failed) after the others, out of g->n (into g->n_failed);
 *  then move groups left with no complete run to the end.
 *  @return : how many groups have a complete run (they come first). */
int ana_groups_failed(struct ana_group *g, int ng);
/*! ana_groups_add_failed() : add to the @ng groups of *@gp (realloc'd)
 *  one for each "LABEL=TEXT" of @failed: a configuration that failed
 *  before it made a profile (diff --failed; the strings are cut at '=').
 *  @return : the number of groups, or -1 (out of memory). */
int ana_groups_add_failed(struct ana_group **gp, int ng, char **failed, int n);
/*! ana_failed_legend() : the lines of the diff's legend on the failed
 *  runs of @g ("FAILED: ENOSPC at 41 % ..."). */
void ana_failed_legend(FILE *f, const struct ana_group *g);

/* Per-group medians, used by the text and HTML diff. */
enum ana_metric { ANA_M_REAL, ANA_M_CPU, ANA_M_UTIL, ANA_M_DF, ANA_M_COUNT };
/*! ana_phase_metric() : @return : metric @m of phase @i (n_phases = the
 *  whole run) of @t, or NAN if unknown. */
double ana_phase_metric(const struct ana_trace *t, size_t i, int m);
/*! ana_group_median() : median over the runs of @g of @fn(run, arg). */
double ana_group_median(const struct ana_group *g,
			double (*fn)(const struct ana_trace *, const void *),
			const void *arg, double *spread);

/* ---- many clients (scaling.c) ---- */

/*! ana_scaling_wanted() : whether a complete group of @g is a profile of
 *  many clients (then diff and the page set them against the count). */
int ana_scaling_wanted(const struct ana_group *g, int ng);
/*! ana_series_len() : the length of @label without a trailing "-cN" (the
 *  name of its client series). */
size_t ana_series_len(const char *label);
/*! ana_scaling_text() : diff's tables of throughput (calls/s, bytes/s)
 *  and p50/p99 per class against the number of clients, if wanted. */
void ana_scaling_text(FILE *f, struct ana_group *g, int ng);
/*! ana_scaling_html() : the same as SVG line plots, a line per series. */
void ana_scaling_html(FILE *f, struct ana_group *g, int ng, const char *const *pal, int n_pal);

/* ---- HTML (html.c, plot.c) ---- */

int ana_html_write(const char *cmd, const char *path, struct ana_group *g, int ng);

/* ---- output helpers (out.c) ---- */

/*! ana_json_str() : write @s (@len bytes) as a JSON string.  Bytes that are
 *  not valid UTF-8 become \u00XX (the byte's value as a code point). */
void ana_json_str(FILE *f, const char *s, size_t len);
/*! ana_csv_str() : write a CSV field, quoted when it needs to be. */
void ana_csv_str(FILE *f, const char *s, size_t len);
/*! ana_html_str() : write text escaped for HTML (invalid UTF-8 as U+FFFD). */
void ana_html_str(FILE *f, const char *s, size_t len);
/*! ana_html_str_pre() : as ana_html_str(), keeping newlines (for <pre>). */
void ana_html_str_pre(FILE *f, const char *s, size_t len);
/*! ana_fmt_ns() / ana_fmt_bytes() : units, as iot_fmt_ns/bytes, "-" for NAN. */
char *ana_fmt_ns(char *buf, size_t len, double ns);
char *ana_fmt_bytes(char *buf, size_t len, double b);
/*! ana_trunc() : copy @s into @buf, cut to @w columns with "..." */
char *ana_trunc(char *buf, size_t len, const char *s, int w);
const char *ana_basename(const char *p);

/*! ana_open_out() : open @path for writing; on failure print
 *  "iotape: CMD: PATH: why; what to do" (errno is kept).
 *  @return : the stream, or NULL. */
FILE *ana_open_out(const char *cmd, const char *path);

/*! ana_close_out() : flush and close @f, the output @path (NULL: standard
 *  output, flushed and checked, not closed).  On a write error print what
 *  failed and remove the partial file if @path is still the regular file
 *  written.  @return : 0, or -errno. */
int ana_close_out(const char *cmd, FILE *f, const char *path);

/*! ana_outputs_refused() (cmd_files.c) : whether the outputs @out (-o) and @html
 *  (--html), either may be NULL, must be refused before anything is
 *  written: one is among the @nf input @files, or both name one file.
 *  Says why.  @return : 1 if refused, else 0. */
int ana_outputs_refused(const char *cmd, const char *out, const char *html, char **files,
			int nf);

/*! ana_sort() : qsort(), except that no elements may come with a NULL
 *  array, which qsort() itself does not allow. */
static inline void ana_sort(void *base, size_t n, size_t size,
			    int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

#endif
