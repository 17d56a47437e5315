/*
 * test_record.c - the recorder's pure parts: lexical path joining, the
 * descriptor table (dup, rename, exec, CLONE_FILES sharing) and the
 * /proc/self/fd rewrite.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "rec.h"

static void check_abs(const char *base, const char *p, const char *want)
{
	uint32_t len = 0;
	char *got = rec_path_abs(base, p, &len);

	assert_non_null(got);
	assert_string_equal(got, want);
	assert_int_equal(len, strlen(want));
	free(got);
}

static void test_path_abs(void **state)
{
	check_abs("/home/u", "a/b", "/home/u/a/b");
	check_abs("/home/u", "/etc//passwd", "/etc/passwd");
	check_abs("/home/u/", "./a/./b/", "/home/u/a/b");
	check_abs("/home/u", "../x", "/home/u/../x");	/* never resolved */
	check_abs("/", ".", "/");
	check_abs(NULL, "rel", "/rel");
	/* a plain path is copied whole; one with an empty or "." component
	 * anywhere, or a '/' at an end, a component at a time */
	check_abs("/home/u", ".a/..b/c.", "/home/u/.a/..b/c.");
	check_abs("/home/u", "a/.", "/home/u/a");
	check_abs("/home/u", "a/./", "/home/u/a");
	check_abs("/home/u/.", "a", "/home/u/a");
	check_abs("/home//u", "a", "/home/u/a");
	check_abs("/", "/", "/");
	check_abs("/", "..", "/..");
}

static struct rec_task *mk_task(void)
{
	struct rec_task *t = calloc(1, sizeof(*t));

	t->fds = calloc(1, sizeof(*t->fds));
	t->fs = calloc(1, sizeof(*t->fs));
	t->mm = calloc(1, sizeof(*t->mm));
	t->fds->refs = t->fs->refs = t->mm->refs = 1;
	t->fs->cwd = strdup("/w");
	return t;
}

static void test_fdtab(void **state)
{
	struct rec_ctx c;
	struct rec_task *t, *ch, *th;
	uint32_t len;
	long self;
	char *p;

	memset(&c, 0, sizeof(c));
	assert_int_equal(rec_tasks_init(&c), 0);
	t = mk_task();
	t->tid = t->pid = 100;
	c.by_tid[100] = t;
	c.ntasks = 1;
	rec_fd_set(t, 3, "/w/d", 4, 1);
	rec_fd_set(t, 4, "/w/d/f", 6, 0);
	rec_fd_rename(t, "/w/d", 4, "/w/e", 4);
	assert_string_equal(rec_fd_path(t, 3, NULL), "/w/e");
	assert_string_equal(rec_fd_path(t, 4, &len), "/w/e/f");
	assert_int_equal(len, 6);

	/* /proc/self/fd/4 and /proc/100/fd/4 name the open file, a
	 * descriptor of the caller's own table, which is kept */
	p = strdup("/proc/self/fd/4");
	assert_int_equal(rec_path_magic(&c, t, &p, &len, &self), 1);
	assert_string_equal(p, "/w/e/f");
	assert_int_equal(self, 4);
	free(p);
	p = strdup("/proc/100/fd/3");
	assert_int_equal(rec_path_magic(&c, t, &p, &len, NULL), 1);
	assert_string_equal(p, "/w/e");
	free(p);
	p = strdup("/w/x");
	assert_int_equal(rec_path_magic(&c, t, &p, &len, &self), 0);
	assert_int_equal(self, -1);
	free(p);
	/* /dev/fd/N and /dev/stdin are links to /proc/self/fd/N */
	p = strdup("/dev/fd/4");
	assert_int_equal(rec_path_magic(&c, t, &p, &len, &self), 1);
	assert_string_equal(p, "/w/e/f");
	assert_int_equal(self, 4);
	free(p);
	rec_fd_set(t, 0, "/w/in", 5, 0);
	p = strdup("/dev/stdin");
	assert_int_equal(rec_path_magic(&c, t, &p, &len, &self), 1);
	assert_string_equal(p, "/w/in");
	assert_int_equal(self, 0);
	free(p);
	p = strdup("/dev/fd/4x");
	assert_int_equal(rec_path_magic(&c, t, &p, &len, &self), 0);
	free(p);
	p = strdup("/dev/null");
	assert_int_equal(rec_path_magic(&c, t, &p, &len, &self), 0);
	assert_int_equal(self, -1);
	free(p);

	/* an O_TMPFILE file linked takes the link's name; a named one
	 * linked keeps its own */
	rec_fd_set(t, 5, "/w/e", 4, 1);
	rec_fd_unnamed(t, 5);
	rec_fd_linked(t, 5, "/w/e/n", 6);
	assert_string_equal(rec_fd_path(t, 5, NULL), "/w/e/n");
	rec_fd_linked(t, 5, "/w/e/m", 6);
	assert_string_equal(rec_fd_path(t, 5, NULL), "/w/e/n");
	rec_fd_linked(t, 4, "/w/e/o", 6);
	assert_string_equal(rec_fd_path(t, 4, NULL), "/w/e/f");
	rec_fd_close(t, 5);

	/* fork copies the table, a thread shares it */
	ch = calloc(1, sizeof(*ch));
	th = calloc(1, sizeof(*th));
	assert_int_equal(rec_task_inherit(ch, t, 0), 0);
	assert_int_equal(rec_task_inherit(th, t, CLONE_THREAD | CLONE_FILES | CLONE_FS | CLONE_VM), 0);
	rec_fd_close(th, 4);
	assert_null(rec_fd_path(t, 4, NULL));
	assert_non_null(rec_fd_path(ch, 4, NULL));
	/* exec closes O_CLOEXEC descriptors and unshares the table */
	rec_fd_exec(ch);
	assert_null(rec_fd_path(ch, 3, NULL));
	assert_non_null(rec_fd_path(t, 3, NULL));
	rec_task_del(&c, ch);
	rec_task_del(&c, th);
	rec_tasks_free(&c);
}

static void test_skipped(void **state)
{
	assert_true(rec_path_skipped("/proc/self/maps"));
	assert_true(rec_path_skipped("/dev/null"));
	assert_true(rec_path_skipped("/sys"));
	assert_false(rec_path_skipped("/devices"));
	assert_false(rec_path_skipped("/home/proc"));
}

/*
 * An accept whose client sent and closed before it was accepted (a
 * forking server with a full backlog): the kernel names no peer inode
 * for it, and the recorder takes the connection that the connecting
 * process made (SO_PEERCRED), its oldest not yet accepted; one whose
 * peer the kernel names is that one, and leaves the others.  Here a
 * forked child connects twice to a listener and closes both; the
 * parent connects once too, and accepts all three.
 */
static void test_conn_peer(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct rec_ctx c;
	struct stat st;
	int ls, cs, a, k, status, p2c[2];
	uint64_t ino[2];
	pid_t kid;

	(void)state;
	/* (valgrind 3.19 knows neither pidfd call: ENOSYS) */
	if ((k = (int)syscall(SYS_pidfd_open, getpid(), 0)) < 0) {
		skip();
		return;
	}
	close(k);
	memset(&c, 0, sizeof(c));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/tmp/iotape-connpeer.%d", (int)getpid());
	unlink(sa.sun_path);
	assert_true((ls = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0);
	assert_int_equal(bind(ls, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(ls, 8), 0);
	assert_int_equal(pipe(p2c), 0);
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		for (k = 0; k < 2; k++) {
			uint64_t v;

			cs = socket(AF_UNIX, SOCK_STREAM, 0);
			if (cs < 0 || connect(cs, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
			    fstat(cs, &st) < 0)
				_exit(1);
			v = (uint64_t)st.st_ino;
			if (write(p2c[1], &v, sizeof(v)) != sizeof(v))
				_exit(1);
			close(cs);
		}
		_exit(0);
	}
	assert_int_equal(waitpid(kid, &status, 0), kid);
	assert_int_equal(status, 0);
	assert_int_equal(read(p2c[0], ino, sizeof(ino)), sizeof(ino));
	rec_conn_made(&c, kid, ino[0]);
	rec_conn_made(&c, kid, ino[1]);
	rec_conn_made(&c, getpid(), 777);	/* (the parent's, below) */
	/* the first: its client has closed, the kernel names none */
	assert_true((a = accept(ls, NULL, NULL)) >= 0);
	assert_int_equal(rec_conn_peer(&c, getpid(), a, 0), ino[0]);
	close(a);
	/* one the kernel names: that one */
	assert_true((a = accept(ls, NULL, NULL)) >= 0);
	assert_int_equal(rec_conn_peer(&c, getpid(), a, ino[1]), ino[1]);
	close(a);
	assert_int_equal(c.n_conns, 1);
	/* the parent's own: its entry, the child's being taken */
	assert_true((cs = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0);
	assert_int_equal(connect(cs, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(cs);
	assert_true((a = accept(ls, NULL, NULL)) >= 0);
	assert_int_equal(rec_conn_peer(&c, getpid(), a, 0), 777);
	assert_int_equal(c.n_conns, 0);
	/* none left: unknown */
	assert_int_equal(rec_conn_peer(&c, getpid(), a, 0), 0);
	close(a);
	close(ls);
	close(p2c[0]);
	close(p2c[1]);
	unlink(sa.sun_path);
	free(c.conns);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_abs),
		cmocka_unit_test(test_fdtab),
		cmocka_unit_test(test_skipped),
		cmocka_unit_test(test_conn_peer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
