/*
 * uring_left.c - an io_uring_enter that waits with completions left in
 * the ring unreaped: three NOPs submitted and waited for, not reaped;
 * then four NOPs submitted with min_complete 5, which the kernel counts
 * from the three left (so it waits for two of the four).  Then all seven
 * are reaped.  For the recorder (how many were left) and the replay
 * (waits for the rest only): tests/integration/replay_uring_left.sh.
 * With "registered", the second enter names the ring by the index it was
 * registered under (IORING_REGISTER_RING_FDS), not by its descriptor.
 *
 * usage: uring_left [registered]  ->  exit 0 when every call gave what
 * it should
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ring.h"

int main(int argc, char **argv)
{
	struct io_uring_rsrc_update up = { .offset = -1U };
	struct ring r;
	unsigned i, h, how = 0;
	int fd;

	if (ring_init(&r, 16) < 0) {
		perror("uring_left: io_uring_setup");
		return 2;
	}
	for (i = 0; i < 3; i++)
		ring_sqe(&r, IORING_OP_NOP, -1, 0, 0, 0);
	if (syscall(__NR_io_uring_enter, r.fd, 3, 3, IORING_ENTER_GETEVENTS, NULL, 0) != 3)
		return 1;
	fd = r.fd;
	if (argc > 1 && strcmp(argv[1], "registered") == 0) {
		up.data = (uint64_t)r.fd;
		if (syscall(__NR_io_uring_register, r.fd, IORING_REGISTER_RING_FDS, &up, 1) != 1) {
			perror("uring_left: IORING_REGISTER_RING_FDS");
			return 1;
		}
		fd = (int)up.offset;
		how = IORING_ENTER_REGISTERED_RING;
	}
	for (i = 0; i < 4; i++)
		ring_sqe(&r, IORING_OP_NOP, -1, 0, 0, 0);
	if (syscall(__NR_io_uring_enter, fd, 4, 5, IORING_ENTER_GETEVENTS | how, NULL, 0) != 4)
		return 1;
	h = *r.cq_head;
	if (__atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE) - h != 7) {
		fprintf(stderr, "uring_left: %u completions, want 7\n", *r.cq_tail - h);
		return 1;
	}
	for (i = 0; i < 7; i++)
		if (r.cqes[(h + i) & *r.cq_mask].res != 0)
			return 1;
	__atomic_store_n(r.cq_head, h + 7, __ATOMIC_RELEASE);
	close(r.fd);
	printf("uring_left ok\n");
	return 0;
}
