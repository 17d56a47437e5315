/*
 * fail.c - configurations of iotape bench that fail: an image too
 * small for its filesystem or for the starting tree, or a replay that a
 * fault of the filesystem under test stopped (ENOSPC, EIO, ...).  Such a
 * configuration is marked FAILED in the table and the HTML page, with
 * why; a partial profile is kept apart, in OUTDIR/failed/, so nobody
 * takes it for a complete one; bench goes on with the others and exits
 * non-zero at the end.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "iotape.h"
#include "bench.h"

/* The smallest device mkfs accepts, from the tools themselves:
 * mkfs.xfs: "Filesystem must be larger than 300MB"; mkfs.btrfs:
 * "minimum size for each btrfs device is 114294784". */
static uint64_t min_size(const char *fstype)
{
	if (strcmp(fstype, "xfs") == 0)
		return 300ull << 20;
	if (strcmp(fstype, "btrfs") == 0)
		return 114294784ull;
	return 0;
}

int bench_fail_early(const struct bench_opts *o, const struct bench_config *c,
		     char *why, size_t len)
{
	uint64_t min;

	if (c->dir || !c->fs || !c->fs->mkfs)
		return 0;
	min = min_size(c->fs->fstype);
	if (!min || o->image_size >= min + (1 << 20))
		return 0;
	snprintf(why, len, "image of %.0f MiB is too small for %s (mkfs needs more than "
		 "%.0f MiB)", (double)o->image_size / (1 << 20), c->fs->fstype,
		 (double)min / (1 << 20));
	return 1;
}

int bench_fail_note(struct bench_fails *f, const char *name, const char *fmt, ...)
{
	char text[400];
	va_list ap;
	int n;

	if (f->n >= BENCH_MAX_FAILS)
		return -E2BIG;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	n = snprintf(f->arg[f->n], sizeof(f->arg[0]), "%s=%s", name, text);
	if (n < 0)
		return -EINVAL;
	f->n++;
	return 0;
}

int bench_fail_keep(const char *outdir, const char *profile, char *moved, size_t mlen,
		    char *why, size_t wlen)
{
	char dir[PATH_MAX];
	const char *base = strrchr(profile, '/'), *v;
	struct iot_reader *r;
	int rc;

	snprintf(why, wlen, "the filesystem under test failed");
	rc = iot_reader_open(&r, profile);
	if (rc < 0)
		return rc;
	v = iot_header_get(iot_reader_header(r), "replay.failed");
	if (v)
		snprintf(why, wlen, "%s", v);
	iot_reader_close(r);
	snprintf(dir, sizeof(dir), "%s/failed", outdir);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	snprintf(moved, mlen, "%s/%s", dir, base ? base + 1 : profile);
	if (rename(profile, moved) < 0)
		return -errno;
	return 0;
}

int bench_tree_fits(const struct bench_opts *o, uint64_t tree)
{
	/* the starting tree may take 90 % of the free space (replay/fit.c),
	 * and a filesystem keeps some of its device for itself */
	return tree <= o->image_size / 100 * 85;
}
