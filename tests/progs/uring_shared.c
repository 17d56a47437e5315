/*
 * uring_shared.c - io_uring requests that share a user_data, or a ring
 * that one thread submits to and another reaps, in DIR:
 *   data: 100 rounds of a 1 KiB and a 3 KiB read in flight together,
 *         both with user_data 0 (liburing's when a program sets none);
 *   open: 10 rounds of two IORING_OP_OPENATs in flight with user_data 0,
 *         then a pread64 and a close of each descriptor they returned;
 *   reap: 5,000 reads submitted one at a time by the main thread, of
 *         1-3 KiB, all with one user_data, reaped by another thread (as
 *         InnoDB's I/O threads reap what its other threads submit);
 *   refused: 100 rounds of a write and an fsync whose SQE has buf_index
 *         set, which the kernel refuses (EINVAL) while preparing it, as
 *         fio's io_uring engine sends them with fixedbufs.
 *   uring_shared DIR data|open|reap|refused
 * Exit 0 when every request did what it asked (the fsyncs: EINVAL).
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REAPS 5000

static struct io_uring ring;

static void *reaper(void *arg)
{
	struct io_uring_cqe *cqe;
	int i;

	for (i = 0; i < REAPS; i++) {
		if (io_uring_wait_cqe(&ring, &cqe) || cqe->res <= 0)
			exit(3);
		io_uring_cqe_seen(&ring, cqe);
	}
	return arg;
}

static int file(const char *dir, const char *name, int kib)
{
	char path[4096], blk[1024];
	int fd, i;

	memset(blk, 'f', sizeof(blk));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0)
		return -1;
	for (i = 0; i < kib; i++)
		if (write(fd, blk, sizeof(blk)) != (ssize_t)sizeof(blk))
			return -1;
	return fd;
}

int main(int argc, char **argv)
{
	static char buf[2][4096];
	struct io_uring_cqe *cqe;
	int i, k, fd;

	if (argc != 3 || (strcmp(argv[2], "data") && strcmp(argv[2], "open") &&
			  strcmp(argv[2], "reap") && strcmp(argv[2], "refused"))) {
		fprintf(stderr, "usage: uring_shared DIR data|open|reap|refused\n");
		return 2;
	}
	if ((fd = file(argv[1], "f", 16)) < 0 || io_uring_queue_init(8, &ring, 0))
		return 1;
	if (!strcmp(argv[2], "data")) {
		for (i = 0; i < 100; i++) {
			io_uring_prep_read(io_uring_get_sqe(&ring), fd, buf[0], 1024, 0);
			io_uring_prep_read(io_uring_get_sqe(&ring), fd, buf[1], 3072, 4096);
			if (io_uring_submit_and_wait(&ring, 2) != 2)
				return 1;
			for (k = 0; k < 2; k++) {
				if (io_uring_wait_cqe(&ring, &cqe) || (cqe->res != 1024 && cqe->res != 3072))
					return 1;
				io_uring_cqe_seen(&ring, cqe);
			}
		}
	} else if (!strcmp(argv[2], "open")) {
		char a[4096], b[4096];

		for (i = 0; i < 10; i++) {
			int fds[2];

			snprintf(a, sizeof(a), "%s/a%d", argv[1], i);
			snprintf(b, sizeof(b), "%s/b%d", argv[1], i);
			close(file(argv[1], a + strlen(argv[1]) + 1, 1));
			close(file(argv[1], b + strlen(argv[1]) + 1, 2));
			io_uring_prep_openat(io_uring_get_sqe(&ring), AT_FDCWD, a, O_RDONLY, 0);
			io_uring_prep_openat(io_uring_get_sqe(&ring), AT_FDCWD, b, O_RDONLY, 0);
			if (io_uring_submit_and_wait(&ring, 2) != 2)
				return 1;
			for (k = 0; k < 2; k++) {
				if (io_uring_wait_cqe(&ring, &cqe) || cqe->res < 0)
					return 1;
				fds[k] = cqe->res;
				io_uring_cqe_seen(&ring, cqe);
			}
			for (k = 0; k < 2; k++)
				if (pread(fds[k], buf[0], 4096, 0) <= 0 || close(fds[k]))
					return 1;
		}
	} else if (!strcmp(argv[2], "refused")) {
		for (i = 0; i < 100; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			io_uring_prep_write(sqe, fd, buf[0], 4096, (off_t)i * 4096);
			sqe->user_data = 1;
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_fsync(sqe, fd, 0);
			sqe->buf_index = 1;
			sqe->user_data = 2;
			if (io_uring_submit_and_wait(&ring, 2) != 2)
				return 1;
			for (k = 0; k < 2; k++) {
				if (io_uring_wait_cqe(&ring, &cqe) ||
				    cqe->res != (cqe->user_data == 1 ? 4096 : -EINVAL))
					return 1;
				io_uring_cqe_seen(&ring, cqe);
			}
		}
	} else {
		pthread_t t;

		if (pthread_create(&t, NULL, reaper, NULL))
			return 1;
		for (i = 0; i < REAPS; i++) {
			struct io_uring_sqe *sqe;

			while (!(sqe = io_uring_get_sqe(&ring)))
				usleep(10);
			io_uring_prep_read(sqe, fd, buf[i & 1], 1024 * (1 + i % 3), (i % 12) * 1024);
			io_uring_sqe_set_data(sqe, buf[0]);
			if (io_uring_submit(&ring) != 1)
				return 1;
		}
		pthread_join(t, NULL);
	}
	io_uring_queue_exit(&ring);
	return 0;
}
