/*
 * cmd_validate.c - iotape validate: does replaying this workload's trace
 * predict how the workload itself runs on each filesystem?
 *
 * Records COMMAND on a fresh filesystem (--recordings N: N times, the
 * second and later ones between the first filesystem's native runs); then
 * per filesystem, RUNS times and alternately (so that a slow spell of a
 * shared machine falls on both), runs COMMAND natively on a fresh
 * filesystem and benches a trace (the recordings in turn) on another
 * fresh one of the same kind and size; then the table of
 * analyze/validate.c.  The runs are validate_run.c's; this file parses,
 * says what happens and decides the exit status.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../analyze/ana.h"
#include "../analyze/validate.h"
#include "commands.h"
#include "validate_run.h"

#define CMD "validate"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iotape validate [options] -- COMMAND [ARGS...]\n\n"
		"Does a replay of COMMAND's trace predict COMMAND?  Records COMMAND once (or\n"
		"--recordings times) on a fresh filesystem (--record-on), then for each\n"
		"filesystem of --fs runs COMMAND natively on a fresh filesystem and 'iotape\n"
		"bench'es the trace on another of the same kind and size, alternately, --runs\n"
		"times each, and prints per phase and in total the native and replay\n"
		"medians, their spread (max - min) / median, the replay's error, '*' where\n"
		"the native and replay ranges do not overlap (the difference is not noise),\n"
		"and whether the replays rank the filesystems as the native runs do where\n"
		"those differ by more than 10 %%; then per filesystem the calls a replay\n"
		"could not make as recorded, and the CPU time the recording(s) and the\n"
		"native runs used (the replay's think time is bounded by the recorded one),\n"
		"and for each total that misses, which of these measures is as large as the\n"
		"miss (the replayer's speed, the recording's CPU time, the native runs'\n"
		"noise, the recordings' spread) and the phase with the largest part of it.\n"
		"COMMAND runs in the directory 'work' of each fresh filesystem (the replay\n"
		"at the same path under its root; other users may pass through to it).  A\n"
		"native run lasts until every process it started has ended, daemons too,\n"
		"and counts their CPU time, as a recording follows them.  Needs root (loop\n"
		"filesystems).\n\n"
		"Options:\n"
		"  --fs LIST            filesystems to compare (default ext4,xfs,btrfs)\n"
		"  --runs N             native runs and replays per filesystem (default 3)\n"
		"  --recordings N       record COMMAND N times (default 1; at most --runs): the\n"
		"                       first before everything, the others before the first\n"
		"                       filesystem's native runs 2..N; replay i replays\n"
		"                       recording (i - 1) mod N + 1, and a table under the\n"
		"                       totals gives each recording's own time, its replays'\n"
		"                       median per filesystem and their spread: the part of\n"
		"                       an error that is the recording's\n"
		"  --cache cold|hot     cold (default): drop the page cache after --setup, before\n"
		"                       every run and replay; hot: keep the starting state cached\n"
		"  --record-on FS       the filesystem to record on (default ext4)\n"
		"  --backend B          record with 'iotape record --backend B': auto\n"
		"                       (record's default: bpf where it loads), bpf, ptrace\n"
		"                       or mixed; bpf stops no call, so that the CPU times\n"
		"                       that bound think time hold no tracer's cost\n"
		"  --setup CMD          run 'sh -c CMD' in the work directory first, untimed, for\n"
		"                       the recording, each native run and each replay alike\n"
		"  --tolerance PCT      how far a total may be off (default 5)\n"
		"  --image-size SIZE    filesystem size (default: twice what the recording\n"
		"                       used and 512M more, 4G at least)\n"
		"  --scratch DIR        where images and mount points go (default /var/tmp)\n"
		"  --html FILE          also write the table as an HTML page\n"
		"  --json               print the table as JSON instead of text\n"
		"  --trace FILE         do not record: compare the trace FILE, which an earlier\n"
		"                       validate kept (--keep), so that two versions of the\n"
		"                       replayer are judged on one trace; give the --setup and\n"
		"                       --image-size of that run (default size 4G)\n"
		"  --keep DIR           keep the trace, the profiles, the phase logs and the\n"
		"                       table as JSON (table.json) in DIR\n"
		"  --no-afap            no replay with --timing afap per filesystem (by\n"
		"                       default one, after the others: its column afap%%\n"
		"                       says how fast the replayer goes without think time;\n"
		"                       '^' where even that is more than --tolerance slower\n"
		"                       than the native runs, so the replayer's own work is\n"
		"                       the miss)\n"
		"  -q, --quiet          no progress lines\n\n"
		"Phases: a workload marks the start of a phase NAME by looking up the path\n"
		"/dev/null/iotape-phase/NAME (the recording and its replay see that), and - in\n"
		"native runs, where $IOTAPE_PHASE_LOG names a FIFO that validate reads and\n"
		"stamps line by line as it comes - by writing the line 'NAME' to it, with\n"
		"the shell's own echo (a mark that starts a process, such as 'date', adds\n"
		"that process to the native runs only; a line 'NAME SECONDS' keeps its time):\n"
		"  mark() { test -e /dev/null/iotape-phase/$1\n"
		"           [ -z \"$IOTAPE_PHASE_LOG\" ] || echo \"$1\" >>\"$IOTAPE_PHASE_LOG\"; }\n"
		"A phase lasts to the next mark or the end; '(start)' is the time before the\n"
		"first mark.  Without marks only the totals are compared.\n\n"
		"Examples:\n"
		"  iotape validate -- sh -c 'tar xf /var/tmp/src.tar && sync'\n"
		"  iotape validate --fs ext4,xfs --runs 5 --setup 'cp -a /var/tmp/repo .' -- \\\n"
		"      git clone -q repo copy\n"
		"  iotape validate --record-on tmpfs --cache hot --json -- make -C /var/tmp/proj\n\n"
		"Exit status: 0 every total within --tolerance; 6 a total is off by more;\n"
		"7 COMMAND or --setup failed (natively or recorded; nothing compared);\n"
		"1 failed (mkfs, mount, bench); 2 bad usage; 130/143 interrupted (every\n"
		"mount, loop device and image removed).\n");
}

struct run_state {
	struct val_opts o;
	struct ana_val v;
	struct bench_live live;
	const char *fs[ANA_VAL_MAX_FS];
	int n_fs, runs, json, recs, afap;
	const char *html, *keep, *trace_in;
	double tolerance;
	char outdir[PATH_MAX / 2], trace[PATH_MAX], workdir[PATH_MAX];
	char rec_trace[ANA_VAL_MAX_RUNS][PATH_MAX];	/* --recordings: 2..N */
	int phase_row0;		/* row of the first phase; -1 without marks */
	struct val_times rec;	/* the recording's phases: the rows */
};

static int parse_fs_list(struct run_state *s, const char *arg)
{
	/* a copy: strtok_r() would cut the command line seen in ps */
	static char list[1024];
	char *save = NULL, *tok;

	snprintf(list, sizeof(list), "%s", arg);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!bench_find_fs(tok)) {
			cli_err(CMD, "--fs: unknown filesystem '%s'; known:", tok);
			bench_fs_names(stderr);
			fputc('\n', stderr);
			return -EINVAL;
		}
		if (s->n_fs >= ANA_VAL_MAX_FS) {
			cli_err(CMD, "--fs: at most %d filesystems", ANA_VAL_MAX_FS);
			return -E2BIG;
		}
		s->fs[s->n_fs++] = tok;
	}
	if (s->n_fs == 0) {
		cli_err(CMD, "--fs: no filesystem given");
		return -EINVAL;
	}
	return 0;
}

/* One run's times into the table's column @fs: the phases the recording
 * has, matched by position and name; a run that did not mark one leaves
 * it unmeasured. */
static void add_times(struct run_state *s, int fs, int replay, const struct val_times *t)
{
	int i, row = s->phase_row0;

	if (row >= 0) {
		ana_val_add(&s->v, row++, fs, replay, t->n ? t->start[0] : NAN);
		for (i = 0; i < s->rec.n; i++, row++) {
			double d = NAN;

			if (i < t->n && strcmp(t->name[i], s->rec.name[i]) == 0)
				d = (i + 1 < t->n ? t->start[i + 1] : t->total) - t->start[i];
			ana_val_add(&s->v, row, fs, replay, d);
		}
	}
	ana_val_add(&s->v, s->v.n_rows - 1, fs, replay, t->total);
}

/* What run @t (on @fs, or a recording: ANA_VAL_RECORDED) read and wrote in
 * each phase: from its start to the first mark, from each mark to the
 * next, the last to its end; a phase the run did not mark as recorded,
 * or whose counts are not known, is left out. */
static void add_phase_io(struct run_state *s, int fs, const struct val_times *t)
{
	double io[ANA_VAL_IO_N];
	int i, k, row = s->phase_row0;

	if (row < 0 || !t->n)
		return;
	if (!isnan(t->mark_io[0][0]))
		ana_val_add_row_io(&s->v, row, fs, t->mark_io[0]);
	for (i = 0; i < s->rec.n && i < t->n; i++) {
		const double *end = i + 1 < t->n ? t->mark_io[i + 1] : t->io;

		if (strcmp(t->name[i], s->rec.name[i]) != 0 || isnan(end[0]) ||
		    isnan(t->mark_io[i][0]))
			continue;
		for (k = 0; k < ANA_VAL_IO_N; k++)
			io[k] = fmax(0, end[k] - t->mark_io[i][k]);
		ana_val_add_row_io(&s->v, row + 1 + i, fs, io);
	}
}

/* progress lines, unless --quiet */
#define say(s, ...) do { if (!(s)->o.quiet) cli_err(CMD, __VA_ARGS__); } while (0)

static const char *cmd_text(char **cmd, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = 0;
	for (i = 0; cmd[i] && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "", cmd[i]);
	return buf;
}

/* Record COMMAND into @trace; its phases and real time into @t.
 * @return : an exit status (IOT_EXIT_OK, or said why). */
static int record_one(struct run_state *s, const char *trace, const char *text,
		      uint64_t *used, struct val_times *t)
{
	int rc;

	rc = val_record(&s->o, &s->live, trace, s->workdir, used, t);
	if (val_stopped())
		return 128 + val_stopped();
	if (rc == -ECANCELED) {
		cli_err(CMD, "--setup failed on %s; nothing compared", s->o.record_on);
		return ANA_VAL_EXIT_REFUSED;
	}
	if (rc < 0)
		return IOT_EXIT_FAIL;
	if (t->status != 0) {
		cli_err(CMD, "'%s' exited with status %d while recorded on %s; validate compares "
			"runs of a command that succeeds: fix the command or its --setup", text,
			t->status, s->o.record_on);
		return ANA_VAL_EXIT_REFUSED;
	}
	if (val_trace_times(trace, t, 1) < 0) {
		cli_err(CMD, "%s: the trace just recorded cannot be read", trace);
		return IOT_EXIT_FAIL;
	}
	return IOT_EXIT_OK;
}

/* Recording @k (from 1) of --recordings into s->rec_trace[k - 1]: the
 * first is s->trace. */
static int record_more(struct run_state *s, int k, const char *text)
{
	struct val_times t;
	uint64_t used = 0;
	int rc;

	snprintf(s->rec_trace[k - 1], sizeof(s->rec_trace[k - 1]), "%s/trace-%d.iotape",
		 s->outdir, k);
	say(s, "recording %d/%d on %s", k, s->recs, s->o.record_on);
	rc = record_one(s, s->rec_trace[k - 1], text, &used, &t);
	if (rc != IOT_EXIT_OK)
		return rc;
	say(s, "recording %d/%d: %.2f s", k, s->recs, t.total);
	if (ana_val_add_cpu(&s->v, ANA_VAL_RECORDED, t.cpu, t.cpu_user) < 0 ||
	    ana_val_add_io(&s->v, ANA_VAL_RECORDED, t.io, t.execs) < 0)
		return IOT_EXIT_FAIL;
	add_phase_io(s, ANA_VAL_RECORDED, &t);
	return ana_val_add_rec(&s->v, t.total) < 0 ? IOT_EXIT_FAIL : IOT_EXIT_OK;
}

/* Record, then the native runs and replays.  @return : an exit status. */
static int measure(struct run_state *s)
{
	char text[512], log[PATH_MAX + 64], prof[PATH_MAX + 64];
	struct bench_config c;
	struct val_times t;
	uint64_t used = 0;
	int fs, r, rc, i;

	cmd_text(s->o.cmd, text, sizeof(text));
	snprintf(s->trace, sizeof(s->trace), "%s/trace.iotape", s->outdir);
	val_workdir(&s->live, s->o.record_on, s->workdir, sizeof(s->workdir));
	if (s->trace_in) {
		rc = val_trace_cwd(s->trace_in, s->workdir, sizeof(s->workdir));
		if (rc < 0) {
			cli_open_trace_msg(CMD, s->trace_in, rc);
			return IOT_EXIT_FAIL;
		}
		snprintf(s->trace, sizeof(s->trace), "%s", s->trace_in);
		if (val_trace_times(s->trace, &s->rec, 1) < 0) {
			cli_err(CMD, "%s: cannot be read", s->trace);
			return IOT_EXIT_FAIL;
		}
		say(s, "comparing '%s' with the trace %s (recorded in %s)", text, s->trace,
		    s->workdir);
		goto recorded;
	}
	say(s, "recording '%s' on %s (%s cache)", text, s->o.record_on, s->o.cold ? "cold" : "hot");
	rc = record_one(s, s->trace, text, &used, &s->rec);
	if (rc != IOT_EXIT_OK)
		return rc;
	if (s->recs > 1) {
		say(s, "recording 1/%d: %.2f s", s->recs, s->rec.total);
		if (ana_val_add_rec(&s->v, s->rec.total) < 0)
			return IOT_EXIT_FAIL;
	}
recorded:
	/* ptrace's stops are system time of the program (mixed: of some):
	 * only a bpf recording's system time is the program's own */
	s->v.cpu_user_only = !s->rec.bpf;
	if (ana_val_add_cpu(&s->v, ANA_VAL_RECORDED, s->rec.cpu, s->rec.cpu_user) < 0 ||
	    ana_val_add_io(&s->v, ANA_VAL_RECORDED, s->rec.io, s->rec.execs) < 0)
		return IOT_EXIT_FAIL;
	if (!s->o.image_size && s->trace_in)
		s->o.image_size = s->o.record_size;
	if (!s->o.image_size)
		s->o.image_size = bench_default_size(used);
	s->phase_row0 = -1;
	if (s->rec.n > 0) {
		s->phase_row0 = ana_val_add_row(&s->v, "(start)");
		for (i = 0; i < s->rec.n; i++)
			ana_val_add_row(&s->v, s->rec.name[i]);
	}
	if (ana_val_add_row(&s->v, "total") < 0)
		return IOT_EXIT_FAIL;
	add_phase_io(s, ANA_VAL_RECORDED, &s->rec);
	say(s, "%d phase mark%s; filesystems of %.0f MiB", s->rec.n, s->rec.n == 1 ? "" : "s",
	    (double)s->o.image_size / (1 << 20));
	for (fs = 0; fs < s->n_fs; fs++) {
		for (r = 1; r <= s->runs; r++) {
			/* 0-based: the recording this run's replay replays */
			int k = (r - 1) % s->recs;
			const char *trace = k ? s->rec_trace[k] : s->trace;

			if (fs == 0 && k > 0 && r <= s->recs) {
				rc = record_more(s, k + 1, text);
				if (rc != IOT_EXIT_OK)
					return rc;
			}
			snprintf(log, sizeof(log), "%s/native-%s-%d.phases", s->outdir, s->fs[fs], r);
			memset(&c, 0, sizeof(c));
			snprintf(c.name, sizeof(c.name), "%s", s->fs[fs]);
			c.fs = bench_find_fs(s->fs[fs]);
			rc = val_native(&s->o, &s->live, &c, s->workdir, log, &t);
			if (val_stopped())
				return 128 + val_stopped();
			if (rc == -ECANCELED) {
				cli_err(CMD, "--setup failed on %s; nothing compared", s->fs[fs]);
				return ANA_VAL_EXIT_REFUSED;
			}
			if (rc < 0)
				return IOT_EXIT_FAIL;
			if (t.status != 0) {
				cli_err(CMD, "'%s' exited with status %d natively on %s; validate "
					"compares runs of a command that succeeds", text, t.status,
					s->fs[fs]);
				return ANA_VAL_EXIT_REFUSED;
			}
			say(s, "%s: native run %d/%d: %.2f s", s->fs[fs], r, s->runs, t.total);
			add_times(s, fs, ANA_VAL_NATIVE, &t);
			add_phase_io(s, fs, &t);
			if (ana_val_add_cpu(&s->v, fs, t.cpu, t.cpu_user) < 0 ||
			    ana_val_add_io(&s->v, fs, t.io, NAN) < 0)
				return IOT_EXIT_FAIL;
			snprintf(prof, sizeof(prof), "%s/replay-%s-%d", s->outdir, s->fs[fs], r);
			rc = val_replay(&s->o, s->fs[fs], trace, prof, NULL);
			if (val_stopped())
				return 128 + val_stopped();
			if (rc != IOT_EXIT_OK && rc != IOT_EXIT_DAMAGED) {
				if (rc > 0)
					cli_err(CMD, "%s: 'iotape bench' of the trace failed (exit "
						"%d)", s->fs[fs], rc);
				return IOT_EXIT_FAIL;
			}
			if (val_replay_times(s->fs[fs], prof, &t) < 0)
				return IOT_EXIT_FAIL;
			ana_val_add_counts(&s->v, fs, t.mismatches, t.skipped, t.skipped_mmap);
			if (s->recs > 1) {
				say(s, "%s: replay %d/%d (recording %d): %.2f s", s->fs[fs], r,
				    s->runs, k + 1, t.total);
				ana_val_add_rec_replay(&s->v, k, fs, t.total);
			} else {
				say(s, "%s: replay %d/%d: %.2f s", s->fs[fs], r, s->runs, t.total);
			}
			add_times(s, fs, ANA_VAL_REPLAY, &t);
		}
		/* as fast as the replayer goes: where even that is slower than
		 * the native runs, the replayer's own speed is the miss */
		if (s->afap) {
			snprintf(prof, sizeof(prof), "%s/replay-%s-afap", s->outdir, s->fs[fs]);
			rc = val_replay(&s->o, s->fs[fs], s->trace, prof, "afap");
			if (val_stopped())
				return 128 + val_stopped();
			if (rc != IOT_EXIT_OK && rc != IOT_EXIT_DAMAGED) {
				if (rc > 0)
					cli_err(CMD, "%s: 'iotape bench --timing afap' of the trace "
						"failed (exit %d)", s->fs[fs], rc);
				return IOT_EXIT_FAIL;
			}
			if (val_replay_times(s->fs[fs], prof, &t) < 0)
				return IOT_EXIT_FAIL;
			say(s, "%s: replay --timing afap: %.2f s", s->fs[fs], t.total);
			add_times(s, fs, ANA_VAL_AFAP, &t);
		}
	}
	return IOT_EXIT_OK;
}

static int report(struct run_state *s)
{
	char date[32];
	time_t now = time(NULL);
	struct tm tm;
	FILE *f;

	strftime(date, sizeof(date), "%Y-%m-%d", gmtime_r(&now, &tm));
	s->v.date = date;
	if (s->json)
		ana_val_json(stdout, &s->v);
	else
		ana_val_text(stdout, &s->v);
	if (ana_close_out(CMD, stdout, NULL) < 0)
		return IOT_EXIT_FAIL;
	if (s->keep) {
		char path[PATH_MAX];

		/* beside the trace and the profiles, for scripts that gather
		 * the tables of several workloads */
		snprintf(path, sizeof(path), "%s/table.json", s->outdir);
		f = ana_open_out(CMD, path);
		if (!f)
			return IOT_EXIT_FAIL;
		ana_val_json(f, &s->v);
		if (ana_close_out(CMD, f, path) < 0)
			return IOT_EXIT_FAIL;
	}
	if (s->html) {
		f = ana_open_out(CMD, s->html);
		if (!f)
			return IOT_EXIT_FAIL;
		ana_val_html(f, &s->v);
		if (ana_close_out(CMD, f, s->html) < 0)
			return IOT_EXIT_FAIL;
	}
	return ana_val_verdict(&s->v, NULL, NULL);
}

int cmd_validate(int argc, char **argv)
{
	enum { O_FS = 256, O_RUNS, O_RECS, O_CACHE, O_RECORD_ON, O_SETUP, O_TOL, O_SIZE, O_SCRATCH,
	       O_HTML, O_JSON, O_KEEP, O_TRACE, O_BACKEND, O_NO_AFAP };
	static const struct option lopts[] = {
		{ "fs", required_argument, NULL, O_FS },
		{ "runs", required_argument, NULL, O_RUNS },
		{ "recordings", required_argument, NULL, O_RECS },
		{ "cache", required_argument, NULL, O_CACHE },
		{ "record-on", required_argument, NULL, O_RECORD_ON },
		{ "backend", required_argument, NULL, O_BACKEND },
		{ "setup", required_argument, NULL, O_SETUP },
		{ "tolerance", required_argument, NULL, O_TOL },
		{ "image-size", required_argument, NULL, O_SIZE },
		{ "scratch", required_argument, NULL, O_SCRATCH },
		{ "html", required_argument, NULL, O_HTML },
		{ "json", no_argument, NULL, O_JSON },
		{ "keep", required_argument, NULL, O_KEEP },
		{ "trace", required_argument, NULL, O_TRACE },
		{ "no-afap", no_argument, NULL, O_NO_AFAP },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct run_state s;
	const char *fs_list = "ext4,xfs,btrfs";
	char *end, text[512];
	int opt, rc, made_workdir = 0;

	memset(&s, 0, sizeof(s));
	s.runs = 3;
	s.recs = 1;
	s.afap = 1;
	s.tolerance = 5;
	s.o.cold = 1;
	s.o.record_on = "ext4";
	s.o.scratch = "/var/tmp";
	s.o.record_size = 4ull << 30;
	optind = 1;
	opterr = 0;
	/* '+': COMMAND's own options are not ours, even without "--" */
	while ((opt = getopt_long(argc, argv, "+:qh", lopts, NULL)) != -1) {
		switch (opt) {
		case O_FS: fs_list = optarg; break;
		case O_RUNS:
			if (!cli_parse_int(optarg, 1, ANA_VAL_MAX_RUNS, &s.runs)) {
				cli_err(CMD, "--runs %s: give 1 to %d", optarg, ANA_VAL_MAX_RUNS);
				return IOT_EXIT_USAGE;
			}
			break;
		case O_RECS:
			if (!cli_parse_int(optarg, 1, ANA_VAL_MAX_RUNS, &s.recs)) {
				cli_err(CMD, "--recordings %s: give 1 to %d", optarg, ANA_VAL_MAX_RUNS);
				return IOT_EXIT_USAGE;
			}
			break;
		case O_CACHE:
			if (strcmp(optarg, "cold") && strcmp(optarg, "hot")) {
				cli_err(CMD, "--cache %s: cold or hot", optarg);
				return IOT_EXIT_USAGE;
			}
			s.o.cold = strcmp(optarg, "cold") == 0;
			break;
		case O_RECORD_ON:
			if (!bench_find_fs(optarg)) {
				cli_err(CMD, "--record-on %s: unknown filesystem; 'iotape bench --help' "
					"lists them", optarg);
				return IOT_EXIT_USAGE;
			}
			s.o.record_on = optarg;
			break;
		case O_BACKEND:
			if (strcmp(optarg, "ptrace") && strcmp(optarg, "bpf") &&
			    strcmp(optarg, "mixed") && strcmp(optarg, "auto")) {
				cli_err(CMD, "--backend %s: ptrace, bpf, mixed or auto", optarg);
				return IOT_EXIT_USAGE;
			}
			s.o.backend = optarg;
			break;
		case O_SETUP: s.o.setup = optarg; break;
		case O_TOL:
			s.tolerance = strtod(optarg, &end);
			if (end == optarg || *end || !(s.tolerance >= 0) || isinf(s.tolerance)) {
				cli_err(CMD, "--tolerance %s: a percentage, like 5", optarg);
				return IOT_EXIT_USAGE;
			}
			break;
		case O_SIZE:
			if (bench_parse_size(optarg, &s.o.image_size) < 0) {
				cli_err(CMD, "--image-size %s: expected a size like 512M or 2G", optarg);
				return IOT_EXIT_USAGE;
			}
			s.o.record_size = s.o.image_size;
			break;
		case O_SCRATCH: s.o.scratch = optarg; break;
		case O_HTML: s.html = optarg; break;
		case O_JSON: s.json = 1; break;
		case O_KEEP: s.keep = optarg; break;
		case O_TRACE: s.trace_in = optarg; break;
		case O_NO_AFAP: s.afap = 0; break;
		case 'q': s.o.quiet = 1; break;
		case 'h': usage(stdout); return IOT_EXIT_OK;
		default:
			cli_bad_option(CMD, opt, argv);
			return IOT_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		cli_err(CMD, "no COMMAND given: 'iotape validate [options] -- COMMAND [ARGS...]'");
		return IOT_EXIT_USAGE;
	}
	s.o.cmd = argv + optind;
	if (s.recs > s.runs) {
		cli_err(CMD, "--recordings %d: at most --runs (%d), so that each is replayed on "
			"every filesystem", s.recs, s.runs);
		return IOT_EXIT_USAGE;
	}
	if (s.recs > 1 && s.trace_in) {
		cli_err(CMD, "--recordings %d with --trace: --trace compares one trace; give "
			"one or the other", s.recs);
		return IOT_EXIT_USAGE;
	}
	if (parse_fs_list(&s, fs_list) < 0)
		return IOT_EXIT_USAGE;
	if (getuid() != 0) {
		cli_err(CMD, "making loop filesystems needs root (losetup, mkfs, mount); run as root");
		return IOT_EXIT_FAIL;
	}
	if (ana_val_init(&s.v, s.fs, s.n_fs, s.tolerance) < 0) {
		cli_err(CMD, "--fs: a filesystem name is too long");
		return IOT_EXIT_USAGE;
	}
	s.v.runs = s.runs;
	s.v.cache = s.o.cold ? "cold" : "hot";
	s.v.record_on = s.o.record_on;
	s.v.workload = cmd_text(s.o.cmd, text, sizeof(text));
	if (s.keep) {
		rc = bench_mkdir_p(s.keep);
		if (rc < 0) {
			cli_err(CMD, "--keep %s: %s", s.keep, strerror(-rc));
			return IOT_EXIT_FAIL;
		}
		if (!realpath(s.keep, s.outdir)) {
			cli_err(CMD, "--keep %s: %s", s.keep, strerror(errno));
			return IOT_EXIT_FAIL;
		}
	} else {
		snprintf(s.outdir, sizeof(s.outdir), "%s/iotape-validate.XXXXXX", s.o.scratch);
		if (!mkdtemp(s.outdir)) {
			cli_err(CMD, "%s: cannot create a directory: %s", s.o.scratch, strerror(errno));
			return IOT_EXIT_FAIL;
		}
	}
	s.o.outdir = s.outdir;
	val_signals();
	/* a native run's daemons (a server its script starts) come back to
	 * this process when their parent ends: their CPU time and their end
	 * are the run's (validate_run.c's spawn()) */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	rc = bench_workdir_create(&s.live, s.o.scratch);
	if (rc < 0) {
		cli_err(CMD, "%s: cannot create a scratch directory: %s", s.o.scratch, strerror(-rc));
		rc = IOT_EXIT_FAIL;
		goto out;
	}
	made_workdir = 1;
	rc = measure(&s);
	if (rc == IOT_EXIT_OK)
		rc = report(&s);
out:
	if (made_workdir)
		bench_workdir_remove(&s.live);
	if (!s.keep)
		bench_rm_tree(s.outdir);
	ana_val_free(&s.v);
	if (val_stopped()) {
		cli_err(CMD, "interrupted by signal %d; every mount, loop device and image was "
			"removed", val_stopped());
		return 128 + val_stopped();
	}
	return rc;
}
