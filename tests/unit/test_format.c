/*
 * test_format.c - the trace format library: every field of every record
 * round trip, the header, seeking, the flush policy, the background writer,
 * write errors, open errors, and decoding with stock zstd + protoc.
 */
#include "format_model.h"

/* ---- tests ---- */

static void test_round_trip(void **state)
{
	struct model m = { 0 };
	struct iot_reader *r;
	const struct iot_summary *s;
	struct iot_header h;
	size_t i, ev = 0, ps = 0, pr = 0;

	write_sample(tpath("rt.iotape"), &m, 5, 300, 0, 1);
	assert_int_equal(iot_reader_open(&r, tpath("rt.iotape")), 0);
	fill_header(&h);
	eq_header(&h, iot_reader_header(r));
	assert_int_equal(read_compare(r, &m), m.n);
	for (i = 0; i < m.n; i++) {
		ev += m.it[i].kind == IOT_ITEM_EVENT;
		ps += m.it[i].kind == IOT_ITEM_PATH_STATE;
		pr += m.it[i].kind == IOT_ITEM_PROCESS;
	}
	s = iot_reader_summary(r);
	assert_int_equal(s->frames, 5);
	assert_int_equal(s->events, ev);
	assert_int_equal(s->path_states, ps);
	assert_int_equal(s->processes, pr);
	assert_int_equal(s->dropped_events, 7);
	assert_true(s->has_index);
	assert_true(s->clean_close);
	assert_false(s->repaired);
	assert_int_equal(s->damage, 0);
	/* a second pass after rewind gives the same */
	assert_int_equal(iot_reader_rewind(r), 0);
	assert_int_equal(read_compare(r, &m), m.n);
	iot_reader_close(r);
	m_free(&m);
}

/* Extreme values: deltas that overflow int64, negative returns, times
 * that go backwards between threads. */
static void test_delta_edges(void **state)
{
	static const int64_t times[] = {
		0, INT64_MAX, INT64_MIN, -1, 1, INT64_MAX - 1, INT64_MIN + 1,
		1000, 999, 5, 1000000000000, -1000000000000, 42,
	};
	struct model m = { 0 };
	struct iot_writer *w;
	struct iot_reader *r;
	struct iot_header h;
	struct iot_event ev;
	size_t i;

	fill_header(&h);
	assert_int_equal(iot_writer_open(&w, tpath("edge.iotape"), &h, &manual_opts), 0);
	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		memset(&ev, 0, sizeof(ev));
		ev.t_enter = times[i];
		ev.t_exit = times[(i + 3) % (sizeof(times) / sizeof(times[0]))];
		ev.tid = i % 2 ? INT32_MAX : INT32_MIN;
		ev.pid = i % 2 ? -7 : 0;
		ev.nr = 257;
		ev.ret = i % 3 ? -ENOENT : INT64_MIN;
		ev.nargs = 6;
		ev.args[0] = INT64_MIN;
		ev.args[1] = INT64_MAX;
		ev.args[2] = -1;
		ev.args[3] = (int64_t)i;
		ev.args[4] = -100;	/* AT_FDCWD */
		ev.args[5] = 0;
		ev.flags = i == 4 ? UINT32_MAX : 0;
		w_event(w, &m, &ev);
	}
	/* many threads, each back several times: the tid table grows and
	 * every thread's think time is taken from its own previous exit */
	for (i = 0; i < 300; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.tid = (int32_t)(i % 100) * 7 + 1;
		ev.pid = (int32_t)(i % 10);
		ev.t_enter = 1000000 - (int64_t)i * 333 + (int64_t)(i % 100) * 50000;
		ev.t_exit = ev.t_enter + (int64_t)i;
		ev.nr = 3;
		ev.nargs = 1;
		ev.args[0] = (int64_t)i;
		w_event(w, &m, &ev);
	}
	assert_int_equal(iot_writer_flush(w, 1), 0);
	m_flush(&m);
	assert_int_equal(iot_writer_close(w, 0), 0);
	assert_int_equal(iot_reader_open(&r, tpath("edge.iotape")), 0);
	assert_int_equal(read_compare(r, &m), m.n);
	iot_reader_close(r);
	m_free(&m);
}

/* Strings up to PATH_MAX, with every byte value. */
static void test_long_strings(void **state)
{
	struct model m = { 0 };
	struct iot_writer *w;
	struct iot_reader *r;
	struct iot_header h;
	struct iot_event ev;
	char *big = malloc(PATH_MAX + 1), *big2 = malloc(PATH_MAX);
	int i;

	for (i = 0; i < PATH_MAX; i++) {
		big[i] = (char)(i % 255 + 1);
		big2[i] = (char)(255 - i % 256);
	}
	big[PATH_MAX] = 0;
	fill_header(&h);
	assert_int_equal(iot_writer_open(&w, tpath("long.iotape"), &h, &manual_opts), 0);
	for (i = 0; i < 20; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.t_enter = i;
		ev.t_exit = i + 1;
		ev.nr = 82;	/* rename */
		ev.path = big;
		ev.path_len = (uint32_t)(PATH_MAX - i);
		ev.path2 = big2;
		ev.path2_len = (uint32_t)(PATH_MAX - 2 * i);
		w_event(w, &m, &ev);
	}
	m_flush(&m);
	assert_int_equal(iot_writer_close(w, 0), 0);
	assert_int_equal(iot_reader_open(&r, tpath("long.iotape")), 0);
	assert_int_equal(read_compare(r, &m), m.n);
	iot_reader_close(r);
	m_free(&m);
	free(big);
	free(big2);
}

static void test_empty_trace(void **state)
{
	struct iot_writer *w;
	struct iot_reader *r;
	struct iot_header h;
	struct iot_item it;
	const struct iot_summary *s;

	memset(&h, 0, sizeof(h));
	assert_int_equal(iot_writer_open(&w, tpath("empty.iotape"), &h, NULL), 0);
	assert_int_equal(iot_writer_close(w, 0), 0);
	assert_int_equal(iot_reader_open(&r, tpath("empty.iotape")), 0);
	s = iot_reader_summary(r);
	assert_true(s->has_index);
	assert_int_equal(s->frames, 0);
	assert_int_equal(s->events, 0);
	assert_int_equal(iot_reader_next(r, &it), 0);
	assert_null(iot_reader_header(r)->host);
	assert_string_equal(iot_reader_header(r)->tool_version, IOT_VERSION);
	iot_reader_close(r);
}

/* Cut the file at every byte: open fails with a clear code or reads
 * exactly the events of the complete chunks. */
static void test_seek(void **state)
{
	struct model m = { 0 };
	struct iot_reader *r;
	const struct iot_frame *fr;
	struct iot_item it;
	size_t nfr, i, first;
	int pass;

	write_sample(tpath("seek.iotape"), &m, 6, 50, 0, 1);
	write_sample(tpath("seek-noidx.iotape"), &m, 6, 50, 0, 0);
	/* with and without an index the answers are the same */
	for (pass = 0; pass < 2; pass++) {
		assert_int_equal(iot_reader_open(&r, tpath(pass ? "seek-noidx.iotape"
								  : "seek.iotape")), 0);
		assert_int_equal(iot_reader_summary(r)->has_index, !pass);
		fr = iot_reader_frames(r, &nfr, NULL);
		assert_int_equal(nfr, 6);
		assert_int_equal(iot_reader_seek_frame(r, 4), 0);
		assert_int_equal(iot_reader_next(r, &it), 1);
		assert_int_equal(it.chunk, 4);
		for (first = 0; m.it[first].chunk != 4; first++)
			;
		eq_item(&m.it[first], &it);
		assert_int_equal(iot_reader_seek_frame(r, 6), 0);
		assert_int_equal(iot_reader_next(r, &it), 0);
		assert_int_equal(iot_reader_seek_frame(r, 7), IOT_E_RANGE);
		/* by time: the first chunk whose events reach @t */
		for (i = 0; i < nfr; i++) {
			assert_int_equal(iot_reader_seek_time(r, fr[i].t_max), 0);
			assert_int_equal(iot_reader_next(r, &it), 1);
			assert_true(it.chunk <= i);
			if (it.chunk < i)
				assert_true(fr[it.chunk].t_max >= fr[i].t_max);
		}
		assert_int_equal(iot_reader_seek_time(r, INT64_MIN), 0);
		assert_int_equal(iot_reader_next(r, &it), 1);
		assert_int_equal(it.chunk, 0);
		assert_int_equal(iot_reader_seek_time(r, fr[nfr - 1].t_max + 1), IOT_E_RANGE);
		assert_int_equal(iot_reader_next(r, &it), 0);
		iot_reader_close(r);
	}
	m_free(&m);
}

/* The background writer produces the very same bytes. */
static void test_background_same(void **state)
{
	struct model m1 = { 0 }, m2 = { 0 };
	uint8_t *a, *b;
	size_t la, lb;
	struct iot_reader *r;

	write_sample(tpath("fg.iotape"), &m1, 7, 333, 0, 1);
	write_sample(tpath("bg.iotape"), &m2, 7, 333, 1, 1);
	a = slurp(tpath("fg.iotape"), &la);
	b = slurp(tpath("bg.iotape"), &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	assert_int_equal(iot_reader_open(&r, tpath("bg.iotape")), 0);
	assert_int_equal(read_compare(r, &m2), m2.n);
	iot_reader_close(r);
	free(a);
	free(b);
	m_free(&m1);
	m_free(&m2);
}

/* The flush policy: every flush_events events, a chunk. */
static void test_flush_policy(void **state)
{
	struct iot_writer_opts o = { .flush_events = 100, .flush_ms = -1 };
	struct model m = { 0 };
	struct iot_writer *w;
	struct iot_reader *r;
	struct iot_header h;
	struct iot_event ev;
	int64_t t = 0;
	uint64_t bytes;
	int i;

	fill_header(&h);
	assert_int_equal(iot_writer_open(&w, tpath("pol.iotape"), &h, &o), 0);
	bytes = iot_writer_bytes(w);
	assert_true(bytes > 0);
	for (i = 0; i < 1050; i++) {
		rand_event(&ev, &t);
		w_event(w, &m, &ev);
		if (m.n % 100 == 0)
			m_flush(&m);
	}
	assert_true(iot_writer_bytes(w) > bytes);
	m_flush(&m);
	assert_int_equal(iot_writer_close(w, 0), 0);
	assert_int_equal(iot_reader_open(&r, tpath("pol.iotape")), 0);
	assert_int_equal(iot_reader_summary(r)->frames, 11);
	assert_int_equal(read_compare(r, &m), m.n);
	iot_reader_close(r);
	m_free(&m);

	/* by time: flush_ms = 1 with a pause flushes before 100 events */
	o.flush_ms = 1;
	assert_int_equal(iot_writer_open(&w, tpath("pol2.iotape"), &h, &o), 0);
	for (i = 0; i < 10; i++) {
		rand_event(&ev, &t);
		assert_int_equal(iot_writer_event(w, &ev), 0);
		usleep(2000);
	}
	assert_int_equal(iot_writer_close(w, 0), 0);
	assert_int_equal(iot_reader_open(&r, tpath("pol2.iotape")), 0);
	assert_true(iot_reader_summary(r)->frames >= 2);
	assert_int_equal(iot_reader_summary(r)->events, 10);
	iot_reader_close(r);
}

/* Written data (record --data): each event's bytes come back as written,
 * across chunks flushed by the events' count and by the data's size (8
 * MiB), next to events without; more than IOT_DATA_MAX is refused. */
static void test_data_round_trip(void **state)
{
	struct iot_writer_opts o = { .flush_events = 50, .flush_ms = -1 };
	const uint32_t big = 3u << 20;
	struct iot_writer *w;
	struct iot_reader *r;
	struct iot_header h;
	struct iot_event ev;
	struct iot_item it;
	uint8_t *buf = malloc(big);
	uint32_t lens[200];
	uint64_t seen = 0, bytes = 0;
	int64_t t = 0;
	int i, n = 0;

	assert_non_null(buf);
	for (i = 0; i < (int)big; i++)
		buf[i] = (uint8_t)(i * 7 + i / 251);
	fill_header(&h);
	assert_int_equal(iot_writer_open(&w, tpath("data.iotape"), &h, &o), 0);
	for (i = 0; i < 200; i++) {
		rand_event(&ev, &t);
		ev.nr = iot_syscall_by_name("write")->nr;
		lens[i] = i % 3 == 0 ? 0 : i % 10 == 1 && i < 50 ? big - (uint32_t)i : (uint32_t)(i * 13);
		ev.data = lens[i] ? buf + i : NULL;
		ev.data_len = lens[i];
		ev.ret = lens[i];
		ev.flags = lens[i] ? 0 : IOT_EV_NODATA;
		assert_int_equal(iot_writer_event(w, &ev), 0);
		bytes += lens[i];
	}
	ev.data = buf;
	ev.data_len = IOT_DATA_MAX + 1;
	assert_int_equal(iot_writer_event(w, &ev), -EINVAL);
	assert_int_equal(iot_writer_close(w, 0), 0);
	assert_int_equal(iot_reader_open(&r, tpath("data.iotape")), 0);
	/* 200 events in 50s make 4 chunks; three 3 MiB writes in 50 events
	 * pass 8 MiB: more */
	assert_true(iot_reader_summary(r)->frames > 4);
	while (iot_reader_next(r, &it) > 0) {
		if (it.kind != IOT_ITEM_EVENT)
			continue;
		assert_int_equal(it.u.ev.data_len, lens[n]);
		assert_int_equal(it.u.ev.flags & IOT_EV_NODATA, lens[n] ? 0 : IOT_EV_NODATA);
		if (lens[n])
			assert_memory_equal(it.u.ev.data, buf + n, lens[n]);
		else
			assert_null(it.u.ev.data);
		seen += it.u.ev.data_len;
		n++;
	}
	assert_int_equal(n, 200);
	assert_true(seen == bytes);
	iot_reader_close(r);
	free(buf);
}

static void write_errors(int background)
{
	struct iot_writer_opts o = { .flush_events = 64, .flush_ms = -1,
				     .background = background };
	struct iot_writer *w;
	struct iot_header h;
	struct iot_event ev;
	struct rlimit old, lim;
	int64_t t = 0;
	int fd, i, rc = 0;

	fill_header(&h);
	/* /dev/full: the header write already fails */
	fd = open("/dev/full", O_WRONLY);
	if (fd >= 0)
		assert_int_equal(iot_writer_fdopen(&w, fd, &h, &o), -ENOSPC);
	/* a file size limit: the header fits, chunks soon do not */
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 16384;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	assert_int_equal(iot_writer_open(&w, tpath("efbig.iotape"), &h, &o), 0);
	for (i = 0; i < 20000 && rc == 0; i++) {
		rand_event(&ev, &t);
		rc = iot_writer_event(w, &ev);
		if (background && i % 1000 == 999 && rc == 0)
			rc = iot_writer_flush(w, 1);
	}
	assert_int_equal(rc, -EFBIG);
	assert_int_equal(iot_writer_event(w, &ev), -EFBIG);
	assert_int_equal(iot_writer_close(w, 0), -EFBIG);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
}

static void test_write_error(void **state)
{
	struct iot_reader *r;

	write_errors(0);
	write_errors(1);
	/* what did reach the disk reads as a truncated trace */
	assert_int_equal(iot_reader_open(&r, tpath("efbig.iotape")), 0);
	assert_true(iot_reader_summary(r)->events > 0);
	assert_int_equal(iot_reader_summary(r)->damage, IOT_E_TRUNCATED);
	iot_reader_close(r);
}

/* A header record with @major written by hand. */
static void test_open_errors(void **state)
{
	struct iot_reader *r;

	assert_int_equal(iot_reader_open(&r, tpath("does-not-exist")), -ENOENT);
	assert_int_equal(iot_reader_open(&r, tmpdir), -EISDIR);
	spit(tpath("zero"), "", 0);
	assert_int_equal(iot_reader_open(&r, tpath("zero")), IOT_E_EMPTY);
	spit(tpath("text"), "hello, world\n", 13);
	assert_int_equal(iot_reader_open(&r, tpath("text")), IOT_E_NOT_IOTAPE);
	write_raw_header(tpath("badmagic"), "iotapf", 1, 0);
	assert_int_equal(iot_reader_open(&r, tpath("badmagic")), IOT_E_NOT_IOTAPE);
	write_raw_header(tpath("chunk0"), "iotape", 1, 1);
	assert_int_equal(iot_reader_open(&r, tpath("chunk0")), IOT_E_NOT_IOTAPE);
	write_raw_header(tpath("v2"), "iotape", IOT_FORMAT_MAJOR + 1, 0);
	assert_int_equal(iot_reader_open(&r, tpath("v2")), IOT_E_VERSION);
	/* a newer minor of the same major reads */
	write_raw_header(tpath("v1.99"), "iotape", IOT_FORMAT_MAJOR, 0);
	assert_int_equal(iot_reader_open(&r, tpath("v1.99")), 0);
	assert_int_equal(iot_reader_header(r)->format_minor, 99);
	assert_int_equal(iot_reader_summary(r)->events, 0);
	iot_reader_close(r);
	assert_string_equal(iot_strerror(-ENOENT), strerror(ENOENT));
	assert_string_equal(iot_strerror(IOT_E_TRUNCATED),
			    "truncated (the file ends inside a frame)");
	assert_string_equal(iot_strerror(-123456), "unknown error");
}

/* The file decodes with stock tools, as the README says:
 * zstd -dc | protoc --decode (both installed by 'make check'). */
static void test_protoc_decodes(void **state)
{
	struct model m = { 0 };
	char cmd[2 * PATH_MAX + 256];
	const char *src = getenv("SRCDIR");
	FILE *p;
	char line[512] = "";	/* strncmp of 16 may read past a short line's end */
	int records = 0, headers = 0, chunks = 0, split = 0;

	if (system("command -v protoc >/dev/null 2>&1 && command -v zstd >/dev/null 2>&1"))
		fail_msg("protoc or zstd is not installed (packages protobuf-compiler, "
			 "zstd; 'make check' installs them)");
	write_sample(tpath("protoc.iotape"), &m, 2, 20, 0, 1);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && zstd -q -dc '%s' | protoc --decode=iotape.TraceFile "
		 "format/trace.proto", src ? src : ".", tpath("protoc.iotape"));
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		records += strncmp(line, "record {", 8) == 0;
		headers += strstr(line, "magic: \"iotape\"") != NULL;
		chunks += strncmp(line, "  chunk {", 9) == 0;
		split += strncmp(line, "    t_enter_lo: ", 16) == 0;
	}
	assert_int_equal(pclose(p), 0);
	assert_int_equal(records, 3);
	assert_int_equal(headers, 1);
	assert_int_equal(chunks, 2);
	assert_int_equal(split, 40);	/* format 1.3: one per event */
	m_free(&m);
}

/* Fields out of order, repeated fields unpacked or split over several
 * records, unknown fields of every wire type: the reader must take them
 * as protobuf says. */
static void test_foreign_encoding(void **state)
{
	struct pbuf c = { .n = 0 };
	struct iot_reader *r;
	struct iot_item it;
	const struct iot_frame *fr;
	uint8_t *file;
	size_t nfr;

	pb_key(&c, 99, 0);			/* unknown varint */
	pb_varint(&c, 12345);
	pb_bytes(&c, 2, "/x", 2);		/* strings */
	pb_key(&c, 3, 0);			/* tids, unpacked */
	pb_varint(&c, zz(7));
	pb_packed(&c, 4, (uint64_t[]){ zz(70) }, 1);
	pb_packed(&c, 5, (uint64_t[]){ zz(1000) }, 1);	/* t_enter, part 1 */
	pb_key(&c, 6, 0);			/* duration, unpacked */
	pb_varint(&c, 10);
	pb_key(&c, 6, 0);
	pb_varint(&c, 20);
	pb_packed(&c, 7, (uint64_t[]){ 0, 0 }, 2);
	pb_key(&c, 8, 0);			/* nr, unpacked */
	pb_varint(&c, 257);
	pb_key(&c, 8, 0);
	pb_varint(&c, 3);
	pb_packed(&c, 9, (uint64_t[]){ zz(3), zz(0) }, 2);
	pb_packed(&c, 10, (uint64_t[]){ 2, 1 }, 2);
	pb_key(&c, 11, 0);			/* args, unpacked */
	pb_varint(&c, zz(-100));
	pb_packed(&c, 11, (uint64_t[]){ zz(5), zz(3) }, 2);
	pb_packed(&c, 12, (uint64_t[]){ 1, 2 }, 2);
	pb_bytes(&c, 96, "junk", 4);		/* unknown LEN */
	pb_key(&c, 97, 1);			/* unknown fixed64 */
	memcpy(c.b + c.n, "12345678", 8);
	c.n += 8;
	pb_key(&c, 98, 5);			/* unknown fixed32 */
	memcpy(c.b + c.n, "1234", 4);
	c.n += 4;
	pb_packed(&c, 5, (uint64_t[]){ zz(5) }, 1);	/* t_enter, part 2 */
	pb_key(&c, 1, 0);			/* seq, last */
	pb_varint(&c, 0);
	assert_int_equal(open_handmade(&c, &r, &file), 0);
	fr = iot_reader_frames(r, &nfr, NULL);
	assert_int_equal(nfr, 1);
	assert_int_equal(fr[0].events, 2);
	assert_int_equal(iot_reader_next(r, &it), 1);
	assert_int_equal(it.u.ev.t_enter, 1000);
	assert_int_equal(it.u.ev.t_exit, 1010);
	assert_int_equal(it.u.ev.tid, 7);
	assert_int_equal(it.u.ev.pid, 70);
	assert_int_equal(it.u.ev.nr, 257);
	assert_int_equal(it.u.ev.ret, 3);
	assert_int_equal(it.u.ev.nargs, 2);
	assert_int_equal(it.u.ev.args[0], -100);
	assert_int_equal(it.u.ev.args[1], 5);
	assert_string_equal(it.u.ev.path, "/x");
	assert_int_equal(iot_reader_next(r, &it), 1);
	assert_int_equal(it.u.ev.t_enter, 1015);
	assert_int_equal(it.u.ev.t_exit, 1035);
	assert_int_equal(it.u.ev.nr, 3);
	assert_int_equal(it.u.ev.nargs, 1);
	assert_int_equal(it.u.ev.args[0], 3);
	assert_string_equal(it.u.ev.path, "/x");
	assert_null(it.u.ev.path2);
	assert_int_equal(iot_reader_next(r, &it), 0);
	iot_reader_close(r);
	free(file);
}

/* Varint @u in exactly @len bytes (1-10; padded with 0x80 bytes, as
 * protobuf allows), appended to @p. */
static void pb_varint_len(struct pbuf *p, uint64_t u, unsigned len)
{
	unsigned i;

	for (i = 0; i + 1 < len; i++)
		p->b[p->n++] = (uint8_t)(((u >> (7 * i)) & 0x7f) | 0x80);
	p->b[p->n++] = (uint8_t)((u >> (7 * i)) & 0x7f);
}

/* The decoder's paths through a column: args of every varint length
 * (1 to 10 bytes, shortest and padded forms) at every place, the last
 * ones fewer than 8 bytes from the field's end (one packed record: the
 * reader decodes them event by event); columns of one-byte varints
 * only, split over records (the second appended to the first); a column
 * one record of which has varints of 1-9 bytes; signed one-byte values;
 * an empty record of a column that has no values; then args with an
 * 11-byte varint and one cut at the field's end, which are corrupt. */
static void test_varint_widths(void **state)
{
	enum { N = 48, NA = N * 6 };
	static int64_t want[NA];
	static uint64_t ones[N], dur[N], ret[N], nr[N], six[N];
	struct pbuf c = { .n = 0 }, a = { .n = 0 };
	struct iot_reader *r;
	struct iot_item it;
	uint8_t *file;
	static size_t off[NA + 1];
	size_t i, k;
	int bad;

	for (i = 0; i < NA; i++) {
		/* lengths 1..10 in an order that puts each at every place */
		unsigned len = 1 + (unsigned)((i * 7 + i / 10) % 10);
		uint64_t u = len == 1 ? i % 128 : (1ull << (7 * (len - 1))) | (i * 0x9e3779b97f4a7c15ull >> (71 - 7 * (len > 9 ? 9 : len)));

		if (len == 10)
			u = (1ull << 63) | i;
		want[i] = (int64_t)((u >> 1) ^ -(u & 1));
		off[i] = a.n;
		/* every fifth value in a padded form of 10 bytes */
		pb_varint_len(&a, u, i % 5 == 4 ? 10 : len);
	}
	for (i = 0; i < N; i++) {
		ones[i] = 0;
		/* one-byte, then of 1-9 bytes */
		dur[i] = i < 20 ? i : (3ull << (7 * (i % 9))) + i;
		ret[i] = zz((int64_t)i - 24);
		nr[i] = 257;
		six[i] = 6;
	}
	off[NA] = a.n;
	/* bad 1-16: value NA - bad in 11 bytes, at 16 places in the words
	 * the bytes are checked by; 17: the last value cut at 2 bytes */
	for (bad = 0; bad <= 17; bad++) {
		c.n = 0;
		pb_packed(&c, 3, (uint64_t[]){ zz(7) }, 1);
		pb_packed(&c, 5, ones, N);		/* t_enter: all 0 */
		pb_packed(&c, 6, dur, 20);
		pb_packed(&c, 6, dur + 20, N - 20);
		pb_packed(&c, 7, ones, 13);		/* tid_idx over two records */
		pb_packed(&c, 7, ones + 13, N - 13);
		pb_packed(&c, 8, nr, N);
		pb_packed(&c, 9, ret, N);
		pb_packed(&c, 10, six, N);
		pb_bytes(&c, 14, "", 0);	/* an empty record: no array */
		if (bad) {
			struct pbuf t = a;
			size_t j = bad < 17 ? NA - (size_t)bad : NA - 1;

			t.n = off[j];
			for (k = 0; k < (bad < 17 ? 10u : 2u); k++)
				t.b[t.n++] = 0x80;
			if (bad < 17) {
				t.b[t.n++] = 0x00;
				memcpy(t.b + t.n, a.b + off[j + 1], a.n - off[j + 1]);
				t.n += a.n - off[j + 1];
			}
			pb_bytes(&c, 11, t.b, t.n);
		} else {
			pb_bytes(&c, 11, a.b, a.n);
		}
		assert_true(c.n < sizeof(c.b));
		assert_int_equal(open_handmade(&c, &r, &file), 0);
		if (bad) {	/* the walk of the frames found it */
			assert_int_equal(iot_reader_summary(r)->damage, IOT_E_CORRUPT);
			assert_int_equal(iot_reader_summary(r)->events, 0);
			assert_true(iot_reader_next(r, &it) <= 0);
		} else {
			for (i = 0; i < N; i++) {
				assert_int_equal(iot_reader_next(r, &it), 1);
				assert_int_equal(it.kind, IOT_ITEM_EVENT);
				assert_int_equal(it.u.ev.tid, 7);
				assert_int_equal(it.u.ev.nr, 257);
				assert_int_equal(it.u.ev.ret, (int64_t)i - 24);
				assert_int_equal(it.u.ev.t_exit - it.u.ev.t_enter, dur[i]);
				assert_int_equal(it.u.ev.nargs, 6);
				for (k = 0; k < 6; k++)
					assert_int_equal(it.u.ev.args[k], want[i * 6 + k]);
			}
			assert_int_equal(iot_reader_next(r, &it), 0);
		}
		iot_reader_close(r);
		free(file);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_delta_edges),
		cmocka_unit_test(test_long_strings),
		cmocka_unit_test(test_empty_trace),
		cmocka_unit_test(test_seek),
		cmocka_unit_test(test_background_same),
		cmocka_unit_test(test_flush_policy),
		cmocka_unit_test(test_data_round_trip),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_protoc_decodes),
		cmocka_unit_test(test_foreign_encoding),
		cmocka_unit_test(test_varint_widths),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
