/*
 * test_replay_io.c - replay choices that depend on the target filesystem
 * and on how a call is made: a clone that works here but failed when
 * recorded (the copy after it is not replayed), one that worked but fails
 * here (the copy is made), and path xattr calls made in the cached parent
 * (following a symlink at the last component, or not).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <cmocka.h>

#include "rpl.h"
#include "trace_build.h"

#define SRC_SIZE 100000

static char tmp[256];

static int setup(void **state)
{
	const char *t = getenv("TMPDIR");

	snprintf(tmp, sizeof(tmp), "%s/iotape-rplio-XXXXXX", t ? t : "/tmp");
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

static struct w open_trace(const char *path)
{
	struct iot_header h = { .kind = IOT_KIND_TRACE, .host = "test", .start_ns = 1000000000LL };
	struct w w = { .t = 1000000000LL + 1000 * US };

	assert_int_equal(iot_writer_open(&w.w, path, &h, NULL), 0);
	return w;
}

static void close_trace(struct w *w)
{
	ev(w, 100, SYS_exit_group, 0, NULL, NULL, 1, A(0));
	assert_int_equal(w->err, 0);
	assert_int_equal(iot_writer_close(w->w, 0), 0);
}

/* Does FICLONE work in the test directory? */
static int clone_works(void)
{
	char a[300], b[300];
	int fa, fb, ok;

	snprintf(a, sizeof(a), "%s/probe-a", tmp);
	snprintf(b, sizeof(b), "%s/probe-b", tmp);
	fa = open(a, O_RDWR | O_CREAT, 0644);
	fb = open(b, O_RDWR | O_CREAT, 0644);
	assert_true(fa >= 0 && fb >= 0);
	assert_int_equal(write(fa, "x", 1), 1);
	ok = ioctl(fb, FICLONE, fa) == 0;
	close(fa);
	close(fb);
	unlink(a);
	unlink(b);
	return ok;
}

/* cp of /w/src to /w/dst as coreutils 9 makes it: FICLONE, and when that
 * failed, copy_file_range until it returns 0. */
static void write_cp(const char *path, int cloned)
{
	struct w w = open_trace(path);

	st(&w, "/w", S_IFDIR, 0, NULL, 1, 2);
	st(&w, "/w/src", S_IFREG, SRC_SIZE, NULL, 1, 1);
	st(&w, "/w/dst", 0, 0, NULL, 1, 1);
	ev(&w, 100, SYS_openat, 3, "/w/src", NULL, 4, A(AT_FDCWD), A(0), A(O_RDONLY), A(0));
	ev(&w, 100, SYS_openat, 4, "/w/dst", NULL, 4, A(AT_FDCWD), A(0),
	   A(O_WRONLY | O_CREAT | O_EXCL), A(0644));
	ev(&w, 100, SYS_ioctl, cloned ? 0 : -EOPNOTSUPP, NULL, NULL, 3, A(4), A(FICLONE), A(3));
	if (!cloned) {
		ev(&w, 100, SYS_copy_file_range, SRC_SIZE, NULL, NULL, 6, A(3), A(-1), A(4), A(-1),
		   A(1LL << 30), A(0));
		ev(&w, 100, SYS_copy_file_range, 0, NULL, NULL, 6, A(3), A(-1), A(4), A(-1),
		   A(1LL << 30), A(0));
	}
	ev(&w, 100, SYS_close, 0, NULL, NULL, 1, A(4));
	ev(&w, 100, SYS_close, 0, NULL, NULL, 1, A(3));
	close_trace(&w);
}

static void replay(const char *name, struct rpl_result *res, char *root, size_t len)
{
	struct rpl_opts o = { .cmd = "test", .quiet = 1, .timing = RPL_TIMING_AFAP };
	char trace[400];

	snprintf(trace, sizeof(trace), "%s/%s.iotape", tmp, name);
	snprintf(root, len, "%s/%s.root", tmp, name);
	assert_int_equal(mkdir(root, 0755), 0);
	o.trace = trace;
	o.root = root;
	assert_int_equal(rpl_run(&o, res), 0);
}

static off_t size_of(const char *root, const char *path)
{
	char f[600];
	struct stat s;

	snprintf(f, sizeof(f), "%s%s", root, path);
	assert_int_equal(stat(f, &s), 0);
	return s.st_size;
}

/* Recorded where the clone failed: here the copy is replayed, or, if the
 * clone works here, left out.  The destination gets the data either way. */
static void clone_failed_when_recorded(void **state)
{
	static struct rpl_result res;
	char trace[400], root[400];
	int works = clone_works();

	snprintf(trace, sizeof(trace), "%s/nocl.iotape", tmp);
	write_cp(trace, 0);
	replay("nocl", &res, root, sizeof(root));
	assert_int_equal(size_of(root, "/w/dst"), SRC_SIZE);
	assert_int_equal(res.skipped_by[RPL_SKIP_CLONED], works ? 2 : 0);
	assert_int_equal(res.mismatches, 0);
	assert_int_equal(res.probe_diffs, works ? 1 : 0);
}

/* Recorded where the clone worked (no copy in the trace): where it fails,
 * the copy the program would then make is made. */
static void clone_worked_when_recorded(void **state)
{
	static struct rpl_result res;
	char trace[400], root[400];
	int works = clone_works();

	snprintf(trace, sizeof(trace), "%s/cl.iotape", tmp);
	write_cp(trace, 1);
	replay("cl", &res, root, sizeof(root));
	assert_int_equal(size_of(root, "/w/dst"), SRC_SIZE);
	assert_int_equal(res.skipped_by[RPL_SKIP_CLONED], 0);
	assert_int_equal(res.probe_diffs, works ? 0 : 1);
}

/* Path xattr calls: set through the name, read back following a symlink
 * to it (getxattr) and not following it (lgetxattr: a symlink holds no
 * user.* xattr), listed, removed; every result as recorded. */
static void xattr_paths(void **state)
{
	static struct rpl_result res;
	char trace[400], root[400], probe[400], f[600], buf[64];
	struct w w;

	snprintf(probe, sizeof(probe), "%s/probe", tmp);
	close(open(probe, O_WRONLY | O_CREAT, 0644));
	if (setxattr(probe, "user.k", "v", 1, 0) < 0) {
		unlink(probe);
		skip();		/* no user xattrs on this filesystem */
	}
	unlink(probe);
	snprintf(trace, sizeof(trace), "%s/xa.iotape", tmp);
	w = open_trace(trace);
	st(&w, "/w", S_IFDIR, 0, NULL, 1, 2);
	st(&w, "/w/f", S_IFREG, 10, NULL, 1, 1);
	st(&w, "/w/l", S_IFLNK, 0, "f", 1, 1);
	ev(&w, 100, SYS_setxattr, 0, "/w/f", "user.k", 5, A(0), A(0), A(0), A(4), A(0));
	ev(&w, 100, SYS_getxattr, 4, "/w/l", "user.k", 4, A(0), A(0), A(0), A(64));
	ev(&w, 100, SYS_lgetxattr, -ENODATA, "/w/l", "user.k", 4, A(0), A(0), A(0), A(64));
	ev(&w, 100, SYS_lgetxattr, 4, "/w/f", "user.k", 4, A(0), A(0), A(0), A(64));
	ev(&w, 100, SYS_listxattr, 7, "/w/l", NULL, 3, A(0), A(0), A(64));
	ev(&w, 100, SYS_getxattr, -ENOENT, "/w/none", "user.k", 4, A(0), A(0), A(0), A(64));
	ev(&w, 100, SYS_setxattr, 0, "/w/f", "user.gone", 5, A(0), A(0), A(0), A(2), A(0));
	ev(&w, 100, SYS_removexattr, 0, "/w/l", "user.gone", 2, A(0), A(0));
	close_trace(&w);
	replay("xa", &res, root, sizeof(root));
	assert_int_equal(res.mismatches, 0);
	assert_int_equal(res.skipped, 0);
	snprintf(f, sizeof(f), "%s/w/f", root);
	assert_int_equal(getxattr(f, "user.k", buf, sizeof(buf)), 4);
	assert_int_equal(getxattr(f, "user.gone", buf, sizeof(buf)), -1);
	assert_int_equal(errno, ENODATA);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clone_failed_when_recorded),
		cmocka_unit_test(clone_worked_when_recorded),
		cmocka_unit_test(xattr_paths),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
