/*
 * close_race - one thread closes descriptors while another opens
 * directories and names files relative to them.
 *
 * The kernel frees a descriptor's number early in close(), so the other
 * thread's open can return that number before the close itself returns.
 * A recorder that forgets the closed descriptor's file when the close
 * returns then forgets the new one instead, and the calls made through
 * it lose their directory.
 *
 * Usage: close_race DIR ROUNDS
 * DIR must hold a file "f" and a directory "d" holding a file "g".
 * Exit: 0, or 1 on an error.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static int dirfd_, rounds;

static void *closer(void *arg)
{
	int i, fd;

	(void)arg;
	for (i = 0; i < rounds; i++) {
		fd = openat(dirfd_, "f", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return (void *)1;
		close(fd);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	void *res;
	struct stat sb;
	int i, fd, bad = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: close_race DIR ROUNDS\n");
		return 1;
	}
	rounds = atoi(argv[2]);
	dirfd_ = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd_ < 0 || pthread_create(&th, NULL, closer, NULL) != 0) {
		perror("close_race");
		return 1;
	}
	for (i = 0; i < rounds; i++) {
		fd = openat(dirfd_, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 || fstatat(fd, "g", &sb, 0) < 0)
			bad++;
		if (fd >= 0)
			close(fd);
	}
	pthread_join(th, &res);
	if (bad || res) {
		fprintf(stderr, "close_race: %d calls failed\n", bad + (res != NULL));
		return 1;
	}
	return 0;
}
