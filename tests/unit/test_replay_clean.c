/*
 * test_replay_clean.c - the "." and "NAME/.." components a tree walker's
 * trace holds (replay/clean.c): dropped where the path names the same
 * file without them, kept after a symlink and as the last name of calls
 * that make or remove it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "rpl.h"

struct cop {
	int nr;
	const char *path, *path2;
	int64_t ret;
};

/* Clean the paths of @n ops (the starting tree has symlink @link, if
 * any) and compare with @want[] (NULL: as given). */
static void check(const struct cop *ops, size_t n, const char *link, const char *const *want)
{
	struct iot_path_state ps = { .path = link, .type = S_IFLNK | 0777 };
	struct rpl_plan p;
	size_t i;

	memset(&p, 0, sizeof(p));
	p.ops = calloc(n, sizeof(*p.ops));
	assert_non_null(p.ops);
	p.n_ops = n;
	if (link) {
		ps.path_len = (uint32_t)strlen(link);
		p.ps = &ps;
		p.n_ps = 1;
	}
	for (i = 0; i < n; i++) {
		struct rpl_ev *ev = &p.ops[i].ev;

		ev->nr = ops[i].nr;
		ev->ret = ops[i].ret;
		ev->path = strdup(ops[i].path);
		if (ops[i].path2)
			ev->path2 = strdup(ops[i].path2);
		/* as rpl_intern() marks them for plan_read.c */
		if (rpl_cpath_has_dots(ev->path) || rpl_cpath_has_dots(ev->path2))
			p.ops[i].rflags |= RPL_OPF_DOTS;
	}
	assert_int_equal(rpl_plan_clean_paths(&p), 0);
	for (i = 0; i < n; i++) {
		const char *w = want[i] ? want[i] : ops[i].path;

		assert_string_equal(p.ops[i].ev.path, w);
		free((char *)p.ops[i].ev.path);
		free((char *)p.ops[i].ev.path2);
	}
	free(p.ops);
}

static void test_walker_paths(void **state)
{
	static const struct cop ops[] = {
		{ SYS_unlinkat, "/w/tree/arch/mips/../hexagon/mm/fault.c", NULL, 0 },
		{ SYS_newfstatat, "/w/tree/a/../b/../c/../d/x", NULL, 0 },
		{ SYS_openat, "/w/./t//f", NULL, 3 },
		{ SYS_openat, "/../w/f", NULL, 3 },
		{ SYS_openat, "/w/a/../../../f", NULL, 3 },
		{ SYS_mkdirat, "/w/a/../c/", NULL, 0 },
		{ SYS_openat, "rel/../f", NULL, 3 },
		{ SYS_openat, "/w/plain", NULL, 3 },
	};
	static const char *const want[] = {
		"/w/tree/arch/hexagon/mm/fault.c",
		"/w/tree/d/x",
		"/w/t/f",
		"/w/f",
		"/f",
		"/w/c/",
		NULL,
		NULL,
	};

	check(ops, sizeof(ops) / sizeof(ops[0]), NULL, want);
}

/* The last ".." or "." goes from lookups only. */
static void test_last_component(void **state)
{
	static const struct cop ops[] = {
		{ SYS_openat, "/w/a/mips/..", NULL, 3 },
		{ SYS_newfstatat, "/w/a/.", NULL, 0 },
		{ SYS_unlinkat, "/w/a/b/..", NULL, -39 },
		{ SYS_mkdirat, "/w/a/.", NULL, -17 },
		{ SYS_openat, "/w/..", NULL, 3 },
	};
	static const char *const want[] = { "/w/a", "/w/a", NULL, NULL, "/" };

	check(ops, sizeof(ops) / sizeof(ops[0]), NULL, want);
}

/* A symlink of the starting tree, or one the workload made, keeps its
 * "..": the kernel goes up from the link's target, not from its parent. */
static void test_symlinks_kept(void **state)
{
	static const struct cop ops[] = {
		{ SYS_openat, "/w/l/../f", NULL, 3 },
		{ SYS_openat, "/w/l/sub/../f", NULL, 3 },
		{ SYS_openat, "/w/s/../f", NULL, 3 },		/* s is no link yet */
		{ SYS_symlinkat, "/w/s", "../t/..", 0 },	/* target as recorded */
		{ SYS_openat, "/w/s/../f", NULL, 3 },
		{ SYS_renameat2, "/w/s", "/w/s2", 0 },
		{ SYS_openat, "/w/s2/../f", NULL, 3 },
	};
	static const char *const want[] = {
		NULL, "/w/l/f", "/w/f", NULL, NULL, NULL, NULL,
	};

	check(ops, sizeof(ops) / sizeof(ops[0]), "/w/l", want);
}

/* Path states are cleaned too; an absent state of a ".." path (taken
 * after rm -rf removed the NAME before it) is dropped, so what the walk
 * found below it is still part of the starting tree. */
static void test_states(void **state)
{
	static const struct {
		const char *path;
		uint32_t type;
		int64_t t;
	} in[] = {
		{ "/t", S_IFDIR, 1 },
		{ "/t/include/..", 0, 5 },
		{ "/t/include/../fs", S_IFDIR, 6 },
		{ "/t/include/../fs/./x", S_IFREG, 7 },
		{ "/t/l/../y", S_IFREG, 8 },		/* l is a symlink: kept */
		{ "/t/l", S_IFLNK, 2 },
	};
	static const char *const want[] = { "/t", "/t/fs", "/t/fs/x", "/t/l/../y", "/t/l" };
	struct iot_path_state ps[6];
	char *mem[6];
	struct rpl_plan p;
	size_t i;

	memset(&p, 0, sizeof(p));
	memset(ps, 0, sizeof(ps));
	for (i = 0; i < 6; i++) {
		ps[i].path = mem[i] = strdup(in[i].path);
		ps[i].path_len = (uint32_t)strlen(in[i].path);
		ps[i].type = in[i].type;
		ps[i].t_ns = in[i].t;
	}
	p.ps = ps;
	p.n_ps = 6;
	/* one dropped, two cleaned, "/t/l/../y" as it was */
	assert_int_equal(rpl_plan_clean_paths(&p), 3);
	assert_int_equal(p.n_ps, 5);
	for (i = 0; i < 5; i++) {
		assert_string_equal(p.ps[i].path, want[i]);
		assert_int_equal(p.ps[i].path_len, strlen(want[i]));
	}
	for (i = 0; i < 6; i++)
		free(mem[i]);
}

/* rpl_intern(): one pointer for each path without dots, a copy of its own
 * for each one with them (cleaned in place), and those said */
static void test_intern(void **state)
{
	struct iot_arena *a = iot_arena_new(0);
	struct rpl_intern t = { 0 };
	const char *x, *y, *d1, *d2;
	char buf[32];
	int dots = 0, i;

	(void)state;
	assert_non_null(a);
	x = rpl_intern(&t, a, "/t/a/b", 6, &dots);
	y = rpl_intern(&t, a, "/t/a/bc", 4 + 2, &dots);	/* the first 6 bytes */
	assert_ptr_equal(x, y);
	assert_int_equal(dots, 0);
	d1 = rpl_intern(&t, a, "/t/./a", 6, &dots);
	assert_int_equal(dots, 1);
	dots = 0;
	d2 = rpl_intern(&t, a, "/t/./a", 6, &dots);
	assert_int_equal(dots, 1);
	assert_ptr_not_equal(d1, d2);
	assert_string_equal(d2, "/t/./a");
	dots = 0;
	assert_ptr_equal(rpl_intern(&t, a, "/t//", 3, NULL), rpl_intern(&t, a, "/t//", 3, &dots));
	assert_int_equal(dots, 0);			/* "/t/" has none */
	assert_ptr_not_equal(rpl_intern(&t, a, "/t//", 4, &dots), rpl_intern(&t, a, "/t/", 3, NULL));
	assert_int_equal(dots, 1);
	dots = 0;
	/* past the table's growth, each still found */
	for (i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "/t/%d", i);
		assert_non_null(rpl_intern(&t, a, buf, (uint32_t)strlen(buf), &dots));
	}
	assert_ptr_equal(rpl_intern(&t, a, "/t/a/b", 6, &dots), x);
	snprintf(buf, sizeof(buf), "/t/%d", 17);
	assert_ptr_equal(rpl_intern(&t, a, buf, (uint32_t)strlen(buf), &dots),
			 rpl_intern(&t, a, buf, (uint32_t)strlen(buf), &dots));
	assert_int_equal(dots, 0);
	rpl_intern_free(&t);
	iot_arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walker_paths),
		cmocka_unit_test(test_last_component),
		cmocka_unit_test(test_symlinks_kept),
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_intern),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
