/*
 * test_format_columns.c - the columns of format 1.3 (FORMAT.md): names
 * front-coded against earlier strings, times split in low 7 bits and the
 * rest; what the writer writes, what the reader accepts and rejects.
 */
#include "format_model.h"

/* Ways to spoil the chunk of hand_chunk(). */
enum spoil {
	OK,
	BASE_TOO_FAR,		/* the first string refers to one before it */
	PREFIX_TOO_LONG,	/* longer than the string it is taken from */
	NAMES_UNENDED,		/* the last name lacks its 0 byte */
	BOTH_TABLES,		/* strings and names */
	LO_TOO_BIG,		/* a _lo value of 128 */
	LO_HI_COUNTS,		/* t_enter_lo and t_enter_hi of different lengths */
	BOTH_TIMES,		/* t_enter and t_enter_lo/hi */
	BASE_COUNT,		/* name_base of another length than the names */
	PREFIX_WITHOUT_BASE,	/* name_prefix > 0 where name_base is 0 */
	BASE_WITHOUT_NAMES,	/* name_base but no names */
	PS_REF_OUT,		/* a state's path past the string table */
	PS_NAME_UNENDED,	/* a state's own path without its 0 byte */
	PS_COUNT,		/* a state column longer than ps_path */
	PS_BOTH,		/* a state as columns and one as a message */
	PS_DATA_SHORT,		/* a sparse state's ranges past the end of ps_data */
	PS_DATA_LEFT,		/* ps_data values no sparse state takes */
	N_SPOIL
};

/* Three events, each naming a new string: /usr/src/a.c, /tmp/src/a.c,
 * /usr/src/b.c (the third takes 9 bytes of the first); enter deltas 1000,
 * 200, 300 and durations 10, 20, 130, split as FORMAT.md says, the
 * t_enter_lo column over two records; before them, the state of the first
 * path, a regular file of inode 9. */
static void hand_chunk(struct pbuf *c, enum spoil sp)
{
	static const char names[] = "/usr/src/a.c\0/tmp/src/a.c\0b.c";
	size_t nlen = sizeof(names) - (sp == NAMES_UNENDED ? 1 : 0);

	uint64_t base[3] = { sp == BASE_TOO_FAR ? 1 : 0, 0, 2 };
	uint64_t pre[3] = { 0, sp == PREFIX_WITHOUT_BASE ? 3 : 0,
			    sp == PREFIX_TOO_LONG ? 13 : 9 };

	c->n = 0;
	if (sp == BASE_WITHOUT_NAMES) {
		pb_bytes(c, 2, "/usr/src/a.c", 12);
		pb_bytes(c, 2, "/tmp/src/a.c", 12);
		pb_bytes(c, 2, "/usr/src/b.c", 12);
	} else {
		pb_bytes(c, 21, names, nlen);
	}
	if (sp == BOTH_TABLES)
		pb_bytes(c, 2, "/x", 2);
	pb_packed(c, 22, base, sp == BASE_COUNT ? 2 : 3);
	pb_packed(c, 23, pre, sp == BASE_COUNT ? 2 : 3);
	pb_packed(c, 28, (uint64_t[]){ sp == PS_REF_OUT ? 5 : sp == PS_NAME_UNENDED ? 1 : 2 }, 1);
	if (sp == PS_NAME_UNENDED)
		pb_bytes(c, 29, "abc", 3);
	pb_packed(c, 30, (uint64_t[]){ S_IFREG, S_IFREG }, sp == PS_COUNT ? 2 : 1);
	pb_packed(c, 40, (uint64_t[]){ zz(9) }, 1);
	/* a file with holes: one range of data, 8 KiB at 4 KiB */
	pb_packed(c, 43, (uint64_t[]){ IOT_PS_SPARSE }, 1);
	pb_packed(c, 56, (uint64_t[]){ sp == PS_DATA_SHORT ? 2 : 1, 4096, 8192, 5 },
		  sp == PS_DATA_LEFT ? 4 : 3);
	if (sp == PS_BOTH) {
		struct pbuf m = { .n = 0 };

		pb_bytes(&m, 1, "/y", 2);
		pb_bytes(c, 15, m.b, m.n);
	}
	pb_packed(c, 3, (uint64_t[]){ 14 }, 1);			/* tids: 7 */
	/* 1000 = 7 * 128 + 104, 200 = 1 * 128 + 72, 300 = 2 * 128 + 44 */
	pb_packed(c, 24, (uint64_t[]){ sp == LO_TOO_BIG ? 128 : 104 }, 1);
	pb_packed(c, 25, (uint64_t[]){ 7, 1, 2 }, sp == LO_HI_COUNTS ? 2 : 3);
	pb_packed(c, 24, (uint64_t[]){ 72, 44 }, 2);
	if (sp == BOTH_TIMES)
		pb_packed(c, 5, (uint64_t[]){ 2000, 400, 600 }, 3);
	/* 10, 20, 130 = 1 * 128 + 2 */
	pb_packed(c, 26, (uint64_t[]){ 10, 20, 2 }, 3);
	pb_packed(c, 27, (uint64_t[]){ 0, 0, 1 }, 3);
	pb_packed(c, 7, (uint64_t[]){ 0, 0, 0 }, 3);
	pb_packed(c, 8, (uint64_t[]){ 4, 4, 4 }, 3);		/* stat */
	pb_packed(c, 9, (uint64_t[]){ 0, 0, 0 }, 3);
	pb_packed(c, 10, (uint64_t[]){ 0, 0, 0 }, 3);
	pb_packed(c, 12, (uint64_t[]){ 1, 1, 1 }, 3);
}

static void test_read_13(void **state)
{
	static const char *const want[] = { "/usr/src/a.c", "/tmp/src/a.c", "/usr/src/b.c" };
	static const int64_t enter[] = { 1000, 1210, 1530 }, leave[] = { 1010, 1230, 1660 };
	struct pbuf c;
	struct iot_reader *r;
	struct iot_item it;
	uint8_t *file;
	int i;

	hand_chunk(&c, OK);
	assert_int_equal(open_handmade(&c, &r, &file), 0);
	assert_int_equal(iot_reader_next(r, &it), 1);
	assert_int_equal(it.kind, IOT_ITEM_PATH_STATE);
	assert_string_equal(it.u.ps.path, "/usr/src/a.c");
	assert_int_equal(it.u.ps.type, S_IFREG);
	assert_int_equal(it.u.ps.ino, 9);
	assert_int_equal(it.u.ps.size, 0);
	assert_int_equal(it.u.ps.flags, IOT_PS_SPARSE);
	assert_non_null(it.u.ps.extra);
	assert_int_equal(it.u.ps.extra->n_data, 1);
	assert_int_equal(it.u.ps.extra->data[0], 4096);
	assert_int_equal(it.u.ps.extra->data[1], 8192);
	for (i = 0; i < 3; i++) {
		assert_int_equal(iot_reader_next(r, &it), 1);
		assert_int_equal(it.kind, IOT_ITEM_EVENT);
		assert_string_equal(it.u.ev.path, want[i]);
		assert_int_equal(it.u.ev.path_len, strlen(want[i]));
		assert_int_equal(it.u.ev.t_enter, enter[i]);
		assert_int_equal(it.u.ev.t_exit, leave[i]);
		assert_int_equal(it.u.ev.tid, 7);
	}
	assert_int_equal(iot_reader_next(r, &it), 0);
	iot_reader_close(r);
	free(file);
}

/* Every spoilt chunk is refused as corrupt, never read. */
static void test_reject_13(void **state)
{
	struct pbuf c;
	struct iot_reader *r;
	struct iot_item it;
	uint8_t *file;
	int sp, rc;

	for (sp = OK + 1; sp < N_SPOIL; sp++) {
		const struct iot_summary *s;

		hand_chunk(&c, (enum spoil)sp);
		rc = open_handmade(&c, &r, &file);
		if (rc == 0) {
			s = iot_reader_summary(r);
			if (s->damage != IOT_E_CORRUPT || s->events != 0)
				fail_msg("spoil %d: damage %d, %llu events", sp, s->damage,
					 (unsigned long long)s->events);
			assert_true(iot_reader_next(r, &it) <= 0);
			iot_reader_close(r);
		} else {
			assert_int_equal(rc, IOT_E_CORRUPT);
		}
		free(file);
	}
}

/* The decoded first chunk frame of the file at @path. */
static Iotape__Chunk *first_chunk(const char *path, struct iot_arena *a, uint8_t **buf,
				  struct iot_header *hdr)
{
	struct iot_reader *r;
	const struct iot_frame *fr;
	const uint8_t *data, *rec, *cb;
	Iotape__Chunk *ch;
	size_t n, len, clen, i = 1;
	unsigned long long cs;

	assert_int_equal(iot_reader_open(&r, path), 0);
	*hdr = *iot_reader_header(r);
	fr = iot_reader_frames(r, &n, NULL);
	assert_true(n >= 1);
	data = iot_reader_data(r, &len);
	cs = ZSTD_getFrameContentSize(data + fr[0].offset, fr[0].size);
	*buf = malloc(cs);
	assert_int_equal(ZSTD_decompress(*buf, cs, data + fr[0].offset, fr[0].size), cs);
	iot_reader_close(r);
	while ((*buf)[i] & 0x80)
		i++;
	rec = *buf + i + 1;
	assert_int_equal(iot_record_chunk(rec, cs - i - 1, &cb, &clen), 0);
	assert_int_equal(iot_chunk_decode(a, cb, clen, &ch), 0);
	return ch;
}

/* The writer writes the 1.3 columns, and strings with a 0 byte in the
 * older table; both read back as written. */
static void test_writer_13(void **state)
{
	static const char nul[] = "/a\0b";
	static const uint64_t ranges[] = { 1 << 20, 4096, 512 << 20, 65536 };
	struct iot_writer *w;
	struct iot_reader *r;
	struct iot_header h;
	struct iot_event ev;
	struct iot_path_state ps;
	struct iot_ps_extra ex = { 0 };
	struct iot_item it;
	struct iot_arena *a = iot_arena_new(0);
	Iotape__Chunk *ch;
	uint8_t *buf;
	int pass, i;

	for (pass = 0; pass < 2; pass++) {
		fill_header(&h);
		assert_int_equal(iot_writer_open(&w, tpath("w13.iotape"), &h, &manual_opts), 0);
		for (i = 0; i < 300; i++) {
			char p[64];

			memset(&ev, 0, sizeof(ev));
			snprintf(p, sizeof(p), "/usr/include/linux/file%d.h", i);
			ev.t_enter = 1000000 + 5000 * i;
			ev.t_exit = ev.t_enter + 300 + i;
			ev.tid = ev.pid = 9;
			ev.nr = 4;
			ev.path = pass && i == 7 ? nul : p;
			ev.path_len = pass && i == 7 ? 4 : (uint32_t)strlen(p);
			assert_int_equal(iot_writer_event(w, &ev), 0);
		}
		/* states of a path the events name, of one they do not, and (in
		 * the second pass) of one with a 0 byte: then all as messages */
		memset(&ps, 0, sizeof(ps));
		ps.path = "/usr/include/linux/file5.h";
		ps.path_len = (uint32_t)strlen(ps.path);
		ps.ino = 77;
		ps.size = 1 << 30;
		ps.flags = IOT_PS_SPARSE;	/* data at 1 MiB and at 512 MiB */
		ex.data = ranges;
		ex.n_data = 2;
		ps.extra = &ex;
		assert_int_equal(iot_writer_path_state(w, &ps), 0);
		ex.n_data = 0;			/* no data at all */
		ps.path = pass ? nul : "/etc/other";
		ps.path_len = pass ? 4 : 10;
		ps.target = "t";
		ps.target_len = 1;
		ps.ino = 5;
		assert_int_equal(iot_writer_path_state(w, &ps), 0);
		assert_int_equal(iot_writer_close(w, 0), 0);
		ch = first_chunk(tpath("w13.iotape"), a, &buf, &h);
		assert_int_equal(h.format_major, IOT_FORMAT_MAJOR);
		assert_int_equal(h.format_minor, 3);
		assert_int_equal(ch->n_t_enter, 0);
		assert_int_equal(ch->n_duration, 0);
		assert_int_equal(ch->n_t_enter_lo, 300);
		assert_int_equal(ch->n_duration_hi, 300);
		assert_int_equal(ch->has_names, !pass);
		assert_int_equal(ch->n_strings, pass ? 300 : 0);
		if (!pass)	/* every name but the first shares a prefix */
			assert_int_equal(ch->n_name_base, 300);
		assert_int_equal(ch->n_path_states, pass ? 2 : 0);
		assert_int_equal(ch->n_ps_path, pass ? 0 : 2);
		if (!pass) {
			assert_int_equal(ch->ps_path[0], 2 + 5);	/* string 5 */
			assert_int_equal(ch->ps_path[1], 1);		/* in ps_names */
			assert_int_equal(ch->ps_ino[1], 5 - 77);
			/* 2 ranges, each from the end of the one before; 0 ranges */
			assert_int_equal(ch->n_ps_data, 6);
			assert_int_equal(ch->ps_data[0], 2);
			assert_int_equal(ch->ps_data[1], 1 << 20);
			assert_int_equal(ch->ps_data[2], 4096);
			assert_int_equal(ch->ps_data[3], (512 << 20) - (1 << 20) - 4096);
			assert_int_equal(ch->ps_data[4], 65536);
			assert_int_equal(ch->ps_data[5], 0);
		}
		free(buf);
		iot_arena_reset(a);
		assert_int_equal(iot_reader_open(&r, tpath("w13.iotape")), 0);
		assert_int_equal(iot_reader_next(r, &it), 1);
		assert_int_equal(it.kind, IOT_ITEM_PATH_STATE);
		assert_string_equal(it.u.ps.path, "/usr/include/linux/file5.h");
		assert_null(it.u.ps.target);
		assert_int_equal(it.u.ps.ino, 77);
		assert_int_equal(it.u.ps.flags, IOT_PS_SPARSE);
		assert_int_equal(it.u.ps.extra->n_data, 2);
		assert_memory_equal(it.u.ps.extra->data, ranges, sizeof(ranges));
		assert_int_equal(iot_reader_next(r, &it), 1);
		eq_bytes(pass ? nul : "/etc/other", pass ? 4 : 10, it.u.ps.path, it.u.ps.path_len);
		assert_string_equal(it.u.ps.target, "t");
		assert_int_equal(it.u.ps.ino, 5);
		assert_int_equal(it.u.ps.flags, IOT_PS_SPARSE);
		assert_int_equal(it.u.ps.extra->n_data, 0);
		for (i = 0; i < 300; i++) {
			char p[64];

			snprintf(p, sizeof(p), "/usr/include/linux/file%d.h", i);
			assert_int_equal(iot_reader_next(r, &it), 1);
			assert_int_equal(it.u.ev.t_enter, 1000000 + 5000 * i);
			assert_int_equal(it.u.ev.t_exit, 1000000 + 5000 * i + 300 + i);
			if (pass && i == 7)
				eq_bytes(nul, 4, it.u.ev.path, it.u.ev.path_len);
			else
				assert_string_equal(it.u.ev.path, p);
		}
		iot_reader_close(r);
	}
	iot_arena_free(a);
}

/* A trace at @path of two states, the first (of @name, a file) with
 * @ex, then "/d" with none: its chunk's states go as messages.  @return :
 * its first chunk, its bytes in *@buf (free() them). */
static Iotape__Chunk *write_pair(const char *path, const char *name, struct iot_ps_extra *ex,
				 struct iot_arena *a, uint8_t **buf)
{
	struct iot_writer *w;
	struct iot_header h;
	struct iot_path_state ps;
	Iotape__Chunk *ch;

	fill_header(&h);
	assert_int_equal(iot_writer_open(&w, path, &h, &manual_opts), 0);
	memset(&ps, 0, sizeof(ps));
	ps.path = name;
	ps.path_len = (uint32_t)strlen(name);
	ps.type = S_IFREG;
	ps.extra = ex;
	assert_int_equal(iot_writer_path_state(w, &ps), 0);
	ps.path = "/d";
	ps.path_len = 2;
	ps.extra = NULL;
	assert_int_equal(iot_writer_path_state(w, &ps), 0);
	assert_int_equal(iot_writer_close(w, 0), 0);
	ch = first_chunk(path, a, buf, &h);
	assert_int_equal(ch->n_ps_path, 0);
	assert_int_equal(ch->n_path_states, 2);
	return ch;
}

/* A state with extended attributes: the chunk's states go as messages,
 * and the names and values (a 0 byte in one) read back as written. */
static void test_writer_xattrs(void **state)
{
	static const uint8_t val[] = { 'a', 0, 'b' };
	const struct iot_xattr xa[2] = {
		{ .name = "user.a", .name_len = 6, .value = val, .value_len = 3 },
		{ .name = "trusted.empty", .name_len = 13, .value = NULL, .value_len = 0 },
	};
	struct iot_reader *r;
	struct iot_ps_extra ex = { 0 };
	struct iot_item it;
	struct iot_arena *a = iot_arena_new(0);
	uint8_t *buf;

	ex.xattrs = xa;
	ex.n_xattrs = 2;
	write_pair(tpath("wx.iotape"), "/d/f", &ex, a, &buf);
	free(buf);
	iot_arena_reset(a);
	assert_int_equal(iot_reader_open(&r, tpath("wx.iotape")), 0);
	assert_int_equal(iot_reader_next(r, &it), 1);
	assert_int_equal(it.kind, IOT_ITEM_PATH_STATE);
	assert_int_equal(it.u.ps.extra->n_xattrs, 2);
	eq_bytes("user.a", 6, it.u.ps.extra->xattrs[0].name, it.u.ps.extra->xattrs[0].name_len);
	assert_int_equal(it.u.ps.extra->xattrs[0].value_len, 3);
	assert_memory_equal(it.u.ps.extra->xattrs[0].value, val, 3);
	eq_bytes("trusted.empty", 13, it.u.ps.extra->xattrs[1].name,
		 it.u.ps.extra->xattrs[1].name_len);
	assert_int_equal(it.u.ps.extra->xattrs[1].value_len, 0);
	assert_int_equal(iot_reader_next(r, &it), 1);
	assert_string_equal(it.u.ps.path, "/d");
	assert_null(it.u.ps.extra);
	iot_reader_close(r);
	iot_arena_free(a);
}

/* A state with attribute flags (chattr +a, +i) goes as a message, and
 * the flags read back, past IOT_PS_ATTR_FLAGS cut off; one without has
 * no extra. */
static void test_writer_attr_flags(void **state)
{
	struct iot_reader *r;
	struct iot_ps_extra ex = { 0 };
	struct iot_item it;
	struct iot_arena *a = iot_arena_new(0);
	Iotape__Chunk *ch;
	uint8_t *buf;

	ex.attr_flags = IOT_PS_ATTR_APPEND | IOT_PS_ATTR_IMMUTABLE | 0x80000;	/* + extents */
	ch = write_pair(tpath("wa.iotape"), "/d/log", &ex, a, &buf);
	assert_true(ch->path_states[0]->has_attr_flags);
	assert_false(ch->path_states[1]->has_attr_flags);
	free(buf);
	iot_arena_reset(a);
	assert_int_equal(iot_reader_open(&r, tpath("wa.iotape")), 0);
	assert_int_equal(iot_reader_next(r, &it), 1);
	assert_non_null(it.u.ps.extra);
	assert_int_equal(it.u.ps.extra->attr_flags, IOT_PS_ATTR_APPEND | IOT_PS_ATTR_IMMUTABLE);
	assert_int_equal(it.u.ps.extra->n_xattrs, 0);
	assert_int_equal(iot_reader_next(r, &it), 1);
	assert_string_equal(it.u.ps.path, "/d");
	assert_null(it.u.ps.extra);
	iot_reader_close(r);
	iot_arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_13),
		cmocka_unit_test(test_reject_13),
		cmocka_unit_test(test_writer_13),
		cmocka_unit_test(test_writer_xattrs),
		cmocka_unit_test(test_writer_attr_flags),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
