/*
 * test_replay_walk.c - a directory walk regrouped in the order the
 * filesystem under test lists the directory (dirwalk.c), on plans made
 * by hand: which walks move, and that each entry's calls move whole.
 */
#include <dirent.h>
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

	memset(w, 0, sizeof(*w));
	w->p.ops = w->ops;
	w->p.threads = &w->t;
	w->p.n_threads = 1;
	w->t.plan = &w->p;
	w->t.ops = w->idx;
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
	rpl_dirwalk_listed(&w->t, DFD, buf, (int64_t)off);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(walk_listed_order_moves),
		cmocka_unit_test(walk_chosen_order_kept),
		cmocka_unit_test(walk_unmovable_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
