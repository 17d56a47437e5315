/*
 * load_int.h - what the loader's two files share: load.c (the passes over
 * the file, events) and phases.c (process records, phases, their CPU).
 * Private to analyze/load*.c and phases.c.
 */
#ifndef ANA_LOAD_INT_H
#define ANA_LOAD_INT_H

#include "ana.h"

struct pident {
	int32_t pid;
	int32_t used;
	int32_t cmd;		/* index into procs (final, from pass 1) */
	int32_t phase1;		/* phase while walking pass 1 */
	int32_t phase2;		/* phase while walking pass 2 */
	int64_t born;		/* START/FORK time */
	/* a process in no phase (the root, by top-level commands): its
	 * CPU time is spread over the time it ran (ana_orphan_event()) */
	int orphan;
	int64_t exit_t;
	int64_t active_from;	/* end of its last call; INT64_MIN unknown,
				 * INT64_MAX in a call that never returned */
};

struct pidmap {
	struct pident *e;
	size_t cap, n;
};

struct exit_rec {
	int64_t t, cpu, born;
};

struct loader {
	struct ana_trace *t;
	struct pidmap pids;
	int32_t root;
	int have_root;
	int root_images;	/* images the root has run (START argv, EXECs) */
	char *start_argv;
	int32_t root_phase;	/* open root-exec phase, -1 if none */
	struct ana_phase *marks;
	size_t n_marks, n_marks_seen;
	struct exit_rec *exits;
	size_t n_exits, cap_exits;
	uint64_t seq;
	uint64_t events2;	/* events read in pass 2 */
	size_t next_phase;	/* pass 2: the next phase to open by seq */
	size_t unknown_cmd;	/* procs index of "(unknown)", or SIZE_MAX */
	/* CPU of the processes in no phase, and the time they ran outside
	 * their calls: in each phase (w), in no phase (w_gap) */
	int64_t orphan_cpu;
	double *w, *ov, w_gap;
	int64_t *seg;
	/* async requests waiting for their completion (load_aio.c) */
	struct ana_aio_wait {
		uint64_t key;
		int64_t t_ns;
		uint64_t len;
		int32_t pid;
		uint8_t cls, done;
	} *aw;
	uint64_t aw_cap, aw_used;
};

/*! ana_stat_add() : count one call (@ev's result, @dur if @timed, @bytes). */
void ana_stat_add(struct ana_stat *s, const struct iot_event *ev, int64_t dur,
		  int timed, uint64_t bytes);

/*! ana_mpages_item() : pass 2: a MapPages record into the mapped
 *  classes (one count per record with pages, their bytes). */
void ana_mpages_item(struct loader *L, const struct iot_mpages *m);

/*! ana_aio_item() : pass 2: an AsyncOp into the async classes.
 *  @return : 0 or -ENOMEM. */
int ana_aio_item(struct loader *L, const struct iot_aio *a);
/*! ana_aio_finish() : after pass 2: the requests whose completion is not
 *  in the file count too, with the bytes they asked for, untimed. */
void ana_aio_finish(struct loader *L);

/*! ana_pid_get() : the entry of @pid, created when @create is set.
 *  @return : the entry, or NULL (not there, or out of memory). */
struct pident *ana_pid_get(struct pidmap *m, int32_t pid, int create);
/*! ana_proc_index() : @return : the procs row of command @cmd (added if
 *  new), or -ENOMEM. */
int ana_proc_index(struct ana_trace *t, const char *cmd);
/*! ana_join_argv() : @return : argv joined by spaces (malloc'd), or NULL. */
char *ana_join_argv(uint32_t argc, const char *const *argv);

/* Pass 1 (process records and event times) and what settles after it. */
int ana_pass1_proc(struct loader *L, const struct iot_process *p);
void ana_pass1_span(struct loader *L, const struct iot_span *sp);
int ana_finish_phases(struct loader *L);
/* Pass 2: which phase a process is in. */
void ana_pass2_proc(struct loader *L, const struct iot_process *p);
/*! ana_orphan_event() : pass 2: event @ev of process @e, which is in no
 *  phase: the time since its previous call is time it ran. */
void ana_orphan_event(struct loader *L, struct pident *e, const struct iot_event *ev);
/*! ana_orphan_cpu() : after pass 2: give the CPU time of the processes in
 *  no phase to the phases and "(gaps)" in proportion to the time they ran
 *  in each. */
void ana_orphan_cpu(struct loader *L);
/*! ana_phase_at() : @return : the phase that holds time @ts when phases
 *  tile time (marks), or -1. */
int ana_phase_at(const struct ana_trace *t, int64_t ts);

#endif
