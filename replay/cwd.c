/*
 * cwd.c - a replayed process's working directory, kept open.
 *
 * The trace names every path in full, the working directory's included,
 * so the replay looks paths up from its root and needs no working
 * directory, but for one case: a process whose working directory was
 * removed (by itself or another) still looks up "." and ".." in it (`cd
 * d; rmdir ../d; ls; cd ..`), where the full path names nothing any
 * more.  So each process keeps a descriptor of the directory of its last
 * chdir or fchdir (its children a copy of their parent's), and a call
 * that succeeded when recorded on that path, or on its "..", and finds
 * nothing there in the replay, is made through it.  The directory was
 * inside the root, and so is its parent: a removed directory keeps its
 * place in the tree, and renames stay inside the root.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rpl.h"

void rpl_cwd_set(struct rpl_ctx *c, int fd, const char *path)
{
	struct rpl_proc *pr = c->pr;
	int old;

	pthread_mutex_lock(&pr->cwd_lock);
	old = pr->cwd_fd;
	pr->cwd_fd = fd;
	pr->cwd_path = path;
	pthread_mutex_unlock(&pr->cwd_lock);
	if (old > 0)
		close(old);
}

void rpl_cwd_inherit(struct rpl_proc *pr, struct rpl_proc *parent)
{
	if (!parent || pr->cwd_fd > 0)
		return;
	pthread_mutex_lock(&parent->cwd_lock);
	if (parent->cwd_fd > 0) {
		pr->cwd_fd = fcntl(parent->cwd_fd, F_DUPFD_CLOEXEC, 3);
		pr->cwd_path = pr->cwd_fd > 0 ? parent->cwd_path : NULL;
		if (pr->cwd_fd < 0)
			pr->cwd_fd = 0;
	}
	pthread_mutex_unlock(&parent->cwd_lock);
}

void rpl_cwd_drop(struct rpl_proc *pr)
{
	pthread_mutex_lock(&pr->cwd_lock);
	if (pr->cwd_fd > 0)
		close(pr->cwd_fd);
	pr->cwd_fd = 0;
	pr->cwd_path = NULL;
	pthread_mutex_unlock(&pr->cwd_lock);
}

/* Is @a the same directory as @b? */
static int same_dir(int a, int b)
{
	struct stat x, y;

	return fstat(a, &x) == 0 && fstat(b, &y) == 0 && x.st_dev == y.st_dev &&
	       x.st_ino == y.st_ino;
}

int rpl_cwd_open(struct rpl_ctx *c, const char *path, int flags)
{
	struct rpl_proc *pr = c->pr;
	const char *name = NULL;
	size_t n;
	int fd = -ENOENT;

	if (!path || (flags & (O_CREAT | O_TRUNC)))
		return -ENOENT;
	pthread_mutex_lock(&pr->cwd_lock);
	if (pr->cwd_fd > 0 && pr->cwd_path) {
		n = strlen(pr->cwd_path);
		if (strcmp(path, pr->cwd_path) == 0)
			name = ".";
		else if (strncmp(path, pr->cwd_path, n) == 0 && strcmp(path + n, "/..") == 0)
			/* the root's ".." is the root */
			name = same_dir(pr->cwd_fd, c->p->root_fd) ? "." : "..";
	}
	if (name) {
		fd = openat(pr->cwd_fd, name, flags | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			fd = -errno;
	}
	pthread_mutex_unlock(&pr->cwd_lock);
	return fd;
}
