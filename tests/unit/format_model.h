/*
 * format_model.h - shared by the format library's unit tests: a model of
 * what a test wrote (to compare the reader's items with), a sample trace
 * writer, and file helpers.  Included by one test file each; some tests
 * use only part of it.
 */
#ifndef FORMAT_MODEL_H
#define FORMAT_MODEL_H
#pragma GCC diagnostic ignored "-Wunused-function"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <zstd.h>

#include "iotape.h"
#include "internal.h"

static char tmpdir[] = "/tmp/iotape-test-format.XXXXXX";

static const char *tpath(const char *name)
{
	static char buf[8][PATH_MAX];
	static int k;
	char *p = buf[k++ % 8];

	snprintf(p, PATH_MAX, "%s/%s", tmpdir, name);
	return p;
}

/* ---- a model of what was written ---- */

struct m_item {
	int kind;
	uint64_t chunk;
	struct iot_event ev;
	struct iot_path_state ps;
	struct iot_process proc;
	char *s1, *s2, *s3;		/* owned copies */
	char **argv;
	uint32_t *argv_len;
};

struct model {
	struct m_item *it;
	size_t n, cap;
	/* items of the chunk being built, per kind, to order them as the
	 * reader returns them */
	size_t chunk_start;
	uint64_t chunk;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static char *dupn(const char *s, size_t n)
{
	char *p;

	if (!s)
		return NULL;
	p = malloc(n + 1);
	assert_non_null(p);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

static struct m_item *m_add(struct model *m, int kind)
{
	struct m_item *it;

	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 256;
		m->it = realloc(m->it, m->cap * sizeof(*m->it));
		assert_non_null(m->it);
	}
	it = &m->it[m->n++];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	it->chunk = m->chunk;
	return it;
}

/* The reader returns a chunk's processes, then path states, then events:
 * sort the chunk's items that way (stable). */
static void m_flush(struct model *m)
{
	size_t n = m->n - m->chunk_start, i, k = 0;
	struct m_item *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	static const int order[] = { IOT_ITEM_PROCESS, IOT_ITEM_PATH_STATE, IOT_ITEM_EVENT };
	int o;

	assert_non_null(tmp);
	for (o = 0; o < 3; o++)
		for (i = m->chunk_start; i < m->n; i++)
			if (m->it[i].kind == order[o])
				tmp[k++] = m->it[i];
	memcpy(m->it + m->chunk_start, tmp, n * sizeof(*tmp));
	free(tmp);
	if (n)
		m->chunk++;
	for (i = m->chunk_start; i < m->n; i++)
		m->it[i].chunk = m->chunk - 1;
	m->chunk_start = m->n;
}

static void m_free(struct model *m)
{
	size_t i, k;

	for (i = 0; i < m->n; i++) {
		free(m->it[i].s1);
		free(m->it[i].s2);
		free(m->it[i].s3);
		if (m->it[i].argv)
			for (k = 0; k < m->it[i].proc.argc; k++)
				free(m->it[i].argv[k]);
		free(m->it[i].argv);
		free(m->it[i].argv_len);
	}
	free(m->it);
	memset(m, 0, sizeof(*m));
}

static const char *const paths[] = {
	"/usr/src/linux/fs/ext4/inode.c", "/usr/src/linux/fs/ext4/super.c",
	"/tmp/dst/fs/ext4/inode.c", "/etc/ld.so.cache", "rel/path",
	"", "/a\xff\xfe\x80/non-utf8\x01",
};
#define NPATHS (sizeof(paths) / sizeof(paths[0]))

static void w_event(struct iot_writer *w, struct model *m, const struct iot_event *ev)
{
	struct m_item *it = m_add(m, IOT_ITEM_EVENT);

	it->ev = *ev;
	it->s1 = dupn(ev->path, ev->path_len);
	it->s2 = dupn(ev->path2, ev->path2_len);
	assert_int_equal(iot_writer_event(w, ev), 0);
}

static void rand_event(struct iot_event *ev, int64_t *t)
{
	const struct iot_syscall *tab;
	size_t nsc, k;
	const struct iot_syscall *sc;
	const char *p;

	tab = iot_syscall_table(&nsc);
	sc = &tab[rnd() % nsc];
	memset(ev, 0, sizeof(*ev));
	/* two threads whose clocks interleave: times are not monotonic */
	*t += (int64_t)(rnd() % 5000) - 1000;
	ev->t_enter = *t;
	ev->t_exit = *t + (int64_t)(rnd() % 100000);
	ev->tid = 1000 + (int32_t)(rnd() % 3);
	ev->pid = 1000;
	ev->nr = sc->nr;
	ev->ret = (rnd() % 4 == 0) ? -(int64_t)(rnd() % 133) : (int64_t)(rnd() % 70000);
	ev->nargs = sc->nargs;
	for (k = 0; k < ev->nargs; k++)
		ev->args[k] = (rnd() % 3 == 0) ? (int64_t)rnd() : (int64_t)(rnd() % 300) - 100;
	if (rnd() % 4) {
		p = paths[rnd() % NPATHS];
		ev->path = p;
		ev->path_len = (uint32_t)strlen(p);
		if (p[0] == 0 && rnd() % 2) {
			/* an embedded NUL: lengths, not strlen, count */
			ev->path = "a\0b";
			ev->path_len = 3;
		}
	}
	if (rnd() % 10 == 0) {
		p = paths[rnd() % NPATHS];
		ev->path2 = p;
		ev->path2_len = (uint32_t)strlen(p);
	}
	if (rnd() % 13 == 0)
		ev->flags = IOT_EV_UNFINISHED | IOT_EV_FASTPATH;
	if (rnd() % 7 == 0)
		ev->pre_ns = rnd() % 3 ? (uint32_t)(rnd() % 5000) : UINT32_MAX;
	if (rnd() % 5 == 0)
		ev->cpu_ns = rnd() % 3 ? (uint32_t)(rnd() % 50000) + 1 : UINT32_MAX;
	if (rnd() % 11 == 0)
		ev->slept_ns = rnd() % 3 ? (uint32_t)(rnd() % 900000) + 1 : UINT32_MAX;
	if (rnd() % 9 == 0)
		ev->run_ns = rnd() % 3 ? (uint32_t)(rnd() % 90000) + 1 : UINT32_MAX;
	if (rnd() % 9 == 0) {
		ev->woke_ns = rnd() % 3 ? (uint32_t)(rnd() % 900000) + 1 : UINT32_MAX;
		ev->waited_ns = rnd() % 3 ? (uint32_t)(rnd() % 90000000) : UINT32_MAX;
		/* from woke_ns, not another draw: the events after it stay */
		ev->waker = ev->woke_ns % 4 ? 0 : ev->woke_ns / 4 + 1;
		ev->gap_waker = ev->woke_ns % 3 ? 0 : ev->woke_ns / 3 + 7;
		ev->ready_ns = ev->woke_ns % 5 ? 0 : ev->woke_ns / 5 + 3;
	}
}

static void w_path_state(struct iot_writer *w, struct model *m, int i)
{
	struct m_item *it = m_add(m, IOT_ITEM_PATH_STATE);
	struct iot_path_state *s = &it->ps;
	const char *p = paths[i % NPATHS];

	s->path = p;
	s->path_len = (uint32_t)strlen(p);
	s->type = (i % 3 == 0) ? S_IFLNK : S_IFREG;
	s->size = (uint64_t)i * 1000003u;
	s->mode = 0644 + (uint32_t)i;
	s->uid = 1000 + (uint32_t)i;
	s->gid = 2000 + (uint32_t)i;
	s->atime_ns = -5 - i;
	s->mtime_ns = INT64_MAX - i;
	s->ctime_ns = INT64_MIN + i;
	if (s->type == S_IFLNK) {
		s->target = "../target\xff";
		s->target_len = 10;
	}
	s->nlink = 2 + (uint32_t)i;
	s->dev = 0x803;
	s->ino = UINT64_MAX - (uint64_t)i;
	s->rdev = (uint64_t)i;
	s->t_ns = 123456789 + i;
	s->flags = (uint32_t)i % 2;
	it->s1 = dupn(s->path, s->path_len);
	it->s2 = dupn(s->target, s->target_len);
	assert_int_equal(iot_writer_path_state(w, s), 0);
}

static void w_process(struct iot_writer *w, struct model *m, int i)
{
	struct m_item *it = m_add(m, IOT_ITEM_PROCESS);
	struct iot_process *p = &it->proc;
	static const char *const av[] = { "cp", "-a", "src\xff", "" };
	static const uint32_t avl[] = { 2, 2, 4, 0 };

	p->kind = (uint32_t)(i % 6);
	p->t_ns = 1000 + i;
	p->pid = 42 + i;
	p->tid = 43 + i;
	p->ppid = 41;
	p->ptid = -1;
	p->clone_flags = 0x3d0f00ull | (uint64_t)i << 40;
	if (i % 2 == 0) {
		p->argc = 4;
		p->argv = av;
		p->argv_len = avl;
		p->cwd = "/home/u";
		p->cwd_len = 7;
		p->exe = "/usr/bin/cp";
		p->exe_len = 11;
	}
	p->exit_status = i % 3 ? 256 * i : 0x9;
	p->utime_ns = INT64_MAX;
	p->stime_ns = -1;
	p->old_tid = i;
	p->rec_ns = i % 2 ? 0 : 1000 + i;
	it->s1 = dupn(p->cwd, p->cwd_len);
	it->s2 = dupn(p->exe, p->exe_len);
	assert_int_equal(iot_writer_process(w, p), 0);
}

static void eq_bytes(const char *a, uint32_t alen, const char *b, uint32_t blen)
{
	if (!a || !b) {
		assert_true(a == b);
		return;
	}
	assert_int_equal(alen, blen);
	assert_memory_equal(a, b, alen);
	assert_int_equal(b[blen], 0);	/* NUL-terminated for convenience */
}

static void eq_item(const struct m_item *m, const struct iot_item *it)
{
	uint32_t k;

	assert_int_equal(it->kind, m->kind);
	assert_int_equal(it->chunk, m->chunk);
	if (m->kind == IOT_ITEM_EVENT) {
		const struct iot_event *a = &m->ev, *b = &it->u.ev;

		assert_true(a->t_enter == b->t_enter);
		assert_true(a->t_exit == b->t_exit);
		assert_int_equal(a->pid, b->pid);
		assert_int_equal(a->tid, b->tid);
		assert_int_equal(a->nr, b->nr);
		assert_int_equal(a->flags, b->flags);
		assert_int_equal(a->pre_ns, b->pre_ns);
		assert_int_equal(a->cpu_ns, b->cpu_ns);
		assert_int_equal(a->slept_ns, b->slept_ns);
		assert_int_equal(a->run_ns, b->run_ns);
		assert_int_equal(a->woke_ns, b->woke_ns);
		assert_int_equal(a->waited_ns, b->waited_ns);
		assert_int_equal(a->waker, b->waker);
		assert_int_equal(a->gap_waker, b->gap_waker);
		assert_int_equal(a->ready_ns, b->ready_ns);
		assert_true(a->ret == b->ret);
		assert_int_equal(a->nargs, b->nargs);
		for (k = 0; k < a->nargs; k++)
			assert_true(a->args[k] == b->args[k]);
		eq_bytes(m->s1, a->path_len, b->path, b->path_len);
		eq_bytes(m->s2, a->path2_len, b->path2, b->path2_len);
	} else if (m->kind == IOT_ITEM_PATH_STATE) {
		const struct iot_path_state *a = &m->ps, *b = &it->u.ps;

		eq_bytes(m->s1, a->path_len, b->path, b->path_len);
		eq_bytes(m->s2, a->target_len, b->target, b->target_len);
		assert_int_equal(a->type, b->type);
		assert_true(a->size == b->size);
		assert_int_equal(a->mode, b->mode);
		assert_int_equal(a->uid, b->uid);
		assert_int_equal(a->gid, b->gid);
		assert_true(a->atime_ns == b->atime_ns);
		assert_true(a->mtime_ns == b->mtime_ns);
		assert_true(a->ctime_ns == b->ctime_ns);
		assert_int_equal(a->nlink, b->nlink);
		assert_true(a->dev == b->dev);
		assert_true(a->ino == b->ino);
		assert_true(a->rdev == b->rdev);
		assert_true(a->t_ns == b->t_ns);
		assert_int_equal(a->flags, b->flags);
	} else {
		const struct iot_process *a = &m->proc, *b = &it->u.proc;

		assert_int_equal(a->kind, b->kind);
		assert_true(a->t_ns == b->t_ns);
		assert_int_equal(a->pid, b->pid);
		assert_int_equal(a->tid, b->tid);
		assert_int_equal(a->ppid, b->ppid);
		assert_int_equal(a->ptid, b->ptid);
		assert_true(a->clone_flags == b->clone_flags);
		assert_int_equal(a->argc, b->argc);
		for (k = 0; k < a->argc; k++)
			eq_bytes(a->argv[k], a->argv_len[k], b->argv[k], b->argv_len[k]);
		eq_bytes(m->s1, a->cwd_len, b->cwd, b->cwd_len);
		eq_bytes(m->s2, a->exe_len, b->exe, b->exe_len);
		assert_int_equal(a->exit_status, b->exit_status);
		assert_true(a->utime_ns == b->utime_ns);
		assert_true(a->stime_ns == b->stime_ns);
		assert_int_equal(a->old_tid, b->old_tid);
		assert_true(a->rec_ns == b->rec_ns);
	}
}

/* ---- the header ---- */

static const char *const hdr_argv[] = { "iotape", "record", "--", "cp", "-a", "x", "y" };
static const struct iot_mount hdr_mounts[] = {
	{ "/dev/sda1", "/", "ext4", "rw,relatime", "/", 8, 1 },
	{ "tmpfs", "/tmp", "tmpfs", "rw,nosuid", NULL, 0, 37 },
};
static const struct iot_kv hdr_extra[] = { { "phase", "cp" }, { "k2", "" } };

static void fill_header(struct iot_header *h)
{
	memset(h, 0, sizeof(*h));
	h->kind = IOT_KIND_PROFILE;
	h->tool_version = "0.1.0-test";
	h->host = "host1";
	h->kernel = "6.1.0-18-amd64";
	h->arch = "x86_64";
	h->argc = 7;
	h->argv = hdr_argv;
	h->cwd = "/home/u";
	h->clock_id = 1;
	h->realtime_ns = 1700000000123456789;
	h->monotonic_ns = 987654321;
	h->start_ns = 987654000;
	h->n_mounts = 2;
	h->mounts = hdr_mounts;
	h->stop_cost_ns = 4321;
	h->recorder = "ptrace+seccomp";
	h->target_fstype = "xfs";
	h->target_device = "/dev/loop0";
	h->target_mountpoint = "/mnt/x";
	h->target_mount_options = "noatime";
	h->target_mkfs = "mkfs.xfs -f";
	h->target_label = "xfs-default";
	h->replay_options = "--timing original";
	h->n_extra = 2;
	h->extra = hdr_extra;
}

static void eq_str(const char *a, const char *b)
{
	if (!a || !b)
		assert_true(a == b);
	else
		assert_string_equal(a, b);
}

static void eq_header(const struct iot_header *a, const struct iot_header *b)
{
	const struct iot_syscall *tab;
	size_t nsc, i, k;

	assert_int_equal(b->format_major, IOT_FORMAT_MAJOR);
	assert_int_equal(b->format_minor, IOT_FORMAT_MINOR);
	assert_int_equal(a->kind, b->kind);
	eq_str(a->tool_version, b->tool_version);
	eq_str(a->host, b->host);
	eq_str(a->kernel, b->kernel);
	eq_str(a->arch, b->arch);
	assert_int_equal(a->argc, b->argc);
	for (i = 0; i < a->argc; i++)
		eq_str(a->argv[i], b->argv[i]);
	eq_str(a->cwd, b->cwd);
	assert_int_equal(a->clock_id, b->clock_id);
	assert_true(a->realtime_ns == b->realtime_ns);
	assert_true(a->monotonic_ns == b->monotonic_ns);
	assert_true(a->start_ns == b->start_ns);
	assert_int_equal(a->n_mounts, b->n_mounts);
	for (i = 0; i < a->n_mounts; i++) {
		eq_str(a->mounts[i].device, b->mounts[i].device);
		eq_str(a->mounts[i].mountpoint, b->mounts[i].mountpoint);
		eq_str(a->mounts[i].fstype, b->mounts[i].fstype);
		eq_str(a->mounts[i].options, b->mounts[i].options);
		eq_str(a->mounts[i].root, b->mounts[i].root);
		assert_int_equal(a->mounts[i].dev_major, b->mounts[i].dev_major);
		assert_int_equal(a->mounts[i].dev_minor, b->mounts[i].dev_minor);
	}
	assert_true(a->stop_cost_ns == b->stop_cost_ns);
	eq_str(a->recorder, b->recorder);
	eq_str(a->target_fstype, b->target_fstype);
	eq_str(a->target_device, b->target_device);
	eq_str(a->target_mountpoint, b->target_mountpoint);
	eq_str(a->target_mount_options, b->target_mount_options);
	eq_str(a->target_mkfs, b->target_mkfs);
	eq_str(a->target_label, b->target_label);
	eq_str(a->replay_options, b->replay_options);
	assert_int_equal(a->n_extra, b->n_extra);
	for (i = 0; i < a->n_extra; i++) {
		eq_str(a->extra[i].key, b->extra[i].key);
		eq_str(a->extra[i].value, b->extra[i].value);
	}
	eq_str(iot_header_get(b, "phase"), "cp");
	assert_null(iot_header_get(b, "nope"));
	/* the syscall table travels in the header */
	tab = iot_syscall_table(&nsc);
	assert_int_equal(b->n_syscalls, nsc);
	for (i = 0; i < nsc; i++) {
		assert_int_equal(b->syscalls[i].nr, tab[i].nr);
		assert_string_equal(b->syscalls[i].name, tab[i].name);
		assert_int_equal(b->syscalls[i].cls, tab[i].cls);
		assert_int_equal(b->syscalls[i].flags, tab[i].flags);
		assert_int_equal(b->syscalls[i].nargs, tab[i].nargs);
		for (k = 0; k < tab[i].nargs; k++)
			assert_int_equal(b->syscalls[i].arg[k], tab[i].arg[k]);
	}
}

/* ---- helpers ---- */

static struct iot_writer_opts manual_opts = {
	.flush_events = 1000000, .flush_ms = -1,
};

/* Write a trace of @nchunks chunks with a mix of every record type and
 * close it (or abort with @close_it = 0, leaving the last chunk unflushed
 * when @tail is set). */
static void write_sample(const char *path, struct model *m, int nchunks,
			 int per_chunk, int background, int close_it)
{
	struct iot_writer *w;
	struct iot_header h;
	struct iot_writer_opts o = manual_opts;
	struct iot_event ev;
	int64_t t = 5000000000;
	int c, i;

	fill_header(&h);
	o.background = background;
	rng_state = 0x9e3779b97f4a7c15ull;
	assert_int_equal(iot_writer_open(&w, path, &h, &o), 0);
	for (c = 0; c < nchunks; c++) {
		for (i = 0; i < per_chunk; i++) {
			if (i % 17 == 3)
				w_process(w, m, c * 100 + i);
			if (i % 11 == 5)
				w_path_state(w, m, c * 100 + i);
			rand_event(&ev, &t);
			w_event(w, m, &ev);
		}
		assert_int_equal(iot_writer_flush(w, 1), 0);
		m_flush(m);
	}
	assert_int_equal(iot_writer_events(w), (uint64_t)nchunks * per_chunk);
	if (close_it)
		assert_int_equal(iot_writer_close(w, 7), 0);
	else
		iot_writer_abort(w);
}

/* Read everything and compare with the model; @return : items read. */
static size_t read_compare(struct iot_reader *r, const struct model *m)
{
	struct iot_item it;
	size_t i = 0;
	int rc;

	while ((rc = iot_reader_next(r, &it)) > 0) {
		assert_true(i < m->n);
		eq_item(&m->it[i], &it);
		i++;
	}
	assert_int_equal(rc, 0);
	return i;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n ? (size_t)n : 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void spit(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}


static void write_raw_header(const char *path, const char *magic, uint32_t major,
			     int as_chunk)
{
	Iotape__Record rec = IOTAPE__RECORD__INIT;
	Iotape__Header hm = IOTAPE__HEADER__INIT;
	Iotape__Chunk cm = IOTAPE__CHUNK__INIT;
	void *cctx = ZSTD_createCCtx();
	uint8_t *raw = NULL, *out = NULL;
	size_t rc_ = 0, oc = 0;
	long n;

	hm.has_magic = 1;
	hm.magic.data = (uint8_t *)magic;
	hm.magic.len = strlen(magic);
	hm.has_format_major = hm.has_format_minor = 1;
	hm.format_major = major;
	hm.format_minor = 99;
	if (as_chunk) {
		rec.body_case = IOTAPE__RECORD__BODY_CHUNK;
		rec.chunk = &cm;
	} else {
		rec.body_case = IOTAPE__RECORD__BODY_HEADER;
		rec.header = &hm;
	}
	n = iot_pack_record(&rec, &raw, &rc_);
	assert_true(n > 0);
	n = iot_compress_frame(cctx, 3, raw, (size_t)n, &out, &oc);
	assert_true(n > 0);
	spit(path, out, (size_t)n);
	free(raw);
	free(out);
	ZSTD_freeCCtx(cctx);
}

/* ---- hand-made protobuf: what other writers may legally produce ---- */

struct pbuf {
	uint8_t b[4096];
	size_t n;
};

static void pb_varint(struct pbuf *p, uint64_t v)
{
	do {
		p->b[p->n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void pb_key(struct pbuf *p, unsigned f, unsigned wt)
{
	pb_varint(p, (uint64_t)f << 3 | wt);
}

static uint64_t zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static void pb_bytes(struct pbuf *p, unsigned f, const void *d, size_t n)
{
	pb_key(p, f, 2);
	pb_varint(p, n);
	memcpy(p->b + p->n, d, n);
	p->n += n;
}

/* A packed column of @n values. */
static void pb_packed(struct pbuf *p, unsigned f, const uint64_t *v, size_t n)
{
	struct pbuf t = { .n = 0 };
	size_t i;

	for (i = 0; i < n; i++)
		pb_varint(&t, v[i]);
	pb_bytes(p, f, t.b, t.n);
}

/* Open a reader on a file of a real header frame and one chunk frame
 * holding the hand-made Chunk bytes @c; free *@file after closing it.
 * @return : what iot_reader_open_mem() returns. */
static int open_handmade(const struct pbuf *c, struct iot_reader **r, uint8_t **file)
{
	struct pbuf rec = { .n = 0 }, raw = { .n = 0 };
	struct iot_writer *w;
	struct iot_header h;
	void *cctx = ZSTD_createCCtx();
	uint8_t *hdrbuf, *out = NULL;
	size_t hlen, nfr, cap = 0;
	uint64_t hdr_size;
	long k;

	pb_bytes(&rec, 2, c->b, c->n);		/* Record.chunk */
	pb_bytes(&raw, 1, rec.b, rec.n);	/* TraceFile.record */
	memset(&h, 0, sizeof(h));
	assert_int_equal(iot_writer_open(&w, tpath("handmade.iotape"), &h, NULL), 0);
	assert_int_equal(iot_writer_close(w, 0), 0);
	hdrbuf = slurp(tpath("handmade.iotape"), &hlen);
	assert_int_equal(iot_reader_open_mem(r, hdrbuf, hlen), 0);
	iot_reader_frames(*r, &nfr, &hdr_size);
	iot_reader_close(*r);
	k = iot_compress_frame(cctx, 3, raw.b, raw.n, &out, &cap);
	assert_true(k > 0);
	*file = malloc(hdr_size + (size_t)k);
	assert_non_null(*file);
	memcpy(*file, hdrbuf, hdr_size);
	memcpy(*file + hdr_size, out, (size_t)k);
	free(hdrbuf);
	free(out);
	ZSTD_freeCCtx(cctx);
	return iot_reader_open_mem(r, *file, hdr_size + (size_t)k);
}

static int setup(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

#endif /* FORMAT_MODEL_H */
