/*
 * test_format_read.c - the reader's ways of reading a file: spans (each
 * chunk's events as one item, for a pass that needs only times and
 * processes) give what the events read one by one add up to.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spans),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
