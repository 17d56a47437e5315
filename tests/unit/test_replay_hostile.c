/*
 * test_replay_hostile.c - traces that try to make the replayer act outside
 * its root ("..", absolute and relative symlinks out, names made into
 * links to the outside), with impossible values (negative and unknown
 * descriptors, enormous sizes and offsets, unknown syscalls, a huge think
 * time, two processes waiting for each other).  A canary directory beside the root must be left exactly as it
 * was, and the replay must end.
 *
 * Also a trace writer for tests/integration/replay_hostile.sh:
 *   test_replay_hostile --write TRACE CANARY
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
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "rpl.h"
#include "trace_build.h"

#define BIG (1LL << 62)

/* Write the hostile trace @path aimed at directory @canary. */
static int write_hostile(const char *path, const char *canary)
{
	struct iot_header h = { .kind = IOT_KIND_TRACE, .host = "hostile" };
	struct w w = { .t = 1000000000LL };
	char up[600], rel[600], longp[6000], dotdot[600];
	int rc;

	snprintf(up, sizeof(up), "/../../../..%s/file", canary);
	snprintf(rel, sizeof(rel), "../../../../../../../..%s", canary);
	snprintf(dotdot, sizeof(dotdot), "/d/../..%s/planted", canary);
	memset(longp, 'x', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = 0;
	rc = iot_writer_open(&w.w, path, &h, NULL);
	if (rc < 0)
		return rc;
	st(&w, "/d", S_IFDIR, 4096, NULL, 10, 2);
	st(&w, "/d/f", S_IFREG, 10, NULL, 11, 2);
	st(&w, "/d/f-link", S_IFREG, 10, NULL, 11, 2);
	st(&w, "/abs", S_IFLNK, 5, canary, 12, 1);
	st(&w, "/rel", S_IFLNK, 5, rel, 13, 1);
	st(&w, "/big", S_IFREG, 1ULL << 50, NULL, 14, 1);
	st(&w, dotdot, S_IFREG, 7, NULL, 15, 1);
	st(&w, up, S_IFREG, 3, NULL, 16, 1);
	/* a directory's state at a name that is a symlink out (made from
	 * another path through /ln): its mode set last must not follow it */
	st(&w, "/d/s", S_IFLNK, 5, canary, 17, 1);
	st(&w, "/ln", S_IFLNK, 1, "d", 18, 1);
	{
		struct iot_path_state ps = {
			.path = "/ln/s", .path_len = 5, .type = S_IFDIR, .mode = 0700, .dev = 1,
			.ino = 19, .nlink = 2, .mtime_ns = 1, .atime_ns = 1, .t_ns = w.t,
		};

		if (!w.err)
			w.err = iot_writer_path_state(w.w, &ps);
	}

	/* through symlinks out of the root */
	ev(&w, 1, SYS_openat, 3, "/abs/victim", NULL, 4, A(AT_FDCWD), A(0), A(O_WRONLY | O_CREAT | O_TRUNC), A(0644));
	ev(&w, 1, SYS_write, 100, NULL, NULL, 3, A(3), A(0), A(100));
	ev(&w, 1, SYS_openat, 4, "/abs/file", NULL, 4, A(AT_FDCWD), A(0), A(O_WRONLY | O_TRUNC), A(0));
	ev(&w, 1, SYS_write, 50, NULL, NULL, 3, A(4), A(0), A(50));
	ev(&w, 1, SYS_openat, 5, "/rel/file", NULL, 4, A(AT_FDCWD), A(0), A(O_RDWR | O_APPEND), A(0));
	ev(&w, 1, SYS_write, 5, NULL, NULL, 3, A(5), A(0), A(5));
	ev(&w, 1, SYS_open, 6, up, NULL, 3, A(O_WRONLY | O_TRUNC), A(0));
	ev(&w, 1, SYS_unlink, 0, "/abs/file", NULL, 1, A(0));
	ev(&w, 1, SYS_unlinkat, 0, "/rel/file", NULL, 3, A(AT_FDCWD), A(0), A(0));
	ev(&w, 1, SYS_rmdir, 0, "/abs", NULL, 1, A(0));
	ev(&w, 1, SYS_rename, 0, "/d/f", "/abs/moved", 2, A(0), A(0));
	ev(&w, 1, SYS_rename, 0, "/abs/file", "/d/stolen", 2, A(0), A(0));
	ev(&w, 1, SYS_mkdir, 0, "/abs/newdir", NULL, 2, A(0), A(0755));
	ev(&w, 1, SYS_mkdir, 0, "/d/..", NULL, 2, A(0), A(0755));
	ev(&w, 1, SYS_rmdir, 0, "/d/..", NULL, 1, A(0));
	ev(&w, 1, SYS_unlink, 0, "/..", NULL, 1, A(0));
	ev(&w, 1, SYS_rmdir, 0, "/", NULL, 1, A(0));
	ev(&w, 1, SYS_chmod, 0, "/abs/file", NULL, 2, A(0), A(0777));
	ev(&w, 1, SYS_fchmodat, 0, "/rel/file", NULL, 3, A(AT_FDCWD), A(0), A(0700));
	ev(&w, 1, SYS_chown, 0, "/abs/file", NULL, 3, A(0), A(1234), A(1234));
	ev(&w, 1, SYS_utimensat, 0, "/abs/file", NULL, 4, A(AT_FDCWD), A(0), A(0), A(0));
	ev(&w, 1, SYS_truncate, 0, "/abs/file", NULL, 2, A(0), A(0));
	ev(&w, 1, SYS_setxattr, 0, "/abs/file", "user.evil", 5, A(0), A(0), A(0), A(4), A(0));
	ev(&w, 1, SYS_removexattr, 0, "/abs/file", "user.x", 2, A(0), A(0));
	ev(&w, 1, SYS_linkat, 0, "/abs/file", "/d/hl", 5, A(AT_FDCWD), A(0), A(AT_FDCWD), A(0), A(AT_SYMLINK_FOLLOW));
	ev(&w, 1, SYS_link, 0, "/abs/file", "/d/hl2", 2, A(0), A(0));
	ev(&w, 1, SYS_mknod, 0, "/abs/fifo", NULL, 3, A(0), A(S_IFIFO | 0644), A(0));
	ev(&w, 1, SYS_mknod, 0, "/d/dev", NULL, 3, A(0), A(S_IFCHR | 0644), A(0x0101));
	/* a symlink the trace makes, then writes through */
	ev(&w, 1, SYS_symlink, 0, "/d/out", canary, 2, A(0), A(0));
	ev(&w, 1, SYS_openat, 7, "/d/out/file", NULL, 4, A(AT_FDCWD), A(0), A(O_WRONLY | O_TRUNC), A(0));
	ev(&w, 1, SYS_openat, 8, "/d/out/new", NULL, 4, A(AT_FDCWD), A(0), A(O_WRONLY | O_CREAT), A(0644));
	/* modes through them: the symlink's name, looked up and stat'ed in
	 * its parent first, is not followed out */
	ev(&w, 1, SYS_newfstatat, 0, "/d/f-link", NULL, 4, A(AT_FDCWD), A(0), A(0), A(0));
	ev(&w, 1, SYS_fchmodat, 0, "/d/out", NULL, 3, A(AT_FDCWD), A(0), A(0777));
	ev(&w, 1, SYS_chmod, 0, "/d/s", NULL, 2, A(0), A(0777));
	ev(&w, 1, SYS_fchmodat, 0, "/d/f-link", NULL, 3, A(AT_FDCWD), A(0), A(0600));
	ev(&w, 1, SYS_symlink, 0, "/d/etc", "/etc", 2, A(0), A(0));
	ev(&w, 1, SYS_openat, 9, "/d/etc/passwd", NULL, 4, A(AT_FDCWD), A(0), A(O_WRONLY | O_APPEND), A(0));
	ev(&w, 1, SYS_openat, 10, "/proc/self/root/etc/passwd", NULL, 4, A(AT_FDCWD), A(0), A(O_WRONLY), A(0));
	ev(&w, 1, SYS_openat, -ENAMETOOLONG, longp, NULL, 4, A(AT_FDCWD), A(0), A(O_RDONLY), A(0));
	ev(&w, 1, SYS_openat, 11, "", NULL, 4, A(AT_FDCWD), A(0), A(O_RDONLY), A(0));
	/* impossible descriptors and sizes */
	ev(&w, 1, SYS_read, 10, NULL, NULL, 3, A(-5), A(0), A(10));
	ev(&w, 1, SYS_write, 10, NULL, NULL, 3, A(99999), A(0), A(10));
	ev(&w, 1, SYS_write, 10, NULL, NULL, 3, A(1LL << 40), A(0), A(10));
	ev(&w, 1, SYS_close, 0, NULL, NULL, 1, A(-1));
	ev(&w, 1, SYS_dup2, 1LL << 40, NULL, NULL, 2, A(3), A(1LL << 40));
	ev(&w, 1, SYS_dup2, 2000000000, NULL, NULL, 2, A(3), A(2000000000));
	ev(&w, 1, SYS_fcntl, 12, NULL, NULL, 3, A(-3), A(F_DUPFD), A(0));
	ev(&w, 1, SYS_pipe2, 0, NULL, NULL, 2, A(-1), A(0));
	ev(&w, 1, SYS_pread64, BIG, NULL, NULL, 4, A(3), A(0), A(BIG), A(BIG));
	ev(&w, 1, SYS_pwrite64, 1LL << 40, NULL, NULL, 4, A(3), A(0), A(1LL << 40), A(BIG));
	ev(&w, 1, SYS_pwrite64, 10, NULL, NULL, 4, A(3), A(0), A(10), A(-5));
	ev(&w, 1, SYS_read, -1, NULL, NULL, 3, A(3), A(0), A(-1));
	ev(&w, 1, SYS_ftruncate, 0, NULL, NULL, 2, A(3), A(BIG));
	ev(&w, 1, SYS_fallocate, 0, NULL, NULL, 4, A(3), A(0), A(0), A(1LL << 60));
	ev(&w, 1, SYS_lseek, BIG, NULL, NULL, 3, A(3), A(BIG), A(SEEK_SET));
	ev(&w, 1, SYS_copy_file_range, BIG, NULL, NULL, 6, A(3), A(-1), A(4), A(-1), A(BIG), A(0));
	ev(&w, 1, SYS_getdents64, 1LL << 40, NULL, NULL, 3, A(3), A(0), A(1LL << 40));
	ev(&w, 1, SYS_readlink, 1LL << 40, "/abs", NULL, 3, A(0), A(0), A(1LL << 40));
	ev(&w, 1, SYS_setxattr, 0, "/d", "user.big", 5, A(0), A(0), A(0), A(BIG), A(0));
	ev(&w, 1, SYS_wait4, 4242, NULL, NULL, 4, A(4242), A(0), A(0), A(0));
	ev(&w, 1, 400, 0, "/abs/file", NULL, 0);
	ev(&w, 1, SYS_ioctl, 0, NULL, NULL, 3, A(3), A(0x5401), A(0));
	ev(&w, 1, SYS_mmap, 0x1000, NULL, NULL, 6, A(0), A(4096), A(1), A(1), A(3), A(0));
	/* a thread nobody started, a clone of a thread with no ops */
	ev(&w, 999, SYS_openat, 3, "/abs/thread", NULL, 4, A(AT_FDCWD), A(0), A(O_WRONLY | O_CREAT), A(0644));
	ev(&w, 1, SYS_clone, 77, NULL, NULL, 5, A(0x3d0f00), A(0), A(0), A(0), A(0));
	/* two processes reaping each other: a wait cycle */
	ev(&w, 500, SYS_mkdir, 0, "/d/p500", NULL, 2, A(0), A(0755));
	ev(&w, 501, SYS_mkdir, 0, "/d/p501", NULL, 2, A(0), A(0755));
	ev(&w, 500, SYS_wait4, 501, NULL, NULL, 4, A(501), A(0), A(0), A(0));
	ev(&w, 501, SYS_wait4, 500, NULL, NULL, 4, A(500), A(0), A(0), A(0));
	/* a think time of 11 days */
	w.t += 1000000LL * 1000000000LL;
	ev(&w, 1, SYS_execve, 0, "/abs/bin", NULL, 3, A(0), A(0), A(0));
	ev(&w, 1, SYS_write, 10, NULL, NULL, 3, A(3), A(0), A(10));
	ev(&w, 1, SYS_exit_group, 0, NULL, NULL, 1, A(0));
	if (w.err) {
		iot_writer_abort(w.w);
		return w.err;
	}
	return iot_writer_close(w.w, 0);
}

static char tmp[256];

static int setup(void **state)
{
	const char *t = getenv("TMPDIR");

	snprintf(tmp, sizeof(tmp), "%s/iotape-hostile-XXXXXX", t ? t : "/tmp");
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

static __attribute__((format(printf, 1, 2))) void sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

static void canary_unchanged(void **state)
{
	/* sparse: the trace claims an enormous file */
	struct rpl_opts o = { .cmd = "test", .quiet = 1, .timing = RPL_TIMING_SCALE,
			      .scale = 0.001, .sparse_prepare = 1 };
	static struct rpl_result res;
	char canary[400], root[400], trace[400], out[400];
	int64_t t0;

	snprintf(canary, sizeof(canary), "%s/canary", tmp);
	snprintf(root, sizeof(root), "%s/root", tmp);
	snprintf(trace, sizeof(trace), "%s/hostile.iotape", tmp);
	snprintf(out, sizeof(out), "%s/hostile.prof", tmp);
	sh("mkdir -p '%s/sub' '%s' && echo secret >'%s/file' && echo x >'%s/sub/y'",
	   canary, root, canary, canary);
	sh("cd '%s' && find . -printf '%%p %%y %%s %%m %%n %%T@ %%l\\n' | sort >'%s/before' && "
	   "find . -type f -exec md5sum {} + | sort >>'%s/before'", canary, tmp, tmp);
	assert_int_equal(write_hostile(trace, canary), 0);
	o.trace = trace;
	o.root = root;
	o.out = out;
	/* the 11-day gap is cut to RPL_THINK_MAX (x 0.001 here) */
	t0 = iot_now_ns();
	assert_int_equal(rpl_run(&o, &res), 0);
	assert_true(iot_now_ns() - t0 < RPL_THINK_MAX / 10);
	sh("cd '%s' && find . -printf '%%p %%y %%s %%m %%n %%T@ %%l\\n' | sort >'%s/after' && "
	   "find . -type f -exec md5sum {} + | sort >>'%s/after'", canary, tmp, tmp);
	sh("diff -u '%s/before' '%s/after'", tmp, tmp);
	assert_true(res.skipped_by[RPL_SKIP_BADARG] >= 4);
	assert_true(res.skipped_by[RPL_SKIP_FD] >= 1);
	assert_true(res.skipped_by[RPL_SKIP_PSEUDO] >= 1);
	assert_true(res.deadlock_breaks >= 1);	/* the wait cycle was broken */
	/* what was made through "..", "/abs" and "/rel" stayed inside */
	sh("test -f '%s/escape' || test -f '%s%s/planted'", root, root, canary);
	sh("test ! -e '%s/new' && test ! -e '%s/victim'", canary, canary);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(canary_unchanged),
	};

	if (argc == 4 && strcmp(argv[1], "--write") == 0) {
		int rc = write_hostile(argv[2], argv[3]);

		if (rc < 0)
			fprintf(stderr, "test_replay_hostile: %s: %s\n", argv[2], iot_strerror(rc));
		return rc < 0;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
