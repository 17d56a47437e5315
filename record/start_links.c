/*
 * start_links.c - the symlinks of the starting tree, for the targets
 * followed after the workload changed one of them.
 *
 * A symlink's target is part of the starting tree, and its state is
 * taken when the link is first met (states.c follow_target()), through
 * the tree as it is then.  A link first met after the workload removed
 * or replaced another link its target is reached through took its
 * target's state through the tree as it had become: npm's
 * node_modules/.bin/b-cli -> ../b/cli.js, met after `npm ci` unlinked
 * node_modules/b -> ../packages/b and before it made it again, said
 * node_modules/b/cli.js was absent, and the replay's starting tree, whose
 * node_modules/b is the link, had no packages/b/cli.js: the program's
 * stat, chmod and open of it after the link was made again failed (npm
 * workspaces: 8-9 mismatches a replay, both backends).
 *
 * So the link states written are kept here, path to target, and a
 * followed target's path is walked as the starting tree had it: where it
 * goes through one of these links and that name is no longer the same
 * link (removed, made again elsewhere, or another file now), the rest of
 * the path is resolved from the link's starting target, and the state is
 * taken of the file it named then (a later call that names the file
 * through the link made again finds its entry met: names.c
 * rec_entry_met()).  The link removed had its state taken before its removal
 * (ptrace at the entry stop, bpf at the guard's, the fast path's in the
 * program before the call), so it is here before any call after it is
 * decoded.
 *
 * Only the first state of a path is kept (the starting tree's), and only
 * links: a directory the workload removed took its entries' states when
 * their own calls removed them.  The map holds at most an eighth of
 * --path-set-mb; past that, a link met later is not kept, and a target
 * reached through it is followed through the tree as it is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hash.h"
#include "rec.h"

#define SEED 0x73746172746c6e6bULL	/* the map's own */
#define MIN_BUCKETS 256u
#define SHARE 8				/* of --path-set-mb */
#define HOPS_MAX 8			/* links substituted on one path */

struct slink {
	struct slink *next;
	uint64_t h;
	uint32_t plen, tlen;
	char s[];			/* the path, NUL, the target, NUL */
};

struct rec_slinks {
	struct slink **b;
	uint32_t nb;			/* buckets, a power of two */
	uint64_t n, bytes;
};

static struct slink *find(const struct rec_slinks *m, const char *p, uint32_t n)
{
	uint64_t h = iot_hash(p, n, SEED);
	struct slink *l;

	for (l = m->b[h & (m->nb - 1)]; l; l = l->next)
		if (l->h == h && l->plen == n && memcmp(l->s, p, n) == 0)
			return l;
	return NULL;
}

static int grow(struct rec_slinks *m)
{
	uint32_t nb = m->nb ? m->nb * 2 : MIN_BUCKETS, i;
	struct slink **b = calloc(nb, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (i = 0; i < m->nb; i++) {
		while (m->b[i]) {
			struct slink *l = m->b[i];

			m->b[i] = l->next;
			l->next = b[l->h & (nb - 1)];
			b[l->h & (nb - 1)] = l;
		}
	}
	free(m->b);
	m->b = b;
	m->nb = nb;
	return 0;
}

void rec_start_link_note(struct rec_ctx *c, const char *p, uint32_t plen, const char *target,
			 uint32_t tlen)
{
	struct rec_slinks *m = c->slinks;
	size_t sz = sizeof(struct slink) + plen + tlen + 2;
	struct slink *l;

	if (!plen || p[0] != '/' || !tlen)
		return;
	if (!m && !(m = c->slinks = calloc(1, sizeof(*m))))
		return;
	if (m->bytes + sz > c->o->path_set_bytes / SHARE && c->o->path_set_bytes)
		return;
	if (m->n >= m->nb && grow(m) < 0)
		return;
	if (find(m, p, plen))
		return;		/* its first state is the starting tree's */
	if (!(l = malloc(sz)))
		return;
	l->h = iot_hash(p, plen, SEED);
	l->plen = plen;
	l->tlen = tlen;
	memcpy(l->s, p, plen);
	l->s[plen] = 0;
	memcpy(l->s + plen + 1, target, tlen);
	l->s[plen + 1 + tlen] = 0;
	l->next = m->b[l->h & (m->nb - 1)];
	m->b[l->h & (m->nb - 1)] = l;
	m->n++;
	m->bytes += sz;
}

/* Is @p no longer the link @l was at the start? */
static int changed(const char *p, const struct slink *l)
{
	char buf[REC_PATH_MAX];
	ssize_t n = readlink(p, buf, sizeof(buf));

	return n != (ssize_t)l->tlen || memcmp(buf, l->s + l->plen + 1, l->tlen) != 0;
}

/* @dl bytes of @dir (its '/' last), @target (alone where absolute),
 * @rest: malloc'd */
static char *join(const char *dir, size_t dl, const char *target, const char *rest)
{
	size_t tl = strlen(target), rl = strlen(rest);
	char *s;

	if (target[0] == '/')
		dl = 0;
	s = malloc(dl + tl + rl + 1);
	if (!s)
		return NULL;
	memcpy(s, dir, dl);
	memcpy(s + dl, target, tl);
	memcpy(s + dl + tl, rest, rl + 1);
	return s;
}

char *rec_start_path(struct rec_ctx *c, const char *p, uint32_t *n)
{
	char out[REC_PATH_MAX];
	char *cur, *nx;
	const char *s, *e;
	size_t o, len;
	int hops = 0, raw;

	if (!c->slinks || !c->slinks->n || p[0] != '/' || !(cur = strdup(p)))
		return NULL;
again:
	o = 0;
	raw = 0;
	for (s = cur; *s; s = e) {
		const struct slink *l;

		while (*s == '/')
			s++;
		if (!*s)
			break;
		e = strchrnul(s, '/');
		len = (size_t)(e - s);
		if (o + 1 + len + 1 > sizeof(out))
			goto none;
		if (!raw && len == 1 && s[0] == '.')
			continue;
		if (!raw && len == 2 && s[0] == '.' && s[1] == '.') {
			out[o] = 0;
			/* after a link (kept), the kernel's ".." is its
			 * target's parent: the rest as it is, as rec_stat_path()
			 * keeps it */
			if (o == 0 || !rec_is_symlink(c, out, o)) {
				while (o > 0 && out[o - 1] != '/')
					o--;
				if (o > 0)
					o--;
				continue;
			}
			raw = 1;
		}
		out[o++] = '/';
		memcpy(out + o, s, len);
		o += len;
		out[o] = 0;
		/* the last name is the file itself, whose own state is
		 * taken as its own */
		if (raw || !*e || !(l = find(c->slinks, out, (uint32_t)o)) || !changed(out, l))
			continue;
		if (++hops > HOPS_MAX)
			goto none;
		while (out[o - 1] != '/')
			o--;
		nx = join(out, o, l->s + l->plen + 1, e);
		if (!nx)
			goto none;
		free(cur);
		cur = nx;
		goto again;
	}
	free(cur);
	if (!hops)
		return NULL;
	if (o == 0)
		out[o++] = '/';
	*n = (uint32_t)o;
	return strndup(out, o);
none:
	free(cur);
	return NULL;
}

void rec_start_links_free(struct rec_ctx *c)
{
	struct rec_slinks *m = c->slinks;
	uint32_t i;

	if (!m)
		return;
	for (i = 0; i < m->nb; i++) {
		while (m->b[i]) {
			struct slink *l = m->b[i];

			m->b[i] = l->next;
			free(l);
		}
	}
	free(m->b);
	free(m);
	c->slinks = NULL;
}
