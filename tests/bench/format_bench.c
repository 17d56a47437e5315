/*
 * format_bench.c - size and speed of the trace format on a cp -a shaped
 * workload, against strace text.
 *
 *   format_bench [-n EVENTS] [-p PATHLIST] [-d DIR] [-l LEVEL] [-f FLUSH] [-b] [-k]
 *
 * Per copied file: newfstatat(src), openat(src), newfstatat(fd,
 * AT_EMPTY_PATH), openat(dst, O_WRONLY|O_CREAT|O_EXCL), ioctl(FICLONE)
 * failing with EOPNOTSUPP, copy_file_range, close, close; two threads
 * copying in turn.  Paths come from PATHLIST (one per line, e.g. the file
 * list of a kernel tarball) or are made up to look like a kernel tree.
 * Prints key=value lines; tests/bench/format.sh makes the table.  -k keeps
 * the trace (DIR/format-bench.iotape).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "iotape.h"

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

int main(int argc, char **argv)
{
	struct iot_writer_opts o = { 0 };
	struct iot_header h = { 0 };
	struct iot_writer *w;
	struct iot_reader *r;
	struct iot_item it;
	struct gen g = { 0 };
	const char *plist = NULL, *dir = "/tmp";
	char out[4096], txt[4096], cmd[8400];
	size_t n = 1000000, i, k, read_ev = 0;
	double t0, ta, t_write = 0, t_append = 0, t_read;
	uint64_t sum = 0;
	int opt, rc, pass, keep = 0;
	FILE *f;

	while ((opt = getopt(argc, argv, "n:p:d:l:f:bk")) != -1) {
		switch (opt) {
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 'p': plist = optarg; break;
		case 'd': dir = optarg; break;
		case 'l': o.level = atoi(optarg); break;
		case 'f': o.flush_events = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'b': o.background = 1; break;
		case 'k': keep = 1; break;
		default:
			fprintf(stderr, "usage: format_bench [-n EVENTS] [-p PATHLIST] "
				"[-d DIR] [-l LEVEL] [-f FLUSH_EVENTS] [-b] [-k]\n");
			return 2;
		}
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
	if ((rc = iot_reader_open(&r, out))) {
		fprintf(stderr, "format_bench: %s: %s\n", out, iot_strerror(rc));
		return 1;
	}
	t_read = 1e9;
	for (pass = 0; pass < 3; pass++) {	/* best of 3 */
		double t;

		iot_reader_rewind(r);
		read_ev = 0;
		t0 = thread_s();
		while (iot_reader_next(r, &it) > 0) {
			if (it.kind == IOT_ITEM_EVENT) {
				read_ev++;
				sum += (uint64_t)it.u.ev.t_enter + it.u.ev.path_len;
			}
		}
		t = thread_s() - t0;
		if (t < t_read)
			t_read = t;
	}
	iot_reader_close(r);
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
	printf("decode_events_per_s=%.0f\n", (double)n / t_read);
	printf("strace_bytes_per_event=%.2f\n", (double)file_size(txt) / (double)n);
	snprintf(cmd, sizeof(cmd), "%s.zst", txt);
	printf("strace_zstd3_bytes_per_event=%.2f\n", (double)file_size(cmd) / (double)n);
	printf("checksum=%llu\n", (unsigned long long)sum);
	unlink(txt);
	unlink(cmd);
	if (!keep)
		unlink(out);
	return 0;
}
