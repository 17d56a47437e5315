/*
 * cmd_replay.c - iotape replay: the command line around rpl_run().
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "replay.h"

#define MAX_PREFIXES 64

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iotape replay TRACE --root DIR [options]\n\n"
		"Re-execute the filesystem syscalls of TRACE under DIR, with the recorded\n"
		"think time, and write a timing profile.  Recorded absolute path P is\n"
		"replayed as DIR/P; nothing outside DIR is ever created, changed or removed.\n"
		"The starting tree (what existed before the workload touched it) is\n"
		"created first; files get their recorded size in incompressible bytes (a\n"
		"regular file already there with that size, or a symlink with that target,\n"
		"as a setup left it, is kept).  Each thread makes its file calls as the\n"
		"user it ran as when recorded (its set*id calls followed; as root if the\n"
		"replay is not root or DIR is not searchable by others, counted in the\n"
		"summary; IOTAPE_REPLAY_CREDS=0: always as root).\n\n"
		"Options:\n"
		"  -r, --root DIR       directory to replay under (empty, or --force)\n"
		"  -o, --output FILE    write the profile (same format as a trace)\n"
		"  -t, --timing MODE    original (default): recorded think time, closed loop;\n"
		"                       afap: as fast as possible; scale=F: think time x F;\n"
		"                       raw: recorded gaps less only the recorder's stop cost\n"
		"                       (original also removes tracing stalls: see iotape(1))\n"
		"      --think HOW      cpu (default): spend think time as CPU time of the\n"
		"                       replaying thread, so that the replay competes for\n"
		"                       the CPUs as the program did; sleep: sleep it\n"
		"                       (default from IOTAPE_REPLAY_THINK)\n"
		"      --verify         exit 4 if results differ from the trace (other than\n"
		"                       filesystem capability probes such as FICLONE)\n"
		"      --on-error MODE  what a fault of the filesystem under test (ENOSPC,\n"
		"                       EDQUOT, EIO, EROFS, ESTALE, ENOTCONN the recording did\n"
		"                       not have) does: stop (default: every thread finishes\n"
		"                       its call, the profile is marked failed, exit 5), or\n"
		"                       continue (a stress run: count them, go on)\n"
		"      --sparse-prepare if the starting tree does not fit the root, make its\n"
		"                       files sparse (sizes kept, no data) instead of failing\n"
		"      --clients N      replay N copies of the trace at once, client i under\n"
		"                       DIR/client-i (made there), all starting together once\n"
		"                       every tree is made; one profile of all (pids of client\n"
		"                       i moved by i x 4194304; 'report --by client')\n"
		"      --events N       replay only the first N events of the trace (in file\n"
		"                       order, as if it ended there): the start of a trace\n"
		"                       too long to plan in this machine's memory\n"
		"      --include PREFIX replay only paths under PREFIX (repeatable)\n"
		"      --exclude PREFIX do not replay paths under PREFIX (repeatable)\n"
		"      --force          replay into a non-empty root\n"
		"      --no-prepare     the starting tree is already there\n"
		"      --prepare-only   build the starting tree and stop\n"
		"      --label NAME     name of this configuration, kept in the profile\n"
		"      --mkfs CMD       how the filesystem was made, kept in the profile\n"
		"  -q, --quiet          no summary, no progress, no warnings (a damaged\n"
		"                       trace is still named: exit status 3)\n\n"
		"Examples:\n"
		"  iotape replay build.iotape --root /mnt/xfs -o build.xfs.iotape\n"
		"  iotape replay build.iotape --root /mnt/xfs --timing afap\n"
		"  iotape replay build.iotape --root /mnt/xfs --timing scale=0.5 --verify\n"
		"  iotape replay build.iotape --root /mnt/xfs --prepare-only\n"
		"  iotape replay day.iotape --root /mnt/xfs --events 50000000\n"
		"  iotape replay build.iotape --root /mnt/xfs --clients 8 -o build.xfs.8.iotape\n\n"
		"Exit status: 0 done; 1 failed; 2 bad usage; 3 the trace was damaged (its\n"
		"complete part was replayed); 4 --verify found mismatches; 5 the filesystem\n"
		"under test failed (ENOSPC, EIO, EROFS, ..., or it was unmounted: the\n"
		"profile holds what ran, marked failed) or cannot hold the starting tree;\n"
		"128+N signal N (SIGINT, SIGTERM, SIGHUP) stopped it (the profile holds\n"
		"what ran).\n");
}

static int parse_timing(const char *s, struct rpl_opts *o)
{
	char *end;

	if (strcmp(s, "original") == 0) {
		o->timing = RPL_TIMING_ORIGINAL;
		return 0;
	}
	if (strcmp(s, "raw") == 0) {
		o->timing = RPL_TIMING_RAW;
		return 0;
	}
	if (strcmp(s, "afap") == 0) {
		o->timing = RPL_TIMING_AFAP;
		return 0;
	}
	if (strncmp(s, "scale=", 6) == 0) {
		o->scale = strtod(s + 6, &end);
		if (end != s + 6 && !*end && o->scale >= 0 && o->scale < 1e6) {
			o->timing = RPL_TIMING_SCALE;
			return 0;
		}
	}
	return -EINVAL;
}

int cmd_replay(int argc, char **argv)
{
	enum { O_VERIFY = 256, O_INCLUDE, O_EXCLUDE, O_FORCE, O_NOPREP, O_PREPONLY,
	       O_LABEL, O_MKFS, O_ONERR, O_SPARSE, O_CLIENTS, O_THINK, O_EVENTS };
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "output", required_argument, NULL, 'o' },
		{ "timing", required_argument, NULL, 't' },
		{ "think", required_argument, NULL, O_THINK },
		{ "verify", no_argument, NULL, O_VERIFY },
		{ "include", required_argument, NULL, O_INCLUDE },
		{ "exclude", required_argument, NULL, O_EXCLUDE },
		{ "force", no_argument, NULL, O_FORCE },
		{ "no-prepare", no_argument, NULL, O_NOPREP },
		{ "prepare-only", no_argument, NULL, O_PREPONLY },
		{ "label", required_argument, NULL, O_LABEL },
		{ "mkfs", required_argument, NULL, O_MKFS },
		{ "on-error", required_argument, NULL, O_ONERR },
		{ "sparse-prepare", no_argument, NULL, O_SPARSE },
		{ "clients", required_argument, NULL, O_CLIENTS },
		{ "events", required_argument, NULL, O_EVENTS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *inc[MAX_PREFIXES], *exc[MAX_PREFIXES];
	struct rpl_opts o = { .cmd = "replay", .scale = 1.0, .include = inc, .exclude = exc,
			      .read_ahead = cli_read_ahead() };
	const char *starts = getenv("IOTAPE_REPLAY_STARTS");
	const char *think = getenv("IOTAPE_REPLAY_THINK");
	static struct rpl_result res;	/* large: not on the stack */
	int c, err;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":r:o:t:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': o.root = optarg; break;
		case 'o': o.out = optarg; break;
		case 't':
			if (parse_timing(optarg, &o) < 0) {
				cli_err("replay", "--timing %s: use original, afap, scale=F or raw", optarg);
				return IOT_EXIT_USAGE;
			}
			break;
		case O_THINK: think = optarg; break;
		case O_VERIFY: o.verify = 1; break;
		case O_INCLUDE: case O_EXCLUDE:
			if ((c == O_INCLUDE ? o.n_include : o.n_exclude) >= MAX_PREFIXES ||
			    optarg[0] != '/') {
				cli_err("replay", "--%s %s: give an absolute path (at most %d)",
					c == O_INCLUDE ? "include" : "exclude", optarg, MAX_PREFIXES);
				return IOT_EXIT_USAGE;
			}
			if (c == O_INCLUDE)
				inc[o.n_include++] = optarg;
			else
				exc[o.n_exclude++] = optarg;
			break;
		case O_FORCE: o.force = 1; break;
		case O_NOPREP: o.no_prepare = 1; break;
		case O_PREPONLY: o.prepare_only = 1; break;
		case O_LABEL: o.label = optarg; break;
		case O_MKFS: o.mkfs = optarg; break;
		case O_ONERR:
			if (strcmp(optarg, "stop") == 0) {
				o.on_error = RPL_ON_ERROR_STOP;
			} else if (strcmp(optarg, "continue") == 0) {
				o.on_error = RPL_ON_ERROR_CONTINUE;
			} else {
				cli_err("replay", "--on-error %s: use stop or continue", optarg);
				return IOT_EXIT_USAGE;
			}
			break;
		case O_SPARSE: o.sparse_prepare = 1; break;
		case O_CLIENTS:
			if (!cli_parse_int(optarg, 1, RPL_MAX_CLIENTS, &o.clients)) {
				cli_err("replay", "--clients %s: give 1 to %d", optarg, RPL_MAX_CLIENTS);
				return IOT_EXIT_USAGE;
			}
			break;
		case O_EVENTS: {
			char *end;
			unsigned long long n;

			errno = 0;
			n = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || n == 0 || optarg[0] == '-') {
				cli_err("replay", "--events %s: give a number of events, 1 or more",
					optarg);
				return IOT_EXIT_USAGE;
			}
			o.max_events = n;
			break;
		}
		case 'q': o.quiet = 1; break;
		case 'h': usage(stdout); return IOT_EXIT_OK;
		default:
			cli_bad_option("replay", c, argv);
			return IOT_EXIT_USAGE;
		}
	}
	if (think && strcmp(think, "cpu") == 0) {
		o.think = RPL_THINK_CPU;
	} else if (think && strcmp(think, "sleep") == 0) {
		o.think = RPL_THINK_SLEEP;
	} else if (think) {
		cli_err("replay", "%s%s: use cpu or sleep", think == getenv("IOTAPE_REPLAY_THINK") ?
			"IOTAPE_REPLAY_THINK=" : "--think ", think);
		return IOT_EXIT_USAGE;
	}
	if (o.root && !o.root[0]) {
		cli_err("replay", "--root \"\": give a directory");
		return IOT_EXIT_USAGE;
	}
	if (optind + 1 != argc || !o.root) {
		cli_err("replay", "%s; 'iotape replay --help' shows the options",
			optind >= argc ? "no trace given" : optind + 1 < argc ?
			"one trace at a time" : "--root DIR is required");
		return IOT_EXIT_USAGE;
	}
	if (o.no_prepare && o.prepare_only) {
		cli_err("replay", "--no-prepare and --prepare-only exclude each other");
		return IOT_EXIT_USAGE;
	}
	o.trace = argv[optind];
	if (o.out && cli_same_file(o.trace, o.out)) {
		cli_err("replay", "-o %s is the trace to replay; give another file for the profile",
			o.out);
		return IOT_EXIT_USAGE;
	}
	if (rpl_team_run && o.clients) {
		cli_err("replay", "--clients: under mpirun each rank is one client; "
			"give the number of clients to mpirun -np");
		return IOT_EXIT_USAGE;
	}
	o.progress = !o.quiet && isatty(2) && !o.clients && !rpl_team_run;
	/* process starts at their native cost (spawn.c), unless asked not
	 * to, to compare */
	o.starts = !(starts && strcmp(starts, "skip") == 0);
	if (rpl_team_run)
		err = rpl_team_run(&o, &res);
	else
		err = o.clients ? rpl_run_clients(&o, &res) : rpl_run(&o, &res);
	if (res.interrupted && err == -EINTR) {
		cli_err("replay", "interrupted by SIG%s while making the starting tree; %s holds "
			"part of it (replay again with --force, or empty it)",
			sigabbrev_np(res.interrupted), o.root);
		return 128 + res.interrupted;
	}
	if (res.open_err)
		cli_open_trace_msg("replay", o.trace, res.open_err);
	if (err < 0 && res.tree_too_big) {
		rpl_print_tree_too_big(&o, &res);
		return IOT_EXIT_TARGET;
	}
	if (err < 0 && !(o.clients && err == -ECANCELED && res.interrupted))
		return IOT_EXIT_FAIL;
	if (res.plan_only)		/* IOTAPE_REPLAY_PLAN=only: nothing ran */
		return res.damaged ? IOT_EXIT_DAMAGED : IOT_EXIT_OK;
	if (!o.quiet)
		rpl_print_summary(stdout, &o, &res);
	if (res.fault_stopped) {
		rpl_print_fault(&o, &res);
		return IOT_EXIT_TARGET;
	}
	if (res.interrupted) {
		char e[32];

		cli_err("replay", "interrupted by SIG%s after %s: %llu of %llu ops reached%s%s%s",
			sigabbrev_np(res.interrupted),
			iot_fmt_ns(e, sizeof(e), (double)res.elapsed_ns),
			(unsigned long long)(res.ops - res.skipped_by[RPL_SKIP_INTERRUPTED]),
			(unsigned long long)res.ops, o.out ? "; the profile " : "",
			o.out ? o.out : "", o.out ? " holds them" : "");
		return 128 + res.interrupted;
	}
	if (res.damaged)
		return IOT_EXIT_DAMAGED;
	if (o.verify && res.mismatches)
		return IOT_EXIT_MISMATCH;
	return IOT_EXIT_OK;
}
