/*
 * ops_meta.h - what the metadata handlers (ops_meta.c) share with the
 * xattr handlers (ops_xattr.c): the file an op acts on, and names known
 * not to be symlinks.
 */
#ifndef RPL_OPS_META_H
#define RPL_OPS_META_H

#include <limits.h>
#include <stdint.h>

#include "rpl.h"

/* the op's own call, timed (RPL_CALL) */
#define ret_of(call) RPL_CALL(c, call)

/* rpl_meta_target() answered: op->skip is set */
#define RPL_META_SKIP_FD INT_MIN
/* the fast form does not apply: take the confined lookup of the whole path */
#define RPL_META_TRY_FULL (INT64_MIN + 1)

/* The file the op acts on: *@owned says whether to close it.
 * @return : a descriptor, -errno, or RPL_META_SKIP_FD (op->skip set). */
int rpl_meta_target(struct rpl_ctx *c, struct rpl_op *op, int dirfd_arg, int at_flags,
		    int nofollow, int *owned);
/* Close @fd if @owned: @return : @r. */
int64_t rpl_meta_finish(int fd, int owned, int64_t r);
/* Is the name @n (of @path) no symlink?  Known, or one fstatat. */
int rpl_meta_not_symlink(struct rpl_ctx *c, const char *path, const struct rpl_name *n);
/* The name an AT_SYMLINK_NOFOLLOW call acts on, in its cached parent:
 * one call instead of open, call, close.  @return : 0 (release @n with
 * rpl_name_done()), RPL_META_TRY_FULL, RPL_SKIPPED or -errno. */
int64_t rpl_meta_nofollow_name(struct rpl_ctx *c, struct rpl_op *op, int dirarg,
			       struct rpl_name *n);
/* As rpl_meta_nofollow_name(), for a call that follows a last symlink
 * unless @nofollow: where the name is one, RPL_META_TRY_FULL (the
 * confined lookup of the whole path follows it). */
int64_t rpl_meta_unfollowed_name(struct rpl_ctx *c, struct rpl_op *op, int dirarg, int nofollow,
				 struct rpl_name *n);

#endif
