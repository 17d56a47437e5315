/*
 * test_format_damage.c - the trace format library on damaged files:
 * truncation at every byte, flipped bytes, a writer that never closed,
 * repair; the fuzzer's seed corpus, each seed checked.
 */
#include "format_model.h"

/* ---- tests ---- */

static void test_truncate_every_byte(void **state)
{
	struct model m = { 0 };
	struct iot_reader *r;
	const struct iot_frame *fr;
	uint8_t *buf;
	size_t len, cut, nfr, i;
	uint64_t hdr;
	int rc;

	write_sample(tpath("trunc.iotape"), &m, 4, 40, 0, 1);
	buf = slurp(tpath("trunc.iotape"), &len);
	assert_int_equal(iot_reader_open_mem(&r, buf, len), 0);
	fr = iot_reader_frames(r, &nfr, &hdr);
	assert_int_equal(nfr, 4);
	for (cut = 0; cut <= len; cut++) {
		struct iot_reader *t;
		struct iot_item it;
		uint64_t want = 0, got = 0, items = 0;
		const struct iot_summary *s;
		uint8_t *copy = malloc(cut ? cut : 1);

		/* a copy of exactly @cut bytes, so that ASan sees any overread */
		memcpy(copy, buf, cut);
		rc = iot_reader_open_mem(&t, copy, cut);
		if (cut < hdr) {
			assert_true(rc == IOT_E_EMPTY || rc == IOT_E_TRUNCATED ||
				    rc == IOT_E_NOT_IOTAPE);
			if (cut == 0)
				assert_int_equal(rc, IOT_E_EMPTY);
			free(copy);
			continue;
		}
		assert_int_equal(rc, 0);
		for (i = 0; i < nfr; i++)
			if (fr[i].offset + fr[i].size <= cut)
				want += fr[i].events;
		while ((rc = iot_reader_next(t, &it)) > 0) {
			assert_true(items < m.n);
			eq_item(&m.it[items++], &it);
			got += it.kind == IOT_ITEM_EVENT;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(got, want);
		s = iot_reader_summary(t);
		assert_int_equal(s->events, want);
		if (cut < len) {
			assert_false(s->has_index);
			int boundary = cut == hdr;

			for (i = 0; i < nfr; i++)
				boundary |= fr[i].offset + fr[i].size == cut;
			/* cut at a frame boundary: nothing visible is lost */
			if (!boundary) {
				assert_int_equal(s->damage, IOT_E_TRUNCATED);
				assert_true(s->damage_offset < cut);
			} else {
				assert_int_equal(s->damage, 0);
			}
		} else {
			assert_true(s->has_index);
		}
		iot_reader_close(t);
		free(copy);
	}
	iot_reader_close(r);
	free(buf);
	m_free(&m);
}

/* Flip bytes at many positions: never a crash; damage inside a frame is
 * always noticed (zstd checksums), either at open or while reading. */
static void test_flipped_bytes(void **state)
{
	struct model m = { 0 };
	struct iot_reader *r;
	const struct iot_frame *fr;
	uint8_t *buf;
	size_t len, pos, nfr, idx_start;
	uint64_t hdr;
	int noticed = 0, tried = 0;

	write_sample(tpath("flip.iotape"), &m, 3, 50, 0, 1);
	buf = slurp(tpath("flip.iotape"), &len);
	assert_int_equal(iot_reader_open_mem(&r, buf, len), 0);
	fr = iot_reader_frames(r, &nfr, &hdr);
	idx_start = fr[nfr - 1].offset + fr[nfr - 1].size;
	for (pos = 0; pos < len; pos += (pos < 64 || pos + 64 > len) ? 1 : 7) {
		static const uint8_t masks[] = { 0x01, 0x80, 0xff };
		size_t k;

		for (k = 0; k < 3; k++) {
			uint8_t *copy = malloc(len);
			struct iot_reader *t;
			struct iot_item it;
			size_t items = 0;
			int rc, bad;

			memcpy(copy, buf, len);
			copy[pos] ^= masks[k];
			rc = iot_reader_open_mem(&t, copy, len);
			tried++;
			if (rc) {
				assert_true(rc < 0);
				bad = 1;
			} else {
				while ((rc = iot_reader_next(t, &it)) > 0)
					items++;
				bad = rc < 0 || iot_reader_summary(t)->damage;
				/* Some bits of a zstd frame do not change what it
				 * decodes to; then the content must be intact.  A
				 * flip in the index trailer fails its checksum (1.1)
				 * and the frames are walked: intact too. */
				if (!bad) {
					struct iot_header h;

					fill_header(&h);
					eq_header(&h, iot_reader_header(t));
					assert_int_equal(iot_reader_rewind(t), 0);
					assert_int_equal(read_compare(t, &m), m.n);
				}
				/* the Index message itself: always caught */
				if (pos >= idx_start + 8 && pos + 8 < len)
					assert_true(iot_reader_summary(t)->index_damaged);
				iot_reader_close(t);
			}
			noticed += bad;
			free(copy);
		}
	}
	assert_true(noticed > tried / 2);
	iot_reader_close(r);
	free(buf);
	m_free(&m);
}

/* A writer that never closed: no index, every flushed chunk readable,
 * the unflushed tail lost. */
static void test_abort_no_index(void **state)
{
	struct model m = { 0 };
	struct iot_reader *r;
	struct iot_writer *w;
	struct iot_header h;
	struct iot_event ev;
	const struct iot_summary *s;
	int64_t t = 0;
	size_t keep;

	write_sample(tpath("abort.iotape"), &m, 3, 100, 0, 0);
	assert_int_equal(iot_reader_open(&r, tpath("abort.iotape")), 0);
	s = iot_reader_summary(r);
	assert_false(s->has_index);
	assert_false(s->clean_close);
	assert_int_equal(s->damage, 0);
	assert_int_equal(s->events, 300);
	assert_int_equal(s->frames, 3);
	assert_int_equal(read_compare(r, &m), m.n);
	iot_reader_close(r);
	m_free(&m);

	/* events appended after the last flush are lost, the rest kept */
	fill_header(&h);
	assert_int_equal(iot_writer_open(&w, tpath("abort2.iotape"), &h, &manual_opts), 0);
	rand_event(&ev, &t);
	w_event(w, &m, &ev);
	assert_int_equal(iot_writer_flush(w, 1), 0);
	m_flush(&m);
	keep = m.n;
	rand_event(&ev, &t);
	w_event(w, &m, &ev);
	iot_writer_abort(w);
	assert_int_equal(iot_reader_open(&r, tpath("abort2.iotape")), 0);
	assert_int_equal(iot_reader_summary(r)->events, keep);
	assert_int_equal(read_compare(r, &m), keep);
	iot_reader_close(r);
	m_free(&m);
}

static void test_repair(void **state)
{
	struct model m = { 0 };
	struct iot_reader *r;
	const struct iot_summary *s;
	uint8_t *buf;
	size_t len, total;
	uint64_t kept = 0;

	/* unindexed: repair adds an index, keeps everything */
	write_sample(tpath("rep.iotape"), &m, 4, 60, 0, 0);
	assert_int_equal(iot_repair(tpath("rep.iotape"), tpath("rep2.iotape"), &kept), 0);
	assert_int_equal(kept, 240);
	assert_int_equal(iot_reader_open(&r, tpath("rep2.iotape")), 0);
	s = iot_reader_summary(r);
	assert_true(s->has_index);
	assert_true(s->repaired);
	assert_int_equal(s->events, 240);
	assert_int_equal(read_compare(r, &m), m.n);
	iot_reader_close(r);

	/* truncated inside the last chunk, repaired in place */
	buf = slurp(tpath("rep.iotape"), &len);
	spit(tpath("rep.iotape"), buf, len - 10);
	free(buf);
	assert_int_equal(iot_reader_open(&r, tpath("rep.iotape")), 0);
	assert_int_equal(iot_reader_summary(r)->damage, IOT_E_TRUNCATED);
	assert_int_equal(iot_reader_summary(r)->damage_frame, 3);
	iot_reader_close(r);
	assert_int_equal(iot_repair(tpath("rep.iotape"), tpath("rep.iotape"), &kept), 0);
	assert_int_equal(kept, 180);
	assert_int_equal(iot_reader_open(&r, tpath("rep.iotape")), 0);
	s = iot_reader_summary(r);
	assert_true(s->has_index);
	assert_true(s->repaired);
	assert_int_equal(s->damage, 0);
	assert_int_equal(s->events, 180);
	total = m.n;
	m.n = 0;
	while (m.n < total && m.it[m.n].chunk < 3)
		m.n++;
	assert_int_equal(read_compare(r, &m), m.n);
	iot_reader_close(r);
	m.n = total;	/* free every item */
	m_free(&m);
	assert_int_equal(iot_repair(tpath("missing"), tpath("x"), &kept), -ENOENT);
}

/* 1 if the reader takes @buf as a whole, undamaged trace; 0 if it refuses
 * it, or reports damage in the summary or while iterating. */
static int reads_clean(const uint8_t *buf, size_t len)
{
	struct iot_reader *r;
	struct iot_item it;
	const struct iot_summary *s;
	int rc, clean;

	if (iot_reader_open_mem(&r, buf, len))
		return 0;
	while ((rc = iot_reader_next(r, &it)) > 0)
		;
	s = iot_reader_summary(r);
	clean = rc == 0 && !s->damage && !s->index_damaged;
	iot_reader_close(r);
	return clean;
}

/* Write one seed and hold it to its name: a "valid-" seed reads cleanly,
 * every other one is refused or reported damaged; "record-" seeds are raw
 * Records for the fuzz harness, not files.  The seed must also be in the
 * corpus kept in tests/fuzz/corpus, or the fuzzer starts without it. */
static void emit(const char *dir, const char *name, const uint8_t *buf, size_t len)
{
	char p[PATH_MAX];
	const char *src = getenv("SRCDIR");

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	spit(p, buf, len);
	if (strncmp(name, "record-", 7) != 0 &&
	    reads_clean(buf, len) != (strncmp(name, "valid-", 6) == 0))
		fail_msg("seed %s: the reader %s it", name,
			 reads_clean(buf, len) ? "takes" : "refuses or finds damage in");
	snprintf(p, sizeof(p), "%s/tests/fuzz/corpus/%s", src ? src : ".", name);
	if (access(p, R_OK))
		fail_msg("seed %s is not in tests/fuzz/corpus; run this test with "
			 "IOTAPE_FUZZ_CORPUS=tests/fuzz/corpus", name);
}

/* The fuzzer's seed files: small valid traces, and truncated and corrupt
 * ones made from them, each checked by emit().  Written to a scratch
 * directory, or with IOTAPE_FUZZ_CORPUS=DIR to DIR (to refresh
 * tests/fuzz/corpus after a format change). */
static void test_emit_corpus(void **state)
{
	const char *dir = getenv("IOTAPE_FUZZ_CORPUS");
	char scratch[PATH_MAX];
	struct model m = { 0 };
	struct iot_writer_opts o = { .flush_events = 8, .flush_ms = -1 };
	struct iot_writer *w;
	struct iot_header h;
	struct iot_event ev;
	uint8_t *buf, *b2;
	size_t len, l2;
	int64_t t = 0;
	int i;
	struct iot_reader *r;
	const struct iot_frame *fr;
	size_t nfr, rawlen, skip;
	uint8_t *raw;

	if (!dir) {
		/* a copy: tpath()'s buffers are reused */
		snprintf(scratch, sizeof(scratch), "%s", tpath("corpus"));
		assert_int_equal(mkdir(scratch, 0755), 0);
		dir = scratch;
	}
	memset(&h, 0, sizeof(h));
	h.host = "h";
	/* one chunk with every record type */
	write_sample(tpath("c1.iotape"), &m, 1, 12, 0, 1);
	buf = slurp(tpath("c1.iotape"), &len);
	emit(dir, "valid-one-chunk", buf, len);
	emit(dir, "trunc-inside-chunk", buf, len - 40);
	emit(dir, "trunc-inside-index", buf, len - 5);
	buf[len / 2] ^= 0x10;
	emit(dir, "flip-in-chunk", buf, len);
	free(buf);
	m_free(&m);
	/* many small chunks, few strings */
	assert_int_equal(iot_writer_open(&w, tpath("c2.iotape"), &h, &o), 0);
	for (i = 0; i < 40; i++) {
		rand_event(&ev, &t);
		assert_int_equal(iot_writer_event(w, &ev), 0);
	}
	b2 = NULL;
	assert_int_equal(iot_writer_close(w, 3), 0);
	buf = slurp(tpath("c2.iotape"), &len);
	emit(dir, "valid-five-chunks", buf, len);
	emit(dir, "trunc-header", buf, 20);
	buf[len - 20] ^= 0x01;
	emit(dir, "flip-in-index", buf, len);
	free(buf);
	/* no index */
	write_sample(tpath("c3.iotape"), &m, 2, 6, 0, 0);
	buf = slurp(tpath("c3.iotape"), &len);
	emit(dir, "valid-no-index", buf, len);
	emit(dir, "no-index-trunc", buf, len - 3);
	free(buf);
	m_free(&m);
	/* empty, header only */
	assert_int_equal(iot_writer_open(&w, tpath("c4.iotape"), &h, NULL), 0);
	assert_int_equal(iot_writer_close(w, 0), 0);
	buf = slurp(tpath("c4.iotape"), &len);
	emit(dir, "valid-empty", buf, len);
	/* two files glued: a second header where a chunk should be */
	b2 = slurp(tpath("c2.iotape"), &l2);
	buf = realloc(buf, len + l2);
	memcpy(buf + len, b2, l2);
	emit(dir, "header-twice", buf, len + l2);
	free(buf);
	free(b2);
	write_raw_header(tpath("c5"), "iotape", IOT_FORMAT_MAJOR + 1, 0);
	buf = slurp(tpath("c5"), &len);
	emit(dir, "version-2", buf, len);
	free(buf);
	write_raw_header(tpath("c6"), "iotape", IOT_FORMAT_MAJOR, 1);
	buf = slurp(tpath("c6"), &len);
	emit(dir, "chunk-first", buf, len);
	free(buf);
	/* raw Records ('R' + bytes) for the fuzzer's chunk decoder path */
	buf = slurp(tpath("c1.iotape"), &len);
	assert_int_equal(iot_reader_open_mem(&r, buf, len), 0);
	fr = iot_reader_frames(r, &nfr, NULL);
	assert_int_equal(nfr, 1);
	raw = malloc(ZSTD_getFrameContentSize(buf + fr[0].offset, fr[0].size));
	rawlen = ZSTD_decompress(raw, ZSTD_getFrameContentSize(buf + fr[0].offset, fr[0].size),
				 buf + fr[0].offset, fr[0].size);
	assert_false(ZSTD_isError(rawlen));
	/* skip the TraceFile tag and varint length */
	for (skip = 1; raw[skip] & 0x80; skip++)
		;
	skip++;
	raw[skip - 1] = 'R';
	emit(dir, "record-chunk", raw + skip - 1, rawlen - skip + 1);
	iot_reader_close(r);
	free(raw);
	free(buf);
	emit(dir, "not-zstd", (const uint8_t *)"iotape?\n", 8);
	emit(dir, "skippable-only", (const uint8_t *)"\x50\x2a\x4d\x18\x04\0\0\0\0\0\0\0", 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truncate_every_byte),
		cmocka_unit_test(test_flipped_bytes),
		cmocka_unit_test(test_abort_no_index),
		cmocka_unit_test(test_repair),
		cmocka_unit_test(test_emit_corpus),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
