/*
 * cmd_dump.c - iotape dump: a trace or profile as the lines
 * `strace -f -ttt -T` would have printed, relative to the start:
 *   4242   0.001234 openat(AT_FDCWD, "/a", O_RDONLY|O_CLOEXEC) = 3 <0.000011>
 * or, with --count, a table of totals per syscall like `strace -c`.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "commands.h"
#include "dump_aio.h"
#include "iotape.h"

static const char usage_text[] =
	"usage: iotape dump [--count] [--pid N] [--no-procs] [--states] [-y] FILE\n"
	"\n"
	"Print the events of a trace or profile as strace-like lines:\n"
	"  TID  SECONDS name(args) = result <DURATION>\n"
	"SECONDS count from the start of the workload; DURATION is the time\n"
	"the call took, both in seconds as 'strace -f -ttt -T' prints them.\n"
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

/* Per-syscall totals for --count. Numbers beyond the table share a row. */
#define COUNT_NR 1024
struct count_row {
	int nr;
	uint64_t calls, errors;
	int64_t ns;
};

static void fmt_secs(char *buf, size_t len, int64_t ns)
{
	const char *sign = ns < 0 ? "-" : "";
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	snprintf(buf, len, "%s%llu.%06llu", sign,
		 (unsigned long long)(a / 1000000000),
		 (unsigned long long)(a % 1000000000 / 1000));
}

/* A string from the file, quoted and escaped: it may hold anything. */
static void put_quoted(FILE *f, const char *s, size_t n)
{
	char small[512], *big;
	int k;

	k = iot_format_str(small, sizeof(small), s, n);
	if ((size_t)k < sizeof(small)) {
		fputs(small, f);
		return;
	}
	big = malloc((size_t)k + 1);
	if (!big) {
		fputs(small, f);
		return;
	}
	iot_format_str(big, (size_t)k + 1, s, n);
	fputs(big, f);
	free(big);
}

static void put_argv(FILE *f, uint32_t argc, const char *const *argv,
		     const uint32_t *argv_len)
{
	uint32_t i;

	fputc('[', f);
	for (i = 0; i < argc; i++) {
		if (i)
			fputs(", ", f);
		put_quoted(f, argv[i], argv_len ? argv_len[i] : strlen(argv[i]));
	}
	fputc(']', f);
}

/* A header value: as it is, unless a control byte could break the line
 * (a hostile file's header is as untrusted as its paths). */
static void put_cstr(FILE *f, const char *label, const char *s)
{
	const unsigned char *p;

	int n = 0;

	if (!s || !*s)
		return;
	fputs("# ", f);
	for (p = (const unsigned char *)label; *p; p++, n++)
		fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, f);
	fprintf(f, "%*s ", n < 14 ? 14 - n : 0, "");
	for (p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			break;
	if (*p)
		put_quoted(f, s, strlen(s));
	else
		fputs(s, f);
	fputc('\n', f);
}

static void print_header(FILE *f, const struct iot_header *h)
{
	char when[64] = "";
	uint32_t i;

	fprintf(f, "# iotape %s %s, format %u.%u\n",
		h->tool_version ? h->tool_version : "?",
		h->kind == IOT_KIND_PROFILE ? "profile" : "trace",
		h->format_major, h->format_minor);
	put_cstr(f, "host", h->host);
	put_cstr(f, "kernel", h->kernel);
	put_cstr(f, "arch", h->arch);
	if (h->argc) {
		fprintf(f, "# %-14s ", "command");
		put_argv(f, h->argc, h->argv, NULL);
		fputc('\n', f);
	}
	if (h->cwd) {
		fprintf(f, "# %-14s ", "cwd");
		put_quoted(f, h->cwd, strlen(h->cwd));
		fputc('\n', f);
	}
	if (h->realtime_ns && h->start_ns) {
		/* Wall clock of the start, from the (realtime, monotonic)
		 * pair; UTC so that the text does not depend on TZ. */
		int64_t rt = iot_ns_add(h->realtime_ns, iot_ns_sub(h->start_ns, h->monotonic_ns));
		time_t t = (time_t)(rt / 1000000000);
		struct tm tm;

		if (gmtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
		put_cstr(f, "started", when);
	}
	put_cstr(f, "recorder", h->recorder);
	if (h->stop_cost_ns)
		fprintf(f, "# %-14s %lld ns\n", "stop cost", (long long)h->stop_cost_ns);
	if (h->kind == IOT_KIND_PROFILE) {
		put_cstr(f, "target fs", h->target_fstype);
		put_cstr(f, "target label", h->target_label);
		put_cstr(f, "target device", h->target_device);
		put_cstr(f, "target mount", h->target_mountpoint);
		put_cstr(f, "mount options", h->target_mount_options);
		put_cstr(f, "mkfs", h->target_mkfs);
		put_cstr(f, "replay options", h->replay_options);
	}
	for (i = 0; i < h->n_extra; i++)
		if (h->extra[i].key && h->extra[i].value)
			put_cstr(f, h->extra[i].key, h->extra[i].value);
}

static void print_process(FILE *f, const struct iot_process *p, int64_t base)
{
	char t[48], flags[512];
	int st = p->exit_status;

	fmt_secs(t, sizeof(t), iot_ns_sub(p->t_ns, base));
	fprintf(f, "%-6d %s ", (int)p->tid, t);
	switch (p->kind) {
	case IOT_PROC_START:
	case IOT_PROC_EXEC:
		fputs(p->kind == IOT_PROC_START ? "--- start " : "--- exec ", f);
		if (p->exe)
			put_quoted(f, p->exe, p->exe_len);
		else if (p->argc)
			put_quoted(f, p->argv[0], p->argv_len[0]);
		else
			fputs("?", f);
		fputc(' ', f);
		put_argv(f, p->argc, p->argv, p->argv_len);
		if (p->kind == IOT_PROC_START && p->cwd) {
			fputs(" cwd ", f);
			put_quoted(f, p->cwd, p->cwd_len);
		}
		if (p->old_tid && p->old_tid != p->tid)
			fprintf(f, " (from thread %d)", (int)p->old_tid);
		fputs(" ---\n", f);
		break;
	case IOT_PROC_FORK:
	case IOT_PROC_THREAD:
		if (p->kind == IOT_PROC_FORK)
			fprintf(f, "--- new process, parent %d", (int)p->ppid);
		else
			fprintf(f, "--- new thread of %d", (int)p->pid);
		if (p->ptid && p->ptid != (p->kind == IOT_PROC_FORK ? p->ppid : p->pid))
			fprintf(f, ", from thread %d", (int)p->ptid);
		if (p->clone_flags) {
			iot_format_arg(flags, sizeof(flags), IOT_ARG_CLONE_FLAGS,
				       (int64_t)p->clone_flags);
			fprintf(f, " (%s)", flags);
		}
		fputs(" ---\n", f);
		break;
	case IOT_PROC_EXIT:
		if (WIFSIGNALED(st)) {
			iot_format_arg(flags, sizeof(flags), IOT_ARG_SIGNAL, WTERMSIG(st));
			fprintf(f, "+++ killed by %s%s +++\n", flags,
				WCOREDUMP(st) ? " (core dumped)" : "");
		} else {
			fprintf(f, "+++ exited with %d +++\n", WEXITSTATUS(st));
		}
		break;
	case IOT_PROC_PHASE:
		fputs("--- phase ", f);
		if (p->argc)
			put_quoted(f, p->argv[0], p->argv_len[0]);
		fputs(" ---\n", f);
		break;
	default:
		fprintf(f, "--- process record of kind %u ---\n", p->kind);
		break;
	}
}

static void print_state(FILE *f, const struct iot_path_state *ps, int64_t base)
{
	char t[48], mode[64];

	fmt_secs(t, sizeof(t), iot_ns_sub(ps->t_ns, base));
	fprintf(f, "#      %s state ", t);
	put_quoted(f, ps->path, ps->path_len);
	if (!ps->type) {
		fputs(" absent\n", f);
		return;
	}
	iot_format_arg(mode, sizeof(mode), IOT_ARG_MODE, ps->type | ps->mode);
	fprintf(f, " %s size=%llu uid=%u gid=%u nlink=%u", mode,
		(unsigned long long)ps->size, ps->uid, ps->gid, ps->nlink);
	if (ps->target) {
		fputs(" -> ", f);
		put_quoted(f, ps->target, ps->target_len);
	}
	if (ps->flags & IOT_PS_LISTED)
		fputs(" (listed)", f);
	fputc('\n', f);
}

static int print_event(FILE *f, const struct iot_event *ev, int64_t base,
		       unsigned fmt, char **buf, size_t *cap)
{
	char t[48], d[48];
	int k;

	k = iot_format_event_opts(*buf, *cap, ev, fmt);
	if ((size_t)k >= *cap) {
		char *nb = realloc(*buf, (size_t)k + 1);

		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap = (size_t)k + 1;
		iot_format_event_opts(*buf, *cap, ev, fmt);
	}
	fmt_secs(t, sizeof(t), iot_ns_sub(ev->t_enter, base));
	fprintf(f, "%-6d %s %s", (int)ev->tid, t, *buf);
	if (!(ev->flags & (IOT_EV_UNFINISHED | IOT_EV_NOEXIT_TS))) {
		fmt_secs(d, sizeof(d), iot_ns_sub(ev->t_exit, ev->t_enter));
		fprintf(f, " <%s>", d);
	}
	/* profiles: what the replay did with the recorded call */
	if (ev->flags & IOT_EV_REPLAY_SKIPPED)
		fputs(" [not replayed]", f);
	if (ev->flags & IOT_EV_REPLAY_MISMATCH)
		fputs(" [result differs from the trace]", f);
	fputc('\n', f);
	return 0;
}

static void count_event(struct count_row *rows, const struct iot_event *ev)
{
	struct count_row *r;
	int nr = ev->nr;

	if (nr < 0 || nr >= COUNT_NR)
		nr = COUNT_NR;
	r = &rows[nr];
	r->nr = ev->nr;
	r->calls++;
	if (ev->ret < 0 && ev->ret >= -4095 && !(ev->flags & IOT_EV_UNFINISHED))
		r->errors++;
	if (!(ev->flags & (IOT_EV_UNFINISHED | IOT_EV_NOEXIT_TS)) &&
	    ev->t_exit > ev->t_enter)
		r->ns = iot_ns_add(r->ns, iot_ns_sub(ev->t_exit, ev->t_enter));
}

static int cmp_rows(const void *a, const void *b)
{
	const struct count_row *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return x->nr - y->nr;
}

static void print_counts(FILE *f, struct count_row *rows, size_t n)
{
	static const char line[] =
		"------ ----------- ----------- --------- --------- ----------------\n";
	uint64_t calls = 0, errors = 0;
	int64_t ns = 0;
	size_t i, used = 0;

	for (i = 0; i < n; i++)
		if (rows[i].calls)
			rows[used++] = rows[i];
	qsort(rows, used, sizeof(rows[0]), cmp_rows);
	for (i = 0; i < used; i++) {
		calls += rows[i].calls;
		errors += rows[i].errors;
		ns = iot_ns_add(ns, rows[i].ns);
	}
	fprintf(f, "%% time     seconds  usecs/call     calls    errors syscall\n%s", line);
	for (i = 0; i < used; i++) {
		const struct iot_syscall *sc = iot_syscall_by_nr(rows[i].nr);
		char name[32];

		if (sc)
			snprintf(name, sizeof(name), "%s", sc->name);
		else
			snprintf(name, sizeof(name), "syscall_%d", rows[i].nr);
		fprintf(f, "%6.2f %11.6f %11llu %9llu ",
			ns ? 100.0 * (double)rows[i].ns / (double)ns : 0.0,
			(double)rows[i].ns / 1e9,
			(unsigned long long)(rows[i].ns / 1000 / (int64_t)rows[i].calls),
			(unsigned long long)rows[i].calls);
		if (rows[i].errors)
			fprintf(f, "%9llu %s\n", (unsigned long long)rows[i].errors, name);
		else
			fprintf(f, "%9s %s\n", "", name);
	}
	fprintf(f, "%s%6.2f %11.6f %11llu %9llu %9llu total\n", line, 100.0,
		(double)ns / 1e9,
		(unsigned long long)(calls ? ns / 1000 / (int64_t)calls : 0),
		(unsigned long long)calls, (unsigned long long)errors);
}

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
		print_process(m, &it->u.proc, base);
	else
		print_state(m, &it->u.ps, base);
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
	struct count_row *rows = NULL;
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
	buf = malloc(cap);
	rows = calloc(COUNT_NR + 1, sizeof(*rows));
	if (!buf || !rows) {
		cli_err("dump", "%s: out of memory", path);
		code = IOT_EXIT_FAIL;
		goto out;
	}
	base = iot_time_base(iot_reader_header(r), iot_reader_summary(r));
	if (!o->count) {
		print_header(stdout, iot_reader_header(r));
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
				count_event(rows, &it.u.ev);
				break;
			}
			pend_flush(&pl, it.u.ev.t_enter, stdout);
			if (print_event(stdout, &it.u.ev, base, o->fmt, &buf, &cap))
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
			print_counts(stdout, rows, COUNT_NR + 1);
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
