/*
 * join_stack.c DIR - a thread with a stack larger than glibc keeps in its
 * cache of stacks (64 MiB), joined: glibc unmaps that stack right after
 * the join, a munmap of anonymous memory that the trace does not hold,
 * between the join's wait (a futex) and the main thread's next call.
 *
 * The main thread calls access("DIR/m0"), starts the thread, joins it,
 * then calls access("DIR/m1").  The thread calls access("DIR/a"), sleeps
 * 100 ms (nanosleep), calls access("DIR/b").  Exit 0; 1 with what failed.
 * (tests/integration/record_bpf_gap_carry.sh)
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static const char *dir;

static void at(const char *name)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	access(p, F_OK);
}

static void *worker(void *arg)
{
	struct timespec t = { 0, 100000000 };

	(void)arg;
	at("a");
	nanosleep(&t, NULL);
	at("b");
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	pthread_t th;

	if (argc != 2) {
		fprintf(stderr, "usage: join_stack DIR\n");
		return 2;
	}
	dir = argv[1];
	if (pthread_attr_init(&attr) || pthread_attr_setstacksize(&attr, 64 << 20)) {
		fprintf(stderr, "join_stack: stack size not set\n");
		return 1;
	}
	at("m0");
	if (pthread_create(&th, &attr, worker, NULL) || pthread_join(th, NULL)) {
		fprintf(stderr, "join_stack: thread not made or joined\n");
		return 1;
	}
	at("m1");
	return 0;
}
