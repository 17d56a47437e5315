/*
 * walk_db - index a directory's files into a database file, as omindex
 * does: list the directory, then for each entry, in the listing's order,
 * open it by its path, read it 64 bytes at a time, close it, write the
 * next block of the database (opened before the walk) and read it back,
 * asking for two blocks: the read gets one, the database's last.
 *
 * Usage: walk_db DIR DB    (DIR absolute)
 * Exit: 0, or 1 on an error (a block read back otherwise).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXN 256
#define BLK 4096

int main(int argc, char **argv)
{
	static char names[MAXN][256], buf[2 * BLK];
	char path[4096 + 256];
	struct dirent *de;
	int n = 0, i, fd, db;
	ssize_t r;
	DIR *d;

	if (argc != 3 || argv[1][0] != '/') {
		fprintf(stderr, "usage: walk_db /DIR DB\n");
		return 1;
	}
	db = open(argv[2], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	d = opendir(argv[1]);
	if (db < 0 || !d) {
		perror("walk_db");
		return 1;
	}
	while ((de = readdir(d)) && n < MAXN)
		if (de->d_name[0] != '.')
			snprintf(names[n++], sizeof(names[0]), "%s", de->d_name);
	closedir(d);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", argv[1], names[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			perror(path);
			return 1;
		}
		while ((r = read(fd, buf, 64)) > 0)
			;
		close(fd);
		memset(buf, 'a' + i % 26, BLK);
		if (pwrite(db, buf, BLK, (off_t)i * BLK) != BLK) {
			perror("walk_db: pwrite");
			return 1;
		}
		if (pread(db, buf, 2 * BLK, (off_t)i * BLK) != BLK) {
			fprintf(stderr, "walk_db: block %d read back otherwise\n", i);
			return 1;
		}
	}
	close(db);
	return 0;
}
