/*
 * common.bpf.h - what the two objects of the bpf backend share: the
 * programs every recording loads (iotape.bpf.c) and those loaded when a
 * followed program first makes an io_uring ring (uring.bpf.c).  The maps
 * here are created once, by the first object's load; the second object
 * is given the same maps by descriptor (record/bpf_uring.c), so its
 * records go into the same ring, in order with the calls' own, and it
 * sees the same followed tasks.
 */
#ifndef IOT_COMMON_BPF_H
#define IOT_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "event.h"

/* argument handling per kind, set by the recorder (record/bpf.c) */
#define BK_PLAIN	0
#define BK_STR		1	/* PATH, PATH2, STR2 */
#define BK_IOV		2	/* IOVLEN: args[i] iovecs, args[i+1] of them */
#define BK_OFFPTR	3
#define BK_OPENHOW	4
#define BK_CLONE3	5
#define BK_TIMESPEC	6	/* a timeout's pointer: ns, as iot_timeout_ns() */
#define BK_TIMEVAL	7
#define BK_SOCKADDR	8	/* bind, connect: sa_family; an AF_UNIX one's
				 * sun_path as a string */
#define BK_FLOCK	9	/* fcntl's third: with a lock command, the
				 * struct flock into args[3..5]
				 * (iot_flock_pack()) */
#define BK_IOCFLAGS	10	/* ioctl's third: with FS_IOC_SETFLAGS or
				 * FS_IOC_FSSETXATTR, the flags it points
				 * at into args[3]; with FICLONERANGE, its
				 * struct into args[2..5] (IOT_CLONE_*); with
				 * btrfs's subvolume calls, its flags and fd
				 * into args[2..3], its name a string
				 * (IOT_SUBVOL_*) */
#define AF_UNIX_	1

#define NR_MMAP		9
#define NR_PIPE		22
#define NR_PIPE2	293
#define NR_SOCKETPAIR	53
#define NR_CONNECT	42
#define NR_ACCEPT	43
#define NR_ACCEPT4	288
#define NR_SENDMSG	46
#define NR_RECVMSG	47
#define NR_OPEN		2
#define NR_CREAT	85
#define NR_OPENAT	257
#define NR_OPENAT2	437
#define NR_STAT		4
#define NR_LSTAT	6
#define NR_NEWFSTATAT	262
#define NR_STATX	332
#define NR_EXECVE	59
#define NR_CLONE	56
#define NR_FORK		57
#define NR_VFORK	58
#define NR_EXIT		60
#define NR_EXIT_GROUP	231
#define NR_CLONE3	435
#define NR_EXECVEAT	322
#define NR_IO_SETUP	206
#define NR_IO_GETEVENTS	208
#define NR_IO_SUBMIT	209
#define NR_IO_PGETEVENTS 333
#define NR_IO_URING_SETUP	425
#define NR_IO_URING_ENTER	426
#define NR_IO_URING_REGISTER	427
#define FMODE_CREATED_	(1u << 20)
#define SIGKILL_	9
#define MAP_ANON	0x20
#define TS_COMPAT_BIT	0x0002
#define IOV_MAX_SUM	1024
#define PATH_DEPTH	32
#define NAME_MAX_	256

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - __builtin_offsetof(type, member)))
#endif

#define CLONE_VM_	0x00000100ULL
#define CLONE_FS_	0x00000200ULL
#define CLONE_FILES_	0x00000400ULL
#define CLONE_VFORK_	0x00004000ULL
#define CLONE_THREAD_	0x00010000ULL


struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 20);	/* resized by the recorder */
} rb SEC(".maps");

/* counts per CPU: records the programs could not write (BE_CNT_DROPS),
 * switches back in that the kernel did not trace (BE_CNT_UNSEEN_IN) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BE_CNT_N);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/* Per followed task (task storage: one lookup from the task itself, no
 * hash, freed with the task): followed at all, and its call in flight. */
struct tstate {
	__u32 st;			/* BE_TID_ON, BE_TID_EXEC (0: no longer) */
	__u32 busy;			/* a call is in flight: */
	__u64 args[6];
	__s32 nr;
	__u32 fault;			/* bit j: string j unread at entry */
	__u8 sarg[2];
	__u8 aio_tail;			/* the exit tail-called libaio's (aio.bpf.c) */
	__u8 estr;			/* BE_CALL's estr: the arguments whose
					 * strings were empty */
	__u32 one;			/* no strings: one BE_CALL record at exit */
	__u64 t_enter;
	__u64 dargs[6];			/* args as decoded at entry, for BE_CALL */
	__u64 t_held;			/* the guard's filter ran for: */
	__s32 held_nr;
	__u32 held;			/* ns it held the call in flight */
	__u64 t_off;			/* switched out in the call in flight */
	__u64 off_ns;			/* ... off a CPU in it so far */
	__u64 run_off;			/* ... its se.sum_exec_runtime then */
	__u64 t_slept;			/* asleep on a disk between calls since */
	__u64 slept_ns;			/* ... so since its last recorded call */
	__u32 slept;			/* ... taken at the entry, for BE_CALL */
	__u32 in_fast;			/* in a call the fast path logs (2: an mmap) */
	__s64 fast_nr, fast_rv;		/* the last such call to leave the kernel,
					 * + 1 (0: none), and its result: for
					 * left_call() */
	__u32 woke;			/* woke's ns, taken at the entry, for BE_CALL */
	__u32 waited;			/* waited's ns, likewise */
	__u32 cwaker;			/* the followed task that last woke it
					 * in the call in flight (its tid; 0:
					 * none, or a task not followed) */
	__u64 t_vslept;			/* asleep voluntarily between calls since */
	__u64 waited_ns;		/* ... so since its last recorded call */
	__u64 t_woke;			/* ... and last woken then (0: not since
					 * its last recorded call) */
	__u64 t_in;			/* switched in last (0: not seen) */
	__u64 run_in;			/* ... its se.sum_exec_runtime then */
	__u64 rec_ns;			/* the fault programs' time in it
					 * outside its calls (mpages.bpf.h),
					 * and the exit's slow runs
					 * (iotape.bpf.c's exit_tail()) */
	__u64 rec_runs;			/* ... their runs so timed */
	__u32 soff;			/* crec's strings' bytes */
	__u32 gwaker;			/* the followed task that last woke it
					 * from a voluntary sleep between calls,
					 * from a call that wakes others (its tid;
					 * 0: none), to its next call's exit */
	__u64 t_ready;			/* runnable, not running, between calls
					 * since (preempted, or woken) */
	__u64 ready_ns;			/* ... so since its last recorded call */
	__u32 ready;			/* ... taken at the entry, for BE_CALL */
	__u32 gone;			/* st went 0 at its exit: still a waker
					 * (iotape.bpf.c's waker_tid()) */
	__u8 crec[BE_CREC_BYTES];	/* one == 2: the call's BE_CALLSTR record,
					 * its strings read at entry */
};	/* = struct be_tstate of event.h */

/* Programs the first object's exit tail-calls (aio.bpf.c's exit, loaded
 * at a followed task's first io_setup) and that one's way back to it;
 * filled by the recorder (record/bpf_aio.c) */
#define TAIL_AIO_EXIT	0
#define TAIL_EXIT	1

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u32);
} tails SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tstate);
} tstate SEC(".maps");

static __always_inline struct tstate *followed(struct task_struct *t)
{
	struct tstate *s = bpf_task_storage_get(&tstate, t, 0, 0);

	return s && s->st ? s : NULL;
}

/* A per-CPU map of one @vtype, @map, and @fn() that finds it: where a
 * bpf_loop()'s state lives, so that the verifier tracks no value of it
 * from one step to the next and checks each step once. */
#define LOOP_STATE(map, vtype, fn)						\
	struct {								\
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);			\
		__uint(max_entries, 1);						\
		__type(key, __u32);						\
		__type(value, vtype);						\
	} map SEC(".maps");							\
	static __always_inline vtype *fn(void)					\
	{									\
		__u32 k = 0;							\
										\
		return bpf_map_lookup_elem(&map, &k);				\
	}

#define SCRATCH_BYTES (sizeof(struct be_enter) + 3 * BE_STR_MAX + BE_ARGV_MAX + NAME_MAX_)

/* The decoding of a call's arguments at entry, one bpf_loop() step per
 * argument: its state lives here, in map memory, not on the stack, so the
 * verifier checks the step once (as the exe walk's below) instead of each
 * argument's every kind on every path through the ones before it (an
 * open-coded loop was 4,300 instructions and 5-10 ms of verification per
 * recording). */
struct argwork {
	__u32 nr;
	__u32 off;			/* in be_enter's data: where the next string goes */
	__u32 fault;			/* bit j: string j unread */
	__u32 pad;
};

struct scratch {
	char b[SCRATCH_BYTES];
	struct argwork w;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

static __always_inline void count_one(__u32 k)
{
	__u64 *n = bpf_map_lookup_elem(&drops, &k);

	if (n)
		*n += 1;
}

static __always_inline void count_drop(void)
{
	count_one(BE_CNT_DROPS);
}

static __always_inline struct scratch *scratch_all(void)
{
	__u32 k = 0;

	return bpf_map_lookup_elem(&scratch, &k);
}

static __always_inline void *scratch_buf(void)
{
	return scratch_all();
}

/* Non-zero: no record wakes the recorder, which drains on a short timer
 * (0: the kernel's own wake-up, for a record written into an empty
 * ring); the last followed task's end (with the fast path: any task's)
 * and the mixed backend's flush wake it at once.  (It was "wake once this
 * many bytes wait", through bpf_ringbuf_query() at every record; but
 * without a flag the kernel wakes the reader only for a record written
 * into an empty ring, so past the mark no record woke it: the timer did
 * all the draining, and the query cost a helper call a record.) */
const volatile __u64 wake_bytes = 0;

/*
 * x86_64's struct pt_regs up to ip: the user ABI's layout (asm/ptrace.h),
 * fixed, so read without CO-RE relocations.  Each relocated type costs the
 * load a search of the kernel's BTF for its name unless the kernel's
 * cache of 31 names holds it, and "pt_regs" and "linux_binprm" share a
 * slot there: every recording searched for both.  The verifier still
 * checks each load against the kernel's own pt_regs.
 */
struct uregs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di, orig_ax, ip;
};

/* @rec of @len bytes into the ring; @max: @rec's buffer's size */
static __always_inline int emit_max(void *rec, __u64 len, __u64 max, int force)
{
	__u64 fl = 0;

	if (len > max)
		len = max;
	if (force)
		fl = BPF_RB_FORCE_WAKEUP;
	else if (wake_bytes)
		fl = BPF_RB_NO_WAKEUP;
	if (bpf_ringbuf_output(&rb, rec, len, fl) < 0) {
		count_drop();
		return -1;
	}
	return 0;
}

static __always_inline int emit(void *rec, __u64 len, int force)
{
	return emit_max(rec, len, SCRATCH_BYTES, force);
}

static __always_inline void hdr(struct be_hdr *h, __u32 type)
{
	__u64 pt = bpf_get_current_pid_tgid();

	h->type = type;
	h->t = bpf_ktime_get_ns();
	h->pid = pt >> 32;
	h->tid = (__u32)pt;
}

/* hdr() for the current task @task at @t: its ids by plain loads, not a
 * helper call (the entry and exit programs run on every call) */
static __always_inline void hdr_task(struct be_hdr *h, __u32 type, struct task_struct *task,
				     __u64 t)
{
	h->type = type;
	h->t = t;
	h->pid = (__u32)task->tgid;
	h->tid = (__u32)task->pid;
}

struct iov_ctx {
	__u64 base, sum;
};

/* (unused in aio.bpf.c) */
static __attribute__((unused)) long iov_one(__u64 i, void *arg)
{
	struct iov_ctx *c = arg;
	__u64 v[2] = { 0, 0 };

	if (bpf_probe_read_user(v, sizeof(v), (void *)(c->base + i * 16)) < 0)
		return 1;
	c->sum += v[1];
	return 0;
}

/*
 * The struct file behind the current task's descriptor @fd (0: none), as
 * a number.  A global function: the verifier checks it once, on its own,
 * not at each of its three uses in the exit program.
 */
__noinline __u64 fd_file(int fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct file **fds = BPF_CORE_READ(task, files, fdt, fd);
	struct file *f = NULL;

	/* (BPF_CORE_READ()'s helper calls, not plain loads through the
	 * typed task: the verifier checks each load of a pointer from a
	 * trusted one by a search of the kernel's BTF by name, which cost
	 * every recording's load ~2 ms for the three calls an open saved) */
	if (fd < 0 || !fds)
		return 0;
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	return (__u64)f;
}

#endif
