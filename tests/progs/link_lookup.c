/*
 * link_lookup - a thread looks a path up through a name another thread
 * of its process just made, and nothing else orders the two.
 *
 * The main thread starts a worker, which spins on a flag in memory (no
 * call the trace holds), then stats DIR/pkg/f 2,000 times and makes the
 * symlink DIR/d -> pkg; then it lets the worker go, which stats DIR/d/f.
 * The stat names another path than the symlink: replayed without an
 * order between them, it ran while the main thread was still at its
 * stats and met ENOENT (npm's workers: one makes node_modules/a ->
 * ../packages/a again, another stats node_modules/a/cli.js).
 *
 * Usage: link_lookup DIR   (DIR/pkg/f exists, DIR/d does not)
 * Exit: 0, or 1 when a call did not give what it should.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static atomic_int go;
static char through[4096];

static void *worker(void *arg)
{
	struct stat st;

	(void)arg;
	while (!atomic_load(&go))
		;
	CHECK("the worker's stat through the link", stat(through, &st), 0);
	return NULL;
}

int main(int argc, char **argv)
{
	char file[4096], link[4096];
	struct stat st;
	pthread_t th;
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: link_lookup DIR\n");
		return 1;
	}
	snprintf(file, sizeof(file), "%s/pkg/f", argv[1]);
	snprintf(link, sizeof(link), "%s/d", argv[1]);
	snprintf(through, sizeof(through), "%s/d/f", argv[1]);
	if (pthread_create(&th, NULL, worker, NULL) != 0)
		return 1;
	for (i = 0; i < 2000; i++)
		CHECK("stat", stat(file, &st), 0);
	CHECK("symlink", symlink("pkg", link), 0);
	atomic_store(&go, 1);
	pthread_join(th, NULL);
	return fails != 0;
}
