/*
 * replay_main.c - run every file of the given directories through the
 * fuzz entry point once; used by 'make check' on tests/fuzz/corpus.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long len;
	int rc = -1;

	if (!f)
		return -1;
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto out;
	buf = malloc(len ? (size_t)len : 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len)
		goto out;
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	rc = 0;
out:
	free(buf);
	fclose(f);
	return rc;
}

int main(int argc, char **argv)
{
	int i, n = 0, bad = 0;

	for (i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *e;
		char path[4096];

		if (!d) {
			if (run_file(argv[i]) == 0)
				n++;
			else
				bad++;
			continue;
		}
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			if (run_file(path) == 0)
				n++;
			else
				bad++;
		}
		closedir(d);
	}
	printf("fuzz-replay: %d inputs run, %d unreadable\n", n, bad);
	return bad || n == 0 ? 1 : 0;
}
