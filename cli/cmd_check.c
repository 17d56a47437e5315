/*
 * cmd_check.c - iotape check: decode every frame of a trace, verify its
 * checksums and index, print a summary; --repair cuts a damaged tail and
 * rewrites the index.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_unc.h"
#include "commands.h"
#include "iotape.h"

static const char usage_text[] =
	"usage: iotape check [--quiet] FILE...\n"
	"       iotape check --repair [-o OUT] FILE...\n"
	"\n"
	"Decode every frame of each trace or profile, verify the zstd checksums\n"
	"and the index, and print a summary: format version, kind, events,\n"
	"processes, path states, time span, dropped events, whether the writer\n"
	"closed the file cleanly, the index, size and bytes per event.\n"
	"\n"
	"Options:\n"
	"  -r, --repair     keep every complete frame, cut a damaged tail and\n"
	"                   write a fresh index (in place, through a temporary\n"
	"                   file and rename, unless -o is given)\n"
	"  -o, --output OUT write the repaired file to OUT (one FILE only)\n"
	"  -q, --quiet      print nothing for valid files; damage still goes\n"
	"                   to stderr, one line per file\n"
	"\n"
	"Examples:\n"
	"  iotape check build.iotape\n"
	"  iotape check -q traces/*.iotape || echo 'some traces need repair'\n"
	"  iotape check --repair killed.iotape\n"
	"  iotape check --repair -o fixed.iotape killed.iotape\n"
	"\n"
	"Exit status: 0 every file is valid and was closed cleanly (or was\n"
	"repaired); 1 a file could not be read or repaired; 2 bad usage; 3 a\n"
	"file is damaged or was not closed (the message says where and what to\n"
	"do). With several files the worst status wins (1 over 3).\n";

/* The index trailer ends the file with "IOTX": there but not used by the
 * reader means it did not match the frames. */
static int has_trailer(const char *path)
{
	char tail[4];
	struct stat st;
	int fd, ok = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (!fstat(fd, &st) && st.st_size >= 4 &&
	    pread(fd, tail, 4, st.st_size - 4) == 4)
		ok = memcmp(tail, "IOTX", 4) == 0;
	close(fd);
	return ok;
}

struct scan {
	uint64_t counted[3];		/* events, processes, path states */
	int64_t t_lo, t_hi;		/* of the events read */
	struct check_unc unc;		/* async and mapped I/O */
	int damaged;
	char why[512];
};

/* A profile of a replay that did not run to its end says so: a fault of
 * the filesystem under test, or a signal, stopped it. */
static void print_replay_end(const struct iot_header *h)
{
	const char *v;

	if ((v = iot_header_get(h, "replay.failed")))
		printf("  replay       FAILED: %s (the profile holds the calls up to there)\n", v);
	else if ((v = iot_header_get(h, "replay.interrupted")))
		printf("  replay       interrupted by %s (the profile holds the calls made "
		       "before)\n", v);
	if ((v = iot_header_get(h, "replay.target_faults")))
		printf("  target faults %s: calls that failed with an error of the filesystem "
		       "under test\n", v);
	if ((v = iot_header_get(h, "replay.skipped_by")))
		printf("  skipped      %s: calls the replay did not make, by reason\n", v);
}

static void print_summary(const char *path, const struct iot_header *h,
			  const struct iot_summary *s, const struct scan *sc)
{
	char b1[64], b2[64];

	printf("%s: %s\n", path, sc->damaged ? "DAMAGED" : "OK");
	printf("  format       %u.%u, %s, written by iotape %s\n",
	       h->format_major, h->format_minor,
	       h->kind == IOT_KIND_PROFILE ? "profile" : "trace",
	       h->tool_version ? h->tool_version : "?");
	if (h->kind == IOT_KIND_PROFILE && h->target_fstype)
		printf("  target       %s%s%s\n", h->target_fstype,
		       h->target_label ? " " : "",
		       h->target_label ? h->target_label : "");
	if (h->kind == IOT_KIND_PROFILE)
		print_replay_end(h);
	printf("  events       %llu", (unsigned long long)sc->counted[0]);
	printf(" (%llu dropped by the recorder)",
	       (unsigned long long)s->dropped_events);
	printf("\n  processes    %llu\n", (unsigned long long)sc->counted[1]);
	printf("  path states  %llu\n", (unsigned long long)sc->counted[2]);
	check_unc_print(&sc->unc, stdout);
	if (sc->counted[0])
		printf("  time span    %s\n",
		       iot_fmt_ns(b1, sizeof(b1), (double)iot_ns_sub(sc->t_hi, sc->t_lo)));
	printf("  frames       %llu chunk frame%s\n", (unsigned long long)s->frames,
	       s->frames == 1 ? "" : "s");
	printf("  clean close  %s\n", s->clean_close ? "yes"
	       : s->repaired ? "no (repaired by 'iotape check --repair')" : "no");
	if (s->has_index && !sc->damaged)
		printf("  index        present, valid\n");
	else if (s->has_index)
		printf("  index        present, lists %llu events\n",
		       (unsigned long long)s->events);
	else if (has_trailer(path))
		printf("  index        present but does not match the frames (ignored)\n");
	else
		printf("  index        absent\n");
	printf("  file size    %s", iot_fmt_bytes(b2, sizeof(b2), (double)s->file_size));
	if (sc->counted[0])
		printf(" (%.1f bytes/event)", (double)s->file_size / (double)sc->counted[0]);
	printf("\n");
}

/* Decode everything: the index alone proves nothing about the chunks it
 * lists.  @return : 0, or a reader error other than damage. */
static int scan(struct iot_reader *r, struct scan *sc)
{
	const struct iot_summary *s;
	struct iot_item it;
	int rc;

	memset(sc, 0, sizeof(*sc));
	sc->unc.data_on = iot_header_get(iot_reader_header(r), "record.data") != NULL;
	sc->t_lo = INT64_MAX;
	sc->t_hi = INT64_MIN;
	while ((rc = iot_reader_next(r, &it)) > 0) {
		if (it.kind == IOT_ITEM_EVENT) {
			sc->counted[0]++;
			if (it.u.ev.t_enter < sc->t_lo)
				sc->t_lo = it.u.ev.t_enter;
			if (it.u.ev.t_exit > sc->t_hi)
				sc->t_hi = it.u.ev.t_exit;
			if (it.u.ev.t_enter > sc->t_hi)
				sc->t_hi = it.u.ev.t_enter;
		} else if (it.kind == IOT_ITEM_PROCESS) {
			sc->counted[1]++;
		} else if (it.kind == IOT_ITEM_PATH_STATE) {
			sc->counted[2]++;
		}
		if ((rc = check_unc_item(&sc->unc, &it)) < 0)
			return rc;
	}
	s = iot_reader_summary(r);
	if (rc < 0 && !s->damage)
		return rc;
	sc->damaged = iot_damage_text(sc->why, sizeof(sc->why), s,
				      iot_time_base(iot_reader_header(r), s));
	if (!sc->damaged && s->has_index && sc->counted[0] != s->events) {
		snprintf(sc->why, sizeof(sc->why), "the index lists %llu events "
			 "but the frames hold %llu; run 'iotape check --repair' "
			 "to rewrite it", (unsigned long long)s->events,
			 (unsigned long long)sc->counted[0]);
		sc->damaged = 1;
	}
	return 0;
}

/* @return : an IOT_EXIT_* code for @path; *@damaged (may be NULL) says
 * whether it needs a repair. */
static int check_one(const char *path, int quiet, int *damaged)
{
	struct iot_reader *r = NULL;
	struct scan sc;
	int rc, code = IOT_EXIT_OK;

	rc = iot_reader_open(&r, path);
	if (rc) {
		cli_open_trace_msg("check", path, rc);
		return IOT_EXIT_FAIL;
	}
	(void)iot_reader_set_ahead(r, cli_read_ahead());
	rc = scan(r, &sc);
	if (rc) {
		cli_err("check", "%s: %s", path, iot_strerror(rc));
		code = IOT_EXIT_FAIL;
		goto out;
	}
	if (damaged)
		*damaged = sc.damaged;
	if (quiet < 0)
		goto out;
	if (!quiet)
		print_summary(path, iot_reader_header(r), iot_reader_summary(r), &sc);
	if (sc.damaged) {
		fflush(stdout);
		cli_err("check", "%s: %s", path, sc.why);
		code = IOT_EXIT_DAMAGED;
	}
out:
	check_unc_free(&sc.unc);
	iot_reader_close(r);
	return code;
}

/* @path was just read whole: an error in its repair is the output's,
 * unless it is the format's own or memory. */
static void repair_msg(const char *path, const char *out, int err)
{
	int full = err == -ENOSPC || err == -EDQUOT;
	int nodir = err == -ENOENT || err == -ENOTDIR;

	if (err == -ENOMEM || err <= -IOT_E_BASE)
		cli_err("check", "%s: cannot repair: %s", path, iot_strerror(err));
	else if (out)
		cli_err("check", "%s: cannot write the repaired copy of %s: %s; "
			"give -o a path %s", out, path, iot_strerror(err),
			full ? "on a filesystem with space"
			: nodir ? "in a directory that exists" : "you can write to");
	else if (full)
		cli_err("check", "%s: cannot repair: %s (the repair writes a whole "
			"copy beside it first); it is unchanged; free some space, or "
			"write the copy to another filesystem with -o OUT",
			path, iot_strerror(err));
	else
		cli_err("check", "%s: cannot repair: %s (writing a copy in its "
			"directory); it is unchanged; write the copy elsewhere with "
			"-o OUT", path, iot_strerror(err));
}

static int repair_one(const char *path, const char *out, int quiet)
{
	struct stat st;
	uint64_t kept = 0;
	int rc, damaged = 0, existed;

	/* A clean file keeps its clean-close mark: nothing to do in place. */
	rc = check_one(path, -1, &damaged);
	if (rc == IOT_EXIT_OK && !damaged && !out) {
		if (!quiet)
			printf("%s: valid; nothing to repair\n", path);
		return check_one(path, quiet, NULL);
	}
	if (rc == IOT_EXIT_FAIL)
		return rc;
	existed = out && lstat(out, &st) == 0;
	rc = iot_repair(path, out ? out : path, &kept);
	if (rc) {
		repair_msg(path, out, rc);
		/* no part-written copy where there was nothing */
		if (out && !existed)
			unlink(out);
		return IOT_EXIT_FAIL;
	}
	if (!quiet)
		printf("%s: repaired%s%s: %llu events kept, index rewritten\n",
		       path, out ? " into " : "", out ? out : "",
		       (unsigned long long)kept);
	return check_one(out ? out : path, quiet, NULL);
}

static int worse(int a, int b)
{
	if (a == IOT_EXIT_FAIL || b == IOT_EXIT_FAIL)
		return IOT_EXIT_FAIL;
	return a > b ? a : b;
}

int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "repair", no_argument, NULL, 'r' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	int repair = 0, quiet = 0, code = IOT_EXIT_OK, c, i;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ro:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': repair = 1; break;
		case 'o': out = optarg; break;
		case 'q': quiet = 1; break;
		case 'h':
			fputs(usage_text, stdout);
			return IOT_EXIT_OK;
		default:
			cli_bad_option("check", c, argv);
			return IOT_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		cli_err("check", "no FILE given; 'iotape check --help' shows usage");
		return IOT_EXIT_USAGE;
	}
	if (out && (!repair || argc - optind != 1)) {
		cli_err("check", "-o OUT goes with --repair and a single FILE");
		return IOT_EXIT_USAGE;
	}
	for (i = optind; i < argc; i++) {
		int one;

		if (repair)
			one = repair_one(argv[i], out, quiet);
		else
			one = check_one(argv[i], quiet, NULL);
		code = worse(code, one);
		if (!quiet && i + 1 < argc)
			putchar('\n');
	}
	if (fflush(stdout) && errno != EPIPE) {
		cli_err("check", "writing the summary: %s", strerror(errno));
		return IOT_EXIT_FAIL;
	}
	return code;
}
