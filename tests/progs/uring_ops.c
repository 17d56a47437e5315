/*
 * uring_ops.c - one of each io_uring request iotape decodes, on files
 * under DIR, with raw syscalls (no liburing): MKDIRAT, OPENAT, WRITE,
 * WRITEV, READ_FIXED (registered buffer), WRITE on a registered file,
 * FSYNC, FALLOCATE, STATX, READ, READV, CLOSE, RENAMEAT, UNLINKAT, a
 * linked WRITE -> FSYNC pair submitted in one io_uring_enter, and a NOP
 * made as liburing makes one (fd -1).
 *
 * usage: uring_ops DIR  ->  exit 0 when every request gave what it should
 * Leaves DIR/sub/b (65536 bytes) and DIR/sub/d (4096 bytes).
 */
#include <fcntl.h>
#include <linux/stat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ring.h"

static struct ring R;
static char buf[3][8192] __attribute__((aligned(4096)));

#define sqe(...) ring_sqe(&R, __VA_ARGS__)
#define run(n) ring_run(&R, (n))

#define CHECK(what, got, want) do {					\
	long g_ = (long)(got);						\
	if (g_ != (long)(want)) {					\
		fprintf(stderr, "uring_ops: %s: %ld, want %ld\n", what, g_, (long)(want)); \
		return 1;						\
	}								\
} while (0)

int main(int argc, char **argv)
{
	struct iovec iov[2] = { { buf[1], 4096 }, { buf[1] + 4096, 4096 } };
	struct iovec reg = { buf[2], 8192 };
	struct statx stx;
	char sub[4096], a[4096], b[4096], cpath[4096], d[4096];
	int fd, fd2;

	if (argc != 2) {
		fprintf(stderr, "usage: uring_ops DIR\n");
		return 2;
	}
	snprintf(sub, sizeof(sub), "%s/sub", argv[1]);
	snprintf(a, sizeof(a), "%s/sub/a", argv[1]);
	snprintf(b, sizeof(b), "%s/sub/b", argv[1]);
	snprintf(cpath, sizeof(cpath), "%s/sub/c", argv[1]);
	snprintf(d, sizeof(d), "%s/sub/d", argv[1]);
	if (ring_init(&R, 8) < 0) {
		perror("io_uring_setup");
		return 1;
	}
	memset(buf, 'u', sizeof(buf));

	sqe(IORING_OP_MKDIRAT, AT_FDCWD, (uintptr_t)sub, 0755, 0);
	CHECK("mkdirat", run(1), 0);
	sqe(IORING_OP_OPENAT, AT_FDCWD, (uintptr_t)a, 0644, 0)->open_flags = O_CREAT | O_RDWR;
	fd = run(1);
	if (fd < 0)
		CHECK("openat", fd, 0);
	sqe(IORING_OP_WRITE, fd, (uintptr_t)buf[0], 8192, 0);
	CHECK("write", run(1), 8192);
	sqe(IORING_OP_WRITEV, fd, (uintptr_t)iov, 2, 8192);
	CHECK("writev", run(1), 8192);
	CHECK("register buffers", syscall(__NR_io_uring_register, R.fd, IORING_REGISTER_BUFFERS, &reg, 1), 0);
	sqe(IORING_OP_READ_FIXED, fd, (uintptr_t)buf[2], 8192, 0)->buf_index = 0;
	CHECK("read_fixed", run(1), 8192);
	CHECK("register files", syscall(__NR_io_uring_register, R.fd, IORING_REGISTER_FILES, &fd, 1), 0);
	sqe(IORING_OP_WRITE, 0, (uintptr_t)buf[0], 4096, 16384)->flags = IOSQE_FIXED_FILE;
	CHECK("write (fixed file)", run(1), 4096);
	sqe(IORING_OP_FSYNC, fd, 0, 0, 0);
	CHECK("fsync", run(1), 0);
	/* length in addr, mode in len */
	sqe(IORING_OP_FALLOCATE, fd, 65536, 0, 0);
	CHECK("fallocate", run(1), 0);
	sqe(IORING_OP_STATX, AT_FDCWD, (uintptr_t)a, STATX_SIZE, (uintptr_t)&stx)->statx_flags = 0;
	CHECK("statx", run(1), 0);
	CHECK("statx size", stx.stx_size, 65536);
	sqe(IORING_OP_READ, fd, (uintptr_t)buf[1], 4096, 4096);
	CHECK("read", run(1), 4096);
	sqe(IORING_OP_READV, fd, (uintptr_t)iov, 2, 0);
	CHECK("readv", run(1), 8192);
	CHECK("unregister files", syscall(__NR_io_uring_register, R.fd, IORING_UNREGISTER_FILES, NULL, 0), 0);
	sqe(IORING_OP_CLOSE, fd, 0, 0, 0);
	CHECK("close", run(1), 0);
	sqe(IORING_OP_RENAMEAT, AT_FDCWD, (uintptr_t)a, AT_FDCWD, (uintptr_t)b);
	CHECK("renameat", run(1), 0);
	sqe(IORING_OP_OPENAT, AT_FDCWD, (uintptr_t)cpath, 0600, 0)->open_flags = O_CREAT | O_WRONLY;
	fd2 = run(1);
	if (fd2 < 0)
		CHECK("openat c", fd2, 0);
	sqe(IORING_OP_CLOSE, fd2, 0, 0, 0);
	CHECK("close c", run(1), 0);
	sqe(IORING_OP_UNLINKAT, AT_FDCWD, (uintptr_t)cpath, 0, 0);
	CHECK("unlinkat", run(1), 0);
	sqe(IORING_OP_OPENAT, AT_FDCWD, (uintptr_t)d, 0644, 0)->open_flags = O_CREAT | O_WRONLY;
	fd2 = run(1);
	if (fd2 < 0)
		CHECK("openat d", fd2, 0);
	/* a chain: the fsync starts when the write is done */
	sqe(IORING_OP_WRITE, fd2, (uintptr_t)buf[0], 4096, 0)->flags = IOSQE_IO_LINK;
	sqe(IORING_OP_FSYNC, fd2, 0, 0, 0);
	CHECK("write -> fsync", run(2), 0);
	sqe(IORING_OP_CLOSE, fd2, 0, 0, 0);
	CHECK("close d", run(1), 0);
	sqe(IORING_OP_NOP, -1, 0, 0, 0);
	CHECK("nop", run(1), 0);
	close(R.fd);
	return 0;
}
