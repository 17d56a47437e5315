/*
 * bench.h - the filesystem matrix of iotape bench: configurations and the
 * set-up/tear-down of one loop filesystem.
 */
#ifndef BENCH_H
#define BENCH_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

struct bench_fs {
	const char *name;	/* configuration name, e.g. "ext3-journal" */
	const char *fstype;	/* for mount -t */
	const char *mkfs;	/* NULL for tmpfs */
	const char *mount_opts;
};

struct bench_config {
	char name[64];
	const struct bench_fs *fs;	/* NULL for --dir */
	const char *dir;		/* --dir DIR */
	const char *mkfs_extra, *mount_extra;
	int clients;			/* --clients: replay --clients N; 0 = one replay */
};

struct bench_opts {
	const char *trace;
	int runs;
	const char *scratch, *timing, *outdir, *html;
	const char *setup;		/* --setup CMD, run before prepare */
	char setup_dir[PATH_MAX];	/* the trace's working directory */
	int drop_caches, quiet;
	uint64_t image_size, need_bytes;
	uint64_t tree_bytes;		/* file data of the starting tree (all clients) */
	int max_clients;		/* the largest of --clients (1 without) */
	const char *events;		/* --events N, passed to replay (NULL: all) */
	struct bench_config configs[64];
	int n_configs;
};

/* What is live now, so any exit path can undo it. */
struct bench_live {
	char workdir[PATH_MAX / 2];		/* scratch/iotape-bench.PID */
	char image[PATH_MAX];		/* "" if none */
	char loopdev[64];		/* "" if none */
	char mnt[PATH_MAX];		/* "" if not mounted */
	char root[PATH_MAX];		/* where replay goes */
	int mounted, dir_root;
};

/* Configurations that failed without a profile, as diff --failed
 * arguments "NAME=WHY" (fail.c). */
#define BENCH_MAX_FAILS 64
struct bench_fails {
	int n;
	char arg[BENCH_MAX_FAILS][480];
};

/*! bench_fail_early() : whether configuration @c cannot work with the
 *  image size of @o (below its mkfs's minimum), with why in @why. */
int bench_fail_early(const struct bench_opts *o, const struct bench_config *c,
		     char *why, size_t len);
/*! bench_fail_note() : add "NAME=WHY" to @f. @return : 0 or -E2BIG. */
int bench_fail_note(struct bench_fails *f, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*! bench_fail_keep() : move the partial @profile of a replay a target
 *  fault stopped to OUTDIR/failed/ (its path into @moved), and copy its
 *  header's replay.failed ("ENOSPC at 41 % ...") into @why.
 *  @return : 0 or -errno. */
int bench_fail_keep(const char *outdir, const char *profile, char *moved, size_t mlen,
		    char *why, size_t wlen);
/*! bench_tree_fits() : whether a starting tree of @tree bytes of file
 *  data can fit an image of @o->image_size. */
int bench_tree_fits(const struct bench_opts *o, uint64_t tree);

/*! bench_client_series() (series.c) : --clients @list ("1,2,4,8"): each configuration
 *  of @o once per count, named NAME-cN.  @return : 0, or -EINVAL after a
 *  message. */
int bench_client_series(struct bench_opts *o, const char *list);

int bench_workdir_create(struct bench_live *l, const char *scratch);
void bench_workdir_remove(struct bench_live *l);
int bench_setup(struct bench_live *l, const struct bench_opts *o,
		const struct bench_config *c, char *mkfs_desc, size_t len);
int bench_teardown(struct bench_live *l, const struct bench_opts *o);
void bench_drop_caches(void);
/*! bench_catch_signals() : @fn handles SIGINT, SIGTERM and SIGHUP (the
 *  runs in progress are stopped and everything is undone). */
void bench_catch_signals(void (*fn)(int));
void bench_dir_label(const char *dir, char *label, size_t len);

/*! bench_find_fs() : @return : the known configuration @name, or NULL. */
const struct bench_fs *bench_find_fs(const char *name);
/*! bench_fs_names() : write the known configurations' names, each after
 *  a space, to @f. */
void bench_fs_names(FILE *f);
/*! bench_default_size() : the image size when none is given, for a
 *  workload whose tree and writes need @need bytes: twice that plus room
 *  for journals and metadata, and never under BENCH_MIN_IMAGE.
 *  @return : bytes, a multiple of 1 MiB. */
#define BENCH_MIN_IMAGE (4ull << 30)
uint64_t bench_default_size(uint64_t need);
/*! bench_parse_size() : "512M", "2G", "1.5GiB" into bytes.
 *  @return : 0 or -EINVAL. */
int bench_parse_size(const char *s, uint64_t *out);
/*! bench_rm_tree() : remove @path and all below it, not crossing mounts. */
void bench_rm_tree(const char *path);
/*! bench_mkdir_p() : make @path and its missing parents. @return : 0 or -errno. */
int bench_mkdir_p(const char *path);
/*! bench_run_setup() : run "sh -c @cmd" in @dir (made first), untimed,
 *  its output kept in the work directory's log and shown if it fails.
 *  @return : 0, or -EIO (it failed; said so), or -errno. */
int bench_run_setup(const struct bench_live *l, const char *cmd, const char *dir);

#endif
