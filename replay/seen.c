/*
 * seen.c - what a read's byte count shows of the writes around it, for
 * deps_seen.c's rpl_pull_seen(): the offset each read and write of a file's data
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
 * its end, came after the read, which entered before that end; and if
 * the file is longer than X+N, the pending truncate (an open with
 * O_TRUNC) that cuts it so short came before the read (a status file
 * rewritten while another process reads it, read empty).  An
 * access and a chmod likewise, by the file's mode as the chmods ordered
 * so far leave it: a watcher's access(X_OK) woken by another process's
 * chmod 0755 was replayed before it (EACCES).  And a directory's
 * listing and the names made and removed in it, by the bytes its getdents
 * calls return in all, and whether a name is there (below): an open with
 * O_CREAT of a file made before makes no name, and a look-up that found
 * the file does not show that it came after that open (deps.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "rpl.h"

#define SEEN_ROWS 512		/* syscall numbers kept (x86_64's are below) */

struct rpl_seen {
	uint64_t *pos;			/* by open file id: position << 1 | O_APPEND */
	size_t n_pos;
	struct file_st *f;		/* by path key: open addressing */
	size_t cap_f, n_f;
	uint32_t made;			/* the last name made (file_st.made) */
	struct seen_row {		/* by syscall number */
		uint8_t kind;		/* row_kind() */
		int8_t flags, off;	/* its open flags' argument, its offset's */
	} row[SEEN_ROWS];
};

/* A file's size (a directory's: its listing's bytes) and mode, and
 * whether its name is there, as the ops ordered so far left them, in one
 * slot of a table by its path key: one cache line a look-up, where a map
 * to each was two, and an unlink, which changes both, made the plan 20 %
 * slower. */
struct file_st {
	uint32_t k[2];			/* the key, 4-aligned; 0: empty */
	uint32_t mode;			/* MODE_*; 0: not known */
	uint32_t made;			/* MADE_*, or when its name was made (name_there()) */
	int64_t size;			/* SIZE_START, or -1: not known */
};
#define MADE_START 0		/* as when the recording began */
#define MADE_GONE 1		/* removed */
/* as when the recording began (a file's: its path state's) */
#define SIZE_START INT64_MIN
#define MODE_START 0x80000u

/* A file's mode as kept: its 07777 bits, and */
#define MODE_REG 0x10000u	/* a regular file */
#define MODE_MOST 0x20000u	/* at most those bits: a create's, less a mask */
#define MODE_MAYBE 0x40000u	/* ... unless the file was there at the start */

/* What a call of row @sc does to a file's data, mode or names, as this
 * file follows them (RPL_DATA_OPEN: either open, RPL_DATA_ACCESS: also
 * where it failed); kept per syscall number, as every op asks */
static int row_kind(const struct iot_syscall *sc)
{
	if (sc->cls == IOT_CLASS_METADATA && iot_syscall_arg(sc, IOT_ARG_ACCESS_MODE) >= 0)
		return RPL_DATA_ACCESS;
	if (sc->flags & IOT_SCF_COUNT) {
		if (sc->cls == IOT_CLASS_READ && (sc->flags & IOT_SCF_READ))
			return RPL_DATA_READ;
		if (sc->cls == IOT_CLASS_WRITE && iot_syscall_wbuf(sc) >= 0)
			return RPL_DATA_WRITE;
		if (sc->cls == IOT_CLASS_DIRECTORY && (sc->flags & IOT_SCF_READ))
			return RPL_DATA_LIST;
		return RPL_DATA_NONE;
	}
	if ((sc->flags & IOT_SCF_RETFD) && (sc->flags & IOT_SCF_NAMES))
		return RPL_DATA_OPEN;
	if (sc->flags & IOT_SCF_NAMES)
		return RPL_DATA_NAME;
	if (sc->cls == IOT_CLASS_METADATA && iot_syscall_arg(sc, IOT_ARG_MODE) >= 0)
		return RPL_DATA_CHMOD;
	/* truncate(path, length), ftruncate(fd, length) */
	if (sc->flags & IOT_SCF_WRITE)
		return sc->nargs == 2 && sc->arg[1] == IOT_ARG_OFF ? RPL_DATA_TRUNC : RPL_DATA_NONE;
	if (sc->cls == IOT_CLASS_OTHER && iot_syscall_arg(sc, IOT_ARG_WHENCE) >= 0)
		return RPL_DATA_SEEK;
	return RPL_DATA_NONE;
}

/* What @op does to a file's data, mode or names (RPL_DATA_*) */
static int data_kind(const struct rpl_seen *s, const struct rpl_op *op)
{
	const struct seen_row *r;
	int kind;

	if (op->ev.nr < 0 || op->ev.nr >= SEEN_ROWS)
		return RPL_DATA_NONE;
	r = &s->row[op->ev.nr];
	kind = r->kind;
	/* a failed call did nothing, an access answered something else */
	if (!kind || (op->ev.ret < 0 && (kind != RPL_DATA_ACCESS || op->ev.ret != -EACCES)))
		return RPL_DATA_NONE;
	if (kind == RPL_DATA_OPEN && (r->flags < 0 || (op->ev.args[r->flags] & O_CREAT)))
		kind = RPL_DATA_CREATE;
	return op->ev.path && op->ev.path[0] == '/' ? kind : RPL_DATA_NONE;
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
	struct rpl_seen *s = calloc(1, sizeof(struct rpl_seen));
	const struct iot_syscall *t;
	size_t i, n;

	if (!s)
		return NULL;
	s->made = MADE_GONE;
	t = iot_syscall_table(&n);
	for (i = 0; i < n; i++) {
		struct seen_row *r;

		if (t[i].nr < 0 || t[i].nr >= SEEN_ROWS)
			continue;
		r = &s->row[t[i].nr];
		r->kind = (uint8_t)row_kind(&t[i]);
		r->flags = (int8_t)rpl_open_flags_arg(&t[i]);
		r->off = (int8_t)iot_syscall_arg(&t[i], IOT_ARG_OFF);
	}
	return s;
}

void rpl_seen_free(struct rpl_seen *s)
{
	if (!s)
		return;
	free(s->pos);
	rpl_table_free(s->f, s->cap_f * sizeof(*s->f));
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
	int kind = data_kind(s, op);
	const struct seen_row *r;
	uint64_t *pos = NULL;
	uint32_t j;

	*at = RPL_AT_NONE;
	if (!kind || !file_key(keys, nk))
		return RPL_DATA_NONE;
	if (kind == RPL_DATA_TRUNC || kind == RPL_DATA_ACCESS || kind == RPL_DATA_CHMOD ||
	    kind == RPL_DATA_NAME)
		return kind;
	/* the open file: a read's, a write's; the one an open makes (an
	 * open of a descriptor's link looks at the old one first) */
	for (j = 0; j < nk; j++)
		if ((keys[j] & RPL_KEY_RES) && !(keys[j] & (RPL_KEY_PIPE | RPL_KEY_LOOK)))
			break;
	if (j == nk)	/* (an open's keys full: its name made still counts) */
		return kind == RPL_DATA_CREATE ? kind : RPL_DATA_NONE;
	if (!(pos = pos_of(s, (uint32_t)(keys[j] >> 32))))
		return -ENOMEM;
	r = &s->row[op->ev.nr];
	switch (kind) {
	case RPL_DATA_OPEN: case RPL_DATA_CREATE:
		*pos = r->flags >= 0 && (op->ev.args[r->flags] & O_APPEND);
		return kind;
	case RPL_DATA_SEEK:
		*pos = (uint64_t)op->ev.ret << 1 | (*pos & 1);
		return kind;
	}
	if (r->off >= 0) {
		*at = op->ev.args[r->off] >= 0 ? op->ev.args[r->off] : RPL_AT_NONE;
		return kind;
	}
	*at = kind == RPL_DATA_WRITE && (*pos & 1) ? RPL_AT_END : (int64_t)(*pos >> 1);
	*pos += (uint64_t)op->ev.ret << 1;
	return kind;
}

/* The state of path key @k, or NULL: as when the recording began */
static struct file_st *file_find(const struct rpl_seen *s, uint64_t k)
{
	uint64_t x;
	size_t i;

	if (!s->cap_f)
		return NULL;
	for (i = rpl_slot_first(k, s->cap_f); (x = rpl_slot_key(s->f[i].k));
	     i = (i + 1) & (s->cap_f - 1))
		if (x == k)
			return &s->f[i];
	return NULL;
}

/* The state of path key @k, made (as when the recording began) if it has
 * none (NULL: out of memory); valid until the next one is made */
static struct file_st *file_make(struct rpl_seen *s, uint64_t k)
{
	struct file_st *n, *f = file_find(s, k);
	size_t i, j, cap;

	if (f)
		return f;
	if ((s->n_f + 1) * 2 > s->cap_f) {
		cap = s->cap_f ? s->cap_f * 2 : 1024;
		if (!(n = rpl_table_new(cap * sizeof(*n))))
			return NULL;
		for (i = 0; i < s->cap_f; i++) {
			if (!rpl_slot_key(s->f[i].k))
				continue;
			for (j = rpl_slot_first(rpl_slot_key(s->f[i].k), cap); rpl_slot_key(n[j].k);
			     j = (j + 1) & (cap - 1))
				;
			n[j] = s->f[i];
		}
		rpl_table_free(s->f, s->cap_f * sizeof(*s->f));
		s->f = n;
		s->cap_f = cap;
	}
	for (i = rpl_slot_first(k, s->cap_f); rpl_slot_key(s->f[i].k); i = (i + 1) & (s->cap_f - 1))
		;
	f = &s->f[i];
	memcpy(f->k, &k, sizeof(k));
	f->mode = MODE_START;
	f->made = MADE_START;
	f->size = SIZE_START;
	s->n_f++;
	return f;
}

/* The size of the file @op names by its path (key @k, its state @f if
 * known) as the ops ordered so far left it: its starting size until one
 * of them changed it (-1: not known, a name renamed or linked there) */
static int64_t size_of(const struct rpl_plan *p, const struct rpl_seen *s,
		       const struct rpl_op *op, uint64_t k, const struct file_st *f)
{
	const struct iot_path_state *ps;

	if ((f || (f = file_find(s, k))) && f->size != SIZE_START)
		return f->size;
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
 * left it (MODE_*), or 0: not known (its name removed or replaced since:
 * kept as 0) */
static uint32_t mode_of(const struct rpl_plan *p, const struct rpl_seen *s,
			const struct rpl_op *op, uint64_t k)
{
	const struct file_st *f = file_find(s, k);
	const struct iot_path_state *ps;
	uint32_t v = f ? f->mode : MODE_START;

	if (!(v & (MODE_START | MODE_MAYBE)))
		return v;
	ps = rpl_path_state(p, op->ev.path);
	if (!ps || !ps->type)
		return v & ~(MODE_START | MODE_MAYBE);
	return (ps->mode & 07777) | (S_ISREG(ps->type) ? MODE_REG : 0);
}

/* Chmod @op (@flags_arg < 0), or the open of @op with O_CREAT whose
 * flags are its argument @flags_arg, gives the file @op names (key @k)
 * its mode: a chmod its own; an open one no larger than its argument
 * (less the process's mask), and only where no mode is kept yet and the
 * file was not there when the recording began (asked when the mode is:
 * most files made are never chmod-ed).  @return : 0 or -ENOMEM. */
static int mode_set(const struct rpl_plan *p, struct rpl_seen *s, const struct rpl_op *op,
		    uint64_t k, int flags_arg)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);
	int a = iot_syscall_arg(sc, IOT_ARG_MODE);
	struct file_st *f;
	uint32_t v;

	if (a < 0)
		return 0;
	if (flags_arg >= 0 || op->ev.nr == SYS_creat) {
		/* openat2's mode is in its struct open_how */
		if (iot_syscall_arg(sc, IOT_ARG_OPENHOW) >= 0)
			return 0;
		if (!(f = file_make(s, k)))
			return -ENOMEM;
		/* a name removed (0) was made anew; MODE_START: it may have
		 * been there */
		if (f->mode == MODE_START)
			f->mode = ((uint32_t)op->ev.args[a] & 07777) | MODE_REG | MODE_MOST |
				  MODE_MAYBE;
		else if (!f->mode)
			f->mode = ((uint32_t)op->ev.args[a] & 07777) | MODE_REG | MODE_MOST;
		return 0;
	}
	v = ((uint32_t)op->ev.args[a] & 07777) | (mode_of(p, s, op, k) & MODE_REG);
	if (!(f = file_make(s, k)))
		return -ENOMEM;
	f->mode = v;
	return 0;
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

/*
 * A directory's listing: the bytes its getdents calls return in all,
 * which are the same on any filesystem for the same names (a dirent64
 * record's length depends on its name's alone: listings.c), kept in the
 * size map under the directory's key where known: from its mkdir on (".."
 * and "." only), with each name made or removed since.  Whether an open
 * with O_CREAT but not O_EXCL made its name, or a rename replaced one,
 * is known where the name is: each name made is stamped with a count of
 * the names made so far (file_st.made), so that one made before its
 * directory was made anew (a mkdir, a rename onto it) is not taken for
 * one there (a name that git-annex's transfer files get again and again,
 * made by open(O_CREAT) and removed, while another process lists the
 * directory).  A change that may have made no name and whose name is not
 * known, a rename or link from or into a directory not known, forget it:
 * it is known only as far as every change is.
 */
#define DIR_NEW 48		/* "." and ".." */
#define DELTA_UNKNOWN INT64_MIN

/* Is the name of key @k, in the directory of key @pk, there as the ops
 * ordered so far left it (1), not (0), or not known (-1: as when the
 * recording began, or its directory made anew by a rename)? */
static int name_there(const struct rpl_seen *s, uint64_t k, uint64_t pk)
{
	const struct file_st *f = file_find(s, k), *d = pk ? file_find(s, pk) : NULL;
	uint32_t m = f ? f->made : MADE_START;

	if (m == MADE_GONE)
		return 0;
	/* its directory made since: by a mkdir (its listing known from
	 * then on), empty */
	if (d && d->made > m)
		return d->size >= 0 ? 0 : -1;
	return m != MADE_START ? 1 : -1;
}

/* Does name change @op (kind @kind) make its name in its directory (1),
 * remove it (-1), or either (0: not known, or two names)? */
static int name_sign(const struct rpl_seen *s, const struct rpl_op *op, int kind)
{
	int i;

	if (kind == RPL_DATA_CREATE) {
		i = s->row[op->ev.nr].flags;
		return i >= 0 && (op->ev.args[i] & O_EXCL);
	}
	switch (op->ev.nr) {
	case SYS_mkdir: case SYS_mkdirat: case SYS_mknod: case SYS_mknodat:
	case SYS_symlink: case SYS_symlinkat:
		return 1;
	case SYS_unlink: case SYS_unlinkat: case SYS_rmdir:
		return -1;
	}
	return 0;
}

/* The bytes of the record of @path's last name in a listing (a
 * dirent64's: its name's length and 20, to 8) */
static int64_t name_bytes(const char *path)
{
	size_t end, start = rpl_last_name(path, strlen(path), &end);

	return (int64_t)((19 + (end - start) + 1 + 7) & ~(size_t)7);
}

/* The second name @op makes (a rename's, a link's), or NULL */
static const char *second_name(const struct rpl_op *op)
{
	return op->ev.path2 && iot_syscall_arg(iot_syscall_by_nr(op->ev.nr), IOT_ARG_PATH2) >= 0 ?
	       op->ev.path2 : NULL;
}

/* The bytes name change @op (kind @kind; the key of its path @k, 0: not
 * yet hashed, and of its directory @pk) adds to the listing of the
 * directory of key @dk, as the ops ordered so far leave the names there
 * (DELTA_UNKNOWN: not known).  A rename or link: each of its names whose
 * directory is @dk. */
static int64_t list_delta(const struct rpl_seen *s, const struct rpl_op *op, int kind,
			  uint64_t k, uint64_t pk, uint64_t dk)
{
	int d = name_sign(s, op, kind), i, t;
	int64_t v = 0;
	uint64_t k2, pk2;
	size_t nl;

	if (d || kind == RPL_DATA_CREATE) {
		i = s->row[op->ev.nr].flags;
		/* (creat() has none: O_CREAT alone; openat2's: not known) */
		if (!d && ((i < 0 && op->ev.nr != SYS_creat) ||
			   iot_syscall_arg(iot_syscall_by_nr(op->ev.nr), IOT_ARG_OPENHOW) >= 0))
			return DELTA_UNKNOWN;
		if (!d && (t = name_there(s, k ? k : rpl_path_key(op->ev.path), pk)) != 0)
			return t > 0 ? 0 : DELTA_UNKNOWN;
		return pk == dk ? (d < 0 ? -1 : 1) * name_bytes(op->ev.path) : 0;
	}
	if (!second_name(op) ||
	    (op->ev.nr == SYS_renameat2 && (op->ev.args[4] & ~RENAME_NOREPLACE)))
		return op->ev.nr == SYS_renameat2 && op->ev.args[4] == RENAME_EXCHANGE ?
		       0 : DELTA_UNKNOWN;
	/* rename (from @pk to @pk2), link (into @pk2) */
	k2 = rpl_path_key(op->ev.path2);
	if ((k ? k : rpl_path_key(op->ev.path)) == k2)
		return 0;
	pk2 = rpl_parent_key(op->ev.path2, &nl);
	t = op->ev.nr == SYS_link || op->ev.nr == SYS_linkat ? 2 : 1;
	if (t == 1 && pk == dk)
		v -= name_bytes(op->ev.path);
	if (pk2 != dk)
		return v;
	/* a link's name, and a rename's with RENAME_NOREPLACE, was not
	 * there; a rename's may have been */
	if (t == 1 && op->ev.nr == SYS_renameat2 && op->ev.args[4])
		t = 0;
	if (t == 1 && (t = name_there(s, k2, pk2)) < 0)
		return DELTA_UNKNOWN;
	return t == 1 ? v : v + name_bytes(op->ev.path2);
}

/* The listing bytes of the directory of key @k, or -1: not known */
static int64_t dir_size(const struct rpl_seen *s, uint64_t k)
{
	const struct file_st *f = file_find(s, k);

	return f && f->size >= 0 ? f->size : -1;
}

/* The key of the directory of the name that op @keys (@nk of them), a
 * name change with a path, makes or removes: its second (plan_fds.c) */
static uint64_t dir_key(const uint64_t *keys, uint32_t nk)
{
	return nk > 1 ? keys[1] & ~RPL_KEY_HOW : 0;
}

/* The listing of directory @f (NULL: none kept), after name change @op
 * (kind @kind, keys as list_delta()'s) */
static void list_done(const struct rpl_seen *s, struct file_st *f, const struct rpl_op *op,
		      int kind, uint64_t k, uint64_t pk, uint64_t dk)
{
	int64_t v;

	if (f && f->size >= 0)
		f->size = (v = list_delta(s, op, kind, k, pk, dk)) != DELTA_UNKNOWN ?
			  f->size + v : -1;
}

/* Name change @op (kind @kind, keys @keys, its path's key @k) ordered:
 * the listings of its directories, whether its names are there, and the
 * size of what it names: a file made anew or removed (a later one is
 * made empty) 0, a directory made its "." and "..", what a rename, a
 * link, a removed directory name not known.  @return : 0 or -ENOMEM. */
static int names_done(struct rpl_seen *s, const struct rpl_op *op,
		      int kind, const uint64_t *keys, uint32_t nk, uint64_t k)
{
	uint64_t pk2 = 0, pk = dir_key(keys, nk);
	int d = name_sign(s, op, kind);
	struct file_st *f;
	size_t nl;
	int dir = op->ev.nr == SYS_mkdir || op->ev.nr == SYS_mkdirat || op->ev.nr == SYS_rmdir ||
		  (op->ev.nr == SYS_unlinkat && (op->ev.args[2] & AT_REMOVEDIR));

	/* its directories' listings, where known (asked before the names
	 * it makes are marked so) */
	list_done(s, pk ? file_find(s, pk) : NULL, op, kind, k, pk, pk);
	if (kind == RPL_DATA_NAME && second_name(op) &&
	    (pk2 = rpl_parent_key(op->ev.path2, &nl)) != pk)
		list_done(s, file_find(s, pk2), op, kind, k, pk, pk2);
	/* a create that may have found its file: its size and mode stay */
	if (!d && kind == RPL_DATA_CREATE) {
		if (!(f = file_make(s, k)))
			return -ENOMEM;
		f->made = ++s->made;
		return 0;
	}
	/* a file removed that has no state kept: none made (a long trace's
	 * unlinks made the plan 20 % slower, and so did asking each time
	 * whether the file was there at the start: one that was, removed
	 * and made again without O_TRUNC, keeps its starting size and mode) */
	if (d < 0 && !file_find(s, k))
		return 0;
	if (!(f = file_make(s, k)))
		return -ENOMEM;
	/* what a name removed or replaced had is not what comes there next */
	if (kind == RPL_DATA_NAME)
		f->mode = 0;
	if (d) {
		f->made = d > 0 ? ++s->made : MADE_GONE;
		f->size = d > 0 && dir ? DIR_NEW : d > 0 || !dir ? 0 : -1;
		return 0;
	}
	f->size = -1;
	if (!second_name(op))
		return 0;
	/* a rename's source is gone (but where it was its own target, or
	 * one exchanged), a link's stays; their target is there */
	if (op->ev.nr != SYS_link && op->ev.nr != SYS_linkat &&
	    !(op->ev.nr == SYS_renameat2 && (op->ev.args[4] & RENAME_EXCHANGE)))
		f->made = MADE_GONE;
	if (!(f = file_make(s, rpl_path_key(op->ev.path2))))
		return -ENOMEM;
	f->mode = 0;
	f->made = ++s->made;
	f->size = -1;
	return 0;
}

/* Did listing @op of @sc, at @at, read to the end of its directory (0
 * bytes, or room left for any name)? */
static int list_ended(const struct rpl_op *op, const struct iot_syscall *sc)
{
	int c = iot_syscall_arg(sc, IOT_ARG_SIZE);

	return op->ev.ret == 0 || (c >= 0 && op->ev.args[c] - op->ev.ret >= 280);
}

/* Whether listing @l (of @sl, at @at) of the directory of key @k shows
 * that name change @n (kind @kn, its path's key @nk, 0: not hashed yet)
 * there, pending, came first (@l_first 0) or that @l, pending, came
 * before @n (@l_first 1) */
static int list_order(const struct rpl_seen *s, uint64_t k, const struct rpl_op *l,
		      const struct iot_syscall *sl, int64_t at, const struct rpl_op *n, int kn,
		      uint64_t nk, int l_first)
{
	int64_t size, v, end = at + l->ev.ret;

	if (!k || (size = dir_size(s, k)) < 0 ||
	    (v = list_delta(s, n, kn, nk, k, k)) == DELTA_UNKNOWN || !v)
		return 0;
	if (l_first)
		return list_ended(l, sl) && end == size;
	/* it listed more than the directory has, or ended short of it */
	return v > 0 ? l->ev.ret > 0 && end > size : list_ended(l, sl) && end < size;
}

int rpl_seen_done(const struct rpl_plan *p, struct rpl_seen *s, const struct rpl_op *op,
		  const uint64_t *keys, uint32_t nk, int kind, int64_t at)
{
	struct file_st *f = NULL;
	uint64_t k;
	int64_t size, v;
	int i, err = 0;

	if (kind != RPL_DATA_WRITE && kind != RPL_DATA_TRUNC && kind != RPL_DATA_OPEN &&
	    kind != RPL_DATA_CREATE && kind != RPL_DATA_CHMOD && kind != RPL_DATA_NAME)
		return 0;
	k = file_key(keys, nk);
	if (kind == RPL_DATA_CHMOD)
		return mode_set(p, s, op, k, -1);
	if (kind == RPL_DATA_NAME)
		return names_done(s, op, kind, keys, nk, k);
	if (kind == RPL_DATA_OPEN || kind == RPL_DATA_CREATE) {
		/* creat() truncates */
		i = s->row[op->ev.nr].flags;
		if (keys[0] & RPL_KEY_LOOK)
			return 0;
		if (kind == RPL_DATA_CREATE &&
		    ((err = mode_set(p, s, op, k, i)) < 0 ||
		     (err = names_done(s, op, kind, keys, nk, k)) < 0))
			return err;
		if (i >= 0 && !(op->ev.args[i] & O_TRUNC))
			return 0;
		v = 0;
	} else if (kind == RPL_DATA_TRUNC) {
		v = op->ev.args[1];
	} else {
		if (at == RPL_AT_NONE)
			return 0;
		f = file_find(s, k);
		size = size_of(p, s, op, k, f);
		v = write_end(op, at, size);
		if (size < 0 || (f && f->size != SIZE_START && v <= size))
			return 0;
		if (v < size)	/* kept, so that the next write asks no more */
			v = size;
	}
	if (!f && !(f = file_make(s, k)))
		return -ENOMEM;
	f->size = v;
	return 0;
}

/* The size truncate @y (kind @ky) cuts its file to: an O_TRUNC open's 0
 * (creat() truncates), or -1: none */
static int64_t cut_to(const struct rpl_seen *s, const struct rpl_op *y, int ky)
{
	int i = s->row[y->ev.nr].flags;

	if (ky == RPL_DATA_TRUNC)
		return y->ev.args[1] >= 0 ? y->ev.args[1] : -1;
	if (ky != RPL_DATA_OPEN && ky != RPL_DATA_CREATE)
		return -1;
	return (i >= 0 ? (y->ev.args[i] & O_TRUNC) != 0 : y->ev.nr == SYS_creat) ? 0 : -1;
}

int rpl_seen_found(const struct rpl_seen *s, const struct rpl_op *op)
{
	size_t nl;
	int i;

	if (data_kind(s, op) != RPL_DATA_CREATE ||
	    ((i = s->row[op->ev.nr].flags) < 0 ? op->ev.nr != SYS_creat : (op->ev.args[i] & O_EXCL)) ||
	    iot_syscall_arg(iot_syscall_by_nr(op->ev.nr), IOT_ARG_OPENHOW) >= 0)
		return 0;
	return name_there(s, rpl_path_key(op->ev.path), rpl_parent_key(op->ev.path, &nl)) > 0;
}

int rpl_seen_first(const struct rpl_plan *p, const struct rpl_seen *s,
		   const struct rpl_op *x, const uint64_t *xkeys, uint32_t xnk, int kx,
		   int64_t xat, const struct rpl_op *y, int ky, int64_t yat)
{
	const struct iot_syscall *sy = iot_syscall_by_nr(y->ev.nr);
	uint64_t k = file_key(xkeys, xnk);
	int64_t size, v;
	int c;

	if (!k)
		return 0;
	if (kx == RPL_DATA_ACCESS && ky == RPL_DATA_CHMOD)
		return access_order(x, iot_syscall_by_nr(x->ev.nr), y, mode_of(p, s, x, k), 0);
	if (kx == RPL_DATA_CHMOD && ky == RPL_DATA_ACCESS)
		return access_order(y, sy, x, mode_of(p, s, x, k), 1);
	if (kx == RPL_DATA_LIST && (ky == RPL_DATA_NAME || ky == RPL_DATA_CREATE))
		return xat != RPL_AT_NONE &&
		       list_order(s, k, x, iot_syscall_by_nr(x->ev.nr), xat, y, ky, 0, 0);
	if ((kx == RPL_DATA_NAME || kx == RPL_DATA_CREATE) && ky == RPL_DATA_LIST)
		return yat != RPL_AT_NONE &&
		       list_order(s, dir_key(xkeys, xnk), y, sy, yat, x, kx, k, 1);
	if (kx == RPL_DATA_READ && xat != RPL_AT_NONE && (v = cut_to(s, y, ky)) >= 0) {
		/* @x met the end of the file short of the size it has: it
		 * came after @y cut it */
		c = iot_syscall_arg(iot_syscall_by_nr(x->ev.nr), IOT_ARG_SIZE);
		if (c < 0 || x->ev.ret >= x->ev.args[c])
			return 0;
		size = size_of(p, s, x, k, NULL);
		return v <= xat + x->ev.ret && xat + x->ev.ret < size;
	}
	if (xat == RPL_AT_NONE || yat == RPL_AT_NONE)
		return 0;
	if (kx == RPL_DATA_READ && ky == RPL_DATA_WRITE) {
		/* @x saw more of the file than it has: @y's bytes */
		if (x->ev.ret <= 0)
			return 0;
		size = size_of(p, s, x, k, NULL);
		return size >= 0 && size < xat + x->ev.ret && write_end(y, yat, size) > size;
	}
	if (kx == RPL_DATA_WRITE && ky == RPL_DATA_READ) {
		/* @y met the end of the file before @x made it longer */
		if ((c = iot_syscall_arg(sy, IOT_ARG_SIZE)) < 0 || y->ev.ret >= y->ev.args[c])
			return 0;
		size = size_of(p, s, x, k, NULL);
		return size >= 0 && yat + y->ev.ret <= size && write_end(x, xat, size) > size;
	}
	return 0;
}
