/*
 * arena.c - a bump allocator reset as a whole.
 *
 * The reader unpacks every chunk into one arena and resets it when it moves
 * to the next chunk: protobuf-c would otherwise call malloc once per field
 * and per repeated element, which dominates decoding time.
 */
#include <stdlib.h>
#include <string.h>

#include "iotape.h"
#include "internal.h"

struct arena_block {
	struct arena_block *next;
	size_t size, used;
	/* max_align_t keeps every allocation aligned for any type */
	max_align_t data[];
};

struct iot_arena {
	struct arena_block *head;	/* current block, first in the list */
	size_t block;			/* default block payload size */
	int keep_used;			/* iot_arena_keep_used() */
};

#define ARENA_ALIGN (sizeof(max_align_t))

static struct arena_block *block_new(size_t size)
{
	struct arena_block *b = malloc(sizeof(*b) + size);

	if (!b)
		return NULL;
	b->next = NULL;
	b->size = size;
	b->used = 0;
	return b;
}

struct iot_arena *iot_arena_new(size_t block)
{
	struct iot_arena *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->block = block ? block : 64 * 1024;
	return a;
}

void *iot_arena_alloc(struct iot_arena *a, size_t n)
{
	struct arena_block *b = a->head;
	size_t need = (n + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
	void *p;

	if (need < n)
		return NULL;	/* overflow */
	if (!b || b->size - b->used < need) {
		size_t size = need > a->block ? need : a->block;

		/* Keep a big block after a small one: after a reset the big one
		 * at the head is reused and the list stops growing. */
		b = block_new(size);
		if (!b)
			return NULL;
		b->next = a->head;
		a->head = b;
	}
	p = (char *)b->data + b->used;
	b->used += need;
	return p;
}

char *iot_arena_strndup(struct iot_arena *a, const char *s, size_t n)
{
	char *p = iot_arena_alloc(a, n + 1);

	if (!p)
		return NULL;
	if (n)
		memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void iot_arena_keep_used(struct iot_arena *a, int on)
{
	a->keep_used = on;
}

/* Keep only the largest block so that a steady workload allocates nothing
 * after its first chunk; with iot_arena_keep_used(), one block that holds
 * what was used since the last reset.  With the largest block only, every
 * chunk larger than it had its further blocks allocated and freed again,
 * and on a thread of its own the freed memory went back to the kernel (a
 * thread's malloc heap trims its top), to be faulted in and cleared again
 * at the next chunk (`report`'s decoding thread spent 8 % of its time in
 * the kernel so).  The block is what was used, not the blocks' sizes:
 * their unused ends would otherwise add up from reset to reset. */
void iot_arena_reset(struct iot_arena *a)
{
	struct arena_block *b, *next, *keep = NULL;
	size_t used = 0;

	for (b = a->head; b; b = b->next) {
		if (!keep || b->size > keep->size)
			keep = b;
		used += b->used;
	}
	if (a->keep_used && keep && keep->size < used)
		keep = NULL;	/* a new block, once the old are freed */
	else
		used = 0;
	for (b = a->head; b; b = next) {
		next = b->next;
		if (b != keep)
			free(b);
	}
	if (!keep && used) {
		used = (used + 65535) & ~(size_t)65535;
		/* none if it cannot be had: the next alloc tries again */
		keep = block_new(used > a->block ? used : a->block);
	}
	if (keep) {
		keep->next = NULL;
		keep->used = 0;
	}
	a->head = keep;
}

void iot_arena_free(struct iot_arena *a)
{
	struct arena_block *b, *next;

	if (!a)
		return;
	for (b = a->head; b; b = next) {
		next = b->next;
		free(b);
	}
	free(a);
}

static void *arena_pb_alloc(void *data, size_t size)
{
	return iot_arena_alloc(data, size);
}

static void arena_pb_free(void *data, void *p)
{
	/* freed all at once by iot_arena_reset() */
}

void iot_arena_pb_allocator(struct iot_arena *a, ProtobufCAllocator *pa)
{
	pa->alloc = arena_pb_alloc;
	pa->free = arena_pb_free;
	pa->allocator_data = a;
}
