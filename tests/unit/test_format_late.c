/*
 * test_format_late.c - header keys known only after the header was
 * written (iot_writer_set_extra(), Index.extra): a reader finds them in
 * its header after the header's own, a key the header has keeps the
 * header's value, the index's checksum still holds, `iotape check
 * --repair` keeps them in the index it writes, and a file without an
 * index (not closed) has none.
 */
#include "format_model.h"

static const char *get(const struct iot_reader *r, const char *key)
{
	return iot_header_get(iot_reader_header(r), key);
}

/* write_sample() with the late keys set before the close (@close_it) */
static void write_late(const char *path, struct model *m, int close_it)
{
	struct iot_writer *w;
	struct iot_header h;
	struct iot_event ev;
	int64_t t = 5000000000;
	int i;

	fill_header(&h);
	rng_state = 0x9e3779b97f4a7c15ull;
	assert_int_equal(iot_writer_open(&w, path, &h, &manual_opts), 0);
	for (i = 0; i < 30; i++) {
		rand_event(&ev, &t);
		w_event(w, m, &ev);
	}
	assert_int_equal(iot_writer_flush(w, 1), 0);
	m_flush(m);
	assert_int_equal(iot_writer_set_extra(w, "record.bpf_gap_ns", "1373"), 0);
	/* the header has "phase" = "cp" (fill_header()) */
	assert_int_equal(iot_writer_set_extra(w, "phase", "late"), 0);
	assert_int_equal(iot_writer_set_extra(w, NULL, "x"), IOT_E_ARG);
	if (close_it)
		assert_int_equal(iot_writer_close(w, 0), 0);
	else
		iot_writer_abort(w);
}

static void test_late_keys_read(void **state)
{
	struct model m = { 0 };
	struct iot_reader *r;

	write_late(tpath("late.iotape"), &m, 1);
	assert_int_equal(iot_reader_open(&r, tpath("late.iotape")), 0);
	assert_false(iot_reader_summary(r)->index_damaged);
	assert_true(iot_reader_summary(r)->has_index);
	eq_str(get(r, "record.bpf_gap_ns"), "1373");
	eq_str(get(r, "phase"), "cp");
	eq_str(get(r, "k2"), "");
	assert_int_equal(iot_reader_header(r)->n_extra, 4);
	assert_int_equal(read_compare(r, &m), m.n);
	iot_reader_close(r);
	m_free(&m);
}

static void test_late_keys_repair(void **state)
{
	struct model m = { 0 };
	struct iot_reader *r;
	uint64_t kept;

	write_late(tpath("lrep.iotape"), &m, 1);
	assert_int_equal(iot_repair(tpath("lrep.iotape"), tpath("lrep2.iotape"), &kept), 0);
	assert_int_equal(iot_reader_open(&r, tpath("lrep2.iotape")), 0);
	assert_true(iot_reader_summary(r)->repaired);
	eq_str(get(r, "record.bpf_gap_ns"), "1373");
	iot_reader_close(r);
	m_free(&m);
}

static void test_late_keys_unclosed(void **state)
{
	struct model m = { 0 };
	struct iot_reader *r;

	write_late(tpath("lab.iotape"), &m, 0);
	assert_int_equal(iot_reader_open(&r, tpath("lab.iotape")), 0);
	assert_null(get(r, "record.bpf_gap_ns"));
	assert_int_equal(iot_reader_header(r)->n_extra, 2);
	iot_reader_close(r);
	m_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_late_keys_read),
		cmocka_unit_test(test_late_keys_repair),
		cmocka_unit_test(test_late_keys_unclosed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
