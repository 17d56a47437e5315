/*
 * bad_calls.c DIR - calls that fail on their arguments or are cut short
 * by a signal, each checked for the answer it must get, in DIR:
 *
 * - an open of a FIFO no writer opens, and a lock's wait on bytes another
 *   process holds, each interrupted by SIGALRM (a handler without
 *   SA_RESTART): EINTR, after 0.1 s;
 * - renameat, mkdirat and fstatat relative to a descriptor that is not
 *   open: EBADF;
 * - fcntl(F_DUPFD) asking for a descriptor past the limit: EINVAL;
 * - utimensat with a flag it does not take, and with nanoseconds out of
 *   range: EINVAL;
 * - close_range of a range that ends before it starts: EINVAL;
 * - openat2 with O_CREAT and resolve bits it does not know (EINVAL), or a
 *   struct open_how longer than the kernel's, its tail not zero (E2BIG):
 *   no file made;
 * - setxattr of a value longer than the kernel takes: E2BIG;
 * - a child's open for writing of a file the parent holds a read lease
 *   on, non-blocking: EAGAIN;
 * - a write and a fallocate past RLIMIT_FSIZE (SIGXFSZ ignored): EFBIG;
 * - access with a mode, faccessat2 with a flag it does not take, an
 *   eventfd's write of ~0: EINVAL; an open past RLIMIT_NOFILE: EMFILE;
 * - rmdir, mkdir and link of the root or of a last "..": EBUSY, EEXIST,
 *   EPERM, ENOTEMPTY;
 * - a pipe's capacity asked for, set to 1 MiB, asked again.
 *
 * Exits 1 if any answer was not the one it must be.
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "check.h"

static char big[65537];

static void on_alarm(int sig)
{
	(void)sig;
}

/* @return : -errno of @r, or @r */
static long res(long r)
{
	return r < 0 ? -errno : r;
}

int main(int argc, char **argv)
{
	struct itimerval it = { .it_value = { 0, 100000 } };
	struct sigaction sa;
	struct timespec bad[2] = { { 0, 1000000000L }, { 0, 0 } };
	struct rlimit rl = { 1024, 1024 };
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 8 };
	struct stat sb;
	char p[4096];
	int fd, pfd[2], up[2], down[2];
	pid_t kid;

	if (argc < 2 || chdir(argv[1]) < 0)
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART: EINTR */
	sigaction(SIGALRM, &sa, NULL);

	/* a FIFO's open, waiting for a writer that never comes */
	if (mkfifo("fifo", 0644) < 0)
		return 2;
	setitimer(ITIMER_REAL, &it, NULL);
	CHECK("open of a FIFO, interrupted", res(open("fifo", O_RDONLY)), -EINTR);

	/* a lock's wait on bytes a child holds until told */
	fd = open_in(".", "locked");
	if (fd < 0 || pipe(up) < 0 || pipe(down) < 0)
		return 2;
	kid = fork();
	if (kid == 0) {
		char c;
		int k = open("locked", O_RDWR);

		close(up[0]);
		close(down[1]);
		if (k < 0 || fcntl(k, F_SETLK, &fl) < 0)
			_exit(3);
		if (write(up[1], "x", 1) != 1 || read(down[0], &c, 1) != 1)
			_exit(4);
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	{
		char c;

		CHECK("child's lock", read(up[0], &c, 1), 1);
	}
	setitimer(ITIMER_REAL, &it, NULL);
	CHECK("lock's wait, interrupted", res(fcntl(fd, F_SETLKW, &fl)), -EINTR);
	CHECK("tell the child", write(down[1], "x", 1), 1);
	{
		int st = 0;

		waitpid(kid, &st, 0);
		CHECK("child's exit status", WEXITSTATUS(st), 0);
	}
	close(up[0]);
	close(down[1]);

	/* relative to a descriptor that is not open */
	CHECK("renameat, bad dirfd", res(renameat(20001, "a", AT_FDCWD, "b")), -EBADF);
	CHECK("mkdirat, bad dirfd", res(mkdirat(20001, "d", 0755)), -EBADF);
	CHECK("fstatat, bad dirfd", res(fstatat(20001, "s", &sb, 0)), -EBADF);

	/* past the descriptor limit */
	setrlimit(RLIMIT_NOFILE, &rl);
	CHECK("F_DUPFD past the limit", res(fcntl(fd, F_DUPFD, 20001)), -EINVAL);

	/* utimensat's arguments */
	snprintf(p, sizeof(p), "locked");
	CHECK("utimensat, a flag it does not take", res(utimensat(AT_FDCWD, p, NULL, 0x8000)),
	      -EINVAL);
	CHECK("futimens, nanoseconds out of range", res(futimens(fd, bad)), -EINVAL);

	/* a range that ends before it starts */
	CHECK("close_range(5, 2)", res(syscall(SYS_close_range, 5U, 2U, 0U)), -EINVAL);

	/* openat2 creating a file, with resolve bits it does not know, and
	 * with a struct longer than the kernel's whose tail is not zero */
	{
		uint64_t how[4] = { O_RDWR | O_CREAT, 0600, 1ULL << 40, 0 };

		CHECK("openat2, unknown resolve bits", res(syscall(SYS_openat2, AT_FDCWD, "o2", how, 24)),
		      -EINVAL);
		how[2] = 0;
		how[3] = 1;
		CHECK("openat2, a longer struct", res(syscall(SYS_openat2, AT_FDCWD, "o2", how, 32)),
		      -E2BIG);
		CHECK("openat2 made nothing", res(access("o2", F_OK)), -ENOENT);
	}

	/* names no parent has */
	CHECK("rmdir of the root", res(rmdir("/")), -EBUSY);
	CHECK("link of the root", res(link("/", "rootlink")), -EPERM);
	CHECK("mkdir", res(mkdir("sub", 0755)), 0);
	CHECK("mkdir of sub/..", res(mkdir("sub/..", 0755)), -EEXIST);
	CHECK("rmdir of sub/..", res(rmdir("sub/..")), -ENOTEMPTY);

	/* a value longer than XATTR_SIZE_MAX */
	CHECK("setxattr of 65537 bytes", res(setxattr("locked", "user.big", big, sizeof(big), 0)),
	      -E2BIG);

	/* a lease's refusal */
	{
		int rd, st = 0;

		close(open_in(".", "leased"));
		rd = open("leased", O_RDONLY);

		signal(SIGIO, SIG_IGN);		/* the lease's break */
		CHECK("read lease", res(fcntl(rd, F_SETLEASE, F_RDLCK)), 0);
		kid = fork();
		if (kid == 0)
			_exit(open("leased", O_WRONLY | O_NONBLOCK) < 0 && errno == EAGAIN ? 0 : 5);
		waitpid(kid, &st, 0);
		CHECK("child's open met the lease", WEXITSTATUS(st), 0);
		CHECK("lease let go", res(fcntl(rd, F_SETLEASE, F_UNLCK)), 0);
		close(rd);
	}

	/* past the file size limit */
	{
		struct rlimit fs = { 4096, 4096 };
		int f = open_in(".", "limited");

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &fs);
		CHECK("write past RLIMIT_FSIZE", res(pwrite(f, big, 16, 8192)), -EFBIG);
		CHECK("fallocate past RLIMIT_FSIZE", res(fallocate(f, 0, 8192, 4096)), -EFBIG);
		close(f);
	}

	/* access's mode and faccessat2's flags the kernel does not take */
	CHECK("access, a mode it does not take", res(access("locked", 0100)), -EINVAL);
	CHECK("faccessat2, a flag it does not take",
	      res(syscall(SYS_faccessat2, AT_FDCWD, "locked", F_OK, 0x10000)), -EINVAL);

	/* an eventfd's count cannot take ~0 */
	{
		uint64_t v = ~0ULL;
		int e = eventfd(0, EFD_NONBLOCK);

		CHECK("eventfd", e >= 0, 1);
		CHECK("eventfd's write of ~0", res(write(e, &v, 8)), -EINVAL);
		close(e);
	}

	/* a descriptor past the program's limit */
	{
		int next = open("locked", O_RDONLY);
		struct rlimit few = { (rlim_t)next, 1024 };

		close(next);
		setrlimit(RLIMIT_NOFILE, &few);
		CHECK("open past RLIMIT_NOFILE", res(open("locked", O_RDONLY)), -EMFILE);
		setrlimit(RLIMIT_NOFILE, &rl);
	}

	/* a pipe's capacity */
	if (pipe(pfd) < 0)
		return 2;
	CHECK("pipe's size", res(fcntl(pfd[0], F_GETPIPE_SZ)), 65536);
	CHECK("pipe's size set", res(fcntl(pfd[1], F_SETPIPE_SZ, 1 << 20)), 1 << 20);
	CHECK("pipe's size again", res(fcntl(pfd[0], F_GETPIPE_SZ)), 1 << 20);
	close(pfd[0]);
	close(pfd[1]);
	close(fd);
	return fails != 0;
}
