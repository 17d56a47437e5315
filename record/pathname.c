/*
 * pathname.c - absolute paths from what a call names.
 *
 * Paths are joined lexically and never resolved through symlinks: the
 * trace keeps the name the program used, which is what replay re-issues.
 */
#include <stdlib.h>
#include <string.h>

#include "rec.h"

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

/* The length of @p if it has no empty or "." component and no '/' at
 * either end, so that appending its components one by one copies it as
 * it is; else 0.  Most paths and every cwd are so: one copy, where a
 * strchr() and a copy a component cost the recorder ~3 % of its CPU. */
static size_t plain_len(const char *p)
{
	char prev = '/';
	size_t i;

	for (i = 0; p[i]; i++) {
		if (prev == '/' && (p[i] == '/' || (p[i] == '.' && (p[i + 1] == '/' || !p[i + 1]))))
			return 0;
		prev = p[i];
	}
	return prev == '/' ? 0 : i;
}

static void split_into(char *out, size_t *o, size_t cap, const char *p)
{
	size_t plain = plain_len(p[0] == '/' ? p + 1 : p);

	if (plain) {
		push(out, o, cap, p[0] == '/' ? p + 1 : p, plain);
		return;
	}
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

char *rec_task_path_abs(const struct rec_task *t, const char *base, const char *p,
			uint32_t *len)
{
	if (p[0] == '/' && t && t->fs && t->fs->root)
		return rec_path_abs(t->fs->root, p + 1, len);
	return rec_path_abs(base, p, len);
}

/* /proc/self/fd/N, /proc/thread-self/fd/N and /proc/PID/fd/N name the
 * open file, not a path, and so do /dev/fd/N, /dev/stdin, /dev/stdout
 * and /dev/stderr (links to /proc/self/fd/N): replace them with the
 * path of that descriptor.
 * That path may not be the file's: an O_TMPFILE file has none (its
 * descriptor's path is the directory it was made in), and one renamed
 * or removed since has another or none; so where N is a descriptor of
 * @t's own table, *@self (if not NULL) gets N, for the event to keep
 * (decode.c), else -1.  A descriptor that is no file (a pipe's) keeps
 * the path as written. */
int rec_path_magic(struct rec_ctx *c, struct rec_task *t, char **pp, uint32_t *len,
		   long *self)
{
	struct rec_task *owner = t;
	const char *fp, *rest = NULL;
	char *dup;
	int32_t pid;
	long fd;
	uint32_t n, rl = 0;

	if (self)
		*self = -1;
	fd = (long)iot_path_fd(*pp, INT32_MAX, &pid);
	if (fd < 0 && ((*pp)[1] == 'p' || (*pp)[1] == 'd')) {
		/* a name under a directory's descriptor, /proc/self/fd/N/NAME
		 * (tar --acls sets ACLs so): the directory's path and NAME;
		 * left as it was, the call was not replayed */
		const char *q = strstr(*pp, "/fd/"), *slash = q ? strchr(q + 4, '/') : NULL;
		char pre[64];
		size_t pl = slash ? (size_t)(slash - *pp) : 0;

		if (slash && slash[1] && pl < sizeof(pre)) {
			memcpy(pre, *pp, pl);
			pre[pl] = 0;
			if ((fd = (long)iot_path_fd(pre, INT32_MAX, &pid)) >= 0) {
				rest = slash + 1;
				rl = (uint32_t)strlen(rest);
			}
		}
	}
	if (fd < 0)
		return 0;
	if (pid && !(owner = rec_task_get(c, (pid_t)pid)))
		return 0;
	fp = rec_fd_path(owner, fd, &n);
	if (!fp || fp[0] != '/')
		return 0;
	if (!(dup = malloc((size_t)n + rl + 2)))
		return 0;
	memcpy(dup, fp, n);
	if (rest) {
		dup[n++] = '/';
		memcpy(dup + n, rest, rl);
		n += rl;
	}
	dup[n] = 0;
	free(*pp);
	*pp = dup;
	*len = n;
	if (self && !rest && owner->fds == t->fds)
		*self = fd;
	return 1;
}

/* Pseudo filesystems are neither snapshot nor replayed. */
int rec_path_skipped(const char *p)
{
	if (p[0] != '/')
		return 0;
	if (rec_fuse_under(p))
		return 1;
	if (p[1] != 'p' && p[1] != 's' && p[1] != 'd')
		return 0;
	return strncmp(p, "/proc", 5) == 0 && (p[5] == '/' || !p[5]) ? 1 :
	       strncmp(p, "/sys", 4) == 0 && (p[4] == '/' || !p[4]) ? 1 :
	       strncmp(p, "/dev", 4) == 0 && (p[4] == '/' || !p[4]) ? 1 : 0;
}
