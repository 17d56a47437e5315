/*
 * fault_msg.c - what replay says about faults of the filesystem under
 * test (fault.c) and a starting tree that does not fit (fit.c): which
 * call, which path, where in the trace, and what to do.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "replay.h"

/* What a fault of kind @err usually means, and what to do. */
static const char *advice(const struct rpl_result *r)
{
	if (r->fault_unmounted)
		return "the filesystem under --root was unmounted (umount -l) while the replay "
		       "ran: the calls after it went to a detached filesystem nobody sees; "
		       "keep it mounted until the replay ends";
	switch (r->fault_errno) {
	case ENOSPC:
		return "the filesystem under test is full: replay onto a larger one";
	case EDQUOT:
		return "a disk quota is exhausted: raise it, or replay onto another filesystem";
	case EIO:
		return "the filesystem or its device reported an I/O error: see 'dmesg', and "
		       "check the device before trusting any figure from it";
	case EROFS:
		return "the filesystem became read-only (remounted, often after an error: see "
		       "'dmesg')";
	case ESTALE:
	case ENOTCONN:
		return "the filesystem went away (unmounted, its server or FUSE daemon gone)";
	}
	return "see 'dmesg'";
}

void rpl_print_fault(const struct rpl_opts *o, const struct rpl_result *r)
{
	uint64_t reached = r->ops - r->skipped_by[RPL_SKIP_INTERRUPTED];

	iot_err(o->cmd, "the filesystem under test failed: %s%s%s; every thread finished "
		"its call and stopped: %llu of %llu ops reached%s%s%s", r->fault,
		r->fault_errno ? ": " : "", r->fault_errno ? strerror(r->fault_errno) : "",
		(unsigned long long)reached, (unsigned long long)r->ops,
		o->out ? "; the profile " : "", o->out ? o->out : "",
		o->out ? " holds them, marked failed" : "");
	iot_err(o->cmd, "%s%s", advice(r), r->fault_unmounted ? "" :
		"; or --on-error continue to go on and count such calls");
}

void rpl_print_tree_too_big(const struct rpl_opts *o, const struct rpl_result *r)
{
	char a[32], b[32], c[32];

	if (r->tree_copies > 1) {
		iot_err(o->cmd, "%s: the starting trees of %d clients of %s hold %d x %s = %s of "
			"file data, the root's filesystem has %s free (the trees may take 90 %% "
			"of it); replay onto a larger filesystem, with fewer clients, or pass "
			"--sparse-prepare to make their files sparse (sizes kept, no data: "
			"reading them then costs less than it did)", o->root, r->tree_copies,
			o->trace, r->tree_copies,
			iot_fmt_bytes(c, sizeof(c), (double)(r->tree_bytes / (uint64_t)r->tree_copies)),
			iot_fmt_bytes(a, sizeof(a), (double)r->tree_bytes),
			iot_fmt_bytes(b, sizeof(b), (double)r->root_free_bytes));
		return;
	}
	iot_err(o->cmd, "%s: the starting tree of %s holds %s of file data, the root has %s "
		"free (the tree may take 90 %% of it); replay onto a larger filesystem, or "
		"pass --sparse-prepare to make its files sparse (sizes kept, no data: reading "
		"them then costs less than it did)", o->root, o->trace,
		iot_fmt_bytes(a, sizeof(a), (double)r->tree_bytes),
		iot_fmt_bytes(b, sizeof(b), (double)r->root_free_bytes));
}

void rpl_print_fault_summary(FILE *f, const struct rpl_opts *o, const struct rpl_result *r)
{
	uint64_t other = r->mismatches > r->target_faults ? r->mismatches - r->target_faults : 0;
	char a[32], b[32], c[256];

	if (r->tree_sparse)
		fprintf(f, "  sparse       the starting tree%s (%s of file data) did not fit the %s "
		       "free: %s files were made sparse (--sparse-prepare)\n",
		       r->tree_copies > 1 ? "s" : "", iot_fmt_bytes(a, sizeof(a), (double)r->tree_bytes),
		       iot_fmt_bytes(b, sizeof(b), (double)r->root_free_bytes),
		       r->tree_copies > 1 ? "their" : "its");
	if (r->target_faults || r->fault[0]) {
		rpl_fault_counts(r, c, sizeof(c));
		fprintf(f, "  target faults %s: calls that failed with an error of the filesystem "
		       "under test%s%s%s\n", c, r->fault[0] ? "; first: " : "", r->fault,
		       r->fault_stopped ? " (stopped there)" :
		       o->on_error == RPL_ON_ERROR_CONTINUE ? " (--on-error continue)" : "");
	}
	if (r->replayed && (double)other * 100.0 > (double)r->replayed * RPL_MISMATCH_WARN_PCT)
		fprintf(f, "  note         %.1f %% of the replayed calls (%llu) gave other results "
		       "than recorded, more than %.0f %%: the replay did other work than the "
		       "workload, and its timing may not be representative\n",
		       100.0 * (double)other / (double)r->replayed, (unsigned long long)other,
		       RPL_MISMATCH_WARN_PCT);
}
