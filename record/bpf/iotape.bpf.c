/*
 * iotape.bpf.c - the BPF side of `iotape record --backend bpf`: follow the
 * recorded process tree and log its recorded syscalls into a ring buffer,
 * with no stop of the program.
 *
 * Raw tracepoints, so no tracefs mount is needed; plain ones (raw_tp/)
 * where the task is the current one and no argument is read through a
 * typed pointer at every event, BTF-typed ones (tp_btf/) elsewhere: the
 * kernel checks a tp_btf program's target by two searches of its whole
 * BTF by name (~0.5 ms of each recording's load a program):
 *   sched_process_fork  a traced task's new task joins the set before it
 *                       first runs (the hook runs in the parent, before
 *                       wake_up_new_task)
 *   sys_enter/sys_exit  calls of the table (map sysinfo, filled by the
 *                       recorder from format/syscalls.def: the seccomp
 *                       filter's set): arguments, strings, results
 *   sched_process_exec  the new image's path and argv
 *   sched_process_exit  wait status, CPU times
 * and, in mpages.bpf.h, the pages of file mappings (page faults, the
 * page cache's tracepoints).  io_uring's programs are another object,
 * uring.bpf.c, loaded when first needed; what both use is common.bpf.h.
 * What the ptrace path reads from the tracee's memory at the entry stop is
 * read here at entry: path strings, iovec sums, the loff_t behind an
 * offset pointer, open_how, clone3's flags.  A string whose page is not
 * in yet cannot be read here (no faults in this context): it is read
 * again at exit, and if that fails too it is sent as BE_FAULT, never
 * guessed.  Every record that cannot be written (ring full, a map full)
 * is counted per CPU in map drops, which the recorder adds to the trace's
 * dropped count.
 */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* read-only data, written by the recorder before the load: no map
 * update per syscall number, no lookup per call */
const volatile struct be_sysinfo sysinfo[BE_NR_MAX] = {};

/* followed tasks alive, for the recorder to know when all are gone */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __s64);
} live SEC(".maps");

/* ... the count after adding @n (0 when the map is not there) */
static __always_inline __s64 live_add(__s64 n)
{
	__u32 k = 0;
	__s64 *v = bpf_map_lookup_elem(&live, &k);

	return v ? __sync_fetch_and_add(v, n) + n : 0;
}

/*
 * With the fast path (--backend mixed): the address after the syscall
 * instruction of its stub (record/fastpath/fp.h), whose calls the
 * preloaded library logs in-process; 0 without it.  Those are skipped,
 * but for a vfork child's (vfork_done set until it execs or ends): it
 * shares its parent's memory and TLS, so the library writes its calls
 * into the parent's ring under the parent's tid, where the recorder
 * drops them, and here they are logged under its own.  The library's
 * "ring full" close(FP_FLUSH_FD) is no call of the program's.
 */
const volatile __u64 stub_ip = 0;
#define FP_FLUSH_FD_	(-4242)
#define NR_CLOSE	3

static __always_inline int fast_logged(struct task_struct *task, const struct uregs *regs)
{
	return stub_ip && regs->ip == stub_ip && !task->vfork_done;
}

/* a string argument into @data at *@off; @return : its length field.
 * Offsets are masked so the verifier sees every write inside the
 * scratch buffer (strings start at most BE_STR_MAX in). */
static __always_inline __u32 read_str(char *data, __u32 *off, __u64 ptr)
{
	long n;
	__u32 o = *off & (2 * BE_STR_MAX - 1);

	if (!ptr)
		return BE_NOSTR;
	if (o > BE_STR_MAX)
		return BE_FAULT;
	n = bpf_probe_read_user_str(data + o, BE_STR_MAX, (void *)ptr);
	if (n <= 0)
		return BE_FAULT;
	*off = o + (((__u32)n + 7) & ~7u);
	return (__u32)n - 1;
}

/*
 * The guard's stop (record/bpf_guard.c) holds a call in the seccomp
 * filter, before the sys_enter tracepoint: the time from the stop to the
 * call's entry is the recorder's, not the program's think time.  Seccomp
 * has no tracepoint and is built without ftrace (no fentry) or kprobes
 * here; what marks the stop is the task going to sleep in a call the
 * guard may stop (sysinfo's guard) before its sys_enter (not busy), not
 * in the fast path's stub (which times its own calls).  Nothing else
 * sleeps between seccomp and sys_enter.  Runs at every context switch:
 * a task without storage leaves at the first test.
 */
#define TASK_INTERRUPTIBLE_	0x1
#define TASK_UNINTERRUPTIBLE_	0x2

/* The end of a sleep between calls begun at t_slept, at its wake-up
 * (the wait for a CPU after it is not the program's sleep) or, if that
 * was not seen, its switch in */
static __always_inline void slept_end(struct tstate *s, __u64 now)
{
	if (now > s->t_slept)
		s->slept_ns += now - s->t_slept;
	s->t_slept = 0;
}

/*
 * Between recorded calls, a task that goes to sleep uninterruptibly
 * waits on a disk: the major page faults of its program and libraries,
 * reclaim, a lock held over I/O.  A replay that spins the CPU part of
 * the gap drops that time; it is summed here and written on the next
 * recorded call (slept).  Not a voluntary sleep (futex, poll: another
 * thread's or the world's pace, which the replay's own order gives),
 * not preemption, not inside a call (off_ns), nor inside a call the
 * fast path logs (the stub times it), nor the guard's hold (pre_ns).
 */
static __always_inline int gap_sleep(const struct tstate *fl, bool preempt,
				     unsigned int prev_state)
{
	return fl && fl->st == BE_TID_ON && !fl->busy && !fl->in_fast && !preempt &&
		(prev_state & TASK_UNINTERRUPTIBLE_);
}

/*
 * A task asleep voluntarily between recorded calls (a futex, a condition
 * variable: nothing the trace holds) waits for another thread, or for
 * time.  When it is woken is what tells the one that woke it (the
 * replay's wakes.c): its next call may come long after, when it gets a
 * CPU (fio's job threads, posted together after a 100 ms sleep, each
 * came 0.05-0.4 ms after it on a quiet machine, 1.3-5.4 ms at load 5-9,
 * the other CPU taken).  The last such wake-up before the call is kept
 * (t_woke) and written with the call (woke: ns before its entry).
 */
static __always_inline int gap_vsleep(const struct tstate *fl, bool preempt,
				      unsigned int prev_state)
{
	return fl && fl->st == BE_TID_ON && !fl->busy && !fl->in_fast && !preempt &&
		(prev_state & TASK_INTERRUPTIBLE_);
}

/*
 * ... and a followed task switched out runnable between recorded calls
 * (preempted, or yielding) waits for a CPU until its switch in
 * (ready_ns): not its code, nor a sleep of its own.
 */
static __always_inline int gap_ready(const struct tstate *fl, bool preempt,
				     unsigned int prev_state)
{
	return fl && fl->st == BE_TID_ON && !fl->busy && !fl->in_fast &&
		(preempt || prev_state == 0);
}

/*
 * A followed task asleep in a call (a poll, a lock) is being woken: by
 * whom, if a followed task (the one running here: its send to the socket
 * polled, its unlock, its signal), so that the replay
 * makes the call return after that task's last call before it
 * (replay/wakes.c).  sched_waking runs in the waker, sched_wakeup may
 * not: a wake-up of a task on another CPU is queued to that CPU and
 * traced there, from whatever it was running.  A wake-up from an
 * interrupt finds the task it interrupted (a poll's timeout expiring in
 * a timer interrupt, a disk's completion, name whatever followed task
 * ran then: the recorder keeps the waker only of calls that wait for
 * other tasks, bpf_events.c's waker_kept()); the kernel's
 * preempt count, which would tell, is a per-CPU symbol that kallsyms
 * lacks without CONFIG_KALLSYMS_ALL, and counting the interrupts' entries
 * and exits (six more programs and a map) made the skeleton's loader
 * program fail the verifier.
 */
/*
 * Whether task @cur, which is waking another, does so from a call that
 * wakes others: a futex wake (a mutex, a condition variable, a semaphore
 * in shared memory: a server's forked workers share theirs), a write or
 * send to what the other waits on, a close of its other end, a signal,
 * an exit (a joined thread's), a SysV semaphore or message.  A wake-up
 * from an interrupt that came in the task's own code finds no call
 * (orig_ax is -1 in the frame the interrupt made; a timer's expiry, a
 * disk's completion).  One that came inside such a call names that task
 * wrongly: the call's time is a small share of a task's.
 */
static __always_inline int waking_call(struct task_struct *cur)
{
	const struct uregs *u = (const struct uregs *)bpf_task_pt_regs(cur);

	if (!u)
		return 0;
	switch ((long)u->orig_ax) {
	case 0: case 1: case 3: case 19: case 20:	/* read write close readv writev */
	case 42: case 44: case 45: case 46: case 47:	/* connect sendto recvfrom sendmsg recvmsg */
	case 48: case 60: case 62: case 65: case 69:	/* shutdown exit kill semop msgsnd */
	case 129: case 200: case 202: case 220:		/* rt_sigqueueinfo tkill futex semtimedop */
	case 231: case 234: case 242: case 297:		/* exit_group tgkill mq_timedsend rt_tgsigqueueinfo */
	case 307: case 424: case 454: case 456:		/* sendmmsg pidfd_send_signal futex_wake futex_requeue */
		return 1;
	}
	return 0;
}

/*
 * ... and a followed task asleep voluntarily between its recorded calls
 * (in a futex, a semaphore: a call the trace does not hold) is being
 * woken: by whom, if a followed task in a call that wakes others, so
 * that the replay makes its next call come after that task's last call
 * before the wake-up (replay/wakes.c), whichever process it is of (a
 * server's workers, forked without an exec, wait for each other's locks
 * in the memory they share).  Kept until the next call's records, which
 * carry it where the gap's wake-up (woke) is there.
 */
/*
 * The tid of @cur as a waker: a followed task, or one that was and is
 * ending.  A thread's end wakes the thread that joins it (its
 * CLONE_CHILD_CLEARTID futex, from exit_mm()), and on this kernel
 * sched_process_exit fires before that (6.18: before exit_mm()),
 * where iotape_gone() has stopped following it.
 */
static __always_inline __u32 waker_tid(struct task_struct *cur)
{
	struct tstate *w = bpf_task_storage_get(&tstate, cur, 0, 0);

	return w && (w->st || w->gone) ? (__u32)cur->pid : 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(iotape_waking, struct task_struct *p)
{
	struct tstate *s = followed(p);
	struct task_struct *cur;

	if (!s || (!s->busy && !s->t_vslept))
		return 0;
	cur = bpf_get_current_task_btf();
	if (s->busy)
		s->cwaker = cur != p ? waker_tid(cur) : 0;
	else
		s->gwaker = cur != p && waking_call(cur) ? waker_tid(cur) : 0;
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(iotape_woken, struct task_struct *p)
{
	struct tstate *s = followed(p);
	__u64 now;

	if (!s || (!s->t_slept && !s->t_vslept))
		return 0;
	now = bpf_ktime_get_ns();
	if (s->t_slept)
		slept_end(s, now);
	if (s->t_vslept) {
		if (now > s->t_vslept)
			s->waited_ns += now - s->t_vslept;
		s->t_woke = now;
		s->t_vslept = 0;
	}
	/* runnable from here to its switch in: waiting for a CPU */
	if (!s->busy && !s->t_ready)
		s->t_ready = now;
	return 0;
}

/*
 * A call's task, switched out at t_off in it (run_off: its run time then),
 * is found on a CPU again at @now, its run time @run, with no switch in
 * between: the kernel resumed it without the sched_switch tracepoint (seen
 * here on 6.18 about once in 400 short sleeps on a loaded machine: the
 * kernel's own trace event was missing too).  The run time the scheduler
 * counted since the switch out was on a CPU (it is exact at a switch out,
 * up to a tick behind otherwise), the rest of the time off it; without
 * this, the whole sleep was counted on a CPU.  Counted (BE_CNT_UNSEEN_IN)
 * for the recorder's summary.
 */
static __always_inline void unseen_in(struct tstate *fl, __u64 now, __u64 run)
{
	__u64 ran = run > fl->run_off ? run - fl->run_off : 0;
	__u64 d = now > fl->t_off ? now - fl->t_off : 0;

	fl->off_ns += d > ran ? d - ran : 0;
	fl->t_off = 0;
	count_one(BE_CNT_UNSEEN_IN);
}

/*
 * A followed task switched in: its call's time off a CPU, or its sleep
 * between calls, ends; and its run time as the scheduler counted it up
 * to here (@run: exact, its last switch out brought it up to date) is
 * kept with the time, for its end (iotape_gone).  A global function,
 * checked once on its own: in the switch program, its branches were
 * walked again for each of the switched-out task's (816 instructions
 * processed for 157).
 */
__noinline int switched_in(struct tstate *in, __u64 run)
{
	__u64 now;

	if (!in)
		return 0;
	now = bpf_ktime_get_ns();
	in->t_in = now;
	in->run_in = run;
	if (in->t_off) {
		if (in->busy && now > in->t_off)
			in->off_ns += now - in->t_off;
		in->t_off = 0;
	}
	if (in->t_slept)
		slept_end(in, now);
	if (in->t_ready) {
		if (!in->busy && now > in->t_ready)
			in->ready_ns += now - in->t_ready;
		in->t_ready = 0;
	}
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(iotape_held, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct tstate *fl, *in = followed(next);
	const struct uregs *u;
	__u64 now = 0;
	int gap;
	long nr;

	/* a call's time off a CPU, asleep or preempted, from when its task
	 * is switched out to when it is switched in: not its CPU time */
	if (in)
		switched_in(in, next->se.sum_exec_runtime);
	fl = followed(prev);
	if (!fl)
		return 0;
	gap = gap_sleep(fl, preempt, prev_state);
	if (fl->busy || gap)
		now = bpf_ktime_get_ns();
	if (fl->busy) {
		__u64 run = prev->se.sum_exec_runtime;

		if (fl->t_off)
			unseen_in(fl, now, run);
		fl->t_off = now;
		fl->run_off = run;
	}
	if (gap && !fl->t_slept)
		fl->t_slept = now;
	if (gap_ready(fl, preempt, prev_state) && !fl->t_ready) {
		if (!now)
			now = bpf_ktime_get_ns();
		fl->t_ready = now;
	}
	if (gap_vsleep(fl, preempt, prev_state) && !fl->t_vslept) {
		if (!now)
			now = bpf_ktime_get_ns();
		fl->t_vslept = now;
	}
	/* asleep, not preempted nor switched out on its way back to user
	 * mode (a call's nr is still in orig_ax there, its sys_exit run) */
	if (preempt || prev_state == 0 || fl->busy || fl->t_held)
		return 0;
	u = (const struct uregs *)bpf_task_pt_regs(prev);
	if (!u)
		return 0;
	nr = (long)u->orig_ax;
	if (nr < 0 || nr >= BE_NR_MAX || !sysinfo[nr & (BE_NR_MAX - 1)].guard)
		return 0;
	if (stub_ip && u->ip == stub_ip)
		return 0;
	fl->t_held = bpf_ktime_get_ns();
	fl->held_nr = (__s32)nr;
	/* the hold is the recorder's, counted in pre_ns */
	fl->t_slept = 0;
	fl->t_vslept = 0;
	return 0;
}

/* ns a call @nr was held, from @t0 (the stop's start, 0: none, of call
 * @t0nr) to its entry at @t (0: not held) */
static __always_inline __u32 held_ns(__u64 t0, __s32 t0nr, __u32 nr, __u64 t)
{
	if (!t0 || t0nr != (__s32)nr || t0 > t)
		return 0;
	return t - t0 < 0xffffffffULL ? (__u32)(t - t0) : 0xffffffffu;
}

/* Where the name is in the struct of btrfs's subvolume ioctl @req
 * (iot_subvol_call()): 8, 56 in a _V2's; 0: not one of them */
static __always_inline __u32 subvol_name_off(__u32 req)
{
	if (req == 0x5000940e || req == 0x50009401 || req == 0x5000940f)
		return 8;
	if (req == 0x50009418 || req == 0x50009417 || req == 0x5000943f)
		return 56;
	return 0;
}

/*
 * Argument @i of the call in the scratch record at entry, by its kind:
 * a string read into the record's data, an iovec array summed, the
 * loff_t behind an offset pointer, open_how, clone3's flags (plain
 * arguments are left as they are).  The arguments are still the call's
 * own up to @i: the earlier steps changed only theirs (open_how writes
 * the next one, its size, which is plain).  sysinfo's nargs ends the loop
 * after the last argument that is not plain.
 */
static long arg_one(__u64 i, void *ctx)
{
	struct scratch *sc = scratch_all();
	struct be_enter *e;
	struct argwork *w;
	__u8 k;

	if (!sc || i >= 6)
		return 1;
	e = (struct be_enter *)sc->b;
	w = &sc->w;
	k = sysinfo[w->nr & (BE_NR_MAX - 1)].kind[i];
	if (k == BK_STR) {
		__u32 j = e->nstr;

		if (j >= 2)
			return 0;
		e->slen[j] = read_str(e->data, &w->off, e->args[i]);
		e->sarg[j] = (__u8)i;
		if (e->slen[j] == BE_FAULT)
			w->fault |= 1u << j;
		e->nstr = j + 1;
	} else if (k == BK_SOCKADDR) {
		/* the family; an AF_UNIX address's sun_path (the path at
		 * 2 bytes in) as a string, as the ptrace path reads it */
		__u16 fam = 0xffff;
		__u32 j = e->nstr;

		if (bpf_probe_read_user(&fam, sizeof(fam), (void *)e->args[i]) < 0)
			fam = 0xffff;
		if (fam == AF_UNIX_ && j < 2) {
			e->slen[j] = read_str(e->data, &w->off, e->args[i] + 2);
			e->sarg[j] = (__u8)i;
			if (e->slen[j] == BE_FAULT)
				w->fault |= 1u << j;
			e->nstr = j + 1;
		}
		e->args[i] = fam;
	} else if (k == BK_IOV && i < 5) {
		struct iov_ctx c = { .base = e->args[i], .sum = 0 };
		__u64 cnt = e->args[i + 1];

		if (cnt > IOV_MAX_SUM)
			cnt = IOV_MAX_SUM;
		bpf_loop((__u32)cnt, iov_one, &c, 0);
		e->args[i] = c.sum;
	} else if (k == BK_OFFPTR) {
		__s64 o = -1;

		if (e->args[i] && bpf_probe_read_user(&o, 8, (void *)e->args[i]) < 0)
			o = -1;
		e->args[i] = (__u64)o;
	} else if (k == BK_OPENHOW && i < 4) {
		/* flags, mode and resolve, in this argument and the next two
		 * (openat2's fourth is the struct's size, its fifth unused) */
		__u64 how[3] = { 0, 0, 0 };

		bpf_probe_read_user(how, sizeof(how), (void *)e->args[i]);
		e->args[i] = how[0];
		e->args[i + 1] = how[1];
		e->args[i + 2] = how[2];
	} else if (k == BK_FLOCK && i == 2) {
		/* F_GETLK, F_SETLK, F_SETLKW and the F_OFD_ three: short
		 * l_type, short l_whence, off_t l_start, off_t l_len, packed
		 * as iot_flock_pack() does; -1: not readable */
		__u32 cmd = (__u32)e->args[1];
		__s64 fl[3] = { 0, 0, 0 };

		if (cmd == 5 || cmd == 6 || cmd == 7 || cmd == 36 || cmd == 37 || cmd == 38) {
			if (bpf_probe_read_user(fl, sizeof(fl), (void *)e->args[2]) < 0) {
				e->args[3] = (__u64)-1;
				e->args[4] = e->args[5] = 0;
			} else {
				e->args[3] = (__u64)(__u16)fl[0] |
					     (__u64)(__u16)((__u64)fl[0] >> 16) << 16;
				e->args[4] = (__u64)fl[1];
				e->args[5] = (__u64)fl[2];
			}
		} else if (cmd == 1036 || cmd == 1038) {
			/* F_SET_RW_HINT, F_SET_FILE_RW_HINT: the uint64_t
			 * hint in the next argument (iot_fcntl_hint()); -1:
			 * not readable */
			__u64 v = 0;

			e->args[3] = bpf_probe_read_user(&v, sizeof(v), (void *)e->args[2]) < 0 ?
				     (__u64)-1 : v;
		}
	} else if (k == BK_IOCFLAGS && i == 2) {
		/* FS_IOC_SETFLAGS (chattr), FS_IOC_FSSETXATTR: the flags
		 * behind the pointer, in the next argument; -1: not readable */
		if ((__u32)e->args[1] == 0x40086602 || (__u32)e->args[1] == 0x401c5820) {
			__u32 v = 0;

			e->args[3] = bpf_probe_read_user(&v, sizeof(v), (void *)e->args[2]) < 0 ?
				     (__u64)-1 : (__u64)v;
		} else if ((__u32)e->args[1] == 0x4020940d) {
			/* FICLONERANGE's struct file_clone_range: src_fd,
			 * src_offset, src_length, dest_offset; the last in
			 * place of the pointer (IOT_CLONE_DEST); src_fd -1:
			 * not readable */
			__u64 r[4] = { (__u64)-1, 0, 0, 0 };

			if (bpf_probe_read_user(r, sizeof(r), (void *)e->args[2]) < 0)
				r[0] = (__u64)-1;
			e->args[2] = r[3];
			e->args[3] = r[0];
			e->args[4] = r[1];
			e->args[5] = r[2];
		} else if (subvol_name_off((__u32)e->args[1])) {
			/* btrfs's subvolume calls (iot_subvol_call()): the
			 * struct's flags in place of the pointer (-1: not
			 * readable), its fd next, its name as a string */
			__u32 off = subvol_name_off((__u32)e->args[1]), j = e->nstr;
			__u64 hd[3] = { 0, 0, 0 };	/* fd, transid, flags (_v2) */

			if (bpf_probe_read_user(hd, off == 8 ? 8 : sizeof(hd), (void *)e->args[2]) < 0) {
				e->args[3] = (__u64)-1;
				e->args[2] = (__u64)-1;
			} else {
				if (j < 2) {
					e->slen[j] = read_str(e->data, &w->off, e->args[2] + off);
					e->sarg[j] = 2;
					if (e->slen[j] == BE_FAULT)
						w->fault |= 1u << j;
					e->nstr = j + 1;
				}
				e->args[3] = hd[0];
				e->args[2] = off == 8 ? 0 : (__u32)hd[2];
			}
		}
	} else if (k == BK_CLONE3) {
		__u64 v = 0;

		if (bpf_probe_read_user(&v, 8, (void *)e->args[i]) < 0)
			v = 0;
		e->args[i] = v;
	} else if (k == BK_TIMESPEC || k == BK_TIMEVAL) {
		/* the time it holds at entry, in ns, as ptrace reads it
		 * (iot_timeout_ns()): -1 NULL or unreadable, 0 negative */
		__s64 ts[2] = { 0, 0 };
		__s64 v = -1;

		if (e->args[i] && bpf_probe_read_user(ts, sizeof(ts), (void *)e->args[i]) == 0) {
			if (ts[0] < 0 || ts[1] < 0)
				v = 0;
			else if (ts[0] >= 9223372036LL - 1)
				v = 0x7fffffffffffffffLL;
			else
				v = ts[0] * 1000000000LL + (__s64)(k == BK_TIMEVAL ?
					(__u64)ts[1] % 1000000 * 1000 : (__u64)ts[1] % 1000000000);
		}
		e->args[i] = (__u64)v;
	}
	return 0;
}

/* Were the entry record @e's strings all empty or NULL?  1: yes, and
 * @fl's estr has the arguments of the empty ones.  A global function,
 * checked once on its own. */
__noinline int empty_strs(struct be_enter *e, struct tstate *fl)
{
	__u32 j, n;
	__u8 bits = 0;

	if (!e || !fl)
		return 0;
	n = e->nstr;
	for (j = 0; j < 2; j++) {
		if (j >= n)
			break;
		if (e->slen[j] == 0)
			bits |= 1u << (e->sarg[j] & 7);
		else if (e->slen[j] != BE_NOSTR)
			return 0;
	}
	fl->estr = bits;
	return 1;
}

/*
 * A call of sysinfo's one whose strings were read at entry and are not
 * all empty or NULL (newfstatat, utimensat, the xattr calls, readlink,
 * mkdir, unlink...): its strings (@off bytes in @e's data) go into the
 * task's BE_CALLSTR record, which its exit completes and writes, one
 * ring record for the call in place of an entry and an exit record
 * (two reservations, two headers, and two records for the recorder to
 * read).  @return : 2 (fl->one: the record is kept), 0 if not (strings
 * of BE_CREC_STR bytes or more: the entry record goes out as before).
 */
static __always_inline __u32 keep_strs(struct be_enter *e, struct tstate *fl, __u32 off)
{
	struct be_callstr *r = (struct be_callstr *)fl->crec;

	if (!off || off >= BE_CREC_STR)
		return 0;
	/* (the compiler drops a mask it can prove idle; the verifier cannot) */
	asm volatile("%0 &= 0x7ff" : "+r"(off));
	if (bpf_probe_read_kernel(fl->crec + BE_CALLSTR_HDR, off, e->data) < 0)
		return 0;
	r->nstr = e->nstr;
	r->slen[0] = e->slen[0];
	r->slen[1] = e->slen[1];
	r->sarg[0] = e->sarg[0];
	r->sarg[1] = e->sarg[1];
	r->pad[0] = r->pad[1] = 0;
	fl->soff = off;
	return 2;
}

/* libaio's records (io_submit's iocbs at its entry, the io_events and
 * io_setup's context at the exits) are another object's, aio.bpf.c,
 * loaded at a followed task's first io_setup: its entry program runs
 * after this one's on sys_enter, its exit program is tail-called from
 * the exit below (before the call's record, which it tail-calls back to
 * write).  A plain raw tracepoint, as the exit's: the task-storage
 * look-up comes first and ends the run for every task not followed (most
 * of the machine's calls), and a followed task's registers come from
 * bpf_task_pt_regs() (the same ones the tracepoint gives, as a typed
 * pointer: plain loads after one helper call), not from a tp_btf/
 * program's typed argument, whose attach costs each recording's load a
 * search of the kernel's BTF by name. */
SEC("raw_tp/sys_enter")
int BPF_PROG(iotape_enter, void *regs_arg, long id)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct uregs *regs;
	struct tstate *fl;
	struct be_sysinfo *si;
	struct be_enter *e;
	__u32 nr, off = 0, fault = 0;
	__u64 t_held, t;

	fl = followed(task);
	if (!fl)
		return 0;
	regs = (const struct uregs *)bpf_task_pt_regs(task);
	if (!regs)
		return 0;
	if (fast_logged(task, regs)) {
		/* its gap's wake-up is not a later call's (in_fast 2: an
		 * mmap, whose file the exit follows) */
		if (fl) {
			fl->in_fast = id == NR_MMAP ? 2 : 1;
			fl->t_woke = 0;
			fl->t_vslept = 0;
			fl->waited_ns = 0;
			fl->gwaker = 0;
			fl->ready_ns = 0;
			fl->t_ready = 0;
		}
		return 0;
	}
	if (!fl)
		return 0;
	/* taken at once: a stop whose call leaves early is no later call's */
	t_held = fl->t_held;
	fl->t_held = 0;
	if (id < 0 || id >= BE_NR_MAX)
		return 0;
	nr = (__u32)id;
	if (stub_ip && nr == NR_CLOSE && (int)regs->di == FP_FLUSH_FD_) {
		struct be_hdr h;

		/* the recorder is woken to drain, as the ptrace backend
		 * drains at this call's stop */
		hdr(&h, BE_FLUSH);
		h.len = sizeof(h);
		emit(&h, sizeof(h), 1);
		return 0;
	}
	/* the program's first execve starts it: the recorder's own calls in
	 * the child before it are not the program's */
	if (fl->st == BE_TID_EXEC) {
		if (nr != NR_EXECVE && nr != NR_EXECVEAT)
			return 0;
		fl->st = BE_TID_ON;
	}
	si = (struct be_sysinfo *)&sysinfo[nr & (BE_NR_MAX - 1)];
	if (!si->rec)
		return 0;
	/* int 0x80 and x32: the table is x86_64's, as in the seccomp filter */
	if (task->thread_info.status & TS_COMPAT_BIT)
		return 0;
	/* BTF pointers: plain loads, no helper call; into the task's state
	 * (a call with no argument to decode keeps them as they are) */
	fl->args[0] = regs->di;
	fl->args[1] = regs->si;
	fl->args[2] = regs->dx;
	fl->args[3] = regs->r10;
	fl->args[4] = regs->r8;
	fl->args[5] = regs->r9;
	/* anonymous mappings are memory, not files */
	if (nr == NR_MMAP && ((fl->args[3] & MAP_ANON) || (__s32)fl->args[4] < 0))
		return 0;
	/* (what is computed goes straight into the task's state, map
	 * memory: values the verifier would track in registers through the
	 * rest of the program would multiply the paths it walks) */
	t = bpf_ktime_get_ns();
	fl->held = held_ns(t_held, fl->held_nr, nr, t);
	/* the gap's sleep goes with the first recorded call after it */
	fl->slept = fl->slept_ns < 0xffffffffULL ? (__u32)fl->slept_ns : 0xffffffffu;
	fl->slept_ns = 0;
	/* the gap's last wake-up, if any (at least 1: 0 is none) */
	fl->woke = 0;
	if (fl->t_woke && t >= fl->t_woke)
		fl->woke = t - fl->t_woke >= 0xffffffffULL ? 0xffffffffu :
			   t > fl->t_woke ? (__u32)(t - fl->t_woke) : 1;
	fl->waited = fl->waited_ns < 0xffffffffULL ? (__u32)fl->waited_ns : 0xffffffffu;
	fl->t_woke = 0;
	fl->t_vslept = 0;
	fl->waited_ns = 0;
	/* the gap's wait for a CPU (a switch in not traced leaves t_ready
	 * set: that wait is not counted) */
	fl->ready = fl->ready_ns < 0xffffffffULL ? (__u32)fl->ready_ns : 0xffffffffu;
	fl->ready_ns = 0;
	fl->t_ready = 0;
	fl->nr = (__s32)nr;
	fl->t_enter = t;
	fl->cwaker = 0;
	fl->t_off = 0;
	fl->off_ns = 0;
	/* nothing to decode, one record at the exit (sysinfo's plain: read,
	 * write, close, lseek, fstat...): only the task's state is written
	 * here, no record, no scratch (this program runs on every call) */
	if (si->plain) {
		fl->fault = 0;
		fl->busy = 1;
		fl->one = 1;
		fl->estr = 0;
		__builtin_memcpy(fl->dargs, fl->args, sizeof(fl->dargs));
		return 0;
	}
	e = scratch_buf();
	if (!e)
		return 0;
	__builtin_memcpy(e->args, fl->args, sizeof(e->args));
	hdr_task(&e->h, BE_ENTER, task, t);
	e->held = fl->held;
	e->slept = fl->slept;
	e->woke = fl->woke;
	e->waited = fl->waited;
	e->ready = fl->ready;
	e->gwaker = fl->woke ? fl->gwaker : 0;
	e->nr = (__s32)nr;
	e->nstr = 0;
	e->slen[0] = e->slen[1] = BE_NOSTR;
	e->sarg[0] = e->sarg[1] = 0;
	if (si->nargs) {
		struct scratch *sc = (struct scratch *)e;

		sc->w.nr = nr;
		sc->w.off = 0;
		sc->w.fault = 0;
		bpf_loop(si->nargs, arg_one, NULL, 0);
		off = sc->w.off;
		/* a value from map memory: bounded for the verifier (the
		 * compiler drops a test it can prove idle; the verifier cannot) */
		asm volatile("%0 &= 0x3fff" : "+r"(off));
		fault = sc->w.fault;
		fl->sarg[0] = e->sarg[0];
		fl->sarg[1] = e->sarg[1];
	}
	fl->fault = fault;
	fl->busy = 1;
	/* A call without strings that returns (not a process call, whose
	 * fork and exec records come between, nor an io_uring call, whose
	 * ring records do, below): one record at its exit, half
	 * the ring traffic for read, write, close, fstat...  So is one
	 * whose strings were all empty or NULL (glibc's fstat() is
	 * newfstatat(fd, "", AT_EMPTY_PATH): a third of tar's calls;
	 * futimens() is utimensat(fd, NULL)), but for the opens (their
	 * exit record brings the file they found) and execs: sysinfo's
	 * one, set by the recorder. */
	fl->estr = 0;
	fl->one = 0;
	if (si->one && e->nstr == 0)
		fl->one = 1;
	else if (si->one && !fault && !(fl->one = empty_strs(e, fl)))
		fl->one = keep_strs(e, fl, off);
	if (fl->one) {
		__builtin_memcpy(fl->dargs, e->args, sizeof(fl->dargs));
		return 0;
	}
	e->h.len = (__u32)sizeof(*e) + (off <= 2 * BE_STR_MAX ? off : 2 * BE_STR_MAX);
	emit(e, e->h.len, 0);
	return 0;
}

static __always_inline __u64 fd_ino(int fd)
{
	struct file *f = (struct file *)fd_file(fd);

	return f ? BPF_CORE_READ(f, f_inode, i_ino) : 0;
}

/*
 * Connecting Unix sockets' inodes by their struct sock, kept from their
 * connect's exit until an accept takes their connection (peer_ino()).
 * A client that sent and closed before the server accepted (a forking
 * server whose backlog was full: socat, 20 clients at once) has left its
 * sock orphaned, with no socket and so no inode to read through it: the
 * accepts were recorded with none, and the replay paired them with the
 * connects in the order its own connects happened to be queued (6
 * handlers a replay read another client's data), until 2026-12-07.  An
 * LRU map: a connection never accepted ages out.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);		/* the connecting struct sock */
	__type(value, __u64);		/* its socket's inode */
} conn_ino SEC(".maps");

/* The Unix sock of socket descriptor @fd, NULL if none */
static __always_inline struct sock *unix_sk_of(struct file *f)
{
	struct socket *so;
	struct sock *sk;

	if (!f)
		return NULL;
	so = (struct socket *)BPF_CORE_READ(f, private_data);
	sk = so ? BPF_CORE_READ(so, sk) : NULL;
	return sk && BPF_CORE_READ(sk, __sk_common.skc_family) == AF_UNIX_ ? sk : NULL;
}

/* The inode of socket descriptor @fd that connected, kept for the accept
 * of a Unix socket's connection (conn_ino) */
static __always_inline __u64 conn_sock_ino(int fd)
{
	struct file *f = (struct file *)fd_file(fd);
	struct sock *sk = unix_sk_of(f);
	__u64 ino = f ? BPF_CORE_READ(f, f_inode, i_ino) : 0, key = (__u64)sk;

	if (sk && ino)
		bpf_map_update_elem(&conn_ino, &key, &ino, BPF_ANY);
	return ino;
}

/* The inode of the socket connected to Unix socket descriptor @fd (its
 * peer), 0 if none: an accepted connection's, the connecting socket
 * (event.h: be_exit.pipe_ino), read through its socket, or kept at its
 * connect where it has none left (conn_ino) */
static __always_inline __u64 peer_ino(int fd)
{
	struct sock *sk = unix_sk_of((struct file *)fd_file(fd)), *peer;
	__u64 ino, key, *kept;

	if (!sk)
		return 0;
	peer = BPF_CORE_READ((struct unix_sock *)sk, peer);
	if (!peer)
		return 0;
	ino = BPF_CORE_READ(peer, sk_socket, file, f_inode, i_ino);
	key = (__u64)peer;
	kept = bpf_map_lookup_elem(&conn_ino, &key);
	if (kept) {
		if (!ino)
			ino = *kept;
		bpf_map_delete_elem(&conn_ino, &key);
	}
	return ino;
}

/* The call in flight's time on a CPU, entry to @t (its exit): at least
 * 1, so that 0 stays "unknown" in the trace. */
static __always_inline __u32 cpu_ns(const struct tstate *fl, __u64 t)
{
	__u64 d = t > fl->t_enter ? t - fl->t_enter : 0;

	d = d > fl->off_ns ? d - fl->off_ns : 0;
	if (!d)
		return 1;
	return d < 0xffffffffULL ? (__u32)d : 0xffffffffu;
}

/* the pages of file mappings: the section at the end of this file */
#define NR_MUNMAP_	11
#define NR_MREMAP_	25
__noinline int fmap_watch(__u64 ret, __u64 len, __u64 protflags, __s64 fd, __u64 off);
__noinline int fmap_unmap(__u64 addr, __u64 len);
static __always_inline int fmap_remap(__u64 old, __u64 olen, __u64 ret, __u64 nlen);

#define I_CTIME_QUERIED_	(1u << 31)
/* statx's mask: STATX_TYPE | MODE | NLINK | INO | SIZE, and UID | GID */
#define STATX_STATE_		0x307u
#define STATX_OWNER_		0x018u
#define INODE_HEAD		128

/* a field of the inode's head @h, at its offset on this kernel (a
 * relocated constant: the verifier sees each read inside @h) */
#define HEAD(h, type, field)	(*(const type *)((const char *)(h) + bpf_core_field_offset(field)))
#define IN_HEAD(in, field)	(bpf_core_field_offset(in->field) + sizeof(in->field) <= INODE_HEAD)

/*
 * The inode an open returned, as it is at the open's exit: the path's
 * state before the program changes it through the descriptor (ftruncate,
 * a write, fchmod, fallocate...), which the recorder's lstat() at the
 * drain, up to ~10 ms later, may come after (record/README.md, "Path
 * states").  An open that truncated has changed it already: the recorder
 * does not use it then.  The fields are read from the inode's first 128
 * bytes in one copy (a read per field cost ~0.45 us an open); a kernel
 * that keeps one elsewhere sends none (the recorder lstat()s, as
 * before), one whose inode has no seconds and nanoseconds fields (before
 * 6.7) sends no times.  The top bit of the ctime's ns is a flag of the
 * kernel's, not time.
 */
static __always_inline void open_istate(struct be_exit *x, struct file *f)
{
	struct inode *in = BPF_CORE_READ(f, f_inode);
	struct be_istate *st = &x->st;
	__u64 h[INODE_HEAD / 8];

	if (!in || !IN_HEAD(in, i_mode) || !IN_HEAD(in, i_uid) || !IN_HEAD(in, i_gid) ||
	    !IN_HEAD(in, i_ino) || !IN_HEAD(in, __i_nlink) || !IN_HEAD(in, i_size) ||
	    bpf_probe_read_kernel(h, sizeof(h), in) < 0)
		return;
	st->mode = HEAD(h, umode_t, in->i_mode);
	st->uid = HEAD(h, __u32, in->i_uid);
	st->gid = HEAD(h, __u32, in->i_gid);
	st->ino = HEAD(h, unsigned long, in->i_ino);
	st->nlink = HEAD(h, __u32, in->__i_nlink);
	st->size = (__u64)HEAD(h, loff_t, in->i_size);
	if (bpf_core_field_exists(in->i_mtime_sec) && bpf_core_field_exists(in->i_ctime_nsec) &&
	    IN_HEAD(in, i_atime_sec) && IN_HEAD(in, i_mtime_sec) && IN_HEAD(in, i_ctime_sec) &&
	    IN_HEAD(in, i_atime_nsec) && IN_HEAD(in, i_mtime_nsec) && IN_HEAD(in, i_ctime_nsec)) {
		st->atime = HEAD(h, __s64, in->i_atime_sec) * 1000000000LL +
			HEAD(h, __u32, in->i_atime_nsec);
		st->mtime = HEAD(h, __s64, in->i_mtime_sec) * 1000000000LL +
			HEAD(h, __u32, in->i_mtime_nsec);
		st->ctime = HEAD(h, __s64, in->i_ctime_sec) * 1000000000LL +
			(HEAD(h, __u32, in->i_ctime_nsec) & ~I_CTIME_QUERIED_);
		st->flags |= BE_IST_TIMES;
	}
	st->flags |= BE_IST_VALID;
}

/*
 * What the exit record (in the scratch buffer) says of the files a call
 * made: whether an open created its file, and if not, the file as it
 * found it (open_istate()); pipe()'s and socketpair()'s
 * descriptors and their inodes (@a0, @a3: the call's first and fourth
 * arguments).  A global function, checked once on its own, not again on
 * each path through the exit program after it.
 */
__noinline int exit_files(__s32 nr, __s64 ret, __u64 a0, __u64 a3)
{
	struct be_exit *x = scratch_buf();

	if (!x)
		return 0;
	x->st.flags = 0;
	if ((nr == NR_OPEN || nr == NR_CREAT || nr == NR_OPENAT || nr == NR_OPENAT2) && ret >= 0) {
		struct file *f = (struct file *)fd_file((int)ret);

		if (f && (BPF_CORE_READ(f, f_mode) & FMODE_CREATED_))
			x->created = BE_CREATED;
		else if (f)
			open_istate(x, f);
	}
	if ((nr == NR_STAT || nr == NR_LSTAT || nr == NR_NEWFSTATAT) && ret == 0) {
		/* struct stat (x86_64): what the program was told, for a
		 * path first named by a stat (cp stats its source before it
		 * opens it); another process may change the file before the
		 * drain lstat()s it */
		__u64 sb[9];
		struct be_istate *st = &x->st;

		if (bpf_probe_read_user(sb, sizeof(sb), (void *)a0) == 0) {
			st->ino = sb[1];
			st->nlink = (__u32)sb[2];
			st->mode = (__u32)sb[3];
			st->uid = (__u32)(sb[3] >> 32);
			st->gid = (__u32)sb[4];
			st->size = sb[6];
			st->flags |= BE_IST_VALID;
		}
	}
	if (nr == NR_STATX && ret == 0) {
		/* struct statx, the same for a path first named by a statx
		 * (ls, stat, find); its mask says which fields the kernel
		 * filled: without the type, mode, links, inode and size it
		 * sends nothing, without the owner no owner */
		__u64 sx[6];
		struct be_istate *st = &x->st;

		if (bpf_probe_read_user(sx, sizeof(sx), (void *)a0) == 0 &&
		    ((__u32)sx[0] & STATX_STATE_) == STATX_STATE_) {
			st->nlink = (__u32)sx[2];
			st->uid = ((__u32)sx[0] & STATX_OWNER_) == STATX_OWNER_ ? (__u32)(sx[2] >> 32) : (__u32)-1;
			st->gid = ((__u32)sx[0] & STATX_OWNER_) == STATX_OWNER_ ? (__u32)sx[3] : (__u32)-1;
			st->mode = (__u16)(sx[3] >> 32);
			st->ino = sx[4];
			st->size = sx[5];
			st->flags |= BE_IST_VALID;
		}
	}
	if ((nr == NR_PIPE || nr == NR_PIPE2 || nr == NR_SOCKETPAIR) && ret == 0) {
		/* socketpair's int[2] is its fourth argument */
		void *sv = (void *)(nr == NR_SOCKETPAIR ? a3 : a0);

		if (bpf_probe_read_user(x->pipe_fd, sizeof(x->pipe_fd), sv) == 0) {
			x->pipe_ino[0] = fd_ino(x->pipe_fd[0]);
			x->pipe_ino[1] = fd_ino(x->pipe_fd[1]);
		}
	}
	return 0;
}

/*
 * sendmsg, recvmsg (one record at the exit, arguments from the task's
 * dargs): the descriptors its SCM_RIGHTS message carried, a received
 * message's written by now, in place of the msghdr pointer their count
 * and after the three arguments three to a value, 21 bits each
 * (iot_msg_fds_set()); the recorder's ptrace path reads the same
 * (rec_read_msg_fds()).  The first four control messages are looked at,
 * the first nine descriptors kept.
 */
#define MSG_FDS 9
#define MSG_FD_NONE 0x1fffffULL

static __always_inline int exit_msg(__s64 ret)
{
	struct tstate *fl = followed(bpf_get_current_task_btf());
	__u64 m[6], off = 0, ctl, clen, v[3] = { 0, 0, 0 };
	/* the descriptors in the order met, read straight into place; 32
	 * so that the verifier sees any read of up to MSG_FDS from a slot
	 * below 16 inside it (a loop placing each, three ways, made this
	 * function half of what the exit program's load verified) */
	__s32 slot[32];
	__u32 n = 0, k, i;

	if (!fl)
		return 0;
	ctl = fl->dargs[1];
	fl->dargs[1] = 0;
	fl->dargs[3] = fl->dargs[4] = fl->dargs[5] = 0;
	/* msg_name, msg_namelen, msg_iov, msg_iovlen, msg_control,
	 * msg_controllen */
	/* (a sendmsg's, sent or refused, as it was given) */
	if ((ret < 0 && fl->nr == NR_RECVMSG) || !ctl ||
	    bpf_probe_read_user(m, sizeof(m), (void *)ctl) < 0)
		return 0;
	ctl = m[4];
	clen = m[5];
	__builtin_memset(slot, 0xff, sizeof(slot));
	for (k = 0; k < 4; k++) {
		struct { __u64 len; __s32 level, type; } h;
		__u32 c, sz;

		if (off + sizeof(h) > clen ||
		    bpf_probe_read_user(&h, sizeof(h), (void *)(ctl + off)) < 0 ||
		    h.len < sizeof(h) || h.len > clen - off)
			break;
		if (h.level == 1 && h.type == 1) {	/* SOL_SOCKET, SCM_RIGHTS */
			__u32 at = n;

			c = (__u32)((h.len - sizeof(h)) / 4);
			sz = n < MSG_FDS ? (c < MSG_FDS - n ? c : MSG_FDS - n) * 4 : 0;
			/* the bound the verifier needs, which the compiler
			 * would drop (it knows n < MSG_FDS where sz is not 0) */
			asm volatile("" : "+r"(at));
			at &= 15;
			/* a read that fails fills its bytes with zeros: none */
			if (sz && bpf_probe_read_user(&slot[at], sz & 63,
						      (void *)(ctl + off + sizeof(h))) < 0)
				__builtin_memset(slot, 0xff, sizeof(slot));
			n += c;
		}
		off += (h.len + 7) & ~7ULL;
	}
#pragma unroll
	for (i = 0; i < MSG_FDS; i++) {
		__u64 fd = slot[i] >= 0 && (__u64)slot[i] < MSG_FD_NONE ? (__u64)slot[i] : MSG_FD_NONE;

		if (i >= n)
			break;
		v[i / 3] |= fd << ((i % 3) * 21);
	}
	fl->dargs[1] = n;
	fl->dargs[3] = v[0];
	fl->dargs[4] = v[1];
	fl->dargs[5] = v[2];
	return 0;
}

/*
 * The exit program's work after its stamp @t (its record written into the
 * ring) is in the gap before the thread's next call, which the replay
 * spins as the program's computing less what the recorder measured a gap
 * of its own programs costs (record.bpf_gap_ns).  Most of it is that
 * (0.1-0.5 us); but the first record written into each page of the ring
 * since it was made took ~10 us more on this VM (a page's first write
 * there costs ~12 us, as for any new page of a program's): ~2,000 times
 * in a recording's first 8 MiB of records, 4 % of the gaps of a loop of
 * close(-1), where a run without the recorder had 0.3 % of its gaps that
 * slow.  A run past SLOW_TAIL_NS is the recorder's own time outside the
 * calls: it goes with the fault programs' (rec_ns, rec_runs), which the
 * replay takes off the thread's gaps and its CPU budget (replay/budget.c).
 * An interrupt in it is counted too; a run of a millisecond or more is
 * not (the task was switched out: not the programs' time).
 */
#define SLOW_TAIL_NS	3000ULL

static __always_inline void exit_tail(struct tstate *fl, __u64 t)
{
	__u64 d = bpf_ktime_get_ns() - t;

	if (d > SLOW_TAIL_NS && d < 1000000ULL) {
		fl->rec_ns += d;
		fl->rec_runs++;
	}
}

/*
 * The call's task dies with SIGKILL pending at its exit: a SIGKILL, an
 * exit_group or an exec of another thread, or a fatal signal that the
 * kernel turned into a SIGKILL to every thread (it does that only for
 * tasks not under ptrace).  Under ptrace such a signal is delivered after
 * the call's exit stop, so the call returned: a write's EPIPE whose
 * SIGPIPE kills the program is a call with its result there.  So here:
 * where the group exits on a signal other than SIGKILL (its exit code is
 * that signal's number, an exit_group's is a status shifted by 8) and the
 * call did not return to be restarted (-ERESTARTSYS .. -ERESTART_RESTARTBLOCK),
 * it returned; otherwise it was killed in the call (unfinished).
 */
static __always_inline int killed_in_call(struct task_struct *task, long ret)
{
	int code;

	if (!(task->pending.signal.sig[0] & (1ULL << (SIGKILL_ - 1))))
		return 0;
	code = task->signal->group_exit_code;
	if (code > 0 && code <= 64 && code != SIGKILL_ && (ret > -512 || ret < -516))
		return 0;
	return 1;
}

/*
 * The exit's record into the ring: a BE_CALL (or BE_CALLSTR) of the
 * whole call where the entry wrote none, else the BE_EXIT with the
 * strings that could not be read at entry; first, a sendmsg's or
 * recvmsg's descriptors (exit_msg(), inline here).  A function of its
 * own, verified once: inline, the verifier went through it once for each
 * way through the tests before it (32 of them), a third of what the exit
 * program's load verified.  (The light skeleton's loader takes at most
 * 32 programs and functions, libbpf's MAX_USED_PROGS: the object has 32
 * now, so a new function must take an old one's place.)
 */
__noinline int exit_emit(__s64 ret, __u64 t)
{
	struct tstate *fl = followed(bpf_get_current_task_btf());
	struct be_exit *x = scratch_buf();
	__u32 off = 0, j;

	if (!fl || !x)
		return 0;
	if (fl->nr == NR_SENDMSG || fl->nr == NR_RECVMSG)
		exit_msg(ret);
	if (fl->one) {
		struct be_call *k = (struct be_call *)x;
		__s32 pf0 = x->pipe_fd[0], pf1 = x->pipe_fd[1];
		__u64 pi0 = x->pipe_ino[0], pi1 = x->pipe_ino[1];
		__u32 created = x->created, cpu = x->cpu_ns, cwaker = x->cwaker;

		if ((fl->nr == NR_STAT || fl->nr == NR_LSTAT || fl->nr == NR_NEWFSTATAT ||
		     fl->nr == NR_STATX) && (x->st.flags & BE_IST_VALID)) {
			pi0 = x->st.ino;
			pi1 = x->st.size;
			pf0 = (__s32)x->st.mode;
			pf1 = (__s32)x->st.nlink;
			created |= BE_STATED;
		}

		/* the same scratch as the exit record: what that holds is
		 * read out first */
		k->h.type = BE_CALL;
		k->h.len = sizeof(*k);
		k->ret = ret;
		k->pipe_fd[0] = pf0;
		k->pipe_fd[1] = pf1;
		k->pipe_ino[0] = pi0;
		k->pipe_ino[1] = pi1;
		k->nr = fl->nr;
		k->created = created;
		k->t_enter = fl->t_enter;
		k->held = fl->held;
		k->cpu_ns = cpu;
		k->slept = fl->slept;
		k->woke = fl->woke;
		k->waited = fl->waited;
		k->ready = fl->ready;
		k->estr = fl->estr;
		k->cwaker = cwaker;
		k->gwaker = fl->woke ? fl->gwaker : 0;
		__builtin_memcpy(k->args, fl->dargs, sizeof(k->args));
		if (fl->one == 2) {
			/* the BE_CALLSTR begun at entry (keep_strs()): its
			 * head, then it and its strings into the ring */
			__u32 len = BE_CALLSTR_HDR + (fl->soff < BE_CREC_STR ? fl->soff : 0);

			k->h.type = BE_CALLSTR;
			k->h.len = len;
			__builtin_memcpy(fl->crec, k, sizeof(*k));
			emit_max(fl->crec, len, BE_CREC_BYTES, 0);
		} else {
			emit(k, sizeof(*k), 0);
		}
		if (fl->nr == NR_MMAP)
			fmap_watch(ret, fl->dargs[1], fl->dargs[2] << 32 | (__u32)fl->dargs[3],
				   (__s64)fl->dargs[4], fl->dargs[5]);
		else if (fl->nr == NR_MUNMAP_ && ret == 0)
			fmap_unmap(fl->dargs[0], fl->dargs[1]);
		else if (fl->nr == NR_MREMAP_)
			fmap_remap(fl->dargs[0], fl->dargs[1], ret, fl->dargs[2]);
		exit_tail(fl, t);
		return 0;
	}
	/* strings unread at entry: their pages are in now, unless the call
	 * replaced the image (exec) */
#pragma unroll
	for (j = 0; j < 2; j++) {
		__u8 a = fl->sarg[j];

		if (!(fl->fault & (1u << j)) || a >= 6)
			continue;
		x->nstr = j + 1;
		x->slen[j] = read_str(x->data, &off, fl->args[a] +
				      (sysinfo[fl->nr & (BE_NR_MAX - 1)].kind[a] == BK_SOCKADDR ? 2 :
				       sysinfo[fl->nr & (BE_NR_MAX - 1)].kind[a] == BK_IOCFLAGS ?
				       subvol_name_off((__u32)fl->args[1]) : 0));
	}
	x->h.len = (__u32)sizeof(*x) + (off <= 2 * BE_STR_MAX ? off : 2 * BE_STR_MAX);
	emit(x, x->h.len, 0);
	exit_tail(fl, t);
	return 0;
}

/*
 * A plain raw tracepoint, not a BTF-typed one: the kernel checks a
 * tp_btf program's target by a search of its whole BTF by name (~0.4 ms
 * of every recording's load).  The registers are the tracepoint's first
 * argument, a number here; the exit needs them only for an mmap the fast
 * path logged (in_fast 2, set by the entry's look at the same
 * registers), and takes them then from the task (bpf_task_pt_regs(), a
 * helper call: ~30 ns at every exit, were it made for each).
 */
SEC("raw_tp/sys_exit")
int BPF_PROG(iotape_exit, void *regs_arg, long ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct tstate *fl;
	struct be_exit *x;
	__u64 t;

	fl = followed(task);
	if (!fl)
		return 0;
	if (fl->in_fast) {
		const struct uregs *regs = (const struct uregs *)bpf_task_pt_regs(task);

		/* the fast path logged the mmap; its file is followed here */
		if (fl->in_fast == 2 && fl->st == BE_TID_ON) {
			if (regs && regs->orig_ax == NR_MMAP)
				fmap_watch(ret, regs->si, regs->dx << 32 | (__u32)regs->r10,
					   (__s64)regs->r8, regs->r9);
		}
		/* the library writes the result down after this: a handler
		 * taken at the return that exits never lets it (left_call()) */
		fl->fast_nr = regs ? (__s64)regs->orig_ax + 1 : 0;
		fl->fast_rv = ret;
		fl->in_fast = 0;
		return 0;
	}
	if (!fl->busy)
		return 0;
	/* libaio's records of the call first (the recorder reads them with
	 * its record): aio.bpf.c's exit, once loaded, writes them and
	 * tail-calls this program back; aio_tail tells the two runs apart */
	if (fl->nr == NR_IO_SETUP || fl->nr == NR_IO_GETEVENTS || fl->nr == NR_IO_PGETEVENTS) {
		if (!fl->aio_tail) {
			fl->aio_tail = 1;
			bpf_tail_call(ctx, &tails, TAIL_AIO_EXIT);
		}
		fl->aio_tail = 0;
	}
	fl->busy = 0;
	x = scratch_buf();
	if (!x)
		return 0;
	x->ret = ret;
	x->pipe_fd[0] = x->pipe_fd[1] = -1;
	x->pipe_ino[0] = x->pipe_ino[1] = 0;
	x->nstr = 0;
	x->slen[0] = x->slen[1] = BE_NOSTR;
	x->created = 0;
	/* only for the calls it reads anything for: a global function's
	 * call and its look-up of the scratch less on every other exit.
	 * Before the exit's stamp: what it reads (an opened inode's head, a
	 * stat's buffer: 0.2-0.3 us) is then in the call's time, not in the
	 * gap after it, which the replay takes for the program's computing
	 * less what the calibration measured of a call that reads nothing
	 * (bpf_calib.c: a gap after newfstatat was 531 ns and after openat
	 * 661, against 360 after close(-1), in one program's loop) */
	if (fl->nr == NR_OPEN || fl->nr == NR_CREAT || fl->nr == NR_OPENAT || fl->nr == NR_OPENAT2 ||
	    fl->nr == NR_PIPE || fl->nr == NR_PIPE2 || fl->nr == NR_SOCKETPAIR)
		exit_files(fl->nr, ret, fl->args[0], fl->args[3]);
	else if (fl->nr == NR_STAT || fl->nr == NR_LSTAT || fl->nr == NR_NEWFSTATAT)
		exit_files(fl->nr, ret, fl->args[fl->nr == NR_NEWFSTATAT ? 2 : 1], 0);
	else if (fl->nr == NR_STATX)
		exit_files(fl->nr, ret, fl->args[4], 0);
	else
		x->st.flags = 0;
	t = bpf_ktime_get_ns();
	hdr_task(&x->h, BE_EXIT, task, t);
	if (fl->t_off)
		unseen_in(fl, t, task->se.sum_exec_runtime);
	x->cpu_ns = cpu_ns(fl, t);
	x->cwaker = fl->cwaker;
	if (killed_in_call(task, ret))
		x->created |= BE_KILLED;
	/* a connection's two ends, by the connecting socket: its own inode
	 * at a connect, its peer's at an accept (plan_socks.c pairs them) */
	if (fl->nr == NR_CONNECT && ret == 0)
		x->pipe_ino[0] = conn_sock_ino((int)fl->args[0]);
	else if ((fl->nr == NR_ACCEPT || fl->nr == NR_ACCEPT4) && (__s64)ret >= 0)
		x->pipe_ino[0] = peer_ino((int)ret);
	exit_emit(ret, t);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(iotape_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ctid = child->pid;
	struct tstate *cs;
	struct be_fork *f;
	__u64 fl = 0;

	if (!followed(parent))
		return 0;
	cs = bpf_task_storage_get(&tstate, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!cs) {
		count_drop();
		return 0;
	}
	cs->st = BE_TID_ON;
	cs->busy = 0;
	live_add(1);
	f = scratch_buf();
	if (!f)
		return 0;
	hdr(&f->h, BE_FORK);
	f->h.len = sizeof(*f);
	f->child_tid = ctid;
	f->child_pid = BPF_CORE_READ(child, tgid);
	if (f->child_pid == BPF_CORE_READ(parent, tgid))
		fl |= CLONE_THREAD_;
	if (BPF_CORE_READ(child, files) == BPF_CORE_READ(parent, files))
		fl |= CLONE_FILES_;
	if (BPF_CORE_READ(child, fs) == BPF_CORE_READ(parent, fs))
		fl |= CLONE_FS_;
	if (BPF_CORE_READ(child, mm) == BPF_CORE_READ(parent, mm))
		fl |= CLONE_VM_;
	if (BPF_CORE_READ(child, vfork_done))
		fl |= CLONE_VFORK_;
	f->flags = fl;
	emit(f, sizeof(*f), 0);
	return 0;
}

/*
 * The exe's path: its dentries up to the root, crossing mounts, then
 * written root first.  Kernel strings, so no fault can stop the walk.
 * Two bpf_loop()s: an open-coded walk has too many paths to verify.
 */
struct walk {
	struct dentry *d;
	struct mount *mnt;
	__u32 n, off;
	struct dentry *ds[PATH_DEPTH];
};

/* The walk's state lives in map memory, not on the stack: the verifier
 * tracks no value of it from one iteration to the next, so it checks each
 * callback once instead of once per offset the name could be at (a
 * stack walk cost ~25 ms of verification per recording). */
LOOP_STATE(walkbuf, struct walk, walk_state)

static long walk_up(__u64 i, void *arg)
{
	struct walk *w = walk_state();
	struct dentry *parent, *d;
	struct mount *mnt;

	if (!w)
		return 1;
	d = w->d;
	mnt = w->mnt;
	if (w->n >= PATH_DEPTH)
		return 1;
	/* (the vfsmount's root through its mount: one type relocated, not
	 * two; "vfsmount" shares the kernel's cache slot of candidates with
	 * "address_space", which the mapped-page programs relocate) */
	if (d == BPF_CORE_READ(mnt, mnt.mnt_root)) {
		struct mount *up = BPF_CORE_READ(mnt, mnt_parent);

		if (up == mnt)
			return 1;
		w->d = BPF_CORE_READ(mnt, mnt_mountpoint);
		w->mnt = up;
		return 0;
	}
	parent = BPF_CORE_READ(d, d_parent);
	if (parent == d)
		return 1;
	w->ds[w->n & (PATH_DEPTH - 1)] = w->d;
	w->n++;
	w->d = parent;
	return 0;
}

static long write_name(__u64 i, void *arg)
{
	struct walk *w = walk_state();
	struct be_exec *x = scratch_buf();
	struct dentry *d;
	const unsigned char *name;
	__u32 off = w->off;
	long k;

	if (!w || !x || i >= w->n)
		return 1;
	d = w->ds[(w->n - 1 - i) & (PATH_DEPTH - 1)];
	name = BPF_CORE_READ(d, d_name.name);
	if (off > BE_STR_MAX - NAME_MAX_ - 2) {
		w->off = 0;
		return 1;
	}
	x->data[off & (BE_STR_MAX - 1)] = '/';
	off++;
	k = bpf_probe_read_kernel_str(x->data + (off & (BE_STR_MAX - 1)), NAME_MAX_, name);
	if (k <= 0) {
		w->off = 0;
		return 1;
	}
	w->off = off + (__u32)k - 1;
	return 0;
}

static __always_inline __u32 exe_path(struct linux_binprm *bprm, struct be_exec *x)
{
	struct walk *w = walk_state();
	int none = 0;

	if (!w) {
		x->data[0] = '/';
		return 1;
	}
	w->n = w->off = 0;
	w->d = BPF_CORE_READ(bprm, file, f_path.dentry);
	w->mnt = container_of(BPF_CORE_READ(bprm, file, f_path.mnt), struct mount, mnt);
	bpf_loop(PATH_DEPTH + 8, walk_up, &none, 0);
	bpf_loop(PATH_DEPTH, write_name, &none, 0);
	if (w->off == 0 || w->off > BE_STR_MAX) {
		x->data[0] = '/';
		return 1;
	}
	return w->off;
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(iotape_exec, struct task_struct *p_arg, pid_t old_pid, struct linux_binprm *bprm)
{
	/* the task that execs is the current one */
	struct task_struct *p = bpf_get_current_task_btf();
	__u32 old = (__u32)old_pid, elen, alen, argc;
	__u64 a0 = 0, a1 = 0, sp;
	struct tstate *fl;
	struct be_exec *x;

	/* exec from a thread: it takes the leader's tid, and keeps its own
	 * state (the task is the same) */
	fl = followed(p);
	if (!fl)
		return 0;
	/* an exec from the fast path's stub does not return to it */
	fl->in_fast = 0;
	x = scratch_buf();
	if (!x)
		return 0;
	hdr(&x->h, BE_EXEC);
	x->old_tid = old;
	elen = exe_path(bprm, x);
	x->exe_len = elen;
	if (elen > BE_STR_MAX)
		elen = BE_STR_MAX;
	/* argv's strings, from the new stack the loader just wrote (bprm's
	 * p is its pointer: argc, argv[], NULL, envp[]): argv[0] to envp[0]
	 * (or, with no environment, the file name the kernel put above).
	 * mm's arg_start and arg_end say the same, but struct mm_struct
	 * shares its slot of the kernel's cache of CO-RE names with struct
	 * folio, which the mapped-page programs relocate: each recording
	 * searched the kernel's BTF for both. */
	sp = BPF_CORE_READ(bprm, p);
	argc = (__u32)BPF_CORE_READ(bprm, argc);
	if (argc > 0x10000 || bpf_probe_read_user(&a0, 8, (void *)(sp + 8)) < 0)
		a0 = 0;
	if (bpf_probe_read_user(&a1, 8, (void *)(sp + 16 + 8 * (__u64)argc)) < 0 || !a1)
		a1 = BPF_CORE_READ(bprm, exec);
	alen = a0 && a1 > a0 ? (__u32)(a1 - a0) : 0;
	/* a longer argv is cut (at 8 KiB) */
	if (alen >= BE_ARGV_MAX)
		alen = BE_ARGV_MAX - 1;
	asm volatile("%0 &= 0x1fff" : "+r"(alen));
	/* (the compiler drops a mask it can prove idle; the verifier cannot) */
	asm volatile("%0 &= 0x1fff" : "+r"(elen));
	if (alen && bpf_probe_read_user(x->data + (elen & (2 * BE_STR_MAX - 1)), alen, (void *)a0) < 0)
		alen = 0;
	x->argv_len = alen;
	x->fname_len = 0;
	{
		__u32 fo = elen + alen;
		long k;

		if (fo <= BE_STR_MAX + BE_ARGV_MAX) {
			k = bpf_probe_read_kernel_str(x->data + (fo & (2 * BE_STR_MAX + BE_ARGV_MAX - 1)),
						      BE_STR_MAX, BPF_CORE_READ(bprm, filename));
			if (k > 0)
				x->fname_len = (__u32)k - 1;
		}
	}
	x->h.len = (__u32)sizeof(*x) + elen + alen + x->fname_len;
	emit(x, x->h.len, 0);
	return 0;
}

/*
 * The call @p was leaving as it died, and its result, as tracer.c's
 * killed_leaving() reads them from the registers under ptrace: a fatal
 * signal met on the way out of a call ends the task before the fast
 * path's library writes the result down (a child killed by its parent
 * on reading what it wrote).  The registers are the call's return where
 * rip is just past a syscall instruction; else a handler's frame was set
 * up first (a handled signal taken at the same return) and the call's
 * registers are saved in it, at the stack pointer after the handler's
 * return address.  Runs before exit_mm(): the task's memory is readable.
 * A task that ended by its own exit, from a handler taken at the return
 * of a call the fast path logs (a child sent SIGTERM by its parent on
 * the end of file its close gave, whose handler exits), left that call's
 * record unfinished: the result is the one its exit program kept (@s).
 */
static __always_inline void left_call(struct task_struct *p, struct tstate *s,
				      struct be_gone *g)
{
	struct pt_regs *r = (struct pt_regs *)bpf_task_pt_regs(p);
	__s64 nr, rv;
	__u64 ip, sp;
	__u16 ins = 0;

	g->left_nr = 0;
	g->left_rv = 0;
	if (!r)
		return;
	nr = (__s64)BPF_CORE_READ(r, orig_ax);
	rv = (__s64)BPF_CORE_READ(r, ax);
	ip = BPF_CORE_READ(r, ip);
	sp = BPF_CORE_READ(r, sp);
	if ((nr == NR_EXIT || nr == NR_EXIT_GROUP) && s->fast_nr > 0) {
		g->left_nr = s->fast_nr;
		g->left_rv = s->fast_rv;
		return;
	}
	if (nr < 0 || bpf_probe_read_user(&ins, sizeof(ins), (void *)(ip - 2)) < 0)
		return;
	if (ins != 0x050f) {
		/* the ucontext after the return address: uc_flags, uc_link,
		 * uc_stack (24 bytes), then gregs (r8..r15, rdi, rsi, rbp,
		 * rbx, rdx, rax, rcx, rsp, rip) */
		__u64 uc = sp + 8, gregs = uc + 40;

		if (bpf_probe_read_user(&rv, sizeof(rv), (void *)(gregs + 13 * 8)) < 0 ||
		    bpf_probe_read_user(&ip, sizeof(ip), (void *)(gregs + 16 * 8)) < 0 ||
		    bpf_probe_read_user(&ins, sizeof(ins), (void *)(ip - 2)) < 0 ||
		    ins != 0x050f)
			return;
	}
	g->left_nr = nr + 1;
	g->left_rv = rv;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(iotape_gone, struct task_struct *p_arg)
{
	/* the task that ends is the current one */
	struct task_struct *p = bpf_get_current_task_btf();
	__u32 tid = p->pid;
	struct tstate *s = followed(p);
	struct task_struct *xt;
	struct be_gone *g;
	__u64 run;
	__s64 left;

	if (!s)
		return 0;
	s->st = 0;
	s->gone = 1;
	s->busy = 0;
	left = live_add(-1);
	/* the leader reaped by another thread's exec: that exec names it
	 * gone, as the ptrace path does, and its tid lives on */
	xt = BPF_CORE_READ(p, signal, group_exec_task);
	if (xt && xt != p && tid == (__u32)BPF_CORE_READ(p, tgid))
		return 0;
	g = scratch_buf();
	if (!g)
		return 0;
	hdr(&g->h, BE_GONE);
	g->h.tid = tid;
	g->h.pid = BPF_CORE_READ(p, tgid);
	g->h.len = sizeof(*g);
	g->status = BPF_CORE_READ(p, exit_code);
	g->utime_ns = BPF_CORE_READ(p, utime);
	g->stime_ns = BPF_CORE_READ(p, stime);
	/* The scheduler adds to a task's run time only at a switch, a tick
	 * or a read of its CPU clock: a program that starts, works and ends
	 * within a tick, on the CPU all along, would end with nothing added
	 * since it was switched in (a shell's child: none at all).  Exact:
	 * the run time at its last switch in and the time since, on this
	 * CPU all along.  It holds the BPF programs' time in the task, as
	 * the scheduler's count does: at its calls (which the replay takes
	 * off a bpf recording's budget, think.c's floors) and at its page
	 * faults (rec_ns: their programs' own time, which the replay
	 * takes off too); and a hypervisor's steal in it. */
	run = BPF_CORE_READ(p, se.sum_exec_runtime);
	if (s->t_in && g->h.t > s->t_in && s->run_in + (g->h.t - s->t_in) > run)
		run = s->run_in + (g->h.t - s->t_in);
	g->run_ns = run;
	g->rec_ns = s->rec_ns;
	g->rec_runs = s->rec_runs;
	left_call(p, s, g);
	/* The recorder is woken at once by the last followed task's end
	 * (it then stops) and, with the fast path, by any (the thread's
	 * ring slots are freed at its end: a burst of short threads would
	 * use them up); else the end waits for the next drain, as calls do
	 * (a wake-up per process was a context switch each, ~30 % of the
	 * recorder's thread in a run of short programs). */
	emit(g, sizeof(*g), left <= 0 || stub_ip);
	return 0;
}

/* the pages of file mappings (their own programs and maps) */
#include "mpages.bpf.h"
