/*
 * test_replay.c - the replayer's descriptor tables and path confinement.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "rpl.h"

static int is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

static int devnull(void)
{
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void put(struct rpl_fdtab *t, long fd, int cloexec)
{
	struct rpl_fd e = { .live = devnull(), .state = RPL_FD_LIVE, .cloexec = (uint8_t)cloexec };

	assert_true(e.live >= 0);
	assert_int_equal(rpl_fdtab_set(t, fd, &e), 0);
}

static int live_of(struct rpl_fdtab *t, long fd)
{
	struct rpl_fd e;

	if (rpl_fdtab_get(t, fd, &e) < 0)
		return -1;
	return e.live;
}

/* The entries of @t in use (the test is its only thread). */
static uint32_t in_use(const struct rpl_fdtab *t)
{
	uint32_t i, n = 0;

	for (i = 0; i < t->n; i++)
		n += t->v[i].state != RPL_FD_FREE;
	return n;
}

/* ---- descriptor tables ---- */

static void fd_fork_copies(void **state)
{
	struct rpl_fdtab *p = rpl_fdtab_new(1), *c;
	int pl, cl;

	put(p, 3, 0);
	c = rpl_fdtab_copy(p);
	assert_non_null(c);
	pl = live_of(p, 3);
	cl = live_of(c, 3);
	assert_true(cl >= 0 && cl != pl);	/* a dup, not the same number */
	assert_int_equal(rpl_fdtab_close(c, 3), 0);
	assert_false(is_open(cl));
	assert_true(is_open(pl));		/* the parent keeps its own */
	assert_int_equal(rpl_fdtab_get(c, 3, &(struct rpl_fd){ 0 }), -EBADF);
	rpl_fdtab_unref(c);
	rpl_fdtab_unref(p);
	assert_false(is_open(pl));		/* dropping a table closes */
}

/* A forked child's copy leaves out what ops that began after the
 * recorded fork made (another thread of the parent, before the child's
 * copy here): rpl_fdtab_drop_after(). */
static void fd_fork_drops_later(void **state)
{
	struct rpl_fdtab *p = rpl_fdtab_new(1), *c;
	int l4;

	rpl_fd_made_ns = 100;
	put(p, 3, 0);
	rpl_fd_made_ns = 300;
	put(p, 4, 1);
	assert_int_equal(rpl_fdtab_dup(p, 4, 5, 0), 0);
	rpl_fd_made_ns = 0;
	put(p, 6, 0);		/* made by no op: kept */
	c = rpl_fdtab_copy(p);
	assert_non_null(c);
	l4 = live_of(c, 4);
	assert_true(l4 >= 0);
	rpl_fdtab_drop_after(c, 200);
	assert_true(live_of(c, 3) >= 0);
	assert_int_equal(live_of(c, 4), -1);
	assert_int_equal(live_of(c, 5), -1);
	assert_true(live_of(c, 6) >= 0);
	assert_false(is_open(l4));		/* the child's copy closed */
	assert_true(is_open(live_of(p, 4)));	/* the parent's kept */
	assert_int_equal(in_use(p), 4);
	rpl_fdtab_unref(c);
	rpl_fdtab_unref(p);
}

/* A forked child's copy leaves out what another thread of the parent
 * closed before the recorded fork and has not closed here yet, unless
 * the number was made again after that close: rpl_fdtab_drop_closed(). */
static void fd_fork_drops_closed(void **state)
{
	struct rpl_fdtab *p = rpl_fdtab_new(1), *c;
	struct rpl_fork_closes fc = { .n = 2, .v = { { 4, 4, 200 }, { 6, 8, 250 } } };
	int l4;

	rpl_fd_made_ns = 100;
	put(p, 3, 0);
	put(p, 4, 1);
	put(p, 6, 1);
	rpl_fd_made_ns = 260;
	put(p, 7, 0);		/* made after the close of 6..8 began: kept */
	rpl_fd_made_ns = 0;
	put(p, 8, 0);		/* made by no op: closed */
	c = rpl_fdtab_copy(p);
	assert_non_null(c);
	l4 = live_of(c, 4);
	assert_true(l4 >= 0);
	rpl_fdtab_drop_closed(c, &fc);
	assert_true(live_of(c, 3) >= 0);
	assert_int_equal(live_of(c, 4), -1);
	assert_int_equal(live_of(c, 6), -1);
	assert_true(live_of(c, 7) >= 0);
	assert_int_equal(live_of(c, 8), -1);
	assert_false(is_open(l4));		/* the child's copy closed */
	assert_true(is_open(live_of(p, 4)));	/* the parent's kept */
	assert_int_equal(in_use(p), 5);
	rpl_fdtab_unref(c);
	rpl_fdtab_unref(p);
}

static void fd_clone_files_shares(void **state)
{
	struct rpl_fdtab *p = rpl_fdtab_new(1), *t = rpl_fdtab_ref(p);
	int l;

	put(p, 5, 0);
	l = live_of(t, 5);
	assert_int_equal(l, live_of(p, 5));
	assert_int_equal(rpl_fdtab_close(t, 5), 0);	/* a thread closes it */
	assert_int_equal(live_of(p, 5), -1);		/* gone for all */
	assert_false(is_open(l));
	put(t, 6, 0);
	rpl_fdtab_unref(t);
	assert_true(is_open(live_of(p, 6)));	/* one ref left: still open */
	rpl_fdtab_unref(p);
}

static void fd_dup_family(void **state)
{
	struct rpl_fdtab *t = rpl_fdtab_new(1);
	struct rpl_fd e;
	int l3, l7, old;

	put(t, 3, 0);
	l3 = live_of(t, 3);
	/* dup / F_DUPFD: a new recorded number, its own live fd */
	assert_int_equal(rpl_fdtab_dup(t, 3, 4, 0), 0);
	assert_true(live_of(t, 4) >= 0 && live_of(t, 4) != l3);
	/* dup2 onto an open number closes what was there */
	put(t, 7, 0);
	old = live_of(t, 7);
	assert_int_equal(rpl_fdtab_dup(t, 3, 7, 0), 0);
	assert_false(is_open(old) && old != live_of(t, 7) && old != l3 && old != live_of(t, 4));
	l7 = live_of(t, 7);
	assert_true(l7 >= 0 && l7 != l3);
	/* dup2(fd, fd) changes nothing */
	assert_int_equal(rpl_fdtab_dup(t, 3, 3, 1), 0);
	assert_int_equal(live_of(t, 3), l3);
	rpl_fdtab_get(t, 3, &e);
	assert_int_equal(e.cloexec, 0);
	/* dup3(O_CLOEXEC) / F_DUPFD_CLOEXEC mark the copy only */
	assert_int_equal(rpl_fdtab_dup(t, 3, 9, 1), 0);
	rpl_fdtab_get(t, 9, &e);
	assert_int_equal(e.cloexec, 1);
	/* unknown source, hostile numbers */
	assert_int_equal(rpl_fdtab_dup(t, 42, 43, 0), -EBADF);
	assert_int_equal(rpl_fdtab_dup(t, 3, -1, 0), -EBADF);
	assert_int_equal(rpl_fdtab_dup(t, 3, RPL_FD_MAX, 0), -EBADF);
	assert_int_equal(rpl_fdtab_get(t, -5, &e), -EBADF);
	assert_int_equal(rpl_fdtab_get(t, 1L << 40, &e), -EBADF);
	assert_int_equal(in_use(t), 4);
	rpl_fdtab_unref(t);
}

static void fd_close_range(void **state)
{
	struct rpl_fdtab *t = rpl_fdtab_new(1);
	struct rpl_fd e;
	long i;

	for (i = 3; i <= 8; i++)
		put(t, i, 0);
	assert_int_equal(rpl_fdtab_close_range(t, 4, 5, 0), 0);
	assert_int_equal(rpl_fdtab_get(t, 4, &e), -EBADF);
	assert_int_equal(rpl_fdtab_get(t, 5, &e), -EBADF);
	assert_int_equal(rpl_fdtab_get(t, 6, &e), 0);
	assert_int_equal(rpl_fdtab_close_range(t, 7, ~0UL, CLOSE_RANGE_CLOEXEC), 0);
	rpl_fdtab_get(t, 8, &e);
	assert_int_equal(e.cloexec, 1);
	assert_int_equal(rpl_fdtab_exec(t), 2);		/* 7 and 8 */
	assert_int_equal(in_use(t), 2);		/* 3 and 6 */
	assert_int_equal(rpl_fdtab_close_range(t, 0, ~0UL, 0), 0);
	assert_int_equal(in_use(t), 0);
	rpl_fdtab_unref(t);
}

static void fd_cloexec_at_exec(void **state)
{
	struct rpl_fdtab *t = rpl_fdtab_new(1);
	int keep, gone;

	put(t, 3, 1);
	put(t, 4, 0);
	gone = live_of(t, 3);
	keep = live_of(t, 4);
	assert_int_equal(rpl_fdtab_set_cloexec(t, 4, 0), 0);
	assert_int_equal(rpl_fdtab_set_cloexec(t, 99, 1), -EBADF);
	assert_int_equal(rpl_fdtab_exec(t), 1);
	assert_false(is_open(gone));
	assert_true(is_open(keep));
	assert_int_equal(live_of(t, 4), keep);
	/* F_SETFD later marks it */
	assert_int_equal(rpl_fdtab_set_cloexec(t, 4, 1), 0);
	assert_int_equal(rpl_fdtab_exec(t), 1);
	assert_false(is_open(keep));
	rpl_fdtab_unref(t);
}

/*
 * The plan's tables count, across all of them, the entries that hold
 * each pipe end (rpl_fdends): after every set, dup (onto a free number
 * or over an open one), close, close_range, exec, fork copy and table
 * dropped, in a long run of them drawn at random over a few tables and
 * ends, the count is what a look at every entry of every table finds.
 */
#define CT_TABS 6
#define CT_ENDS 7

static uint32_t ct_rand(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(*x >> 33);
}

static void fd_plan_end_counts(void **state)
{
	uint32_t counts[CT_ENDS] = { 0 };
	struct rpl_fdends ends = { .n = counts, .len = CT_ENDS, .cap = CT_ENDS };
	struct rpl_fdtab *t[CT_TABS] = { 0 };
	uint64_t x = 1;
	uint32_t e;
	int step, i;

	t[0] = rpl_fdtab_new(0);
	t[0]->ends = &ends;
	for (step = 0; step < 20000; step++) {
		int k = (int)(ct_rand(&x) % CT_TABS), op = (int)(ct_rand(&x) % 9);
		long fd = (long)(ct_rand(&x) % 12), fd2 = (long)(ct_rand(&x) % 12);
		struct rpl_fdtab *tab = t[k];
		uint32_t want[CT_ENDS] = { 0 }, j;

		if (!tab) {			/* a fork of another, or a new one */
			for (i = 0; i < CT_TABS && !t[(k + i) % CT_TABS]; i++)
				;
			if (i < CT_TABS && op < 6) {
				t[k] = rpl_fdtab_copy(t[(k + i) % CT_TABS]);
			} else {
				t[k] = rpl_fdtab_new(0);
				t[k]->ends = &ends;
			}
			assert_non_null(t[k]);
			continue;
		}
		switch (op) {
		case 0: case 1: {		/* an open (end 0: no pipe), a pipe end */
			struct rpl_fd en = { .state = RPL_FD_LIVE, .res = 1 + (uint32_t)fd2,
					     .end = ct_rand(&x) % CT_ENDS,
					     .cloexec = (uint8_t)(ct_rand(&x) & 1) };

			en.wend = (uint8_t)(en.end & 1);
			assert_int_equal(rpl_fdtab_set(tab, fd, &en), 0);
			break;
		}
		case 2: case 3:			/* dup, dup2 over an open one, dup3 */
			rpl_fdtab_dup(tab, fd, fd2, op == 3);
			break;
		case 4:
			rpl_fdtab_close(tab, fd);
			break;
		case 5:
			rpl_fdtab_close_range(tab, (unsigned long)fd, (unsigned long)fd + 2,
					      fd2 & 1 ? CLOSE_RANGE_CLOEXEC : 0);
			break;
		case 6:
			rpl_fdtab_exec(tab);
			break;
		case 7:
			rpl_fdtab_set_cloexec(tab, fd, (int)(fd2 & 1));
			break;
		case 8:				/* the process ended, its table dropped */
			rpl_fdtab_unref(tab);
			t[k] = NULL;
			break;
		}
		for (i = 0; i < CT_TABS; i++)
			for (j = 0; t[i] && j < t[i]->n; j++)
				if (t[i]->v[j].state != RPL_FD_FREE)
					want[t[i]->v[j].end]++;
		for (e = 1; e < CT_ENDS; e++)
			assert_int_equal(counts[e], want[e]);
	}
	for (i = 0; i < CT_TABS; i++)
		rpl_fdtab_unref(t[i]);
	for (e = 1; e < CT_ENDS; e++)
		assert_int_equal(counts[e], 0);
}

/* ---- path confinement ---- */

static char tmp[256], root[300], canary[300];

static __attribute__((format(printf, 1, 2))) void sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

static int setup_dirs(void **state)
{
	const char *t = getenv("TMPDIR");

	snprintf(tmp, sizeof(tmp), "%s/iotape-rpl-XXXXXX", t ? t : "/tmp");
	if (!mkdtemp(tmp))
		return -1;
	snprintf(root, sizeof(root), "%s/root", tmp);
	snprintf(canary, sizeof(canary), "%s/canary", tmp);
	mkdir(root, 0755);
	mkdir(canary, 0755);
	close(open(strcat(strcpy((char[400]){ 0 }, canary), "/file"), O_CREAT | O_WRONLY, 0644));
	return 0;
}

static int teardown_dirs(void **state)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

static void canary_intact(void)
{
	struct stat st;
	char p[400];

	snprintf(p, sizeof(p), "%s/file", canary);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	snprintf(p, sizeof(p), "%s/new", canary);
	assert_int_equal(access(p, F_OK), -1);
}

static void root_refusals(void **state)
{
	char p[400];

	assert_int_equal(rpl_root_open("/", 0), -EPERM);
	assert_int_equal(rpl_root_open("/tmp/..", 0), -EPERM);
	assert_int_equal(rpl_root_open("//", 0), -EPERM);
	snprintf(p, sizeof(p), "%s/missing", tmp);
	assert_int_equal(rpl_root_open(p, 0), -ENOENT);
	assert_int_equal(rpl_root_open(tmp, 1), -ENOTEMPTY);
	snprintf(p, sizeof(p), "%s/file", canary);
	assert_int_equal(rpl_root_open(p, 0), -ENOTDIR);
	sh("mkdir -p '%s/lost+found'", root);
	{
		int fd = rpl_root_open(root, 1);	/* lost+found alone is empty */

		assert_true(fd >= 0);
		close(fd);
	}
	sh("rmdir '%s/lost+found'", root);
}

static void confine_dotdot_and_symlinks(void **state)
{
	int rfd = rpl_root_open(root, 0), fd;
	struct rpl_name n;
	char p[600];

	assert_true(rfd >= 0);
	/* ".." at the root stays at the root */
	snprintf(p, sizeof(p), "/../../../..%s/file", canary);
	fd = rpl_resolve(rfd, p, O_WRONLY | O_TRUNC, 0);
	assert_int_equal(fd, -ENOENT);
	snprintf(p, sizeof(p), "/..%s/new", canary);
	fd = rpl_resolve(rfd, p, O_WRONLY | O_CREAT, 0644);
	assert_int_equal(fd, -ENOENT);
	/* an absolute symlink inside the root points inside the root */
	sh("ln -s '%s' '%s/abs'", canary, root);
	fd = rpl_resolve(rfd, "/abs/file", O_WRONLY | O_TRUNC, 0);
	assert_int_equal(fd, -ENOENT);
	fd = rpl_resolve(rfd, "/abs/new", O_WRONLY | O_CREAT, 0644);
	assert_int_equal(fd, -ENOENT);
	assert_int_equal(rpl_parent(rfd, "/abs/new", &n), -ENOENT);
	/* a relative symlink climbing out is clamped too */
	sh("ln -s ../canary '%s/rel'", root);
	assert_int_equal(rpl_resolve(rfd, "/rel/file", O_RDONLY, 0), -ENOENT);
	/* the last component of a name op is never "..", "." or the root */
	sh("mkdir '%s/d'", root);
	assert_int_equal(rpl_parent(rfd, "/d/..", &n), -EINVAL);
	assert_int_equal(rpl_parent(rfd, "/d/.", &n), -EINVAL);
	assert_int_equal(rpl_parent(rfd, "/", &n), -EINVAL);
	assert_int_equal(rpl_parent(rfd, "///", &n), -EINVAL);
	/* a name op on a symlink acts on the link itself */
	assert_int_equal(rpl_parent(rfd, "/abs/", &n), 0);
	assert_string_equal(n.name, "abs");
	assert_int_equal(unlinkat(n.dirfd, n.name, 0), 0);
	close(n.dirfd);
	/* magic links are refused */
	assert_true(rpl_resolve(rfd, "/proc/self/root/etc/passwd", O_RDONLY, 0) < 0);
	canary_intact();
	close(rfd);
	sh("rm -rf '%s'/*", root);
}

static void confine_swapped_symlink(void **state)
{
	int rfd = rpl_root_open(root, 0);
	struct rpl_name n;
	int fd;

	sh("mkdir '%s/d'", root);
	assert_int_equal(rpl_parent(rfd, "/d/x", &n), 0);
	close(n.dirfd);
	/* the directory becomes a symlink out of the root mid-replay */
	sh("rmdir '%s/d' && ln -s '%s' '%s/d'", root, canary, root);
	assert_int_equal(rpl_parent(rfd, "/d/new", &n), -ENOENT);
	fd = rpl_resolve(rfd, "/d/new", O_WRONLY | O_CREAT, 0644);
	assert_int_equal(fd, -ENOENT);
	assert_int_equal(rpl_resolve(rfd, "/d/file", O_RDWR, 0), -ENOENT);
	canary_intact();
	close(rfd);
	sh("rm -rf '%s'/*", root);
}

static void prefixes(void **state)
{
	const char *inc[] = { "/work" }, *exc[] = { "/work/tmp/" };
	struct rpl_opts o = { .include = inc, .n_include = 1, .exclude = exc, .n_exclude = 1 };

	assert_true(rpl_prefix_match("/proc", "/proc"));
	assert_true(rpl_prefix_match("/proc/1/stat", "/proc"));
	assert_false(rpl_prefix_match("/process", "/proc"));
	assert_true(rpl_prefix_match("/anything", "/"));
	assert_int_equal(rpl_path_skip(NULL, "/dev/null"), RPL_SKIP_PSEUDO);
	assert_int_equal(rpl_path_skip(NULL, "/sys/kernel"), RPL_SKIP_PSEUDO);
	assert_int_equal(rpl_path_skip(NULL, "/devices"), 0);
	assert_int_equal(rpl_path_skip(&o, "/work/a"), 0);
	assert_int_equal(rpl_path_skip(&o, "/work/tmp/x"), RPL_SKIP_EXCLUDED);
	assert_int_equal(rpl_path_skip(&o, "/home/x"), RPL_SKIP_EXCLUDED);
}

/* The descriptor an open's path names (rpl_path_fd()): 1 + N kept as the
 * path's value by the recorder, or a link to a descriptor kept as
 * written; any other path, or a number no descriptor has, names none. */
static int64_t fd_of(const char *path, int64_t value, int32_t *pid)
{
	struct rpl_op op = { .ev = { .nr = SYS_openat, .nargs = 4,
				     .args = { AT_FDCWD, value, O_RDONLY, 0 }, .path = path } };

	return rpl_path_fd(&op, pid);
}

static void fd_links(void **state)
{
	int32_t pid;

	(void)state;
	assert_int_equal(fd_of("/w/tmpdir", 4, &pid), 3);
	assert_int_equal(pid, 0);
	assert_int_equal(fd_of("/dev/fd/63", 0, &pid), 63);
	assert_int_equal(fd_of("/dev/stdin", 0, &pid), 0);
	assert_int_equal(fd_of("/dev/stdout", 0, &pid), 1);
	assert_int_equal(fd_of("/dev/stderr", 0, &pid), 2);
	assert_int_equal(fd_of("/proc/self/fd/5", 0, &pid), 5);
	assert_int_equal(fd_of("/proc/thread-self/fd/7", 0, &pid), 7);
	assert_int_equal(pid, 0);
	assert_int_equal(fd_of("/proc/1234/fd/9", 0, &pid), 9);
	assert_int_equal(pid, 1234);
	assert_int_equal(fd_of("/proc/1234/fdinfo/9", 0, &pid), -1);
	assert_int_equal(fd_of("/proc/self/fd/", 0, &pid), -1);
	assert_int_equal(fd_of("/proc/self/fd/5x", 0, &pid), -1);
	assert_int_equal(fd_of("/dev/fd/99999999999", 0, &pid), -1);
	assert_int_equal(fd_of("/dev/null", 0, &pid), -1);
	assert_int_equal(fd_of("/dev/fd", 0, &pid), -1);
	assert_int_equal(fd_of("/w/f", 0, &pid), -1);
	assert_int_equal(fd_of(NULL, 0, &pid), -1);
}

/* record.umask and /proc/self/status's Umask: octal, blanks after it */
static void umask_parse(void **state)
{
	uint32_t m = 1;

	assert_int_equal(rpl_umask_parse("0022", &m), 0);
	assert_int_equal(m, 022);
	assert_int_equal(rpl_umask_parse("0077\n", &m), 0);
	assert_int_equal(m, 077);
	assert_int_equal(rpl_umask_parse("0", &m), 0);
	assert_int_equal(m, 0);
	m = 5;
	assert_int_equal(rpl_umask_parse("", &m), -1);
	assert_int_equal(rpl_umask_parse("0999", &m), -1);
	assert_int_equal(rpl_umask_parse("01000", &m), -1);
	assert_int_equal(rpl_umask_parse("0022 x", &m), -1);
	assert_int_equal(rpl_umask_parse(NULL, &m), -1);
	assert_int_equal(m, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(umask_parse),
		cmocka_unit_test(fd_fork_copies),
		cmocka_unit_test(fd_fork_drops_later),
		cmocka_unit_test(fd_fork_drops_closed),
		cmocka_unit_test(fd_clone_files_shares),
		cmocka_unit_test(fd_dup_family),
		cmocka_unit_test(fd_close_range),
		cmocka_unit_test(fd_cloexec_at_exec),
		cmocka_unit_test(fd_plan_end_counts),
		cmocka_unit_test(fd_links),
		cmocka_unit_test(root_refusals),
		cmocka_unit_test(confine_dotdot_and_symlinks),
		cmocka_unit_test(confine_swapped_symlink),
		cmocka_unit_test(prefixes),
	};

	return cmocka_run_group_tests(tests, setup_dirs, teardown_dirs);
}
