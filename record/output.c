/*
 * output.c - the file iotape record writes its trace to.
 *
 * An existing trace is replaced only once the program runs: until then
 * the new one goes to a temporary file beside it, renamed over it as soon
 * as the program has started or been attached to.  A run that cannot
 * start (no such process, a full disk for the header) leaves the old
 * trace as it was, and a recording in progress is still readable under
 * its own name.  A file created for a run that never started is removed.
 * A recorder killed between the two leaves the temporary file beside the
 * old trace, never a broken trace under its name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rec.h"

#define TMP_SUFFIX ".record.XXXXXX"

/* Truncated in place, as before: a device, a pipe, a symlink (a rename
 * would replace the link, not the file it names), a file with other
 * names, one in a directory where no temporary file can be made, or
 * another user's that we may write to but could not give back. */
static int open_in_place(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	return fd < 0 ? -errno : fd;
}

int rec_out_open(struct rec_out *ro, const char *path)
{
	struct stat st;
	size_t n;
	int fd;

	memset(ro, 0, sizeof(*ro));
	ro->path = path;
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			return -errno;
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0) {
			ro->created = 1;
			return fd;
		}
		return errno == EEXIST ? open_in_place(path) : -errno;
	}
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1)
		return open_in_place(path);
	/* the error the truncating open gave: a read-only trace stays */
	if (access(path, W_OK) < 0)
		return -errno;
	n = strlen(path) + sizeof(TMP_SUFFIX);
	ro->tmp = malloc(n);
	if (!ro->tmp)
		return -ENOMEM;
	snprintf(ro->tmp, n, "%s" TMP_SUFFIX, path);
	fd = mkostemp(ro->tmp, O_CLOEXEC);
	/* another user's trace we may write but cannot give back to them */
	if (fd >= 0 && (st.st_uid != geteuid() || st.st_gid != getegid()) &&
	    fchown(fd, st.st_uid, st.st_gid) < 0) {
		close(fd);
		unlink(ro->tmp);
		fd = -1;
	}
	if (fd < 0) {
		free(ro->tmp);
		ro->tmp = NULL;
		return open_in_place(path);
	}
	fchmod(fd, st.st_mode & 07777);
	return fd;
}

int rec_out_commit(struct rec_out *ro)
{
	if (!ro->tmp)
		return 0;
	if (rename(ro->tmp, ro->path) < 0)
		return -errno;
	free(ro->tmp);
	ro->tmp = NULL;
	ro->created = 0;
	return 0;
}

void rec_out_discard(struct rec_out *ro)
{
	if (ro->tmp)
		unlink(ro->tmp);
	else if (ro->created)
		unlink(ro->path);
	ro->created = 0;
}

void rec_out_free(struct rec_out *ro)
{
	free(ro->tmp);
	ro->tmp = NULL;
}
