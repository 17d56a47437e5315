/*
 * close_bad.c - failing closes: close_bad N makes N close(-1) calls (each
 * fails with EBADF) and one close() of a descriptor that is not open;
 * exits 1 if any of them succeeded.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 1000;

	for (i = 0; i < n; i++)
		if (close(-1) == 0 || errno != EBADF)
			return 1;
	return close(987) == 0;
}
