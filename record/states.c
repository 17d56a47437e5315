/*
 * states.c - the PathState snapshot of each path, taken before the
 * workload first touches it, and of the entries of the directories it
 * listed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "hash.h"
#include "rec.h"

/*
 * Whether a directory on a path is a symlink, for stat_path(): a tree
 * walker that climbs with openat(fd, "..") (du, rm -rf) is recorded with
 * paths of hundreds of "NAME/.." (the descriptor's path is joined
 * lexically, and grows with the walk), and each needed an lstat of what
 * came before it: most of the recorder's time on du of /usr.  Answers are
 * kept until a call that can make a name a symlink succeeds (a rename, a
 * link or a symlink: rec_names_changed()).
 */
#define LINK_SLOTS 1024
#define DIR_SLOTS 4

struct rec_linkcache {
	uint64_t gen;			/* bumped by rec_names_changed() */
	/* the last directories entry_met() looked up: their paths, and
	 * their devices and inodes at generation dgen (a copy names two in
	 * turn, its source's and its target's) */
	struct {
		char *dir;
		uint32_t dir_len;
		uint64_t dgen, dev, ino;
		/* its path without symlinks (dir_phys()), once asked for:
		 * NULL where that is @dir itself or cannot be had */
		char *phys;
		uint32_t phys_len;
		int phys_done;
	} d[DIR_SLOTS];
	uint32_t d_next;
	struct {
		uint64_t h, gen;
		uint32_t len;
		int link;
		char *path;
	} e[LINK_SLOTS];
};

void rec_names_changed(struct rec_ctx *c)
{
	if (c->links)
		c->links->gen++;
}

/* lstat() of @p, which may be longer than a lookup takes (PATH_MAX: a
 * walk below a deep tree): its directories then opened in parts */
static int lstat_long(const char *p, struct stat *sb)
{
	char part[3073];
	int dfd = AT_FDCWD, fd, r;

	while (strlen(p) >= PATH_MAX) {
		size_t cut = sizeof(part) - 1;

		while (cut > 0 && p[cut] != '/')
			cut--;
		if (cut == 0)
			break;
		memcpy(part, p, cut);
		part[cut] = 0;
		fd = openat(dfd, part, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dfd != AT_FDCWD)
			close(dfd);
		if (fd < 0)
			return -1;
		dfd = fd;
		p += cut;
		while (*p == '/')
			p++;
	}
	r = fstatat(dfd, p, sb, AT_SYMLINK_NOFOLLOW);
	if (dfd != AT_FDCWD)
		close(dfd);
	return r;
}

int rec_is_symlink(struct rec_ctx *c, const char *p, size_t n)
{
	struct rec_linkcache *lc = c->links;
	uint64_t h = iot_hash(p, n, 5);
	struct stat sb;
	char *copy;
	int link;

	if (lc) {
		__typeof__(lc->e[0]) *e = &lc->e[h & (LINK_SLOTS - 1)];

		if (e->path && e->gen == lc->gen && e->h == h && e->len == n &&
		    memcmp(e->path, p, n) == 0)
			return e->link;
	}
	link = lstat_long(p, &sb) == 0 && S_ISLNK(sb.st_mode);
	if (lc && (copy = malloc(n + 1)) != NULL) {
		__typeof__(lc->e[0]) *e = &lc->e[h & (LINK_SLOTS - 1)];

		memcpy(copy, p, n + 1);
		free(e->path);
		e->path = copy;
		e->h = h;
		e->gen = lc->gen;
		e->len = (uint32_t)n;
		e->link = link;
	}
	return link;
}

uint32_t rec_dotdot_len(struct rec_ctx *c, const char *p, uint32_t len)
{
	char sbuf[REC_PATH_MAX], *buf = sbuf;
	uint32_t e, s, i;
	int link;

	if (len < 5 || p[0] != '/' || memcmp(p + len - 3, "/..", 3) != 0)
		return len;
	e = len - 3;			/* "X/NAME" */
	for (s = e; s > 0 && p[s - 1] != '/'; s--)
		;
	if (s == 0 || s == e || (e - s == 1 && p[s] == '.') ||
	    (e - s == 2 && p[s] == '.' && p[s + 1] == '.'))
		return len;
	/* X/NAME must say plainly what it names: no "." or ".." in it */
	for (i = 0; i + 1 < e; i++)
		if (p[i] == '/' && p[i + 1] == '.' &&
		    (i + 2 >= e || p[i + 2] == '/' || (p[i + 2] == '.' && (i + 3 >= e || p[i + 3] == '/'))))
			return len;
	/* deeper than PATH_MAX too: a walk climbs with ".." from where the
	 * whole name is longer than a lookup takes, and "X/NAME/.." kept
	 * as such named NAME after the walk had removed it */
	if (e >= sizeof(sbuf) && !(buf = malloc(e + 1)))
		return len;
	memcpy(buf, p, e);
	buf[e] = 0;
	link = rec_is_symlink(c, buf, e);
	if (buf != sbuf)
		free(buf);
	if (link)
		return len;
	return s > 1 ? s - 1 : 1;
}

int rec_seen_init(struct rec_ctx *c)
{
	int r = rec_pset_init(&c->seen);
	if (r == 0)
		r = rec_pset_init(&c->entries);
	if (r == 0)
		r = rec_pset_init(&c->listed_set);
	if (r == 0)
		r = rec_pset_init(&c->made_links);
	if (r == 0 && !(c->links = calloc(1, sizeof(*c->links))))
		r = -ENOMEM;
	return r;
}

void rec_seen_free(struct rec_ctx *c)
{
	int i;

	for (i = 0; c->links && i < LINK_SLOTS; i++)
		free(c->links->e[i].path);
	for (i = 0; c->links && i < DIR_SLOTS; i++) {
		free(c->links->d[i].dir);
		free(c->links->d[i].phys);
	}
	free(c->links);
	c->links = NULL;
	rec_start_links_free(c);
	free(c->xbuf);
	c->xbuf = NULL;
	while (c->n_moves > 0) {
		c->n_moves--;
		free(c->moves[c->n_moves].from);
		free(c->moves[c->n_moves].to);
	}
	free(c->moves);
	c->moves = NULL;
	rec_pset_free(&c->seen);
	rec_pset_free(&c->entries);
	rec_pset_free(&c->listed_set);
	rec_pset_free(&c->made_links);
	free(c->listed);
	c->listed = NULL;
}

/* The listed directories' share of --path-set-mb: a quarter. */
#define LISTED_SHARE 4

/* How many symlinks deep a path state follows targets (as the kernel's
 * own limit on nested links, loosely). */
#define FOLLOW_MAX 8

static int state_of(struct rec_ctx *c, const char *p, uint32_t len, int depth,
		    const struct rec_pre *pre);

/* Symlink @link's @target as an absolute path (relative to the link's
 * directory), malloc'd (*@n its length), or NULL */
static char *link_target(const char *link, const char *target, uint32_t *n)
{
	const char *slash = strrchr(link, '/');
	char *dir = strndup(link, slash && slash != link ? (size_t)(slash - link) : 1);
	char *abs = dir ? rec_path_abs(dir, target, n) : NULL;

	free(dir);
	return abs;
}

/* A symlink's target is part of the starting tree too: a program that
 * opens libacl.so.1 reads libacl.so.1.1.2206, which it never names. */
static int follow_target(struct rec_ctx *c, const char *link, const char *target, int depth,
			 const struct rec_pre *through)
{
	char *abs, *start;
	uint32_t n, sn;
	int r;

	if (depth >= FOLLOW_MAX)
		return 0;
	abs = link_target(link, target, &n);
	if (!abs)
		return -ENOMEM;
	/* Through a link of the starting tree the workload has removed or
	 * changed since, the file the target named at the start: the tree
	 * as it is now names another, or none (start_links.c), and so did
	 * what the program's stat() through the link saw. */
	if ((start = rec_start_path(c, abs, &sn)) != NULL) {
		free(abs);
		abs = start;
		n = sn;
		through = NULL;
	}
	/* what the program's stat() through the link saw is the target's
	 * state, unless the target is a link itself (a chain): then now */
	if (through) {
		struct stat sb;

		if (lstat(abs, &sb) == 0 && S_ISLNK(sb.st_mode))
			through = NULL;
	}
	r = state_of(c, abs, n, depth + 1, through);
	free(abs);
	return r;
}

/*
 * The path to lstat for the state of recorded path @p.  A program that
 * walks a tree by descriptors (rm -rf, du: openat(fd, "..")) is recorded
 * with paths such as "/t/a/b/../f", the descriptor's path joined with the
 * name; the kernel resolves "b/.." through b, which the program may have
 * removed meanwhile, while the call itself went through its descriptor:
 * lstat of the raw path then said "absent" for a file that was there.
 * So "NAME/.." is dropped where NAME is not a symlink now (a removed one
 * was a directory the program went through), as the replayer cleans the
 * recorded paths; after a symlink's "..", the rest is kept as it is.
 * @return : @p itself, or @buf holding the cleaned path.
 */
static const char *stat_path(struct rec_ctx *ctx, const char *p, char *buf, size_t cap)
{
	size_t o = 0, n;
	const char *c = p, *e;
	int raw = 0;

	if (p[0] != '/' || (!strstr(p, "/..") && !strstr(p, "/./")))
		return p;
	while (*c) {
		while (*c == '/')
			c++;
		if (!*c)
			break;
		e = strchr(c, '/');
		n = e ? (size_t)(e - c) : strlen(c);
		if (!raw && n == 1 && c[0] == '.') {
			c += n;
			continue;
		}
		if (!raw && n == 2 && c[0] == '.' && c[1] == '.' && o > 0) {
			buf[o] = 0;
			if (rec_is_symlink(ctx, buf, o)) {
				raw = 1;
			} else {
				while (o > 0 && buf[o - 1] != '/')
					o--;
				if (o > 0)
					o--;	/* the '/' before it */
				c += n;
				continue;
			}
		}
		if (o + 1 + n + 1 > cap)
			return p;
		buf[o++] = '/';
		memcpy(buf + o, c, n);
		o += n;
		c += n;
	}
	if (o == 0)
		buf[o++] = '/';
	buf[o] = 0;
	return buf;
}

static void state_from_stat(struct iot_path_state *ps, const struct stat *sb)
{
	ps->type = sb->st_mode & S_IFMT;
	ps->size = (uint64_t)sb->st_size;
	ps->mode = sb->st_mode & 07777;
	ps->uid = sb->st_uid;
	ps->gid = sb->st_gid;
	ps->atime_ns = sb->st_atim.tv_sec * 1000000000LL + sb->st_atim.tv_nsec;
	ps->mtime_ns = sb->st_mtim.tv_sec * 1000000000LL + sb->st_mtim.tv_nsec;
	ps->ctime_ns = sb->st_ctim.tv_sec * 1000000000LL + sb->st_ctim.tv_nsec;
	ps->nlink = (uint32_t)sb->st_nlink;
	ps->dev = sb->st_dev;
	ps->ino = sb->st_ino;
	ps->rdev = sb->st_rdev;
}

/* The target of symlink @path (relative to @dirfd) into @buf, for @ps. */
static void read_target(struct iot_path_state *ps, int dirfd, const char *path, char *buf,
			size_t cap)
{
	ssize_t n = readlinkat(dirfd, path, buf, cap - 1);

	if (n >= 0) {
		buf[n] = 0;
		ps->target = buf;
		ps->target_len = (uint32_t)n;
	}
}

/*
 * How an ancestor's state is taken for a fast-path record, which is read
 * after later calls may have changed the tree: lstat it now; it was a
 * directory (its descendant existed), even if it is gone now; it was
 * missing (the program's own lstat found that many trailing components
 * missing), even if a later call made it.
 */
enum { ANC_LIVE, ANC_PARENT_OF_EXISTING, ANC_MISSING };

/* @sb, lstat()ed now, as the kernel held the file an open found
 * (@op), if it is still that file: what the program did to it since
 * through the descriptor is not the starting tree. */
static void as_opened(struct stat *sb, const struct rec_opened *op)
{
	if (sb->st_ino != op->ino || (sb->st_mode & S_IFMT) != (op->mode & S_IFMT))
		return;
	sb->st_size = (off_t)op->size;
	sb->st_mode = op->mode;
	if (op->uid != (uint32_t)-1) {	/* a stat's sends no owner */
		sb->st_uid = op->uid;
		sb->st_gid = op->gid;
	}
	sb->st_nlink = op->nlink;
	if (op->times) {
		sb->st_atim.tv_sec = op->atime_ns / 1000000000;
		sb->st_atim.tv_nsec = op->atime_ns % 1000000000;
		sb->st_mtim.tv_sec = op->mtime_ns / 1000000000;
		sb->st_mtim.tv_nsec = op->mtime_ns % 1000000000;
		sb->st_ctim.tv_sec = op->ctime_ns / 1000000000;
		sb->st_ctim.tv_nsec = op->ctime_ns % 1000000000;
	}
}

/*
 * The data ranges of regular file @sp, whose lstat() is @sb, into @r
 * (offset, length pairs, at most @cap ranges) when it has fewer blocks
 * than its size: a file with holes (a disk image, a database's file, what
 * `truncate -s` or `dd seek=` left) is made so by the replay, not written
 * whole.  Ranges past @cap are joined into the last one (counted as data:
 * more bytes written, never fewer).  @return : the number of ranges, or
 * -1 when the file is not sparse, is no longer @sb's (another file, or
 * another size), or its filesystem cannot tell (no SEEK_DATA).
 */
#define REC_DATA_RANGES 256

static int data_ranges(const char *sp, const struct stat *sb, uint64_t *r, int cap)
{
	const int fl = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	uint64_t size = (uint64_t)sb->st_size;
	struct stat now;
	off_t off = 0, d, h;
	int fd, n = 0;

	if (!S_ISREG(sb->st_mode) || sb->st_size <= 0 ||
	    (uint64_t)sb->st_blocks * 512 >= size)
		return -1;
	fd = open(sp, fl | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = open(sp, fl);
	if (fd < 0)
		return -1;
	/* the file as it is now must be the state's, and sparse (a state
	 * taken as an open found it may hold a size it no longer has) */
	if (fstat(fd, &now) < 0 || now.st_ino != sb->st_ino || now.st_dev != sb->st_dev ||
	    now.st_size != sb->st_size || (uint64_t)now.st_blocks * 512 >= size) {
		close(fd);
		return -1;
	}
	while ((uint64_t)off < size) {
		d = lseek(fd, off, SEEK_DATA);
		if (d < 0) {
			if (errno != ENXIO)
				n = -1;		/* cannot tell: all data */
			break;
		}
		if ((uint64_t)d >= size)
			break;
		h = lseek(fd, d, SEEK_HOLE);
		if (h < 0 || (uint64_t)h > size)
			h = (off_t)size;
		if (n == cap) {		/* the rest joins the last range */
			r[2 * n - 1] = size - r[2 * n - 2];
			break;
		}
		r[2 * n] = (uint64_t)d;
		r[2 * n + 1] = (uint64_t)(h - d);
		n++;
		off = h;
	}
	close(fd);
	return n;
}

/*
 * The extended attributes of @sp (not followed if a symlink) into @ps,
 * in c->xbuf: names (at most XATTR_LIST_MAX of them together) and values,
 * whole, up to XBUF_VALUES bytes in all, an attribute past that left out
 * (the replay then makes the file without it: no filesystem here holds
 * that much on one file, ext4 4 KiB).  Programs that copy a tree with
 * them (cp -a, rsync -X, tar --xattrs) or read ACLs ask for them, and a
 * replay without them answered ENODATA.  @return : how many.
 */
#define XBUF_NAMES	65536
#define XBUF_VALUES	(256 * 1024)
#define XATTRS_MAX	256

static uint32_t take_xattrs(struct rec_ctx *c, const char *sp, struct iot_xattr *x)
{
	ssize_t nl = llistxattr(sp, NULL, 0), vl;
	size_t off = 0, voff = XBUF_NAMES;
	uint32_t n = 0;

	if (nl <= 0)
		return 0;
	if (!c->xbuf && !(c->xbuf = malloc(XBUF_NAMES + XBUF_VALUES)))
		return 0;
	nl = llistxattr(sp, (char *)c->xbuf, XBUF_NAMES);
	while (nl > 0 && off < (size_t)nl && n < XATTRS_MAX) {
		const char *name = (const char *)c->xbuf + off;
		size_t len = strnlen(name, (size_t)nl - off);

		off += len + 1;
		if (!len)
			continue;
		vl = lgetxattr(sp, name, c->xbuf + voff, XBUF_NAMES + XBUF_VALUES - voff);
		if (vl < 0)
			continue;	/* gone meanwhile, or past the room */
		x[n].name = name;
		x[n].name_len = (uint32_t)len;
		x[n].value = c->xbuf + voff;
		x[n].value_len = (uint32_t)vl;
		voff += (size_t)vl;
		n++;
	}
	return n;
}

static int moved_origin(struct rec_ctx *c, const struct iot_path_state *ps, int depth);
static int linked_origin(struct rec_ctx *c, const struct iot_path_state *ps, const char *sp,
			 int depth);

/*
 * One directory entry named two ways: through a symlink to a directory
 * (src/linkdir/f, src/perl5/f), or with ".." (mod/../tool, tool).  A
 * state is taken when a path is first named, so a second name first met
 * after the workload made or changed the entry through the first took
 * the changed entry as the starting tree's: rsync's tree listed again
 * through a link after 300 files had grown and a directory was renamed
 * (489 mismatches: the replay's tree had the new name and the longer
 * files from the start); a Go build's output named as mod/../tool when
 * made and as tool when run (prepared, so the build's stats and opens
 * found it). An entry is its directory's device and inode and its name;
 * its state is written under the first name met, and a name met later
 * for an entry met already adds none.  (Two hard links are two entries.)
 * It is also its path as stat_path() cleans it: a backend that takes
 * states after the calls (the fast path, bpf) may find the directory
 * gone by then (rm -rf), and must still know "d/sub/../f" and "d/f" as
 * one, as ptrace does; and where "d/sub/../f" came first, while "d" did
 * not exist yet (no entry to find), "d/f" later (ghc names its objects
 * as hs/../build/M.o before it makes build/, its linker as build/M.o:
 * their states were taken again, of the objects made, and the replay
 * started with them).  That cleaned path is lexical: a later name
 * through a symlink to the directory made meanwhile is another string,
 * and the directory had no inode to key the entry by when it was first
 * named.  So such an entry is also kept by its directory's path without
 * symlinks (dir_phys(): the part that existed, the rest as named), and,
 * once one is, a name whose entry is new by its directory's inode, or an
 * entry of a listed directory, is looked up by that path too: `cd src;
 * cpio -p ../dst` names each directory's first file as src/../dst/d/f
 * before it makes dst/d, and `diff -r` later read dst/lnk/f, lnk a link
 * to d: the state of the file cpio made was taken, and the replay's tree
 * had dst/, made as directories down to it, from the start (1,680
 * mismatches, bpf).  @sp : @p as stat_path() gives it (@p itself if it
 * has no "." or "..": a name the set of paths met has not met).
 * @return : 1 if @sp's entry was met under another name, 0 if not (added
 * now), -ENOMEM.
 */
#define ENTRY_KEY_MAX (16 + 256)

/* Entry @name (@nl bytes, at most ENTRY_KEY_MAX - 16) of the directory
 * @dev/@ino into the set of entries.  @return : rec_pset_add()'s. */
static int entry_add(struct rec_ctx *c, uint64_t dev, uint64_t ino, const char *name,
		     uint32_t nl)
{
	char key[ENTRY_KEY_MAX];

	memcpy(key, &dev, 8);
	memcpy(key + 8, &ino, 8);
	memcpy(key + 16, name, nl);
	return rec_pset_add(&c->entries, key, 16 + nl, rec_pset_hash(&c->entries, key, 16 + nl),
			    0, NULL);
}

/* The path of the directory open at @fd as the kernel names it (no
 * symlink, "." or ".." in it), into @buf.  @return : its length, 0 if
 * there is none to give (removed: "... (deleted)"; longer than @cap). */
static uint32_t fd_path(int fd, char *buf, size_t cap)
{
	static const char del[] = " (deleted)";
	char proc[40];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, cap - 1);
	if (n <= 0 || (size_t)n >= cap - 1 || buf[0] != '/')
		return 0;
	buf[n] = 0;
	if ((size_t)n >= sizeof(del) - 1 && strcmp(buf + n - (sizeof(del) - 1), del) == 0)
		return 0;
	return (uint32_t)n;
}

/* Directory @d (@dl bytes, NUL-terminated there) without symlinks: the
 * longest part of it that exists, as fd_path() names it, and the rest
 * as it is; into @buf.  @return : its length, 0 if there is none. */
static uint32_t dir_phys(const char *d, uint32_t dl, char *buf, size_t cap)
{
	char part[REC_PATH_MAX];
	uint32_t cut = dl, n;
	int fd;

	if (dl >= sizeof(part))
		return 0;
	memcpy(part, d, dl);
	part[dl] = 0;
	while ((fd = open(part, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		if (errno != ENOENT || cut <= 1)
			return 0;
		while (cut > 1 && part[cut - 1] != '/')
			cut--;
		cut = cut > 1 ? cut - 1 : 1;
		part[cut] = 0;
	}
	n = fd_path(fd, buf, cap);
	close(fd);
	if (n == 0 || cut == dl)
		return n;
	if (n == 1)
		n = 0;			/* "/" and "/rest" */
	if (n + (dl - cut) >= cap)
		return 0;
	memcpy(buf + n, d + cut, dl - cut);
	n += dl - cut;
	buf[n] = 0;
	return n;
}

/* Entry @name ("/NAME", @nl bytes) of directory @dir (@dl bytes) into
 * @buf, @dir "/" taken as "".  @return : the length, 0 if too long. */
static uint32_t entry_path(char *buf, size_t cap, const char *dir, uint32_t dl, const char *name,
			   uint32_t nl)
{
	if (dl == 1)
		dl = 0;
	if (dl + nl >= cap)
		return 0;
	memcpy(buf, dir, dl);
	memcpy(buf + dl, name, nl);
	buf[dl + nl] = 0;
	return dl + nl;
}

/* @sp, a path with "." or ".." cleaned (its name at @name) whose
 * directory @d (@dl bytes) is not there now: its entry by that
 * directory's path without symlinks too, where that is not @sp.
 * @return : 1 if that path was met already, 0 if not, -ENOMEM. */
static int entry_early(struct rec_ctx *c, const char *sp, const char *d, uint32_t dl,
		       const char *name)
{
	char dir[REC_PATH_MAX], path[REC_PATH_MAX];
	uint32_t n = dir_phys(d, dl, dir, sizeof(dir));
	int r;

	c->entries_early = 1;
	if (n == 0 || (n = entry_path(path, sizeof(path), dir, n, name,
				      (uint32_t)strlen(name))) == 0 ||
	    strcmp(path, sp) == 0)
		return 0;
	r = rec_pset_add(&c->entries, path, n, rec_pset_hash(&c->entries, path, n), 0, NULL);
	return r < 0 ? r : r == 0;
}

/* Whether entry @name ("/NAME", @nl bytes) of the directory at @dir
 * (@dl bytes, as the kernel names it: fd_path()) was met by a name
 * entry_early() kept. */
static int entry_early_met(struct rec_ctx *c, const char *dir, uint32_t dl, const char *name,
			   uint32_t nl)
{
	char path[REC_PATH_MAX];
	uint32_t n = entry_path(path, sizeof(path), dir, dl, name, nl);

	return n && rec_pset_has(&c->entries, path, n) == 1;
}

static int entry_met(struct rec_ctx *c, const char *p, const char *sp)
{
	struct rec_linkcache *lc = c->links;
	const char *name = strrchr(sp, '/');
	uint32_t dl, nl, i;
	struct stat sb;
	int r;

	if (!lc || !name || !name[1] || sp[0] != '/')
		return 0;
	/* the path as named is new to the set of paths met: as cleaned, it
	 * may not be */
	if (sp != p) {
		r = rec_pset_add(&c->entries, sp, (uint32_t)strlen(sp),
				 rec_pset_hash(&c->entries, sp, (uint32_t)strlen(sp)), 0, NULL);
		if (r <= 0)
			return r < 0 ? r : 1;
		c->entries_cleaned = 1;
	} else if (c->entries_cleaned && rec_pset_has(&c->entries, sp, (uint32_t)strlen(sp))) {
		return 1;
	}
	dl = name == sp ? 1 : (uint32_t)(name - sp);
	nl = (uint32_t)strlen(name + 1);
	if (nl > ENTRY_KEY_MAX - 16 || dl >= PATH_MAX)
		return 0;
	/* a walk names one directory's entries in a row: its look-up kept
	 * until a name changes (rec_names_changed()) */
	for (i = 0; i < DIR_SLOTS; i++)
		if (lc->d[i].dir && lc->d[i].dgen == lc->gen && lc->d[i].dir_len == dl &&
		    memcmp(lc->d[i].dir, sp, dl) == 0)
			break;
	if (i == DIR_SLOTS) {
		char *d = strndup(sp, dl);

		if (!d)
			return -ENOMEM;
		if (stat(d, &sb) < 0) {
			r = sp != p ? entry_early(c, sp, d, dl, name) : 0;
			free(d);
			return r;
		}
		i = lc->d_next++ % DIR_SLOTS;
		free(lc->d[i].dir);
		free(lc->d[i].phys);
		lc->d[i].dir = d;
		lc->d[i].dir_len = dl;
		lc->d[i].dgen = lc->gen;
		lc->d[i].dev = sb.st_dev;
		lc->d[i].ino = sb.st_ino;
		lc->d[i].phys = NULL;
		lc->d[i].phys_done = 0;
	}
	r = entry_add(c, lc->d[i].dev, lc->d[i].ino, name + 1, nl);
	if (r != 1 || !c->entries_early)
		return r < 0 ? r : r == 0;
	/* new by its directory's inode: named early by another path? (one
	 * that is this directory's own was looked up above) */
	if (!lc->d[i].phys_done) {
		char buf[REC_PATH_MAX];
		uint32_t n = dir_phys(lc->d[i].dir, dl, buf, sizeof(buf));

		lc->d[i].phys_done = 1;
		if (n && (n != dl || memcmp(buf, lc->d[i].dir, n) != 0))
			lc->d[i].phys = strndup(buf, n);
		lc->d[i].phys_len = n;
	}
	return lc->d[i].phys && entry_early_met(c, lc->d[i].phys, lc->d[i].phys_len, name, nl + 1);
}

/* Write the state of @p: @pre when the program took it before the call
 * (fast path), else per @how (and @pre's opened file: as_opened()). */
static int take_one(struct rec_ctx *c, const char *p, uint32_t len, int depth,
		    const struct rec_pre *pre, int how)
{
	struct iot_path_state ps;
	char target[REC_PATH_MAX], spbuf[REC_PATH_MAX];
	uint64_t ranges[2 * REC_DATA_RANGES];
	struct iot_xattr xa[XATTRS_MAX];
	struct iot_ps_extra ex;
	const char *sp = stat_path(c, p, spbuf, sizeof(spbuf));
	struct stat sb;
	int r, ok;

	/* an entry met under another name: its state is there */
	if ((r = entry_met(c, p, sp)) != 0)
		return r < 0 ? r : 0;
	memset(&ps, 0, sizeof(ps));
	memset(&ex, 0, sizeof(ex));
	ps.path = p;
	ps.path_len = len;
	ps.t_ns = iot_now_ns();
	/* the set's answer for this path: every caller added it just now */
	if (c->seen.last_again)
		ps.flags = IOT_PS_AGAIN;
	if (pre && !pre->opened) {
		ok = pre->err == 0;
		sb = pre->sb;
	} else if (how == ANC_MISSING) {
		ok = 0;
	} else {
		ok = lstat_long(sp, &sb) == 0;
		if (ok && pre)
			as_opened(&sb, &pre->op);
		if (!ok && how == ANC_PARENT_OF_EXISTING) {
			memset(&sb, 0, sizeof(sb));
			sb.st_mode = S_IFDIR | 0755;
			sb.st_nlink = 2;
			ok = 1;
		}
	}
	if (ok) {
		state_from_stat(&ps, &sb);
		if (S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode)) {
			ex.n_xattrs = take_xattrs(c, sp, xa);
			ex.xattrs = xa;
			r = data_ranges(sp, &sb, ranges, REC_DATA_RANGES);
			if (r >= 0) {
				ps.flags |= IOT_PS_SPARSE;
				ex.data = ranges;
				ex.n_data = (uint32_t)r;
			}
		}
		if (S_ISLNK(sb.st_mode) && pre && !pre->opened) {
			if (pre->target) {
				memcpy(target, pre->target, pre->target_len);
				target[pre->target_len] = 0;
				ps.target = target;
				ps.target_len = pre->target_len;
			}
		} else if (S_ISLNK(sb.st_mode)) {
			read_target(&ps, AT_FDCWD, sp, target, sizeof(target));
		}
	}
	if (ex.n_xattrs || (ps.flags & IOT_PS_SPARSE))
		ps.extra = &ex;
	/* type 0 says "did not exist before the workload touched it" */
	r = iot_writer_path_state(c->w, &ps);
	if (r == 0 && ps.target)
		rec_start_link_note(c, sp, (uint32_t)strlen(sp), ps.target, ps.target_len);
	if (r == 0 && ok && c->n_moves)
		r = moved_origin(c, &ps, depth);
	if (r == 0 && ok && c->made_links.n)
		r = linked_origin(c, &ps, sp, depth);
	if (r == 0 && ps.target)
		r = follow_target(c, p, target, depth, pre ? pre->through : NULL);
	return r;
}

int rec_path_state(struct rec_ctx *c, const char *p, uint32_t len,
		   const struct rec_pre *pre)
{
	return state_of(c, p, len, 0, pre);
}

int rec_link_made(struct rec_ctx *c, const char *link, const char *target)
{
	char buf[REC_PATH_MAX], *abs;
	const char *sp;
	struct statx sx;
	uint32_t n;
	int r = 0;

	if (!target[0])
		return 0;
	sp = stat_path(c, link, buf, sizeof(buf));
	n = (uint32_t)strlen(sp);
	if (n > 1 && rec_pset_add(&c->made_links, sp, n, rec_pset_hash(&c->made_links, sp, n),
				  0, NULL) < 0)
		return -ENOMEM;
	abs = link_target(link, target, &n);
	if (!abs)
		return -ENOMEM;
	sp = stat_path(c, abs, buf, sizeof(buf));
	/* Only a file of the starting tree: one there before the recording
	 * began (born before it, or changed before it where the filesystem
	 * keeps no birth time).  What the workload made, or makes later, is
	 * not, and what is not there now was not when the link was made:
	 * their states, taken as late as the recorder gets to them (after
	 * the fast path's drain), would say what the workload did since. */
	if (statx(AT_FDCWD, sp, AT_SYMLINK_NOFOLLOW, STATX_BTIME | STATX_CTIME, &sx) == 0) {
		const struct statx_timestamp *ts = (sx.stx_mask & STATX_BTIME) ?
						   &sx.stx_btime : &sx.stx_ctime;

		if (ts->tv_sec * 1000000000LL + ts->tv_nsec < c->st.t_start_real)
			r = state_of(c, sp, (uint32_t)strlen(sp), 1, NULL);
	}
	free(abs);
	return r;
}

/* What an ancestor's state needs while rec_pset_add_path() walks. */
struct anc_walk {
	struct rec_ctx *c;
	const char *p;
	int depth;
	const struct rec_pre *pre;
};

static int take_ancestor(void *arg, uint32_t len, uint32_t below)
{
	const struct anc_walk *a = arg;
	char buf[REC_PATH_MAX];
	char *heap = NULL, *anc = buf;
	int how = ANC_LIVE, r;

	if (len >= sizeof(buf)) {
		anc = heap = malloc(len + 1);
		if (!heap)
			return -ENOMEM;
	}
	memcpy(anc, a->p, len);
	anc[len] = 0;
	if (a->pre && a->pre->err == 0)
		how = ANC_PARENT_OF_EXISTING;
	else if (a->pre && a->pre->err == ENOENT && below < a->pre->missing)
		how = ANC_MISSING;
	r = take_one(a->c, anc, len, a->depth, NULL, how);
	free(heap);
	return r;
}

static int state_of(struct rec_ctx *c, const char *p, uint32_t len, int depth,
		    const struct rec_pre *pre)
{
	struct anc_walk a = { c, p, depth, pre };
	int r;

	if (len == 0 || p[0] != '/' || rec_path_skipped(p))
		return 0;
	/* ancestors first, root to leaf, so replay can create them in order */
	r = rec_pset_add_path(&c->seen, p, len, take_ancestor, &a);
	if (r <= 0)
		return r;
	return take_one(c, p, len, depth, pre, ANC_LIVE);
}

/*
 * Directories the workload renamed.  `mv src/d t/` and then `mv t/d/e
 * src/`: t/d/e, first named after the move, was src/d/e at the start, a
 * name no call made.  Its state taken as t/d/e alone said nothing of the
 * starting tree (t was made by the workload), so the replay's src/d had
 * no e and the second move failed (ENOENT), and the listings after it.
 * A path first named under a renamed directory, and there when named,
 * came with it (one the workload made there was named when made, absent):
 * its state is written again under the name it had before the renames,
 * newest first, as the starting tree's.  The last MOVES_MAX renames are
 * kept.
 */
#define MOVES_MAX 256

void rec_dir_moved(struct rec_ctx *c, const char *from, uint32_t flen, const char *to,
		   uint32_t tlen, int64_t t_ns)
{
	char buf[REC_PATH_MAX];
	struct rec_move *m;
	struct stat sb;

	while (flen > 1 && from[flen - 1] == '/')
		flen--;
	while (tlen > 1 && to[tlen - 1] == '/')
		tlen--;
	if (flen < 2 || tlen < 2 || from[0] != '/' || to[0] != '/' || tlen >= sizeof(buf))
		return;
	memcpy(buf, to, tlen);
	buf[tlen] = 0;
	if (lstat(buf, &sb) < 0 || !S_ISDIR(sb.st_mode))
		return;		/* a file's rename moves no other name */
	if (!c->moves && !(c->moves = calloc(MOVES_MAX, sizeof(*c->moves))))
		return;
	if (c->n_moves == MOVES_MAX) {
		free(c->moves[0].from);
		free(c->moves[0].to);
		memmove(c->moves, c->moves + 1, (MOVES_MAX - 1) * sizeof(*c->moves));
		c->n_moves--;
	}
	m = &c->moves[c->n_moves];
	m->from = strndup(from, flen);
	m->to = strndup(to, tlen);
	if (!m->from || !m->to) {
		free(m->from);
		free(m->to);
		return;
	}
	m->flen = flen;
	m->tlen = tlen;
	m->t = t_ns;
	c->n_moves++;
}

/* @ps, of a path there when first named (or listed), again under its
 * name before the renames up to its time that moved it, if any, and if
 * that name is new to the set of paths met (its ancestors first, as
 * directories where they are gone now). */
static int moved_origin(struct rec_ctx *c, const struct iot_path_state *ps, int depth)
{
	char a[REC_PATH_MAX], b[REC_PATH_MAX];
	const char *cur = ps->path;
	uint32_t n = ps->path_len, i;
	struct rec_pre pre;
	struct anc_walk w;
	struct iot_path_state o;
	int r;

	for (i = c->n_moves; i-- > 0;) {
		const struct rec_move *m = &c->moves[i];
		char *out = cur == a ? b : a;

		if (m->t > ps->t_ns)
			continue;	/* after the listing the state is of */
		if (n < m->tlen || (n > m->tlen && cur[m->tlen] != '/') ||
		    memcmp(cur, m->to, m->tlen) != 0)
			continue;	/* neither the moved directory nor under it */
		if (m->flen + (n - m->tlen) >= REC_PATH_MAX)
			return 0;
		memcpy(out, m->from, m->flen);
		memmove(out + m->flen, cur + m->tlen, n - m->tlen);
		n = m->flen + (n - m->tlen);
		out[n] = 0;
		cur = out;
	}
	if (cur == ps->path)
		return 0;
	memset(&pre, 0, sizeof(pre));	/* err 0: it was there */
	w = (struct anc_walk){ c, cur, depth, &pre };
	r = rec_pset_add_path(&c->seen, cur, n, take_ancestor, &w);
	if (r <= 0)
		return r;
	o = *ps;
	o.path = cur;
	o.path_len = n;
	o.flags = (ps->flags & ~IOT_PS_AGAIN) | (c->seen.last_again ? IOT_PS_AGAIN : 0);
	r = iot_writer_path_state(c->w, &o);
	if (r == 0 && o.target)
		rec_start_link_note(c, cur, n, o.target, o.target_len);
	return r;
}

/*
 * A symlink the workload made.  stow folds a package's directory into
 * one (target/lib -> ../stow/alpha/lib), and its next run names what is
 * under it through it (target/lib/alpha) before it lists the package's
 * directory: the entry's state was taken under a name that did not exist
 * at the start (target/lib was absent), which the replay's starting tree
 * rightly leaves out, and entry_met() then kept it from being taken under
 * the name it had there (the listing's, or a call's through stow/), so
 * the replay's tree had no stow/alpha/lib/alpha (stow: 75 mismatches).
 * A state found through such a link is written again under its
 * directory's real path, if that name is new to the set of paths met
 * (its ancestors first), as moved_origin() does for a renamed directory.
 * A name under a link since replaced by a directory is its own real path.
 */
static int linked_origin(struct rec_ctx *c, const struct iot_path_state *ps, const char *sp,
			 int depth)
{
	const char *name = strrchr(sp, '/');
	char dir[PATH_MAX], real[PATH_MAX];
	struct rec_pre pre;
	struct anc_walk w;
	struct iot_path_state o;
	size_t dl, rl, nl;
	uint32_t k;
	int r;

	if (!name || name == sp || sp[0] != '/')
		return 0;
	dl = (size_t)(name - sp);
	for (k = 1; k <= dl; k++)
		if ((k == dl || sp[k] == '/') && rec_pset_has(&c->made_links, sp, k))
			break;
	if (k > dl || dl >= sizeof(dir))
		return 0;		/* through no link the workload made */
	memcpy(dir, sp, dl);
	dir[dl] = 0;
	if (!realpath(dir, real))
		return 0;		/* gone since: nothing to say of it */
	rl = strlen(real);
	nl = strlen(name);
	if (rl + nl >= sizeof(real) || rl + nl >= REC_PATH_MAX ||
	    (rl == dl && memcmp(real, sp, dl) == 0))
		return 0;
	memcpy(real + rl, name, nl + 1);
	memset(&pre, 0, sizeof(pre));	/* err 0: it was there */
	w = (struct anc_walk){ c, real, depth, &pre };
	r = rec_pset_add_path(&c->seen, real, (uint32_t)(rl + nl), take_ancestor, &w);
	if (r <= 0)
		return r;
	o = *ps;
	o.path = real;
	o.path_len = (uint32_t)(rl + nl);
	o.flags = (ps->flags & ~IOT_PS_AGAIN) | (c->seen.last_again ? IOT_PS_AGAIN : 0);
	return iot_writer_path_state(c->w, &o);
}

/* ---- directory listings ---- */


/*
 * The directories listed hold more than their share of the set's cap
 * (a find(1) over millions of directories): their entries are taken now,
 * not at the end, and the directories forgotten.  Taken early, an entry's
 * state is still one before the workload touched it by name (a call that
 * named it took its own state first, and the entry is skipped); the set
 * of paths met holds the entries taken, so a call that names one later
 * takes none, or one flagged again if the set forgot it (readers keep
 * the listed one: FORMAT.md).  A directory listed again after this is
 * listed anew.
 */
static int take_listed_now(struct rec_ctx *c)
{
	int64_t n = rec_take_listed(c);
	int r;

	if (n < 0)
		return (int)n;
	c->st.listed += (uint64_t)n;
	c->st.listed_early++;
	rec_pset_free(&c->listed_set);
	r = rec_pset_init(&c->listed_set);
	c->n_listed = 0;
	c->listed_bytes = 0;
	return r < 0 ? r : 1;
}

int rec_dir_listed(struct rec_ctx *c, const char *p, uint32_t len, int64_t t_ns)
{
	const char *kept = NULL;
	int r;

	if (len == 0 || p[0] != '/' || rec_path_skipped(p))
		return 0;
	r = rec_pset_add(&c->listed_set, p, len, rec_pset_hash(&c->listed_set, p, len), 0, &kept);
	if (r <= 0)
		return r;
	if (c->n_listed == c->cap_listed) {
		size_t cap = c->cap_listed ? c->cap_listed * 2 : 256;
		struct rec_listed *l = realloc(c->listed, cap * sizeof(*l));

		if (!l)
			return -ENOMEM;
		c->listed = l;
		c->cap_listed = cap;
	}
	c->listed[c->n_listed++] = (struct rec_listed){ kept, len, t_ns };
	c->listed_bytes += len + 1 + sizeof(struct rec_listed) + 2 * sizeof(struct rec_pset_ent);
	if (c->listed_bytes > c->o->path_set_bytes / LISTED_SHARE)
		return take_listed_now(c);
	return 1;
}

static uint32_t dtype_mode(unsigned char d)
{
	switch (d) {
	case DT_DIR: return S_IFDIR | 0755;
	case DT_LNK: return S_IFLNK | 0777;
	case DT_FIFO: return S_IFIFO | 0644;
	case DT_SOCK: return S_IFSOCK | 0755;
	case DT_CHR: return S_IFCHR | 0644;
	case DT_BLK: return S_IFBLK | 0644;
	default: return S_IFREG | 0644;
	}
}

/* The entries of listed directory @l that no call named: their state now
 * (the workload did not touch them by name), flagged as listed only.
 * Each is looked up in the directory open here, not from the root: a
 * deep tree's entries cost what a shallow one's do. */
static int64_t take_entries(struct rec_ctx *c, const struct rec_listed *l)
{
	char spbuf[REC_PATH_MAX], full[REC_PATH_MAX], target[REC_PATH_MAX], phys[REC_PATH_MAX];
	const char *sp = stat_path(c, l->path, spbuf, sizeof(spbuf));
	uint32_t physlen = 0;		/* fd_path()'s, once asked for */
	size_t splen = strlen(sp);
	int64_t n = 0;
	struct dirent *de;
	struct stat dsb;
	DIR *d = opendir(sp);

	if (!d)
		return 0;		/* gone since, or not ours to read */
	if (fstat(dirfd(d), &dsb) < 0)
		dsb.st_ino = 0;
	while ((de = readdir(d)) != NULL) {
		struct iot_path_state ps = { 0 };
		size_t nl = strlen(de->d_name);
		struct stat sb;
		int r;

		if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (l->len + 1 + nl >= sizeof(full) || splen + 1 + nl >= REC_PATH_MAX)
			continue;
		memcpy(full, l->path, l->len);
		full[l->len] = '/';
		memcpy(full + l->len + 1, de->d_name, nl + 1);
		r = rec_pset_add(&c->seen, full, (uint32_t)(l->len + 1 + nl),
				 rec_pset_hash(&c->seen, full, (uint32_t)(l->len + 1 + nl)), 0, NULL);
		if (r < 0) {
			closedir(d);
			return r;
		}
		if (r == 0)
			continue;	/* named by a call: its state is taken */
		/* ... or named by a call otherwise (entry_met()) */
		if (dsb.st_ino && nl <= ENTRY_KEY_MAX - 16) {
			r = entry_add(c, dsb.st_dev, dsb.st_ino, de->d_name, (uint32_t)nl);
			if (r < 0) {
				closedir(d);
				return r;
			}
			if (r == 0)
				continue;
		}
		/* ... or named before its directory existed (entry_early()) */
		if (c->entries_early) {
			if (!physlen && !(physlen = fd_path(dirfd(d), phys, sizeof(phys))))
				physlen = UINT32_MAX;
			if (physlen != UINT32_MAX &&
			    entry_early_met(c, phys, physlen, full + l->len, (uint32_t)(1 + nl)))
				continue;
		}
		ps.path = full;
		ps.path_len = (uint32_t)(l->len + 1 + nl);
		ps.t_ns = l->t_ns;
		ps.flags = IOT_PS_LISTED | (c->seen.last_again ? IOT_PS_AGAIN : 0);
		if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
			state_from_stat(&ps, &sb);
		} else {
			ps.type = dtype_mode(de->d_type) & S_IFMT;
			ps.mode = dtype_mode(de->d_type) & 07777;
			ps.nlink = 1;
		}
		if (ps.type == S_IFLNK)
			read_target(&ps, dirfd(d), de->d_name, target, sizeof(target));
		r = iot_writer_path_state(c->w, &ps);
		if (r == 0 && ps.target && sp == l->path)
			rec_start_link_note(c, full, ps.path_len, ps.target, ps.target_len);
		if (r == 0 && c->n_moves)
			r = moved_origin(c, &ps, 0);
		if (r < 0) {
			closedir(d);
			return r;
		}
		n++;
	}
	closedir(d);
	return n;
}

int64_t rec_take_listed(struct rec_ctx *c)
{
	int64_t n = 0, r;
	size_t i;

	rec_names_changed(c);	/* the tree as it is now, as ever */
	for (i = 0; i < c->n_listed; i++) {
		r = take_entries(c, &c->listed[i]);
		if (r < 0)
			return r;
		n += r;
	}
	return n;
}
