/*
 * format_bench.c - size and speed of the trace format on a cp -a shaped
 * workload, against strace text.
 *
 *   format_bench [-n EVENTS] [-p PATHLIST] [-d DIR] [-l LEVEL] [-f FLUSH] [-b] [-k] [-c]
 *   format_bench -r TRACE [-c]
 *
 * Per copied file: newfstatat(src), openat(src), newfstatat(fd,
 * AT_EMPTY_PATH), openat(dst, O_WRONLY|O_CREAT|O_EXCL), ioctl(FICLONE)
 * failing with EOPNOTSUPP, copy_file_range, close, close; two threads
 * copying in turn.  Paths come from PATHLIST (one per line, e.g. the file
 * list of a kernel tarball) or are made up to look like a kernel tree.
 * Prints key=value lines; tests/bench/format.sh makes the table.  -k keeps
 * the trace (DIR/format-bench.iotape).  -c adds the compressed bytes of
 * each Chunk field per event (col_NAME=...): the writer starts a zstd block
 * at each column, and a block's bytes are shared among the fields it holds
 * by their sizes before compression.  -r decodes an existing trace only
 * (decode_events_per_s, and with -c its columns): for callgrind or perf on
 * the decoder alone, and for traces of another writer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
/* ZSTD_frameHeaderSize(), ZSTD_isSkippableFrame() */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "iotape.h"
#include "trace.pb-c.h"

static uint64_t rs = 88172645463325252ull;

static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static char **paths;
static size_t n_paths;

static void add_path(const char *p)
{
	static size_t cap;

	if (n_paths == cap) {
		cap = cap ? cap * 2 : 4096;
		paths = realloc(paths, cap * sizeof(*paths));
		if (!paths)
			exit(1);
	}
	paths[n_paths++] = strdup(p);
}

/* A made-up kernel tree: real directory names, file names of kernel-like
 * shape. */
static void make_paths(size_t n)
{
	static const char *const dirs[] = {
		"fs/ext4", "fs/xfs", "fs/btrfs", "fs/nfs", "mm", "kernel", "kernel/sched",
		"net/ipv4", "net/ipv6", "net/core", "drivers/net/ethernet/intel/e1000e",
		"drivers/gpu/drm/i915", "drivers/gpu/drm/amd/display/dc/core",
		"drivers/usb/core", "drivers/scsi", "include/linux", "include/uapi/linux",
		"arch/x86/kernel", "arch/x86/mm", "arch/arm64/kernel", "sound/soc/codecs",
		"tools/perf/util", "lib", "crypto", "block", "security/selinux",
	};
	static const char *const stem[] = {
		"inode", "super", "file", "dir", "namei", "extents", "balloc", "ialloc",
		"xattr", "acl", "ioctl", "page", "core", "main", "util", "sysfs", "debug",
		"trace", "init", "irq", "dma", "hw", "phy", "mac", "regs", "ops", "log",
	};
	static const char *const ext[] = { ".c", ".c", ".c", ".h", ".h", ".S", "" };
	char buf[512];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "/usr/src/linux/%s/%s%s%s%s",
			 dirs[rnd() % (sizeof(dirs) / sizeof(dirs[0]))],
			 stem[rnd() % (sizeof(stem) / sizeof(stem[0]))],
			 rnd() % 2 ? "_" : "",
			 rnd() % 2 ? stem[rnd() % (sizeof(stem) / sizeof(stem[0]))] : "",
			 ext[rnd() % (sizeof(ext) / sizeof(ext[0]))]);
		add_path(buf);
	}
}

static void load_paths(const char *file)
{
	FILE *f = fopen(file, "r");
	char line[4096], buf[4200];

	if (!f) {
		perror(file);
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);

		while (n && (line[n - 1] == '\n' || line[n - 1] == '/'))
			line[--n] = 0;
		if (!n)
			continue;
		snprintf(buf, sizeof(buf), "/usr/src/%s", line);
		add_path(buf);
	}
	fclose(f);
}

#define T_EV 8

struct gen {
	struct iot_event ev[T_EV];
	char dst[4200];
	int64_t clock;			/* one clock: ptrace stops come in order */
	size_t next_file;
};

/* The 8 events of copying one file, on thread @t. */
static void gen_file(struct gen *g, int t)
{
	const char *src = paths[g->next_file++ % n_paths];
	int64_t *now = &g->clock;
	int64_t size = (int64_t)(rnd() % 40000) + (rnd() % 8 ? 0 : (int64_t)(rnd() % 400000));
	int i;

	snprintf(g->dst, sizeof(g->dst), "/tmp/copy%s", src + 8);
	memset(g->ev, 0, sizeof(g->ev));
	for (i = 0; i < T_EV; i++) {
		struct iot_event *e = &g->ev[i];
		int64_t dur = 600 + (int64_t)(rnd() % 3000);

		*now += 1500 + (int64_t)(rnd() % 9000);	/* user time between calls */
		e->tid = e->pid = 4100 + t;
		e->t_enter = *now;
		if (i == 5)
			dur += size / 2;	/* copying costs */
		e->t_exit = *now + dur;
		*now = e->t_exit;
	}
	g->ev[0].nr = 262;	/* newfstatat(AT_FDCWD, src, buf, AT_SYMLINK_NOFOLLOW) */
	g->ev[0].nargs = 4;
	g->ev[0].args[0] = -100;
	g->ev[0].args[3] = 0x100;
	g->ev[1].nr = 257;	/* openat(AT_FDCWD, src, O_RDONLY|O_NOFOLLOW) */
	g->ev[1].nargs = 4;
	g->ev[1].args[0] = -100;
	g->ev[1].args[2] = 0400000;
	g->ev[1].ret = 3;
	g->ev[2].nr = 262;	/* newfstatat(3, "", buf, AT_EMPTY_PATH) */
	g->ev[2].nargs = 4;
	g->ev[2].args[0] = 3;
	g->ev[2].args[3] = 0x1000;
	g->ev[3].nr = 257;	/* openat(AT_FDCWD, dst, O_WRONLY|O_CREAT|O_EXCL, 0644) */
	g->ev[3].nargs = 4;
	g->ev[3].args[0] = -100;
	g->ev[3].args[2] = 01 | 0100 | 0200;
	g->ev[3].args[3] = 0644;
	g->ev[3].ret = 4;
	g->ev[4].nr = 16;	/* ioctl(4, FICLONE, 3) = -EOPNOTSUPP */
	g->ev[4].nargs = 3;
	g->ev[4].args[0] = 4;
	g->ev[4].args[1] = 0x40049409;
	g->ev[4].args[2] = 3;
	g->ev[4].ret = -95;
	g->ev[5].nr = 326;	/* copy_file_range(3, NULL, 4, NULL, big, 0) */
	g->ev[5].nargs = 6;
	g->ev[5].args[0] = 3;
	g->ev[5].args[1] = -1;
	g->ev[5].args[2] = 4;
	g->ev[5].args[3] = -1;
	g->ev[5].args[4] = 9223372035781033984;
	g->ev[5].ret = size;
	g->ev[6].nr = 3;	/* close(4) */
	g->ev[6].nargs = 1;
	g->ev[6].args[0] = 4;
	g->ev[7].nr = 3;	/* close(3) */
	g->ev[7].nargs = 1;
	g->ev[7].args[0] = 3;
	for (i = 0; i < 3; i++) {
		g->ev[i].path = src;
		g->ev[i].path_len = (uint32_t)strlen(src);
	}
	g->ev[3].path = g->dst;
	g->ev[3].path_len = (uint32_t)strlen(g->dst);
}

/* CPU time, not wall time: the figures are per core and stay true on a
 * busy machine.  Writing counts every thread (the background writer's
 * too); appending and decoding count the calling thread only. */
static double cpu_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now_s(void)
{
	return cpu_s(CLOCK_PROCESS_CPUTIME_ID);
}

static double thread_s(void)
{
	return cpu_s(CLOCK_THREAD_CPUTIME_ID);
}

static void strace_line(FILE *f, const struct iot_event *e, size_t k)
{
	double t = 1700000000.0 + (double)e->t_enter / 1e9;
	double d = (double)(e->t_exit - e->t_enter) / 1e9;
	const char *p = e->path;

	fprintf(f, "%d %.6f ", e->tid, t);
	switch (k) {
	case 0:
		fprintf(f, "newfstatat(AT_FDCWD, \"%s\", {st_mode=S_IFREG|0644, "
			"st_size=%lld, ...}, AT_SYMLINK_NOFOLLOW) = 0", p,
			(long long)e[5 - k].ret);
		break;
	case 1:
		fprintf(f, "openat(AT_FDCWD, \"%s\", O_RDONLY|O_NOFOLLOW) = 3", p);
		break;
	case 2:
		fprintf(f, "newfstatat(3, \"\", {st_mode=S_IFREG|0644, st_size=%lld, "
			"...}, AT_EMPTY_PATH) = 0", (long long)e[5 - k].ret);
		break;
	case 3:
		fprintf(f, "openat(AT_FDCWD, \"%s\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4", p);
		break;
	case 4:
		fprintf(f, "ioctl(4, BTRFS_IOC_CLONE or FICLONE, 3) = -1 EOPNOTSUPP "
			"(Operation not supported)");
		break;
	case 5:
		fprintf(f, "copy_file_range(3, NULL, 4, NULL, 9223372035781033984, 0) = %lld",
			(long long)e->ret);
		break;
	default:
		fprintf(f, "close(%d) = 0", k == 6 ? 4 : 3);
	}
	fprintf(f, " <%.6f>\n", d);
}

static long file_size(const char *p)
{
	struct stat st;

	return stat(p, &st) ? -1 : (long)st.st_size;
}

static const uint8_t *varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	int shift;

	*v = 0;
	for (shift = 0; shift < 64 && p < end; shift += 7) {
		*v |= (uint64_t)(*p & 0x7f) << shift;
		if (!(*p++ & 0x80))
			return p;
	}
	return NULL;
}

#define MAX_FIELD 64

/* The fields of a Chunk record in @raw: their number and end offset. */
static size_t chunk_fields(const uint8_t *raw, size_t len, unsigned *num, size_t *fend,
			   size_t max)
{
	const uint8_t *p = raw + 1, *end = raw + len;
	uint64_t v, key;
	size_t n = 0;

	/* TraceFile tag and length, Record.chunk tag and length */
	if (len < 2 || !(p = varint(p, end, &v)) || p >= end || *p++ != ((2 << 3) | 2) ||
	    !(p = varint(p, end, &v)))
		return 0;
	while (p < end && n < max) {
		if (!(p = varint(p, end, &key)))
			break;
		if ((key & 7) == 2) {
			if (!(p = varint(p, end, &v)) || v > (uint64_t)(end - p))
				break;
			p += v;
		} else if ((key & 7) == 0) {
			if (!(p = varint(p, end, &v)))
				break;
		} else {
			break;
		}
		num[n] = key >> 3 < MAX_FIELD ? (unsigned)(key >> 3) : 0;
		fend[n++] = (size_t)(p - raw);
	}
	return n;
}

/* Compressed bytes per Chunk field of every chunk frame of @file, printed
 * per event.  Each block's content is found by feeding the streaming
 * decoder one block at a time. */
static void columns(const char *file, size_t events)
{
	double bytes[MAX_FIELD] = { 0 }, raw_b[MAX_FIELD] = { 0 }, other = 0;
	FILE *f = fopen(file, "rb");
	ZSTD_DCtx *d = ZSTD_createDCtx();
	uint8_t *buf, *out = NULL;
	size_t len, off, frame = 0, out_cap = 0, i;
	long sz;

	if (!f || fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		perror(file);
		exit(1);
	}
	len = (size_t)sz;
	buf = malloc(len ? len : 1);
	if (!buf || fread(buf, 1, len, f) != len) {
		perror(file);
		exit(1);
	}
	fclose(f);
	for (off = 0; off < len; frame++) {
		size_t fsz = ZSTD_findFrameCompressedSize(buf + off, len - off);
		unsigned long long csz;
		size_t hsz, p, blk_start[4096], blk_end[4096], blk_c[4096], nb = 0;
		size_t fend[256], nf, k;
		unsigned num[256];
		ZSTD_outBuffer ob;
		ZSTD_inBuffer ib;

		if (ZSTD_isError(fsz))
			break;
		if (frame == 0 || ZSTD_isSkippableFrame(buf + off, len - off)) {
			other += (double)fsz;
			off += fsz;
			continue;
		}
		csz = ZSTD_getFrameContentSize(buf + off, fsz);
		hsz = ZSTD_frameHeaderSize(buf + off, fsz);
		if (csz == ZSTD_CONTENTSIZE_UNKNOWN || csz == ZSTD_CONTENTSIZE_ERROR ||
		    ZSTD_isError(hsz))
			break;
		if (out_cap < csz) {
			out_cap = (size_t)csz;
			out = realloc(out, out_cap);
			if (!out)
				exit(1);
		}
		ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
		ob = (ZSTD_outBuffer){ out, (size_t)csz, 0 };
		ib = (ZSTD_inBuffer){ buf + off, hsz, 0 };
		ZSTD_decompressStream(d, &ob, &ib);
		other += (double)hsz;
		for (p = hsz; p + 3 <= fsz && nb < 4096;) {
			const uint8_t *h = buf + off + p;
			uint32_t bh = h[0] | h[1] << 8 | (uint32_t)h[2] << 16;
			size_t bsz = (bh >> 1 & 3) == 1 ? 1 : bh >> 3, before = ob.pos;

			ib.size = p + 3 + bsz;
			while (ib.pos < ib.size)
				if (ZSTD_isError(ZSTD_decompressStream(d, &ob, &ib)))
					break;
			blk_start[nb] = before;
			blk_end[nb] = ob.pos;
			blk_c[nb++] = 3 + bsz;
			p += 3 + bsz;
			if (bh & 1)
				break;
		}
		other += (double)(fsz - p);	/* the checksum */
		nf = chunk_fields(out, ob.pos, num, fend, 256);
		for (i = 0; i < nb; i++) {
			size_t s0 = 0, b = blk_end[i] - blk_start[i];

			for (k = 0; k < nf; s0 = fend[k++]) {
				size_t lo = s0 > blk_start[i] ? s0 : blk_start[i];
				size_t hi = fend[k] < blk_end[i] ? fend[k] : blk_end[i];

				if (hi <= lo)
					continue;
				raw_b[num[k]] += (double)(hi - lo);
				bytes[num[k]] += b ? (double)blk_c[i] * (double)(hi - lo) / (double)b : 0;
			}
			if (!nf)
				other += (double)blk_c[i];
		}
		off += fsz;
	}
	for (i = 0; i < MAX_FIELD; i++) {
		const ProtobufCFieldDescriptor *fd =
			protobuf_c_message_descriptor_get_field(&iotape__chunk__descriptor,
								(unsigned)i);

		if (bytes[i] > 0 || raw_b[i] > 0)
			printf("col_%s=%.3f raw=%.3f\n", fd ? fd->name : "record",
			       bytes[i] / (double)events, raw_b[i] / (double)events);
	}
	printf("col_frames_header_index=%.3f\n", other / (double)events);
	ZSTD_freeDCtx(d);
	free(out);
	free(buf);
}

/* Decode @file @passes times; the best pass's events per CPU second. */
static double decode(const char *file, int passes, size_t *events, uint64_t *sum)
{
	struct iot_reader *r;
	struct iot_item it;
	double t_read = 1e9;
	int rc, pass;

	if ((rc = iot_reader_open(&r, file))) {
		fprintf(stderr, "format_bench: %s: %s\n", file, iot_strerror(rc));
		exit(1);
	}
	for (pass = 0; pass < passes; pass++) {
		double t, t0;

		iot_reader_rewind(r);
		*events = 0;
		t0 = thread_s();
		while (iot_reader_next(r, &it) > 0) {
			if (it.kind == IOT_ITEM_EVENT) {
				(*events)++;
				*sum += (uint64_t)it.u.ev.t_enter + it.u.ev.path_len;
			}
		}
		t = thread_s() - t0;
		if (t < t_read)
			t_read = t;
	}
	iot_reader_close(r);
	return (double)*events / t_read;
}

int main(int argc, char **argv)
{
	struct iot_writer_opts o = { 0 };
	struct iot_header h = { 0 };
	struct iot_writer *w;
	struct gen g = { 0 };
	const char *plist = NULL, *dir = "/tmp", *rd = NULL;
	char out[4096], txt[4096], cmd[8400];
	size_t n = 1000000, i, k, read_ev = 0;
	double t0, ta, t_write = 0, t_append = 0, decode_rate;
	uint64_t sum = 0;
	int opt, rc, pass, keep = 0, cols = 0;
	FILE *f;

	while ((opt = getopt(argc, argv, "n:p:d:l:f:bkcr:")) != -1) {
		switch (opt) {
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 'p': plist = optarg; break;
		case 'd': dir = optarg; break;
		case 'l': o.level = atoi(optarg); break;
		case 'f': o.flush_events = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'b': o.background = 1; break;
		case 'k': keep = 1; break;
		case 'c': cols = 1; break;
		case 'r': rd = optarg; break;
		default:
			fprintf(stderr, "usage: format_bench [-n EVENTS] [-p PATHLIST] "
				"[-d DIR] [-l LEVEL] [-f FLUSH_EVENTS] [-b] [-k] [-c]\n"
				"       format_bench -r TRACE [-c]\n");
			return 2;
		}
	}
	if (rd) {
		decode_rate = decode(rd, 3, &read_ev, &sum);
		printf("events=%zu\n", read_ev);
		printf("iotape_bytes_per_event=%.2f\n",
		       (double)file_size(rd) / (double)(read_ev ? read_ev : 1));
		printf("decode_events_per_s=%.0f\n", decode_rate);
		printf("checksum=%llu\n", (unsigned long long)sum);
		if (cols)
			columns(rd, read_ev ? read_ev : 1);
		return 0;
	}
	if (plist)
		load_paths(plist);
	if (n_paths == 0)
		make_paths(20000);
	/* shuffle-free but deterministic: files in list order, as cp walks */
	snprintf(out, sizeof(out), "%s/format-bench.iotape", dir);
	snprintf(txt, sizeof(txt), "%s/format-bench.strace", dir);
	h.host = "bench";
	h.recorder = "format_bench";
	o.flush_ms = -1;		/* chunks by count only: reproducible */
	if ((rc = iot_writer_open(&w, out, &h, &o))) {
		fprintf(stderr, "format_bench: %s: %s\n", out, iot_strerror(rc));
		return 1;
	}
	f = fopen(txt, "w");
	if (!f) {
		perror(txt);
		return 1;
	}
	/* strace text first, untimed */
	for (pass = 0; pass < 2; pass++) {
		rs = 88172645463325252ull;
		g.clock = 1000000000000;
		g.next_file = 0;
		t0 = now_s();
		ta = thread_s();
		for (i = 0; i < n; i += T_EV) {
			int t = (int)(rnd() % 2);

			gen_file(&g, t);
			for (k = 0; k < T_EV && i + k < n; k++) {
				if (pass == 0)
					strace_line(f, g.ev, k);
				else if ((rc = iot_writer_event(w, &g.ev[k]))) {
					fprintf(stderr, "format_bench: %s\n", iot_strerror(rc));
					return 1;
				}
			}
		}
		if (pass == 1)
			t_append = thread_s() - ta;
		if (pass == 1 && (rc = iot_writer_close(w, 0))) {
			fprintf(stderr, "format_bench: close: %s\n", iot_strerror(rc));
			return 1;
		}
		if (pass == 1)
			t_write = now_s() - t0;
	}
	fclose(f);
	decode_rate = decode(out, 3, &read_ev, &sum);	/* best of 3 */
	if (read_ev != n) {
		fprintf(stderr, "format_bench: read %zu events of %zu\n", read_ev, n);
		return 1;
	}
	snprintf(cmd, sizeof(cmd), "zstd -q -f -3 '%s' -o '%s.zst'", txt, txt);
	if (system(cmd))
		fprintf(stderr, "format_bench: zstd failed\n");
	printf("events=%zu\n", n);
	printf("paths=%zu\n", n_paths);
	printf("iotape_bytes=%ld\n", file_size(out));
	printf("iotape_bytes_per_event=%.2f\n", (double)file_size(out) / (double)n);
	printf("write_events_per_s=%.0f\n", (double)n / t_write);
	/* what the caller (the tracer) waits: with -b, not zstd nor write */
	printf("append_events_per_s=%.0f\n", (double)n / t_append);
	printf("decode_events_per_s=%.0f\n", decode_rate);
	printf("strace_bytes_per_event=%.2f\n", (double)file_size(txt) / (double)n);
	snprintf(cmd, sizeof(cmd), "%s.zst", txt);
	printf("strace_zstd3_bytes_per_event=%.2f\n", (double)file_size(cmd) / (double)n);
	printf("checksum=%llu\n", (unsigned long long)sum);
	if (cols)
		columns(out, n);
	unlink(txt);
	unlink(cmd);
	if (!keep)
		unlink(out);
	return 0;
}
