/*
 * fp_int.h - what fp_drain.c (the fast path's rings, drained at ptrace
 * stops) and fp_rounds.c (the mixed backend's rounds) share.
 */
#ifndef IOT_FP_INT_H
#define IOT_FP_INT_H

#include <limits.h>
#include <stdint.h>

struct fast_item {
	struct fp_rec *rec;
	struct fp_slot *slot;
	uint64_t pos;			/* ring offset, ever: ties keep ring order */
};

struct rec_fast {
	int fd;
	void *base;
	char lib[PATH_MAX];
	char shm_env[64];
	struct fast_item *items;
	size_t n_items, cap_items;
	/* the bpf backend's rounds (rec_fast_gather): the next item to
	 * decode, how far each ring was collected, the threads that ended */
	size_t next;
	uint64_t upto[FP_NSLOTS];
	const pid_t *dead;
	const int *dead_status;
	const int64_t *dead_left;
	size_t ndead;
};

/* decode one record (@unfinished: its thread ended in the call; @status:
 * how it ended) */
void rec_fast_decode_rec(struct rec_ctx *c, const struct fp_rec *r, int unfinished,
			 int status);
/* the complete records of @s entered before @cut into the items (with
 * @last, one in flight too); @return : where collection stopped */
uint64_t rec_fast_collect(struct rec_ctx *c, struct fp_slot *s, int last, uint64_t cut);
/* qsort order of the items: entry time, then ring and place */
int rec_fast_cmp_item(const void *a, const void *b);
/* the bytes of @s up to @upto handed back to the program */
void rec_fast_consume(struct fp_slot *s, uint64_t upto);
/* the slots of @tid claimed before @before, freed */
void rec_fast_free_slots(struct rec_ctx *c, pid_t tid, uint64_t before);

#endif
