/*
 * mpages.bpf.h - part of iotape.bpf.c, included at its end: the pages
 * of file mappings under the bpf backends.
 *
 * Loads and stores through a file mapping make no syscall; the ptrace
 * backend reads the page table at munmap, msync, exec and exit stops
 * (record/mmap.c), which this backend does not have.  Instead:
 *   mm_filemap_fault      a page of a file mapped in by a fault
 *   mm_filemap_map_pages  ... by fault-around (first and last index)
 *   mm_filemap_add_to_page_cache  ... read in by a fault (read-ahead)
 *   writeback_dirty_folio a clean page made dirty: by a store through a
 *                         shared mapping when no write call is in flight
 *   page_fault_user       a store that faults in a shared mapping; a
 *                         cached 2 MiB folio mapped whole (below)
 * (plain raw tracepoints: the faulting or reading task is the current
 * one, and the folios are read with BPF_CORE_READ()), each for the files
 * a followed task mapped with mmap (not its program
 * and libraries: PROT_EXEC, MAP_DENYWRITE), kept in map fmwatch by the
 * exit program (fmap_watch()).  The records name the file by its page
 * cache (address_space); BE_FMAP ties that key to the mapping's address.
 * The recorder keeps the pages per mapping until the munmap, msync, exec
 * or exit (record/bpf_mmap.c).  Every fault of the machine runs one of
 * these programs; for a task not followed it ends at the task storage
 * lookup (page_fault_user's, while the table of blocks is empty, at
 * once: fmb_live).  Records the ring cannot take are counted in drops.
 */
#ifndef IOT_MPAGES_BPF_H
#define IOT_MPAGES_BPF_H

#define PROT_WRITE_	0x2
#define PROT_EXEC_	0x4
#define MAP_SHARED_	0x01
#define MAP_DENYWRITE_	0x0800
#define NR_WRITE	1
#define NR_PWRITE64	18
#define NR_WRITEV	20
#define NR_SENDFILE	40
#define NR_SPLICE	275
#define NR_PWRITEV	296
#define NR_COPY_FILE_RANGE 326
#define NR_PWRITEV2	328
#define PG_HEAD_	6

/* files (address_space) a followed task mapped: key only.  Entries stay
 * until the recording ends (a key of a file since freed may name
 * another file: the recorder ties records to its own mappings by key
 * and process, so such records match nothing) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u8);
} fmwatch SEC(".maps");

/*
 * Where a followed file is mapped, per 2 MiB block of addresses: for
 * page_fault_user, which has an address, not a file (a
 * walk of the process's mappings, bpf_find_vma(), takes the mmap lock in
 * the fault's IRQs-off entry and hands its unlock to an irq_work: a self
 * interrupt per fault, ~15 µs of CPU each in this VM).  Written at the
 * mmap for up to FMB_MAX blocks of it.  Not per process: a child forked
 * with the mapping has it at the same addresses.  A block mapped again by
 * another followed mapping (this process's or another's) is written over;
 * one mapped otherwise keeps a stale entry, whose records name a file
 * that the faulting process may not map (the recorder ties records to its
 * mappings by file and process: they match nothing) or maps elsewhere
 * (then pages of it are counted that were not touched; with address
 * randomisation two processes rarely share a block).
 */
#define FMB_SHIFT	21
#define FMB_MAX		512		/* 1 GiB of a mapping */
#define FMB_UNMAP_MAX	64		/* blocks an unmapping clears, at most */
#define PMD_PAGES	512		/* pages of a 2 MiB block */

struct fmb_key {
	__u64 blk;			/* address >> FMB_SHIFT */
};

struct fmb {
	__u64 mkey;
	__u64 start, end;		/* the mapping */
	__s64 base;			/* the file's page at the block's first address */
	__u32 shared_w;
	__u32 small;			/* its folio was found smaller than 2 MiB: no
					 * more looks (folios rarely grow in a mapping's
					 * life; a cold one is read in whole) */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, struct fmb_key);
	__type(value, struct fmb);
} fmblk SEC(".maps");

/*
 * Blocks in fmblk: added by fmb_one() (only for the mappings this
 * program can use: fmap_watch()), taken by fmb_drop() and fmb_clear().  At 0 the
 * table is empty and page_fault_user's program, which looks every fault
 * of a followed task up in it, returns at once, before the task storage
 * and hash lookups.  Every dynamically linked program maps
 * /etc/ld.so.cache (followed: PROT_READ, no MAP_DENYWRITE) and its loader
 * unmaps it before main(), so most faults of a build or of many short
 * programs come at 0: `make -j2` of 41 files, ~90,000 runs of it, ~15 ms
 * of CPU.  A block written over (another mapping in the same 2 MiB)
 * counts again, and one left behind (its process ended or exec'd
 * without unmapping it) stays: the count stays up, which costs only the
 * lookups, as before.  (Not a test for the other fault programs: they
 * look files up, and a forked child's unmapping of an inherited mapping
 * drops its blocks while the parent's mapping lives on.)
 */
__s64 fmb_live = 0;

struct fmb_ctx {
	struct fmb v;
	__u64 blk0;
	__s64 pg0;			/* the file's page at start */
};

static long fmb_one(__u64 i, void *arg)
{
	struct fmb_ctx *c = arg;
	struct fmb_key k = { .blk = c->blk0 + i };

	/* before the mapping's start for its first block: signed */
	c->v.base = c->pg0 + ((__s64)((k.blk << FMB_SHIFT) - c->v.start) >> 12);
	/* counted before it is in (a block written over counts again: too
	 * many is safe, too few is not) */
	__sync_fetch_and_add(&fmb_live, 1);
	if (bpf_map_update_elem(&fmblk, &k, &c->v, BPF_ANY) < 0) {
		__sync_fetch_and_add(&fmb_live, -1);
		count_drop();
		return 1;
	}
	return 0;
}

/* an entry at block blk0 + @i, if any, goes (a mapping there now that
 * page_fault_user has no use for: as a block written over by it would) */
static long fmb_clear(__u64 i, void *arg)
{
	struct fmb_key k = { .blk = *(__u64 *)arg + i };

	if (bpf_map_delete_elem(&fmblk, &k) == 0)
		__sync_fetch_and_add(&fmb_live, -1);
	return 0;
}

/* Does the mapping in @c hold a whole 2 MiB block whose first page is a
 * 2 MiB boundary of the file (page_fault_user's test, per block: all of
 * a mapping's blocks line up alike)? */
static __always_inline int huge_block(const struct fmb_ctx *c)
{
	__u64 a = (c->v.start + (1ULL << FMB_SHIFT) - 1) & ~((1ULL << FMB_SHIFT) - 1);
	__s64 base = c->pg0 + (__s64)((a - c->v.start) >> 12);

	return a + (1ULL << FMB_SHIFT) <= c->v.end && base >= 0 && !(base & (PMD_PAGES - 1));
}

/* After a followed task's mmap returned @ret (@len bytes of the file from
 * @off, @protflags: prot << 32 | flags): a mapping of a file that may be
 * file I/O (not code, not the loader's) is followed.  Its blocks go into
 * fmblk only where page_fault_user can use them: a shared writable
 * mapping (its stores), or one holding a whole 2 MiB block lined up with
 * the file's (a huge folio mapped whole).  A private or read-only one
 * smaller than that (every program's locale files, 13 of them under
 * C.UTF-8, which no process unmaps) left blocks that kept fmb_live up
 * for the rest of the recording, and page_fault_user then looked up
 * every fault of every followed task in vain. */
__noinline int fmap_watch(__u64 ret, __u64 len, __u64 protflags, __s64 fd, __u64 off)
{
	__u64 prot = protflags >> 32, flags = (__u32)protflags, key, nb;
	struct fmb_ctx c;
	struct file *f;
	struct be_fmap r;
	__u8 one = 1;

	if (ret >= (__u64)-4095 || (flags & (MAP_ANON | MAP_DENYWRITE_)) ||
	    (prot & PROT_EXEC_) || fd < 0 || fd > 0x7fffffff || !len)
		return 0;
	f = (struct file *)fd_file((int)fd);
	if (!f)
		return 0;
	key = (__u64)BPF_CORE_READ(f, f_mapping);
	if (!key)
		return 0;
	__builtin_memset(&r, 0, sizeof(r));
	hdr(&r.h, BE_FMAP);
	r.h.len = sizeof(r);
	r.addr = ret;
	r.mkey = key;
	if (bpf_map_update_elem(&fmwatch, &key, &one, BPF_NOEXIST) < 0 &&
	    !bpf_map_lookup_elem(&fmwatch, &key))
		r.flags = BE_FMAP_UNWATCHED;
	emit(&r, sizeof(r), 0);
	if (r.flags)
		return 0;
	__builtin_memset(&c, 0, sizeof(c));
	c.v.mkey = key;
	c.v.start = ret;
	c.v.end = ret + ((len + 4095) & ~4095ULL);
	c.v.shared_w = (flags & MAP_SHARED_) && (prot & PROT_WRITE_);
	c.blk0 = ret >> FMB_SHIFT;
	c.pg0 = (__s64)(off >> 12);
	nb = ((c.v.end - 1) >> FMB_SHIFT) - c.blk0 + 1;
	if (!c.v.shared_w && !huge_block(&c)) {
		bpf_loop(nb < FMB_MAX ? (__u32)nb : FMB_MAX, fmb_clear, &c.blk0, 0);
		return 0;
	}
	bpf_loop(nb < FMB_MAX ? (__u32)nb : FMB_MAX, fmb_one, &c, 0);
	return 0;
}

struct fmb_gone {
	__u64 blk0, lo, hi;
};

static long fmb_drop(__u64 i, void *arg)
{
	struct fmb_gone *g = arg;
	struct fmb_key k = { .blk = g->blk0 + i };
	struct fmb *b = bpf_map_lookup_elem(&fmblk, &k);

	if (b && b->start >= g->lo && b->end <= g->hi && bpf_map_delete_elem(&fmblk, &k) == 0)
		__sync_fetch_and_add(&fmb_live, -1);
	return 0;
}

/* A followed task unmapped [@addr, +@len): the blocks of mappings wholly
 * inside go (an unmapping of more than FMB_UNMAP_MAX blocks, anonymous
 * memory mostly, leaves them to be written over) */
__noinline int fmap_unmap(__u64 addr, __u64 len)
{
	/* the kernel unmaps whole pages, as fmap_watch() counts a mapping's
	 * end: ld.so.cache's 50,403 bytes left its block behind in every
	 * process when the end was taken as addr + len */
	struct fmb_gone g = { .blk0 = addr >> FMB_SHIFT, .lo = addr,
			      .hi = addr + ((len + 4095) & ~4095ULL) };
	__u64 nb;

	if (!len || len > ((__u64)FMB_UNMAP_MAX << FMB_SHIFT))
		return 0;
	nb = ((g.hi - 1) >> FMB_SHIFT) - g.blk0 + 1;
	bpf_loop(nb < FMB_UNMAP_MAX + 1 ? (__u32)nb : FMB_UNMAP_MAX + 1, fmb_drop, &g, 0);
	return 0;
}

/*
 * A followed task's mremap moved or resized the mapping at @old (@olen
 * bytes) to @ret (@nlen bytes): its blocks follow it, as the recorder
 * follows the mapping (mmap.c rec_fmap_move()).  Left at the old
 * addresses, page_fault_user found none of the stores at the new ones:
 * a tmpfs file, whose stores are seen only there, grown page by page
 * with Python's mmap.resize() (ftruncate, then mremap MAYMOVE) to 64
 * pages, each then written, was recorded with 1 page written of 64 (64
 * under ptrace; on xfs filemap's faults name the file, not the address).
 * Only a mapping moved from its start, as the recorder follows.  Inline:
 * a light skeleton loads at most 32 programs and global functions.
 */
static __always_inline int fmap_remap(__u64 old, __u64 olen, __u64 ret, __u64 nlen)
{
	struct fmb_key k = { .blk = old >> FMB_SHIFT };
	struct fmb_ctx c;
	struct fmb *b;
	__u64 nb;

	if (ret >= (__u64)-4095 || !nlen || !fmb_live)
		return 0;
	b = bpf_map_lookup_elem(&fmblk, &k);
	if (!b || b->start != old)
		return 0;
	__builtin_memset(&c, 0, sizeof(c));
	c.v.mkey = b->mkey;
	c.v.shared_w = b->shared_w;
	c.pg0 = b->base + ((__s64)(old - (k.blk << FMB_SHIFT)) >> 12);
	c.v.start = ret;
	c.v.end = ret + ((nlen + 4095) & ~4095ULL);
	c.blk0 = ret >> FMB_SHIFT;
	fmap_unmap(old, olen);
	nb = ((c.v.end - 1) >> FMB_SHIFT) - c.blk0 + 1;
	if (!c.v.shared_w && !huge_block(&c))
		return 0;
	bpf_loop(nb < FMB_MAX ? (__u32)nb : FMB_MAX, fmb_one, &c, 0);
	return 0;
}

/*
 * The programs below run in the faulting task, on its CPU time, between
 * its calls mostly: time the recording adds to the task's CPU time at
 * its end (iotape_gone's run_ns) that the program did not spend, and
 * that no call's floor takes off (replay/think.c: those are the entry's
 * and exit's).  Each program of a followed task outside its calls times
 * itself, from just after its task-storage look-up to its end, into the
 * task's rec_ns, which its exit record carries (the Process record's
 * rec_ns) and the replay takes off its CPU budget and its gaps (replay/budget.c).
 * Not timed: the tracepoint's call of the program and that first
 * look-up (the same in every program: ~0.1-0.2 us a fault all told in
 * this VM, docs/FIGURES.md "mapread"), nor, in the two programs of a
 * file's fault, the look-up of the file in fmwatch and the leaving when
 * it is not there (the faults of a program's code and libraries, most of
 * a short program's: timing them cost two clock reads and two calls a
 * fault, more than the look-up), nor inside a call (whose cpu_ns
 * holds it: the replay spends a call's CPU time by making the call), nor
 * the scheduler's programs (sched_switch's runs before the task it
 * switches to, sched_wakeup's in the waker).  Global functions, checked
 * once on their own: inline, their branch doubled the paths the verifier
 * walked through each program after it (page_fault_user 475 -> 695
 * instructions processed).  @return : the start, 0 inside a call.
 */
__noinline __u64 rec_start(struct tstate *fl)
{
	if (!fl || fl->busy || fl->in_fast)
		return 0;
	return bpf_ktime_get_ns();
}

__noinline int rec_end(struct tstate *fl, __u64 t0)
{
	if (fl && t0) {
		fl->rec_ns += bpf_ktime_get_ns() - t0;
		fl->rec_runs++;
	}
	return 0;
}

/* a BE_MPAGE record (the caller has found the file followed) */
static __always_inline int mpage_emit(__u64 key, __u64 first, __u64 last, __u32 flags)
{
	struct be_mpage r;

	hdr(&r.h, BE_MPAGE);
	r.h.len = sizeof(r);
	r.mkey = key;
	r.first = first;
	r.last = last;
	r.flags = flags;
	r.pad = 0;
	emit(&r, sizeof(r), 0);
	return 0;
}

/* ... if @fl's task is followed on and @key's file is (a global
 * function, checked once: page_fault_user has two) */
__noinline int mpage_note(struct tstate *fl, __u64 key, __u64 first, __u64 last, __u32 flags)
{
	if (!fl || fl->st != BE_TID_ON || !bpf_map_lookup_elem(&fmwatch, &key))
		return 0;
	return mpage_emit(key, first, last, flags);
}

__noinline __u64 folio_span(__u64 mapping, __u64 idx);

/* the pages of the folio at @idx of @key, if cached, in *@first..*@last */
static __always_inline void folio_range(__u64 key, __u64 idx, __u64 *first, __u64 *last)
{
	__u64 sp = folio_span(key, idx);

	if (!sp)
		return;
	*first = (sp - 1) >> 4;
	*last = *first + (1ULL << ((sp - 1) & 15)) - 1;
}

/* a fault on a cached page maps its whole folio (where it fits in the
 * mapping): the others are touched with no fault of their own */
SEC("raw_tp/mm_filemap_fault")
int BPF_PROG(iotape_mfault, struct address_space *mapping, unsigned long index)
{
	struct tstate *fl = followed(bpf_get_current_task_btf());
	__u64 key = (__u64)mapping, first = index, last = index, t0;

	if (!fl || fl->st != BE_TID_ON || !bpf_map_lookup_elem(&fmwatch, &key))
		return 0;
	t0 = rec_start(fl);
	folio_range(key, index, &first, &last);
	mpage_emit(key, first, last, 0);
	return rec_end(fl, t0);
}

/* fault-around maps the large folios at either end of its window whole */
SEC("raw_tp/mm_filemap_map_pages")
int BPF_PROG(iotape_maround, struct address_space *mapping, unsigned long first,
	     unsigned long last)
{
	struct tstate *fl = followed(bpf_get_current_task_btf());
	__u64 key = (__u64)mapping, sp, end = 0, t0;

	if (!fl || fl->st != BE_TID_ON || !bpf_map_lookup_elem(&fmwatch, &key))
		return 0;
	t0 = rec_start(fl);
	sp = folio_span(key, first);
	if (sp) {
		first = (sp - 1) >> 4;
		end = first + (1ULL << ((sp - 1) & 15)) - 1;
	}
	/* one folio over the whole window: no second look */
	if (sp && end >= last)
		last = end;
	else if ((sp = folio_span(key, last)))
		last = ((sp - 1) >> 4) + (1ULL << ((sp - 1) & 15)) - 1;
	mpage_emit(key, first, last, 0);
	return rec_end(fl, t0);
}

/* a write call dirties the pages it writes: those are its own I/O, not
 * a store through a mapping (calls the fast path logs included) */
static __always_inline int in_write(const struct tstate *fl)
{
	__s32 nr = fl->nr;

	if (fl->in_fast)
		return 1;
	return fl->busy && (nr == NR_WRITE || nr == NR_PWRITE64 || nr == NR_WRITEV ||
			    nr == NR_PWRITEV || nr == NR_PWRITEV2 || nr == NR_SENDFILE ||
			    nr == NR_SPLICE || nr == NR_COPY_FILE_RANGE ||
			    nr == NR_IO_SUBMIT || nr == NR_IO_URING_ENTER);
}

/* pages in @folio (a large one is read in and dirtied whole) */
static __always_inline __u64 folio_pages(struct folio *folio)
{
	__u64 n = 1;

	if (BPF_CORE_READ(folio, flags.f) & (1UL << PG_HEAD_))
		n = BPF_CORE_READ(folio, _nr_pages);
	return n && n <= 512 ? n : 1;
}

SEC("raw_tp/writeback_dirty_folio")
int BPF_PROG(iotape_mdirty, struct folio *folio, struct address_space *mapping)
{
	struct tstate *fl = followed(bpf_get_current_task_btf());
	__u64 first, t0;

	if (!fl || in_write(fl))
		return 0;
	t0 = rec_start(fl);
	first = BPF_CORE_READ(folio, index);
	mpage_note(fl, (__u64)mapping, first, first + folio_pages(folio) - 1, BE_MP_DIRTY);
	return rec_end(fl, t0);
}

/*
 * A folio read into the page cache of a followed file by a task between
 * its calls: its faults' read-ahead.  A fault on a 2 MiB folio maps it
 * whole with one page-table entry, and fault-around maps a cached one so
 * with no trace at all (filemap_map_pages() leaves before its trace): the
 * pages a cold fault reads in are the ones the program's access read
 * from the disk, so they count as read.  Inside a call the folios are
 * the call's (read, write) and are left.
 */
SEC("raw_tp/mm_filemap_add_to_page_cache")
int BPF_PROG(iotape_madd, struct folio *folio)
{
	struct tstate *fl = followed(bpf_get_current_task_btf());
	__u64 first, mapping = 0, t0;

	if (!fl || fl->busy || fl->in_fast)
		return 0;
	t0 = rec_start(fl);
	first = BPF_CORE_READ(folio, index);
	mapping = (__u64)BPF_CORE_READ(folio, mapping);
	mpage_note(fl, mapping, first, first + folio_pages(folio) - 1, 0);
	return rec_end(fl, t0);
}

/*
 * The folios at a fault's pages, looked up in the file's page cache (its
 * xarray, read-only, under the fault's own locks).  Fault-around maps a
 * cached large folio whole, not only the window its trace gives; and a
 * 2 MiB one is mapped whole by the fault on any of its pages (one
 * page-middle-directory entry), with no trace at all when fault-around
 * does it: the fault itself is seen (page_fault_user), and on a followed
 * file's mapping whose 2 MiB blocks line up with the file's the folio at
 * the faulting page counts whole when it is a 2 MiB one.
 */
#define XA_CHUNK	64

/* The walk down a page cache's xarray: its state in map memory, one
 * bpf_loop() step a level, so the verifier checks a step once, not the
 * eight levels of an open-coded loop in each of the three programs that
 * look a folio up (~800 of their ~1,000 instructions processed each). */
struct xa_walk {
	__u64 e;			/* the entry reached */
	__u64 idx;			/* the page looked up */
	__u32 bad;			/* a read failed: no folio */
	__u32 pad;
};

LOOP_STATE(xawalk, struct xa_walk, xa_walk_state)

/* one level down: 0 on, 1 at a leaf (or a failed read: bad) */
static long xa_down(__u64 i, void *arg)
{
	struct xa_walk *w = xa_walk_state();
	struct xa_node *n;
	__u64 off, x = 0, e;
	__u8 shift = 0;

	if (!w)
		return 1;
	e = w->e;
	/* a node is an internal entry (low bits 10) above 4096 */
	if ((e & 3) != 2 || e <= 4096)
		return 1;
	n = (struct xa_node *)(e - 2);
	w->bad = 1;
	if (bpf_probe_read_kernel(&shift, 1, &n->shift) < 0 || shift > 60)
		return 1;
	if (i == 0 && (w->idx >> shift) >= XA_CHUNK)
		return 1;
	off = (w->idx >> shift) & (XA_CHUNK - 1);
	if (bpf_probe_read_kernel(&x, 8, &n->slots[off]) < 0)
		return 1;
	/* a sibling entry: the multi-index entry's first slot */
	if ((x & 3) == 2 && x < ((XA_CHUNK - 1) << 2)) {
		off = (x >> 2) & (XA_CHUNK - 1);
		if (bpf_probe_read_kernel(&x, 8, &n->slots[off]) < 0)
			return 1;
	}
	w->bad = 0;
	w->e = x;
	return 0;
}

/* The folio holding page @idx of the page cache @mapping: its first
 * index << 4 | its order, + 1; 0: none.  A global function, verified
 * once for its three uses. */
__noinline __u64 folio_span(__u64 mapping, __u64 idx)
{
	struct address_space *m = (struct address_space *)mapping;
	struct xa_walk *w = xa_walk_state();
	__u64 e = 0, flags = 0, first = 0;
	__u32 nr = 0, order = 0;

	if (!m || !w)
		return 0;
	w->e = (__u64)BPF_CORE_READ(m, i_pages.xa_head);
	w->idx = idx;
	w->bad = 0;
	bpf_loop(8, xa_down, NULL, 0);
	e = w->e;
	/* a value entry (low bit 1) is a shadow of an evicted folio */
	if (w->bad || (e & 3) != 0 || e <= 4096)
		return 0;
	if (bpf_probe_read_kernel(&flags, 8, &((struct folio *)e)->flags) < 0 ||
	    bpf_probe_read_kernel(&first, 8, &((struct folio *)e)->index) < 0)
		return 0;
	if (flags & (1UL << PG_HEAD_))
		bpf_probe_read_kernel(&nr, 4, &((struct folio *)e)->_nr_pages);
	while (order < 9 && (1u << (order + 1)) <= nr)
		order++;
	if (first > idx || first + (1ULL << order) <= idx)
		return 0;
	return ((first << 4) | order) + 1;
}

SEC("raw_tp/page_fault_user")
int BPF_PROG(iotape_mpf, unsigned long address, struct pt_regs *regs, unsigned long error_code)
{
	struct tstate *fl;
	struct fmb_key k;
	struct fmb *b;
	__u64 blk, idx, sp, t0;

	if (!fmb_live)
		return 0;
	fl = followed(bpf_get_current_task_btf());
	if (!fl || fl->st != BE_TID_ON)
		return 0;
	t0 = rec_start(fl);
	k.blk = address >> FMB_SHIFT;
	b = bpf_map_lookup_elem(&fmblk, &k);
	if (!b || address < b->start || address >= b->end)
		return rec_end(fl, t0);
	blk = k.blk << FMB_SHIFT;
	idx = (__u64)(b->base + (__s64)((address - blk) >> 12));
	/* a store through a shared mapping faults on each folio not yet
	 * writable since it was last cleaned (msync, writeback): written,
	 * even when it was dirty already (writeback_dirty_folio does not
	 * fire then); the fault maps the cached folio whole, writable */
	if ((error_code & 2) && b->shared_w) {
		__u64 first = idx, last = idx;

		folio_range(b->mkey, idx, &first, &last);
		mpage_note(fl, b->mkey, first, last, BE_MP_DIRTY);
	}
	/* the whole block inside the mapping and lined up with the file's
	 * 2 MiB blocks: what a huge mapping needs */
	if (b->small || blk < b->start || blk + (PMD_PAGES << 12) > b->end || b->base < 0 ||
	    (b->base & (PMD_PAGES - 1)))
		return rec_end(fl, t0);
	sp = folio_span(b->mkey, idx);
	if (sp && ((sp - 1) & 15) != 9)
		b->small = 1;
	if (sp && ((sp - 1) & 15) == 9)
		mpage_note(fl, b->mkey, (sp - 1) >> 4, ((sp - 1) >> 4) + PMD_PAGES - 1, 0);
	return rec_end(fl, t0);
}

#endif
