/*
 * cmd_record_opts.c - iotape record's options and --help: what each option
 * takes, its bounds, which backend it asks for, and the messages that say
 * what is wrong with one.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "rec.h"

#define CMD "record"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iotape record -o FILE [OPTIONS] -- COMMAND [ARGS...]\n"
		"       iotape record -o FILE [OPTIONS] -p PID\n\n"
		"Run COMMAND (or attach to process PID and its threads) and record every\n"
		"filesystem, descriptor and process syscall it and its children make, with\n"
		"entry/exit times, as a compressed trace: with BPF programs where they load,\n"
		"else under ptrace (--backend).\n\n"
		"Options:\n"
		"  -o FILE            the trace to write (required; created before the run;\n"
		"                     an existing FILE is replaced only once the program\n"
		"                     has started or been attached to)\n"
		"  -p PID             attach to a running process; Ctrl-C detaches, it runs on\n"
		"  --backend B        auto (default): bpf where it loads, else ptrace; ptrace\n"
		"                     too where an option only ptrace has is given (-p,\n"
		"                     --data, --data-total, --no-fastpath, --no-seccomp,\n"
		"                     --cpu-policy); the header's record.backend and the\n"
		"                     summary say which and why;\n"
		"                     bpf: BPF programs log every call into a ring buffer,\n"
		"                     stopping only calls that change names (root or\n"
		"                     CAP_BPF+CAP_PERFMON, a kernel with BTF);\n"
		"                     ptrace: ptrace and seccomp, with the fast path below;\n"
		"                     mixed: the fast path logs what it can in-process,\n"
		"                     BPF the rest, no ptrace stop (as bpf: root)\n"
		"  --bpf-ring-mb N    the BPF ring buffer (default 8, a power of 2)\n"
		"  --no-fastpath      record every call at a ptrace stop; by default a\n"
		"                     preloaded library logs most calls of dynamically\n"
		"                     linked programs in-process, 5-10x faster (the trace\n"
		"                     is the same; its header says which path was used)\n"
		"  --no-listings      do not take the entries of the directories the program\n"
		"                     listed but never named (taken by default when it\n"
		"                     ends, so that replayed listings find them)\n"
		"  --path-set-mb N    memory for the set of paths whose state was taken,\n"
		"                     and as much for the set of their directory entries\n"
		"                     (default 64 each, about 3 M paths; and an eighth more\n"
		"                     once full); past it, the paths not met for longest are\n"
		"                     forgotten, and one named again has its state written\n"
		"                     again (flagged, counted at the end; replay uses the\n"
		"                     first), none is missing\n"
		"  --data[=MAX]       keep the bytes each write, pwrite64, writev, pwritev\n"
		"                     and pwritev2 wrote, and each libaio or io_uring write\n"
		"                     request asked to write, for those asking at most\n"
		"                     MAX bytes (default 1M, at most 64M; K, M, G\n"
		"                     suffixes): the replay writes them instead of its own\n"
		"                     pattern; writes of zeros are replayed as zeros without\n"
		"                     keeping them; writes not kept are counted and flagged\n"
		"                     (the bpf backend keeps none).  '--data MAX' with a\n"
		"                     space is the same when MAX is written as a size\n"
		"                     (digits, then K, M or G or nothing); any other next\n"
		"                     word is not --data's\n"
		"  --data-total N     keep at most N bytes in all (default 1G; implies --data)\n"
		"  --no-seccomp       stop at every syscall instead of only recorded ones\n"
		"                     (slower; used anyway when seccomp is unavailable;\n"
		"                     implies --no-fastpath)\n"
		"  --flush-ms N       write a chunk at least every N ms (default 250,\n"
		"                     at most 3600000)\n"
		"  --flush-events N   ... or every N events (default 8192, at most 1048576)\n"
		"  --cpu-policy P     one: run the recorder and the program on one CPU\n"
		"                     (fastest for serial programs); none: no pinning;\n"
		"                     auto (default): one CPU until two processes run at\n"
		"                     the same time, then every CPU\n"
		"  -q                 no summary line (events dropped and 32-bit programs\n"
		"                     run are still said)\n\n"
		"Phase marks: a path under /dev/null/iotape-phase/NAME (e.g. ': <\n"
		"/dev/null/iotape-phase/copy 2>/dev/null' in a script) starts phase NAME.\n\n"
		"Examples:\n"
		"  iotape record -o build.iotape -- make -j2\n"
		"  iotape record -o copy.iotape -- sh -c 'cp -a src dst && sync && du dst && rm -rf src'\n"
		"  iotape record -o app.iotape -p 4242\n"
		"  iotape record --data -o tar.iotape -- tar -xf src.tar   # and its bytes\n\n"
		"Exit status: the program's (128+N if killed by signal N); 127 if COMMAND\n"
		"was not found, 126 if it could not be run; 1 if recording failed, 2 on\n"
		"bad usage.\n");
}

/* Bounds of the numeric options: beyond them a trace would wait for an
 * hour between writes, or hold over a million events in memory. */
#define FLUSH_MS_MAX	 3600000
#define FLUSH_EVENTS_MAX 1048576
#define PATH_SET_MB_MAX (1 << 20)
#define DATA_MAX_DEF	(1ull << 20)
#define DATA_TOTAL_DEF	(1ull << 30)

/* An option that only the ptrace backend has: with --backend auto (the
 * default) it chooses ptrace (the first one given is named). */
static void ptrace_only(struct rec_opts *o, const char *opt)
{
	if (!o->ptrace_opt)
		o->ptrace_opt = opt;
}

/* "4096", "64K", "1M", "2G" into *@v within [@min, @max].
 * @return : 0, or -1 if it is not such a size */
static int parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	char *end;
	unsigned long long n;
	int shift = 0;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (*end || n > (max >> shift))
		return -1;
	n <<= shift;
	if (n < min)
		return -1;
	*v = n;
	return 0;
}

/* Whether @s is written as a size (digits, then at most one of K, M, G),
 * in range or not: the word after a bare --data that is its value. */
static int looks_like_size(const char *s)
{
	size_t n = strspn(s, "0123456789");

	if (!n)
		return 0;
	if (s[n] && strchr("KkMmGg", s[n]))
		n++;
	return !s[n];
}

/* The options into @o.  @return : 0, 1 after --help, or -1 after a
 * message saying what is wrong */
int rec_parse_opts(int argc, char **argv, struct rec_opts *o)
{
	static const struct option lo[] = {
		{ "no-seccomp", no_argument, NULL, 'S' },
		{ "no-fastpath", no_argument, NULL, 'F' },
		{ "no-listings", no_argument, NULL, 'L' },
		{ "flush-ms", required_argument, NULL, 'M' },
		{ "flush-events", required_argument, NULL, 'E' },
		{ "cpu-policy", required_argument, NULL, 'C' },
		{ "backend", required_argument, NULL, 'B' },
		{ "bpf-ring-mb", required_argument, NULL, 'R' },
		{ "path-set-mb", required_argument, NULL, 'P' },
		{ "data", optional_argument, NULL, 'D' },
		{ "data-total", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch, pid;
	char sep;

	memset(o, 0, sizeof(*o));
	o->seccomp = 1;
	o->fastpath = 1;
	o->listings = 1;
	o->backend = REC_BACKEND_AUTO;
	o->bpf_ring_mb = 8;
	o->path_set_mb = 64;
	o->bpf_wake_kb = getenv("IOTAPE_BPF_WAKE_KB") ? atoi(getenv("IOTAPE_BPF_WAKE_KB")) : 256;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+:o:p:qh", lo, NULL)) != -1) {
		switch (ch) {
		case 'o': o->out = optarg; break;
		case 'p':
			if (!cli_parse_int(optarg, 1, INT_MAX, &pid)) {
				cli_err(CMD, "-p %s: not a process id; give the number 'ps' "
					"shows for it", optarg);
				return -1;
			}
			o->attach_pid = pid;
			ptrace_only(o, "-p");
			break;
		case 'q': o->quiet = 1; break;
		case 'S': o->seccomp = 0; ptrace_only(o, "--no-seccomp"); break;
		case 'F': o->fastpath = 0; ptrace_only(o, "--no-fastpath"); break;
		case 'L': o->listings = 0; break;
		case 'D':
			ptrace_only(o, "--data");
			o->data_max = DATA_MAX_DEF;
			sep = '=';
			/* getopt takes an optional value only after '=': a size
			 * as the next word is --data's too, or "--data 4K"
			 * would run 4K as the command */
			if (!optarg && optind < argc && looks_like_size(argv[optind])) {
				optarg = argv[optind++];
				sep = ' ';
			}
			if (optarg && parse_size(optarg, 1, IOT_DATA_MAX, &o->data_max)) {
				cli_err(CMD, "--data%c%s: give the most bytes kept per call, "
					"from 1 to 64M (K, M, G suffixes)", sep, optarg);
				return -1;
			}
			break;
		case 'T':
			ptrace_only(o, "--data-total");
			if (parse_size(optarg, 1, UINT64_MAX / 2, &o->data_total)) {
				cli_err(CMD, "--data-total %s: give the most bytes kept in all "
					"(K, M, G suffixes)", optarg);
				return -1;
			}
			break;
		case 'M':
			if (!cli_parse_int(optarg, 1, FLUSH_MS_MAX, &o->flush_ms)) {
				cli_err(CMD, "--flush-ms %s: give a number of milliseconds "
					"from 1 to %d", optarg, FLUSH_MS_MAX);
				return -1;
			}
			break;
		case 'P':
			if (!cli_parse_int(optarg, 1, PATH_SET_MB_MAX, &o->path_set_mb)) {
				cli_err(CMD, "--path-set-mb %s: give a number of MiB from 1 to %d",
					optarg, PATH_SET_MB_MAX);
				return -1;
			}
			break;
		case 'E':
			if (!cli_parse_int(optarg, 1, FLUSH_EVENTS_MAX, &o->flush_events)) {
				cli_err(CMD, "--flush-events %s: give a number of events "
					"from 1 to %d", optarg, FLUSH_EVENTS_MAX);
				return -1;
			}
			break;
		case 'C':
			ptrace_only(o, "--cpu-policy");
			if (strcmp(optarg, "one") == 0)
				o->cpu_policy = REC_CPU_ONE;
			else if (strcmp(optarg, "none") == 0)
				o->cpu_policy = REC_CPU_NONE;
			else if (strcmp(optarg, "auto") == 0)
				o->cpu_policy = REC_CPU_AUTO;
			else {
				cli_err(CMD, "--cpu-policy %s: unknown; use one, none or auto", optarg);
				return -1;
			}
			break;
		case 'B':
			if (strcmp(optarg, "ptrace") == 0)
				o->backend = REC_BACKEND_PTRACE;
			else if (strcmp(optarg, "bpf") == 0)
				o->backend = REC_BACKEND_BPF;
			else if (strcmp(optarg, "mixed") == 0)
				o->backend = REC_BACKEND_MIXED;
			else if (strcmp(optarg, "auto") == 0)
				o->backend = REC_BACKEND_AUTO;
			else {
				cli_err(CMD, "--backend %s: unknown; use auto, ptrace, bpf or mixed", optarg);
				return -1;
			}
			break;
		case 'R':
			if (!cli_parse_int(optarg, 1, 1024, &o->bpf_ring_mb) ||
			    (o->bpf_ring_mb & (o->bpf_ring_mb - 1))) {
				cli_err(CMD, "--bpf-ring-mb %s: give a power of 2 from 1 to 1024", optarg);
				return -1;
			}
			break;
		case 'h': usage(stdout); return 1;
		default: cli_bad_option(CMD, ch, argv); return -1;
		}
	}
	/* auto, the default, is bpf where it loads; an option that only
	 * the ptrace backend has chooses ptrace (said in the summary) */
	if (o->backend == REC_BACKEND_AUTO && o->ptrace_opt)
		o->backend = REC_BACKEND_PTRACE;
	else
		o->ptrace_opt = NULL;
	/* --data-total alone asks for the data too */
	if (o->data_total && !o->data_max)
		o->data_max = DATA_MAX_DEF;
	if (o->data_max && !o->data_total)
		o->data_total = DATA_TOTAL_DEF;
	o->cmd = argv + optind;
	if (!o->out) {
		cli_err(CMD, "no output file; give one with -o FILE");
		return -1;
	}
	if ((o->attach_pid > 0) == (o->cmd[0] != NULL)) {
		cli_err(CMD, "give either a COMMAND to run or -p PID to attach to");
		return -1;
	}
	if (o->attach_pid && (o->backend == REC_BACKEND_BPF || o->backend == REC_BACKEND_MIXED)) {
		cli_err(CMD, "-p: the bpf backend records only programs it starts; "
			"use --backend ptrace to attach");
		return -1;
	}
	return 0;
}
