/*
 * bpf_int.h - what record/bpf.c (loading, the drain loop) and
 * record/bpf_events.c (records into events) share.
 */
#ifndef IOT_BPF_INT_H
#define IOT_BPF_INT_H

/* A call between its entry and exit records: decoded at its exit, when
 * its result tells what its paths were before it ran. */
struct pend {
	struct be_enter *e;
	size_t size;
};

struct rec_bpf {
	struct iotape_bpf *skel;		/* bpftool's skeleton (build/gen/iotape.skel.h) */
	struct ring_buffer *rb;
	void **pending;			/* by tid: a struct pend */
	int pid_max;
	uint64_t drops;			/* of the programs, counted so far */
	char *cwd;			/* the program's first cwd, its state before it ran */
	uint32_t cwd_len;
	int cwd_done;
	struct rec_pre cwd_pre;
	int guard_fd;			/* bpf_guard.c's listener, or -1 */
};

/* @t ended (@status: its wait status; CPU times): its call in flight as
 * unfinished, its EXIT record, and it is deleted */
void rec_bpf_emit_exit(struct rec_ctx *c, struct rec_task *t, int64_t now, int status,
		       int64_t ut, int64_t st);
/* libbpf's ring buffer callback: one record of the programs */
int rec_bpf_record(void *ctx, void *data, size_t size);

#endif
