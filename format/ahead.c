/*
 * ahead.c - decode the next chunks on a thread of its own while the caller
 * reads the current one (iot_reader_set_ahead()).
 *
 * Decompressing and decoding a chunk is half of what `iotape report` spends
 * per event; with two CPUs it can overlap the other half.  The reader
 * posts jobs "load frame k into slot s" (up to IOT_AHEAD_MAX, in frame
 * order), goes on reading its current slot, and takes the oldest job's
 * result when it needs frame k.  The worker does the jobs in order and
 * touches only the slot of the job in hand and what the reader never
 * writes after opening (the mapping, the frame table).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"

struct job {
	void *slot;
	size_t frame;
	int mode, rc;
};

struct iot_ahead {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	iot_ahead_load_fn load;
	void *ctx;
	/* q[head], q[head + 1], ...: the n jobs posted, oldest first; the
	 * first done of them are done, and with busy set the worker is on
	 * the next one */
	struct job q[IOT_AHEAD_MAX];
	unsigned head, n, done;
	int busy, stop;
};

static void *worker(void *arg)
{
	struct iot_ahead *a = arg;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		struct job *j;
		int rc;

		while (a->done == a->n && !a->stop)
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->stop)
			break;
		j = &a->q[(a->head + a->done) % IOT_AHEAD_MAX];
		a->busy = 1;
		pthread_mutex_unlock(&a->mu);
		/* the job's place in the ring stays put while it runs: the
		 * reader only appends, and takes only jobs that are done */
		rc = a->load(a->ctx, j->slot, j->frame, j->mode);
		pthread_mutex_lock(&a->mu);
		j->rc = rc;
		a->busy = 0;
		a->done++;
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
	while (a->busy)
		pthread_cond_wait(&a->cv, &a->mu);
}

int iot_ahead_post(struct iot_ahead *a, void *slot, size_t frame, int mode)
{
	struct job *j;
	int ok;

	pthread_mutex_lock(&a->mu);
	ok = a->n < IOT_AHEAD_MAX;
	if (ok) {
		j = &a->q[(a->head + a->n++) % IOT_AHEAD_MAX];
		j->slot = slot;
		j->frame = frame;
		j->mode = mode;
		pthread_cond_broadcast(&a->cv);
	}
	pthread_mutex_unlock(&a->mu);
	return ok;
}

int iot_ahead_take(struct iot_ahead *a, size_t frame, int mode, void **slot, int *rc)
{
	const struct job *j;
	int got;

	pthread_mutex_lock(&a->mu);
	j = &a->q[a->head];
	got = a->n && j->frame == frame && j->mode == mode;
	if (got) {
		while (!a->done)
			pthread_cond_wait(&a->cv, &a->mu);
		*slot = j->slot;
		*rc = j->rc;
		a->head = (a->head + 1) % IOT_AHEAD_MAX;
		a->n--;
		a->done--;
	} else {
		/* not what was posted (a seek, spans switched): drop it all */
		wait_idle(a);
		a->n = a->done = 0;
	}
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
