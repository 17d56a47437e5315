/*
 * patch.c - the calls libc makes inside itself.
 *
 * The wrappers see a program's calls to read(), open() ... through the
 * PLT, but libc's own calls do not go through it: stdio's reads, writes
 * and seeks (fread, fgets, fwrite, fseek), fopen's open, fstat for its
 * buffer size.  Each of those stopped in the recorder; under make they
 * were about half of all stops (the assembler and linker do their I/O
 * with stdio).
 *
 * At start, once, the library looks in libc's code for the inline
 * syscall sequences glibc's wrappers compile to,
 *
 *	b8 NR 00 00 00		mov $NR, %eax
 *	0f 05			syscall
 *	48 3d 00 f0 ff ff	cmp $-4096, %rax	(or -4095, or the 32-bit form)
 *
 *	31 c0			xor %eax, %eax		(read)
 *	0f 05			syscall
 *	48 3d 00 f0 ff ff	cmp $-4096, %rax
 *
 * for a short list of file calls, and replaces the mov + syscall (for
 * read: xor + syscall + cmp, 10 bytes) with a jump to a trampoline next
 * to libc that calls fp_call() and jumps back, so those calls are logged
 * in-process like the wrappers' calls.  Only these exact 13-byte (12,
 * 10) signatures are taken: nothing else of libc is touched, and a libc
 * compiled differently is left alone (its calls stop, as before).  The
 * trampoline keeps every register a syscall keeps (all but rax, rcx and
 * r11; xmm0-15 too) and the red zone below the stack pointer.
 * IOTAPE_FAST_NOPATCH=1 turns it off; IOTAPE_FAST_PATCHLOG=FILE lists the
 * sites it patched (libc offset, bytes, syscall) for the tests.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "fp.h"
#include "preload.h"

/* the calls libc makes internally that the recorder records */
static int patchable(int nr)
{
	switch (nr) {
	case SYS_read: case SYS_write: case SYS_close: case SYS_lseek:
	case SYS_pread64: case SYS_pwrite64: case SYS_readv: case SYS_writev:
	case SYS_openat: case SYS_newfstatat: case SYS_fstat: case SYS_stat:
	case SYS_lstat: case SYS_statx: case SYS_getdents64: case SYS_readlink:
	case SYS_readlinkat: case SYS_access: case SYS_faccessat: case SYS_faccessat2:
		return 1;
	}
	return 0;
}

/*
 * The common part: entered by jmp with %eax = syscall number and %r11 =
 * where to go back (the site's tail in the trampoline page).  %rcx and
 * %r11 are free: a syscall clobbers them.
 */
__asm__(
	".text\n"
	".globl fp_tramp_common\n.hidden fp_tramp_common\n"
	".type fp_tramp_common, @function\n"
	"fp_tramp_common:\n"
	"	endbr64\n"
	"	lea -128(%rsp), %rsp\n"		/* the red zone */
	"	push %r11\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	push %rdi\n	push %rsi\n	push %rdx\n"
	"	push %r8\n	push %r9\n	push %r10\n"
	"	and $-16, %rsp\n"
	"	sub $256, %rsp\n"
	"	movdqu %xmm0, 0(%rsp)\n	movdqu %xmm1, 16(%rsp)\n"
	"	movdqu %xmm2, 32(%rsp)\n	movdqu %xmm3, 48(%rsp)\n"
	"	movdqu %xmm4, 64(%rsp)\n	movdqu %xmm5, 80(%rsp)\n"
	"	movdqu %xmm6, 96(%rsp)\n	movdqu %xmm7, 112(%rsp)\n"
	"	movdqu %xmm8, 128(%rsp)\n	movdqu %xmm9, 144(%rsp)\n"
	"	movdqu %xmm10, 160(%rsp)\n	movdqu %xmm11, 176(%rsp)\n"
	"	movdqu %xmm12, 192(%rsp)\n	movdqu %xmm13, 208(%rsp)\n"
	"	movdqu %xmm14, 224(%rsp)\n	movdqu %xmm15, 240(%rsp)\n"
	/* fp_call(nr, a0..a5): the kernel's rdi rsi rdx r10 r8 r9 */
	"	sub $16, %rsp\n"
	"	mov %r9, (%rsp)\n"
	"	mov %r8, %r9\n"
	"	mov %r10, %r8\n"
	"	mov %rdx, %rcx\n"
	"	mov %rsi, %rdx\n"
	"	mov %rdi, %rsi\n"
	"	mov %eax, %edi\n"
	"	call fp_call\n"
	"	add $16, %rsp\n"
	"	movdqu 0(%rsp), %xmm0\n	movdqu 16(%rsp), %xmm1\n"
	"	movdqu 32(%rsp), %xmm2\n	movdqu 48(%rsp), %xmm3\n"
	"	movdqu 64(%rsp), %xmm4\n	movdqu 80(%rsp), %xmm5\n"
	"	movdqu 96(%rsp), %xmm6\n	movdqu 112(%rsp), %xmm7\n"
	"	movdqu 128(%rsp), %xmm8\n	movdqu 144(%rsp), %xmm9\n"
	"	movdqu 160(%rsp), %xmm10\n	movdqu 176(%rsp), %xmm11\n"
	"	movdqu 192(%rsp), %xmm12\n	movdqu 208(%rsp), %xmm13\n"
	"	movdqu 224(%rsp), %xmm14\n	movdqu 240(%rsp), %xmm15\n"
	"	lea -48(%rbp), %rsp\n"
	"	pop %r10\n	pop %r9\n	pop %r8\n"
	"	pop %rdx\n	pop %rsi\n	pop %rdi\n"
	"	pop %rbp\n"
	"	pop %r11\n"
	"	lea 128(%rsp), %rsp\n"
	"	jmp *%r11\n"
	".size fp_tramp_common, .-fp_tramp_common\n");

extern const char fp_tramp_common[];

#define MAX_SITES FP_MAX_SITES
#define SITE_BYTES 48		/* entry (27) + tail (<= 11), rounded */

struct site {
	unsigned char *at;	/* in libc */
	int len;		/* bytes replaced: 7, or 10 with the cmp */
	int nr;
	int cmp_len;		/* the cmp moved into the tail (0 if it stays) */
};

/* The signature at @p, if any: @return : the bytes to replace (0: none). */
static int match(const unsigned char *p, const unsigned char *end, struct site *s)
{
	const unsigned char *q;
	int cmp;

	if (end - p < 13)
		return 0;
	if (p[0] == 0xb8 && p[3] == 0 && p[4] == 0 && p[5] == 0x0f && p[6] == 0x05) {
		s->nr = p[1] | p[2] << 8;
		q = p + 7;
		s->len = 7;
		s->cmp_len = 0;
	} else if (p[0] == 0x31 && p[1] == 0xc0 && p[2] == 0x0f && p[3] == 0x05) {
		s->nr = SYS_read;
		q = p + 4;
		s->len = 10;
		s->cmp_len = 6;
	} else {
		return 0;
	}
	/* cmp $-4096 / $-4095, %rax (6 bytes) or %eax (5 bytes) */
	if (q[0] == 0x48 && q[1] == 0x3d && (q[2] == 0 || q[2] == 1) && q[3] == 0xf0 &&
	    q[4] == 0xff && q[5] == 0xff)
		cmp = 6;
	else if (q[0] == 0x3d && (q[1] == 0 || q[1] == 1) && q[2] == 0xf0 && q[3] == 0xff &&
		 q[4] == 0xff)
		cmp = 5;
	else
		return 0;
	if (s->cmp_len && cmp != 6)
		return 0;
	if (!patchable(s->nr))
		return 0;
	s->at = (unsigned char *)p;
	return s->len;
}

struct scan {
	uintptr_t lo, hi;		/* libc's executable segment */
	uintptr_t base;			/* libc's load address */
};

static int find_libc(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan *sc = arg;
	const char *n = info->dlpi_name;
	size_t len = n ? strlen(n) : 0;
	int i;

	(void)size;
	if (len < 10 || strcmp(n + len - 10, "/libc.so.6") != 0)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			sc->lo = info->dlpi_addr + ph->p_vaddr;
			sc->hi = sc->lo + ph->p_memsz;
			sc->base = info->dlpi_addr;
			return 1;
		}
	}
	return 0;
}

static void put8(unsigned char **w, uint64_t v)
{
	memcpy(*w, &v, 8);
	*w += 8;
}

static void put4(unsigned char **w, int32_t v)
{
	memcpy(*w, &v, 4);
	*w += 4;
}

static int near(uintptr_t a, uintptr_t b)
{
	intptr_t d = (intptr_t)(a - b);

	return d > -(1L << 31) + (1L << 20) && d < (1L << 31) - (1L << 20);
}

/* the trampoline page, within a jmp rel32 of all of libc's text */
static unsigned char *tramp_page(const struct scan *sc, size_t len)
{
	uintptr_t step = 1ul << 20, hint;
	int k;

	for (k = 1; k <= 256; k++) {
		long r;

		hint = (k & 1) ? ((sc->lo & ~(uintptr_t)0xfff) - step * (uintptr_t)((k + 1) / 2) - len)
			       : (((sc->hi + 0xfff) & ~(uintptr_t)0xfff) + step * (uintptr_t)(k / 2));
		if (!near(hint, sc->lo) || !near(hint + len, sc->hi))
			continue;
		r = fp_raw(SYS_mmap, (long)hint, (long)len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (r == (long)hint)
			return (unsigned char *)r;
		if (r > 0 || r < -4095)
			fp_raw(SYS_munmap, r, (long)len, 0, 0, 0, 0);
	}
	return NULL;
}

static void log_sites(const char *path, const struct scan *sc, const struct site *s, int n)
{
	char line[96];
	long fd;
	int i;

	fd = fp_raw(SYS_openat, AT_FDCWD, (long)path,
			  O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644, 0, 0);
	if (fd < 0)
		return;
	for (i = 0; i < n; i++) {
		int l = snprintf(line, sizeof(line), "%lx %d %d\n",
				 (unsigned long)((uintptr_t)s[i].at - sc->base), s[i].len, s[i].nr);

		fp_raw(SYS_write, fd, (long)line, l, 0, 0, 0);
	}
	fp_raw(SYS_close, fd, 0, 0, 0, 0, 0);
}

/* The sites: from the header's list if it was made for a libc of this
 * size (each still checked), else by a scan, whose list the first
 * process then publishes. */
static int find_sites(struct fp_shm *h, const struct scan *sc, struct site *sites)
{
	const unsigned char *lo = (const unsigned char *)sc->lo, *hi = (const unsigned char *)sc->hi;
	struct fp_sites *c = &h->sites;
	uint32_t want = FP_SITES_EMPTY, i;
	const unsigned char *p;
	int n = 0;

	if (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == FP_SITES_READY &&
	    c->text_size == sc->hi - sc->lo) {
		for (i = 0; i < c->n && i < FP_MAX_SITES; i++)
			if (c->off[i] < sc->hi - sc->lo && match(lo + c->off[i], hi, &sites[n]))
				n++;
		return n;
	}
	for (p = lo; p < hi && n < MAX_SITES; p++) {
		if ((*p == 0xb8 || *p == 0x31) && match(p, hi, &sites[n])) {
			p += sites[n].len - 1;
			n++;
		}
	}
	if (__atomic_compare_exchange_n(&c->state, &want, FP_SITES_WRITING, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
		for (i = 0; i < (uint32_t)n; i++)
			c->off[i] = (uint32_t)(sites[i].at - lo);
		c->n = (uint32_t)n;
		c->text_size = sc->hi - sc->lo;
		__atomic_store_n(&c->state, FP_SITES_READY, __ATOMIC_RELEASE);
	}
	return n;
}

int fp_patch_libc(struct fp_shm *h)
{
	struct site sites[MAX_SITES];
	struct scan sc = { 0, 0, 0 };
	const char *logp = getenv("IOTAPE_FAST_PATCHLOG");
	unsigned char *page, *w;
	uintptr_t lo, hi;
	size_t plen;
	int n, i;

	if (getenv("IOTAPE_FAST_NOPATCH"))
		return 0;
	if (!dl_iterate_phdr(find_libc, &sc) || !sc.lo)
		return 0;
	n = find_sites(h, &sc, sites);
	if (!n)
		return 0;
	plen = ((size_t)n * SITE_BYTES + 4095) & ~(size_t)4095;
	page = tramp_page(&sc, plen);
	if (!page)
		return 0;
	/* entries and tails first, while nothing jumps there */
	for (i = 0, w = page; i < n; i++, w = page + (size_t)i * SITE_BYTES) {
		unsigned char *tail = w + 27;
		unsigned char *back = sites[i].at + sites[i].len;

		*w++ = 0xb8;				/* mov $nr, %eax */
		put4(&w, sites[i].nr);
		*w++ = 0x49; *w++ = 0xbb;		/* movabs $tail, %r11 */
		put8(&w, (uint64_t)(uintptr_t)tail);
		*w++ = 0x48; *w++ = 0xb9;		/* movabs $common, %rcx */
		put8(&w, (uint64_t)(uintptr_t)fp_tramp_common);
		*w++ = 0xff; *w++ = 0xe1;		/* jmp *%rcx */
		if (sites[i].cmp_len) {			/* the cmp it replaced */
			memcpy(w, sites[i].at + 4, (size_t)sites[i].cmp_len);
			w += sites[i].cmp_len;
		}
		*w++ = 0xe9;				/* jmp back */
		put4(&w, (int32_t)((intptr_t)back - (intptr_t)(w + 4)));
	}
	if (fp_raw(SYS_mprotect, (long)page, (long)plen, PROT_READ | PROT_EXEC, 0, 0, 0) < 0)
		goto undo;
	lo = (uintptr_t)sites[0].at & ~(uintptr_t)4095;
	hi = ((uintptr_t)sites[n - 1].at + 16 + 4095) & ~(uintptr_t)4095;
	if (fp_raw(SYS_mprotect, (long)lo, (long)(hi - lo),
			 PROT_READ | PROT_WRITE | PROT_EXEC, 0, 0, 0) < 0)
		goto undo;
	for (i = 0; i < n; i++) {
		unsigned char *at = sites[i].at, *entry = page + (size_t)i * SITE_BYTES;
		int32_t rel = (int32_t)((intptr_t)entry - (intptr_t)(at + 5));

		/* the jmp, then nops over the rest */
		memcpy(at + 1, &rel, 4);
		if (sites[i].len == 7) {
			at[5] = 0x66;
			at[6] = 0x90;
		} else {
			static const unsigned char nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

			memcpy(at + 5, nop5, 5);
		}
		__atomic_store_n(at, (unsigned char)0xe9, __ATOMIC_RELEASE);
	}
	fp_raw(SYS_mprotect, (long)lo, (long)(hi - lo), PROT_READ | PROT_EXEC, 0, 0, 0);
	if (logp)
		log_sites(logp, &sc, sites, n);
	return n;
undo:
	fp_raw(SYS_munmap, (long)page, (long)plen, 0, 0, 0, 0);
	return 0;
}
