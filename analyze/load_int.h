/*
 * load_int.h - what the loader's files share: load.c (the passes over
 * the file, events), phases.c (process records, phases, their CPU) and
 * pidtab.c (the table of processes).  Private to analyze/load*.c,
 * phases.c and pidtab.c.
 */
#ifndef ANA_LOAD_INT_H
#define ANA_LOAD_INT_H

#include "ana.h"
#include "engine.h"

/* A process's calls held until its command is final (its entry goes): a
 * forked child's calls before its exec count under the command it execs,
 * as they always have.  The first ANA_PEND_LOG calls are logged as they
 * are (most processes make few: a row's histogram for each would cost
 * more); past them, they go to a row of its own. */
#define ANA_PEND_LOG 64

struct ana_call {
	int64_t dur;
	uint64_t bytes;
	uint32_t bucket;
	uint8_t timed, error, mismatch, skipped;
};

/*! ana_stat_call() : count call @c in row @s. */
static inline void ana_stat_call(struct ana_stat *s, const struct ana_call *c)
{
	s->count++;
	s->errors += c->error;
	s->bytes += c->bytes;
	s->mismatches += c->mismatch;
	s->skipped += c->skipped;
	if (c->timed) {
		s->timed++;
		s->total_ns = iot_ns_add(s->total_ns, c->dur);
		ana_hist_add_at(&s->lat, c->dur, c->bucket);
	}
}

struct ana_pend {
	struct ana_call *log;	/* grown to ANA_PEND_LOG */
	uint32_t n, cap;	/* calls in log, its room */
	int dense;		/* past ANA_PEND_LOG: calls go to st */
	struct ana_stat st;	/* the calls before them */
	uint64_t xbytes;	/* bytes of its async requests and mapped pages */
	struct ana_pend *next;	/* free list */
};

/*
 * One process's life, from the record that made its entry (start, fork,
 * or the first record of a pid not seen before) to the exit of its
 * leader.  An exited entry stays for ANA_GRAVE_CHUNKS chunks more (its
 * other threads' last calls, its exit_group, mapped pages and completions
 * are written after the exit record, and a chunk gives its processes
 * before its events), or as long as a thread of it has not exited (a
 * leader that ends with pthread_exit() while its threads go on: their
 * calls came as "(unknown)" once four chunks had gone by), then goes:
 * the table holds the live processes and
 * the ones that ended lately, not every pid of the trace.  A fork or
 * start of an exited pid is a new process; an exec of one is the same
 * process going on (an exec from a thread other than the leader: the
 * recorder writes the leader's exit, then the exec).
 */
#define ANA_GRAVE_CHUNKS 4
#define ANA_GRAVE_MAX 32768
#define ANA_COV_MAX 1024
#define ANA_TAIL_MAX 4096
#define ANA_FOLD_RING 16384	/* exited entries kept at most, whatever the chunks */

struct pident {
	int32_t pid;
	uint8_t used, exited;
	/* a process in no phase (the root, by top-level commands): its
	 * CPU time is spread over the time it ran (ana_orphan_event()) */
	uint8_t orphan;
	int32_t cmd;		/* index into procs */
	uint8_t fold_head;	/* pass 2: its record opened a phase that went
				 * into "(other commands)", and it still runs */
	uint64_t phase1;	/* pass 1: the seq of its phase (the record
				 * that opened it), 0 if none */
	int32_t phase2;		/* phase while walking pass 2 */
	uint32_t aio_out;	/* pass 2: its async requests not completed */
	uint32_t threads;	/* its threads other than the leader, not exited */
	uint64_t seq;		/* the process record that made the entry */
	uint64_t exit_seq;	/* the process record of its exit */
	int64_t born;		/* START/FORK time */
	int64_t exit_t;
	int64_t active_from;	/* end of its last call; INT64_MIN unknown,
				 * INT64_MAX in a call that never returned */
	struct ana_pend *pend;	/* pass 2, until the entry goes */
};

struct pidmap {
	struct pident *e;
	size_t cap, n;
	/* exited entries, oldest first (a ring): pid, exit_seq, chunk */
	struct ana_grave {
		int32_t pid;
		uint64_t seq, chunk;
	} *grave;
	size_t g_cap, g_head, g_n;
	struct ana_pend *free_pend;
};

/* A process in no phase that exited (pass 1), for pass 2. */
struct ana_orphan {
	uint64_t seq;		/* of the entry */
	int64_t exit_t;
};

struct loader {
	struct ana_trace *t;
	struct pidmap pids;
	int32_t root;
	int have_root;
	/* what tells the records that open a phase (opens_phase()), the
	 * same in each pass */
	int root_images;	/* images the root has run (START argv, EXECs) */
	char *start_argv;
	uint64_t n_opened;	/* phases of top-level commands opened */
	uint64_t root_phase;	/* pass 1: seq of the open root-exec phase, 0 none */
	/* pass 1: phases closed with rows of their own, phases gone into
	 * "(other commands)" still in t->phases (compacted away), and what
	 * those had (ANA_PHASES_MAX) */
	size_t n_closed, n_dead;
	int64_t floor;		/* the shortest of those closed, INT64_MAX none */
	struct ana_phase fold;
	/* pass 1: the time covered by phases, for "(gaps)" when some were
	 * folded: disjoint spans in order, ANA_COV_MAX at most, and the
	 * length of those let go (before cov_done_end) */
	struct ana_span {
		int64_t s, e;
	} *cov;
	size_t n_cov;
	int64_t cov_done, cov_done_end;
	/* pass 1: folded phases that end after the last call seen so far,
	 * ANA_TAIL_MAX at most: their real time is cut at the last call, as
	 * a phase's with a row of its own */
	struct ana_span *tail;
	size_t n_tail;
	/* pass 2: the phases folded into "(other commands)" that are open,
	 * and the last ANA_FOLD_RING stretches of time when any was (for the
	 * CPU time of the processes in no phase: a chunk gives all its
	 * processes before its events, so the stretches of a chunk's
	 * thousands of commands are still there at its calls) */
	uint64_t fold_open;
	struct ana_span *fring;	/* ANA_FOLD_RING, once phases were folded */
	size_t fring_n;		/* stretches pushed, fring[(n - 1) % ANA_FOLD_RING] the last */
	struct ana_phase *marks;
	size_t n_marks, n_marks_seen;
	int pass;		/* 1, 2, or 3 (pass 2 stopped short: pass 1's
				 * processes past it, for the phases' CPU by time) */
	uint64_t n_exits;	/* pass 1: the leaders' exits */
	uint64_t seq1, seq2;	/* process records read by pass 1, by pass 2 */
	struct pidmap *pids2;	/* pass 3: pass 2's table */
	struct ana_orphan *orphans;	/* pass 1, sorted by seq for pass 2 */
	size_t n_orphans, cap_orphans;
	/* pass 2: orphans gone from the table, for ana_orphan_cpu() */
	struct ana_orphan_run {
		int64_t from, to;
	} *orph_runs;
	size_t n_orph_runs, cap_orph_runs;
	uint64_t seq;
	uint64_t events2;	/* events read in pass 2 */
	size_t next_phase;	/* pass 2: the next phase to open by seq */
	size_t unknown_cmd;	/* procs index of "(unknown)", or SIZE_MAX */
	/* CPU of the processes in no phase, and the time they ran outside
	 * their calls: in each phase (w), in no phase (w_gap) */
	int64_t orphan_cpu;
	double *w, *ov, w_gap;
	int64_t *seg;
	int64_t *end_max;	/* the latest end of phases 0 .. i, when they
				 * are in order of their starts; else NULL */
	/* async requests waiting for their completion (load_aio.c) */
	struct ana_aio_wait {
		uint64_t key;
		int64_t t_ns;
		uint64_t len;
		int32_t pid;
		int32_t cmd;	/* the command of its process once that went, else -2 */
		uint8_t cls, done;
	} *aw;
	uint64_t aw_cap, aw_used;
};

/*! ana_stat_add() : count one call (@ev's result, @dur if @timed, @bytes). */
void ana_stat_add(struct ana_stat *s, const struct iot_event *ev, int64_t dur,
		  int timed, uint64_t bytes);

/*! ana_mpages_item() : pass 2: a MapPages record into the mapped
 *  classes (one count per record with pages, their bytes). */
int ana_mpages_item(struct loader *L, const struct iot_mpages *m);

/*! ana_aio_item() : pass 2: an AsyncOp into the async classes.
 *  @return : 0 or -ENOMEM. */
int ana_aio_item(struct loader *L, const struct iot_aio *a);
/*! ana_aio_finish() : after pass 2: the requests whose completion is not
 *  in the file count too, with the bytes they asked for, untimed. */
int ana_aio_finish(struct loader *L);

/*! ana_pid_get() : the entry of @pid, created when @create is set.
 *  @return : the entry, or NULL (not there, or out of memory). */
struct pident *ana_pid_get(struct pidmap *m, int32_t pid, int create);
/*! ana_pid_of_record() : the entry process record @p is about, made (its
 *  seq the record's, L->seq) for a pid not in the table or, on a start or
 *  fork, one whose process exited; none is made for a thread's record.
 *  *@made : 1 if made, 0 if not, or -ENOMEM.  @return : the entry or NULL. */
struct pident *ana_pid_of_record(struct loader *L, const struct iot_process *p, int *made);
/*! ana_pid_exited() : @e's process exited (its leader's exit record, in
 *  @chunk).  Its entry goes ANA_GRAVE_CHUNKS chunks after that, or after
 *  its last other thread's exit (ana_pid_thread()). */
int ana_pid_exited(struct loader *L, struct pident *e, uint64_t chunk);
/*! ana_pid_thread() : thread record @p of @e's process, in @chunk: a
 *  thread made, or one that exited.  @return : 0 or -ENOMEM. */
int ana_pid_thread(struct loader *L, struct pident *e, const struct iot_process *p,
		   uint64_t chunk);
/*! ana_pids_evict() : before a process record of @chunk: drop the entries
 *  of processes that exited ANA_GRAVE_CHUNKS chunks before (or the
 *  oldest, past ANA_GRAVE_MAX).  @return : 0 or -ENOMEM. */
int ana_pids_evict(struct loader *L, uint64_t chunk);
void ana_pids_free(struct pidmap *m);
/*! ana_pend_new() : @e's held calls, made (it has none). @return : NULL
 *  when out of memory. */
struct ana_pend *ana_pend_new(struct pidmap *m, struct pident *e);
/*! ana_pend_room() : ana_pend_call() when the log is full.  (@c by value:
 *  a caller's call whose address escaped would be read again after every
 *  store of the rows it is counted in.) */
int ana_pend_room(struct ana_pend *p, struct ana_call c);

/*! ana_pend_of() : @e's held calls (made if none).  @return : NULL when
 *  out of memory. */
static inline struct ana_pend *ana_pend_of(struct pidmap *m, struct pident *e)
{
	return e->pend ? e->pend : ana_pend_new(m, e);
}

/*! ana_pend_call() : hold call @c in @p.  @return : 0 or -ENOMEM. */
static inline int ana_pend_call(struct ana_pend *p, const struct ana_call *c)
{
	if (p->dense) {
		ana_stat_call(&p->st, c);
		return 0;
	}
	if (p->n == p->cap)
		return ana_pend_room(p, *c);
	p->log[p->n++] = *c;
	return 0;
}
/*! ana_pend_flush() : count @e's held calls in the row of its command,
 *  now final ("(unknown)" if it has none).  @return : 0 or -ENOMEM. */
int ana_pend_flush(struct loader *L, struct pident *e);
/*! ana_pend_flush_all() : ana_pend_flush() of every entry left. */
int ana_pend_flush_all(struct loader *L);
/*! ana_cmd_row() : @return : the procs row of command @cmd, "(unknown)"
 *  for -1 (added when first needed), or -ENOMEM. */
int ana_cmd_row(struct loader *L, int32_t cmd);
/*! ana_proc_index() : @return : the procs row of command @cmd (added if
 *  new), or -ENOMEM. */
int ana_proc_index(struct ana_trace *t, const char *cmd);
/*! ana_join_argv() : @return : argv joined by spaces (malloc'd), or NULL. */
char *ana_join_argv(uint32_t argc, const char *const *argv);

/* Phases of top-level commands, past ANA_PHASES_MAX (fold.c). */
/*! ana_phase_of() : pass 1: the phase opened by record @seq, or NULL if
 *  none or it went into "(other commands)". */
struct ana_phase *ana_phase_of(struct loader *L, uint64_t seq);
/*! ana_opens_phase() : whether process record @p (@argv: its argv joined,
 *  or NULL) opens a phase of a top-level command; every record of a pass
 *  that has an entry goes through it once, in order. */
int ana_opens_phase(struct loader *L, const struct iot_process *p, const char *argv);
/*! ana_phase_closed() : pass 1: phase @ph ended (its end set): its span
 *  into the time covered, and past ANA_PHASES_MAX ended, the shortest
 *  folded (ana_fold_shortest()). */
void ana_phase_closed(struct loader *L, struct ana_phase *ph);
/*! ana_fold_shortest() : fold the shortest ended phases until at most
 *  ANA_PHASES_MAX that ended have rows. */
void ana_fold_shortest(struct loader *L);
/*! ana_phases_compact() : drop the folded phases from t->phases. */
void ana_phases_compact(struct loader *L);
/*! ana_cov_add() : span [@s, @e) into the time covered by phases. */
void ana_cov_add(struct loader *L, int64_t s, int64_t e);
/*! ana_fold_tail() : after the events of a chunk (t->t_last is theirs):
 *  forget the folded phases of L->tail that end by then. */
void ana_fold_tail(struct loader *L);
/*! ana_fold_tail_cut() : after pass 1: the real time of "(other
 *  commands)" cut at the last call, where its phases ended later. */
void ana_fold_tail_cut(struct loader *L);
/*! ana_cov_gap_time() : @return : the time in no phase, once phases were
 *  folded (the spans of ana_cov_add()). */
int64_t ana_cov_gap_time(const struct loader *L);
/*! ana_pass2_opens() : pass 2 once phases were folded: the phase record
 *  @p of entry @e opens: @opened (a kept one, found by seq, or -1), else
 *  "(other commands)" if @p opens one.  @return : the phase, -1 if none,
 *  or -ENOMEM. */
int ana_pass2_opens(struct loader *L, struct pident *e, const struct iot_process *p,
		    int32_t opened);
/*! ana_fold_close() : pass 2: a folded phase ended at @t_ns (its process
 *  exited, or the root exec'd anew). */
void ana_fold_close(struct loader *L, int64_t t_ns);
/*! ana_fold_overlap() : pass 2: the time in [@a, @b) when a folded phase
 *  was open; its stretches into @seg (pairs), *@n of them there, at most
 *  ANA_FOLD_RING more.  @return : that time. */
int64_t ana_fold_overlap(const struct loader *L, int64_t a, int64_t b, int64_t *seg, size_t *n);

/* Pass 1 (process records and event times) and what settles after it. */
int ana_pass1_proc(struct loader *L, const struct iot_process *p, uint64_t chunk);
void ana_pass1_span(struct loader *L, const struct iot_span *sp);
int ana_finish_phases(struct loader *L);
/* Pass 2: which phase a process is in, its command, its exit's CPU time
 * in the phases by time; pass 3 (L->pass 3) only the last. */
int ana_pass2_proc(struct loader *L, const struct iot_process *p, uint64_t chunk);
/*! ana_finish_exits() : after pass 2 (and 3): a phase by time in which no
 *  process started and ended has no CPU time known. */
void ana_finish_exits(struct loader *L);
/*! ana_sort_orphans() : after pass 1, for pass 2's look-ups. */
void ana_sort_orphans(struct loader *L);
/*! ana_orphan_event() : pass 2: event @ev of process @e, which is in no
 *  phase: the time since its previous call is time it ran. */
void ana_orphan_event(struct loader *L, struct pident *e, const struct iot_event *ev);
/*! ana_orphan_cpu() : after pass 2: give the CPU time of the processes in
 *  no phase to the phases and "(gaps)" in proportion to the time they ran
 *  in each. */
void ana_orphan_cpu(struct loader *L);
/*! ana_phase_after() : @return : the phase a call at @ts of process @pid
 *  of phase @ph counts in: @ph, or, once @ph's own process has ended (a
 *  server it started runs on), the top-level command's phase open at @ts,
 *  else "(gaps)". */
int ana_phase_after(const struct loader *L, int ph, int32_t pid, int64_t ts);
/*! ana_phase_at() : @return : the phase that holds time @ts when phases
 *  tile time (marks), or -1. */
int ana_phase_at(const struct ana_trace *t, int64_t ts);

#endif
