/*
 * bpf.c - `iotape record --backend bpf`: load the BPF programs
 * (bpf/iotape.bpf.c), follow the program's process tree with them, and
 * drain their ring buffer into the trace (bpf_events.c turns records into
 * events) while the program runs: no ptrace, and no stop but the one
 * bpf_guard.c keeps before calls that make, remove or rename a name or
 * truncate a path.
 *
 * Following the program and draining the ring: bpf_drain.c; the
 * measure of what the programs add to a gap: bpf_calib.c.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine.h"
#include "rec.h"

#ifdef IOT_HAVE_BPF
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/event.h"
#include "bpf/bpf_int.h"
#include "fastpath/fp.h"
#include "iotape.skel.h"

#define VLOG_BYTES	(1 << 20)
#define BK_PLAIN	0
#define BK_STR		1
#define BK_IOV		2
#define BK_OFFPTR	3
#define BK_OPENHOW	4
#define BK_CLONE3	5
#define BK_TIMESPEC	6
#define BK_TIMEVAL	7
#define BK_SOCKADDR	8
#define BK_FLOCK	9
#define BK_IOCFLAGS	10

const char *rec_bpf_missing(void)
{
	return NULL;
}

static int quiet_print(enum libbpf_print_level l, const char *f, va_list ap)
{
	return 0;
}

static void fill_sysinfo(struct rec_bpf *b, int fast)
{
	const struct iot_syscall *tab;
	size_t n, i;

	tab = iot_syscall_table(&n);
	for (i = 0; i < n; i++) {
		struct be_sysinfo si;
		uint32_t k = (uint32_t)tab[i].nr;
		int a;

		if (tab[i].nr < 0 || tab[i].nr >= BE_NR_MAX)
			continue;
		memset(&si, 0, sizeof(si));
		si.rec = 1;
		si.guard = (uint8_t)rec_guard_may_stop(tab[i].nr, fast);
		for (a = 0; a < tab[i].nargs && a < 6; a++) {
			switch (tab[i].arg[a]) {
			case IOT_ARG_PATH: case IOT_ARG_PATH2: case IOT_ARG_STR2:
				si.kind[a] = BK_STR;
				break;
			case IOT_ARG_IOVLEN: si.kind[a] = BK_IOV; break;
			case IOT_ARG_OFFPTR: si.kind[a] = BK_OFFPTR; break;
			case IOT_ARG_OPENHOW: si.kind[a] = BK_OPENHOW; break;
			case IOT_ARG_TIMESPEC: si.kind[a] = BK_TIMESPEC; break;
			case IOT_ARG_TIMEVAL: si.kind[a] = BK_TIMEVAL; break;
			case IOT_ARG_SOCKADDR: si.kind[a] = BK_SOCKADDR; break;
			case IOT_ARG_CLONE_FLAGS:
				si.kind[a] = tab[i].nr == SYS_clone3 ? BK_CLONE3 : BK_PLAIN;
				break;
			case IOT_ARG_HEX:
				/* fcntl's third: a lock's struct flock;
				 * ioctl's: FS_IOC_SETFLAGS's int,
				 * FS_IOC_FSSETXATTR's fsx_xflags */
				si.kind[a] = tab[i].nr == SYS_fcntl && a == 2 ? BK_FLOCK :
					     tab[i].nr == SYS_ioctl && a == 2 ? BK_IOCFLAGS : BK_PLAIN;
				break;
			default: si.kind[a] = BK_PLAIN; break;
			}
			/* the programs decode up to the last argument
			 * that is not plain: none for read, write, close */
			if (si.kind[a] != BK_PLAIN)
				si.nargs = (uint8_t)(a + 1);
		}
		/* one record, at its exit, when it has no string or only
		 * empty or NULL ones: not a process call (its fork and exec
		 * records come between its entry and exit), io_uring's (ring
		 * records), an open (its exit brings the file it found) nor
		 * an exec; with nothing to decode either (plain), the entry
		 * writes only the task's state */
		switch (tab[i].nr) {
		case SYS_clone: case SYS_clone3: case SYS_fork: case SYS_vfork:
		case SYS_exit: case SYS_exit_group: case SYS_execve: case SYS_execveat:
		case SYS_io_uring_setup: case SYS_io_uring_enter: case SYS_io_uring_register:
		case SYS_open: case SYS_creat: case SYS_openat: case SYS_openat2:
			break;
		default:
			si.one = 1;
		}
		si.plain = si.one && si.nargs == 0;
		b->skel->rodata->sysinfo[k] = si;
	}
}

static struct rec_bpf *bpf_new(struct rec_ctx *c)
{
	struct rec_bpf *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->guard_fd = -1;
	b->ring.fd = -1;
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->cv, NULL);
	b->ring_bytes = (uint32_t)c->o->bpf_ring_mb << 20;
	b->wake_bytes = (uint64_t)c->o->bpf_wake_kb << 10;
	if (c->o->backend == REC_BACKEND_MIXED && c->o->fastpath)
		b->stub_ip = FP_STUB_ADDR + FP_STUB_RET_OFF;
	return b;
}

/* the programs are in the kernel, or will not be: rec_bpf_wait_loaded()
 * returns */
static void mark_loaded(struct rec_bpf *b)
{
	pthread_mutex_lock(&b->mu);
	b->loaded = 1;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
}

/* the object opened, loaded and attached into @b, which has none yet;
 * what it reads of the recording is in @b (bpf_new()): it may run in a
 * thread of its own (@ctx, the recording's, is only kept for the ring's
 * callback).  @return : 0, or -errno with *@why set */
static int bpf_load(struct rec_bpf *b, void *ctx, const char **why)
{
	char *vlog = NULL;
	FILE *f;
	int err;

	*why = NULL;
	if (!getenv("IOTAPE_BPF_DEBUG"))
		libbpf_set_print(quiet_print);
	if (access("/sys/kernel/btf/vmlinux", R_OK) < 0) {
		*why = "the kernel has no BTF (/sys/kernel/btf/vmlinux)";
		return -ENOENT;
	}
	b->pid_max = 4194304;
	f = fopen("/proc/sys/kernel/pid_max", "re");
	if (f) {
		if (fscanf(f, "%d", &b->pid_max) != 1 || b->pid_max <= 0)
			b->pid_max = 4194304;
		fclose(f);
	}
	b->pending = calloc((size_t)b->pid_max + 1, sizeof(*b->pending));
	rec_stamp("bpf_start");
	b->skel = iotape_bpf__open();
	if (!b->pending || !b->skel) {
		*why = "cannot open its BPF object";
		return b->pending ? -errno : -ENOMEM;
	}
	b->skel->maps.rb.max_entries = b->ring_bytes;
	b->skel->rodata->wake_bytes = b->wake_bytes;
	b->skel->rodata->stub_ip = b->stub_ip;
	fill_sysinfo(b, b->stub_ip != 0);
	/* a light skeleton: a loader program does the relocations in the
	 * kernel, against its own BTF; libbpf reading and matching the
	 * kernel's 5 MB of BTF in every recording was half its start-up */
	if (getenv("IOTAPE_BPF_DEBUG") && (vlog = calloc(1, VLOG_BYTES))) {
		b->skel->ctx.log_level = 1;
		b->skel->ctx.log_size = VLOG_BYTES;
		b->skel->ctx.log_buf = (uint64_t)(uintptr_t)vlog;
	}
	rec_stamp("bpf_opened");
	err = iotape_bpf__load(b->skel);
	rec_stamp("bpf_loaded");
	mark_loaded(b);
	if (err && vlog)
		iot_warn("record", "the verifier's log: %s", vlog);
	free(vlog);
	if (err) {
		*why = err == -EPERM ?
			"loading BPF programs needs root or CAP_BPF and CAP_PERFMON" :
			"the kernel refused its BPF programs (IOTAPE_BPF_DEBUG=1 shows why)";
		return err < 0 ? err : -EINVAL;
	}
	err = iotape_bpf__attach(b->skel);
	if (err) {
		*why = "cannot attach its BPF programs to the raw tracepoints";
		return err < 0 ? err : -EINVAL;
	}
	rec_stamp("bpf_attached");
	rec_bpf_calib_start(b);
	/* the ring mapped here, not on the way to the program's start
	 * (~0.5 ms at 8 MiB: every page-table entry inserted at mmap); not
	 * copied by a fork (bpf_ring.c).  If it cannot be now, it is by
	 * rec_bpf_follow(). */
	rec_ring_open(&b->ring, b->skel->maps.rb.map_fd, b->ring_bytes, rec_bpf_on_record, ctx);
	rec_stamp("ring_mapped");
	return 0;
}

/* the programs detached and their maps, the ring's mapping and the
 * guard's listener let go: what the kernel holds for the recording */
static void bpf_unload(struct rec_ctx *c)
{
	struct rec_bpf *b = c->bpf;

	if (!b->skel && b->ring.fd < 0 && b->guard_fd < 0 && !b->uskel && !b->askel)
		return;
	rec_ring_close(&b->ring);
	rec_stamp("ring_unmapped");
	if (b->guard_fd >= 0)
		close(b->guard_fd);
	b->guard_fd = -1;
	rec_bpf_uring_free(c);
	rec_bpf_aio_unload(c);
	iotape_bpf__destroy(b->skel);
	b->skel = NULL;
	rec_stamp("bpf_destroyed");
}

/* the rest of @b, once unloaded */
static void bpf_free(struct rec_bpf *b)
{
	int i;

	for (i = 0; b->pending && b->npend && i <= b->pid_max; i++) {
		struct pend *pd = b->pending[i];

		if (pd) {
			free(pd->e);
			b->npend--;
		}
		free(pd);
	}
	free(b->pending);
	while (b->spare) {
		struct pend *pd = b->spare;

		b->spare = pd->next;
		free(pd->e);
		free(pd);
	}
	free(b->cwd);
	free(b->qbuf);
	free(b->q);
	free(b->rel);
	free(b->dead);
	free(b->dead_status);
	free(b->dead_left);
	pthread_mutex_destroy(&b->mu);
	pthread_cond_destroy(&b->cv);
	free(b);
}

int rec_bpf_setup(struct rec_ctx *c, const char **why)
{
	struct rec_bpf *b = bpf_new(c);
	int err;

	*why = NULL;
	if (!b)
		return -ENOMEM;
	err = bpf_load(b, c, why);
	if (err) {
		iotape_bpf__destroy(b->skel);
		bpf_free(b);
		return err;
	}
	c->bpf = b;
	return 0;
}

static void *loader(void *arg)
{
	struct rec_ctx *c = arg;
	struct rec_bpf *b = c->bpf;

	b->load_err = bpf_load(b, c, &b->load_why);
	mark_loaded(b);
	return NULL;
}

/*
 * The load takes most of a recording's start (~10 ms of CPU: the
 * verifier, the maps, the attach); nothing of it is needed before the
 * program's first call, so it runs in a thread while the recorder writes
 * the header, starts the writer and forks the program, which installs the
 * guard's filter meanwhile.
 */
int rec_bpf_start(struct rec_ctx *c)
{
	struct rec_bpf *b = bpf_new(c);

	if (!b)
		return -ENOMEM;
	/* the syscall table sorted here, not under the thread: a fork while
	 * it holds the table's pthread_once would leave the program's
	 * filter waiting for it forever */
	iot_syscall_table(NULL);
	c->bpf = b;
	if (pthread_create(&b->th, NULL, loader, c) == 0)
		b->th_running = 1;
	else
		loader(c);
	return 0;
}

void rec_bpf_wait_loaded(struct rec_ctx *c)
{
	struct rec_bpf *b = c->bpf;

	if (!b->th_running)
		return;
	pthread_mutex_lock(&b->mu);
	while (!b->loaded)
		pthread_cond_wait(&b->cv, &b->mu);
	pthread_mutex_unlock(&b->mu);
}

int rec_bpf_wait(struct rec_ctx *c, const char **why)
{
	struct rec_bpf *b = c->bpf;

	if (b->th_running) {
		pthread_join(b->th, NULL);
		b->th_running = 0;
	}
	if (!b->load_err)
		rec_bpf_calib_end(b);
	*why = b->load_why;
	return b->load_err;
}

static void *unloader(void *arg)
{
	bpf_unload(arg);
	return NULL;
}

/*
 * Detaching twelve programs (the kernel's code patched on every CPU),
 * freeing their maps and unmapping the ring cost ~1-2 ms that no part of
 * the trace waits for: a thread does it while the recorder takes the
 * listed directories' entries and closes the trace.
 */
void rec_bpf_unload_start(struct rec_ctx *c)
{
	struct rec_bpf *b = c->bpf;

	if (!b || b->th_running)
		return;
	if (pthread_create(&b->th, NULL, unloader, c) == 0)
		b->th_running = 1;
}

int rec_bpf_share_maps(struct rec_bpf *b, struct bpf_map *rb, struct bpf_map *tstate,
		       struct bpf_map *scratch, struct bpf_map *drops)
{
	int err;

	if ((err = bpf_map__reuse_fd(rb, b->skel->maps.rb.map_fd)) ||
	    (err = bpf_map__reuse_fd(tstate, b->skel->maps.tstate.map_fd)) ||
	    (err = bpf_map__reuse_fd(scratch, b->skel->maps.scratch.map_fd)))
		return err;
	return bpf_map__reuse_fd(drops, b->skel->maps.drops.map_fd);
}

void rec_bpf_free(struct rec_ctx *c)
{
	struct rec_bpf *b = c->bpf;

	if (!b)
		return;
	/* a load still running (the program never started), or the unload */
	if (b->th_running)
		pthread_join(b->th, NULL);
	b->th_running = 0;
	bpf_unload(c);
	rec_bpf_aio_free(c);
	bpf_free(b);
	c->bpf = NULL;
}

#else /* !IOT_HAVE_BPF */

const char *rec_bpf_missing(void)
{
	return "this iotape was built without the bpf backend (libbpf-dev, bpftool "
	       "or clang were missing at build time; run tools/deps.sh check and rebuild)";
}

int rec_bpf_setup(struct rec_ctx *c, const char **why)
{
	*why = rec_bpf_missing();
	return -ENOSYS;
}

int rec_bpf_start(struct rec_ctx *c)
{
	return -ENOSYS;
}

void rec_bpf_wait_loaded(struct rec_ctx *c)
{
}

int rec_bpf_wait(struct rec_ctx *c, const char **why)
{
	*why = rec_bpf_missing();
	return -ENOSYS;
}

void rec_bpf_unload_start(struct rec_ctx *c)
{
}

void rec_bpf_free(struct rec_ctx *c)
{
}

int64_t rec_bpf_gap_ns(struct rec_ctx *c)
{
	return -1;
}

int rec_bpf_follow(struct rec_ctx *c, pid_t pid)
{
	return -ENOSYS;
}

int rec_bpf_loop(struct rec_ctx *c)
{
	return -ENOSYS;
}

void rec_bpf_set_guard(struct rec_ctx *c, int fd)
{
}

#endif
