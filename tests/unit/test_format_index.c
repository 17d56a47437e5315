/*
 * test_format_index.c - the index trailer's checksum (format 1.1): every
 * flipped byte of a written index is caught, the reader walks the frames
 * instead and still returns every event with the right totals; files
 * without the checksum (1.0) keep their index.
 */
#include "format_model.h"

/* Where the Index message of a closed file is: after the last frame and
 * the skippable frame's 8 bytes, before the 8-byte trailer. */
static void index_span(const uint8_t *buf, size_t len, size_t *start, size_t *n)
{
	uint32_t l = iot_get_le32(buf + len - 8);

	assert_memory_equal(buf + len - 4, "IOTX", 4);
	assert_true(l + 16 <= len);
	*start = len - 8 - l;
	*n = l;
}

/* The first event of the chunk iot_reader_seek_time(@t_ns) goes to: the
 * same whether the frame table came from the index or the walk. */
static int64_t first_after(struct iot_reader *r, int64_t t_ns)
{
	struct iot_item it;

	if (iot_reader_seek_time(r, t_ns))
		return -1;
	while (iot_reader_next(r, &it) > 0)
		if (it.kind == IOT_ITEM_EVENT)
			return it.u.ev.t_enter;
	return -1;
}

static void test_crc_known_answer(void **state)
{
	/* CRC-32C of "123456789" is 0xE3069283 (RFC 3720, B.4) */
	uint8_t b[9 + 5] = "123456789";

	b[9] = 0x55;
	iot_put_le32(b + 10, 0xE3069283u);
	assert_int_equal(iot_index_check(b, sizeof(b), 1), 1);
	b[3] ^= 0x10;
	assert_int_equal(iot_index_check(b, sizeof(b), 1), IOT_E_CORRUPT);
	/* 1.0: no checksum to demand, a wrong one is not believed either */
	assert_int_equal(iot_index_check(b, sizeof(b), 0), 0);
	assert_int_equal(iot_index_check(b, 4, 1), IOT_E_CORRUPT);
}

static void test_flip_every_index_byte(void **state)
{
	static const uint8_t masks[] = { 0x01, 0x80, 0xff };
	struct model m = { 0 };
	struct iot_reader *r;
	struct iot_summary clean;
	uint8_t *buf;
	size_t len, start, n, pos, k;
	int64_t mid, want_mid;

	write_sample(tpath("idx.iotape"), &m, 5, 40, 0, 1);
	buf = slurp(tpath("idx.iotape"), &len);
	assert_int_equal(iot_reader_open_mem(&r, buf, len), 0);
	clean = *iot_reader_summary(r);
	assert_true(clean.has_index);
	assert_false(clean.index_damaged);
	assert_true(clean.clean_close);
	assert_int_equal(clean.dropped_events, 7);
	assert_int_equal(clean.frames, 5);
	assert_int_equal(iot_reader_header(r)->format_minor, IOT_FORMAT_MINOR);
	mid = clean.t_min + (clean.t_max - clean.t_min) / 2;
	want_mid = first_after(r, mid);
	assert_true(want_mid != -1);
	iot_reader_close(r);

	index_span(buf, len, &start, &n);
	for (pos = start; pos < start + n; pos++) {
		for (k = 0; k < sizeof(masks); k++) {
			uint8_t *copy = malloc(len);
			const struct iot_summary *s;

			assert_non_null(copy);
			memcpy(copy, buf, len);
			copy[pos] ^= masks[k];
			assert_int_equal(iot_reader_open_mem(&r, copy, len), 0);
			s = iot_reader_summary(r);
			/* caught: not used, said so, and nothing lost */
			assert_false(s->has_index);
			assert_true(s->index_damaged);
			assert_int_equal(s->damage, 0);
			assert_int_equal(s->frames, clean.frames);
			assert_int_equal(s->events, clean.events);
			assert_int_equal(s->path_states, clean.path_states);
			assert_int_equal(s->processes, clean.processes);
			assert_int_equal(s->t_min, clean.t_min);
			assert_int_equal(s->t_max, clean.t_max);
			assert_int_equal(read_compare(r, &m), m.n);
			assert_int_equal(first_after(r, mid), want_mid);
			iot_reader_close(r);
			free(copy);
		}
	}
	free(buf);
	m_free(&m);
}

/* A 1.1 file whose index lost its checksum (a writer that forgot it) is
 * not trusted; the committed 1.0 traces, which never had one, are. */
static void test_without_checksum(void **state)
{
	const char *data = getenv("DATA") ? getenv("DATA") : "tests/data";
	struct model m = { 0 };
	struct iot_reader *r;
	const struct iot_summary *s;
	char path[PATH_MAX];
	uint8_t *buf;
	size_t len, start, n;

	write_sample(tpath("nocrc.iotape"), &m, 3, 30, 0, 1);
	buf = slurp(tpath("nocrc.iotape"), &len);
	index_span(buf, len, &start, &n);
	/* drop the 5 bytes of field 10 and fix both lengths */
	memmove(buf + start + n - 5, buf + start + n, 8);
	len -= 5;
	n -= 5;
	iot_put_le32(buf + start - 4, (uint32_t)(n + 8));
	iot_put_le32(buf + len - 8, (uint32_t)n);
	assert_int_equal(iot_reader_open_mem(&r, buf, len), 0);
	s = iot_reader_summary(r);
	assert_false(s->has_index);
	assert_true(s->index_damaged);
	assert_int_equal(s->events, 90);
	assert_int_equal(read_compare(r, &m), m.n);
	iot_reader_close(r);
	free(buf);
	m_free(&m);

	snprintf(path, sizeof(path), "%s/basic.iotape", data);
	assert_int_equal(iot_reader_open(&r, path), 0);
	assert_int_equal(iot_reader_header(r)->format_minor, 0);
	s = iot_reader_summary(r);
	assert_true(s->has_index);
	assert_false(s->index_damaged);
	assert_true(s->clean_close);
	assert_int_equal(s->events, 39);
	iot_reader_close(r);
}

/* Repair writes the checksum too, also into a 1.0 file's new index. */
static void test_repair_writes_checksum(void **state)
{
	struct model m = { 0 };
	struct iot_reader *r;
	uint8_t *buf;
	size_t len, start, n;
	uint64_t kept;

	write_sample(tpath("rep.iotape"), &m, 2, 30, 0, 0);
	assert_int_equal(iot_repair(tpath("rep.iotape"), tpath("rep2.iotape"), &kept), 0);
	buf = slurp(tpath("rep2.iotape"), &len);
	index_span(buf, len, &start, &n);
	assert_int_equal(iot_index_check(buf + start, n, IOT_FORMAT_MINOR), 1);
	buf[start + 1] ^= 0x40;
	assert_int_equal(iot_reader_open_mem(&r, buf, len), 0);
	assert_true(iot_reader_summary(r)->index_damaged);
	assert_int_equal(read_compare(r, &m), m.n);
	iot_reader_close(r);
	free(buf);
	m_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc_known_answer),
		cmocka_unit_test(test_flip_every_index_byte),
		cmocka_unit_test(test_without_checksum),
		cmocka_unit_test(test_repair_writes_checksum),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
