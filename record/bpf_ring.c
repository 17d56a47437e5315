/*
 * bpf_ring.c - the BPF programs' ring buffer, read by the recorder
 * itself rather than through libbpf's ring_buffer.
 *
 * Why: libbpf maps the ring's data twice, back to back, so that a record
 * that wraps around the end reads as one piece; the kernel inserts every
 * page-table entry of such a mapping at mmap and removes them at munmap:
 * for the default 8 MiB ring, 4,097 pages, ~1.5 ms of CPU at every
 * recording's start and end.  Mapped once, half that; the rare record
 * that wraps is copied whole into a buffer of ours.
 *
 * The protocol is the kernel's (kernel/bpf/ringbuf.c) and libbpf's: a
 * writable page holds the consumer position, a read-only page the
 * producer position, then the data; each record has an 8-byte header
 * whose length carries a busy bit (reserved, not yet written) and a
 * discard bit, and takes its length rounded up to 8 with the header.
 * Positions grow without wrapping; a record's place is its position
 * masked by the data's size.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine.h"
#include "rec.h"

#ifdef IOT_HAVE_BPF
#include <linux/bpf.h>

#include "bpf/bpf_ring.h"

int rec_ring_open(struct rec_ring *r, int map_fd, uint32_t size, rec_ring_fn fn, void *ctx)
{
	long page = sysconf(_SC_PAGESIZE);
	void *cons, *ro;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (page <= 0 || !size || (size & (size - 1)) || size % (uint32_t)page)
		return -EINVAL;
	cons = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (cons == MAP_FAILED)
		return -errno;
	/* the producer's page and the data, once */
	ro = mmap(NULL, (size_t)page + size, PROT_READ, MAP_SHARED, map_fd, page);
	if (ro == MAP_FAILED) {
		int err = -errno;

		munmap(cons, (size_t)page);
		return err;
	}
	/* not copied into a child forked after it: fork would copy its
	 * page-table entries (all inserted at mmap) for an exec to tear
	 * down (~0.2 ms of CPU at 8 MiB), and no child reads the ring */
	if (madvise(cons, (size_t)page, MADV_DONTFORK) < 0 ||
	    madvise(ro, (size_t)page + size, MADV_DONTFORK) < 0) {
		int err = -errno;

		munmap(ro, (size_t)page + size);
		munmap(cons, (size_t)page);
		return err;
	}
	r->fd = map_fd;
	r->page = (size_t)page;
	r->mask = (uint64_t)size - 1;
	r->cons = cons;
	r->prod = ro;
	r->data = (const char *)ro + page;
	r->fn = fn;
	r->ctx = ctx;
	return 0;
}

void rec_ring_close(struct rec_ring *r)
{
	if (r->fd < 0)
		return;
	munmap((void *)r->prod, r->page + r->mask + 1);
	munmap(r->cons, r->page);
	free(r->tmp);
	r->tmp = NULL;
	r->fd = -1;
}

/* the record of @len bytes at @off in the data, in one piece: in place,
 * or copied if it wraps around the end; NULL: no memory for the copy */
static void *piece(struct rec_ring *r, uint64_t off, uint32_t len)
{
	size_t size = r->mask + 1, first;

	if (off + len <= size)
		return (void *)(r->data + off);
	if (len > r->tmp_cap) {
		char *t = realloc(r->tmp, len);

		if (!t)
			return NULL;
		r->tmp = t;
		r->tmp_cap = len;
	}
	first = size - off;
	memcpy(r->tmp, r->data + off, first);
	memcpy(r->tmp + first, r->data, len - first);
	return r->tmp;
}

/*
 * The consumer position is given back to the kernel once per 64 KiB of
 * records and at the end of a pass, not after each record: the programs
 * read it at every record they reserve, and a store per record on this
 * CPU took its cache line from the traced program's CPU each time while
 * a drain ran beside it.  The kernel sees less room for as long (64 KiB
 * of an 8 MiB ring); no record wakes the drain but the forced ones,
 * which do not look at it.
 */
#define CONS_STEP	(64u << 10)

/*
 * One pass: the records written before it began, not those written while
 * it runs.  A drain that went on while anything new had come kept a
 * program that writes as fast as the recorder reads (a recorder built with
 * the sanitizers) in one drain for seconds: the recorder's loop, which
 * passes a Ctrl-C on to the program and flushes the trace, did not turn,
 * and the program ran on until the ring overflowed.  What came during the
 * pass is the next turn's; poll() says at once that it waits.
 */
int rec_ring_consume(struct rec_ring *r)
{
	uint64_t cons, prod, given;
	int n = 0;

	if (r->fd < 0)
		return 0;
	cons = __atomic_load_n(r->cons, __ATOMIC_ACQUIRE);
	given = cons;
	prod = __atomic_load_n(r->prod, __ATOMIC_ACQUIRE);
	while (cons < prod) {
		const uint32_t *hdr = (const uint32_t *)(r->data + (cons & r->mask));
		uint32_t len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE), body;

		/* reserved, not written yet: the next drain takes it */
		if (len & BPF_RINGBUF_BUSY_BIT)
			break;
		body = len & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
		if (!(len & BPF_RINGBUF_DISCARD_BIT)) {
			void *rec = piece(r, (cons + BPF_RINGBUF_HDR_SZ) & r->mask, body);

			/* without memory for a wrapped copy the record is
			 * lost, and counted as the callback's drops are */
			if (rec)
				r->fn(r->ctx, rec, body);
			else
				r->lost++;
			n++;
		}
		cons += ((uint64_t)body + BPF_RINGBUF_HDR_SZ + 7) & ~(uint64_t)7;
		if (cons - given >= CONS_STEP) {
			__atomic_store_n(r->cons, cons, __ATOMIC_RELEASE);
			given = cons;
		}
	}
	if (cons != given)
		__atomic_store_n(r->cons, cons, __ATOMIC_RELEASE);
	return n;
}

#endif
