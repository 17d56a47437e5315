/*
 * fp_calls.c DIR - call every libc function libiotape-fast.so replaces, in
 * ways that succeed and ways that fail, inside DIR (which must be empty).
 * tests/integration/fp_wrappers.sh runs it under strace with and without
 * the preload: the syscalls must be the same, and so must what this prints
 * (each call's return value and errno afterwards).  errno is set to a
 * marker before each call so a wrapper that touches errno on success, or
 * on a path where glibc leaves it alone, shows up.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <limits.h>
#include <signal.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#define ERRNO_MARK 4242
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"	/* readdir_r */
#define NDIRENTS 2000
#define MARK_START 4242		/* 0x1092 */
#define MARK_END 4243		/* 0x1093 */
#define DEEP_NAME "a-directory-name-of-100-bytes-" \
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define DEEP_LEVELS 45		/* 4.5 KB: past PATH_MAX */

/* the fortified entry points have no prototype of their own */
int __open_2(const char *p, int flags);
int __open64_2(const char *p, int flags);
int __openat_2(int dfd, const char *p, int flags);
int __openat64_2(int dfd, const char *p, int flags);
char *__realpath_chk(const char *name, char *resolved, size_t resolvedlen);

static void note(const char *what, long r)
{
	printf("%s = %ld errno %d\n", what, r, errno);
}

/* T(expr): run expr with errno preset, then print its value and errno */
#define T(expr) do { errno = ERRNO_MARK; note(#expr, (long)(expr)); } while (0)

static void files(void)
{
	char buf[256];
	struct iovec iov[2] = { { buf, 3 }, { buf + 3, 5 } };
	struct timespec ts[2] = { { 1000000000, 5 }, { 1100000000, 7 } };
	const char *volatile nopath = NULL;	/* glibc checks it; gcc warns */
	off_t oi = 0, oo = 0;
	int fd, fd2;

	T(fd = open("a", O_RDWR | O_CREAT | O_TRUNC, 0644));
	T(open("missing/x", O_RDONLY));
	T(open64("a", O_RDONLY | O_CLOEXEC));
	T(openat(AT_FDCWD, "b", O_WRONLY | O_CREAT | O_EXCL, 0600));
	T(openat(AT_FDCWD, "b", O_WRONLY | O_CREAT | O_EXCL, 0600));
	T(openat64(AT_FDCWD, "a", O_RDONLY | O_NOFOLLOW));
	T(openat(AT_FDCWD, ".", O_TMPFILE | O_RDWR, 0600));
	T(__open_2("a", O_RDONLY));
	T(__open64_2("a", O_RDONLY));
	T(__openat_2(AT_FDCWD, "a", O_RDONLY));
	T(__openat64_2(-1, "a", O_RDONLY));
	T(creat("c", 0640));
	T(creat64("c64", 0640));
	T(creat("missing/c", 0640));
	T(write(fd, "hello world", 11));
	T(write(-1, "x", 1));
	T(pwrite(fd, "HE", 2, 0));
	T(pwrite64(fd, "LL", 2, 2));
	T(pwrite(fd, "x", 1, -1));
	T(lseek(fd, 0, SEEK_SET));
	T(lseek64(fd, 3, SEEK_CUR));
	T(lseek(fd, -10, SEEK_SET));
	T(read(fd, buf, sizeof(buf)));
	T(read(-1, buf, 1));
	T(pread(fd, buf, 4, 1));
	T(pread64(fd, buf, 4, 2));
	T(readv(fd, iov, 2));
	T(writev(fd, iov, 2));
	T(preadv(fd, iov, 2, 1));
	T(preadv64(fd, iov, 2, 2));
	T(pwritev(fd, iov, 2, 4));
	T(pwritev64(fd, iov, 2, 5));
	T(readv(-1, iov, 2));
	T(ftruncate(fd, 20));
	T(ftruncate64(fd, 16));
	T(ftruncate(fd, -1));
	T(truncate("a", 12));
	T(truncate64("a", 11));
	T(truncate("missing", 1));
	T(fallocate(fd, 0, 0, 4096));
	T(fallocate64(fd, FALLOC_FL_KEEP_SIZE, 4096, 4096));
	T(fallocate(-1, 0, 0, 1));
	T(posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL));
	T(posix_fadvise64(fd, 0, 10, POSIX_FADV_DONTNEED));
	T(posix_fadvise(-1, 0, 0, POSIX_FADV_NORMAL));
	T(posix_fadvise(fd, 0, 0, 999));
	T(fsync(fd));
	T(fdatasync(fd));
	T(fsync(-1));
	T(fd2 = open("b", O_RDWR));
	T(copy_file_range(fd, &oi, fd2, &oo, 5, 0));
	T(copy_file_range(fd, NULL, fd2, NULL, 5, 0));
	T(copy_file_range(fd, NULL, -1, NULL, 5, 0));
	T(futimens(fd, ts));
	T(futimens(fd, NULL));
	T(futimens(-1, ts));
	T(futimens(AT_FDCWD, ts));
	T(utimensat(AT_FDCWD, "a", ts, 0));
	T(utimensat(AT_FDCWD, "a", NULL, AT_SYMLINK_NOFOLLOW));
	T(utimensat(fd, nopath, ts, 0));
	T(utimensat(AT_FDCWD, "missing", ts, 0));
	T(close(fd2));
	T(close(fd));
	T(close(fd));
}

static void meta(void)
{
	struct stat st;
	struct stat64 st64;
	struct statx stx;
	int fd;

	T(fd = open("a", O_RDONLY));
	T(fstat(fd, &st) || st.st_size != 11);
	T(fstat64(fd, &st64));
	T(fstat(-1, &st));
	T(fstat(AT_FDCWD, &st));
	T(fstat(1000, &st));
	T(stat("a", &st));
	T(stat64("a", &st64));
	T(stat("missing", &st));
	T(lstat("a", &st));
	T(lstat64("a", &st64));
	T(lstat("missing", &st));
	T(fstatat(AT_FDCWD, "a", &st, 0));
	T(fstatat64(fd, "", &st64, AT_EMPTY_PATH));
	T(fstatat(AT_FDCWD, "missing", &st, AT_SYMLINK_NOFOLLOW));
	T(fstatat(AT_FDCWD, "a", &st, 0x10000000));
	T(statx(AT_FDCWD, "a", 0, STATX_BASIC_STATS, &stx));
	T(statx(fd, "", AT_EMPTY_PATH, STATX_SIZE | STATX_BTIME, &stx));
	T(statx(AT_FDCWD, "missing", AT_SYMLINK_NOFOLLOW, STATX_ALL, &stx));
	T(access("a", R_OK | W_OK));
	T(access("missing", F_OK));
	T(chmod("a", 0600));
	T(chmod("missing", 0600));
	T(fchmod(fd, 0644));
	T(fchmod(-1, 0644));
	T(chown("a", getuid(), getgid()));
	T(chown("missing", -1, -1));
	T(lchown("a", -1, getgid()));
	T(lchown("missing", -1, -1));
	T(fchown(fd, -1, -1));
	T(fchown(-1, 0, 0));
	T(fchownat(AT_FDCWD, "a", -1, -1, AT_SYMLINK_NOFOLLOW));
	T(fchownat(AT_FDCWD, "missing", -1, -1, 0));
	T(close(fd));
}

static void names(void)
{
	char buf[64];
	int d;

	T(mkdir("sub", 0755));
	T(mkdir("sub", 0755));
	T(d = open("sub", O_RDONLY | O_DIRECTORY));
	T(mkdirat(d, "in", 0700));
	T(mkdirat(-1, "in", 0700));
	T(rmdir("sub/in"));
	T(rmdir("sub/in"));
	T(mkdirat(d, "in2", 0700));
	T(unlinkat(d, "in2", AT_REMOVEDIR));
	T(unlinkat(d, "in2", 0));
	T(symlink("a", "sl"));
	T(symlink("a", "sl"));
	T(symlinkat("../a", d, "sl2"));
	T(symlinkat("../a", -1, "sl2"));
	T(readlink("sl", buf, sizeof(buf)));
	T(readlink("a", buf, sizeof(buf)));
	T(readlinkat(d, "sl2", buf, 2));
	T(readlinkat(d, "missing", buf, sizeof(buf)));
	T(link("a", "hl"));
	T(link("missing", "hl2"));
	T(linkat(AT_FDCWD, "a", d, "hl3", 0));
	T(linkat(AT_FDCWD, "sl", d, "hl4", AT_SYMLINK_FOLLOW));
	T(linkat(AT_FDCWD, "a", d, "hl3", 0));
	T(rename("hl", "hl5"));
	T(rename("hl", "hl6"));
	T(renameat(AT_FDCWD, "hl5", d, "hl6"));
	T(renameat(d, "missing", d, "x"));
	T(renameat2(d, "hl6", d, "hl7", 0));
	T(renameat2(d, "hl7", d, "hl3", RENAME_NOREPLACE));
	T(renameat2(d, "hl7", d, "hl8", RENAME_NOREPLACE));
	T(renameat2(d, "hl8", d, "hl3", RENAME_EXCHANGE));
	T(renameat2(d, "hl8", d, "hl3", 0x80));
	T(mknod("fifo", S_IFIFO | 0600, 0));
	T(mknod("fifo", S_IFIFO | 0600, 0));
	T(mknod("bigdev", S_IFCHR | 0600, makedev(1u << 20, 1)));
	T(mknodat(d, "fifo2", S_IFIFO | 0644, 0));
	T(mknodat(d, "bigdev", S_IFBLK | 0600, 1ull << 40));
	T(unlink("fifo"));
	T(unlink("fifo"));
	T(unlinkat(d, "fifo2", 0));
	T(chdir("sub"));
	T(chdir("missing"));
	T(chdir(".."));
	T(fchdir(d));
	T(fchdir(-1));
	T(chdir(".."));
	T(close(d));
}

static void descs(void)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 1 };
	struct f_owner_ex ox = { F_OWNER_PID, 0 };
	int fd, n = 0;

	T(fd = open("a", O_RDWR));
	T(dup(fd));
	T(dup(-1));
	T(dup2(fd, 30));
	T(dup2(fd, fd));
	T(dup2(-1, -1));
	T(dup2(100, 100));
	T(dup2(fd, -1));
	T(dup3(fd, 31, O_CLOEXEC));
	T(dup3(fd, fd, 0));
	T(dup3(fd, 32, 1));
	T(fcntl(fd, F_GETFD));
	T(fcntl(fd, F_SETFD, FD_CLOEXEC));
	T(fcntl(fd, F_GETFL));
	T(fcntl(fd, F_SETFL, O_APPEND | O_NONBLOCK));
	T(fcntl(fd, F_DUPFD, 40));
	T(fcntl(fd, F_DUPFD_CLOEXEC, 50));
	T(fcntl(fd, F_GETLK, &fl));
	T(fcntl(fd, F_SETLK, &fl));
	T(fcntl(fd, F_SETLKW, &fl));
	T(fcntl(fd, F_OFD_GETLK, &fl));
	T(fcntl(fd, F_GETOWN));
	T(fcntl(fd, F_SETOWN, getpid()));
	T(fcntl(fd, F_GETOWN) == getpid());
	T(fcntl(fd, F_GETOWN_EX, &ox));
	T(fcntl(-1, F_GETOWN));
	T(fcntl(fd, F_GETPIPE_SZ));
	T(fcntl(-1, F_GETFD));
	T(fcntl64(fd, F_GETFD));
	T(ioctl(fd, FIONREAD, &n));
	T(ioctl(fd, FS_IOC_GETFLAGS, &n));
	T(ioctl(-1, FIONREAD, &n));
	T(ioctl(fd, TCGETS, NULL));
	T(close(30) || close(31) || close(40) || close(50));
	T(close(fd));
}

/* the waits (wait.c), with timeouts that end at once */
static void waits(void)
{
	struct timespec short_ts = { 0, 1000 }, zero = { 0, 0 }, bad = { 0, -1 };
	struct epoll_event eev = { .events = EPOLLIN }, evs[4];
	struct pollfd pfd;
	sigset_t set;
	int p[2], ep;

	sigemptyset(&set);
	T(nanosleep(&short_ts, NULL));
	T(nanosleep(&bad, NULL));
	T(clock_nanosleep(CLOCK_MONOTONIC, 0, &short_ts, NULL));
	T(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &zero, NULL));
	T(clock_nanosleep(CLOCK_REALTIME, 0, &bad, NULL));
	T(clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &short_ts, NULL));
	T(clock_nanosleep(99, 0, &short_ts, NULL));
	T(pipe(p));
	pfd.fd = p[0];
	pfd.events = POLLIN;
	T(poll(&pfd, 1, 0));
	T(poll(&pfd, 1, 1));
	T(ppoll(&pfd, 1, &zero, NULL));
	T(ppoll(&pfd, 1, &short_ts, &set));
	T(write(p[1], "x", 1));
	T(ppoll(&pfd, 1, NULL, NULL));
	T(ep = epoll_create1(0));
	eev.data.fd = p[0];
	T(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &eev));
	T(epoll_wait(ep, evs, 4, 0));
	T(epoll_wait(-1, evs, 4, 0));
	T(epoll_pwait(ep, evs, 4, 0, &set));
	T(epoll_pwait(ep, evs, 4, 0, NULL));
	T(close(ep) || close(p[0]) || close(p[1]));
}

static void xattrs(void)
{
	char buf[128];
	int fd;

	T(fd = open("a", O_RDWR));
	T(setxattr("a", "user.k1", "v1", 2, 0));
	T(setxattr("a", "user.k1", "v1", 2, XATTR_CREATE));
	T(lsetxattr("a", "user.k2", "v22", 3, 0));
	T(lsetxattr("sl", "user.k2", "v22", 3, 0));
	T(fsetxattr(fd, "user.k3", "v333", 4, 0));
	T(fsetxattr(-1, "user.k3", "v333", 4, 0));
	T(getxattr("a", "user.k1", buf, sizeof(buf)));
	T(getxattr("a", "user.none", buf, sizeof(buf)));
	T(lgetxattr("a", "user.k2", buf, 1));
	T(fgetxattr(fd, "user.k3", buf, sizeof(buf)));
	T(fgetxattr(fd, "user.k3", NULL, 0));
	T(listxattr("a", buf, sizeof(buf)));
	T(llistxattr("sl", buf, sizeof(buf)));
	T(flistxattr(fd, buf, sizeof(buf)));
	T(listxattr("missing", buf, sizeof(buf)));
	T(removexattr("a", "user.k1"));
	T(lremovexattr("a", "user.k2"));
	T(fremovexattr(fd, "user.k3"));
	T(fremovexattr(fd, "user.k3"));
	T(close(fd));
}

static void dirs(void)
{
	struct dirent64 e64, *r64;
	struct dirent e, *r;
	char name[64];
	long pos = 0;
	DIR *d;
	int i, n, fd;

	T(mkdir("big", 0755));
	for (i = 0; i < NDIRENTS; i++) {
		snprintf(name, sizeof(name), "big/entry-with-a-longer-name-%04d", i);
		fd = open(name, O_WRONLY | O_CREAT, 0644);
		if (fd < 0 || close(fd) < 0)
			exit(2);
	}
	T(opendir("") != NULL);
	T(opendir("missing") != NULL);
	T(opendir("a") != NULL);
	T((d = opendir("big")) != NULL);
	if (!d)
		exit(3);
	T(dirfd(d) >= 0);
	errno = ERRNO_MARK;
	for (n = 0; readdir(d); n++)
		if (n == 700)
			pos = telldir(d);
	note("readdir all", n);
	T(readdir(d) != NULL);
	errno = ERRNO_MARK;
	seekdir(d, pos);
	note("seekdir", 0);
	T(telldir(d) == pos);
	errno = ERRNO_MARK;
	for (n = 0; readdir64(d); n++)
		;
	note("readdir64 after seekdir", n);
	errno = ERRNO_MARK;
	rewinddir(d);
	note("rewinddir", 0);
	errno = ERRNO_MARK;
	for (n = 0; readdir_r(d, &e, &r) == 0 && r; n++)
		;
	note("readdir_r all", n);
	rewinddir(d);
	for (n = 0; readdir64_r(d, &e64, &r64) == 0 && r64; n++)
		if (n == 10)
			break;
	note("readdir64_r ten", n);
	T(closedir(d));

	T(fd = open("big", O_RDONLY | O_DIRECTORY));
	T((d = fdopendir(fd)) != NULL);
	if (!d)
		exit(4);
	T(fcntl(fd, F_GETFD));
	errno = ERRNO_MARK;
	for (n = 0; readdir(d); n++)
		;
	note("fdopendir readdir", n);
	T(closedir(d));
	T(fdopendir(-1) != NULL);
	T(fd = open("a", O_RDONLY));
	T(fdopendir(fd) != NULL);
	T(close(fd));
	T(fd = open("big", O_WRONLY | O_DIRECTORY));
	T(fd = open("big", O_PATH | O_DIRECTORY));
	T(fdopendir(fd) != NULL);
	T(close(fd));

	/* a directory removed while open reads as empty */
	T(mkdir("gone", 0755));
	T((d = opendir("gone")) != NULL);
	T(rmdir("gone"));
	if (d) {
		T(readdir(d) != NULL);
		T(closedir(d));
	}
	T(getdents64(-1, name, sizeof(name)));
}

/*
 * realpath(@name) into a buffer preset to a marker: what it returns, errno,
 * and what it left in the buffer (a partial result on ENOENT and EACCES)
 */
static void rp(const char *what, const char *name)
{
	char buf[PATH_MAX];
	char *r;

	strcpy(buf, "(untouched)");
	errno = ERRNO_MARK;
	r = realpath(name, buf);
	printf("realpath(%s) = %s errno %d buf %s\n", what,
	       r == buf ? "buf" : r ? "other" : "NULL", errno, buf);
}

/* realpath(@name, NULL) and canonicalize_file_name(@name): malloc'd */
static void rp_alloc(const char *what, const char *name)
{
	char *r;

	errno = ERRNO_MARK;
	r = realpath(name, NULL);
	printf("realpath(%s, NULL) = %s errno %d\n", what, r ? r : "NULL", errno);
	free(r);
	errno = ERRNO_MARK;
	r = canonicalize_file_name(name);
	printf("canonicalize_file_name(%s) = %s errno %d\n", what, r ? r : "NULL", errno);
	free(r);
}

/* @n levels of a 100-byte directory name after "rp/", into @path */
static char *deep(char *path, size_t size, int n)
{
	size_t len;
	int i;

	len = (size_t)snprintf(path, size, "rp");
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(path + len, size - len, "/%s", DEEP_NAME);
	return path;
}

static void paths(void)
{
	static char top[PATH_MAX], p[3 * PATH_MAX], q[PATH_MAX];
	char buf[PATH_MAX];
	const char *volatile noname = NULL;	/* glibc checks it; gcc warns */
	char *volatile nobuf = NULL;
	size_t len;
	char *r;
	pid_t pid;
	int i, st;

	if (!getcwd(top, sizeof(top)) || mkdir("rp", 0755) < 0 ||
	    mkdir("rp/d", 0755) < 0 || close(creat("rp/f", 0644)) < 0)
		exit(6);
	/* chains: absolute, relative, through a directory, loops */
	snprintf(p, sizeof(p), "%s/rp/f", top);
	if (symlink(p, "rp/abs") < 0 || symlink("abs", "rp/l2") < 0 ||
	    symlink("l2", "rp/l1") < 0 || symlink("../f", "rp/d/up") < 0 ||
	    symlink("d/up", "rp/rel") < 0 || symlink("d", "rp/ld") < 0 ||
	    symlink("./ld/../ld/./up", "rp/mixed") < 0 || symlink("loop2", "rp/loop1") < 0 ||
	    symlink("loop1", "rp/loop2") < 0 || symlink("missing/x", "rp/dangling") < 0 ||
	    symlink("/", "rp/root") < 0 || symlink("f/", "rp/fslash") < 0)
		exit(7);
	/* c0 -> c1 -> ... -> c41 -> f: 40 links (from c2) resolve, 41 are ELOOP */
	for (i = 0; i <= 41; i++) {
		snprintf(q, sizeof(q), "rp/c%d", i);
		snprintf(p, sizeof(p), i == 41 ? "f" : "c%d", i + 1);
		if (symlink(p, q) < 0)
			exit(8);
	}

	snprintf(p, sizeof(p), "%s/rp/f", top);
	rp("absolute", p);
	snprintf(p, sizeof(p), "%s//rp/./d/..//f", top);
	rp("absolute with . .. //", p);
	rp("/", "/");
	rp("//", "//");
	rp("/..", "/..");
	rp("rp/f", "rp/f");
	rp(".", ".");
	rp("..", "..");
	rp("rp/d/../../rp/./f", "rp/d/../../rp/./f");
	rp("rp/l1", "rp/l1");
	rp("rp/rel", "rp/rel");
	rp("rp/mixed", "rp/mixed");
	rp("rp/ld/up/", "rp/ld/up/");
	rp("rp/ld/..", "rp/ld/..");
	rp("rp/root/tmp/..", "rp/root/tmp/..");
	rp("rp/c2 (40 links)", "rp/c2");
	rp("rp/c1 (41 links)", "rp/c1");
	rp("rp/loop1", "rp/loop1");
	rp("rp/loop1/x", "rp/loop1/x");
	rp("rp/f/", "rp/f/");
	rp("rp/f/.", "rp/f/.");
	rp("rp/f/..", "rp/f/..");
	rp("rp/f/x", "rp/f/x");
	rp("rp/fslash", "rp/fslash");
	rp("rp/d/", "rp/d/");
	rp("rp/d/.", "rp/d/.");
	rp("rp/d//..//", "rp/d//..//");
	rp("rp/ld/", "rp/ld/");
	rp("rp/missing", "rp/missing");
	rp("rp/missing/", "rp/missing/");
	rp("rp/missing/x/../f", "rp/missing/x/../f");
	rp("rp/dangling", "rp/dangling");
	rp("empty", "");
	rp("NULL", noname);
	errno = ERRNO_MARK;
	r = realpath("rp/f", nobuf);
	note("realpath(rp/f, NULL resolved) != NULL", r != NULL);
	free(r);

	/*
	 * a name past 1024 bytes grows glibc's buffers; a prefix past
	 * PATH_MAX fails in readlink
	 */
	len = 0;
	for (i = 0; i < 300; i++)
		len += (size_t)snprintf(p + len, sizeof(p) - len, "./rp/d/../..//");
	snprintf(p + len, sizeof(p) - len, "rp/f");
	rp("300 x ./rp/d/../..// + rp/f", p);
	rp_alloc("300 x ./rp/d/../..// + rp/f", p);
	if (chdir("rp") < 0)
		exit(9);
	for (i = 0; i < DEEP_LEVELS; i++)
		if (mkdir(DEEP_NAME, 0755) < 0 || chdir(DEEP_NAME) < 0)
			exit(9);
	if (chdir(top) < 0)
		exit(9);
	rp("10 levels", deep(p, sizeof(p), 10));
	rp_alloc("10 levels", p);
	rp("35 levels", deep(p, sizeof(p), 35));
	rp_alloc("35 levels", p);
	rp("45 levels", deep(p, sizeof(p), DEEP_LEVELS));
	rp_alloc("45 levels", p);
	len = strlen(deep(p, sizeof(p), 20));
	snprintf(p + len, sizeof(p) - len, "/x/y/z/../../../missing");
	rp("20 levels + x/y/z/../../../missing", p);

	/* a target of 3000 bytes: readlink with 1023, 2047, then 4095 */
	len = 0;
	for (i = 0; i < 1498; i++)
		len += (size_t)snprintf(p + len, sizeof(p) - len, "./");
	snprintf(p + len, sizeof(p) - len, "f");
	if (symlink(p, "rp/longlink") < 0)
		exit(10);
	rp("rp/longlink", "rp/longlink");
	rp_alloc("rp/longlink", "rp/longlink");
	rp("rp/longlink/", "rp/longlink/");

	/* a cwd past 1023 (and 2047) bytes: getcwd fails with ERANGE first */
	if (chdir(deep(p, sizeof(p), 15)) < 0)
		exit(9);
	rp(". in a 1.5 KB cwd", ".");
	rp_alloc(".. in a 1.5 KB cwd", "..");
	if (chdir(top) < 0 || chdir(deep(p, sizeof(p), 35)) < 0)
		exit(9);
	rp("x in a 3.5 KB cwd", "x");
	rp_alloc(". in a 3.5 KB cwd", ".");
	if (chdir(top) < 0)
		exit(9);

	rp_alloc("rp/l1", "rp/l1");
	rp_alloc("rp/missing", "rp/missing");
	rp_alloc("rp/c0", "rp/c0");
	rp_alloc("empty", "");

	errno = ERRNO_MARK;
	note("__realpath_chk(rp/rel, PATH_MAX) == buf",
	     __realpath_chk("rp/rel", buf, sizeof(buf)) == buf);
	printf("buf %s\n", buf);
	/* under PATH_MAX it aborts, in glibc's own code */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };

		setrlimit(RLIMIT_CORE, &no_core);
		dup2(open("/dev/null", O_WRONLY), 2);
		__realpath_chk("rp/f", buf, 100);
		_exit(0);
	}
	note("__realpath_chk(rp/f, 100) aborts",
	     pid > 0 && waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) &&
	     WTERMSIG(st) == SIGABRT);

	/* a removed cwd: getcwd fails, and the partial result is "" */
	if (mkdir("rp/gone", 0755) < 0 || chdir("rp/gone") < 0 || rmdir("../gone") < 0)
		exit(11);
	rp("f in a removed cwd", "f");
	rp("/ in a removed cwd", "/");
	if (chdir(top) < 0)
		exit(9);
}

int main(int argc, char **argv)
{
	if (argc != 2 || chdir(argv[1]) < 0) {
		fprintf(stderr, "usage: fp_calls EMPTY-DIR\n");
		return 1;
	}
	/*
	 * marks where the program's own calls start and end in an strace log;
	 * a dirfd no program has stands out in raw (hex) logs as well
	 */
	syscall(SYS_faccessat, MARK_START, "fp_calls-start", F_OK);
	files();
	meta();
	names();
	descs();
	waits();
	xattrs();
	dirs();
	paths();
	fflush(stdout);
	syscall(SYS_faccessat, MARK_END, "fp_calls-end", F_OK);
	return 0;
}
