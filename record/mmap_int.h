/*
 * mmap_int.h - the file mappings followed for their pages, shared by
 * mmap.c (taking them at munmap, msync, exec and exit) and bpf_mmap.c
 * (the bpf programs' records of faulted and dirtied pages).
 */
#ifndef IOT_REC_MMAP_INT_H
#define IOT_REC_MMAP_INT_H

#include <stdint.h>
#include <sys/types.h>

#define PAGE 4096ULL

struct rec_fmap {
	pid_t pid;
	uint64_t addr, len, off;
	uint32_t shared_w;		/* MAP_SHARED and PROT_WRITE: writes reach the file */
	uint32_t tmpfs;			/* ... of a tmpfs file: its written pages cannot be told */
	char *path;
	uint32_t path_len;
	uint64_t *seen;			/* a bit per page already counted as read */
	/* ptrace: a bit per page of a tmpfs file (shmem: always dirty in
	 * the page cache) already counted as written */
	uint64_t *wseen;
	int taken;			/* its pages were read at least once */
	/* the bpf backends (bpf_mmap.c): NULL when the programs do not
	 * follow it; else a bit per page faulted in, and per page dirtied
	 * since it was last taken */
	uint64_t key;			/* the file's page cache, as the programs name it */
	uint64_t *hit, *dirty;
};

struct rec_fmaps {
	struct rec_fmap *v;
	uint32_t n, cap;
	int kpf;			/* /proc/kpageflags, or -1 */
};

/* @m's hit and dirty bitmaps, zeroed (mmap.c): 0, or -ENOMEM with
 * neither kept */
int rec_fmap_bits(struct rec_fmap *m);

#endif
