/*
 * bpf_ring.h - the BPF programs' ring buffer as the recorder reads it
 * (record/bpf_ring.c): its data mapped once, not twice as libbpf does.
 */
#ifndef IOT_BPF_RING_H
#define IOT_BPF_RING_H

#include <stddef.h>
#include <stdint.h>

/* one record: @data of @size bytes, valid until it returns */
typedef int (*rec_ring_fn)(void *ctx, void *data, size_t size);

struct rec_ring {
	int fd;				/* the map's, not ours; -1: not mapped */
	size_t page;
	uint64_t mask;			/* the data's size - 1 */
	uint64_t *cons;			/* the consumer position (its page, writable) */
	const uint64_t *prod;		/* the producer position, then the data */
	const char *data;
	char *tmp;			/* a record that wraps, copied whole */
	size_t tmp_cap;
	uint64_t lost;			/* records not copied for want of memory */
	rec_ring_fn fn;
	void *ctx;
};

/* map the ring of map @map_fd, @size bytes of data (a power of 2, whole
 * pages); @return : 0 or -errno */
int rec_ring_open(struct rec_ring *r, int map_fd, uint32_t size, rec_ring_fn fn, void *ctx);
/* every record written so far, in order, to @r's callback; @return :
 * how many */
int rec_ring_consume(struct rec_ring *r);
void rec_ring_close(struct rec_ring *r);

#endif
