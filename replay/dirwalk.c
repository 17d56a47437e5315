/*
 * dirwalk.c - how much of a directory walk the replay makes in another
 * order than the filesystem under test lists the directory.
 *
 * A program that walks a tree (tar c, find, rm -r, du) reads a
 * directory's entries and takes them in the order the filesystem lists
 * them; the trace holds that order as the recording filesystem gave it.
 * ext4 lists by name hash, xfs and btrfs a small directory in the order
 * its entries were made, which is the order their data lies in when a
 * program wrote them one after the other: on xfs a native 'tar c' of a
 * tree 'cp -a' made reads it forward, and the replay of one recorded on
 * ext4 reads the same files in hash order, backwards half the time (cold,
 * +16 % for those reads alone, docs/VALIDATION.md).  The replay keeps the
 * recorded order (it is what the program did); it counts what it could
 * not model: of the files opened relative to a descriptor whose
 * directory this thread listed, those opened after one that the target
 * lists later.
 *
 * Per replaying thread, its own maps only: no lock.  A listed name is
 * kept as (recorded descriptor, name) -> its rank in the thread's
 * listings, up to DW_MAX_NAMES names; an open looks it up and compares
 * the rank with that of the last file opened under that descriptor.
 */
#include <dirent.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "rpl.h"

#define DW_MAX_NAMES (1u << 20)

struct rpl_dirwalk {
	struct rpl_map rank;		/* (fd, name) -> rank, from 1 */
	struct rpl_map last;		/* fd -> rank of the last file opened under it */
	uint32_t next;			/* ranks given so far */
};

static uint64_t name_key(int64_t fd, const char *name, size_t len)
{
	/* never 0, which the map keeps for an empty slot */
	return (iot_hash(name, len, 17) ^ ((uint64_t)fd * 0x9e3779b97f4a7c15ULL)) | 1;
}

void rpl_dirwalk_listed(struct rpl_thread *t, int64_t fd, const char *buf, int64_t len)
{
	struct rpl_dirwalk *w = t->dirwalk;
	int64_t off = 0;

	if (!w) {
		w = t->dirwalk = calloc(1, sizeof(*w));
		if (!w)
			return;
	}
	while (off + (int64_t)offsetof(struct dirent64, d_name) < len) {
		const struct dirent64 *d = (const struct dirent64 *)(buf + off);
		size_t n;

		if (d->d_reclen == 0 || off + d->d_reclen > len)
			break;
		n = strnlen(d->d_name, d->d_reclen - offsetof(struct dirent64, d_name));
		off += d->d_reclen;
		if ((n == 1 && d->d_name[0] == '.') ||
		    (n == 2 && d->d_name[0] == '.' && d->d_name[1] == '.'))
			continue;
		if (w->next >= DW_MAX_NAMES)
			return;
		if (rpl_map_put(&w->rank, name_key(fd, d->d_name, n), ++w->next) < 0)
			return;
	}
}

void rpl_dirwalk_opened(struct rpl_thread *t, int64_t fd, const char *path)
{
	struct rpl_dirwalk *w = t->dirwalk;
	size_t len, end, start;
	uint32_t r, prev = 0;

	if (!w || !path)
		return;
	len = strlen(path);
	start = rpl_last_name(path, len, &end);
	if (end <= start || !rpl_map_get(&w->rank, name_key(fd, path + start, end - start), &r))
		return;
	t->walk_opens++;
	if (rpl_map_get(&w->last, RPL_IK(fd), &prev) && r < prev)
		t->walk_back++;
	rpl_map_put(&w->last, RPL_IK(fd), r);
}

void rpl_dirwalk_free(struct rpl_thread *t)
{
	if (!t->dirwalk)
		return;
	rpl_map_free(&t->dirwalk->rank);
	rpl_map_free(&t->dirwalk->last);
	free(t->dirwalk);
	t->dirwalk = NULL;
}
