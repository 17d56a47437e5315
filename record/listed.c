/*
 * listed.c - the directories the workload listed: the entries of each
 * that no call named, their states taken at the end (or early, when the
 * directories listed outgrow their share of the set's cap), flagged as
 * listed only, once per entry (names.c) and again under a renamed
 * directory's starting name (states.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rec.h"
#include "states_int.h"

/* The listed directories' share of --path-set-mb: a quarter. */
#define LISTED_SHARE 4

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
	const char *sp = rec_stat_path(c, l->path, spbuf, sizeof(spbuf));
	uint32_t physlen = 0;		/* rec_dir_fd_path()'s, once asked for */
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
		/* ... or named by a call otherwise (rec_entry_met()) */
		if (dsb.st_ino && nl <= ENTRY_KEY_MAX - 16) {
			r = rec_entry_add(c, dsb.st_dev, dsb.st_ino, de->d_name, (uint32_t)nl);
			if (r < 0) {
				closedir(d);
				return r;
			}
			if (r == 0)
				continue;
		}
		/* ... or named before its directory existed (entry_early()) */
		if (c->entries_early) {
			if (!physlen && !(physlen = rec_dir_fd_path(dirfd(d), phys, sizeof(phys))))
				physlen = UINT32_MAX;
			if (physlen != UINT32_MAX &&
			    rec_entry_early_met(c, phys, physlen, full + l->len, (uint32_t)(1 + nl)))
				continue;
		}
		ps.path = full;
		ps.path_len = (uint32_t)(l->len + 1 + nl);
		ps.t_ns = l->t_ns;
		ps.flags = IOT_PS_LISTED | (c->seen.last_again ? IOT_PS_AGAIN : 0);
		if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
			rec_state_from_stat(&ps, &sb);
		} else {
			ps.type = dtype_mode(de->d_type) & S_IFMT;
			ps.mode = dtype_mode(de->d_type) & 07777;
			ps.nlink = 1;
		}
		if (ps.type == S_IFLNK)
			rec_read_target(&ps, dirfd(d), de->d_name, target, sizeof(target));
		r = iot_writer_path_state(c->w, &ps);
		if (r == 0 && ps.target && sp == l->path)
			rec_start_link_note(c, full, ps.path_len, ps.target, ps.target_len);
		if (r == 0 && c->n_moves)
			r = rec_moved_origin(c, &ps, 0);
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
