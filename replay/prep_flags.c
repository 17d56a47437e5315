/*
 * prep_flags.c - chattr's flags (append-only, immutable, no-dump) on the
 * starting tree, and off what is in its way.
 *
 * A file append-only or immutable when the recording began refused
 * calls there (EPERM: a truncate, an open for writing without O_APPEND,
 * an unlink, a rename); made without its flags, the replay let them
 * through.  prepare.c sets them last, after every entry, content, time
 * and extended attribute was made: an immutable file takes no write,
 * time nor link after, and an append-only directory lets no entry go.
 * A tree a replay before left under the root (--force) holds them too,
 * set by its state or by its workload's chattr: they are taken off what
 * this one rewrites, links or replaces, and set again if recorded.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rpl.h"

/* append-only and immutable off the file @fd opened, if it has them */
static void clear_fd(int fd)
{
	int f;

	if (ioctl(fd, FS_IOC_GETFLAGS, &f) == 0 && (f & (FS_APPEND_FL | FS_IMMUTABLE_FL))) {
		f &= ~(FS_APPEND_FL | FS_IMMUTABLE_FL);
		ioctl(fd, FS_IOC_SETFLAGS, &f);
	}
}

void rpl_clear_attr_flags(int dirfd, const char *name)
{
	struct statx sx;
	int fd;

	/* statx() says whether there are any: no open otherwise */
	if (statx(dirfd, name ? name : "", (name ? 0 : AT_EMPTY_PATH) | AT_SYMLINK_NOFOLLOW, 0,
		  &sx) < 0 ||
	    !(sx.stx_attributes & (STATX_ATTR_APPEND | STATX_ATTR_IMMUTABLE)) ||
	    (!S_ISREG(sx.stx_mode) && !S_ISDIR(sx.stx_mode)))
		return;
	if (!name && S_ISREG(sx.stx_mode)) {
		clear_fd(dirfd);
		return;
	}
	/* a directory kept open is O_PATH: no ioctl through it */
	fd = openat(dirfd, name ? name : ".", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		clear_fd(fd);
		close(fd);
	}
}

int rpl_prep_unlink_in_way(const struct rpl_name *n)
{
	if (unlinkat(n->dirfd, n->name, 0) == 0)
		return 0;
	if (errno != EPERM)
		return -1;
	rpl_clear_attr_flags(n->dirfd, n->name);
	rpl_clear_attr_flags(n->dirfd, NULL);
	return unlinkat(n->dirfd, n->name, 0);
}

int rpl_prep_set_attr_flags(int dirfd, const char *name, uint32_t flags)
{
	int fd = rpl_open_name(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0), f, err = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, FS_IOC_GETFLAGS, &f) < 0) {
		err = -errno;
	} else {
		f = (int)(((uint32_t)f & ~IOT_PS_ATTR_FLAGS) | (flags & IOT_PS_ATTR_FLAGS));
		if (ioctl(fd, FS_IOC_SETFLAGS, &f) < 0)
			err = -errno;
	}
	close(fd);
	return err;
}
