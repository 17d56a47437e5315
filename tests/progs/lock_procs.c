/*
 * lock_procs.c - two processes that lock one file's ranges and another
 * file whole, each in the other's way, as a database and a tool that
 * opens it at the same time do:
 *   lock_procs DIR
 * The parent opens DIR/db, write-locks bytes 0-99 (F_SETLK) and forks.
 * The child opens DIR/db itself, finds the lock (F_GETLK), is refused
 * bytes 0-9 (F_SETLK: EAGAIN), tells the parent through a pipe and waits
 * for them (F_SETLKW), which it gets when the parent, 50 ms later,
 * writes a page and unlocks.  Then the same with a lock of the open
 * (F_OFD_SETLK) on DIR/ofd and with flock() on DIR/whole: refused with
 * LOCK_NB, then waited for (LOCK_SH) until the parent's LOCK_UN.  Exits
 * 0 when every call answered as it should.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "lock.h"

/* lk(), as 0 or -errno for CHECK() */
static int lk_err(int fd, int cmd, short type, off_t start, off_t len)
{
	return lk(fd, cmd, type, start, len) < 0 ? -errno : 0;
}

static void pause_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

static int child(const char *dir, int tell)
{
	int db = open_in(dir, "db"), ofd = open_in(dir, "ofd"), whole = open_in(dir, "whole");
	struct flock fl;
	char b[4096];

	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_RDLCK;
	fl.l_whence = SEEK_SET;
	fl.l_len = 10;
	CHECK("F_GETLK", fcntl(db, F_GETLK, &fl), 0);
	CHECK("F_GETLK's l_type", fl.l_type, F_WRLCK);
	CHECK("F_SETLK refused", lk_err(db, F_SETLK, F_WRLCK, 0, 10), -EAGAIN);
	CHECK("told", write(tell, "a", 1), 1);
	CHECK("F_SETLKW", lk_err(db, F_SETLKW, F_WRLCK, 0, 10), 0);
	CHECK("read", pread(db, b, sizeof(b), 0), 4096);
	CHECK("F_UNLCK", lk_err(db, F_SETLK, F_UNLCK, 0, 10), 0);

	CHECK("F_OFD_SETLK refused", lk_err(ofd, F_OFD_SETLK, F_WRLCK, 0, 0), -EAGAIN);
	CHECK("told", write(tell, "b", 1), 1);
	CHECK("F_OFD_SETLKW", lk_err(ofd, F_OFD_SETLKW, F_RDLCK, 0, 0), 0);

	CHECK("flock refused", flock(whole, LOCK_EX | LOCK_NB) < 0 ? -errno : 0, -EWOULDBLOCK);
	CHECK("told", write(tell, "c", 1), 1);
	CHECK("flock waited", flock(whole, LOCK_SH), 0);
	CHECK("flock unlock", flock(whole, LOCK_UN), 0);
	close(db);
	close(ofd);
	close(whole);
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	int db, ofd, whole, p[2], st = 0;
	char b[4096], c;
	pid_t pid;

	if (argc != 2) {
		fprintf(stderr, "usage: lock_procs DIR\n");
		return 2;
	}
	db = open_in(argv[1], "db");
	ofd = open_in(argv[1], "ofd");
	whole = open_in(argv[1], "whole");
	if (db < 0 || ofd < 0 || whole < 0 || pipe(p) < 0) {
		perror("lock_procs");
		return 2;
	}
	CHECK("F_SETLK", lk_err(db, F_SETLK, F_WRLCK, 0, 100), 0);
	CHECK("F_OFD_SETLK", lk_err(ofd, F_OFD_SETLK, F_WRLCK, 0, 0), 0);
	CHECK("flock", flock(whole, LOCK_EX), 0);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		_exit(child(argv[1], p[1]));
	}
	close(p[1]);
	memset(b, 'x', sizeof(b));
	CHECK("waited", read(p[0], &c, 1), 1);
	pause_ms(50);
	CHECK("write", pwrite(db, b, sizeof(b), 0), 4096);
	CHECK("F_UNLCK", lk_err(db, F_SETLK, F_UNLCK, 0, 100), 0);
	CHECK("waited", read(p[0], &c, 1), 1);
	pause_ms(50);
	CHECK("F_OFD unlock", lk_err(ofd, F_OFD_SETLK, F_UNLCK, 0, 0), 0);
	CHECK("waited", read(p[0], &c, 1), 1);
	pause_ms(50);
	CHECK("flock unlock", flock(whole, LOCK_UN), 0);
	CHECK("child", waitpid(pid, &st, 0), pid);
	CHECK("child's status", st, 0);
	return fails ? 1 : 0;
}
