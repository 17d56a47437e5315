/*
 * rec_paths.h - the recorder's paths (included by rec.h): joining them,
 * the sets of paths met, the starting tree's states, names and symlinks,
 * the entries of listed directories.
 */
#ifndef REC_PATHS_H
#define REC_PATHS_H

#include <stddef.h>
#include <stdint.h>

struct rec_ctx;
struct rec_task;
struct rec_pre;
struct rec_pset_blk;

/* A set of paths (pathset.c): open addressing, keys of two hashes, no
 * strings but those asked to be kept (blocks that never move). */
struct rec_pset_key {
	uint64_t h, g;
};

struct rec_pset_ent {
	uint64_t h;
	uint64_t g;			/* 0: an empty slot; bit 0: REC_PSET_CLOSED,
					 * bit 1: used, bit 2: REC_PSET_REF */
};

/* Every "/"-prefix of the path is in the set too. */
#define REC_PSET_CLOSED 1u
/* Met since it was last looked at for forgetting (pathset.c, capped). */
#define REC_PSET_REF 4u

/* The set is split by the hash's top bits: each shard grows alone. */
#define REC_PSET_SHARD_BITS 8
#define REC_PSET_SHARDS (1u << REC_PSET_SHARD_BITS)

struct rec_pset_shard {
	struct rec_pset_ent *e;
	uint64_t cap, n;
};

struct rec_pathset {
	struct rec_pset_shard *sh;	/* REC_PSET_SHARDS of them */
	uint64_t cap, n;		/* slots and entries, all shards */
	uint64_t max_cap;		/* slots of a shard at most (0: no cap) */
	uint64_t forgot;		/* entries given up for room (capped) */
	uint64_t rnd;			/* where the next one is looked for */
	uint64_t again;			/* paths added that were forgotten before */
	int last_again;			/* so was the one rec_pset_add*() added */
	uint64_t *bloom;		/* the keys forgotten (bits; NULL: none yet) */
	uint64_t bloom_bits;
	struct rec_pset_blk *blk;	/* strings kept */
	char *mem;
	size_t left;
	/* what the set did, for the tests that hold its cost constant */
	uint64_t lookups, probes, hashed;
};

struct rec_listed {
	const char *path;		/* owned by listed_set */
	uint32_t len;
	int64_t t_ns;			/* its first listing */
};

/* ---- pathname.c: path joining ---- */
/* make @p absolute against @base (or the task's cwd), lexically;
 * @return : a malloc'd string (*@len set) or NULL */
char *rec_path_abs(const char *base, const char *p, uint32_t *len);
/* rec_path_abs() for @t: an absolute name it gives after a chroot() is
 * under the directory it made its root */
char *rec_task_path_abs(const struct rec_task *t, const char *base, const char *p,
			uint32_t *len);
/* the tracee's view of /proc/self/fd/N: @return : 1 if rewritten; *@self
 * (if not NULL): N where it is a descriptor of @t's own table, else -1 */
int rec_path_magic(struct rec_ctx *c, struct rec_task *t, char **p, uint32_t *len,
		   long *self);
/* 1 if @p lies in a pseudo filesystem (/proc, /sys, /dev), or in a FUSE
 * mount the workload made (rec_fuse_under()) */
int rec_path_skipped(const char *p);

/* ---- fuse_mounts.c: FUSE mounts made while recording ---- */
/* the FUSE mounts there before the program starts: not the workload's */
void rec_fuse_baseline(void);
/* read the mount table again: at the workload's mount() */
void rec_fuse_scan(void);
/* 1 if @p is on a FUSE mount made since rec_fuse_baseline(): its daemon
 * may be a followed process, and a look at @p waits for it */
int rec_fuse_under(const char *p);
/* the same, the table read again first if it changed (a poll(): before
 * a look at @p, not for every path a call names) */
int rec_fuse_under_now(const char *p);
/* how many such mounts were found */
int rec_fuse_made(void);
/* 1 if mountinfo @line is a FUSE mount's: *@id (if not NULL) its mount
 * ID, @mp (REC_FUSE_MP bytes) its mount point, unescaped */
#define REC_FUSE_MP 4096
int rec_fuse_line(char *line, int *id, char *mp);

/* ---- mount_ns.c: states taken in the workload's mount namespace ---- */
/* where to look at the state of @p (cleaned: rec_stat_path()) for the
 * task whose call named it (c->state_task): @p itself where that is
 * the recorder's namespace (or not known), else @buf, @p under that
 * task's root in its own namespace */
const char *rec_ns_path(struct rec_ctx *c, const char *p, char *buf, size_t cap);
/* @t may have changed its namespace or root: look again */
void rec_ns_forget(struct rec_task *t);
/* tasks gone before their namespace was known (their states taken as
 * the recorder sees the paths) */
uint64_t rec_ns_gone(void);
void rec_ns_free(void);

/* ---- pathset.c: sets of paths ---- */
int rec_pset_init(struct rec_pathset *s);
/* at most @bytes of table (0: no cap); past it, a new path takes the
 * place of one not met lately (random draws, a second chance), counted
 * in @s->forgot; a forgotten path is new again, and counted in
 * @s->again when added */
void rec_pset_cap(struct rec_pathset *s, uint64_t bytes);
void rec_pset_free(struct rec_pathset *s);
/* the set's key of @p */
struct rec_pset_key rec_pset_hash(struct rec_pathset *s, const char *p, uint32_t n);
/* 1 if @p (@n bytes) is in the set, else 0 (also once forgotten) */
int rec_pset_has(struct rec_pathset *s, const char *p, uint32_t n);
/* add @p (@n bytes, key @k) with @flags (or them into its entry)
 * @return : 1 if new (*@kept, when asked: a copy of @p kept with the
 * set; @s->last_again: it was forgotten before), 0 if it was there,
 * -ENOMEM */
int rec_pset_add(struct rec_pathset *s, const char *p, uint32_t n, struct rec_pset_key k,
		 uint32_t flags, const char **kept);
/* an ancestor of the path being added is new: its first @len bytes, with
 * @below '/' from there to the end.  @return : 0 or -errno */
typedef int rec_pset_anc_fn(void *arg, uint32_t len, uint32_t below);
/* add path @p and its "/"-prefixes; @anc is called for each prefix new
 * to the set, root to leaf, before it returns.  Two passes over @p and
 * three lookups when the parent is there already, at any depth.
 * @return : 1 if @p was new (@s->last_again as rec_pset_add()'s), 0 if
 * it was there, -errno */
int rec_pset_add_path(struct rec_pathset *s, const char *p, uint32_t n, rec_pset_anc_fn *anc,
		      void *arg);

/* ---- states.c: path states ---- */
/* A rename of @from (@flen bytes) to @to succeeded at @t_ns: if @to is now a
 * directory, a path first named under it later existed under @from at
 * the start (its state is taken there too: states.c). */
void rec_dir_moved(struct rec_ctx *c, const char *from, uint32_t flen, const char *to,
		   uint32_t tlen, int64_t t_ns);

/* take the PathState of @p and its ancestors the first time each is met;
 * @pre: the leaf's state as the program saw it before the call (fast
 * path), NULL: lstat it now */
int rec_path_state(struct rec_ctx *c, const char *p, uint32_t len,
		   const struct rec_pre *pre);
/* the workload made symlink @link to @target: the state of what it
 * points to (of what that points to, ...), met through it, not named;
 * @link kept, for the names met through it later */
int rec_link_made(struct rec_ctx *c, const char *link, const char *target);

/* ---- names.c: which names are one; the sets of names met ---- */
/* a call that can make a name a symlink (rename, link, symlink) worked */
void rec_names_changed(struct rec_ctx *c);
/* The length of the path a descriptor opened at @p ("X/NAME/..") names:
 * that of X when NAME is not a symlink now (a removed one was a
 * directory), else @len. */
uint32_t rec_dotdot_len(struct rec_ctx *c, const char *p, uint32_t len);
/* 1 if the @n bytes at @p (NUL-terminated there) are a symlink now
 * (asked again after rec_names_changed()) */
int rec_is_symlink(struct rec_ctx *c, const char *p, size_t n);
int rec_seen_init(struct rec_ctx *c);
void rec_seen_free(struct rec_ctx *c);

/* ---- listed.c: the entries of listed directories ---- */
/* The workload listed directory @p (a getdents call returned entries). */
int rec_dir_listed(struct rec_ctx *c, const char *p, uint32_t len, int64_t t_ns);
/* At the end: a state (IOT_PS_LISTED) for each entry of a listed
 * directory that no call named.  @return : how many, or -errno. */
int64_t rec_take_listed(struct rec_ctx *c);

/* ---- start_links.c: the starting tree's symlinks ---- */
/* a state written says @p (@plen bytes, cleaned of "." and "..") is a
 * symlink to @target: kept, if it is @p's first */
void rec_start_link_note(struct rec_ctx *c, const char *p, uint32_t plen, const char *target,
			 uint32_t tlen);
/* @p as the starting tree resolved it, where it goes through a symlink
 * kept by rec_start_link_note() that the workload has changed since
 * @return : that path, malloc'd (*@n its length), or NULL (none such: @p
 * names what it named then, or no memory) */
char *rec_start_path(struct rec_ctx *c, const char *p, uint32_t *n);
void rec_start_links_free(struct rec_ctx *c);

#endif
