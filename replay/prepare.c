/*
 * prepare.c - build the starting tree under the root from the PathState
 * records: what existed before the workload touched it.
 *
 * Files get their recorded size in deterministic, incompressible bytes
 * (xorshift seeded by the path hash: zeros would flatter filesystems that
 * compress, and the same trace must give the same tree on every
 * filesystem); a file or symlink already there as recorded (a setup's
 * tree) is kept: keep_found().  Hard links are rebuilt from (dev, ino);
 * directory times are set last, after their entries were made.  All of
 * it goes through the confined lookups of paths.c, in parents kept open
 * (prep_tree.c): entries are made with *at() calls in a directory
 * already open, not each by a walk from the root, and files are set up
 * through the descriptor that made them.
 *
 * Paths are made in the order the workload first came to them.  A tree
 * that was copied or unpacked lies on its disk in the order its
 * directories list it, and programs walk it in that order: made so, a
 * replayed walk reads forward through the disk as the recorded one did.
 * Made in path order, a walk recorded on a filesystem that lists newest
 * first (tmpfs) read every file backwards: tar cf on a cold ext4 took
 * 3.5 s replayed against 2.2 s natively, with 22,800 reads of the loop
 * device's backing file instead of 2,000.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine.h"
#include "rpl.h"

#define FILL_CHUNK (1 << 20)
#define MADE 1
#define SKIPPED 2

struct prep {
	struct rpl_plan *p;
	struct rpl_result *res;
	char *buf;			/* FILL_CHUNK */
	int sparse;			/* --sparse-prepare, no room: sizes without data */
	int is_root;
	uint64_t warned;
	int *made;			/* per state: MADE, SKIPPED, <0 error */
	struct rpl_map inodes;		/* inode_key() -> a made path of it */
	struct rpl_pdirs *dirs;		/* parents kept open (prep_tree.c) */
	int default_acls;		/* a directory was given a default ACL */
};

static void fill(char *buf, size_t n, uint64_t *s)
{
	uint64_t x = *s;
	size_t i;

	for (i = 0; i < n; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + i, &x, n - i < 8 ? n - i : 8);	/* the tail too */
	}
	*s = x;
}

static void warn_path(struct prep *pp, const char *path, const char *what, int err)
{
	if (pp->p->o->quiet || pp->warned++ >= 10)
		return;
	iot_warn(pp->p->o->cmd, "%s: cannot %s %s under the root: %s", pp->p->o->trace,
		 what, path, iot_strerror(err));
}

static int make_one(struct prep *pp, size_t i);
static void made_file(struct prep *pp, size_t i);
static int made_by_workload(const struct prep *pp, size_t i);

/* The state of the entry @name of the directory @dirfd under the root,
 * by its path there without symlinks or "..": @path, whose ancestors
 * were resolved one by one, can hold a link's target ("d1/../d2/mid",
 * d1/top -> ../d2/mid) where the recording has "d2/mid". */
static const struct iot_path_state *state_below(const struct prep *pp, const char *path,
						int dirfd, const char *name)
{
	const struct iot_path_state *ps = rpl_path_state(pp->p, path);
	char fdp[64], root[4096], dir[4096], full[8192];
	ssize_t rl, dl;

	if (ps || !strstr(path, "/.."))
		return ps;
	snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", pp->p->root_fd);
	rl = readlink(fdp, root, sizeof(root) - 1);
	snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", dirfd);
	dl = readlink(fdp, dir, sizeof(dir) - 1);
	if (rl <= 0 || dl < rl || memcmp(dir, root, (size_t)rl) != 0)
		return NULL;
	if (rl == 1)
		rl = 0;			/* the root is "/" */
	dir[dl] = 0;
	if ((size_t)dl > (size_t)rl && dir[rl] != '/')
		return NULL;		/* a sibling of the root, not below it */
	snprintf(full, sizeof(full), "%s/%s", dir + rl, name);
	return rpl_path_state(pp->p, full);
}

/*
 * A missing ancestor @path (entry @name of @dirfd) that the starting
 * tree holds as a symlink is made as that symlink now, ahead of its
 * turn, and not as a directory: the order puts a path before a link it
 * goes through wherever their times tie and the link sorts later (an
 * ancestor first named late, "/" by a stat at the end, gives its time
 * to every path below it).  The chain top -> mid -> real, made as
 * top -> mid and a directory mid, put real's files under mid, and a call
 * naming real/f failed (run-parts of jobs copying
 * /usr/share/doc/PKG/copyright, libbinutils -> binutils-common: 69
 * mismatches).
 */
static void make_link_ancestor(struct prep *pp, const char *path, int dirfd, const char *name)
{
	const struct iot_path_state *ps = state_below(pp, path, dirfd, name);
	size_t i;

	if (!ps || (ps->type & S_IFMT) != S_IFLNK)
		return;
	i = (size_t)(ps - pp->p->ps);
	if (pp->made[i] == MADE || made_by_workload(pp, i) || rpl_path_skip(pp->p->o, ps->path))
		return;
	if (make_one(pp, i) == 0)
		made_file(pp, i);
}

/* mkdir -p of the ancestors of @path (parents first).  An ancestor that
 * is a symlink whose target is not there yet (/lib -> usr/lib, a target
 * the workload never named) gets its target made as a directory, so the
 * recorded path resolves as it did; a missing ancestor the starting tree
 * has as a symlink is made as one (make_link_ancestor()). */
static int make_ancestors(struct prep *pp, const char *path, int depth)
{
	char buf[4096], target[4096], abs[8192];
	size_t len = strlen(path), i;

	if (len >= sizeof(buf) || depth > 8)
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (i = 1; i < len; i++) {
		struct rpl_name n;
		ssize_t tl;
		int fd;

		if (buf[i] != '/')
			continue;
		buf[i] = 0;
		fd = rpl_resolve(pp->p->root_fd, buf, O_PATH | O_DIRECTORY, 0);
		if (fd >= 0) {
			close(fd);
			buf[i] = '/';
			continue;
		}
		if (rpl_parent(pp->p->root_fd, buf, &n) == 0) {
			make_link_ancestor(pp, buf, n.dirfd, n.name);
			if (mkdirat(n.dirfd, n.name, 0755) == 0) {
				pp->res->prep_dirs++;
			} else if (errno == EEXIST &&
				   (tl = readlinkat(n.dirfd, n.name, target, sizeof(target) - 1)) > 0) {
				target[tl] = 0;
				if (target[0] == '/')
					snprintf(abs, sizeof(abs), "%s/", target);
				else
					snprintf(abs, sizeof(abs), "%.*s/%s/", (int)(strrchr(buf, '/') - buf),
						 buf, target);
				make_ancestors(pp, abs, depth + 1);
			}
			close(n.dirfd);
		}
		buf[i] = '/';
	}
	return 0;
}

/* @len bytes of the pattern at @off of @fd (the file's size unchanged
 * where the range ends before it). */
static int write_range(struct prep *pp, int fd, uint64_t off, uint64_t len, uint64_t *seed)
{
	while (len > 0) {
		size_t n = len < FILL_CHUNK ? (size_t)len : FILL_CHUNK;
		ssize_t w;

		fill(pp->buf, n, seed);
		w = pwrite(fd, pp->buf, n, (off_t)off);
		if (w < 0)
			return -errno;
		if (w == 0)
			return -ENOSPC;
		len -= (uint64_t)w;
		off += (uint64_t)w;
		pp->res->prep_bytes += (uint64_t)w;
	}
	return 0;
}

static int write_file(struct prep *pp, int fd, const struct iot_path_state *ps)
{
	uint64_t seed = iot_hash(ps->path, strlen(ps->path), 7) | 1, off, len;
	uint32_t i;
	int err;

	if (ps->size == 0)
		return 0;		/* made empty */
	/* a file only listed was never read: its size without data */
	if (pp->sparse || (ps->flags & IOT_PS_LISTED))
		return ftruncate(fd, (off_t)ps->size) < 0 ? -errno : 0;
	if (!(ps->flags & IOT_PS_SPARSE))
		return write_range(pp, fd, 0, ps->size, &seed);
	/* a file with holes: its size, then its data where it had some */
	if (ftruncate(fd, (off_t)ps->size) < 0)
		return -errno;
	for (i = 0; rpl_ps_range(ps, i, &off, &len); i++)
		if ((err = write_range(pp, fd, off, len, &seed)))
			return err;
	return 0;
}

static void state_times(const struct iot_path_state *ps, struct timespec ts[2])
{
	ts[0] = (struct timespec){ ps->atime_ns / 1000000000, ps->atime_ns % 1000000000 };
	ts[1] = (struct timespec){ ps->mtime_ns / 1000000000, ps->mtime_ns % 1000000000 };
}

/* chmod of @name itself, never of what it links to: a name a hostile
 * trace made a symlink to /etc/passwd stays a symlink (fchmodat2, then
 * glibc's emulation of the flag on kernels before 6.6). */
static void chmod_nofollow(int dirfd, const char *name, mode_t mode)
{
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
	if (syscall(SYS_fchmodat2, dirfd, name, mode, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOSYS)
		fchmodat(dirfd, name, mode, AT_SYMLINK_NOFOLLOW);
}

static void set_attrs(struct prep *pp, int dirfd, const char *name,
		      const struct iot_path_state *ps)
{
	struct timespec ts[2];
	uint32_t type = ps->type & S_IFMT;

	state_times(ps, ts);
	if (pp->is_root)
		fchownat(dirfd, name, ps->uid, ps->gid, AT_SYMLINK_NOFOLLOW);
	if (type != S_IFLNK)
		chmod_nofollow(dirfd, name, ps->mode & 07777);
	if (ps->mtime_ns > 0 && ps->atime_ns >= 0)
		utimensat(dirfd, name, ts, AT_SYMLINK_NOFOLLOW);
}

/*
 * The extended attributes of @ps on what @fd holds (a file or directory
 * under the root): user.*, trusted.* and the ACLs.  Others (security.*:
 * the host's own labels and file capabilities) are counted, not made.
 */
static int xattr_made_here(const char *name)
{
	return !strncmp(name, "user.", 5) || !strncmp(name, "trusted.", 8) ||
	       !strcmp(name, "system.posix_acl_access") || !strcmp(name, "system.posix_acl_default");
}

/* Has @ps the extended attribute @name? */
static int has_xattr(const struct iot_path_state *ps, const char *name)
{
	uint32_t i;

	for (i = 0; ps->extra && i < ps->extra->n_xattrs; i++)
		if (!strcmp(ps->extra->xattrs[i].name, name))
			return 1;
	return 0;
}

/* An entry made in a directory with a default ACL inherits it: its ACLs
 * that @ps lacks are taken off again, once a default ACL was made (the
 * files of a tree with one had ACLs they never had: 2,632 of a workload's
 * listxattr and getxattr calls differed). */
static void set_xattrs_fd(struct prep *pp, int fd, const struct iot_path_state *ps)
{
	static const char *const acls[] = { "system.posix_acl_access", "system.posix_acl_default" };
	uint32_t i;

	for (i = 0; ps->extra && i < ps->extra->n_xattrs; i++) {
		const struct iot_xattr *x = &ps->extra->xattrs[i];

		if (xattr_made_here(x->name) &&
		    fsetxattr(fd, x->name, x->value ? (const void *)x->value : "", x->value_len,
			      0) == 0) {
			pp->res->prep_xattrs++;
			if (!strcmp(x->name, acls[1]))
				pp->default_acls = 1;
		} else if (pp->res->prep_xattrs_not++ == 0 && xattr_made_here(x->name)) {
			warn_path(pp, ps->path, "set extended attribute", errno);
		}
	}
	for (i = 0; pp->default_acls && i < 2; i++)
		if (!has_xattr(ps, acls[i]))
			fremovexattr(fd, acls[i]);
}

/* set_attrs() on what @fd holds: no lookup of the name again.  @made:
 * it was created with its permission bits (chown still clears set-id
 * bits, so those are set after it). */
static void set_attrs_fd(struct prep *pp, int fd, const struct iot_path_state *ps, int made)
{
	struct timespec ts[2];

	state_times(ps, ts);
	if (pp->is_root)
		fchown(fd, ps->uid, ps->gid);
	if (!made || (ps->mode & 07000))
		fchmod(fd, ps->mode & 07777);
	if (ps->mtime_ns > 0 && ps->atime_ns >= 0)
		futimens(fd, ts);
}

/* The (dev, ino, type) of a path with several links, as a map key. */
static uint64_t inode_key(const struct iot_path_state *ps)
{
	const uint64_t k[3] = { ps->dev, ps->ino, ps->type & S_IFMT };

	return iot_hash(k, sizeof(k), 11);
}

static int same_inode(const struct iot_path_state *a, const struct iot_path_state *b)
{
	return a->ino == b->ino && a->dev == b->dev && (a->type & S_IFMT) == (b->type & S_IFMT);
}

/* A path already made of the (dev, ino) of @i with several links, for
 * link(): the map holds the first made of each. */
static const struct iot_path_state *link_source(struct prep *pp, size_t i)
{
	const struct iot_path_state *ps = &pp->p->ps[i];
	uint32_t j;
	size_t k;

	if (ps->nlink < 2 || !ps->ino)
		return NULL;
	if (!rpl_map_get(&pp->inodes, inode_key(ps), &j))
		return NULL;
	if (same_inode(&pp->p->ps[j], ps))
		return &pp->p->ps[j];
	for (k = 0; k < pp->p->n_ps; k++)	/* two inodes, one key */
		if (pp->made[k] == MADE && same_inode(&pp->p->ps[k], ps))
			return &pp->p->ps[k];
	return NULL;
}

/* @i was made: a later link to its inode can be made from it. */
static void made_file(struct prep *pp, size_t i)
{
	const struct iot_path_state *ps = &pp->p->ps[i];
	uint64_t key;
	uint32_t j;

	pp->made[i] = MADE;
	if (ps->nlink < 2 || !ps->ino || (ps->type & S_IFMT) != S_IFREG)
		return;
	key = inode_key(ps);
	if (!rpl_map_get(&pp->inodes, key, &j))
		rpl_map_put(&pp->inodes, key, (uint32_t)i);	/* no room: copies */
}

struct first { int64_t t; size_t i; };

static int first_cmp(const void *a, const void *b)
{
	const struct first *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The entry of @k paths' first states @f (in path order: ascending
 * indexes) that is state @j, or -1. */
static ssize_t first_at(const struct first *f, size_t k, size_t j)
{
	size_t lo = 0, hi = k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f[mid].i == j)
			return (ssize_t)mid;
		if (f[mid].i < j)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/*
 * Indexes of the first state of each path, in the order the workload
 * came to them (states without a time keep path order), a path after
 * the nearest of its parents that has a state: an entry of a listed
 * directory has the listing's time, and a state the recorder took of a
 * symlink its path goes through can have a later one (the time it
 * looked): made first, the entry made its parents as directories, and
 * the symlink (/lib -> usr/lib) was not made (ldconfig: 8 mismatches).
 */
static size_t *make_order(const struct rpl_plan *p, size_t *n)
{
	struct first *f = malloc((p->n_ps + 1) * sizeof(*f));
	size_t *o = malloc((p->n_ps + 1) * sizeof(*o));
	size_t i, k = 0, cap = 0;
	char *buf = NULL;

	if (!f || !o) {
		free(f);
		free(o);
		return NULL;
	}
	for (i = 0; i < p->n_ps; i++)
		if (i == 0 || strcmp(p->ps[i].path, p->ps[i - 1].path) != 0)
			f[k++] = (struct first){ p->ps[i].t_ns, i };
	/* in path order, a parent's time is final before its entries' */
	for (i = 0; i < k; i++) {
		const char *path = p->ps[f[i].i].path;
		const struct iot_path_state *anc = NULL;
		size_t len = strlen(path);
		ssize_t a;

		if (len >= cap) {
			char *nb = realloc(buf, len + 1);

			if (!nb)
				break;		/* the order by time alone, then */
			buf = nb;
			cap = len + 1;
		}
		memcpy(buf, path, len + 1);
		while (!anc && len > 1) {
			while (len > 1 && buf[len - 1] != '/')
				len--;
			if (len > 1)
				len--;		/* "/a/b" -> "/a"; "/a" -> "/" */
			buf[len] = 0;
			anc = rpl_path_state(p, buf);
		}
		if (anc && (a = first_at(f, i, (size_t)(anc - p->ps))) >= 0 && f[a].t > f[i].t)
			f[i].t = f[a].t;
	}
	free(buf);
	qsort(f, k, sizeof(*f), first_cmp);
	for (i = 0; i < k; i++)
		o[i] = f[i].i;
	free(f);
	*n = k;
	return o;
}

/*
 * A regular file already under the root with the size of @ps, one link,
 * stays as it is, its attributes set: the tree 'bench --setup' or
 * 'validate --setup' copied in is the starting state the native runs
 * start from, and made anew it is not.  Replaced, the 6,394 files
 * (68 MiB) a setup had copied in were unlinked and written again before
 * every replay, in other bytes and in the free space their old blocks
 * left, and 0.5-0.8 s went to it.  Anything else in the way
 * (another type, size or link count) is replaced, as before.
 * @return : 1 if kept.
 */
static int keep_found(struct prep *pp, const struct rpl_name *n, const struct iot_path_state *ps)
{
	struct stat st, fst;
	int fd, kept = 0;

	if (ps->nlink > 1 || fstatat(n->dirfd, n->name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_nlink != 1 || (uint64_t)st.st_size != ps->size)
		return 0;
	/* a regular file, checked first: no device is ever opened here */
	fd = openat(n->dirfd, n->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &fst) == 0 && fst.st_ino == st.st_ino && fst.st_dev == st.st_dev &&
	    S_ISREG(fst.st_mode)) {
		rpl_clear_attr_flags(fd, NULL);	/* set again last, if recorded */
		set_attrs_fd(pp, fd, ps, 0);
		set_xattrs_fd(pp, fd, ps);
		kept = 1;
	}
	close(fd);
	return kept;
}

/* A symlink already at @n points where @ps's did. */
static int same_link(const struct rpl_name *n, const struct iot_path_state *ps)
{
	char buf[4096];
	const char *want = ps->target ? ps->target : "";
	ssize_t len = readlinkat(n->dirfd, n->name, buf, sizeof(buf));

	return len >= 0 && (size_t)len == strlen(want) && memcmp(buf, want, (size_t)len) == 0;
}

/* Did the workload make state @i (or an ancestor) itself? */
static int made_by_workload(const struct prep *pp, size_t i)
{
	return rpl_ps_made_by_workload(pp->p, &pp->p->ps[i]);
}

/*
 * /dev, /proc or /sys, a directory: made, empty, so that a listing of
 * the root holds its name (mkinitramfs lists "/": 1 mismatch, three
 * entries missing); nothing in them is made, and no op on them is.
 */
static int pseudo_name(const struct iot_path_state *ps)
{
	return (ps->type & S_IFMT) == S_IFDIR && !strchr(ps->path + 1, '/') &&
	       rpl_path_skip(NULL, ps->path) == RPL_SKIP_PSEUDO;
}

static int make_one(struct prep *pp, size_t i)
{
	const struct iot_path_state *ps = &pp->p->ps[i], *src;
	uint32_t type = ps->type & S_IFMT;
	struct rpl_name n;
	int err, fd;

	/* the parent kept open from the last entry made in it; mkdir -p
	 * and the walk from the root only when it is not there */
	err = rpl_pdirs_parent(pp->dirs, ps->path, &n);
	if (err && err != -EINVAL && err != -ENAMETOOLONG) {
		make_ancestors(pp, ps->path, 0);
		err = rpl_pdirs_parent(pp->dirs, ps->path, &n);
	}
	if (err)
		return err == -EINVAL ? 0 : err;	/* "/" itself: nothing to make */
	switch (type) {
	case S_IFDIR:
		if (mkdirat(n.dirfd, n.name, ps->mode & 07777) == 0)
			pp->res->prep_dirs++;
		else if (errno != EEXIST)
			err = -errno;
		else
			rpl_clear_attr_flags(n.dirfd, n.name);	/* entries go in */
		if (err == 0 && ((ps->extra && ps->extra->n_xattrs) || pp->default_acls) &&
		    (fd = openat(n.dirfd, n.name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
			set_xattrs_fd(pp, fd, ps);
			close(fd);
		}
		break;
	/* With --force over an old tree, what is in the way and is not as
	 * recorded goes: it is removed when the name is taken, not before
	 * each entry. */
	case S_IFREG:
		src = link_source(pp, i);
		if (src) {
			struct rpl_name sn;

			err = rpl_parent(pp->p->root_fd, src->path, &sn);
			if (err == 0) {
				err = linkat(sn.dirfd, sn.name, n.dirfd, n.name, 0) < 0 ? -errno : 0;
				if (err == -EEXIST && rpl_prep_unlink_in_way(&n) == 0)
					err = linkat(sn.dirfd, sn.name, n.dirfd, n.name, 0) < 0 ? -errno : 0;
				if (err == 0)
					pp->res->prep_links++;
				close(sn.dirfd);
			}
			if (err == 0)
				break;
		}
		if (!src && keep_found(pp, &n, ps)) {
			pp->res->prep_kept++;
			goto out;
		}
		/* made with its mode (umask 0 while preparing): no chmod */
		fd = openat(n.dirfd, n.name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    ps->mode & 0777);
		if (fd < 0 && errno == EEXIST && rpl_prep_unlink_in_way(&n) == 0)
			fd = openat(n.dirfd, n.name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				    ps->mode & 0777);
		if (fd < 0) {
			err = -errno;
			break;
		}
		err = write_file(pp, fd, ps);
		if (err == 0) {
			set_xattrs_fd(pp, fd, ps);
			set_attrs_fd(pp, fd, ps, 1);
		}
		close(fd);
		pp->res->prep_files++;
		goto out;
	case S_IFLNK:
		err = symlinkat(ps->target ? ps->target : "", n.dirfd, n.name) < 0 ? -errno : 0;
		if (err == -EEXIST && same_link(&n, ps)) {
			pp->res->prep_kept++;	/* found as recorded: kept, as a file is */
			err = 0;
			break;
		}
		if (err == -EEXIST && rpl_prep_unlink_in_way(&n) == 0)
			err = symlinkat(ps->target ? ps->target : "", n.dirfd, n.name) < 0 ? -errno : 0;
		if (err == 0)
			pp->res->prep_symlinks++;
		break;
	case S_IFIFO:
	case S_IFSOCK:
		/* a socket's name (a server's, bound before the recording):
		 * what a connect looks up, a chmod or an unlink acts on */
		if (mknodat(n.dirfd, n.name, type | (ps->mode & 07777), 0) < 0 &&
		    errno != EEXIST)
			err = -errno;
		break;
	case S_IFCHR:
	case S_IFBLK:
		/* a device node: of its type, but with a driver only where
		 * that is harmless (rpl_dev_standin()); not made where this
		 * replay may not make devices (not root) */
		if (mknodat(n.dirfd, n.name, type | (ps->mode & 07777),
			    rpl_dev_standin(type, ps->rdev)) == 0) {
			pp->res->prep_devs++;
			pp->res->prep_devs_nodrv += rpl_dev_standin(type, ps->rdev) != ps->rdev;
		} else if (errno == EPERM) {
			pp->res->prep_devs_not++;
			goto out;
		} else if (errno != EEXIST) {
			err = -errno;
		}
		break;
	default:
		break;
	}
	if (err == 0 && type != S_IFDIR)
		set_attrs(pp, n.dirfd, n.name, ps);
out:
	rpl_name_done(&n);
	return err;
}

/* chattr's flags of the starting tree's files and directories, set
 * last (prep_flags.c says why).  A filesystem without them, or a replay
 * without CAP_LINUX_IMMUTABLE, refuses: counted and said. */
static void set_attr_flags(struct prep *pp)
{
	const struct rpl_plan *p = pp->p;
	size_t i;

	for (i = 0; i < p->n_ps; i++) {
		const struct iot_path_state *ps = &p->ps[i];
		uint32_t type = ps->type & S_IFMT;
		struct rpl_name n;
		int err;

		if (!ps->extra || !(ps->extra->attr_flags & IOT_PS_ATTR_FLAGS) ||
		    (type != S_IFREG && type != S_IFDIR) || pp->made[i] != MADE ||
		    rpl_pdirs_parent(pp->dirs, ps->path, &n) != 0)
			continue;
		err = rpl_prep_set_attr_flags(n.dirfd, n.name, ps->extra->attr_flags);
		rpl_name_done(&n);
		if (err == 0)
			pp->res->prep_attr_flags++;
		else if (pp->res->prep_attr_flags_not++ == 0)
			warn_path(pp, ps->path, "set the attribute flags of", err);
	}
}

/* A path first seen absent was created by the workload; a later state of
 * a name under it (say, after a rename moved a directory it made) is not
 * part of the starting tree.  p->ps_made_t holds, per state, when the
 * first ancestor absent at its own first state was met. */
int rpl_ps_made_by_workload(const struct rpl_plan *p, const struct iot_path_state *ps)
{
	return !ps->type || (p->ps_made_t && p->ps_made_t[ps - p->ps] <= ps->t_ns);
}

int rpl_prepare(struct rpl_plan *p, struct rpl_result *res)
{
	struct prep pp = { .p = p, .res = res, .is_root = geteuid() == 0 };
	int64_t t0 = iot_now_ns();
	mode_t umask_was = umask(0);	/* entries are made with their modes */
	int *made = pp.made = calloc(p->n_ps + 1, sizeof(int));
	size_t i, k, n_order = 0, *order = make_order(p, &n_order);
	int err = 0, pass;

	pp.buf = malloc(FILL_CHUNK);
	pp.dirs = rpl_pdirs_new(p->root_fd);
	if (!pp.buf || !made || !order || !pp.dirs) {
		err = -ENOMEM;
		goto out;
	}
	err = rpl_prepare_fit(p, res, &pp.sparse);
	if (err < 0)
		goto out;
	/* A path may lie beyond a symlink whose target sorts later
	 * (/lib -> usr/lib): what failed is tried again while that helps. */
	for (pass = 0; pass < 4; pass++) {
		size_t failed = 0, done = 0;

		for (k = 0; k < n_order; k++) {
			const struct iot_path_state *ps = &p->ps[i = order[k]];

			if (made[i] > 0)
				continue;
			if (atomic_load_explicit(&rpl_stop_sig, memory_order_relaxed)) {
				err = -EINTR;
				goto out;
			}
			if ((rpl_path_skip(p->o, ps->path) && !pseudo_name(ps)) ||
			    made_by_workload(&pp, i)) {
				made[i] = SKIPPED;
				continue;
			}
			err = make_one(&pp, i);
			if (err == -ENOSPC || err == -EDQUOT) {
				iot_err(p->o->cmd, "%s: the root filled up while making the starting "
					"tree (%s); use a larger filesystem", p->o->root,
					iot_strerror(err));
				goto out;
			}
			if (err) {
				failed++;
				made[i] = err;
			} else {
				made_file(&pp, i);
				done++;
			}
			err = 0;
		}
		if (!failed || (pass > 0 && !done))
			break;
	}
	for (i = 0; i < p->n_ps; i++)
		if (made[i] < 0)
			warn_path(&pp, p->ps[i].path, "create", made[i]);
	if (pp.warned > 10 && !p->o->quiet)
		iot_warn(p->o->cmd, "%s: %llu paths of the starting tree could not be made under "
			 "the root", p->o->trace, (unsigned long long)pp.warned);
	/* Directory modes and times last: making entries changed them. */
	for (i = p->n_ps; i-- > 0;) {
		const struct iot_path_state *ps = &p->ps[i];
		struct rpl_name n;

		int fd;

		if ((ps->type & S_IFMT) != S_IFDIR || rpl_path_skip(p->o, ps->path) ||
		    (i > 0 && strcmp(ps->path, p->ps[i - 1].path) == 0) || made_by_workload(&pp, i))
			continue;
		if (rpl_pdirs_parent(pp.dirs, ps->path, &n) != 0)
			continue;
		/* a plain directory below its parent: by descriptor; else as
		 * the name (a symlink stays untouched by chmod) */
		fd = rpl_open_name(n.dirfd, n.name, O_RDONLY | O_DIRECTORY, 0);
		if (fd >= 0) {
			set_attrs_fd(&pp, fd, ps, 0);
			close(fd);
		} else {
			set_attrs(&pp, n.dirfd, n.name, ps);
		}
		rpl_name_done(&n);
	}
	set_attr_flags(&pp);
out:
	free(pp.buf);
	free(made);
	free(order);
	rpl_pdirs_free(pp.dirs);
	rpl_map_free(&pp.inodes);
	umask(umask_was);
	res->prepare_ns = iot_now_ns() - t0;
	return err;
}
