/*
 * states.c - the PathState snapshot of each path, taken before the
 * workload first touches it: its ancestors first, what the state holds
 * (attributes, a symlink's target, a sparse file's data ranges,
 * extended attributes), the targets of symlinks met, and a state written
 * again under the name it had at the start where the workload renamed
 * its directory or reached it through a symlink it made.  Which names
 * are one entry: names.c; the entries of listed directories: listed.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "rec.h"
#include "states_int.h"

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

void rec_state_from_stat(struct iot_path_state *ps, const struct stat *sb)
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
void rec_read_target(struct iot_path_state *ps, int dirfd, const char *path, char *buf,
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

static int linked_origin(struct rec_ctx *c, const struct iot_path_state *ps, const char *sp,
			 int depth);

/* Write the state of @p: @pre when the program took it before the call
 * (fast path), else per @how (and @pre's opened file: as_opened()). */
static int take_one(struct rec_ctx *c, const char *p, uint32_t len, int depth,
		    const struct rec_pre *pre, int how)
{
	struct iot_path_state ps;
	char target[REC_PATH_MAX], spbuf[REC_PATH_MAX], lpbuf[REC_PATH_MAX];
	uint64_t ranges[2 * REC_DATA_RANGES];
	struct iot_xattr xa[XATTRS_MAX];
	struct iot_ps_extra ex;
	const char *sp = rec_stat_path(c, p, spbuf, sizeof(spbuf)), *lp;
	struct stat sb;
	uint32_t attr = 0;
	int r, ok, changed = 0;

	/* a FUSE mount the workload made: a look waits for its daemon,
	 * which may be waiting for the recorder (fuse_mounts.c) */
	if (rec_fuse_under_now(p) || (sp != p && rec_fuse_under(sp)))
		return 0;
	/* an entry met under another name: its state is there */
	if ((r = rec_entry_met(c, p, sp)) != 0)
		return r < 0 ? r : 0;
	/* looked at as the task that named it sees it (mount_ns.c) */
	lp = rec_ns_path(c, sp, lpbuf, sizeof(lpbuf));
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
		ok = rec_lstat_long(lp, &sb, &attr) == 0;
		/* changed since the open (through the descriptor: a write, a
		 * set of an attribute): its extended attributes, taken now,
		 * may hold what the program set (bpf_guard.c) */
		if (ok && pre && pre->opened && pre->op.times && sb.st_ino == pre->op.ino &&
		    sb.st_ctim.tv_sec * 1000000000LL + sb.st_ctim.tv_nsec != pre->op.ctime_ns)
			changed = 1;
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
		rec_state_from_stat(&ps, &sb);
		if (S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode)) {
			struct statx sx;

			/* the program's lstat has no attribute flags: asked
			 * here (the mask 0 still gives them) */
			if (pre && !pre->opened &&
			    statx(AT_FDCWD, lp, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, 0, &sx) == 0)
				attr = rec_statx_attr(&sx);
			ex.attr_flags = attr;
			ex.n_xattrs = take_xattrs(c, lp, xa);
			ex.xattrs = xa;
			if (changed && ex.n_xattrs &&
			    rec_pset_add(&c->xattrs_after, p, len,
					 rec_pset_hash(&c->xattrs_after, p, len), 0, NULL) < 0)
				return -ENOMEM;
			r = data_ranges(lp, &sb, ranges, REC_DATA_RANGES);
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
			rec_read_target(&ps, AT_FDCWD, lp, target, sizeof(target));
		}
	}
	if (ex.n_xattrs || ex.attr_flags || (ps.flags & IOT_PS_SPARSE))
		ps.extra = &ex;
	/* type 0 says "did not exist before the workload touched it" */
	r = iot_writer_path_state(c->w, &ps);
	if (r == 0 && ps.target)
		rec_start_link_note(c, sp, (uint32_t)strlen(sp), ps.target, ps.target_len);
	if (r == 0 && ok && c->n_moves)
		r = rec_moved_origin(c, &ps, depth);
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
	sp = rec_stat_path(c, link, buf, sizeof(buf));
	n = (uint32_t)strlen(sp);
	if (n > 1 && rec_pset_add(&c->made_links, sp, n, rec_pset_hash(&c->made_links, sp, n),
				  0, NULL) < 0)
		return -ENOMEM;
	abs = link_target(link, target, &n);
	if (!abs)
		return -ENOMEM;
	sp = rec_stat_path(c, abs, buf, sizeof(buf));
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
int rec_moved_origin(struct rec_ctx *c, const struct iot_path_state *ps, int depth)
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
 * rightly leaves out, and rec_entry_met() then kept it from being taken under
 * the name it had there (the listing's, or a call's through stow/), so
 * the replay's tree had no stow/alpha/lib/alpha (stow: 75 mismatches).
 * A state found through such a link is written again under its
 * directory's real path, if that name is new to the set of paths met
 * (its ancestors first), as rec_moved_origin() does for a renamed directory.
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
