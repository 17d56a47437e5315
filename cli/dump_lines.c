/*
 * dump_lines.c - the lines of iotape dump: the header as "# key value"
 * comments, a process's and a path state's "#" lines, an event as strace
 * -f -ttt -T prints it, and the --count table of totals like strace -c.
 * Times are relative to the trace's start.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "commands.h"
#include "dump.h"

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

void dump_print_header(FILE *f, const struct iot_header *h)
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

void dump_print_process(FILE *f, const struct iot_process *p, int64_t base)
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

void dump_print_state(FILE *f, const struct iot_path_state *ps, int64_t base)
{
	const struct iot_ps_extra *e = ps->extra;
	char t[48], mode[64];

	fmt_secs(t, sizeof(t), iot_ns_sub(ps->t_ns, base));
	fprintf(f, "#      %s state ", t);
	put_quoted(f, ps->path, ps->path_len);
	if (!ps->type) {
		fputs(" absent", f);
	} else {
		iot_format_arg(mode, sizeof(mode), IOT_ARG_MODE, ps->type | ps->mode);
		fprintf(f, " %s size=%llu uid=%u gid=%u nlink=%u", mode,
			(unsigned long long)ps->size, ps->uid, ps->gid, ps->nlink);
	}
	if (ps->target) {
		fputs(" -> ", f);
		put_quoted(f, ps->target, ps->target_len);
	}
	if (ps->flags & IOT_PS_SPARSE) {
		uint32_t i, n = e ? e->n_data : 0;

		fputs(" data=", f);
		if (!n)
			fputs("none", f);
		for (i = 0; i < n && i < 16; i++)
			fprintf(f, "%s%llu+%llu", i ? "," : "",
				(unsigned long long)e->data[2 * i],
				(unsigned long long)e->data[2 * i + 1]);
		if (n > 16)
			fprintf(f, ",... (%u ranges)", n);
	}
	if (e && e->n_xattrs) {
		uint32_t i;

		fputs(" xattrs=", f);
		for (i = 0; i < e->n_xattrs; i++) {
			if (i)
				fputc(',', f);
			put_quoted(f, e->xattrs[i].name, e->xattrs[i].name_len);
			fprintf(f, "(%u)", e->xattrs[i].value_len);
		}
	}
	if (e && e->attr_flags) {
		/* as chattr names them: a, i, d */
		fputs(" attrs=", f);
		if (e->attr_flags & IOT_PS_ATTR_APPEND)
			fputc('a', f);
		if (e->attr_flags & IOT_PS_ATTR_IMMUTABLE)
			fputc('i', f);
		if (e->attr_flags & IOT_PS_ATTR_NODUMP)
			fputc('d', f);
	}
	if (ps->flags & IOT_PS_LISTED)
		fputs(" (listed)", f);
	if (ps->flags & IOT_PS_AGAIN)
		fputs(" (again)", f);
	fputc('\n', f);
}

int dump_print_event(FILE *f, const struct iot_event *ev, int64_t base,
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
		/* recorded by the bpf backend: the call's time on a CPU */
		if (ev->cpu_ns) {
			fmt_secs(d, sizeof(d), (int64_t)ev->cpu_ns);
			fprintf(f, " [on cpu %s]", d);
		}
	}
	if (ev->flags & IOT_EV_ZERO)
		fputs(" [zeros]", f);
	/* record --data: the bytes kept, or that they were not */
	if (ev->data_len)
		fprintf(f, " [data %u]", ev->data_len);
	if (ev->flags & IOT_EV_NODATA)
		fputs(" [data not kept]", f);
	/* recorded by the bpf backend: asleep on a disk or a page-in in
	 * the gap before the call */
	if (ev->slept_ns) {
		fmt_secs(d, sizeof(d), (int64_t)ev->slept_ns);
		fprintf(f, " [slept before %s]", d);
	}
	/* ... and woken from a voluntary sleep (a futex) that long before
	 * the call */
	if (ev->woke_ns) {
		fmt_secs(d, sizeof(d), (int64_t)ev->woke_ns);
		fprintf(f, " [woken %s before]", d);
	}
	if (ev->waited_ns) {
		fmt_secs(d, sizeof(d), (int64_t)ev->waited_ns);
		fprintf(f, " [waited %s]", d);
	}
	/* ... and runnable, waiting for a CPU, in that gap */
	if (ev->ready_ns) {
		fmt_secs(d, sizeof(d), (int64_t)ev->ready_ns);
		fprintf(f, " [ready %s]", d);
	}
	/* ... the thread whose wake-up ended that sleep */
	if (ev->gap_waker)
		fprintf(f, " [gap woken by %u]", ev->gap_waker);
	/* ... and woken in the call by that thread */
	if (ev->waker)
		fprintf(f, " [woken by %u]", ev->waker);
	/* profiles: what the replay did with the recorded call */
	if (ev->flags & IOT_EV_REPLAY_SKIPPED)
		fputs(" [not replayed]", f);
	if (ev->flags & IOT_EV_REPLAY_MISMATCH)
		fputs(" [result differs from the trace]", f);
	fputc('\n', f);
	return 0;
}

void dump_count_event(struct dump_count_row *rows, const struct iot_event *ev)
{
	struct dump_count_row *r;
	int nr = ev->nr;

	if (nr < 0 || nr >= DUMP_COUNT_NR)
		nr = DUMP_COUNT_NR;
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
	const struct dump_count_row *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return x->nr - y->nr;
}

void dump_print_counts(FILE *f, struct dump_count_row *rows, size_t n)
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
