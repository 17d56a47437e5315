/*
 * paths.c - strings from the tracee's memory, absolute paths, and the
 * PathState snapshot taken before a path is first touched.
 *
 * Paths are joined lexically and never resolved through symlinks: the
 * trace keeps the name the program used, which is what replay re-issues.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "rec.h"

#define PAGE 4096UL

ssize_t rec_read_mem(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t n;

	if (!addr)
		return -EFAULT;
	n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return -errno;
	return n;
}

ssize_t rec_read_str(pid_t tid, uint64_t addr, char *buf, size_t cap)
{
	size_t got = 0;

	if (!addr)
		return -EFAULT;
	/* Read up to each page boundary: the next page may be unmapped
	 * while the string itself is not. */
	while (got + 1 < cap) {
		size_t chunk = PAGE - ((addr + got) & (PAGE - 1));
		ssize_t n;
		char *z;

		if (chunk > cap - 1 - got)
			chunk = cap - 1 - got;
		n = rec_read_mem(tid, addr + got, buf + got, chunk);
		if (n <= 0)
			return got ? (ssize_t)got : (n < 0 ? n : -EFAULT);
		z = memchr(buf + got, 0, (size_t)n);
		if (z)
			return z - buf;
		got += (size_t)n;
	}
	buf[got] = 0;
	return (ssize_t)got;
}

/* Append component @s (@n bytes) to @out (length *@o), dropping "." and
 * empty components; ".." is kept as is (lexical, never resolved). */
static void push(char *out, size_t *o, size_t cap, const char *s, size_t n)
{
	if (n == 0 || (n == 1 && s[0] == '.'))
		return;
	if (*o + n + 2 > cap)
		return;
	if (*o == 0 || out[*o - 1] != '/')
		out[(*o)++] = '/';
	memcpy(out + *o, s, n);
	*o += n;
}

static void split_into(char *out, size_t *o, size_t cap, const char *p)
{
	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		push(out, o, cap, p, n);
		p += n;
		if (*p == '/')
			p++;
	}
}

char *rec_path_abs(const char *base, const char *p, uint32_t *len)
{
	size_t cap = strlen(p) + (base ? strlen(base) : 0) + 4, o = 0;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	if (p[0] != '/' && base)
		split_into(out, &o, cap, base);
	split_into(out, &o, cap, p);
	if (o == 0) {
		/* "" stays "" (ENOENT); everything else that ends up
		 * empty is the root */
		if (p[0] || (base && base[0]))
			out[o++] = '/';
	}
	out[o] = 0;
	if (len)
		*len = (uint32_t)o;
	return out;
}

/* /proc/self/fd/N, /proc/thread-self/fd/N and /proc/PID/fd/N name the
 * open file, not a path: replace them with the path of that descriptor. */
int rec_path_magic(struct rec_ctx *c, struct rec_task *t, char **pp, uint32_t *len)
{
	const char *p = *pp, *q;
	struct rec_task *owner = t;
	const char *fp;
	char *end, *dup;
	long fd;
	uint32_t n;

	if (strncmp(p, "/proc/", 6) != 0)
		return 0;
	q = p + 6;
	if (strncmp(q, "self/", 5) == 0) {
		q += 5;
	} else if (strncmp(q, "thread-self/", 12) == 0) {
		q += 12;
	} else if (*q >= '0' && *q <= '9') {
		long pid = strtol(q, &end, 10);

		if (*end != '/')
			return 0;
		owner = rec_task_get(c, (pid_t)pid);
		if (!owner)
			return 0;
		q = end + 1;
	} else {
		return 0;
	}
	if (strncmp(q, "fd/", 3) != 0)
		return 0;
	fd = strtol(q + 3, &end, 10);
	if (*end || end == q + 3)
		return 0;
	fp = rec_fd_path(owner, fd, &n);
	if (!fp || fp[0] != '/')
		return 0;
	dup = strndup(fp, n);
	if (!dup)
		return 0;
	free(*pp);
	*pp = dup;
	*len = n;
	return 1;
}

/* Pseudo filesystems are neither snapshot nor replayed. */
int rec_path_skipped(const char *p)
{
	return strncmp(p, "/proc", 5) == 0 && (p[5] == '/' || !p[5]) ? 1 :
	       strncmp(p, "/sys", 4) == 0 && (p[4] == '/' || !p[4]) ? 1 :
	       strncmp(p, "/dev", 4) == 0 && (p[4] == '/' || !p[4]) ? 1 : 0;
}

/* ---- the set of paths already taken (open addressing, FNV-1a) ---- */

static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

int rec_seen_init(struct rec_ctx *c)
{
	c->seen_cap = 4096;
	c->seen = calloc(c->seen_cap, sizeof(*c->seen));
	return c->seen ? 0 : -ENOMEM;
}

void rec_seen_free(struct rec_ctx *c)
{
	uint64_t i;

	for (i = 0; i < c->seen_cap && c->seen; i++)
		free(c->seen[i]);
	free(c->seen);
	c->seen = NULL;
}

static int seen_grow(struct rec_ctx *c)
{
	uint64_t cap = c->seen_cap * 2, i;
	char **s = calloc(cap, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (i = 0; i < c->seen_cap; i++) {
		uint64_t j;

		if (!c->seen[i])
			continue;
		j = hash(c->seen[i], strlen(c->seen[i])) & (cap - 1);
		while (s[j])
			j = (j + 1) & (cap - 1);
		s[j] = c->seen[i];
	}
	free(c->seen);
	c->seen = s;
	c->seen_cap = cap;
	return 0;
}

/* @return : 1 if @p was added now, 0 if it was there, -errno */
static int seen_add(struct rec_ctx *c, const char *p, size_t n)
{
	uint64_t j;

	if ((c->seen_n + 1) * 2 > c->seen_cap && seen_grow(c) < 0)
		return -ENOMEM;
	j = hash(p, n) & (c->seen_cap - 1);
	while (c->seen[j]) {
		if (strncmp(c->seen[j], p, n) == 0 && c->seen[j][n] == 0)
			return 0;
		j = (j + 1) & (c->seen_cap - 1);
	}
	c->seen[j] = strndup(p, n);
	if (!c->seen[j])
		return -ENOMEM;
	c->seen_n++;
	return 1;
}

/* How many symlinks deep a path state follows targets (as the kernel's
 * own limit on nested links, loosely). */
#define FOLLOW_MAX 8

static int state_of(struct rec_ctx *c, const char *p, uint32_t len, int depth,
		    const struct rec_pre *pre);

/* A symlink's target is part of the starting tree too: a program that
 * opens libacl.so.1 reads libacl.so.1.1.2206, which it never names. */
static int follow_target(struct rec_ctx *c, const char *link, const char *target, int depth,
			 const struct rec_pre *through)
{
	char *dir, *abs;
	const char *slash;
	uint32_t n;
	int r;

	if (depth >= FOLLOW_MAX)
		return 0;
	slash = strrchr(link, '/');
	dir = strndup(link, slash && slash != link ? (size_t)(slash - link) : 1);
	if (!dir)
		return -ENOMEM;
	abs = rec_path_abs(dir, target, &n);
	free(dir);
	if (!abs)
		return -ENOMEM;
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
static const char *stat_path(const char *p, char *buf, size_t cap)
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
			struct stat sb;

			buf[o] = 0;
			if (lstat(buf, &sb) == 0 && S_ISLNK(sb.st_mode)) {
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
 * How an ancestor's state is taken for a fast-path record, which is read
 * after later calls may have changed the tree: lstat it now; it was a
 * directory (its descendant existed), even if it is gone now; it was
 * missing (the program's own lstat found that many trailing components
 * missing), even if a later call made it.
 */
enum { ANC_LIVE, ANC_PARENT_OF_EXISTING, ANC_MISSING };

/* Write the state of @p: @pre when the program took it before the call
 * (fast path), else per @how. */
static int take_one(struct rec_ctx *c, const char *p, uint32_t len, int depth,
		    const struct rec_pre *pre, int how)
{
	struct iot_path_state ps;
	char target[REC_PATH_MAX], spbuf[REC_PATH_MAX];
	const char *sp = p;
	struct stat sb;
	int r, ok;

	memset(&ps, 0, sizeof(ps));
	ps.path = p;
	ps.path_len = len;
	ps.t_ns = iot_now_ns();
	if (pre) {
		ok = pre->err == 0;
		sb = pre->sb;
	} else if (how == ANC_MISSING) {
		ok = 0;
	} else {
		sp = stat_path(p, spbuf, sizeof(spbuf));
		ok = lstat(sp, &sb) == 0;
		if (!ok && how == ANC_PARENT_OF_EXISTING) {
			memset(&sb, 0, sizeof(sb));
			sb.st_mode = S_IFDIR | 0755;
			sb.st_nlink = 2;
			ok = 1;
		}
	}
	if (ok) {
		ps.type = sb.st_mode & S_IFMT;
		ps.size = (uint64_t)sb.st_size;
		ps.mode = sb.st_mode & 07777;
		ps.uid = sb.st_uid;
		ps.gid = sb.st_gid;
		ps.atime_ns = sb.st_atim.tv_sec * 1000000000LL + sb.st_atim.tv_nsec;
		ps.mtime_ns = sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
		ps.ctime_ns = sb.st_ctim.tv_sec * 1000000000LL + sb.st_ctim.tv_nsec;
		ps.nlink = (uint32_t)sb.st_nlink;
		ps.dev = sb.st_dev;
		ps.ino = sb.st_ino;
		ps.rdev = sb.st_rdev;
		if (S_ISLNK(sb.st_mode) && pre) {
			if (pre->target) {
				memcpy(target, pre->target, pre->target_len);
				target[pre->target_len] = 0;
				ps.target = target;
				ps.target_len = pre->target_len;
			}
		} else if (S_ISLNK(sb.st_mode)) {
			ssize_t n = readlink(sp, target, sizeof(target) - 1);

			if (n >= 0) {
				target[n] = 0;
				ps.target = target;
				ps.target_len = (uint32_t)n;
			}
		}
	}
	/* type 0 says "did not exist before the workload touched it" */
	r = iot_writer_path_state(c->w, &ps);
	if (r == 0 && ps.target)
		r = follow_target(c, p, target, depth, pre ? pre->through : NULL);
	return r;
}

int rec_path_state(struct rec_ctx *c, const char *p, uint32_t len,
		   const struct rec_pre *pre)
{
	return state_of(c, p, len, 0, pre);
}

static int state_of(struct rec_ctx *c, const char *p, uint32_t len, int depth,
		    const struct rec_pre *pre)
{
	uint32_t i;
	int r;

	if (len == 0 || p[0] != '/' || rec_path_skipped(p))
		return 0;
	r = seen_add(c, p, len);
	if (r <= 0)
		return r;
	/* ancestors first, root to leaf, so replay can create them in order */
	for (i = 1; i < len; i++) {
		if (p[i] != '/')
			continue;
		r = seen_add(c, p, i);
		if (r < 0)
			return r;
		if (r == 1) {
			char *a = strndup(p, i);
			uint32_t below = 0, j;
			int how = ANC_LIVE;

			if (!a)
				return -ENOMEM;
			for (j = i; j < len; j++)
				below += p[j] == '/';
			if (pre && pre->err == 0)
				how = ANC_PARENT_OF_EXISTING;
			else if (pre && pre->err == ENOENT && below < pre->missing)
				how = ANC_MISSING;
			r = take_one(c, a, i, depth, NULL, how);
			free(a);
			if (r < 0)
				return r;
		}
	}
	return take_one(c, p, len, depth, pre, ANC_LIVE);
}
