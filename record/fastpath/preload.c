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
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fp.h"
#include "iotape.h"
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
static struct fp_shm *fp_hdr;
static fp_stub_fn fp_stub;
static __thread struct fp_slot *fp_tls;
static __thread uint64_t fp_carry;	/* see fp_call() */

/*
 * 1 while this process's state above is its own: a word in a page the
 * kernel zeroes in a child made without CLONE_VM (MADV_WIPEONFORK).  A
 * child of the raw clone syscall (bubblewrap's raw_clone(), a program's
 * own syscall(SYS_clone, SIGCHLD, ...)) runs no atfork handler: it kept
 * its parent's ring slot, and its in-process calls were logged as its
 * parent's, its parent's tid on each (a read of an eventfd its parent
 * writes then waited in the replay for a write after it in its own
 * thread: 2 s, EAGAIN).  fp_call() finds the word 0 and does what the
 * handler does.  NULL where the page could not be made.
 */
static volatile int *fp_own;

static int fp_register(struct fp_shm *h);

static void fp_atfork_child(void)
{
	/* the child has its own tid: it must not write into the parent's ring */
	fp_tls = NULL;
	/* and its own pid: the recorder must know where it maps the rings,
	 * or an munmap of them would not switch it off first */
	if (fp_state > 0 && fp_register(fp_hdr) < 0)
		fp_state = -1;
	if (fp_own)
		*fp_own = 1;
}

/* the page of fp_own, through the stub (the library's own calls) */
static void fp_own_page(void)
{
	long p = fp_stub(SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p < 0 && p > -4096)
		return;
	if (fp_stub(SYS_madvise, p, 4096, MADV_WIPEONFORK, 0, 0, 0) != 0) {
		fp_stub(SYS_munmap, p, 4096, 0, 0, 0, 0);
		return;
	}
	fp_own = (volatile int *)p;
	*fp_own = 1;
}

/* tell the recorder where this process mapped the rings and where its
 * on/off word is (see struct fp_proc) */
static int fp_register(struct fp_shm *h)
{
	int32_t pid = (int32_t)fp_stub(SYS_getpid, 0, 0, 0, 0, 0, 0);
	unsigned i;

	/* An entry under this pid is an earlier image's (exec keeps the
	 * pid): its addresses are not this image's.  The ptrace backend
	 * frees it at the exec's stop, but the bpf backend learns of the exec
	 * after this image runs. */
	for (i = 0; i < FP_NPROCS; i++)
		if (__atomic_load_n(&h->procs[i].pid, __ATOMIC_ACQUIRE) == pid) {
			h->procs[i].map = h->procs[i].state = 0;
			__atomic_store_n(&h->procs[i].pid, 0, __ATOMIC_RELEASE);
		}
	for (i = 0; i < FP_NPROCS; i++) {
		struct fp_proc *p = &h->procs[i];
		int32_t want = 0;

		if (__atomic_load_n(&p->pid, __ATOMIC_RELAXED) != 0)
			continue;
		/* the recorder reads the entry only at this process's own
		 * later stops, when both words are written */
		if (__atomic_compare_exchange_n(&p->pid, &want, pid, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			p->map = (uint64_t)h;
			p->state = (uint64_t)&fp_state;
			return 0;
		}
	}
	return -1;
}

static uint64_t fp_now(void);

static int fp_init(void)
{
	uint64_t t0 = fp_now();
	const char *path;
	struct fp_shm *h;
	void *page;
	long fd, base;

	/* A call made before libc's own start (from a program's
	 * .preinit_array: a sanitizer's runtime, a malloc of its own) finds
	 * no environment yet.  Not off for good: that call is traced, and
	 * the library starts at a later one or at its constructor. */
	if (!environ)
		return -1;
	path = getenv(FP_ENV);
	fp_state = -1;
	if (!path)
		return -1;
	/*
	 * The stub first: the library's own calls go through it, so the
	 * recorder never sees them (an anonymous mmap and mprotect are not
	 * recorded calls either).
	 */
	page = mmap((void *)FP_STUB_ADDR, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (page != (void *)FP_STUB_ADDR) {
		if (page != MAP_FAILED)
			munmap(page, 4096);
		return -1;
	}
	memcpy(page, fp_stub_start, (size_t)(fp_stub_end - fp_stub_start));
	if (mprotect(page, 4096, PROT_READ | PROT_EXEC) < 0) {
		munmap(page, 4096);
		return -1;
	}
	fp_stub = (fp_stub_fn)page;
	/*
	 * The recorder's memfd is opened through /proc/RECORDER/fd/N rather
	 * than inherited, so a program that closes every descriptor, or a
	 * child exec'd after such a close, still finds it.
	 */
	fd = fp_stub(SYS_openat, AT_FDCWD, (long)path, O_RDWR | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		goto off;
	base = fp_stub(SYS_mmap, (long)FP_SHM_ADDR, (long)FP_SHM_BYTES, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
	if (base < 0 && base > -4096)
		base = fp_stub(SYS_mmap, 0, (long)FP_SHM_BYTES, PROT_READ | PROT_WRITE,
			       MAP_SHARED, fd, 0);
	fp_stub(SYS_close, fd, 0, 0, 0, 0, 0);
	if (base < 0 && base > -4096)
		goto off;
	h = (struct fp_shm *)base;
	if (h->magic != FP_MAGIC || h->version != FP_VERSION ||
	    h->stub_ret_ip != FP_STUB_ADDR + (uint64_t)(fp_stub_ret - fp_stub_start)) {
		fp_stub(SYS_munmap, base, (long)FP_SHM_BYTES, 0, 0, 0, 0);
		goto off;
	}
	if (fp_register(h) < 0) {
		fp_stub(SYS_munmap, base, (long)FP_SHM_BYTES, 0, 0, 0, 0);
		goto off;
	}
	fp_base = h;
	fp_hdr = h;
	iot_syscall_by_nr(0);	/* build the table now, not inside a call */
	pthread_atfork(NULL, NULL, fp_atfork_child);
	fp_own_page();
	fp_state = 1;
	fp_patch_libc(h);
	/* Its own start (the stub, the rings, patching libc) is the
	 * library's work, not the program's: it counts as before the first
	 * call (pre_ns), which the replay takes out of the think time. */
	fp_carry += fp_now() - t0;
	return 0;
off:
	munmap(page, 4096);
	fp_stub = NULL;
	return -1;
}

long fp_raw(long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
	return fp_stub ? fp_stub(nr, a0, a1, a2, a3, a4, a5) : -ENOSYS;
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
			/* the claim's time before the tid that makes it ours
			 * to the recorder */
			s->t_claim = fp_now();
			__atomic_store_n(&s->tid, (int32_t)fp_stub(SYS_gettid, 0, 0, 0, 0, 0, 0),
					 __ATOMIC_RELEASE);
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

/* What one call logs besides its arguments, gathered before the ring
 * space is reserved (the record's size depends on it). */
struct fp_pre {
	const char *str[6];
	uint32_t slen[6];
	int nstr, npst;
	struct fp_pst pst[2];
	struct fp_pst tpst[2];	/* through the symlink, when pst is one */
	long pdirfd[2];		/* where each lstat'ed path is, for readlinkat */
	const char *ppath[2];
	/* the state is taken after the call (fp_poststat): FP_DEFER_* */
	int defer[2], ndefer;
	const struct stat *sbuf[2];
	struct fp_pst *slot[2];	/* its fp_pst in the record */
	int flush;		/* a state left to the recorder: drain now */
};

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

/*
 * @p did not exist: how many of its trailing components were missing.
 * lstat each parent (the string cut at a '/') until one exists.  Paths
 * with "." or ".." components are left unknown (0): the recorder resolves
 * those lexically and the counts would not line up.
 */
static uint32_t fp_missing(long dirfd, const char *p)
{
	char buf[4096];
	size_t n = strnlen(p, sizeof(buf) - 1);
	uint32_t missing = 1;
	struct stat sb;

	memcpy(buf, p, n);
	buf[n] = 0;
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = 0;
	for (;;) {
		char *slash = strrchr(buf, '/');

		if (!slash || slash == buf)
			return missing;	/* the dirfd, the cwd or "/" exists */
		*slash = 0;
		if (fp_stub(SYS_newfstatat, dirfd, (long)buf, (long)&sb, AT_SYMLINK_NOFOLLOW,
			    0, 0) == 0)
			return missing;
		missing++;
	}
}

static void fp_pst_fill(struct fp_pst *ps, const struct stat *sbp);

/*
 * Does @p have a ".." component, or end in "."?  The recorder drops "."
 * and keeps "..", lexically; the kernel follows a symlink before "..",
 * and "a/." is what a symlink a points to, where "a" is the link.  A "."
 * before another component is the same directory either way: "./x" (sort
 * -T ., configure's ./conftest) and "a/./b" name what the recorder's
 * path names.  (Those were left to the recorder too, which took their
 * state only when it drained the record, after the call: the temporary
 * files sort created with O_EXCL were recorded as there at the start,
 * and their replayed creates failed with EEXIST.)
 */
static int fp_has_dots(const char *p)
{
	const char *c = p;

	while (*c) {
		if (c[0] == '.' && (!c[1] || (c[1] == '.' && (c[2] == '/' || !c[2]))))
			return 1;
		c = strchr(c, '/');
		if (!c)
			break;
		while (*c == '/')
			c++;
	}
	return 0;
}

/*
 * Does @p's last name read "."?  The recorder's path drops it: "a/." is
 * "a", whose state is the link where a is one, and the kernel's lstat
 * of "a/." is the directory the link points to.  A ".." is kept in the
 * recorder's path, which its lstat at the entry stop resolves as the
 * kernel does here (through a symlink before it, to that directory's
 * parent).  (".." was left to the recorder too, which took the state
 * after the call: `mkdir ../x` was recorded as x there at the start, and
 * its replay failed with EEXIST.)
 */
static int fp_dot_last(const char *p)
{
	size_t n = strlen(p);

	while (n > 1 && p[n - 1] == '/')
		n--;
	return n && p[n - 1] == '.' && (n == 1 || p[n - 2] == '/');
}

/* the lstat a recorder takes at the entry stop, for a PATH argument */
static void fp_prestat(struct fp_pre *pre, int k, long dirfd, const char *p)
{
	struct fp_pst *ps = &pre->pst[k];
	struct stat sb;
	int32_t pid;
	long r;

	memset(ps, 0, sizeof(*ps));
	if (fp_dot_last(p)) {
		ps->err = FP_PST_UNKNOWN;
		return;
	}
	/* /proc/self/fd/N, /dev/stdout...: the recorder names the call by
	 * the descriptor's file (rec_path_magic()), whose state is the
	 * link followed, not the link (a symlink to itself, before) */
	r = fp_stub(SYS_newfstatat, dirfd, (long)p, (long)&sb,
		    iot_path_fd(p, INT32_MAX, &pid) >= 0 ? 0 : AT_SYMLINK_NOFOLLOW, 0, 0);
	if (r < 0) {
		ps->err = (int32_t)-r;
		if (r == -ENOENT)
			ps->missing = fp_missing(dirfd, p);
		return;
	}
	fp_pst_fill(ps, &sb);
	/* a symlink's size is its target's length: read into the record */
	if (S_ISLNK(sb.st_mode)) {
		ps->tlen = sb.st_size > 4095 ? 4095 : (uint32_t)sb.st_size;
		memset(&pre->tpst[k], 0, sizeof(pre->tpst[k]));
		r = fp_stub(SYS_newfstatat, dirfd, (long)p, (long)&sb, 0, 0, 0);
		if (r < 0)
			pre->tpst[k].err = (int32_t)-r;
		else
			fp_pst_fill(&pre->tpst[k], &sb);
	}
	pre->pdirfd[k] = dirfd;
	pre->ppath[k] = p;
}

static void fp_pst_fill(struct fp_pst *ps, const struct stat *sbp)
{
	const struct stat sb = *sbp;

	ps->mode = sb.st_mode;
	ps->uid = sb.st_uid;
	ps->gid = sb.st_gid;
	ps->nlink = (uint32_t)sb.st_nlink;
	ps->size = (uint64_t)sb.st_size;
	ps->blocks = (uint64_t)sb.st_blocks;
	ps->ino = sb.st_ino;
	ps->dev = sb.st_dev;
	ps->rdev = sb.st_rdev;
	ps->atime_ns = ts_ns(&sb.st_atim);
	ps->mtime_ns = ts_ns(&sb.st_mtim);
	ps->ctime_ns = ts_ns(&sb.st_ctim);
}

/*
 * An lstat (lstat, or fstatat with AT_SYMLINK_NOFOLLOW) changes nothing:
 * its own result is the state the library would take before it.  Taking
 * it again doubled the kernel's work for du, find and tar, most of whose
 * calls are such, and the program's next steps ran slower for the caches
 * it left (du's recorded think time was twice its own).  So the state is
 * filled in after the call from the program's buffer; a failure other
 * than ENOENT is the state too, a symlink (its target is not in the
 * buffer) and EFAULT are left to the recorder (FP_PST_UNKNOWN, also the
 * state of a call that never returns).
 * @return : the program's buffer, or NULL if @nr with @a is no such call.
 */
static const struct stat *fp_stat_nofollow(int nr, const uint64_t *a)
{
	if (nr == SYS_lstat)
		return (const struct stat *)a[1];
	if (nr == SYS_newfstatat && (a[3] & AT_SYMLINK_NOFOLLOW) && !(a[3] & AT_EMPTY_PATH))
		return (const struct stat *)a[2];
	return NULL;
}

/*
 * More calls whose state can be known after them, without the lstat
 * before (a second walk of the whole path: recording cp -a of a tree 30
 * directories deep cost 1.6 times what it did 3 deep):
 * - an open with O_NOFOLLOW and neither O_CREAT nor O_TRUNC changes no
 *   metadata, and what it opened is not a symlink: fstat of the new
 *   descriptor is the state;
 * - an exclusive create (open with O_CREAT|O_EXCL, mkdir) that worked
 *   found no name there, and its parent (missing = 1);
 * - either one that failed changed nothing: an lstat after it is the
 *   lstat before it (fp_poststat_lstat).
 * Paths with "." or ".." are left to the lstat before, as for lstat.
 */
enum { FP_DEFER_NONE, FP_DEFER_LSTAT, FP_DEFER_OPENED, FP_DEFER_MADE };

static int fp_defer_kind(const struct iot_syscall *sc, const uint64_t *a, int k)
{
	int i = iot_syscall_arg(sc, IOT_ARG_OPEN_FLAGS);
	uint64_t fl;

	if (k != 0)
		return FP_DEFER_NONE;
	if (fp_stat_nofollow(sc->nr, a))
		return FP_DEFER_LSTAT;
	if (sc->nr == SYS_mkdir || sc->nr == SYS_mkdirat)
		return FP_DEFER_MADE;
	if (i < 0 || !(sc->flags & IOT_SCF_RETFD))	/* not an open */
		return FP_DEFER_NONE;
	fl = a[i];
	if ((fl & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
		return FP_DEFER_MADE;
	if ((fl & O_NOFOLLOW) && !(fl & (O_CREAT | O_TRUNC | O_PATH | __O_TMPFILE)))
		return FP_DEFER_OPENED;
	return FP_DEFER_NONE;
}

static void fp_defer(struct fp_pre *pre, int k, long dirfd, const char *p,
		     const struct stat *sb, int kind)
{
	memset(&pre->pst[k], 0, sizeof(pre->pst[k]));
	pre->pst[k].err = FP_PST_UNKNOWN;
	pre->defer[k] = kind;
	pre->ndefer++;
	pre->sbuf[k] = sb;
	pre->pdirfd[k] = dirfd;
	pre->ppath[k] = p;
}

/* The state of path @k after a call that failed and so changed nothing;
 * a symlink's target has no room in the record: the recorder's. */
static void fp_poststat_lstat(struct fp_pre *pre, int k, struct fp_pst *ps)
{
	struct stat sb;
	long r = fp_stub(SYS_newfstatat, pre->pdirfd[k], (long)pre->ppath[k], (long)&sb,
			 AT_SYMLINK_NOFOLLOW, 0, 0);

	if (r == 0 && !S_ISLNK(sb.st_mode)) {
		fp_pst_fill(ps, &sb);
	} else if (r == 0 || r == -EFAULT) {
		ps->err = FP_PST_UNKNOWN;
	} else {
		ps->err = (int32_t)-r;
		if (r == -ENOENT)
			ps->missing = fp_missing(pre->pdirfd[k], pre->ppath[k]);
	}
}

/* After the call: the deferred states from its result @ret.  The record
 * is not published yet. */
static void fp_poststat(struct fp_pre *pre, long ret)
{
	int k;

	for (k = 0; k < pre->npst; k++) {
		struct fp_pst ps;
		struct stat sb;

		if (!pre->defer[k])
			continue;
		memset(&ps, 0, sizeof(ps));
		if (pre->defer[k] == FP_DEFER_OPENED && ret >= 0 &&
		    fp_stub(SYS_newfstatat, ret, (long)"", (long)&sb, AT_EMPTY_PATH, 0, 0) == 0) {
			fp_pst_fill(&ps, &sb);
		} else if (pre->defer[k] == FP_DEFER_MADE && ret >= 0) {
			ps.err = ENOENT;
			ps.missing = 1;
		} else if (pre->defer[k] != FP_DEFER_LSTAT) {
			fp_poststat_lstat(pre, k, &ps);
		} else if (ret == 0 && !S_ISLNK(pre->sbuf[k]->st_mode)) {
			fp_pst_fill(&ps, pre->sbuf[k]);
		} else if (ret == 0 || ret == -EFAULT) {
			/* a symlink: its state is the recorder's, taken when it
			 * reads the record; it reads it at once, while the link
			 * is there (`rm LINK` lstats it first: its state was
			 * taken after the unlink, absent, and the replay's tree
			 * lacked it) */
			ps.err = FP_PST_UNKNOWN;
			pre->flush = ret == 0;
		} else {
			ps.err = (int32_t)-ret;
			if (ret == -ENOENT)
				ps.missing = fp_missing(pre->pdirfd[k], pre->ppath[k]);
		}
		memcpy(pre->slot[k], &ps, sizeof(ps));
	}
}

/*
 * Read what the recorder would read at the entry stop: strings, the
 * values behind offset pointers, iovec sizes, open_how; lstat each path.
 * @return : the record's size
 */
static uint32_t fp_gather(const struct iot_syscall *sc, uint64_t *a, struct fp_pre *pre)
{
	uint32_t len = 0, i;

	pre->nstr = pre->npst = pre->ndefer = 0;
	for (i = 0; i < (uint32_t)sc->nargs; i++) {
		int kind = sc->arg[i];
		const char *p = (const char *)a[i];

		switch (kind) {
		case IOT_ARG_PATH:
		case IOT_ARG_PATH2:
		case IOT_ARG_STR2:
			pre->str[pre->nstr] = p;
			pre->slen[pre->nstr] = p ? (uint32_t)strnlen(p, 4095) : FP_NOSTR;
			len += 4 + (p ? (pre->slen[pre->nstr] + 1 + 3) & ~3u : 0);
			pre->nstr++;
			if (kind != IOT_ARG_STR2 && p && *p && pre->npst < 2) {
				long dirfd = i > 0 && sc->arg[i - 1] == IOT_ARG_DIRFD ?
					(long)(int32_t)a[i - 1] : AT_FDCWD;
				int dk = fp_defer_kind(sc, a, pre->npst);

				if (dk && kind == IOT_ARG_PATH && !fp_has_dots(p))
					fp_defer(pre, pre->npst++, dirfd, p, fp_stat_nofollow(sc->nr, a), dk);
				else
					fp_prestat(pre, pre->npst++, dirfd, p);
			}
			break;
		case IOT_ARG_OFFPTR:
			a[i] = a[i] ? *(const uint64_t *)a[i] : (uint64_t)-1;
			break;
		case IOT_ARG_TIMESPEC:
		case IOT_ARG_TIMEVAL:
			a[i] = (uint64_t)iot_timeout_ns((const void *)a[i], kind == IOT_ARG_TIMEVAL);
			break;
		case IOT_ARG_IOVLEN: {
			const struct iovec *iov = (const struct iovec *)a[i];
			uint64_t n = i + 1 < 6 ? a[i + 1] : 0, sum = 0, j;

			for (j = 0; iov && j < n && j < 1024; j++)
				sum += iov[j].iov_len;
			a[i] = sum;
			break;
		}
		case IOT_ARG_OPENHOW: {
			const uint64_t *how = (const uint64_t *)a[i];

			a[i] = how ? how[0] : 0;
			if (i + 2 < 6)		/* open_how.resolve (decode.c) */
				a[i + 2] = how ? how[2] : 0;
			if (i + 1 < 6) {
				a[i + 1] = how ? how[1] : 0;
				i++;
			}
			break;
		}
		}
	}
	/* a lock's struct flock, in the arguments after fcntl's three
	 * (record/decode.c takes them from there) */
	if (sc->nr == SYS_fcntl && iot_fcntl_lock((int64_t)a[1])) {
		int64_t fl[3];

		iot_flock_pack((const void *)a[2], fl);
		a[3] = (uint64_t)fl[0];
		a[4] = (uint64_t)fl[1];
		a[5] = (uint64_t)fl[2];
	}
	/* a write hint's uint64_t, in the argument after fcntl's three */
	if (sc->nr == SYS_fcntl && iot_fcntl_hint((int64_t)a[1]))
		a[3] = a[2] ? *(const uint64_t *)a[2] : (uint64_t)-1;
	/* FS_IOC_SETFLAGS's int, FS_IOC_FSSETXATTR's fsx_xflags, in the
	 * argument after ioctl's three */
	if (sc->nr == SYS_ioctl && iot_ioctl_flags((uint32_t)a[1]))
		a[3] = a[2] ? (uint64_t)*(const uint32_t *)a[2] : (uint64_t)-1;
	/* FICLONERANGE's struct file_clone_range: dest_offset in place of
	 * the pointer, then src_fd, src_offset, src_length (iotape.h) */
	if (sc->nr == SYS_ioctl && (uint32_t)a[1] == IOT_FICLONERANGE) {
		const uint64_t *r = (const uint64_t *)a[2];	/* struct file_clone_range */

		a[IOT_CLONE_SRC_FD] = r ? r[0] : (uint64_t)-1;
		a[IOT_CLONE_SRC_OFF] = r ? r[1] : 0;
		a[IOT_CLONE_LEN] = r ? r[2] : 0;
		a[IOT_CLONE_DEST] = r ? r[3] : 0;
	}
	len = FP_ALIGN8(len);
	for (i = 0; i < (uint32_t)pre->npst; i++)
		len += (uint32_t)sizeof(struct fp_pst) + (pre->pst[i].tlen ?
			FP_ALIGN8(pre->pst[i].tlen + 1) + (uint32_t)sizeof(struct fp_pst) : 0);
	return (uint32_t)sizeof(struct fp_rec) + len;
}

/* @n bytes at @p are all zeros.  The scan stops at the first byte that
 * is not, which for most data is the first. */
static int fp_zero_run(const char *p, uint64_t n)
{
	return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

/*
 * The bytes a write-family call is asked to write are all zeros (the
 * recorder's stop does the same test on a copy: record/tracee_mem.c).
 * Read in-process before the call, as fp_gather() reads iovec arrays: a
 * buffer whose zeros run into unmapped memory would fault here instead
 * of failing with EFAULT, a risk taken only by a buggy program.
 */
static int fp_zeros(const struct iot_syscall *sc, const uint64_t *a)
{
	int i = iot_syscall_wbuf(sc);
	const struct iovec *iov;
	uint64_t j;

	if (i < 0 || !a[i])
		return 0;
	if (sc->arg[i] == IOT_ARG_PTR)
		return a[i + 1] > 0 && a[i + 1] <= FP_ZERO_MAX &&
		       fp_zero_run((const char *)a[i], a[i + 1]);
	iov = (const struct iovec *)a[i];
	if (a[i + 1] > FP_ZERO_IOVS || !fp_zero_iovs_fit(iov, a[i + 1]))
		return 0;
	for (j = 0; j < a[i + 1]; j++)
		if (!fp_zero_run(iov[j].iov_base, iov[j].iov_len))
			return 0;
	return 1;
}

/*
 * `record --data`: how many bytes of the write-family call of @sc to copy
 * into its record, read from the original arguments @a before the call:
 * all it asks to write when that is at most the recorder's data_max (the
 * recorder keeps the first ret of them: record/data.c makes the same test
 * at a stop), else 0.  A NULL buffer with a length is not copied (the call
 * fails with EFAULT); another bad pointer faults here, as in fp_zeros().
 */
static uint64_t fp_data_asked(const struct iot_syscall *sc, const uint64_t *a)
{
	int i = iot_syscall_wbuf(sc);
	const struct iovec *iov;
	uint64_t j, sum = 0, max = fp_hdr->data_max;

	if (!max || i < 0 || !a[i])
		return 0;
	if (sc->arg[i] == IOT_ARG_PTR)
		return a[i + 1] <= max ? a[i + 1] : 0;
	iov = (const struct iovec *)a[i];
	if (a[i + 1] > FP_ZERO_IOVS)
		return 0;
	for (j = 0; j < a[i + 1]; j++) {
		sum += iov[j].iov_len;
		if (sum > max || (iov[j].iov_len && !iov[j].iov_base))
			return 0;
	}
	return sum;
}

/* Copy the @n bytes the call asks to write (fp_data_asked()) to @d. */
static void fp_data_copy(const struct iot_syscall *sc, const uint64_t *a, char *d, uint64_t n)
{
	int i = iot_syscall_wbuf(sc);
	const struct iovec *iov = (const struct iovec *)a[i];
	uint64_t j, off = 0;

	if (sc->arg[i] == IOT_ARG_PTR) {
		memcpy(d, (const void *)a[i], n);
		return;
	}
	for (j = 0; j < a[i + 1] && off < n; j++) {
		if (iov[j].iov_len)
			memcpy(d + off, iov[j].iov_base, iov[j].iov_len);
		off += iov[j].iov_len;
	}
}

static void fp_fill(struct fp_rec *rec, struct fp_pre *pre)
{
	char *d = rec->data;
	uint32_t off = 0;
	int i;

	rec->nstr = (uint16_t)pre->nstr;
	rec->npst = (uint16_t)pre->npst;
	for (i = 0; i < pre->nstr; i++) {
		memcpy(d + off, &pre->slen[i], 4);
		off += 4;
		if (pre->slen[i] != FP_NOSTR) {
			memcpy(d + off, pre->str[i], pre->slen[i]);
			d[off + pre->slen[i]] = 0;
			off += (pre->slen[i] + 1 + 3) & ~3u;
		}
	}
	off = FP_ALIGN8(off);
	rec->pst_off = off;
	for (i = 0; i < pre->npst; i++) {
		memcpy(d + off, &pre->pst[i], sizeof(pre->pst[i]));
		pre->slot[i] = (struct fp_pst *)(void *)(d + off);
		off += (uint32_t)sizeof(pre->pst[i]);
		if (pre->pst[i].tlen) {
			struct fp_pst *ps = (struct fp_pst *)(d + off) - 1;
			uint32_t cap = pre->pst[i].tlen;
			long r = fp_stub(SYS_readlinkat, pre->pdirfd[i], (long)pre->ppath[i],
					 (long)(d + off), cap, 0, 0);

			/* changed since the lstat: keep what fits */
			ps->tlen = r < 0 ? 0 : (uint32_t)r;
			ps->tspace = FP_ALIGN8(cap + 1);
			d[off + ps->tlen] = 0;
			off += ps->tspace;
			memcpy(d + off, &pre->tpst[i], sizeof(pre->tpst[i]));
			off += (uint32_t)sizeof(pre->tpst[i]);
		}
	}
}

/* iot_msg_fds_read()'s peek: @n bytes at @addr of this process (@ctx:
 * its pid), where a plain read could fault (a program's bad pointer) */
static int fp_peek(void *ctx, uint64_t addr, void *buf, size_t n)
{
	struct iovec l = { buf, n }, r = { (void *)(uintptr_t)addr, n };

	return fp_raw(SYS_process_vm_readv, *(long *)ctx, (long)&l, 1, (long)&r, 1, 0) ==
	       (long)n ? 0 : -1;
}

/* A sendmsg's or recvmsg's record after its call: in place of the
 * msghdr pointer, the descriptors its SCM_RIGHTS messages carried, as
 * the recorder reads them at a stop (rec_read_msg_fds(),
 * iot_msg_fds_set()): a received message's only when it was received,
 * a sent one's as it was given. */
static void fp_msg_fds(struct fp_rec *rec)
{
	struct iot_event e = { .nr = rec->nr, .nargs = 3 };
	int32_t fds[IOT_MSG_FDS_MAX];
	long pid = fp_raw(SYS_getpid, 0, 0, 0, 0, 0, 0);
	int n = 0, k;

	if ((rec->nr == SYS_sendmsg || rec->ret >= 0) && pid > 0)
		n = iot_msg_fds_read(fp_peek, &pid, rec->args[1], fds, IOT_MSG_FDS_MAX);
	iot_msg_fds_set(&e, fds, n);
	rec->args[1] = (uint64_t)e.args[1];
	for (k = 3; k < 6; k++)
		rec->args[k] = k < (int)e.nargs ? (uint64_t)e.args[k] : 0;
}

/*
 * Is a path of the call given with a trailing slash ("f/")?  Its state is
 * the entry's, which an lstat of the name as given does not say (a file's
 * "f/" is ENOTDIR, a symlink's "l/" its directory): such a call stops in
 * the recorder, which takes it at the entry stop (dpkg-source -b opens
 * each entry of its tree so: its files were recorded absent, 339
 * mismatches a replay).
 */
static int fp_slashed(const struct iot_syscall *sc, const uint64_t *a)
{
	int i;

	for (i = 0; i < sc->nargs && i < 6; i++) {
		const char *p = (const char *)a[i];
		size_t n;

		if ((sc->arg[i] != IOT_ARG_PATH && sc->arg[i] != IOT_ARG_PATH2) || !p)
			continue;
		n = strnlen(p, 4096);
		if (n > 1 && p[n - 1] == '/')
			return 1;
	}
	return 0;
}

/*
 * Is @nr one of glibc's cancellation points (pthreads(7)) that can wait:
 * glibc makes the call with the thread switched to asynchronous
 * cancellation, so that pthread_cancel() (which signals a thread only in
 * that mode, glibc 2.36) ends a thread blocked in it.  Through the stub
 * a thread cancelled in a read of an idle pipe, or in a wait, stayed
 * there and its joiner waited for ever; the stub's call is made in that
 * mode too (fp_call()).  Cancelled there, the thread unwinds from the
 * stub page, which has no unwind tables: to its start, its cleanup
 * handlers run (glibc's unwind_stop()), as it does from a syscall of
 * glibc's own; its record stays entered, and is written unfinished.
 */
static int fp_cancel_point(int nr)
{
	switch (nr) {
	case SYS_read: case SYS_readv: case SYS_pread64: case SYS_preadv: case SYS_preadv2:
	case SYS_write: case SYS_writev: case SYS_pwrite64: case SYS_pwritev: case SYS_pwritev2:
	case SYS_open: case SYS_openat: case SYS_creat: case SYS_fsync: case SYS_fdatasync:
	case SYS_msync: case SYS_accept: case SYS_accept4: case SYS_connect:
	case SYS_recvfrom: case SYS_recvmsg: case SYS_recvmmsg: case SYS_sendto:
	case SYS_sendmsg: case SYS_sendmmsg: case SYS_wait4: case SYS_waitid: case SYS_fcntl:
	case SYS_poll: case SYS_ppoll: case SYS_epoll_wait: case SYS_epoll_pwait:
	case SYS_clock_nanosleep: case SYS_nanosleep: case SYS_pause:
		return 1;
	}
	return 0;
}

long fp_call(int nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
	const struct iot_syscall *sc;
	struct fp_slot *s;
	struct fp_rec *rec;
	struct fp_pre pre;
	uint64_t a[6];
	uint32_t len, rflags;
	uint64_t dlen = 0;
	int saved = errno;
	uint64_t t_wrap = fp_now();
	/* the library's work after this thread's previous call (the states
	 * it filled in then) is in this gap too: it counts as before this
	 * call (pre_ns) */
	uint64_t carry = fp_carry;

	fp_carry = 0;

	if (fp_state == 0)
		fp_init();
	if (fp_state <= 0)
		return fp_slow(nr, a0, a1, a2, a3, a4, a5);
	sc = iot_syscall_by_nr(nr);
	if (!sc)	/* not a recorded call: the filter lets it through anyway */
		return fp_stub(nr, a0, a1, a2, a3, a4, a5);
	/* a vfork child shares our memory and TLS: no ring while one runs */
	if (__atomic_load_n(&fp_hdr->hold, __ATOMIC_ACQUIRE))
		return fp_slow(nr, a0, a1, a2, a3, a4, a5);
	/* a child of a raw clone: its parent's slot and registration */
	if (fp_own && !*fp_own)
		fp_atfork_child();
	s = fp_tls;
	if (!s) {
		s = fp_claim();
		if (!s)
			return fp_slow(nr, a0, a1, a2, a3, a4, a5);
		fp_tls = s;
	}
	a[0] = (uint64_t)a0;
	a[1] = (uint64_t)a1;
	a[2] = (uint64_t)a2;
	a[3] = (uint64_t)a3;
	a[4] = (uint64_t)a4;
	a[5] = (uint64_t)a5;
	rflags = fp_zeros(sc, a) ? FP_RF_ZERO : 0;
	if (!rflags)
		dlen = fp_data_asked(sc, a);
	/* btrfs's subvolume calls make or remove the name in their struct:
	 * the recorder's entry stop reads it and takes its states there
	 * (record/subvol.c), as it does mkdir's in the library's place */
	if (dlen > FP_DATA_RING_MAX || fp_slashed(sc, a) ||
	    (nr == SYS_ioctl && iot_subvol_call((uint32_t)a[1], NULL, NULL)))
		return fp_slow(nr, a0, a1, a2, a3, a4, a5);
	len = fp_gather(sc, a, &pre);
	if (dlen) {
		rflags |= FP_RF_DATA;
		len += FP_ALIGN8((uint32_t)dlen);
	}
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
	rec->flags = rflags;
	rec->data_off = dlen ? len - (uint32_t)sizeof(*rec) - FP_ALIGN8((uint32_t)dlen) : 0;
	memcpy(rec->args, a, sizeof(a));
	fp_fill(rec, &pre);
	if (dlen) {
		uint64_t orig[6] = { (uint64_t)a0, (uint64_t)a1, (uint64_t)a2,
				     (uint64_t)a3, (uint64_t)a4, (uint64_t)a5 };

		fp_data_copy(sc, orig, rec->data + rec->data_off, dlen);
	}
	rec->ret = 0;
	rec->t_exit = 0;
	rec->t_wrap = carry < t_wrap ? t_wrap - carry : t_wrap;
	rec->t_enter = fp_now();
	__atomic_store_n(&rec->state, FP_REC_ENTERED, __ATOMIC_RELEASE);
	if (fp_cancel_point(nr)) {
		int type;

		pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &type);
		rec->ret = fp_stub(nr, a0, a1, a2, a3, a4, a5);
		pthread_setcanceltype(type, NULL);
	} else {
		rec->ret = fp_stub(nr, a0, a1, a2, a3, a4, a5);
	}
	rec->t_exit = fp_now();
	if (nr == SYS_sendmsg || nr == SYS_recvmsg)
		fp_msg_fds(rec);
	pre.flush = 0;
	if (pre.ndefer) {
		fp_poststat(&pre, rec->ret);	/* raw calls: errno stays */
		fp_carry = fp_now() - rec->t_exit;
	}
	__atomic_store_n(&rec->state, FP_REC_DONE, __ATOMIC_RELEASE);
	if (pre.flush) {
		int e = errno;

		syscall(SYS_close, FP_FLUSH_FD);
		errno = e;
		fp_carry = fp_now() - rec->t_exit;
	}
	return rec->ret;
}
