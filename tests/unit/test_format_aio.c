/*
 * test_format_aio.c - AsyncOp records (format 1.2): every field written
 * is read back, after the event it came with, across a chunk flushed
 * between the two; iot_format_aio() prints them as dump shows them; a
 * write request's bytes (record --data) come back with it, next to the
 * events' own, 40 MiB of one letter too.
 */
#include "format_model.h"

/* @ev: call @nr of pid 42, the @i-th, 1 us after the one before */
static void call_of(struct iot_event *ev, int i, int nr)
{
	memset(ev, 0, sizeof(*ev));
	ev->t_enter = 1000 * (i + 1);
	ev->t_exit = ev->t_enter + 10;
	ev->pid = ev->tid = 42;
	ev->nr = nr;
}

/* @a: libaio pwrite request of event @i, of the @len bytes at @d, kept
 * if @keep */
static void pwrite_of(struct iot_aio *a, int i, const void *d, size_t len, int keep)
{
	memset(a, 0, sizeof(*a));
	a->kind = IOT_AIO_SUBMIT;
	a->api = IOT_AIO_LIBAIO;
	a->opcode = 1;	/* pwrite */
	a->event = (uint64_t)i;
	a->resfd = -1;
	a->len = len;
	a->data = keep ? d : NULL;
	a->data_len = keep ? (uint32_t)len : 0;
}

static void test_roundtrip(void **state)
{
	static const int64_t vals[3] = { 4096, 8192, -1 };
	struct iot_writer_opts o = { .flush_events = 2 };
	struct iot_writer *w;
	struct iot_reader *r;
	struct iot_header h;
	struct iot_event ev;
	struct iot_aio a, b;
	struct iot_item it;
	uint64_t n_ev = 0, n_aio = 0, last_ev = 0;
	int i;

	fill_header(&h);
	assert_int_equal(iot_writer_open(&w, tpath("aio.iotape"), &h, &o), 0);
	memset(&a, 0, sizeof(a));
	a.kind = IOT_AIO_SUBMIT;
	a.api = IOT_AIO_URING;
	a.pid = a.tid = 42;
	a.ctx = 7;
	a.opcode = 2;		/* writev */
	a.fd = 5;
	a.off = 1ULL << 40;
	a.len = 12288;
	a.flags = 0x4;
	a.rw_flags = 0x10;
	a.user_data = 0xdeadbeefcafeULL;
	a.res = 0;
	a.resfd = -1;
	a.buf_index = 3;
	a.nvals = 3;
	a.vals = vals;
	a.path = "/a/b\nc";
	a.path_len = 6;
	for (i = 0; i < 5; i++) {
		call_of(&ev, i, 426);	/* io_uring_enter */
		assert_int_equal(iot_writer_event(w, &ev), 0);
		/* flush_events = 2: some ops land in the chunk after their event */
		a.event = (uint64_t)i;
		a.t_ns = ev.t_enter;
		assert_int_equal(iot_writer_aio(w, &a), 0);
	}
	assert_int_equal(iot_writer_close(w, 0), 0);

	assert_int_equal(iot_reader_open(&r, tpath("aio.iotape")), 0);
	assert_int_equal(iot_reader_header(r)->format_minor, IOT_FORMAT_MINOR);
	while (iot_reader_next(r, &it) > 0) {
		if (it.kind == IOT_ITEM_EVENT) {
			last_ev = n_ev++;
			continue;
		}
		if (it.kind != IOT_ITEM_AIO)
			continue;
		b = it.u.aio;
		/* its event came first */
		assert_true(n_ev > 0 && b.event <= last_ev);
		assert_int_equal(b.event, n_aio);
		assert_int_equal(b.kind, a.kind);
		assert_int_equal(b.api, a.api);
		assert_int_equal(b.t_ns, 1000 * (int64_t)(n_aio + 1));
		assert_int_equal(b.pid, 42);
		assert_int_equal(b.ctx, 7);
		assert_int_equal(b.opcode, 2);
		assert_int_equal(b.fd, 5);
		assert_int_equal(b.off, a.off);
		assert_int_equal(b.len, a.len);
		assert_int_equal(b.flags, a.flags);
		assert_int_equal(b.rw_flags, a.rw_flags);
		assert_int_equal(b.user_data, a.user_data);
		assert_int_equal(b.resfd, -1);
		assert_int_equal(b.buf_index, 3);
		assert_int_equal(b.nvals, 3);
		assert_memory_equal(b.vals, vals, sizeof(vals));
		assert_int_equal(b.path_len, 6);
		assert_memory_equal(b.path, "/a/b\nc", 6);
		assert_null(b.path2);
		n_aio++;
	}
	assert_int_equal(n_ev, 5);
	assert_int_equal(n_aio, 5);
	iot_reader_close(r);
}

/* Events and requests with bytes, in chunks of 3 events: each gets its
 * own back, the events' where a reader that knows no request's finds
 * them. */
static void test_data(void **state)
{
	struct iot_writer_opts o = { .flush_events = 3, .flush_ms = -1 };
	struct iot_writer *w;
	struct iot_reader *r;
	struct iot_header h;
	struct iot_event ev;
	struct iot_aio a;
	struct iot_item it;
	char eb[10][64], ab[10][64];
	int i, n_ev = 0, n_aio = 0;

	fill_header(&h);
	assert_int_equal(iot_writer_open(&w, tpath("aiodata.iotape"), &h, &o), 0);
	for (i = 0; i < 10; i++) {
		call_of(&ev, i, 1);	/* write */
		snprintf(eb[i], sizeof(eb[i]), "event %d's bytes", i);
		/* every third event keeps none */
		ev.data = i % 3 ? eb[i] : NULL;
		ev.data_len = i % 3 ? (uint32_t)strlen(eb[i]) : 0;
		ev.ret = (int64_t)ev.data_len;
		assert_int_equal(iot_writer_event(w, &ev), 0);
		snprintf(ab[i], sizeof(ab[i]), "request %d wrote these", i);
		/* every other request keeps none */
		pwrite_of(&a, i, ab[i], strlen(ab[i]), !(i % 2));
		assert_int_equal(iot_writer_aio(w, &a), 0);
	}
	a.data = ab[0];
	a.data_len = IOT_DATA_MAX + 1;
	assert_int_equal(iot_writer_aio(w, &a), -EINVAL);
	assert_int_equal(iot_writer_close(w, 0), 0);

	assert_int_equal(iot_reader_open(&r, tpath("aiodata.iotape")), 0);
	while (iot_reader_next(r, &it) > 0) {
		if (it.kind == IOT_ITEM_EVENT) {
			i = n_ev++;
			assert_int_equal(it.u.ev.data_len, i % 3 ? strlen(eb[i]) : 0);
			if (i % 3)
				assert_memory_equal(it.u.ev.data, eb[i], strlen(eb[i]));
		} else if (it.kind == IOT_ITEM_AIO) {
			i = n_aio++;
			assert_int_equal(it.u.aio.event, i);
			assert_int_equal(it.u.aio.data_len, i % 2 ? 0 : strlen(ab[i]));
			if (i % 2)
				assert_null(it.u.aio.data);
			else
				assert_memory_equal(it.u.aio.data, ab[i], strlen(ab[i]));
			/* dump says it */
			if (!(i % 2)) {
				char line[256], want[32];

				iot_format_aio(line, sizeof(line), &it.u.aio);
				snprintf(want, sizeof(want), " [data %zu]", strlen(ab[i]));
				assert_non_null(strstr(line, want));
			}
		}
	}
	assert_int_equal(n_ev, 10);
	assert_int_equal(n_aio, 10);
	iot_reader_close(r);
}

/* A write request's 40 MiB of one letter (record --data=64M): zstd
 * makes its chunk a frame thousands of times smaller, which the reader
 * took for a hostile one and the trace for corrupt. */
static void test_data_runs(void **state)
{
	struct iot_writer_opts o = { .flush_ms = -1 };
	const uint32_t n = 40u << 20;
	struct iot_writer *w;
	struct iot_reader *r;
	struct iot_header h;
	struct iot_event ev;
	struct iot_aio a;
	struct iot_item it;
	char *b = malloc(n);
	int got = 0, rc;

	(void)state;
	assert_non_null(b);
	memset(b, 'a', n);
	fill_header(&h);
	assert_int_equal(iot_writer_open(&w, tpath("aioruns.iotape"), &h, &o), 0);
	call_of(&ev, 0, 209);	/* io_submit */
	assert_int_equal(iot_writer_event(w, &ev), 0);
	pwrite_of(&a, 0, b, n, 1);
	assert_int_equal(iot_writer_aio(w, &a), 0);
	assert_int_equal(iot_writer_close(w, 0), 0);

	assert_int_equal(iot_reader_open(&r, tpath("aioruns.iotape")), 0);
	while ((rc = iot_reader_next(r, &it)) > 0)
		if (it.kind == IOT_ITEM_AIO) {
			assert_int_equal(it.u.aio.data_len, n);
			assert_memory_equal(it.u.aio.data, b, n);
			got++;
		}
	assert_int_equal(rc, 0);
	assert_int_equal(got, 1);
	iot_reader_close(r);
	free(b);
}

static void test_text(void **state)
{
	struct iot_aio a;
	char buf[256];

	memset(&a, 0, sizeof(a));
	a.kind = IOT_AIO_SUBMIT;
	a.api = IOT_AIO_LIBAIO;
	a.opcode = 1;
	a.fd = 7;
	a.len = 4096;
	a.off = 8192;
	a.resfd = -1;
	a.path = "/f";
	a.path_len = 2;
	iot_format_aio(buf, sizeof(buf), &a);
	assert_string_equal(buf, "aio submit pwrite(7<\"/f\">, 4096, 8192) data=0");
	a.kind = IOT_AIO_COMPLETE;
	a.res = -5;
	iot_format_aio(buf, sizeof(buf), &a);
	assert_string_equal(buf, "aio complete pwrite(7<\"/f\">) data=0 = -1 EIO");
	a.api = IOT_AIO_URING;
	a.kind = IOT_AIO_SUBMIT;
	a.opcode = 200;
	a.flags = 1;		/* IOSQE_FIXED_FILE */
	a.path = NULL;
	iot_format_aio(buf, sizeof(buf), &a);
	assert_string_equal(buf, "io_uring submit op200(fixed:7, 4096, 8192) flags=0x1 data=0");
	a.kind = IOT_AIO_CQ_READY;
	a.ctx = 5;
	a.len = 3;
	iot_format_aio(buf, sizeof(buf), &a);
	assert_string_equal(buf, "io_uring ready ctx=0x5: 3 completions in the ring, not yet reaped");
	assert_int_equal(iot_aio_op_known(IOT_AIO_URING, 200), 0);
	assert_int_equal(iot_aio_op_known(IOT_AIO_URING, 23), 1);	/* write */
	assert_int_equal(iot_aio_op_dir(IOT_AIO_URING, 22), IOT_SCF_READ);
}

static void test_mpages(void **state)
{
	static const uint64_t rr[4] = { 0, 16, 100, 3 }, wr[2] = { 5, 2 };
	struct iot_writer *w;
	struct iot_reader *r;
	struct iot_header h;
	struct iot_mpages m, b;
	struct iot_item it;
	char line[256];
	int got = 0;

	fill_header(&h);
	assert_int_equal(iot_writer_open(&w, tpath("mp.iotape"), &h, NULL), 0);
	memset(&m, 0, sizeof(m));
	m.event = 3;
	m.t_ns = 77;
	m.pid = m.tid = 9;
	m.path = "/m";
	m.path_len = 2;
	m.page_size = 4096;
	m.read_runs = rr;
	m.n_read = 2;
	m.write_runs = wr;
	m.n_write = 1;
	m.why = IOT_MP_MSYNC;
	assert_int_equal(iot_writer_mpages(w, &m), 0);
	assert_int_equal(iot_writer_close(w, 0), 0);
	assert_int_equal(iot_reader_open(&r, tpath("mp.iotape")), 0);
	while (iot_reader_next(r, &it) > 0) {
		if (it.kind != IOT_ITEM_MPAGES)
			continue;
		b = it.u.mp;
		assert_int_equal(b.event, 3);
		assert_int_equal(b.t_ns, 77);
		assert_int_equal(b.tid, 9);
		assert_int_equal(b.n_read, 2);
		assert_memory_equal(b.read_runs, rr, sizeof(rr));
		assert_int_equal(b.n_write, 1);
		assert_memory_equal(b.write_runs, wr, sizeof(wr));
		assert_int_equal(b.why, IOT_MP_MSYNC);
		iot_format_mpages(line, sizeof(line), &b);
		assert_string_equal(line, "mmap pages \"/m\" at msync: read 19 (2 runs), "
				    "written 2 (1 runs), pages of 4096 bytes");
		got++;
	}
	assert_int_equal(got, 1);
	iot_reader_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_data),
		cmocka_unit_test(test_data_runs),
		cmocka_unit_test(test_mpages),
		cmocka_unit_test(test_text),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
