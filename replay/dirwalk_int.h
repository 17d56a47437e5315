/*
 * dirwalk_int.h - what dirwalk.c (a walk of a listed directory),
 * dirwalk_paths.c (files named by their paths) and dirwalk_move.c (the
 * move of the groups both find) share.  Nothing else includes it.
 */
#ifndef RPL_DIRWALK_INT_H
#define RPL_DIRWALK_INT_H

#include <stddef.h>
#include <stdint.h>

#define DW_SPAN (1u << 20)		/* ops a walk of one directory may span */
#define DW_FDS 32			/* descriptors open at once inside one entry's */

/* One entry's calls: ops [start, the next one's start) of the thread,
 * in pass @pass of the walk (a walker that stats every entry, then
 * descends into the subdirectories, takes them twice: fts). */
struct dw_group {
	uint32_t start, end, rank, pass;
	const char *path;
	const uint32_t *key;		/* by path: the ranks of its names below */
	uint32_t nkey;			/* the run's common directory, outermost first */
};

struct iot_syscall;
struct rpl_op;
struct rpl_plan;
struct rpl_thread;

/* ---- dirwalk.c ---- */
/* the next name of a listing's dirent64 records but "." and ".." */
int rpl_next_name(const char *buf, int64_t len, int64_t *off, const char **name, size_t *n);

/* ---- dirwalk_paths.c ---- */
/* keep the names a listing of @dir returned for every thread */
void rpl_publish(struct rpl_plan *p, const char *dir, const char *buf, int64_t len);

/* ---- dirwalk_move.c ---- */
/* the next name of @path after byte @*at: [@*s, @*e); 0: none */
int rpl_next_comp(const char *path, size_t *at, size_t *s, size_t *e);
/* Did the program choose the recorded order of groups @g? */
int rpl_chosen_order(const struct rpl_plan *p, const struct dw_group *g, size_t ng, size_t root);
/* the descriptor @op made as a copy of its first argument, or -1 */
int64_t rpl_dup_made(const struct rpl_op *op);
/* add position @j to the fixed ops */
int rpl_push_fixed(uint32_t **fixed, uint32_t *n, uint32_t *cap, uint32_t j);
/* follow the descriptors one entry's calls open and close through @op */
int rpl_entry_fds(const struct rpl_op *op, const struct iot_syscall *sc, int64_t *fds, int *nfd);
/* Does @op name @wfd or one of @fds in any descriptor argument? */
int rpl_op_on_fds(const struct rpl_op *op, const struct iot_syscall *sc, int64_t wfd,
		  const int64_t *fds, int nfd);
/* May @op, which another thread waits for, stay in its place? */
int rpl_fixed_op(const struct rpl_op *op, const struct iot_syscall *sc, int64_t wfd,
	     const int64_t *fds, int nfd);
/* Is recorded descriptor @fd of @t's process a pipe or a socket here? */
int rpl_on_stream(const struct rpl_thread *t, int64_t fd, int64_t *cache);
/* put groups @g in the order @cmp gives around the fixed ops */
int rpl_groups_move(struct rpl_thread *t, struct dw_group *g, size_t ng, uint32_t end,
		const uint32_t *fixed, uint32_t nfixed,
		int (*cmp)(const void *, const void *), const char **why);

#endif
