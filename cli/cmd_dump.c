/*
 * cmd_dump.c - iotape dump: a trace or profile as the lines
 * `strace -f -ttt -T` would have printed, relative to the start:
 *   4242   0.001234 openat(AT_FDCWD, "/a", O_RDONLY|O_CLOEXEC) = 3 <0.000011>
 * or, with --count, a table of totals per syscall like `strace -c`.
 * This file reads the trace in order and filters it; dump_lines.c writes
 * the lines.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "dump.h"
#include "dump_aio.h"
#include "iotape.h"

static const char usage_text[] =
	"usage: iotape dump [--count] [--pid N] [--no-procs] [--states] [-y] FILE\n"
	"\n"
	"Print the events of a trace or profile as strace-like lines:\n"
	"  TID  SECONDS name(args) = result <DURATION>\n"
	"SECONDS count from the start of the workload; DURATION is the time\n"
	"the call took, both in seconds as 'strace -f -ttt -T' prints them;\n"
	"'[on cpu SECONDS]' after it (bpf recordings): the part of it the call\n"
	"was on a CPU; '[slept before SECONDS]': the time its thread slept on\n"
	"a disk (page-ins of programs and libraries) in the gap before the\n"
	"call (ptrace recordings: only between two stopped calls);\n"
	"'[woken SECONDS before]' (bpf recordings): its thread was woken from\n"
	"a voluntary sleep (a futex: another thread let it go) that long\n"
	"before the call, in the gap before it; '[waited SECONDS]': how long it\n"
	"slept so in that gap; '[ready SECONDS]': how long it was runnable in\n"
	"that gap, waiting for a CPU (preempted, or woken and not yet on one);\n"
	"'[gap woken by TID]': the followed thread that\n"
	"woke it then, from a call that wakes others (a futex wake, a write, a\n"
	"signal); '[woken by TID]': the followed thread that woke the call\n"
	"itself (a poll's peer that sent, a lock released, a signal).\n"
	"Process records print as '--- exec ... ---' and '+++ exited with 0 +++'.\n"
	"Pointers that are not recorded print as '...'. The header comes first\n"
	"as '# ' lines. In profiles, '[not replayed]' and '[result differs from\n"
	"the trace]' mark what the replay skipped or saw differently.\n"
	"\n"
	"Options:\n"
	"  -c, --count      only a table of totals per syscall: calls, errors,\n"
	"                   total time, usecs/call, sorted by time ('strace -c')\n"
	"  -p, --pid N      only process (thread group) or thread N (exit 1 if\n"
	"                   there is none)\n"
	"  -P, --no-procs   leave out fork/exec/exit/phase lines\n"
	"  -s, --states     also print the recorded before-state of each path\n"
	"                   ('(listed)': only seen in a directory listing)\n"
	"  -y, --decode-fds print descriptors with their path, as 'strace -y':\n"
	"                   read(3</src/a.c>, ..., 832) = 832\n"
	"\n"
	"Examples:\n"
	"  iotape dump build.iotape | less\n"
	"  iotape dump build.iotape | grep -- '-1 E'      # the failed calls\n"
	"  iotape dump --count build.ext4.iotape\n"
	"  iotape dump --pid 4242 --no-procs build.iotape | head\n"
	"  iotape dump -y build.iotape | grep -- '</etc/'   # calls on files in /etc\n"
	"\n"
	"Exit status: 0 done; 1 the file could not be read, or --pid matched\n"
	"nothing (the message lists the pids there are); 2 bad usage; 3 the\n"
	"file is damaged or was not closed: everything before the damage was\n"
	"printed, and the message says where it is ('iotape check --repair'\n"
	"rewrites the file).\n";

struct dump_opts {
	int count, no_procs, states, have_pid;
	unsigned fmt;			/* IOT_FMT_* */
	int32_t pid;
};

/*
 * Within a chunk the reader gives processes and path states before the
 * events.  Their lines wait here, already formatted (the reader's strings
 * die with the chunk), and go out in time order between the events, as
 * strace would have printed them.
 */
struct pending {
	int64_t t;
	char *line;
};

struct pend_list {
	struct pending *v;
	size_t n, cap, head;
};

static int pend_push(struct pend_list *pl, int64_t t, char *line)
{
	if (pl->n == pl->cap) {
		size_t cap = pl->cap ? 2 * pl->cap : 64;
		struct pending *v = realloc(pl->v, cap * sizeof(*v));

		if (!v) {
			free(line);
			return -ENOMEM;
		}
		pl->v = v;
		pl->cap = cap;
	}
	pl->v[pl->n].t = t;
	pl->v[pl->n++].line = line;
	return 0;
}

/* Print the waiting lines up to time @t (in the order written). */
static void pend_flush(struct pend_list *pl, int64_t t, FILE *f)
{
	while (pl->head < pl->n && pl->v[pl->head].t <= t) {
		fputs(pl->v[pl->head].line, f);
		free(pl->v[pl->head++].line);
	}
	if (pl->head == pl->n)
		pl->head = pl->n = 0;
}

static void pend_free(struct pend_list *pl)
{
	while (pl->head < pl->n)
		free(pl->v[pl->head++].line);
	free(pl->v);
}

/* Format an item's line into the pending list. */
static int pend_item(struct pend_list *pl, const struct iot_item *it, int64_t base)
{
	char *line = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&line, &len);

	if (!m)
		return -ENOMEM;
	if (it->kind == IOT_ITEM_PROCESS)
		dump_print_process(m, &it->u.proc, base);
	else
		dump_print_state(m, &it->u.ps, base);
	if (fclose(m)) {
		free(line);
		return -ENOMEM;
	}
	return pend_push(pl, it->kind == IOT_ITEM_PROCESS ? it->u.proc.t_ns
			 : it->u.ps.t_ns, line);
}

/*
 * The processes seen while --pid matched nothing, for the message that
 * says so.  Events of one process come in runs: only a change is kept,
 * and the list is sorted and made unique when it fills.
 */
struct pid_seen {
	int32_t *v;
	size_t n, cap;
	int matched;
};

static int cmp_pid(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

static void pids_unique(struct pid_seen *ps)
{
	size_t i, k = 0;

	if (ps->n < 2)
		return;		/* qsort() of no array (NULL) is undefined */
	qsort(ps->v, ps->n, sizeof(*ps->v), cmp_pid);
	for (i = 0; i < ps->n; i++)
		if (!k || ps->v[i] != ps->v[k - 1])
			ps->v[k++] = ps->v[i];
	ps->n = k;
}

static void pids_add(struct pid_seen *ps, int32_t pid)
{
	if (ps->matched || (ps->n && ps->v[ps->n - 1] == pid))
		return;
	if (ps->n == ps->cap) {
		pids_unique(ps);
		if (ps->n * 2 >= ps->cap) {
			size_t cap = ps->cap ? 2 * ps->cap : 64;
			int32_t *v = realloc(ps->v, cap * sizeof(*v));

			if (!v)
				return;	/* the list is only for the message */
			ps->v = v;
			ps->cap = cap;
		}
	}
	ps->v[ps->n++] = pid;
}

static int wanted(const struct dump_opts *o, struct pid_seen *ps, int32_t pid,
		  int32_t tid)
{
	if (!o->have_pid || pid == o->pid || tid == o->pid) {
		ps->matched = 1;
		return 1;
	}
	pids_add(ps, pid);
	return 0;
}

/* --pid matched nothing: say so, with the pids there are. */
static void no_such_pid(const char *path, int32_t pid, struct pid_seen *ps)
{
	char list[128];
	size_t i, o = 0;

	pids_unique(ps);
	if (!ps->n) {
		cli_err("dump", "%s: no process or thread %d in the trace; it has "
			"no processes", path, (int)pid);
		return;
	}
	list[0] = 0;
	for (i = 0; i < ps->n && i < 8; i++)
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%d",
				      i ? ", " : "", (int)ps->v[i]);
	if (ps->n > 8)
		snprintf(list + o, sizeof(list) - o, ", ... (%zu in all)", ps->n);
	cli_err("dump", "%s: no process or thread %d in the trace; its processes "
		"are %s (plain 'iotape dump' shows what each ran)", path,
		(int)pid, list);
}

/* @return : an IOT_EXIT_* code. */
static int dump_file(const char *path, const struct dump_opts *o)
{
	struct pend_list pl = { NULL, 0, 0, 0 };
	struct pid_seen ps = { NULL, 0, 0, 0 };
	struct dump_aio da = { 0 };
	uint64_t n_ev = 0;
	struct dump_count_row *rows = NULL;
	struct iot_reader *r = NULL;
	uint64_t chunk = UINT64_MAX;
	const struct iot_summary *s;
	struct iot_item it;
	char *buf = NULL, why[512];
	size_t cap = 1024;
	int64_t base;
	int rc, werr = 0, code = IOT_EXIT_OK;

	rc = iot_reader_open(&r, path);
	if (rc) {
		cli_open_trace_msg("dump", path, rc);
		return IOT_EXIT_FAIL;
	}
	(void)iot_reader_set_ahead(r, cli_read_ahead());
	buf = malloc(cap);
	rows = calloc(DUMP_COUNT_NR + 1, sizeof(*rows));
	if (!buf || !rows) {
		cli_err("dump", "%s: out of memory", path);
		code = IOT_EXIT_FAIL;
		goto out;
	}
	base = iot_time_base(iot_reader_header(r), iot_reader_summary(r));
	if (!o->count) {
		dump_print_header(stdout, iot_reader_header(r));
		dump_aio_open(&da, path);
	}
	while ((rc = iot_reader_next(r, &it)) > 0) {
		if (it.chunk != chunk) {
			pend_flush(&pl, INT64_MAX, stdout);
			chunk = it.chunk;
		}
		switch (it.kind) {
		case IOT_ITEM_EVENT:
			n_ev++;
			if (!wanted(o, &ps, it.u.ev.pid, it.u.ev.tid))
				break;
			if (o->count) {
				dump_count_event(rows, &it.u.ev);
				break;
			}
			pend_flush(&pl, it.u.ev.t_enter, stdout);
			if (dump_print_event(stdout, &it.u.ev, base, o->fmt, &buf, &cap))
				rc = -ENOMEM;
			dump_aio_print(&da, stdout, n_ev - 1, base, o->have_pid ? o->pid : 0);
			break;
		case IOT_ITEM_PROCESS:
			if (wanted(o, &ps, it.u.proc.pid, it.u.proc.tid) &&
			    !o->count && !o->no_procs)
				rc = pend_item(&pl, &it, base);
			break;
		case IOT_ITEM_PATH_STATE:
			if (!o->count && o->states)
				rc = pend_item(&pl, &it, base);
			break;
		}
		if (rc < 0)
			break;
		/* errno is that of the failed write only right after it */
		if (ferror(stdout)) {
			werr = errno;
			break;
		}
	}
	if (!werr) {
		pend_flush(&pl, INT64_MAX, stdout);
		dump_aio_print(&da, stdout, UINT64_MAX, base, o->have_pid ? o->pid : 0);
		if (o->count)
			dump_print_counts(stdout, rows, DUMP_COUNT_NR + 1);
		if (fflush(stdout) || ferror(stdout))
			werr = errno ? errno : EIO;
	}
	/* A reader closed by 'head' is not an error worth a message. */
	if (werr) {
		if (werr != EPIPE) {
			cli_err("dump", "writing the output: %s", strerror(werr));
			code = IOT_EXIT_FAIL;
		}
		goto out;
	}
	s = iot_reader_summary(r);
	if (rc < 0 && !s->damage) {
		cli_err("dump", "%s: %s", path, iot_strerror(rc));
		code = IOT_EXIT_FAIL;
	} else if (s->index_damaged && !s->damage) {
		/* the events are intact (the frames' checksums held); only
		 * what the index alone knows (clean close, dropped events)
		 * is lost */
		cli_err("dump", "%s: the index at the end of the file is damaged "
			"(checksum or frame table wrong) and was ignored; all %llu "
			"events were read from the frames; run 'iotape check "
			"--repair' to rewrite the index", path,
			(unsigned long long)s->events);
		code = IOT_EXIT_DAMAGED;
	} else if (iot_damage_text(why, sizeof(why), s, base)) {
		cli_err("dump", "%s: %s", path, why);
		code = IOT_EXIT_DAMAGED;
	}
	/* as grep: a filter that matched nothing is not success */
	if (o->have_pid && !ps.matched && code != IOT_EXIT_FAIL) {
		no_such_pid(path, o->pid, &ps);
		code = IOT_EXIT_FAIL;
	}
out:
	free(ps.v);
	pend_free(&pl);
	free(buf);
	free(rows);
	iot_reader_close(r);
	dump_aio_close(&da);
	return code;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "count", no_argument, NULL, 'c' },
		{ "pid", required_argument, NULL, 'p' },
		{ "no-procs", no_argument, NULL, 'P' },
		{ "states", no_argument, NULL, 's' },
		{ "decode-fds", no_argument, NULL, 'y' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dump_opts o;
	int c, pid;

	memset(&o, 0, sizeof(o));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":cp:Psyh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': o.count = 1; break;
		case 'P': o.no_procs = 1; break;
		case 's': o.states = 1; break;
		case 'y': o.fmt |= IOT_FMT_FD_PATHS; break;
		case 'p':
			if (!cli_parse_int(optarg, 1, INT32_MAX, &pid)) {
				cli_err("dump", "--pid wants a process id, not '%s'", optarg);
				return IOT_EXIT_USAGE;
			}
			o.pid = (int32_t)pid;
			o.have_pid = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return IOT_EXIT_OK;
		default:
			cli_bad_option("dump", c, argv);
			return IOT_EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		cli_err("dump", "%s; 'iotape dump --help' shows usage",
			optind >= argc ? "no FILE given" : "one FILE at a time");
		return IOT_EXIT_USAGE;
	}
	/* 'iotape dump t | head': write errors come back as EPIPE. */
	signal(SIGPIPE, SIG_IGN);
	return dump_file(argv[optind], &o);
}
