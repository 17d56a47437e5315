/*
 * states_int.h - what states.c (a path's state, taken once), names.c
 * (which names are one entry; which directories on a path are symlinks)
 * and listed.c (the entries of listed directories) share.
 */
#ifndef IOT_REC_STATES_INT_H
#define IOT_REC_STATES_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "rec.h"

/* ---- names.c ---- */
/* an entry's key in the set of entries: its directory's device and
 * inode, then its name */
#define ENTRY_KEY_MAX (16 + 256)

/* lstat() of @p, also past PATH_MAX; @attr (if not NULL): its
 * attribute flags of IOT_PS_ATTR_FLAGS, which statx() gives with the rest */
int rec_lstat_long(const char *p, struct stat *sb, uint32_t *attr);
/* statx()'s attributes of @sx as chattr's flags (IOT_PS_ATTR_FLAGS) */
uint32_t rec_statx_attr(const struct statx *sx);
/* the path to lstat for recorded path @p ("NAME/.." cleaned where NAME
 * is no symlink): @p itself, or @buf */
const char *rec_stat_path(struct rec_ctx *ctx, const char *p, char *buf, size_t cap);
/* entry @name (@nl bytes) of directory @dev/@ino into the set of
 * entries: rec_pset_add()'s return */
int rec_entry_add(struct rec_ctx *c, uint64_t dev, uint64_t ino, const char *name,
	      uint32_t nl);
/* the path of the directory open at @fd, as the kernel names it, into
 * @buf: its length, or 0 */
uint32_t rec_dir_fd_path(int fd, char *buf, size_t cap);
/* whether entry @name ("/NAME") of directory @dir, as rec_dir_fd_path() names
 * it, was met before the directory existed */
int rec_entry_early_met(struct rec_ctx *c, const char *dir, uint32_t dl, const char *name,
		    uint32_t nl);
/* 1 if the entry of @p (@sp: rec_stat_path()'s) was met under another name,
 * 0 if not (now it is), -ENOMEM */
int rec_entry_met(struct rec_ctx *c, const char *p, const char *sp);

/* ---- states.c ---- */
/* @ps's attributes from lstat() @sb */
void rec_state_from_stat(struct iot_path_state *ps, const struct stat *sb);
/* the target of symlink @path (relative to @dirfd) into @buf, for @ps */
void rec_read_target(struct iot_path_state *ps, int dirfd, const char *path, char *buf,
		 size_t cap);
/* @ps written again under its name before the renames that moved it,
 * if that name is new: 0 or -errno */
int rec_moved_origin(struct rec_ctx *c, const struct iot_path_state *ps, int depth);

#endif
