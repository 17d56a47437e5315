/*
 * clean.c - recorded paths with "." and ".." components made plain.
 *
 * The recorder names a call relative to a directory descriptor by the
 * descriptor's path plus the name given, as written: a tree walker that
 * climbs with openat(fd, "..") (fts: du, rm -rf, find) leaves paths such
 * as "/w/tree/arch/mips/../hexagon/mm/fault.c".  Recorded, the call went
 * through the descriptor, a directory that still existed; replayed from
 * the path, "/w/tree/arch/mips" must exist too, and once rm -rf removed
 * it every later call of the walk fails (ENOENT where the recording
 * succeeded), while du's paths grow a "NAME/.." per directory visited
 * and every replayed lookup walks them all.
 *
 * "A/NAME/.." is "A" whenever NAME is not a symlink: the directory NAME
 * names has A as its parent.  A NAME the starting tree or the workload
 * made a symlink (up to the op being cleaned) keeps its "..": resolving
 * it in the root then goes where the recorded call went.  A last ".." or
 * "." goes only from calls that look a file up (open, stat, chown,
 * xattrs...): "A/b/.." is A for them; for calls that make, remove or
 * rename the last name, it is no name at all (EINVAL, EEXIST), and
 * "rmdir A" is not what was asked.  Paths only get shorter, and are
 * still resolved inside the root.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "rpl.h"

/* rpl_map keys of symlink paths: hashed, never an RPL_IK() value. */
static uint64_t key_of(uint64_t h)
{
	return h & ~(1ULL << 32);
}

static uint64_t link_key(const char *s, size_t n)
{
	return key_of(iot_hash(s, n, 7));
}

/* clean()'s stacks twice as deep, moved to the heap (from @top_s and
 * @at_s, its own, the first time).  @return : 0 if there was no memory */
static int deeper(size_t **top, struct iot_hasher **at, size_t *cap, const size_t *top_s,
		  const struct iot_hasher *at_s)
{
	size_t *t = malloc(2 * *cap * sizeof(*t));
	struct iot_hasher *a = malloc(2 * *cap * sizeof(*a));

	if (!t || !a) {
		free(t);
		free(a);
		return 0;
	}
	memcpy(t, *top, *cap * sizeof(*t));
	memcpy(a, *at, *cap * sizeof(*a));
	if (*top != top_s) {
		free(*top);
		free(*at);
	}
	*top = t;
	*at = a;
	*cap *= 2;
	return 1;
}

/*
 * Clean absolute @path of @len bytes in place (see above); the names
 * in @links are symlinks; @tail: a last "." or ".." may go too.
 * @return : the new length.
 */
static size_t clean(char *path, size_t len, const struct rpl_map *links, int tail)
{
	/* where each droppable "/NAME" starts; on the heap past 128 names
	 * (a walk below a tree deeper than that climbs out of it too) */
	size_t top_s[128], *top = top_s, cap = 128;
	/* the hash of what is written, and of what was before each
	 * top[]: the key of the cleaned prefix at each ".." without hashing
	 * it again (a path of hundreds of "NAME/.." hashed its prefix as
	 * often) */
	struct iot_hasher hs, at_s[128], *at = at_s;
	size_t r = 1, w = 0, depth = 0;	/* read and write positions */
	int slash;
	uint32_t v;

	iot_hasher_init(&hs, 7);
	if (len < 2 || path[0] != '/')
		return len;
	slash = path[len - 1] == '/';
	while (r < len) {
		size_t s = r, n, t;
		int dotdot, last;

		while (r < len && path[r] != '/')
			r++;
		n = r - s;
		for (t = r; t < len && path[t] == '/'; t++)
			;
		last = t == len && !tail;
		r = t;
		dotdot = n == 2 && path[s] == '.' && path[s + 1] == '.';
		if (n == 0 || (n == 1 && path[s] == '.' && !last))
			continue;		/* "//", an inner "." */
		if (dotdot && !last && depth > 0 &&
		    !rpl_map_get(links, key_of(iot_hasher_value(&hs)), &v)) {
			w = top[--depth];	/* "/NAME/.." */
			hs = at[depth];
			continue;
		}
		if (dotdot && !last && w == 0)
			continue;		/* "/.." is "/" */
		if (depth == cap && !dotdot && !deeper(&top, &at, &cap, top_s, at_s))
			depth = 0;		/* no memory: keep what is there */
		if (dotdot) {
			depth = 0;		/* nothing before it can go */
		} else if (depth < cap) {
			at[depth] = hs;
			top[depth++] = w;
		}
		path[w++] = '/';
		memmove(path + w, path + s, n);
		iot_hasher_add(&hs, path + w - 1, n + 1);
		w += n;
	}
	if (w == 0)
		path[w++] = '/';
	else if (slash)
		path[w++] = '/';	/* "must be a directory" stays */
	path[w] = 0;
	if (top != top_s) {
		free(top);
		free(at);
	}
	return w;
}

size_t rpl_path_plain(char *path, size_t len)
{
	static const struct rpl_map none;

	return clean(path, len, &none, 1);
}

/* The call only looks its path up: a last ".." can be made plain. */
static int lookup_only(int nr)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(nr);

	return sc && (sc->cls == IOT_CLASS_METADATA || sc->cls == IOT_CLASS_XATTR);
}

static int is_link_op(int nr)
{
	return nr == SYS_symlink || nr == SYS_symlinkat;
}

/* @return : how many path states changed or went, or -ENOMEM; p->ps keeps
 * its order, the caller sorts it after. */
int rpl_plan_clean_paths(struct rpl_plan *p)
{
	struct rpl_map links = { 0 };
	uint32_t v;
	size_t i, k;
	int err = 0;

	for (i = 0; i < p->n_ps; i++)
		if ((p->ps[i].type & S_IFMT) == S_IFLNK &&
		    rpl_map_put(&links, link_key(p->ps[i].path, strlen(p->ps[i].path)), 1) < 0)
			goto nomem;
	/*
	 * The states too: the recorder took them by the path as written, so
	 * "/t/include/.." taken after rm -rf had removed include says
	 * "absent" of a directory that is there, and everything the walk
	 * then found under "/t/include/../fs" would count as made by the
	 * workload, not prepared (20,000 mismatches in an rm -rf of a
	 * kernel tree).  Such paths are cleaned as lookups are; an absent
	 * state of one says nothing and is dropped.  (Of one that had no
	 * "." or ".." to clean, only a name starting with a dot, it says
	 * what it says: notmuch's .notmuch, absent, was dropped, and
	 * files the workload made under it were prepared: 19 mismatches.)
	 */
	for (i = 0, k = 0; i < p->n_ps; i++) {
		struct iot_path_state *ps = &p->ps[i];

		if (rpl_path_has_dots(ps->path, ps->path_len)) {
			uint32_t was = ps->path_len;

			ps->path_len = (uint32_t)clean((char *)ps->path, ps->path_len, &links, 1);
			if (ps->path_len != was && !ps->type)
				continue;
			err += ps->path_len != was;
		}
		p->ps[k++] = *ps;
	}
	err += (int)(p->n_ps - k);
	p->n_ps = k;
	for (i = 0; i < p->n_ops; i++) {
		struct rpl_ev *ev = &p->ops[i].ev;

		/* the arena copies are the plan's own: cleaned in place (the
		 * op keeps no lengths: its paths end in NUL); only an op
		 * rpl_intern() marked has a path to clean */
		if (p->ops[i].rflags & RPL_OPF_DOTS) {
			p->ops[i].rflags &= (uint8_t)~RPL_OPF_DOTS;
			if (rpl_cpath_has_dots(ev->path))
				clean((char *)ev->path, strlen(ev->path), &links,
				      lookup_only(ev->nr));
			if (rpl_cpath_has_dots(ev->path2) && !is_link_op(ev->nr))
				clean((char *)ev->path2, strlen(ev->path2), &links, 0);
		}
		if (ev->ret < 0 || !ev->path)
			continue;
		/* names that are symlinks from here on */
		if (is_link_op(ev->nr) ||
		    (ev->path2 && links.n &&
		     iot_syscall_arg(iot_syscall_by_nr(ev->nr), IOT_ARG_PATH2) >= 0 &&
		     rpl_map_get(&links, link_key(ev->path, strlen(ev->path)), &v))) {
			const char *s = is_link_op(ev->nr) ? ev->path : ev->path2;
			size_t n = strlen(s);

			while (n > 1 && s[n - 1] == '/')
				n--;
			if (rpl_map_put(&links, link_key(s, n), 1) < 0)
				goto nomem;
		}
	}
	goto out;
nomem:
	err = -ENOMEM;
out:
	rpl_map_free(&links);
	return err;
}
