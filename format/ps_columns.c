/*
 * ps_columns.c - path states as columns (format 1.3, FORMAT.md "Path
 * states as columns"), both ways.
 *
 * A recorder takes the state of every path a workload names: in a copy of
 * a tree, one state per file, with three nanosecond times, an inode number
 * and a path the events name too.  As PathState messages they were a
 * third of a cp -a trace; as columns (times as differences, the path as a
 * reference to the chunk's string table) they cost 40% less.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iotape.h"
#include "internal.h"

#define GROW(f) iot_grow((void **)&pc->f, &cap, n, sizeof(*pc->f))

/* Append @len bytes and a 0 byte to a 0-ended list. */
static int put_name(uint8_t **buf, size_t *len, size_t *cap, const uint8_t *s, size_t n)
{
	if (iot_grow((void **)buf, cap, *len + n + 1, 1))
		return -ENOMEM;
	if (n)
		memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[(*len)++] = 0;
	return 0;
}

static int grow_cols(struct iot_ps_cols *pc, size_t n)
{
	size_t cap;

	if (n <= pc->cap)
		return 0;
	/* every column is regrown from the same old capacity */
#define G(f) (cap = pc->cap, GROW(f))
	if (G(path) || G(type) || G(mode) || G(uid) || G(gid) || G(nlink) || G(flags) ||
	    G(target) || G(size) || G(dev) || G(rdev) || G(atime) || G(mtime) ||
	    G(ctime) || G(ino) || G(t))
		return -ENOMEM;
#undef G
	pc->cap = cap;
	return 0;
}

/* A sparse state's @n data ranges (@r: offset, length pairs) onto
 * ps_data: their count, then each as its offset less the end of the
 * range before it (0 before the first), and its length. */
static int put_ranges(struct iot_ps_cols *pc, const uint64_t *r, size_t n)
{
	uint64_t end = 0;
	size_t i;

	if (iot_grow((void **)&pc->data, &pc->data_cap, pc->data_len + 1 + 2 * n,
		     sizeof(*pc->data)))
		return -ENOMEM;
	pc->data[pc->data_len++] = n;
	for (i = 0; i < n; i++) {
		pc->data[pc->data_len++] = r[2 * i] - end;	/* modulo 2^64 */
		pc->data[pc->data_len++] = r[2 * i + 1];
		end = r[2 * i] + r[2 * i + 1];
	}
	return 0;
}

int iot_ps_pack(Iotape__PathState *const *ps, size_t n, const uint32_t *in_table,
		struct iot_ps_cols *pc, Iotape__Chunk *ch)
{
	uint64_t at = 0, ino = 0, t = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if ((ps[i]->has_path && memchr(ps[i]->path.data, 0, ps[i]->path.len)) ||
		    (ps[i]->has_target && memchr(ps[i]->target.data, 0, ps[i]->target.len)) ||
		    ps[i]->n_xattr_names || ps[i]->attr_flags)
			return 1;
	if (!n)
		return 0;
	if (grow_cols(pc, n))
		return -ENOMEM;
	pc->names_len = pc->targets_len = pc->data_len = 0;
	for (i = 0; i < n; i++) {
		const Iotape__PathState *m = ps[i];

		pc->path[i] = !m->has_path ? 0 : in_table[i] ? in_table[i] + 1 : 1;
		if (pc->path[i] == 1 && put_name(&pc->names, &pc->names_len, &pc->names_cap,
						 m->path.data, m->path.len))
			return -ENOMEM;
		pc->target[i] = m->has_target;
		if (m->has_target && put_name(&pc->targets, &pc->targets_len,
					      &pc->targets_cap, m->target.data,
					      m->target.len))
			return -ENOMEM;
		pc->type[i] = m->type;
		pc->size[i] = m->size;
		pc->mode[i] = m->mode;
		pc->uid[i] = m->uid;
		pc->gid[i] = m->gid;
		/* differences modulo 2^64: any values come back exact */
		pc->atime[i] = (int64_t)((uint64_t)m->atime_ns - at);
		pc->mtime[i] = (int64_t)((uint64_t)m->mtime_ns - (uint64_t)m->atime_ns);
		pc->ctime[i] = (int64_t)((uint64_t)m->ctime_ns - (uint64_t)m->mtime_ns);
		pc->nlink[i] = m->nlink;
		pc->dev[i] = m->dev;
		pc->ino[i] = (int64_t)(m->ino - ino);
		pc->t[i] = (int64_t)((uint64_t)m->t_ns - t);
		pc->rdev[i] = m->rdev;
		pc->flags[i] = m->flags;
		if ((m->flags & IOT_PS_SPARSE) && put_ranges(pc, m->data, m->n_data / 2))
			return -ENOMEM;
		at = (uint64_t)m->atime_ns;
		ino = m->ino;
		t = (uint64_t)m->t_ns;
	}
	ch->n_path_states = 0;
	ch->n_ps_path = ch->n_ps_type = ch->n_ps_size = ch->n_ps_mode = n;
	ch->n_ps_uid = ch->n_ps_gid = ch->n_ps_atime = ch->n_ps_mtime = n;
	ch->n_ps_ctime = ch->n_ps_nlink = ch->n_ps_dev = ch->n_ps_ino = n;
	ch->n_ps_t = ch->n_ps_rdev = ch->n_ps_flags = n;
	ch->n_ps_target = pc->targets_len ? n : 0;
	ch->ps_path = pc->path;
	ch->ps_type = pc->type;
	ch->ps_size = pc->size;
	ch->ps_mode = pc->mode;
	ch->ps_uid = pc->uid;
	ch->ps_gid = pc->gid;
	ch->ps_atime = pc->atime;
	ch->ps_mtime = pc->mtime;
	ch->ps_ctime = pc->ctime;
	ch->ps_nlink = pc->nlink;
	ch->ps_dev = pc->dev;
	ch->ps_ino = pc->ino;
	ch->ps_t = pc->t;
	ch->ps_rdev = pc->rdev;
	ch->ps_flags = pc->flags;
	ch->ps_target = pc->target;
	ch->has_ps_names = pc->names_len != 0;
	ch->ps_names.data = pc->names;
	ch->ps_names.len = pc->names_len;
	ch->n_ps_data = pc->data_len;
	ch->ps_data = pc->data;
	ch->has_ps_targets = pc->targets_len != 0;
	ch->ps_targets.data = pc->targets;
	ch->ps_targets.len = pc->targets_len;
	return 0;
}

void iot_ps_cols_free(struct iot_ps_cols *pc)
{
	free(pc->path); free(pc->type); free(pc->mode); free(pc->uid); free(pc->gid);
	free(pc->nlink); free(pc->flags); free(pc->target); free(pc->size);
	free(pc->dev); free(pc->rdev); free(pc->atime); free(pc->mtime);
	free(pc->ctime); free(pc->ino); free(pc->t); free(pc->names); free(pc->targets);
	free(pc->data);
	memset(pc, 0, sizeof(*pc));
}

/* The next 0-ended string of @b at *@off. @return : 0 or IOT_E_CORRUPT. */
static int next_name(const ProtobufCBinaryData *b, size_t *off, ProtobufCBinaryData *out)
{
	const uint8_t *p, *z;

	if (*off >= b->len)	/* also when absent: no pointer arithmetic on NULL */
		return IOT_E_CORRUPT;
	p = b->data + *off;
	if (!(z = memchr(p, 0, b->len - *off)))
		return IOT_E_CORRUPT;
	out->data = (uint8_t *)p;
	out->len = (size_t)(z - p);
	*off += out->len + 1;
	return 0;
}

/* The data ranges of a sparse state from ps_data at *@off (put_ranges()).
 * @return : 0 or IOT_E_CORRUPT. */
static int get_ranges(struct iot_arena *a, const Iotape__Chunk *c, size_t *off,
		      Iotape__PathState *m)
{
	uint64_t k, end = 0, i;

	if (*off >= c->n_ps_data)
		return IOT_E_CORRUPT;
	k = c->ps_data[(*off)++];
	if (k > (c->n_ps_data - *off) / 2)
		return IOT_E_CORRUPT;
	if (!k)
		return 0;
	m->data = iot_arena_alloc(a, 2 * k * sizeof(*m->data));
	if (!m->data)
		return -ENOMEM;
	for (i = 0; i < k; i++) {
		m->data[2 * i] = end + c->ps_data[(*off)++];
		m->data[2 * i + 1] = c->ps_data[(*off)++];
		end = m->data[2 * i] + m->data[2 * i + 1];
	}
	m->n_data = 2 * k;
	return 0;
}

/* Value @i of column @col; an empty column holds 0s. */
#define V(col, i) (c->n_##col ? c->col[i] : 0)

int iot_ps_expand(struct iot_arena *a, Iotape__Chunk *c)
{
	size_t n = c->n_ps_path, i, off_n = 0, off_t = 0, off_d = 0;
	uint64_t at = 0, ino = 0, t = 0;
	Iotape__PathState *m;
	int rc;

#define BAD(col) (c->n_##col != n && c->n_##col != 0)
	if (BAD(ps_type) || BAD(ps_size) || BAD(ps_mode) || BAD(ps_uid) || BAD(ps_gid) ||
	    BAD(ps_atime) || BAD(ps_mtime) || BAD(ps_ctime) || BAD(ps_nlink) ||
	    BAD(ps_dev) || BAD(ps_ino) || BAD(ps_t) || BAD(ps_rdev) || BAD(ps_flags) ||
	    BAD(ps_target) || (n && c->n_path_states))
		return IOT_E_CORRUPT;
#undef BAD
	if (!n)
		return (c->has_ps_names && c->ps_names.len) ||
		       (c->has_ps_targets && c->ps_targets.len) || c->n_ps_data ?
		       IOT_E_CORRUPT : 0;
	c->path_states = iot_arena_alloc(a, n * sizeof(*c->path_states));
	m = iot_arena_alloc(a, n * sizeof(*m));
	if (!c->path_states || !m)
		return -ENOMEM;
	for (i = 0; i < n; i++, m++) {
		uint32_t p = c->ps_path[i];

		iotape__path_state__init(m);
		if (p == 1 && next_name(&c->ps_names, &off_n, &m->path))
			return IOT_E_CORRUPT;
		if (p >= 2) {
			if (p - 2 >= c->n_strings)
				return IOT_E_CORRUPT;
			m->path = c->strings[p - 2];
		}
		m->has_path = p != 0;
		if (V(ps_target, i) > 1 ||
		    (V(ps_target, i) && next_name(&c->ps_targets, &off_t, &m->target)))
			return IOT_E_CORRUPT;
		m->has_target = V(ps_target, i) != 0;
		m->type = V(ps_type, i);
		m->size = V(ps_size, i);
		m->mode = V(ps_mode, i);
		m->uid = V(ps_uid, i);
		m->gid = V(ps_gid, i);
		at += (uint64_t)V(ps_atime, i);
		m->atime_ns = (int64_t)at;
		m->mtime_ns = (int64_t)(at + (uint64_t)V(ps_mtime, i));
		m->ctime_ns = (int64_t)((uint64_t)m->mtime_ns + (uint64_t)V(ps_ctime, i));
		m->nlink = V(ps_nlink, i);
		m->dev = V(ps_dev, i);
		ino += (uint64_t)V(ps_ino, i);
		m->ino = ino;
		t += (uint64_t)V(ps_t, i);
		m->t_ns = (int64_t)t;
		m->rdev = V(ps_rdev, i);
		m->flags = V(ps_flags, i);
		if ((m->flags & IOT_PS_SPARSE) && (rc = get_ranges(a, c, &off_d, m)))
			return rc;
		m->has_type = m->has_size = m->has_mode = m->has_uid = m->has_gid = 1;
		m->has_atime_ns = m->has_mtime_ns = m->has_ctime_ns = m->has_nlink = 1;
		m->has_dev = m->has_ino = m->has_t_ns = m->has_rdev = m->has_flags = 1;
		c->path_states[i] = m;
	}
	if (off_d != c->n_ps_data)
		return IOT_E_CORRUPT;
	c->n_path_states = n;
	return 0;
}
