/*
 * replay.h - the replayer as a library for the replay and bench commands:
 * read a trace, build the starting tree under a root, re-execute the
 * recorded syscalls there with their timing, and write a profile.
 */
#ifndef RPL_REPLAY_H
#define RPL_REPLAY_H

#include <stdint.h>
#include <stddef.h>

enum rpl_timing {
	RPL_TIMING_ORIGINAL = 0,	/* recorded think time */
	RPL_TIMING_AFAP,		/* no waits */
	RPL_TIMING_SCALE,		/* think time x scale */
	RPL_TIMING_RAW,			/* recorded gaps minus stop_cost_ns only */
};

/* Why an op was not replayed (counted per reason). */
enum rpl_skip {
	RPL_SKIP_NONE = 0,
	RPL_SKIP_PSEUDO,	/* /proc, /sys, /dev */
	RPL_SKIP_EXCLUDED,	/* --include/--exclude */
	RPL_SKIP_FD,		/* descriptor not open in replay (inherited, skipped, failed) */
	RPL_SKIP_UNFINISHED,	/* never returned in the recording */
	RPL_SKIP_MMAP,		/* mapped-file I/O */
	RPL_SKIP_UNSUPPORTED,	/* ioctl/fcntl/mknod kinds not replayed */
	RPL_SKIP_NOPATH,	/* the recorder kept no path */
	RPL_SKIP_BADARG,	/* impossible values (negative fd, huge size) */
	RPL_SKIP_CLONED,	/* data moved by a clone that failed when recorded */
	RPL_SKIP_INTERRUPTED,	/* not reached: the replay was interrupted (SIGINT, SIGTERM) */
	RPL_SKIP_COUNT
};

struct rpl_opts {
	const char *trace;		/* input trace */
	const char *root;		/* directory to replay under */
	const char *out;		/* profile to write, or NULL */
	int timing;			/* enum rpl_timing */
	double scale;			/* RPL_TIMING_SCALE */
	int verify;			/* mismatches make rpl_run() report failure */
	int force;			/* accept a non-empty root */
	int no_prepare;			/* the tree is already there */
	int prepare_only;		/* stop after building the tree */
	const char *label, *mkfs;	/* stored in the profile header */
	const char *const *include;	/* path prefixes; none = everything */
	size_t n_include;
	const char *const *exclude;
	size_t n_exclude;
	int progress;			/* draw a progress line on stderr */
	int quiet;			/* no warnings on stderr */
	const char *cmd;		/* command name for messages ("replay") */
};

#define RPL_MAX_NR 512

struct rpl_sc_stat {
	uint64_t ops, replayed, skipped, mismatches, probe_diffs;
	int64_t time_ns;
};

struct rpl_result {
	int64_t prepare_ns, elapsed_ns;
	uint64_t ops, replayed, skipped;
	uint64_t skipped_by[RPL_SKIP_COUNT];
	uint64_t mismatches;		/* beyond the capability probes */
	uint64_t probe_diffs;		/* FICLONE, fallocate modes, copy_file_range EXDEV */
	uint64_t ordering_violations;
	uint64_t deadlock_breaks;	/* dependency waits given up (hostile traces) */
	uint64_t mmap_calls;
	uint64_t threads, processes;
	int64_t late_p50_ns, late_p99_ns, late_max_ns;
	/* the replayer's own work no think time could hide (timed modes):
	 * in all threads, and in the thread with the most */
	int64_t unhidden_ns, unhidden_max_ns;
	uint64_t df_used_bytes;
	uint64_t prep_dirs, prep_files, prep_links, prep_symlinks, prep_bytes;
	int damaged;			/* the trace was cut short: its complete part was used */
	int interrupted;		/* the signal that stopped the replay, or 0 */
	struct rpl_sc_stat sc[RPL_MAX_NR];
	int n_examples;			/* the first mismatches, as text */
	char examples[8][320];
};

/*! rpl_run() :
 *  Plan, prepare and replay @o->trace under @o->root, then write the
 *  profile @o->out.  Messages go to stderr ("iotape: CMD: ...").
 *  @return : 0 when done (see @res for mismatches and damage), or a
 *            negative code after a message. */
int rpl_run(const struct rpl_opts *o, struct rpl_result *res);

/*! rpl_print_summary() : print the end-of-run summary of @res to stdout. */
void rpl_print_summary(const struct rpl_opts *o, const struct rpl_result *res);

/*! rpl_skip_name() : @return : a short name of skip reason @why. */
const char *rpl_skip_name(int why);

#endif
