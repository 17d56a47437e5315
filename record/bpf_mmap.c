/*
 * bpf_mmap.c - the pages of file mappings under the bpf backends: the
 * programs' records of pages faulted in and dirtied (bpf/mpages.bpf.h)
 * kept per mapping, for mmap.c to take
 * at the munmap, msync, exec or exit as it takes the page table's under
 * ptrace, into the same MapPages records.
 *
 * A record names the file by its page cache's key and the process; the
 * mapping is the newest of that process, of that file, whose range of
 * the file holds the pages (a file mapped twice at once by one process
 * is rare; its pages go to the newest mapping).  Records of a file no
 * mapping of the process maps (one whose descriptor the trace did not
 * see opened, /proc, /dev) match nothing and are left.
 */
#include "rec.h"
#include "mmap_int.h"

#ifdef IOT_HAVE_BPF
#include <linux/types.h>

#include "bpf/event.h"
#include "bpf/bpf_int.h"

void rec_bpf_fmap(struct rec_ctx *c, const struct be_fmap *r)
{
	struct rec_fmaps *s = c->fmaps;
	struct rec_fmap *m = NULL;
	uint32_t i;

	for (i = s ? s->n : 0; i > 0 && !m; i--)
		if (s->v[i - 1].pid == (pid_t)r->h.pid && s->v[i - 1].addr == r->addr)
			m = &s->v[i - 1];
	/* a mapping the recorder does not take (not a recorded file), or
	 * one the programs could not follow: counted untaken when it goes */
	if (!m || m->hit || (r->flags & BE_FMAP_UNWATCHED))
		return;
	if (rec_fmap_bits(m) < 0)
		return;
	m->key = r->mkey;
}

void rec_bpf_mpage(struct rec_ctx *c, const struct be_mpage *r)
{
	struct rec_fmaps *s = c->fmaps;
	uint32_t i;

	for (i = s ? s->n : 0; i > 0; i--) {
		struct rec_fmap *m = &s->v[i - 1];
		uint64_t p0 = m->off / PAGE, np = m->len / PAGE, lo, hi, k;

		if (m->pid != (pid_t)r->h.pid || !m->hit || m->key != r->mkey ||
		    r->last < p0 || r->first >= p0 + np)
			continue;
		lo = r->first > p0 ? r->first - p0 : 0;
		hi = r->last - p0 < np ? r->last - p0 : np - 1;
		for (k = lo; k <= hi; k++) {
			m->hit[k / 64] |= 1ULL << (k % 64);
			if (r->flags & BE_MP_DIRTY)
				m->dirty[k / 64] |= 1ULL << (k % 64);
		}
		return;
	}
}

#endif
