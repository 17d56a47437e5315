/*
 * mktraces.c - write the small golden traces of tests/data/ with the
 * library's writer:
 *   basic.iotape     a trace: processes (start, fork, exec, thread, exit,
 *                    phases), path states, ~40 events of many syscalls,
 *                    errors, unfinished calls, odd bytes in paths; 2 chunks
 *   profile.iotape   a profile (target filesystem in the header)
 *   unclosed.iotape  a writer that never closed: 2 chunks, no index
 *   many.iotape      600 events in 12 chunks, for damage at many offsets
 *
 * usage: mktraces DIR.  Everything is fixed (times, pids, host), so the
 * dumps in tests/data/ (NAME.dump) stay valid while the writer is unchanged in
 * meaning; tests/integration/dump_check.sh regenerates and compares.
 */
#include <asm/unistd_64.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iotape.h"

#define T0 1000000000000LL	/* monotonic ns of the start */

static struct iot_writer *w;
static int64_t now = T0;
static int failed;

static void check(int rc, const char *what)
{
	if (rc) {
		fprintf(stderr, "mktraces: %s: %s\n", what, iot_strerror(rc));
		failed = 1;
	}
}

static void ev(int32_t pid, int32_t tid, int nr, int64_t ret, int64_t dur,
	       const char *path, const char *path2, uint32_t flags,
	       int nargs, const int64_t *args)
{
	struct iot_event e;

	memset(&e, 0, sizeof(e));
	now += 7000 + (now % 13) * 100;
	e.t_enter = now;
	e.t_exit = now + dur;
	now += dur;
	e.pid = pid;
	e.tid = tid;
	e.nr = nr;
	e.ret = ret;
	e.flags = flags;
	e.nargs = (uint32_t)nargs;
	memcpy(e.args, args, sizeof(e.args[0]) * (size_t)nargs);
	e.path = path;
	e.path_len = path ? (uint32_t)strlen(path) : 0;
	e.path2 = path2;
	e.path2_len = path2 ? (uint32_t)strlen(path2) : 0;
	check(iot_writer_event(w, &e), "event");
}

#define EV(pid, tid, nr, ret, dur, p, p2, fl, ...) do { \
	const int64_t a_[] = { __VA_ARGS__ }; \
	ev(pid, tid, nr, ret, dur, p, p2, fl, (int)(sizeof(a_) / sizeof(a_[0])), a_); \
} while (0)

static void proc(uint32_t kind, int32_t pid, int32_t tid, int32_t ppid,
		 uint64_t clone_flags, const char *exe, int argc,
		 const char *const *argv, int32_t status)
{
	uint32_t lens[8];
	struct iot_process p;
	int i;

	memset(&p, 0, sizeof(p));
	now += 3000;
	p.kind = kind;
	p.t_ns = now;
	p.pid = pid;
	p.tid = tid;
	p.ppid = ppid;
	p.ptid = ppid;
	p.clone_flags = clone_flags;
	p.argc = (uint32_t)argc;
	p.argv = argv;
	for (i = 0; i < argc && i < 8; i++)
		lens[i] = (uint32_t)strlen(argv[i]);
	p.argv_len = lens;
	p.exe = exe;
	p.exe_len = exe ? (uint32_t)strlen(exe) : 0;
	if (kind == IOT_PROC_START) {
		p.cwd = "/work";
		p.cwd_len = 5;
	}
	p.exit_status = status;
	check(iot_writer_process(w, &p), "process");
}

static void state(const char *path, uint32_t type, uint64_t size,
		  uint32_t mode, const char *target)
{
	struct iot_path_state ps;

	memset(&ps, 0, sizeof(ps));
	ps.path = path;
	ps.path_len = (uint32_t)strlen(path);
	ps.type = type;
	ps.size = size;
	ps.mode = mode;
	ps.uid = ps.gid = 1000;
	ps.nlink = type ? 1 : 0;
	ps.mtime_ns = ps.atime_ns = ps.ctime_ns = 1700000000LL * 1000000000LL;
	ps.target = target;
	ps.target_len = target ? (uint32_t)strlen(target) : 0;
	ps.t_ns = now;
	check(iot_writer_path_state(w, &ps), "path state");
}

static void open_file(const char *dir, const char *name, int kind)
{
	static const char *const argv[] = {
		"sh", "-c", "cp -a src dst && rm -rf dst",
	};
	static const struct iot_mount mounts[] = {
		{ "/dev/vda1", "/", "ext4", "rw,relatime", "/", 254, 1 },
	};
	struct iot_writer_opts o;
	struct iot_header h;
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	memset(&h, 0, sizeof(h));
	memset(&o, 0, sizeof(o));
	o.flush_events = 1000000;
	o.flush_ms = -1;		/* only explicit flushes */
	h.kind = (uint32_t)kind;
	h.tool_version = "0.1.0";
	h.host = "golden";
	h.kernel = "6.1.0-test";
	h.arch = "x86_64";
	h.argc = 3;
	h.argv = argv;
	h.cwd = "/work";
	h.clock_id = 1;
	h.realtime_ns = 1700000000LL * 1000000000LL;
	h.monotonic_ns = T0;
	h.start_ns = T0;
	h.n_mounts = 1;
	h.mounts = mounts;
	h.stop_cost_ns = 2500;
	h.recorder = "ptrace+seccomp";
	if (kind == IOT_KIND_PROFILE) {
		h.target_fstype = "ext4";
		h.target_label = "ext4-ordered";
		h.target_device = "/dev/loop0";
		h.target_mountpoint = "/mnt/iotape";
		h.target_mount_options = "rw,relatime,data=ordered";
		h.target_mkfs = "mkfs.ext4 -q";
		h.replay_options = "timing=original";
	}
	now = T0;
	check(iot_writer_open(&w, path, &h, &o), path);
}

#define AT_FDCWD_ (-100)
#define ENOENT_ 2
#define EEXIST_ 17

static void basic(const char *dir)
{
	static const char *const sh[] = { "sh", "-c", "cp -a src dst && rm -rf dst" };
	static const char *const cp[] = { "cp", "-a", "src", "dst" };
	static const char *const rm[] = { "rm", "-rf", "dst" };
	static const char *const ph_cp[] = { "cp" };
	static const char *const ph_rm[] = { "rm" };

	open_file(dir, "basic.iotape", IOT_KIND_TRACE);
	proc(IOT_PROC_START, 100, 100, 0, 0, "/bin/sh", 3, sh, 0);
	proc(IOT_PROC_PHASE, 100, 100, 0, 0, NULL, 1, ph_cp, 0);
	EV(100, 100, __NR_clone, 101, 90000, NULL, NULL, 0, 0x1200011, 0, 0, 0, 0);
	proc(IOT_PROC_FORK, 101, 101, 100, 0x1200011, NULL, 0, NULL, 0);
	EV(101, 101, __NR_execve, 0, 400000, "/usr/bin/cp", NULL, 0, 0, 0, 0);
	proc(IOT_PROC_EXEC, 101, 101, 0, 0, "/usr/bin/cp", 4, cp, 0);
	state("/work/src", 040000, 4096, 0755, NULL);
	state("/work/src/a", 0100000, 5000, 0644, NULL);
	state("/work/src/link", 0120000, 1, 0777, "a");
	state("/work/dst", 0, 0, 0, NULL);
	EV(101, 101, __NR_openat, 3, 12000, "/etc/ld.so.cache", NULL, 0,
	   AT_FDCWD_, 0, 02000000, 0);
	EV(101, 101, __NR_newfstatat, 0, 3000, "/etc/ld.so.cache", NULL, 0,
	   3, 0, 0, 0x1000);
	EV(101, 101, __NR_mmap, 0x7f0000001000LL, 5000, NULL, NULL, 0,
	   0, 20000, 1, 2, 3, 0);
	EV(101, 101, __NR_close, 0, 1500, NULL, NULL, 0, 3);
	EV(101, 101, __NR_newfstatat, -ENOENT_, 4000, "/work/dst", NULL, 0,
	   AT_FDCWD_, 0, 0, 0x100);
	EV(101, 101, __NR_mkdir, 0, 30000, "/work/dst", NULL, 0, 0, 0700);
	EV(101, 101, __NR_mkdir, -EEXIST_, 8000, "/work/dst", NULL, 0, 0, 0700);
	EV(101, 101, __NR_openat, 3, 15000, "/work/src", NULL, 0,
	   AT_FDCWD_, 0, 0200000 | 04000 | 02000000, 0);
	EV(101, 101, __NR_getdents64, 120, 9000, NULL, NULL, 0, 3, 0, 32768);
	EV(101, 101, __NR_getdents64, 0, 2000, NULL, NULL, 0, 3, 0, 32768);
	EV(101, 101, __NR_fcntl, 4, 1000, NULL, NULL, 0, 3, 1030, 3);
	EV(101, 101, __NR_openat, 5, 14000, "/work/src/a", NULL, 0,
	   AT_FDCWD_, 0, 0100000, 0);
	EV(101, 101, __NR_openat, 6, 40000, "/work/dst/a", NULL, 0,
	   AT_FDCWD_, 0, 01 | 0100 | 0200 | 0100000, 0600);
	EV(101, 101, __NR_ioctl, -95, 2000, NULL, NULL, 0, 6, 0x40049409, 5);
	EV(101, 101, __NR_copy_file_range, 5000, 60000, NULL, NULL, 0,
	   5, -1, 6, -1, 9223372035781033984LL, 0);
	EV(101, 101, __NR_copy_file_range, 0, 3000, NULL, NULL, 0,
	   5, -1, 6, -1, 9223372035781033984LL, 0);
	EV(101, 101, __NR_fsetxattr, 0, 11000, NULL, "system.posix_acl_access", 0,
	   6, 0, 0, 28, 0);
	EV(101, 101, __NR_fchmod, 0, 4000, NULL, NULL, 0, 6, 0644);
	EV(101, 101, __NR_utimensat, 0, 5000, NULL, NULL, 0, 6, 0, 0, 0);
	EV(101, 101, __NR_close, 0, 20000, NULL, NULL, 0, 6);
	EV(101, 101, __NR_readlinkat, 1, 3000, "/work/src/link", NULL, 0,
	   AT_FDCWD_, 0, 0, 2);
	EV(101, 101, __NR_symlinkat, 0, 9000, "/work/dst/link", "a", 0,
	   0, AT_FDCWD_, 0);
	EV(101, 101, __NR_openat, -ENOENT_, 6000,
	   "/work/src/caf\xc3\xa9 \"odd\"\x8f\n", NULL, 0, AT_FDCWD_, 0, 0, 0);
	proc(IOT_PROC_THREAD, 101, 102, 101, 0x3d0f00, NULL, 0, NULL, 0);
	EV(101, 102, __NR_read, 0, 0, NULL, NULL, IOT_EV_UNFINISHED, 5, 0, 4096);
	proc(IOT_PROC_EXIT, 101, 102, 0, 0, NULL, 0, NULL, 0);
	EV(101, 101, __NR_exit_group, 0, 0, NULL, NULL, IOT_EV_UNFINISHED, 0);
	proc(IOT_PROC_EXIT, 101, 101, 0, 0, NULL, 0, NULL, 0);
	EV(100, 100, __NR_wait4, 101, 800000, NULL, NULL, 0, -1, 0, 0, 0);
	check(iot_writer_flush(w, 1), "flush");

	proc(IOT_PROC_PHASE, 100, 100, 0, 0, NULL, 1, ph_rm, 0);
	EV(100, 100, __NR_clone, 103, 85000, NULL, NULL, 0, 0x1200011, 0, 0, 0, 0);
	proc(IOT_PROC_FORK, 103, 103, 100, 0x1200011, NULL, 0, NULL, 0);
	proc(IOT_PROC_EXEC, 103, 103, 0, 0, "/usr/bin/rm", 3, rm, 0);
	EV(103, 103, __NR_newfstatat, 0, 3000, "/work/dst", NULL, 0,
	   AT_FDCWD_, 0, 0, 0x100);
	EV(103, 103, __NR_openat, 3, 9000, "/work/dst", NULL, 0,
	   AT_FDCWD_, 0, 0200000 | 0400000 | 04000 | 0100000 | 02000000, 0);
	EV(103, 103, __NR_unlinkat, 0, 25000, "/work/dst/a", NULL, 0, 3, 0, 0);
	EV(103, 103, __NR_unlinkat, 0, 12000, "/work/dst/link", NULL, 0, 3, 0, 0);
	EV(103, 103, __NR_close, 0, 1000, NULL, NULL, 0, 3);
	EV(103, 103, __NR_unlinkat, 0, 30000, "/work/dst", NULL, 0,
	   AT_FDCWD_, 0, 0x200);
	EV(103, 103, __NR_renameat2, -ENOENT_, 5000, "/work/x", "/work/y", 0,
	   AT_FDCWD_, 0, AT_FDCWD_, 0, 1);
	EV(103, 103, __NR_fsync, 0, 2500000, NULL, NULL, 0, 1);
	proc(IOT_PROC_EXIT, 103, 103, 0, 0, NULL, 0, NULL, 9);
	EV(100, 100, __NR_wait4, 103, 300000, NULL, NULL, 0, -1, 0, 0, 0);
	EV(100, 100, __NR_exit_group, 0, 0, NULL, NULL, IOT_EV_UNFINISHED, 1);
	proc(IOT_PROC_EXIT, 100, 100, 0, 0, NULL, 0, NULL, 1 << 8);
	check(iot_writer_close(w, 0), "close");
}

static void profile(const char *dir)
{
	static const char *const tar[] = { "tar", "xf", "x.tar" };

	open_file(dir, "profile.iotape", IOT_KIND_PROFILE);
	proc(IOT_PROC_START, 200, 200, 0, 0, "/usr/bin/tar", 3, tar, 0);
	EV(200, 200, __NR_openat, 3, 20000, "/mnt/iotape/x", NULL, 0,
	   AT_FDCWD_, 0, 01 | 0100 | 0200 | 01000, 0644);
	EV(200, 200, __NR_write, 10240, 30000, NULL, NULL, 0, 3, 0, 10240);
	EV(200, 200, __NR_pwrite64, 4096, 9000, NULL, NULL, 0, 3, 0, 4096, 8192);
	EV(200, 200, __NR_fdatasync, 0, 1200000, NULL, NULL, 0, 3);
	EV(200, 200, __NR_ioctl, 0, 3000, NULL, NULL, IOT_EV_REPLAY_MISMATCH,
	   3, 0x40049409, 4);
	EV(200, 200, __NR_openat, 5, 1000, "/proc/self/status", NULL,
	   IOT_EV_REPLAY_SKIPPED, AT_FDCWD_, 0, 0, 0);
	EV(200, 200, __NR_close, 0, 2000, NULL, NULL, 0, 3);
	EV(200, 200, __NR_exit_group, 0, 0, NULL, NULL, IOT_EV_UNFINISHED, 0);
	proc(IOT_PROC_EXIT, 200, 200, 0, 0, NULL, 0, NULL, 0);
	check(iot_writer_close(w, 3), "close");
}

static void unclosed(const char *dir)
{
	static const char *const tool[] = { "dd", "if=/dev/zero", "of=z" };
	int i;

	open_file(dir, "unclosed.iotape", IOT_KIND_TRACE);
	proc(IOT_PROC_START, 300, 300, 0, 0, "/usr/bin/dd", 3, tool, 0);
	EV(300, 300, __NR_openat, 1, 20000, "/work/z", NULL, 0,
	   AT_FDCWD_, 0, 01 | 0100 | 01000, 0666);
	for (i = 0; i < 10; i++) {
		EV(300, 300, __NR_read, 512, 2000, NULL, NULL, 0, 0, 0, 512);
		EV(300, 300, __NR_write, 512, 5000, NULL, NULL, 0, 1, 0, 512);
		if (i == 4)
			check(iot_writer_flush(w, 1), "flush");
	}
	check(iot_writer_flush(w, 1), "flush");
	/* as a recorder killed here would leave it: no index */
	iot_writer_abort(w);
}

static void many(const char *dir)
{
	static const char *const mk[] = { "make", "-j2" };
	char path[64];
	int i;

	open_file(dir, "many.iotape", IOT_KIND_TRACE);
	proc(IOT_PROC_START, 400, 400, 0, 0, "/usr/bin/make", 2, mk, 0);
	for (i = 0; i < 600; i++) {
		int32_t tid = 400 + (i / 100);

		snprintf(path, sizeof(path), "/work/obj/f%03d.o", i);
		if (i % 3 == 0)
			EV(400, tid, __NR_openat, i % 7 ? 3 : -ENOENT_, 4000 + i * 10,
			   path, NULL, 0, AT_FDCWD_, 0, 01 | 0100 | 01000, 0644);
		else if (i % 3 == 1)
			EV(400, tid, __NR_write, 4096, 9000 + i, NULL, NULL, 0,
			   3, 0, 4096);
		else
			EV(400, tid, __NR_close, 0, 1000, NULL, NULL, 0, 3);
		if (i % 50 == 49)
			check(iot_writer_flush(w, 1), "flush");
	}
	proc(IOT_PROC_EXIT, 400, 400, 0, 0, NULL, 0, NULL, 0);
	check(iot_writer_close(w, 0), "close");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mktraces DIR\n");
		return 2;
	}
	basic(argv[1]);
	profile(argv[1]);
	unclosed(argv[1]);
	many(argv[1]);
	return failed;
}
