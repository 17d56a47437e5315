/*
 * seen.c - what a read's byte count shows of the writes around it, for
 * deps.c's pull_seen(): the offset each read and write of a file's data
 * was at (its open file's position, followed in entry order: a thread's
 * calls on its descriptor come one after the other), and the file's
 * size as the writes ordered so far leave it.
 *
 * Calls on one file are ordered by their ends (deps.c), and a recorder
 * that takes a call's end in the program after the call returned (the
 * ptrace backend's in-process path) can have the end of a write come
 * after the reads its data woke: `tail -f` of a log that `echo >> log`
 * appends to read the line 20-380 us before the append's recorded end,
 * and the replay read before the append (0 bytes, 1-14 a replay).  A
 * read that returned N bytes at offset X saw the file at least X+N long:
 * the writes of other threads still pending that make it so long came
 * first.  And the other way round (a reader spinning on another CPU): a
 * read that returned fewer bytes than it asked met the end of the file
 * at X+N; a write that makes the file longer than that, ordered first by
 * its end, came after the read, which entered before that end.  An
 * access and a chmod likewise, by the file's mode as the chmods ordered
 * so far leave it: a watcher's access(X_OK) woken by another process's
 * chmod 0755 was replayed before it (EACCES).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "rpl.h"

struct rpl_seen {
	uint64_t *pos;			/* by open file id: position << 1 | O_APPEND */
	size_t n_pos;
	struct rpl_map size;		/* a file's path key -> its index in sz */
	int64_t *sz;
	size_t n_sz, cap_sz;
	struct rpl_map mode;		/* a file's path key -> its mode (MODE_*) */
};

/* A file's mode as kept: its 07777 bits, and */
#define MODE_REG 0x10000u	/* a regular file */
#define MODE_MOST 0x20000u	/* at most those bits: a create's, less a mask */

/* What @op (row @sc) does to a file's data, as this file follows it */
static int data_kind(const struct rpl_op *op, const struct iot_syscall *sc)
{
	int kind = RPL_DATA_NONE;

	/* the row first: most calls (a stat) are none of these, and their
	 * path need not be read */
	if (!sc)
		return RPL_DATA_NONE;
	if (sc->cls == IOT_CLASS_METADATA && (op->ev.ret == 0 || op->ev.ret == -EACCES) &&
	    iot_syscall_arg(sc, IOT_ARG_ACCESS_MODE) >= 0)
		kind = RPL_DATA_ACCESS;
	else if (op->ev.ret < 0)
		return RPL_DATA_NONE;
	else if (sc->flags & IOT_SCF_COUNT) {
		if (sc->cls == IOT_CLASS_READ && (sc->flags & IOT_SCF_READ))
			kind = RPL_DATA_READ;
		else if (sc->cls == IOT_CLASS_WRITE && iot_syscall_wbuf(sc) >= 0)
			kind = RPL_DATA_WRITE;
	} else if ((sc->flags & IOT_SCF_RETFD) && (sc->flags & IOT_SCF_NAMES)) {
		kind = RPL_DATA_OPEN;
	} else if (sc->cls == IOT_CLASS_METADATA && !(sc->flags & IOT_SCF_NAMES) &&
		   iot_syscall_arg(sc, IOT_ARG_MODE) >= 0) {
		kind = RPL_DATA_CHMOD;
	} else if (sc->flags & IOT_SCF_WRITE) {
		/* truncate(path, length), ftruncate(fd, length) */
		if (sc->nargs == 2 && sc->arg[1] == IOT_ARG_OFF)
			kind = RPL_DATA_TRUNC;
	} else if (sc->cls == IOT_CLASS_OTHER && iot_syscall_arg(sc, IOT_ARG_WHENCE) >= 0) {
		kind = RPL_DATA_SEEK;
	}
	return kind && op->ev.path && op->ev.path[0] == '/' ? kind : RPL_DATA_NONE;
}

/* The file key of @keys (@nk of them) of an op with a path: its first,
 * unless that is a pipe's or an open file's (0: none) */
static uint64_t file_key(const uint64_t *keys, uint32_t nk)
{
	if (!nk || (keys[0] & (RPL_KEY_RES | RPL_KEY_PIPE)))
		return 0;
	return keys[0] & ~RPL_KEY_HOW;
}

struct rpl_seen *rpl_seen_new(void)
{
	return calloc(1, sizeof(struct rpl_seen));
}

void rpl_seen_free(struct rpl_seen *s)
{
	if (!s)
		return;
	free(s->pos);
	free(s->sz);
	rpl_map_free(&s->size);
	rpl_map_free(&s->mode);
	free(s);
}

/* The position of open file @id, made (0) if it has none yet (NULL: out
 * of memory) */
static uint64_t *pos_of(struct rpl_seen *s, uint32_t id)
{
	uint64_t *v;
	size_t n;

	if (id >= s->n_pos) {
		n = s->n_pos ? s->n_pos : 1024;
		while (n <= id)
			n *= 2;
		if (!(v = realloc(s->pos, n * sizeof(*v))))
			return NULL;
		memset(v + s->n_pos, 0, (n - s->n_pos) * sizeof(*v));
		s->pos = v;
		s->n_pos = n;
	}
	return &s->pos[id];
}

int rpl_seen_add(struct rpl_seen *s, const struct rpl_op *op, const uint64_t *keys,
		 uint32_t nk, int64_t *at)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);
	int kind = data_kind(op, sc), oa, i;
	uint64_t *pos = NULL;
	uint32_t j;

	*at = RPL_AT_NONE;
	if (!kind || !file_key(keys, nk))
		return RPL_DATA_NONE;
	if (kind == RPL_DATA_TRUNC || kind == RPL_DATA_ACCESS || kind == RPL_DATA_CHMOD)
		return kind;
	/* the open file: a read's, a write's; the one an open makes (an
	 * open of a descriptor's link looks at the old one first) */
	for (j = 0; j < nk; j++)
		if ((keys[j] & RPL_KEY_RES) && !(keys[j] & (RPL_KEY_PIPE | RPL_KEY_LOOK)))
			break;
	if (j == nk)
		return RPL_DATA_NONE;
	if (!(pos = pos_of(s, (uint32_t)(keys[j] >> 32))))
		return -ENOMEM;
	switch (kind) {
	case RPL_DATA_OPEN:
		i = rpl_open_flags_arg(iot_syscall_by_nr(op->ev.nr));
		*pos = i >= 0 && (op->ev.args[i] & O_APPEND);
		return kind;
	case RPL_DATA_SEEK:
		*pos = (uint64_t)op->ev.ret << 1 | (*pos & 1);
		return kind;
	}
	if ((oa = iot_syscall_arg(sc, IOT_ARG_OFF)) >= 0) {
		*at = op->ev.args[oa] >= 0 ? op->ev.args[oa] : RPL_AT_NONE;
		return kind;
	}
	*at = kind == RPL_DATA_WRITE && (*pos & 1) ? RPL_AT_END : (int64_t)(*pos >> 1);
	*pos += (uint64_t)op->ev.ret << 1;
	return kind;
}

/* The size of the file @op names by its path (key @k) as the ops ordered
 * so far left it: its starting size until one of them changed it */
static int64_t size_of(const struct rpl_plan *p, const struct rpl_seen *s,
		       const struct rpl_op *op, uint64_t k, const uint32_t *ix)
{
	const struct iot_path_state *ps;

	if (ix || (ix = rpl_map_find(&s->size, k)))
		return s->sz[*ix];
	ps = rpl_path_state(p, op->ev.path);
	return ps && S_ISREG(ps->type) ? (int64_t)ps->size : 0;
}

/* Where write @op, at @at (RPL_AT_END: the end), ends in a file of size
 * @size */
static int64_t write_end(const struct rpl_op *op, int64_t at, int64_t size)
{
	return (at == RPL_AT_END ? size : at) + op->ev.ret;
}

/* The mode of the file @op names (key @k) as the ops ordered so far
 * left it (MODE_*), or 0: not known */
static uint32_t mode_of(const struct rpl_plan *p, const struct rpl_seen *s,
			const struct rpl_op *op, uint64_t k)
{
	const struct iot_path_state *ps;
	uint32_t v;

	if (rpl_map_get(&s->mode, k, &v))
		return v;
	ps = rpl_path_state(p, op->ev.path);
	if (!ps || !ps->type)
		return 0;
	return (ps->mode & 07777) | (S_ISREG(ps->type) ? MODE_REG : 0);
}

/* Chmod @op (@flags_arg < 0), or the open of @op with O_CREAT whose
 * flags are its argument @flags_arg, gives the file @op names (key @k)
 * its mode: a chmod its own; an open one no larger than its argument
 * (less the process's mask), and only where the file was not there when
 * the recording began and no mode is kept yet (it may have been made
 * before).  @return : 0 or -ENOMEM. */
static int mode_set(const struct rpl_plan *p, struct rpl_seen *s, const struct rpl_op *op,
		    uint64_t k, int flags_arg)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);
	int a = iot_syscall_arg(sc, IOT_ARG_MODE);
	uint32_t v = mode_of(p, s, op, k);

	if (a < 0)
		return 0;
	if (flags_arg >= 0 || op->ev.nr == SYS_creat) {
		/* openat2's mode is in its struct open_how */
		if (v || iot_syscall_arg(sc, IOT_ARG_OPENHOW) >= 0)
			return 0;
		v = ((uint32_t)op->ev.args[a] & 07777) | MODE_REG | MODE_MOST;
	} else {
		v = ((uint32_t)op->ev.args[a] & 07777) | (v & MODE_REG);
	}
	return rpl_map_put(&s->mode, k, v);
}

/* Could access @op (its row @sc) have given its answer with the file at
 * mode @v (MODE_*)?  Root as well as any user: X_OK needs an execute bit
 * (of a regular file: root may search any directory), and a class of
 * bits each set for its owner, group and others is never refused. */
static int access_could(const struct rpl_op *op, const struct iot_syscall *sc, uint32_t v)
{
	int a = iot_syscall_arg(sc, IOT_ARG_ACCESS_MODE);
	uint32_t want = (uint32_t)op->ev.args[a] & 7, b, all = 1;

	for (b = 1; b <= 4; b <<= 1) {
		if (!(want & b))
			continue;
		if (op->ev.ret == 0 && b == 1 && !(v & 0111))
			return 0;
		all &= (v & (b * 0111)) == b * 0111;
	}
	return op->ev.ret == 0 || !want || !all || (v & MODE_MOST);
}

/* Whether access @a (row @sa) shows that chmod @c, pending, came first
 * (@a_first 0), or that @a, pending, came before chmod @c (@a_first 1),
 * the file's mode now @v */
static int access_order(const struct rpl_op *a, const struct iot_syscall *sa,
			const struct rpl_op *c, uint32_t v, int a_first)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(c->ev.nr);
	int m = iot_syscall_arg(sc, IOT_ARG_MODE);
	uint32_t nv;

	if (!(v & MODE_REG) || m < 0)
		return 0;
	nv = ((uint32_t)c->ev.args[m] & 07777) | MODE_REG;
	if (a_first)
		return access_could(a, sa, v) && !access_could(a, sa, nv);
	return !access_could(a, sa, v) && access_could(a, sa, nv);
}

int rpl_seen_done(const struct rpl_plan *p, struct rpl_seen *s, const struct rpl_op *op,
		  const uint64_t *keys, uint32_t nk, int kind, int64_t at)
{
	uint64_t k;
	int64_t size, v;
	uint32_t *ix = NULL, n;
	int i, err = 0;

	if (kind != RPL_DATA_WRITE && kind != RPL_DATA_TRUNC && kind != RPL_DATA_OPEN &&
	    kind != RPL_DATA_CHMOD)
		return 0;
	k = file_key(keys, nk);
	if (kind == RPL_DATA_CHMOD)
		return mode_set(p, s, op, k, -1);
	if (kind == RPL_DATA_OPEN) {
		/* creat() truncates */
		i = rpl_open_flags_arg(iot_syscall_by_nr(op->ev.nr));
		if (keys[0] & RPL_KEY_LOOK)
			return 0;
		if ((i < 0 || (op->ev.args[i] & O_CREAT)) && (err = mode_set(p, s, op, k, i)) < 0)
			return err;
		if (i >= 0 && !(op->ev.args[i] & O_TRUNC))
			return 0;
		v = 0;
	} else if (kind == RPL_DATA_TRUNC) {
		v = op->ev.args[1];
	} else {
		if (at == RPL_AT_NONE)
			return 0;
		ix = rpl_map_find(&s->size, k);
		size = size_of(p, s, op, k, ix);
		v = write_end(op, at, size);
		if (v <= size)
			return 0;
	}
	if (ix || (ix = rpl_map_find(&s->size, k))) {
		s->sz[*ix] = v;
		return 0;
	}
	RPL_GROW(s->sz, s->n_sz, s->cap_sz);
	n = (uint32_t)s->n_sz++;
	s->sz[n] = v;
	if (rpl_map_put(&s->size, k, n) < 0)
		return -ENOMEM;
out:
	return err;
}

int rpl_seen_first(const struct rpl_plan *p, const struct rpl_seen *s,
		   const struct rpl_op *x, const uint64_t *xkeys, uint32_t xnk, int kx,
		   int64_t xat, const struct rpl_op *y, int ky, int64_t yat)
{
	const struct iot_syscall *sy = iot_syscall_by_nr(y->ev.nr);
	uint64_t k = file_key(xkeys, xnk);
	int64_t size;
	int c;

	if (!k)
		return 0;
	if (kx == RPL_DATA_ACCESS && ky == RPL_DATA_CHMOD)
		return access_order(x, iot_syscall_by_nr(x->ev.nr), y, mode_of(p, s, x, k), 0);
	if (kx == RPL_DATA_CHMOD && ky == RPL_DATA_ACCESS)
		return access_order(y, sy, x, mode_of(p, s, x, k), 1);
	if (xat == RPL_AT_NONE || yat == RPL_AT_NONE)
		return 0;
	if (kx == RPL_DATA_READ && ky == RPL_DATA_WRITE) {
		/* @x saw more of the file than it has: @y's bytes */
		if (x->ev.ret <= 0)
			return 0;
		size = size_of(p, s, x, k, NULL);
		return size < xat + x->ev.ret && write_end(y, yat, size) > size;
	}
	if (kx == RPL_DATA_WRITE && ky == RPL_DATA_READ) {
		/* @y met the end of the file before @x made it longer */
		if ((c = iot_syscall_arg(sy, IOT_ARG_SIZE)) < 0 || y->ev.ret >= y->ev.args[c])
			return 0;
		size = size_of(p, s, x, k, NULL);
		return yat + y->ev.ret <= size && write_end(x, xat, size) > size;
	}
	return 0;
}
