/*
 * names.c - which names are one, for the states taken (states.c):
 * whether a directory on a path is a symlink now, so that "NAME/.."
 * climbs back to the directory it came from; which directory entry a
 * name is, so that an entry named two ways has one state, taken under
 * the first name met; the sets of names met, made and freed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "hash.h"
#include "rec.h"
#include "states_int.h"

/*
 * Whether a directory on a path is a symlink, for rec_stat_path(): a tree
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
	/* the last directories rec_entry_met() looked up: their paths, and
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

uint32_t rec_statx_attr(const struct statx *sx)
{
	uint64_t a = sx->stx_attributes & sx->stx_attributes_mask;

	return ((a & STATX_ATTR_APPEND) ? IOT_PS_ATTR_APPEND : 0) |
	       ((a & STATX_ATTR_IMMUTABLE) ? IOT_PS_ATTR_IMMUTABLE : 0) |
	       ((a & STATX_ATTR_NODUMP) ? IOT_PS_ATTR_NODUMP : 0);
}

/* What lstat() gives, from @sx. */
static void stat_from_statx(struct stat *sb, const struct statx *sx)
{
	memset(sb, 0, sizeof(*sb));
	sb->st_dev = makedev(sx->stx_dev_major, sx->stx_dev_minor);
	sb->st_ino = sx->stx_ino;
	sb->st_mode = sx->stx_mode;
	sb->st_nlink = sx->stx_nlink;
	sb->st_uid = sx->stx_uid;
	sb->st_gid = sx->stx_gid;
	sb->st_rdev = makedev(sx->stx_rdev_major, sx->stx_rdev_minor);
	sb->st_size = (off_t)sx->stx_size;
	sb->st_blksize = sx->stx_blksize;
	sb->st_blocks = (blkcnt_t)sx->stx_blocks;
	sb->st_atim = (struct timespec){ sx->stx_atime.tv_sec, sx->stx_atime.tv_nsec };
	sb->st_mtim = (struct timespec){ sx->stx_mtime.tv_sec, sx->stx_mtime.tv_nsec };
	sb->st_ctim = (struct timespec){ sx->stx_ctime.tv_sec, sx->stx_ctime.tv_nsec };
}

/* lstat() of @p, which may be longer than a lookup takes (PATH_MAX: a
 * walk below a deep tree): its directories then opened in parts.  Made
 * with statx(), whose answer has the file's attribute flags too (an
 * append-only or immutable file must be one in the replay's starting
 * tree): no second call for them. */
int rec_lstat_long(const char *p, struct stat *sb, uint32_t *attr)
{
	char part[3073];
	int dfd = AT_FDCWD, fd, r;
	struct statx sx;

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
	r = statx(dfd, p, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_BASIC_STATS, &sx);
	if (dfd != AT_FDCWD)
		close(dfd);
	if (r == 0) {
		stat_from_statx(sb, &sx);
		if (attr)
			*attr = rec_statx_attr(&sx);
	}
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
	link = rec_lstat_long(p, &sb, NULL) == 0 && S_ISLNK(sb.st_mode);
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
	if (r == 0)
		r = rec_pset_init(&c->xattrs_after);
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
	rec_pset_free(&c->xattrs_after);
	free(c->listed);
	c->listed = NULL;
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
const char *rec_stat_path(struct rec_ctx *ctx, const char *p, char *buf, size_t cap)
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
 * It is also its path as rec_stat_path() cleans it: a backend that takes
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
 * mismatches, bpf).  @sp : @p as rec_stat_path() gives it (@p itself if it
 * has no "." or "..": a name the set of paths met has not met).
 * @return : 1 if @sp's entry was met under another name, 0 if not (added
 * now), -ENOMEM.
 */

/* Entry @name (@nl bytes, at most ENTRY_KEY_MAX - 16) of the directory
 * @dev/@ino into the set of entries.  @return : rec_pset_add()'s. */
int rec_entry_add(struct rec_ctx *c, uint64_t dev, uint64_t ino, const char *name,
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
uint32_t rec_dir_fd_path(int fd, char *buf, size_t cap)
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
 * longest part of it that exists, as rec_dir_fd_path() names it, and the rest
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
	n = rec_dir_fd_path(fd, buf, cap);
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
 * (@dl bytes, as the kernel names it: rec_dir_fd_path()) was met by a name
 * entry_early() kept. */
int rec_entry_early_met(struct rec_ctx *c, const char *dir, uint32_t dl, const char *name,
		    uint32_t nl)
{
	char path[REC_PATH_MAX];
	uint32_t n = entry_path(path, sizeof(path), dir, dl, name, nl);

	return n && rec_pset_has(&c->entries, path, n) == 1;
}

int rec_entry_met(struct rec_ctx *c, const char *p, const char *sp)
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
	r = rec_entry_add(c, lc->d[i].dev, lc->d[i].ino, name + 1, nl);
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
	return lc->d[i].phys && rec_entry_early_met(c, lc->d[i].phys, lc->d[i].phys_len, name, nl + 1);
}
