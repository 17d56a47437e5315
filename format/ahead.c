/*
 * ahead.c - decode the next chunk on a thread of its own while the caller
 * reads the current one (iot_reader_set_ahead()).
 *
 * Decompressing and decoding a chunk is half of what `iotape report` spends
 * per event; with two CPUs it can overlap the other half.  One job at a
 * time: the reader posts "load frame k into slot s", goes on reading its
 * current slot, and takes the result when it needs frame k.  The worker
 * touches only the slot it was given and what the reader never writes
 * after opening (the mapping, the frame table).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"

enum { IDLE, TODO, BUSY, DONE };

struct iot_ahead {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	iot_ahead_load_fn load;
	void *ctx;
	int state, stop;
	/* the job, and its result once DONE */
	void *slot;
	size_t frame;
	int mode, rc;
};

static void *worker(void *arg)
{
	struct iot_ahead *a = arg;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (a->state != TODO && !a->stop)
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->stop)
			break;
		a->state = BUSY;
		pthread_mutex_unlock(&a->mu);
		a->rc = a->load(a->ctx, a->slot, a->frame, a->mode);
		pthread_mutex_lock(&a->mu);
		a->state = DONE;
		pthread_cond_broadcast(&a->cv);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

int iot_ahead_start(struct iot_ahead **ap, iot_ahead_load_fn load, void *ctx)
{
	struct iot_ahead *a = calloc(1, sizeof(*a));
	int rc;

	if (!a)
		return -ENOMEM;
	a->load = load;
	a->ctx = ctx;
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	rc = pthread_create(&a->th, NULL, worker, a);
	if (rc) {
		pthread_mutex_destroy(&a->mu);
		pthread_cond_destroy(&a->cv);
		free(a);
		return -rc;
	}
	*ap = a;
	return 0;
}

/* Wait for the job in hand, if any, to end.  Called with a->mu held. */
static void wait_idle(struct iot_ahead *a)
{
	while (a->state == TODO || a->state == BUSY)
		pthread_cond_wait(&a->cv, &a->mu);
}

void iot_ahead_post(struct iot_ahead *a, void *slot, size_t frame, int mode)
{
	pthread_mutex_lock(&a->mu);
	wait_idle(a);
	a->slot = slot;
	a->frame = frame;
	a->mode = mode;
	a->state = TODO;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
}

int iot_ahead_take(struct iot_ahead *a, size_t frame, int mode, void **slot, int *rc)
{
	int got;

	pthread_mutex_lock(&a->mu);
	wait_idle(a);
	got = a->state == DONE && a->frame == frame && a->mode == mode;
	if (got) {
		*slot = a->slot;
		*rc = a->rc;
	}
	a->state = IDLE;
	pthread_mutex_unlock(&a->mu);
	return got;
}

void iot_ahead_stop(struct iot_ahead *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	wait_idle(a);
	a->stop = 1;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->th, NULL);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->cv);
	free(a);
}
