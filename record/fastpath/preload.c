/*
 * preload.c - the in-process fast path: a syscall stub at a fixed address
 * and the per-thread rings it logs into.
 *
 * The tracer's seccomp filter ALLOWs any syscall whose instruction pointer
 * is the stub's and TRACEs the recorded ones made from anywhere else.  The
 * wrappers (wrap.c, dir.c) call fp_call(), which reserves a record, runs
 * the syscall through the stub, and commits the record with its times.
 * Whatever the wrappers miss (libc-internal calls, static binaries,
 * inline syscall instructions) still stops in the tracer: the fast path
 * can lose speed, never events.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fp.h"
#include "preload.h"

/*
 * The stub takes (nr, a0..a5) in the C calling convention and moves them to
 * the kernel's registers.  It is copied to FP_STUB_ADDR; the address the
 * filter compares is the one after `syscall`, which is what the kernel
 * reports as seccomp_data.instruction_pointer.
 */
__asm__(".text\n"
	".globl fp_stub_start\n.hidden fp_stub_start\n"
	".globl fp_stub_ret\n.hidden fp_stub_ret\n"
	".globl fp_stub_end\n.hidden fp_stub_end\n"
	"fp_stub_start:\n"
	"	mov %rdi, %rax\n"
	"	mov %rsi, %rdi\n"
	"	mov %rdx, %rsi\n"
	"	mov %rcx, %rdx\n"
	"	mov %r8, %r10\n"
	"	mov %r9, %r8\n"
	"	mov 8(%rsp), %r9\n"
	"	syscall\n"
	"fp_stub_ret:\n"
	"	ret\n"
	"fp_stub_end:\n");

extern const char fp_stub_start[], fp_stub_ret[], fp_stub_end[];

typedef long (*fp_stub_fn)(long nr, long a0, long a1, long a2, long a3,
			   long a4, long a5);

static int fp_state;		/* 0 not yet, 1 on, -1 off */
static void *fp_base;
static fp_stub_fn fp_stub;
static __thread struct fp_slot *fp_tls;

static void fp_atfork_child(void)
{
	/* the child has its own tid: it must not write into the parent's ring */
	fp_tls = NULL;
}

static int fp_init(void)
{
	const char *path = getenv(FP_ENV);
	struct fp_shm *h;
	void *base, *page;
	long fd;

	fp_state = -1;
	if (!path)
		return -1;
	/*
	 * The tracer's memfd is opened through /proc/TRACER/fd/N rather than
	 * inherited, so a program that closes every descriptor, or a child
	 * exec'd after such a close, still finds it.
	 */
	fd = syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	base = mmap(NULL, FP_SHM_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
		    (int)fd, 0);
	syscall(SYS_close, fd);
	if (base == MAP_FAILED)
		return -1;
	h = base;
	page = mmap((void *)FP_STUB_ADDR, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (h->magic != FP_MAGIC || h->version != FP_VERSION ||
	    page != (void *)FP_STUB_ADDR ||
	    h->stub_ret_ip != FP_STUB_ADDR + (uint64_t)(fp_stub_ret - fp_stub_start)) {
		if (page != MAP_FAILED)
			munmap(page, 4096);
		munmap(base, FP_SHM_BYTES);
		return -1;
	}
	memcpy(page, fp_stub_start, (size_t)(fp_stub_end - fp_stub_start));
	if (mprotect(page, 4096, PROT_READ | PROT_EXEC) < 0) {
		munmap(page, 4096);
		munmap(base, FP_SHM_BYTES);
		return -1;
	}
	fp_base = base;
	fp_stub = (fp_stub_fn)page;
	pthread_atfork(NULL, NULL, fp_atfork_child);
	fp_state = 1;
	return 0;
}

__attribute__((constructor)) static void fp_ctor(void)
{
	if (fp_state == 0)
		fp_init();
}

static struct fp_slot *fp_claim(void)
{
	unsigned i;

	for (i = 0; i < FP_NSLOTS; i++) {
		struct fp_slot *s = fp_slot_at(fp_base, i);
		uint32_t want = FP_SLOT_FREE;

		if (__atomic_load_n(&s->state, __ATOMIC_RELAXED) != FP_SLOT_FREE)
			continue;
		if (__atomic_compare_exchange_n(&s->state, &want, FP_SLOT_OWNED, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			s->tid = (int32_t)syscall(SYS_gettid);
			return s;
		}
	}
	return NULL;
}

/* reserve @len bytes in @s, padding to the ring's end when it would wrap */
static struct fp_rec *fp_reserve(struct fp_slot *s, uint32_t len)
{
	char *ring = fp_ring_of(s);
	uint64_t h, t, pos, need;

	for (;;) {
		h = __atomic_load_n(&s->head, __ATOMIC_RELAXED);
		t = __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE);
		pos = h % FP_RING_BYTES;
		need = len;
		if (pos + len > FP_RING_BYTES)
			need += FP_RING_BYTES - pos;
		if (h + need - t > FP_RING_BYTES)
			return NULL;
		if (__atomic_compare_exchange_n(&s->head, &h, h + need, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			break;
	}
	if (need != len) {
		struct fp_rec *pad = (struct fp_rec *)(ring + pos);

		pad->len = (uint32_t)(FP_RING_BYTES - pos);
		__atomic_store_n(&pad->state, FP_REC_PAD, __ATOMIC_RELEASE);
		pos = 0;
	}
	return (struct fp_rec *)(ring + pos);
}

static uint64_t fp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static long fp_slow(int nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
	long r = syscall(nr, a0, a1, a2, a3, a4, a5);

	return r < 0 ? -errno : r;
}

long fp_ret(long r)
{
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

long fp_call(int nr, const char *p0, const char *p1, long a0, long a1,
	     long a2, long a3, long a4, long a5)
{
	struct fp_slot *s;
	struct fp_rec *rec;
	size_t l0 = 0, l1 = 0;
	uint32_t len;
	int saved = errno;

	if (fp_state == 0)
		fp_init();
	if (fp_state < 0)
		return fp_slow(nr, a0, a1, a2, a3, a4, a5);
	s = fp_tls;
	if (!s) {
		s = fp_claim();
		if (!s)
			return fp_slow(nr, a0, a1, a2, a3, a4, a5);
		fp_tls = s;
	}
	/* a vfork child shares our memory and TLS: the tracer pauses the ring */
	if (__atomic_load_n(&s->paused, __ATOMIC_ACQUIRE))
		return fp_slow(nr, a0, a1, a2, a3, a4, a5);
	if (p0)
		l0 = strnlen(p0, 4095) + 1;
	if (p1)
		l1 = strnlen(p1, 4095) + 1;
	len = (uint32_t)((sizeof(*rec) + l0 + l1 + 7) & ~(size_t)7);
	rec = fp_reserve(s, len);
	if (!rec) {
		__atomic_add_fetch(&s->full, 1, __ATOMIC_RELAXED);
		syscall(SYS_close, FP_FLUSH_FD);
		rec = fp_reserve(s, len);
		errno = saved;
		if (!rec)
			return fp_slow(nr, a0, a1, a2, a3, a4, a5);
	}
	rec->len = len;
	rec->nr = nr;
	rec->tid = s->tid;
	rec->args[0] = (uint64_t)a0;
	rec->args[1] = (uint64_t)a1;
	rec->args[2] = (uint64_t)a2;
	rec->args[3] = (uint64_t)a3;
	rec->args[4] = (uint64_t)a4;
	rec->args[5] = (uint64_t)a5;
	rec->dlen = (uint32_t)(l0 + l1);
	if (l0) {
		memcpy(rec->data, p0, l0 - 1);
		rec->data[l0 - 1] = 0;
	}
	if (l1) {
		memcpy(rec->data + l0, p1, l1 - 1);
		rec->data[l0 + l1 - 1] = 0;
	}
	rec->t_enter = fp_now();
	rec->ret = fp_stub(nr, a0, a1, a2, a3, a4, a5);
	rec->t_exit = fp_now();
	__atomic_store_n(&rec->state, FP_REC_DONE, __ATOMIC_RELEASE);
	return rec->ret;
}
