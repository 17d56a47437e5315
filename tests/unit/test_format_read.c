/*
 * test_format_read.c - the reader's ways of reading a file: spans (each
 * chunk's events as one item, for a pass that needs only times and
 * processes) give what the events read one by one add up to; decoding
 * ahead on a thread gives the same items, after seeks, mode changes and
 * damage too.
 */
#include "format_model.h"

/* What a chunk's events add up to, from the model. */
static void model_span(const struct model *m, size_t from, size_t to,
		       struct iot_span *sp)
{
	size_t i;

	memset(sp, 0, sizeof(*sp));
	for (i = from; i < to; i++) {
		const struct iot_event *ev = &m->it[i].ev;
		int64_t end = ev->t_exit > ev->t_enter ? ev->t_exit : ev->t_enter;

		if (m->it[i].kind != IOT_ITEM_EVENT)
			continue;
		if (!sp->events) {
			sp->pid = ev->pid;
			sp->tid = ev->tid;
			sp->t_min = ev->t_enter;
			sp->t_end = end;
		}
		sp->events++;
		if (ev->t_enter < sp->t_min)
			sp->t_min = ev->t_enter;
		if (end > sp->t_end)
			sp->t_end = end;
	}
}

/* Read @r in spans and compare with the model: per chunk its processes,
 * then one span of its events. */
static void spans_compare(struct iot_reader *r, const struct model *m)
{
	struct iot_item it;
	size_t i = 0;
	uint64_t chunks = 0;
	int rc;

	while (i < m->n) {
		uint64_t c = m->it[i].chunk;
		size_t start = i, end = i;
		struct iot_span want;

		while (end < m->n && m->it[end].chunk == c)
			end++;
		for (; i < end; i++) {
			if (m->it[i].kind != IOT_ITEM_PROCESS)
				continue;
			assert_int_equal(iot_reader_next(r, &it), 1);
			eq_item(&m->it[i], &it);
		}
		model_span(m, start, end, &want);
		if (!want.events)
			continue;
		assert_int_equal(iot_reader_next(r, &it), 1);
		assert_int_equal(it.kind, IOT_ITEM_SPAN);
		assert_int_equal(it.chunk, c);
		assert_int_equal(it.u.span.events, want.events);
		assert_true(it.u.span.t_min == want.t_min);
		assert_true(it.u.span.t_end == want.t_end);
		assert_int_equal(it.u.span.pid, want.pid);
		assert_int_equal(it.u.span.tid, want.tid);
		chunks++;
	}
	rc = iot_reader_next(r, &it);
	assert_int_equal(rc, 0);
	assert_true(chunks > 1);
}

/* Spans, then (rewound) every item, then spans again: the mode holds from
 * the next chunk loaded, and reading in spans leaves nothing behind. */
static void test_spans(void **state)
{
	struct model m = { 0 };
	struct iot_reader *r;

	write_sample(tpath("spans.iotape"), &m, 5, 300, 0, 1);
	assert_int_equal(iot_reader_open(&r, tpath("spans.iotape")), 0);
	iot_reader_set_spans(r, 1);
	spans_compare(r, &m);
	iot_reader_set_spans(r, 0);
	assert_int_equal(iot_reader_rewind(r), 0);
	assert_int_equal(read_compare(r, &m), m.n);
	iot_reader_set_spans(r, 1);
	assert_int_equal(iot_reader_rewind(r), 0);
	spans_compare(r, &m);
	iot_reader_close(r);
	m_free(&m);
}

/* The items of the model from item @i on, read from @r. */
static void compare_rest(struct iot_reader *r, const struct model *m, size_t i)
{
	struct model tail = *m;

	tail.it = m->it + i;
	tail.n = m->n - i;
	assert_int_equal(read_compare(r, &tail), tail.n);
}

/* The items of the model from chunk @frame on, read from @r. */
static void compare_from(struct iot_reader *r, const struct model *m, uint64_t frame)
{
	size_t i = 0;

	while (i < m->n && m->it[i].chunk < frame)
		i++;
	compare_rest(r, m, i);
}

/* Decoding @depth chunks ahead: every item as without it; a seek, spans
 * switched on and off and the thread stopped and started between chunks
 * change nothing. */
static void ahead_depth(int depth)
{
	struct model m = { 0 };
	struct iot_reader *r;
	struct iot_item it;
	size_t c1, c2;
	int i;

	write_sample(tpath("ahead.iotape"), &m, 6, 200, 0, 1);
	assert_int_equal(iot_reader_open(&r, tpath("ahead.iotape")), 0);
	assert_int_equal(iot_reader_set_ahead(r, depth), 0);
	assert_int_equal(iot_reader_set_ahead(r, depth), 0);	/* already on */
	assert_int_equal(read_compare(r, &m), m.n);
	assert_int_equal(iot_reader_seek_frame(r, 3), 0);
	compare_from(r, &m, 3);
	/* a seek while the next chunk is being decoded */
	assert_int_equal(iot_reader_rewind(r), 0);
	assert_int_equal(iot_reader_next(r, &it), 1);
	assert_int_equal(iot_reader_seek_frame(r, 4), 0);
	compare_from(r, &m, 4);
	iot_reader_set_spans(r, 1);
	assert_int_equal(iot_reader_rewind(r), 0);
	spans_compare(r, &m);
	iot_reader_set_spans(r, 0);
	assert_int_equal(iot_reader_rewind(r), 0);
	/* off in chunk 0, on again in chunk 1, read without: items stay valid */
	for (i = 0; i < 250; i++) {
		assert_int_equal(iot_reader_next(r, &it), 1);
		eq_item(&m.it[i], &it);
		if (i == 100)
			assert_int_equal(iot_reader_set_ahead(r, 0), 0);
		if (i == 240)
			assert_int_equal(iot_reader_set_ahead(r, depth), 0);
	}
	assert_true(m.it[100].chunk == 0 && m.it[240].chunk == 1);
	compare_rest(r, &m, 250);
	/* off in chunk 1 (read from a slot of the thread's: the others,
	 * slot 0 too, are let go), on again in chunk 2 (made again) */
	for (c1 = 0; c1 < m.n && m.it[c1].chunk < 1; c1++)
		;
	for (c2 = c1; c2 < m.n && m.it[c2].chunk < 2; c2++)
		;
	assert_true(c2 + 20 < m.n && c2 - c1 > 20);
	assert_int_equal(iot_reader_rewind(r), 0);
	for (i = 0; i < (int)c2 + 20; i++) {
		assert_int_equal(iot_reader_next(r, &it), 1);
		eq_item(&m.it[i], &it);
		if (i == (int)c1 + 10)
			assert_int_equal(iot_reader_set_ahead(r, 0), 0);
		if (i == (int)c2 + 10)
			assert_int_equal(iot_reader_set_ahead(r, depth), 0);
	}
	compare_rest(r, &m, c2 + 20);
	/* another depth in the middle of a pass, then closed with chunks
	 * in flight */
	assert_int_equal(iot_reader_rewind(r), 0);
	for (i = 0; i < 250; i++) {
		assert_int_equal(iot_reader_next(r, &it), 1);
		eq_item(&m.it[i], &it);
		if (i == 10)
			assert_int_equal(iot_reader_set_ahead(r, depth == 1 ? 4 : 1), 0);
	}
	iot_reader_close(r);
	m_free(&m);
}

static void test_ahead(void **state)
{
	ahead_depth(1);
	ahead_depth(3);
}

/* A frame damaged after the index was written: without the thread, and
 * with it 1 and 4 chunks ahead (frames 4 and 5 in flight at the damage),
 * the same items before it and the same damage reported. */
static void test_ahead_damage(void **state)
{
	struct model m = { 0 };
	const struct iot_frame *fr;
	uint8_t *buf;
	size_t len, nfr, n[3];
	int ahead, rc[3];
	uint64_t dframe[3];

	write_sample(tpath("ahead_dmg.iotape"), &m, 6, 200, 0, 1);
	buf = slurp(tpath("ahead_dmg.iotape"), &len);
	for (ahead = 0; ahead < 3; ahead++) {
		struct iot_reader *r;
		struct iot_item it;

		assert_int_equal(iot_reader_open_mem(&r, buf, len), 0);
		if (ahead == 0) {
			fr = iot_reader_frames(r, &nfr, NULL);
			assert_true(nfr == 6);
			/* inside frame 3's compressed blocks: its checksum fails */
			buf[fr[3].offset + fr[3].size / 2] ^= 0x5a;
		}
		assert_int_equal(iot_reader_set_ahead(r, ahead == 2 ? 4 : ahead), 0);
		n[ahead] = 0;
		while ((rc[ahead] = iot_reader_next(r, &it)) > 0) {
			eq_item(&m.it[n[ahead]], &it);
			n[ahead]++;
		}
		dframe[ahead] = iot_reader_summary(r)->damage_frame;
		assert_int_equal(iot_reader_summary(r)->damage, IOT_E_CORRUPT);
		iot_reader_close(r);
	}
	assert_int_equal(n[0], n[1]);
	assert_int_equal(n[0], n[2]);
	assert_int_equal(rc[0], rc[1]);
	assert_int_equal(rc[0], rc[2]);
	assert_true(rc[0] < 0);
	assert_true(dframe[0] == 3 && dframe[1] == 3 && dframe[2] == 3);
	assert_true(n[0] > 0 && m.it[n[0]].chunk == 3);
	free(buf);
	m_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spans),
		cmocka_unit_test(test_ahead),
		cmocka_unit_test(test_ahead_damage),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
