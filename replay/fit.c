/*
 * fit.c - does the starting tree fit the root?  And the policy when it
 * does not.
 *
 * A tree that does not fit used to be made sparse without a word beyond
 * a warning: sizes right, no data.  Every read of it then costs what a
 * read of a hole costs, and the workload's writes fill what little room
 * is left, so the profile describes neither the workload nor the
 * filesystem.  Now that is an error that says how much is needed and how
 * much is free; --sparse-prepare asks for sparse files knowingly.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "rpl.h"

/* A filesystem filled to the brim behaves like no filesystem in use:
 * the tree may take at most this share of the free space. */
#define FIT_PCT 90

int rpl_ps_range(const struct iot_path_state *ps, uint32_t i, uint64_t *off, uint64_t *len)
{
	if (!ps->extra || i >= ps->extra->n_data || ps->extra->data[2 * i] >= ps->size)
		return 0;
	*off = ps->extra->data[2 * i];
	*len = ps->extra->data[2 * i + 1];
	if (*len > ps->size - *off)
		*len = ps->size - *off;
	return 1;
}

uint64_t rpl_ps_data_bytes(const struct iot_path_state *ps)
{
	uint64_t n = 0, off, len;
	uint32_t i;

	if (!(ps->flags & IOT_PS_SPARSE))
		return ps->size;
	for (i = 0; rpl_ps_range(ps, i, &off, &len); i++)
		n += len;
	return n;
}

static uint64_t tree_bytes(const struct rpl_plan *p)
{
	uint64_t need = 0;
	size_t i;

	for (i = 0; i < p->n_ps; i++) {
		const struct iot_path_state *ps = &p->ps[i];

		/* the first state of a path is the one prepare makes */
		if (i > 0 && strcmp(ps->path, p->ps[i - 1].path) == 0)
			continue;
		if ((ps->type & S_IFMT) == S_IFREG && !(ps->flags & IOT_PS_LISTED) &&
		    !rpl_path_skip(p->o, ps->path) && !rpl_ps_made_by_workload(p, ps))
			need += rpl_ps_data_bytes(ps);
	}
	return need;
}

/* @need bytes against the free space of @sv's filesystem. */
static int fits(const struct statvfs *sv, uint64_t need, const struct rpl_opts *o,
		struct rpl_result *res)
{
	uint64_t avail = (uint64_t)sv->f_bavail * sv->f_frsize;

	res->root_free_bytes = avail;
	if (need <= avail / 100 * FIT_PCT)
		return RPL_FIT_FITS;
	if (o->sparse_prepare) {
		res->tree_sparse = 1;
		return RPL_FIT_SPARSE;
	}
	res->tree_too_big = 1;
	return -ENOSPC;
}

int rpl_prepare_fit(struct rpl_plan *p, struct rpl_result *res, int *sparse)
{
	struct statvfs sv;
	int fit = p->o->fit;

	res->tree_bytes = tree_bytes(p);
	if (fit == RPL_FIT_CHECK)
		fit = fstatvfs(p->root_fd, &sv) < 0 ? RPL_FIT_FITS :	/* prepare finds out */
			fits(&sv, res->tree_bytes, p->o, res);
	*sparse = fit == RPL_FIT_SPARSE;
	res->tree_sparse = *sparse;
	return fit < 0 ? fit : 0;
}

int rpl_plan_fit(const struct rpl_plan *p, const struct rpl_opts *o, int copies,
		 struct rpl_result *res)
{
	struct statvfs sv;

	res->tree_copies = copies > 0 ? copies : 1;
	res->tree_bytes = tree_bytes(p) * (uint64_t)res->tree_copies;
	if (statvfs(o->root, &sv) < 0)
		return RPL_FIT_FITS;	/* nothing known: prepare finds out */
	return fits(&sv, res->tree_bytes, o, res);
}

int rpl_tree_need(const struct rpl_opts *o, uint64_t *bytes)
{
	struct rpl_plan p;
	int err;

	err = rpl_plan_build(&p, o);
	p.root_fd = -1;
	if (err == 0)
		*bytes = tree_bytes(&p);
	rpl_plan_free(&p);
	return err;
}
