/*
 * preload.h - internals of libiotape-fast.so shared by its files.
 */
#ifndef FP_PRELOAD_H
#define FP_PRELOAD_H

#include <stdint.h>

/*
 * fp_call() - make syscall @nr through the stub and log it, with what the
 * recorder would read at its entry stop (strings, values behind pointers,
 * path states), as format/syscalls.def describes @nr's arguments.
 * @return : the raw kernel return (-errno on failure).  When the fast path
 * is off or the ring stays full, the call goes through libc's syscall(), a
 * traced instruction, so it is still recorded.
 */
long fp_call(int nr, long a0, long a1, long a2, long a3, long a4, long a5);

/* fp_ret() - raw return to libc convention (-1 and errno) */
long fp_ret(long r);

/* fp_raw() - a syscall through the stub: the library's own, not recorded */
long fp_raw(long nr, long a0, long a1, long a2, long a3, long a4, long a5);

struct fp_shm;
/* fp_patch_libc() - route libc's internal file calls to fp_call()
 * (patch.c).  @return : call sites patched. */
int fp_patch_libc(struct fp_shm *h);

#define FP(nr, a0, a1, a2, a3, a4, a5) \
	fp_ret(fp_call(nr, (long)(a0), (long)(a1), (long)(a2), (long)(a3), \
		       (long)(a4), (long)(a5)))

#endif
