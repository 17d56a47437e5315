/*
 * test_text.c - strace-like text: flag words, errno names, string
 * escapes, buffer bounds, and every syscall of the table.
 */
#include <asm/unistd_64.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "iotape.h"

static char out[4096];

static const char *arg(int kind, int64_t v)
{
	int n = iot_format_arg(out, sizeof(out), kind, v);

	assert_int_equal(n, (int)strlen(out));
	return out;
}

static const char *event(const struct iot_event *ev)
{
	int n = iot_format_event(out, sizeof(out), ev);

	assert_int_equal(n, (int)strlen(out));
	return out;
}

static struct iot_event mkev(int nr, int64_t ret, const char *path)
{
	struct iot_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.nr = nr;
	ev.ret = ret;
	ev.nargs = 0;
	if (iot_syscall_by_nr(nr))
		ev.nargs = iot_syscall_by_nr(nr)->nargs;
	ev.path = path;
	ev.path_len = path ? (uint32_t)strlen(path) : 0;
	return ev;
}

static void test_errno_names(void **state)
{
	assert_string_equal(iot_errno_name(ENOENT), "ENOENT");
	assert_string_equal(iot_errno_name(EEXIST), "EEXIST");
	assert_string_equal(iot_errno_name(ENOTEMPTY), "ENOTEMPTY");
	assert_string_equal(iot_errno_name(EOPNOTSUPP), "EOPNOTSUPP");
	assert_string_equal(iot_errno_name(EXDEV), "EXDEV");
	assert_string_equal(iot_errno_name(EWOULDBLOCK), "EAGAIN");
	assert_string_equal(iot_errno_name(EDEADLOCK), "EDEADLK");
	assert_string_equal(iot_errno_name(EHWPOISON), "EHWPOISON");
	assert_string_equal(iot_errno_name(512), "ERESTARTSYS");
	assert_null(iot_errno_name(0));
	assert_null(iot_errno_name(-2));
	assert_null(iot_errno_name(41));	/* a hole in Linux's list */
	assert_null(iot_errno_name(4000));
	/* Linux numbers 1..133 with two holes (41, 58) */
	for (int e = 1; e <= 133; e++)
		if (e != 41 && e != 58)
			assert_non_null(iot_errno_name(e));
}

static void test_format_str(void **state)
{
	char small[8];

	assert_int_equal(iot_format_str(out, sizeof(out), "a\"b\n\xff", 5), 12);
	assert_string_equal(out, "\"a\\\"b\\n\\377\"");
	assert_int_equal(iot_format_str(small, sizeof(small), "abcdefghij", 10), 12);
	assert_string_equal(small, "\"abcdef");
	assert_int_equal(iot_format_str(out, sizeof(out), NULL, 0), 2);
	assert_string_equal(out, "\"\"");
}

static void test_open_flags(void **state)
{
	assert_string_equal(arg(IOT_ARG_OPEN_FLAGS, 0), "O_RDONLY");
	assert_string_equal(arg(IOT_ARG_OPEN_FLAGS, 02000000), "O_RDONLY|O_CLOEXEC");
	assert_string_equal(arg(IOT_ARG_OPEN_FLAGS, 01 | 0100 | 01000 | 02000000),
			    "O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC");
	assert_string_equal(arg(IOT_ARG_OPEN_FLAGS, 0200000 | 0400000 | 04000),
			    "O_RDONLY|O_NONBLOCK|O_NOFOLLOW|O_DIRECTORY");
	/* O_SYNC hides its O_DSYNC bit; O_TMPFILE its O_DIRECTORY bit. */
	assert_string_equal(arg(IOT_ARG_OPEN_FLAGS, 2 | 04010000), "O_RDWR|O_SYNC");
	assert_string_equal(arg(IOT_ARG_OPEN_FLAGS, 2 | 010000), "O_RDWR|O_DSYNC");
	assert_string_equal(arg(IOT_ARG_OPEN_FLAGS, 2 | 020200000), "O_RDWR|O_TMPFILE");
	assert_string_equal(arg(IOT_ARG_OPEN_FLAGS, 0400 | 04000 | 0400000 | 02000000 | 0200000),
			    "O_RDONLY|O_NOCTTY|O_NONBLOCK|O_NOFOLLOW|O_CLOEXEC|O_DIRECTORY");
	assert_string_equal(arg(IOT_ARG_OPEN_FLAGS, 010000000 | 0200000), "O_RDONLY|O_PATH|O_DIRECTORY");
	assert_string_equal(arg(IOT_ARG_OPEN_FLAGS, 0100000), "O_RDONLY|O_LARGEFILE");
	/* Unknown bits are kept, in hex. */
	assert_string_equal(arg(IOT_ARG_OPEN_FLAGS, 0100 | 0x40000000),
			    "O_RDONLY|O_CREAT|0x40000000");
	assert_string_equal(arg(IOT_ARG_OPENHOW, 0100 | 1), "{flags=O_WRONLY|O_CREAT}");
}

static void test_other_flags(void **state)
{
	assert_string_equal(arg(IOT_ARG_DIRFD, -100), "AT_FDCWD");
	assert_string_equal(arg(IOT_ARG_DIRFD, 0xffffff9cLL), "AT_FDCWD");
	assert_string_equal(arg(IOT_ARG_DIRFD, 5), "5");
	assert_string_equal(arg(IOT_ARG_MODE, 0644), "0644");
	assert_string_equal(arg(IOT_ARG_MODE, 0), "000");
	assert_string_equal(arg(IOT_ARG_MODE, 04755), "04755");
	assert_string_equal(arg(IOT_ARG_MODE, 020000 | 0600), "S_IFCHR|0600");
	assert_string_equal(arg(IOT_ARG_AT_FLAGS, 0), "0");
	assert_string_equal(arg(IOT_ARG_AT_FLAGS, 0x1000 | 0x100),
			    "AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH");
	assert_string_equal(arg(IOT_ARG_AT_FLAGS, 0x200), "AT_REMOVEDIR");
	assert_string_equal(arg(IOT_ARG_WHENCE, 2), "SEEK_END");
	assert_string_equal(arg(IOT_ARG_WHENCE, 4), "SEEK_HOLE");
	assert_string_equal(arg(IOT_ARG_WHENCE, 9), "9");
	assert_string_equal(arg(IOT_ARG_IOCTL_REQ, 0x40049409), "FICLONE");
	assert_string_equal(arg(IOT_ARG_IOCTL_REQ, 0x5401), "TCGETS");
	assert_string_equal(arg(IOT_ARG_IOCTL_REQ, 0x1234abcd), "0x1234abcd");
	assert_string_equal(arg(IOT_ARG_FCNTL_CMD, 1030), "F_DUPFD_CLOEXEC");
	assert_string_equal(arg(IOT_ARG_FCNTL_CMD, 4), "F_SETFL");
	assert_string_equal(arg(IOT_ARG_CLONE_FLAGS, 0x1200000 | 17),
			    "CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD");
	assert_string_equal(arg(IOT_ARG_CLONE_FLAGS, 17), "SIGCHLD");
	assert_string_equal(arg(IOT_ARG_CLONE_FLAGS, 0x100 | 0x200), "CLONE_VM|CLONE_FS");
	assert_string_equal(arg(IOT_ARG_CLONE_FLAGS, 0), "0");
	assert_string_equal(arg(IOT_ARG_RENAME_FLAGS, 1), "RENAME_NOREPLACE");
	assert_string_equal(arg(IOT_ARG_RENAME_FLAGS, 2 | 4),
			    "RENAME_EXCHANGE|RENAME_WHITEOUT");
	assert_string_equal(arg(IOT_ARG_ACCESS_MODE, 0), "F_OK");
	assert_string_equal(arg(IOT_ARG_ACCESS_MODE, 7), "R_OK|W_OK|X_OK");
	assert_string_equal(arg(IOT_ARG_MMAP_PROT, 0), "PROT_NONE");
	assert_string_equal(arg(IOT_ARG_MMAP_PROT, 5), "PROT_READ|PROT_EXEC");
	assert_string_equal(arg(IOT_ARG_MMAP_FLAGS, 2 | 0x800),
			    "MAP_PRIVATE|MAP_DENYWRITE");
	assert_string_equal(arg(IOT_ARG_MMAP_FLAGS, 1), "MAP_SHARED");
	assert_string_equal(arg(IOT_ARG_XATTR_FLAGS, 0), "0");
	assert_string_equal(arg(IOT_ARG_XATTR_FLAGS, 1), "XATTR_CREATE");
	assert_string_equal(arg(IOT_ARG_FALLOC_MODE, 3),
			    "FALLOC_FL_KEEP_SIZE|FALLOC_FL_PUNCH_HOLE");
	assert_string_equal(arg(IOT_ARG_FADVICE, 4), "POSIX_FADV_DONTNEED");
	assert_string_equal(arg(IOT_ARG_WAIT_OPTIONS, 0x40000000), "__WALL");
	assert_string_equal(arg(IOT_ARG_STATX_MASK, 0x7ff), "STATX_BASIC_STATS");
	assert_string_equal(arg(IOT_ARG_STATX_MASK, 0x7ff | 0x800), "STATX_ALL");
	assert_string_equal(arg(IOT_ARG_STATX_MASK, 0x200 | 2), "STATX_MODE|STATX_SIZE");
	assert_string_equal(arg(IOT_ARG_CLOSE_RANGE_FLAGS, 4), "CLOSE_RANGE_CLOEXEC");
	assert_string_equal(arg(IOT_ARG_SYNC_FLAGS, 7),
			    "SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE|"
			    "SYNC_FILE_RANGE_WAIT_AFTER");
	assert_string_equal(arg(IOT_ARG_SIGNAL, 9), "SIGKILL");
	assert_string_equal(arg(IOT_ARG_SIGNAL, 34), "SIGRT_2");
	assert_string_equal(arg(IOT_ARG_DEV, (1 << 8) | 3), "makedev(0x1, 0x3)");
	assert_string_equal(arg(IOT_ARG_FDPAIR, 3 | (4LL << 32)), "[3, 4]");
	assert_string_equal(arg(IOT_ARG_OFFPTR, -1), "NULL");
	assert_string_equal(arg(IOT_ARG_OFFPTR, 1234), "[1234]");
	assert_string_equal(arg(IOT_ARG_IOVLEN, 4096), "[iov 4096]");
	assert_string_equal(arg(IOT_ARG_PTR, 0), "...");
	assert_string_equal(arg(IOT_ARG_PTR, 0x7f00), "0x7f00");
	assert_string_equal(arg(IOT_ARG_SIZE, 4096), "4096");
	assert_string_equal(arg(IOT_ARG_OFF, -5), "-5");
	assert_string_equal(arg(IOT_ARG_UID, 0xffffffffLL), "-1");
	assert_string_equal(arg(IOT_ARG_GID, 1000), "1000");
	assert_string_equal(arg(IOT_ARG_HEX, 0), "0");
	assert_string_equal(arg(IOT_ARG_HEX, 255), "0xff");
}

static void test_events(void **state)
{
	struct iot_event ev;

	ev = mkev(__NR_openat, 3, "/etc/passwd");
	ev.args[0] = -100;
	ev.args[2] = 02000000;
	ev.args[3] = 0;
	assert_string_equal(event(&ev),
			    "openat(AT_FDCWD, \"/etc/passwd\", O_RDONLY|O_CLOEXEC) = 3");
	ev.args[2] = 01 | 0100 | 01000;
	ev.args[3] = 0644;
	assert_string_equal(event(&ev),
			    "openat(AT_FDCWD, \"/etc/passwd\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3");

	ev = mkev(__NR_unlink, -ENOENT, "/x");
	assert_string_equal(event(&ev),
			    "unlink(\"/x\") = -1 ENOENT (No such file or directory)");
	ev.ret = -600;
	assert_string_equal(event(&ev), "unlink(\"/x\") = -1 (errno 600)");

	ev = mkev(__NR_renameat2, 0, "/a");
	ev.path2 = "/b";
	ev.path2_len = 2;
	ev.args[0] = ev.args[2] = -100;
	ev.args[4] = 1;
	assert_string_equal(event(&ev),
			    "renameat2(AT_FDCWD, \"/a\", AT_FDCWD, \"/b\", RENAME_NOREPLACE) = 0");

	/* a Unix socket's name, as strace prints it */
	ev = mkev(__NR_bind, 0, "/run/s.0");
	ev.args[0] = 3;
	ev.args[1] = 1;
	ev.args[2] = 110;
	assert_string_equal(event(&ev),
			    "bind(3, {sa_family=AF_UNIX, sun_path=\"/run/s.0\"}, 110) = 0");
	ev = mkev(__NR_connect, -ENOENT, "/x");
	ev.args[0] = 4;
	ev.args[1] = 1;
	ev.args[2] = 110;
	assert_string_equal(event(&ev),
			    "connect(4, {sa_family=AF_UNIX, sun_path=\"/x\"}, 110) = "
			    "-1 ENOENT (No such file or directory)");
	assert_string_equal(arg(IOT_ARG_SOCKADDR, 2), "{sa_family=2}");

	ev = mkev(__NR_read, 0, NULL);
	ev.args[0] = 3;
	ev.args[2] = 4096;
	ev.flags = IOT_EV_UNFINISHED;
	assert_string_equal(event(&ev), "read(3, ..., 4096 <unfinished ...>)");

	ev = mkev(__NR_exit_group, 0, NULL);
	ev.flags = IOT_EV_UNFINISHED;
	assert_string_equal(event(&ev), "exit_group(0) = ?");

	ev = mkev(__NR_dup3, 5, NULL);
	ev.args[0] = 3;
	ev.args[1] = 5;
	ev.args[2] = 02000000;
	assert_string_equal(event(&ev), "dup3(3, 5, O_CLOEXEC) = 5");

	ev = mkev(__NR_pipe2, 0, NULL);
	ev.args[0] = 3 | (4LL << 32);
	assert_string_equal(event(&ev), "pipe2([3, 4], 0) = 0");
	ev.ret = -EMFILE;
	assert_string_equal(event(&ev),
			    "pipe2(..., 0) = -1 EMFILE (Too many open files)");

	ev = mkev(__NR_fcntl, 1, NULL);
	ev.args[0] = 3;
	ev.args[1] = 1;	/* F_GETFD */
	assert_string_equal(event(&ev), "fcntl(3, F_GETFD) = 0x1 (flags FD_CLOEXEC)");
	ev.args[1] = 1030;
	ev.args[2] = 3;
	ev.ret = 4;
	assert_string_equal(event(&ev), "fcntl(3, F_DUPFD_CLOEXEC, 3) = 4");
	ev.args[1] = 4;
	ev.args[2] = 04000;
	ev.ret = 0;
	assert_string_equal(event(&ev), "fcntl(3, F_SETFL, O_RDONLY|O_NONBLOCK) = 0");
	/* a lock: its struct in the last three arguments (iot_fcntl_lock()),
	 * or, in a trace from before them, a pointer not kept */
	ev.args[1] = 7;	/* F_SETLKW */
	ev.args[2] = 0;
	assert_string_equal(event(&ev), "fcntl(3, F_SETLKW, ...) = 0");
	assert_int_equal(iot_fcntl_lock(7), 1);
	assert_int_equal(iot_fcntl_lock(38), 1);
	assert_int_equal(iot_fcntl_lock(4), 0);
	{
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_END, .l_start = -4,
				    .l_len = 1 << 20 };

		iot_flock_pack(&fl, &ev.args[IOT_FLOCK_TYPE]);
		ev.nargs = IOT_FLOCK_NARGS;
		assert_string_equal(event(&ev), "fcntl(3, F_SETLKW, {l_type=F_WRLCK, "
				    "l_whence=SEEK_END, l_start=-4, l_len=1048576}) = 0");
		iot_flock_pack(NULL, &ev.args[IOT_FLOCK_TYPE]);
		assert_string_equal(event(&ev), "fcntl(3, F_SETLKW, {?}) = 0");
	}
	ev = mkev(__NR_flock, -EAGAIN, NULL);
	ev.args[0] = 5;
	ev.args[1] = 6;
	assert_string_equal(event(&ev), "flock(5, LOCK_EX|LOCK_NB) = -1 EAGAIN "
			    "(Resource temporarily unavailable)");
	assert_string_equal(arg(IOT_ARG_FLOCK_OP, 8), "LOCK_UN");

	/* descriptors passed over a socket: after the row's arguments */
	{
		int32_t fds[11] = { 5, 6, 1048575, 7, 8, 9, 10, 11, -1, 12, 13 };
		int32_t got[IOT_MSG_FDS_MAX];

		ev = mkev(__NR_sendmsg, 1, NULL);
		ev.nargs = 3;
		ev.args[0] = 4;
		iot_msg_fds_set(&ev, fds, 2);
		assert_int_equal(ev.nargs, 4);
		assert_string_equal(event(&ev), "sendmsg(4, {SCM_RIGHTS [5, 6]}, 0) = 1");
		assert_int_equal(iot_msg_fds(&ev, got), 2);
		assert_int_equal(got[1], 6);
		iot_msg_fds_set(&ev, fds, 11);
		assert_int_equal(ev.nargs, 6);
		assert_int_equal(iot_msg_fds(&ev, got), 11);
		assert_int_equal(got[2], 1048575);
		assert_int_equal(got[5], 9);
		assert_int_equal(got[8], -1);
		assert_string_equal(event(&ev), "sendmsg(4, {SCM_RIGHTS [5, 6, 1048575, 7, 8, 9, "
				    "10, 11, -1, 2 more]}, 0) = 1");
		iot_msg_fds_set(&ev, fds, 0);
		assert_int_equal(ev.nargs, 3);
		assert_string_equal(event(&ev), "sendmsg(4, {...}, 0) = 1");
		/* a hostile count with its descriptors cut off: -1 for
		 * those not there */
		ev.args[1] = 4;
		ev.args[3] = 5;
		ev.nargs = 4;
		assert_int_equal(iot_msg_fds(&ev, got), 4);
		assert_int_equal(got[0], 5);
		assert_int_equal(got[1], 0);
		assert_int_equal(got[3], -1);
		assert_string_equal(arg(IOT_ARG_MSGFDS, 2), "{SCM_RIGHTS [2 descriptors]}");
	}

	ev = mkev(__NR_statx, 0, "/a");
	ev.args[0] = -100;
	ev.args[2] = 0x100;
	ev.args[3] = 0xfff;
	assert_string_equal(event(&ev),
			    "statx(AT_FDCWD, \"/a\", AT_STATX_SYNC_AS_STAT|AT_SYMLINK_NOFOLLOW, "
			    "STATX_ALL, ...) = 0");

	ev = mkev(__NR_openat2, 3, "/n");
	ev.args[0] = -100;
	ev.args[2] = 0100 | 1;
	ev.args[3] = 0600;
	assert_string_equal(event(&ev),
			    "openat2(AT_FDCWD, \"/n\", {flags=O_WRONLY|O_CREAT, mode=0600}) = 3");

	ev = mkev(__NR_mknodat, 0, "/dev/x");
	ev.args[0] = -100;
	ev.args[2] = 020000 | 0600;
	ev.args[3] = (1 << 8) | 3;
	assert_string_equal(event(&ev),
			    "mknodat(AT_FDCWD, \"/dev/x\", S_IFCHR|0600, makedev(0x1, 0x3)) = 0");

	ev = mkev(__NR_ioctl, -EOPNOTSUPP, NULL);
	ev.args[0] = 4;
	ev.args[1] = 0x40049409;
	ev.args[2] = 3;
	assert_string_equal(event(&ev),
			    "ioctl(4, FICLONE, 3) = -1 EOPNOTSUPP (Operation not supported)");

	ev = mkev(__NR_copy_file_range, 100, NULL);
	ev.args[0] = 3;
	ev.args[1] = -1;
	ev.args[2] = 4;
	ev.args[3] = 0;
	ev.args[4] = 100;
	assert_string_equal(event(&ev), "copy_file_range(3, NULL, 4, [0], 100, 0) = 100");

	ev = mkev(999, 7, NULL);
	ev.nargs = 2;
	ev.args[0] = 1;
	ev.args[1] = 16;
	assert_string_equal(event(&ev), "syscall_999(0x1, 0x10) = 7");

	/* A PATH with no string (utimensat on a descriptor). */
	ev = mkev(__NR_utimensat, 0, NULL);
	ev.args[0] = 3;
	assert_string_equal(event(&ev), "utimensat(3, NULL, ..., 0) = 0");
}

static void test_escapes(void **state)
{
	struct iot_event ev;
	static const char weird[] = "/a\"b\\c\td\ne\x01" "f\x8f" "1\xc3\xa9" "\xc2\x85" "\x7f";

	ev = mkev(__NR_mkdir, 0, NULL);
	ev.path = weird;
	ev.path_len = sizeof(weird) - 1;
	ev.args[1] = 0755;
	/* valid UTF-8 (é) passes; a lone 0x8f, C1 controls and DEL do not */
	assert_string_equal(event(&ev),
			    "mkdir(\"/a\\\"b\\\\c\\td\\ne\\001f\\2171\xc3\xa9\\302\\205\\177\", 0755) = 0");

	/* Embedded NUL: paths carry their length. */
	ev.path = "ab\0c";
	ev.path_len = 4;
	assert_string_equal(event(&ev), "mkdir(\"ab\\000c\", 0755) = 0");

	/* A truncated UTF-8 sequence at the end of the string. */
	ev.path = "x\xe2\x82";
	ev.path_len = 3;
	assert_string_equal(event(&ev), "mkdir(\"x\\342\\202\", 0755) = 0");
}

static void test_truncation(void **state)
{
	struct iot_event ev;
	char full[512], small[96];
	size_t len;
	int n, m;

	ev = mkev(__NR_openat, -ENOENT, "/a/rather/long/path/that/does/not/fit");
	ev.args[0] = -100;
	ev.args[2] = 02000000 | 0200000;
	n = iot_format_event(full, sizeof(full), &ev);
	assert_int_equal(n, (int)strlen(full));
	assert_true(n > 64);
	for (len = 0; len < 64; len++) {
		memset(small, 'Z', sizeof(small));
		m = iot_format_event(len ? small : NULL, len, &ev);
		assert_int_equal(m, n);
		/* Nothing at or past len is touched; the result is
		 * terminated and is a prefix of the whole line. */
		assert_int_equal(small[len], 'Z');
		if (len) {
			assert_int_equal(strlen(small), len - 1);
			assert_memory_equal(small, full, len - 1);
		}
	}
	assert_int_equal(iot_format_arg(small, 4, IOT_ARG_OPEN_FLAGS, 02000000),
			 (int)strlen("O_RDONLY|O_CLOEXEC"));
	assert_string_equal(small, "O_R");
	assert_int_equal(iot_format_arg(NULL, 0, IOT_ARG_DIRFD, -100), 8);
}

/* Random arguments, flags and return values for every syscall in the
 * table: nothing may crash, and the length must match. */
static void test_every_syscall(void **state)
{
	const struct iot_syscall *t;
	struct iot_event ev;
	size_t n, i;
	int k, round;
	char buf[2048];
	uint64_t seed = 42;

	t = iot_syscall_table(&n);
	assert_true(n > 100);
	for (i = 0; i < n; i++) {
		for (round = 0; round < 200; round++) {
			ev = mkev(t[i].nr, 0, NULL);
			for (k = 0; k < IOT_MAX_ARGS; k++) {
				seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
				ev.args[k] = (int64_t)(round % 3 == 0 ? seed >> (seed & 63) : seed);
			}
			seed = seed * 6364136223846793005ULL + 1;
			ev.ret = round % 4 == 0 ? -(int64_t)(seed % 600) : (int64_t)(seed >> 40);
			ev.flags = round % 7 == 0 ? IOT_EV_UNFINISHED : 0;
			ev.nargs = round % 5 == 0 ? (uint32_t)(seed % 10) : t[i].nargs;
			ev.path = round & 1 ? "/p\xff" : NULL;
			ev.path_len = ev.path ? 3 : 0;
			ev.path2 = round & 2 ? "q" : NULL;
			ev.path2_len = ev.path2 ? 1 : 0;
			k = iot_format_event(buf, sizeof(buf), &ev);
			assert_true(k > 0);
			assert_int_equal(k, (int)strlen(buf));
			assert_int_equal(strncmp(buf, t[i].name, strlen(t[i].name)), 0);
		}
		for (k = 0; k < IOT_ARG_KIND_COUNT + 2; k++)
			assert_true(iot_format_arg(buf, sizeof(buf), k, (int64_t)seed) > 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errno_names),
		cmocka_unit_test(test_format_str),
		cmocka_unit_test(test_open_flags),
		cmocka_unit_test(test_other_flags),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_every_syscall),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
