/*
 * test_replay_dcache.c - the replay's cache of parent directories
 * (replay/dcache.c): directories whose paths' hashes meet in the table's
 * bits are kept side by side, up to RPL_DC_WAYS of them, not taking turns
 * in one slot (each turn an openat2 and a close); past that, the one used
 * longest ago gives way.
 *
 * Whether a parent was looked up again is told by the directory itself:
 * once each is cached, every one is renamed away under the root and
 * another made at its path, behind the cache's back (no generation
 * moves); a parent still cached is the renamed directory, one looked up
 * again is the new one.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "rpl.h"

#define NDIRS (RPL_DC_WAYS + 1)

static char tmp[256];

static int setup(void **state)
{
	const char *t = getenv("TMPDIR");

	(void)state;
	snprintf(tmp, sizeof(tmp), "%s/iotape-dcache-XXXXXX", t ? t : "/tmp");
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[400];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

/* NDIRS directory names "/dK" whose hashes all fall in one slot of a
 * table of RPL_DC_OWN slots, one per hash. */
static void colliding(char names[NDIRS][16])
{
	uint64_t slot = 0;
	int n = 0, k;

	for (k = 0; n < NDIRS && k < 1000000; k++) {
		char s[16];
		uint64_t h;

		snprintf(s, sizeof(s), "/d%d", k);
		h = iot_hash(s, strlen(s), 3) & (RPL_DC_OWN - 1);
		if (n == 0)
			slot = h;
		if (h == slot)
			memcpy(names[n++], s, sizeof(s));
	}
	assert_int_equal(n, NDIRS);
}

/* The inode of the parent the cache gives for a file in @dir. */
static ino_t parent_ino(struct rpl_ctx *c, const char *dir)
{
	struct rpl_name n;
	struct stat st;
	char path[64];

	snprintf(path, sizeof(path), "%s/f", dir);
	assert_int_equal(rpl_parent_at(c, path, &n), 0);
	assert_string_equal(n.name, "f");
	assert_int_equal(fstat(n.dirfd, &st), 0);
	rpl_name_done(&n);
	return st.st_ino;
}

static ino_t ino_at(int root, const char *name)
{
	struct stat st;

	assert_int_equal(fstatat(root, name, &st, 0), 0);
	return st.st_ino;
}

/* Each of @names moved to NAME.old under @root, a new directory made at
 * NAME. */
static void replace_all(int root, char names[NDIRS][16], int n)
{
	char old[96];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(old, sizeof(old), "%s.old", names[i] + 1);
		assert_int_equal(renameat(root, names[i] + 1, root, old), 0);
		assert_int_equal(mkdirat(root, names[i] + 1, 0755), 0);
	}
}

/* The cache under test, freed by the teardown even when an assertion
 * ends the test early (under valgrind, which does not know openat2(2),
 * the first lookup fails). */
static struct rpl_dcache *dc;

static int free_cache(void **state)
{
	(void)state;
	rpl_dcache_free(dc);
	dc = NULL;
	return 0;
}

/* A replay thread's context with a cache of its own (freed by
 * free_cache()), its root the test's directory, opened as @f->root. */
struct fixture {
	struct rpl_plan p;
	struct rpl_opts o;
	struct rpl_thread t;
	struct rpl_ctx c;
	int root;
};

static struct rpl_ctx *fixture_ctx(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->o.cmd = "test";
	f->root = open(tmp, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(f->root >= 0);
	f->p.o = &f->o;
	f->p.root_fd = f->root;
	dc = f->t.dcache = rpl_dcache_new(RPL_DC_OWN);
	assert_non_null(f->t.dcache);
	f->c = (struct rpl_ctx){ .p = &f->p, .t = &f->t };
	return &f->c;
}

static void test_ways(void **state)
{
	static struct fixture f;
	struct rpl_ctx *c = fixture_ctx(&f);
	char names[NDIRS][16], old[96];
	ino_t first[NDIRS];
	int root = f.root, i;

	(void)state;
	colliding(names);
	for (i = 0; i < NDIRS; i++)
		assert_int_equal(mkdirat(root, names[i] + 1, 0755), 0);

	/* RPL_DC_WAYS of them, in turns, as postmark's directories */
	for (int round = 0; round < 3; round++)
		for (i = 0; i < RPL_DC_WAYS; i++) {
			ino_t ino = parent_ino(c, names[i]);

			if (round == 0)
				first[i] = ino;
			assert_true(ino == first[i]);
		}
	replace_all(root, names, RPL_DC_WAYS);
	for (i = 0; i < RPL_DC_WAYS; i++) {
		snprintf(old, sizeof(old), "%s.old", names[i] + 1);
		/* still cached: the directory it first found */
		assert_true(parent_ino(c, names[i]) == ino_at(root, old));
	}

	/* one more than the set holds: the least recently used goes, the
	 * first (used since) stays */
	(void)parent_ino(c, names[0]);
	(void)parent_ino(c, names[RPL_DC_WAYS]);
	assert_true(parent_ino(c, names[1]) == ino_at(root, names[1] + 1));
	snprintf(old, sizeof(old), "%s.old", names[0] + 1);
	assert_true(parent_ino(c, names[0]) == ino_at(root, old));

	close(root);
}

/*
 * An op's second name (a link's source, a rename's target) is looked up
 * while the first's descriptor is in use.  When the first's parent went
 * stale in between (another thread removed or renamed a directory) and
 * the second names the same parent, its slot is the one the second would
 * take: rpl_parent_at2() takes another and leaves the first's open.
 */
static void test_second_name(void **state)
{
	static struct fixture f;
	struct rpl_ctx *c = fixture_ctx(&f);
	struct rpl_name a, b;
	struct stat st;
	int root = f.root;

	(void)state;
	assert_int_equal(mkdirat(root, "s", 0755), 0);

	assert_int_equal(rpl_parent_at(c, "/s/a", &a), 0);
	assert_int_equal(a.owned, 0);		/* the cache's */
	rpl_ns_changed(&f.p);
	assert_int_equal(rpl_parent_at2(c, "/s/b", &b, &a), 0);
	assert_true(b.dirfd != a.dirfd);
	assert_int_equal(fstat(a.dirfd, &st), 0);	/* still open */
	assert_true(S_ISDIR(st.st_mode));
	assert_string_equal(b.name, "b");
	/* both are kept: a third lookup finds the second's, unchanged */
	assert_int_equal(rpl_parent_at(c, "/s/c", &a), 0);
	assert_int_equal(a.dirfd, b.dirfd);
	rpl_name_done(&a);
	rpl_name_done(&b);
	close(root);
}

/*
 * A parent that is not there: ENOENT from one lookup of its name in its
 * own cached parent, for opens with O_CREAT too, as the whole path would
 * say; nothing of the miss is kept, so the directory made behind the
 * cache's back (no generation moves) is found at the next look.
 */
static void test_missing_parent(void **state)
{
	static struct fixture f;
	struct rpl_ctx *c = fixture_ctx(&f);
	struct rpl_name n;
	int root = f.root, fd;

	(void)state;
	assert_int_equal(mkdirat(root, "m", 0755), 0);

	assert_int_equal(rpl_parent_at(c, "/m/f", &n), 0);	/* /m cached */
	rpl_name_done(&n);
	assert_int_equal(rpl_parent_at(c, "/m/no/f", &n), -ENOENT);
	assert_int_equal(rpl_open_at(c, "/m/no/f", O_RDONLY | O_CLOEXEC, 0), -ENOENT);
	assert_int_equal(rpl_open_at(c, "/m/no/f", O_WRONLY | O_CREAT | O_CLOEXEC, 0644), -ENOENT);
	assert_int_equal(rpl_open_at(c, "/none/no/f", O_RDONLY | O_CLOEXEC, 0), -ENOENT);
	assert_int_equal(faccessat(root, "m/no", F_OK, 0), -1);
	assert_int_equal(mkdirat(root, "m/no", 0755), 0);
	fd = rpl_open_at(c, "/m/no/f", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(faccessat(root, "m/no/f", F_OK, 0), 0);
	/* a file where a directory is asked for: not ENOENT */
	assert_int_equal(rpl_open_at(c, "/m/no/f/g", O_RDONLY | O_CLOEXEC, 0), -ENOTDIR);
	close(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_ways, free_cache),
		cmocka_unit_test_teardown(test_second_name, free_cache),
		cmocka_unit_test_teardown(test_missing_parent, free_cache),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
