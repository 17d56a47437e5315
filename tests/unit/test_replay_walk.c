/*
 * test_replay_walk.c - a directory walk regrouped in the order the
 * filesystem under test lists the directory (dirwalk.c), on plans made
 * by hand: which walks move, and that each entry's calls move whole.
 */
#include <dirent.h>
#include <fcntl.h>
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

#define MAXOPS 64
#define DFD 4

struct walk {
	struct rpl_plan p;
	struct rpl_thread t;
	struct rpl_op ops[MAXOPS];
	uint32_t idx[MAXOPS];
	struct iot_path_state ps[8];
	char paths[8][32];
};

static void add(struct walk *w, int nr, int64_t a0, const char *path, int64_t ret)
{
	struct rpl_op *op = &w->ops[w->p.n_ops];

	assert_true(w->p.n_ops < MAXOPS);
	memset(op, 0, sizeof(*op));
	op->ev.nr = nr;
	op->ev.args[0] = a0;
	op->ev.path = path;
	op->ev.ret = ret;
	w->idx[w->p.n_ops] = (uint32_t)w->p.n_ops;
	w->p.n_ops++;
	w->t.n_ops = (uint32_t)w->p.n_ops;
}

/* One entry's calls as tar makes them: stat, open, read, close. */
static void entry(struct walk *w, const char *path)
{
	add(w, SYS_newfstatat, DFD, path, 0);
	add(w, SYS_openat, DFD, path, 5);
	add(w, SYS_read, 5, NULL, 100);
	add(w, SYS_close, 5, NULL, 0);
}

/* An empty plan of one thread. */
static void plan_init(struct walk *w)
{
	memset(w, 0, sizeof(*w));
	w->p.ops = w->ops;
	w->p.threads = &w->t;
	w->p.n_threads = 1;
	w->t.plan = &w->p;
	w->t.ops = w->idx;
}

/*
 * A walk of /d listed as "c a b" here: its entries' states @kind (0:
 * made by the workload at times 3, 1, 2 for a, b, c; 1: there before,
 * inode numbers 3, 1, 2), then its listing's end, the entries in
 * @order (names), the close of the listed descriptor.
 */
static void walk_of(struct walk *w, const char *order, int kind)
{
	static const char *names = "abc";
	size_t i;

	plan_init(w);
	for (i = 0; i < 3; i++) {
		snprintf(w->paths[i], sizeof(w->paths[i]), "/d/%c", names[i]);
		w->ps[i] = (struct iot_path_state){ .path = w->paths[i],
			.type = kind ? S_IFREG : 0, .ino = (i + 2) % 3 + 1,
			.t_ns = (int64_t)((i + 2) % 3 + 1) };
	}
	w->p.ps = w->ps;
	w->p.n_ps = 3;
	add(w, SYS_getdents64, DFD, NULL, 0);
	for (i = 0; order[i]; i++)
		entry(w, w->paths[order[i] - 'a']);
	add(w, SYS_close, DFD, NULL, 0);
}

/* The listing here: "c a b" (and "." first, which is not an entry). */
static void list_here(struct walk *w)
{
	static const char *names[] = { ".", "c", "a", "b" };
	/* room for a whole struct at the last record's offset */
	_Alignas(struct dirent64) char buf[4 * 32 + sizeof(struct dirent64)];
	size_t off = 0, i;

	memset(buf, 0, sizeof(buf));
	for (i = 0; i < 4; i++) {
		struct dirent64 *d = (struct dirent64 *)(buf + off);

		d->d_reclen = 32;
		strcpy(d->d_name, names[i]);
		off += 32;
	}
	rpl_dirwalk_listed(&w->t, DFD, NULL, buf, (int64_t)off);
	rpl_dirwalk_end(&w->t, DFD, 1);
}

/* The names the walk's opens take, in the thread's order now. */
static void opened(const struct walk *w, char *out)
{
	uint32_t i;

	for (i = 0; i < w->t.n_ops; i++) {
		const struct rpl_op *op = &w->p.ops[w->t.ops[i]];

		if (op->ev.nr == SYS_openat)
			*out++ = op->ev.path[3];
	}
	*out = 0;
}

/* Each entry's four calls still together, in their own order, and the
 * listing's end first and the directory's close last. */
static void groups_whole(const struct walk *w)
{
	uint32_t i;

	assert_int_equal(w->p.ops[w->t.ops[0]].ev.nr, SYS_getdents64);
	for (i = 1; i + 1 < w->t.n_ops; i += 4) {
		const struct rpl_op *s = &w->p.ops[w->t.ops[i]];

		assert_int_equal(s->ev.nr, SYS_newfstatat);
		assert_int_equal(w->p.ops[w->t.ops[i + 1]].ev.nr, SYS_openat);
		assert_string_equal(w->p.ops[w->t.ops[i + 1]].ev.path, s->ev.path);
		assert_int_equal(w->p.ops[w->t.ops[i + 2]].ev.nr, SYS_read);
		assert_int_equal(w->p.ops[w->t.ops[i + 3]].ev.nr, SYS_close);
	}
	assert_int_equal(w->p.ops[w->t.ops[w->t.n_ops - 1]].ev.nr, SYS_close);
	assert_int_equal(w->p.ops[w->t.ops[w->t.n_ops - 1]].ev.args[0], DFD);
}

static void done(struct walk *w)
{
	rpl_dirwalk_free(&w->t);
}

/* Recorded as "a c b", an order neither of the names nor of the
 * making ("b c a"): taken as listed here, "c a b". */
static void walk_listed_order_moves(void **state)
{
	struct walk w;
	char got[8];
	int kind;

	(void)state;
	for (kind = 0; kind < 2; kind++) {
		walk_of(&w, "acb", kind);
		list_here(&w);
		opened(&w, got);
		assert_string_equal(got, "cab");
		groups_whole(&w);
		assert_int_equal(w.t.walk_dirs, 1);
		assert_int_equal(w.t.walk_moved, 3);
		done(&w);
	}
}

/* In name order (tar --sort=name) or in the order of making (cp: made,
 * or inode numbers, 1, 2, 3 are b, c, a): the program's choice, kept. */
static void walk_chosen_order_kept(void **state)
{
	static const char *orders[] = { "abc", "bca" };
	struct walk w;
	char got[8];
	int kind, k;

	(void)state;
	for (kind = 0; kind < 2; kind++)
		for (k = 0; k < 2; k++) {
			walk_of(&w, orders[k], kind);
			list_here(&w);
			opened(&w, got);
			assert_string_equal(got, orders[k]);
			assert_int_equal(w.t.walk_dirs, 0);
			done(&w);
		}
}

/* An entry's call another thread waits for, a descriptor one entry
 * opens and the next one closes, or an entry taken twice: the recorded
 * order stays. */
static void walk_unmovable_kept(void **state)
{
	struct walk w;
	char got[8];

	(void)state;
	walk_of(&w, "acb", 0);
	w.ops[7].needed = 1;		/* the read of the second entry */
	list_here(&w);
	opened(&w, got);
	assert_string_equal(got, "acb");
	done(&w);

	walk_of(&w, "acb", 0);
	w.ops[4].ev.args[0] = 6;	/* the first entry closes another one */
	list_here(&w);
	opened(&w, got);
	assert_string_equal(got, "acb");
	assert_int_equal(w.t.walk_dirs, 0);
	done(&w);

	walk_of(&w, "acba", 0);
	list_here(&w);
	opened(&w, got);
	assert_string_equal(got, "acba");
	assert_int_equal(w.t.walk_dirs, 0);
	done(&w);
}

/* ---- files named by their paths (rpl_dirwalk_paths()) ---- */

static const char *const pnames[] = { "a", "b", "c", "c/x", "c/y" };

/*
 * Files under /d named by their paths, as `find | xargs cat` opens
 * them: open, read, close each, in @order (names as in pnames), then the
 * process's exit.  States: made by the workload at times a 3, b 1, c 2,
 * c/x 2, c/y 1, so that no order below is that of their making.
 */
static void by_path_of(struct walk *w, const char *const *order)
{
	static const int64_t made[] = { 3, 1, 2, 2, 1 };
	size_t i, k;

	plan_init(w);
	for (i = 0; i < 5; i++) {
		snprintf(w->paths[i], sizeof(w->paths[i]), "/d/%s", pnames[i]);
		w->ps[i] = (struct iot_path_state){ .path = w->paths[i], .t_ns = made[i] };
	}
	w->p.ps = w->ps;
	w->p.n_ps = 5;
	for (i = 0; order[i]; i++) {
		for (k = 0; k < 5 && strcmp(pnames[k], order[i]) != 0; k++)
			;
		assert_true(k < 5);
		add(w, SYS_openat, AT_FDCWD, w->paths[k], 5);
		add(w, SYS_read, 5, NULL, 100);
		add(w, SYS_close, 5, NULL, 0);
	}
	add(w, SYS_exit_group, 0, NULL, 0);
}

/* Directory @dir listed here (by any thread) as @names, NULL-ended. */
static void list_dir(struct walk *w, const char *dir, const char *const *names)
{
	_Alignas(struct dirent64) char buf[8 * 32 + sizeof(struct dirent64)];
	size_t off = 0, i;

	memset(buf, 0, sizeof(buf));
	for (i = 0; names[i]; i++) {
		struct dirent64 *d = (struct dirent64 *)(buf + off);

		d->d_reclen = 32;
		strcpy(d->d_name, names[i]);
		off += 32;
	}
	rpl_dirwalk_listed(&w->t, 9, dir, buf, (int64_t)off);
}

/* The files opened, in the thread's order now, as "c/y c/x a b". */
static void opened_paths(const struct walk *w, char *out, size_t len)
{
	uint32_t i;

	*out = 0;
	for (i = 0; i < w->t.n_ops; i++) {
		const struct rpl_op *op = &w->p.ops[w->t.ops[i]];

		if (op->ev.nr == SYS_openat) {
			if (*out)
				strncat(out, " ", len - strlen(out) - 1);
			strncat(out, op->ev.path + 3, len - strlen(out) - 1);
		}
	}
}

/* Each file's three calls still together, the exit last. */
static void files_whole(const struct walk *w)
{
	uint32_t i;

	for (i = 0; i + 1 < w->t.n_ops; i += 3) {
		assert_int_equal(w->p.ops[w->t.ops[i]].ev.nr, SYS_openat);
		assert_int_equal(w->p.ops[w->t.ops[i + 1]].ev.nr, SYS_read);
		assert_int_equal(w->p.ops[w->t.ops[i + 2]].ev.nr, SYS_close);
	}
	assert_int_equal(w->p.ops[w->t.ops[w->t.n_ops - 1]].ev.nr, SYS_exit_group);
}

static void path_done(struct walk *w)
{
	rpl_dirwalk_free(&w->t);
	rpl_dirwalk_listed_free(&w->p);
}

static const char *const d_here[] = { ".", "..", "c", "a", "b", NULL };
static const char *const c_here[] = { "y", "x", NULL };

/* Files @order named by path (by_path_of()), after @mod changed an op
 * (-1: none; @a0 its first argument, or its needed mark if @needed),
 * /d listed if @dirs > 0 and /d/c too if @dirs > 1; the run from the
 * first op looked at: the files opened, in order, in @got. */
static void run_paths(struct walk *w, const char *const *order, int dirs, int mod,
		      int64_t a0, int needed, char *got, size_t len)
{
	by_path_of(w, order);
	if (mod >= 0 && needed)
		w->ops[mod].needed = 1;
	else if (mod >= 0)
		w->ops[mod].ev.args[0] = a0;
	if (dirs > 0)
		list_dir(w, "/d", d_here);
	if (dirs > 1)
		list_dir(w, "/d/c/", c_here);
	rpl_dirwalk_paths(&w->t, 0);
	opened_paths(w, got, len);
}

/* Recorded in the recording filesystem's walk order (a, c/x, c/y, b),
 * listed here as c (y, x), a, b: taken in that order, each file's calls
 * whole; a file of a subdirectory goes where the subdirectory is listed. */
static void paths_listed_order_moves(void **state)
{
	static const char *const order[] = { "a", "c/x", "c/y", "b", NULL };
	static const char *const flat[] = { "a", "c", "b", NULL };
	struct walk w;
	char got[64];

	(void)state;
	run_paths(&w, order, 2, -1, 0, 0, got, sizeof(got));
	assert_string_equal(got, "c/y c/x a b");
	files_whole(&w);
	assert_int_equal(w.t.walk_runs, 1);
	assert_int_equal(w.t.walk_run_moved, 4);
	assert_int_equal(w.t.pw_from, 12);	/* the exit ends the run */
	path_done(&w);

	run_paths(&w, flat, 1, -1, 0, 0, got, sizeof(got));
	assert_string_equal(got, "c a b");
	files_whole(&w);
	path_done(&w);
}

/* In the order of the names, or already as listed here: kept. */
static void paths_chosen_order_kept(void **state)
{
	static const char *const by_name[] = { "a", "b", "c/x", "c/y", NULL };
	static const char *const as_here[] = { "c/y", "c/x", "a", "b", NULL };
	struct walk w;
	char got[64];

	(void)state;
	run_paths(&w, by_name, 2, -1, 0, 0, got, sizeof(got));
	assert_string_equal(got, "a b c/x c/y");
	assert_int_equal(w.t.walk_runs, 0);
	path_done(&w);

	run_paths(&w, as_here, 2, -1, 0, 0, got, sizeof(got));
	assert_string_equal(got, "c/y c/x a b");
	assert_int_equal(w.t.walk_runs, 0);
	path_done(&w);
}

/* Not moved: files of a directory nobody listed here (the run ends
 * there), a listing of none of them, a descriptor one file opens and
 * the next one closes, or a call another thread waits for on a file's
 * descriptor; a file named twice ends the run before it. */
static void paths_unmovable_kept(void **state)
{
	static const char *const order[] = { "a", "c/x", "c/y", "b", NULL };
	static const char *const flat[] = { "a", "c", "b", NULL };
	static const char *const twice[] = { "a", "c", "b", "a", NULL };
	struct walk w;
	char got[64];

	(void)state;
	run_paths(&w, order, 1, -1, 0, 0, got, sizeof(got));	/* /d/c not listed */
	assert_string_equal(got, "a c/x c/y b");
	assert_int_equal(w.t.pw_from, 3);	/* c/x ends the run */
	path_done(&w);

	run_paths(&w, flat, 0, -1, 0, 0, got, sizeof(got));	/* nothing listed */
	assert_string_equal(got, "a c b");
	assert_int_equal(w.t.pw_from, 1);
	path_done(&w);

	/* the first file's close is of another descriptor */
	run_paths(&w, flat, 1, 2, 6, 0, got, sizeof(got));
	assert_string_equal(got, "a c b");
	assert_int_equal(w.t.walk_runs, 0);
	path_done(&w);

	/* the second file's read is waited for */
	run_paths(&w, flat, 1, 4, 0, 1, got, sizeof(got));
	assert_string_equal(got, "a c b");
	assert_int_equal(w.t.walk_runs, 0);
	path_done(&w);

	run_paths(&w, twice, 1, -1, 0, 0, got, sizeof(got));
	assert_string_equal(got, "c a b a");	/* the second a ends the run */
	assert_int_equal(w.t.walk_run_moved, 3);
	assert_int_equal(w.t.pw_from, 9);
	path_done(&w);

	/* the last file's open waits for another thread's call (the go
	 * command's threads share a descriptor table: its fd 5 waits for the
	 * other's close of its own fd 5), not yet made: moved ahead, the
	 * other files' opens would pass that wait; made, the run moves */
	{
		struct rpl_thread th[2];
		struct rpl_dep dep = { .thread = 1, .pos = 0 };
		uint32_t done_then;

		for (done_then = 0; done_then < 2; done_then++) {
			by_path_of(&w, flat);
			memset(th, 0, sizeof(th));
			atomic_store(&th[1].n_done, done_then);
			w.p.threads = th;
			w.p.n_threads = 2;
			w.p.deps = &dep;
			w.ops[6].ndeps = 1;	/* b's open */
			w.ops[6].dep_off = 0;
			list_dir(&w, "/d", d_here);
			rpl_dirwalk_paths(&w.t, 0);
			opened_paths(&w, got, sizeof(got));
			assert_string_equal(got, done_then ? "c a b" : "a c b");
			assert_int_equal(w.t.walk_runs, done_then ? 1 : 0);
			path_done(&w);
		}
	}
}

/* A read of a descriptor none of the files opened (the list the names
 * come from) stays where it was while the files' calls move around it. */
static void paths_input_read_stays(void **state)
{
	static const char *const flat[] = { "a", "c", "b", NULL };
	struct walk w;
	char got[64];

	(void)state;
	by_path_of(&w, flat);
	w.ops[1].ev.args[0] = 3;	/* a's read: of the list, fd 3 */
	list_dir(&w, "/d", d_here);
	rpl_dirwalk_paths(&w.t, 0);
	opened_paths(&w, got, sizeof(got));
	assert_string_equal(got, "c a b");
	assert_int_equal(w.ops[w.t.ops[1]].ev.nr, SYS_read);
	assert_int_equal(w.ops[w.t.ops[1]].ev.args[0], 3);	/* still second */
	assert_int_equal(w.ops[w.t.ops[0]].ev.nr, SYS_openat);	/* c's open */
	assert_string_equal(w.ops[w.t.ops[0]].ev.path, "/d/c");
	assert_int_equal(w.ops[w.t.ops[2]].ev.args[0], 5);	/* c's read */
	path_done(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(walk_listed_order_moves),
		cmocka_unit_test(walk_chosen_order_kept),
		cmocka_unit_test(walk_unmovable_kept),
		cmocka_unit_test(paths_listed_order_moves),
		cmocka_unit_test(paths_chosen_order_kept),
		cmocka_unit_test(paths_unmovable_kept),
		cmocka_unit_test(paths_input_read_stays),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
