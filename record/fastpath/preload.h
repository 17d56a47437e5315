/*
 * preload.h - internals of libiotape-fast.so shared by its files.
 */
#ifndef FP_PRELOAD_H
#define FP_PRELOAD_H

#include <stdint.h>

/*
 * fp_call() - make syscall @nr through the stub and log it, copying the
 * NUL-terminated strings @p0 and @p1 (either may be NULL) into the record.
 * @return : the raw kernel return (-errno on failure).  When the fast path
 * is off or the ring stays full, the call goes through libc's syscall(), a
 * traced instruction, so it is still recorded.
 */
long fp_call(int nr, const char *p0, const char *p1, long a0, long a1,
	     long a2, long a3, long a4, long a5);

/* fp_ret() - raw return to libc convention (-1 and errno) */
long fp_ret(long r);

#define FP0(nr, a0, a1, a2, a3, a4, a5) \
	fp_ret(fp_call(nr, NULL, NULL, (long)(a0), (long)(a1), (long)(a2), \
		       (long)(a3), (long)(a4), (long)(a5)))
#define FP1(nr, p, a0, a1, a2, a3, a4, a5) \
	fp_ret(fp_call(nr, (p), NULL, (long)(a0), (long)(a1), (long)(a2), \
		       (long)(a3), (long)(a4), (long)(a5)))
#define FP2(nr, p, q, a0, a1, a2, a3, a4, a5) \
	fp_ret(fp_call(nr, (p), (q), (long)(a0), (long)(a1), (long)(a2), \
		       (long)(a3), (long)(a4), (long)(a5)))

#endif
