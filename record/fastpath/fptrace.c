/*
 * fptrace.c - the prototype tracer for the fast path.  It runs a program
 * under the same seccomp filter as `iotape record` (the syscalls of
 * format/syscalls.def stop in the tracer) plus one rule in front: calls
 * made from the fast-path stub are allowed.  At every stop it drains the
 * rings; at the end it prints how many calls each path carried.
 *
 *   fptrace [-n] [-s FILE] -- PROG ARGS...
 *     -n       no fast path (no preload, no stub rule): plain seccomp+ptrace
 *     -s FILE  write the statistics to FILE instead of stderr
 *
 * Ptrace stops cost what `iotape record` pays: PTRACE_GET_SYSCALL_INFO at
 * the seccomp stop and again at the syscall-exit stop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "iotape.h"
#include "fp.h"

#define MAX_NR 512
#define MAX_FILTER 600
#define MAX_PID (1 << 22)

struct fp_stats {
	uint64_t fast[MAX_NR];
	uint64_t slow[MAX_NR];
	uint64_t flushes;
	uint64_t stops;
	uint64_t bytes;
	uint64_t nested;		/* records entered before the previous one exited:
				   a signal handler's call inside a wrapper */
};

static struct fp_stats st;
static void *shm;
static uint8_t seen[MAX_PID / 8];
static uint64_t last_exit[FP_NSLOTS];

static int install_filter(uint64_t stub_ip, int fast)
{
	struct sock_filter f[MAX_FILTER];
	struct sock_fprog prog;
	const struct iot_syscall *tab;
	size_t n, i, k = 0;

	tab = iot_syscall_table(&n);
	if (2 * n + 20 > MAX_FILTER)
		return -E2BIG;
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      AUDIT_ARCH_X86_64, 1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	if (fast) {
		/* instruction_pointer is 64-bit; classic BPF loads 32 at a time */
		f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, instruction_pointer) + 4);
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			(uint32_t)(stub_ip >> 32), 0, 3);
		f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, instruction_pointer));
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			(uint32_t)stub_ip, 0, 1);
		f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	/* not mmap: skip the three mmap instructions and its RET_TRACE */
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 0, 4);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, args[3]));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
					      MAP_ANONYMOUS, 0, 1);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
	for (i = 0; i < n; i++) {
		if (tab[i].nr == SYS_mmap)
			continue;
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      (unsigned)tab[i].nr, 0, 1);
		f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog.len = (unsigned short)k;
	prog.filter = f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		return -errno;
	return 0;
}

/* consume the committed records of slot @i, in reservation order */
static void drain_slot(unsigned i)
{
	struct fp_slot *s = fp_slot_at(shm, i);
	char *ring = fp_ring_of(s);
	uint64_t h = __atomic_load_n(&s->head, __ATOMIC_ACQUIRE);
	uint64_t t = s->tail;

	while (t < h) {
		struct fp_rec *r = (struct fp_rec *)(ring + t % FP_RING_BYTES);
		uint32_t state = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
		uint32_t len = r->len;

		/* reserved but not committed yet: a wrapper is in its syscall */
		if (state == FP_REC_EMPTY)
			break;
		if (state == FP_REC_DONE) {
			if (r->nr >= 0 && r->nr < MAX_NR)
				st.fast[r->nr]++;
			st.bytes += len;
			if (r->t_enter < last_exit[i])
				st.nested++;
			last_exit[i] = r->t_exit;
		}
		memset(r, 0, len);
		t += len;
	}
	__atomic_store_n(&s->tail, t, __ATOMIC_RELEASE);
}

static void drain_all(void)
{
	unsigned i;

	if (!shm)
		return;
	for (i = 0; i < FP_NSLOTS; i++)
		if (fp_slot_at(shm, i)->head != fp_slot_at(shm, i)->tail)
			drain_slot(i);
}

/* drain and release the slot owned by @tid: the thread exited or exec'd */
static void release_tid(pid_t tid)
{
	unsigned i;

	if (!shm)
		return;
	for (i = 0; i < FP_NSLOTS; i++) {
		struct fp_slot *s = fp_slot_at(shm, i);

		if (s->state != FP_SLOT_OWNED || s->tid != tid)
			continue;
		drain_slot(i);
		s->tid = 0;
		s->paused = 0;
		last_exit[i] = 0;
		__atomic_store_n(&s->state, FP_SLOT_FREE, __ATOMIC_RELEASE);
	}
}

static void set_paused(pid_t tid, uint32_t v)
{
	unsigned i;

	if (!shm)
		return;
	for (i = 0; i < FP_NSLOTS; i++) {
		struct fp_slot *s = fp_slot_at(shm, i);

		if (s->state == FP_SLOT_OWNED && s->tid == tid)
			__atomic_store_n(&s->paused, v, __ATOMIC_RELEASE);
	}
}

static int setup_shm(int *fdp)
{
	struct fp_shm *h;
	int fd;

	fd = memfd_create("iotape-fast", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)FP_SHM_BYTES) < 0)
		return -errno;
	shm = mmap(NULL, FP_SHM_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (shm == MAP_FAILED)
		return -errno;
	h = shm;
	h->magic = FP_MAGIC;
	h->version = FP_VERSION;
	h->nslots = FP_NSLOTS;
	h->ring_bytes = FP_RING_BYTES;
	h->stub_ret_ip = FP_STUB_ADDR + FP_STUB_RET_OFF;
	*fdp = fd;
	return 0;
}

static void child(char **argv, int fast, int fd, const char *lib)
{
	char buf[PATH_MAX];
	int r;

	if (fast) {
		snprintf(buf, sizeof(buf), "/proc/%d/fd/%d", (int)getppid(), fd);
		setenv(FP_ENV, buf, 1);
		setenv("LD_PRELOAD", lib, 1);
	}
	if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
		_exit(126);
	raise(SIGSTOP);
	r = install_filter(FP_STUB_ADDR + FP_STUB_RET_OFF, fast);
	if (r < 0) {
		fprintf(stderr, "fptrace: seccomp: %s\n", strerror(-r));
		_exit(126);
	}
	execvp(argv[0], argv);
	fprintf(stderr, "fptrace: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static void on_seccomp_stop(pid_t pid)
{
	struct __ptrace_syscall_info si;

	st.stops++;
	if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(si), &si) <= 0)
		return;
	/* this thread's earlier fast records come before this call */
	drain_all();
	if (si.seccomp.nr == SYS_close && (int)si.seccomp.args[0] == FP_FLUSH_FD) {
		st.flushes++;
		return;
	}
	if (getenv("FP_DEBUG") && !iot_syscall_by_nr((int)si.seccomp.nr))
		fprintf(stderr, "fptrace: pid %d op %d nr %llu ret_data %u\n", pid, si.op,
			(unsigned long long)si.seccomp.nr, si.seccomp.ret_data);
	if (si.seccomp.nr < MAX_NR)
		st.slow[si.seccomp.nr]++;
}

static void print_stats(FILE *out)
{
	uint64_t fast = 0, slow = 0;
	int nr;

	for (nr = 0; nr < MAX_NR; nr++) {
		fast += st.fast[nr];
		slow += st.slow[nr];
	}
	fprintf(out, "fast %llu slow %llu flushes %llu stops %llu ring_bytes %llu nested %llu\n",
		(unsigned long long)fast, (unsigned long long)slow,
		(unsigned long long)st.flushes, (unsigned long long)st.stops,
		(unsigned long long)st.bytes, (unsigned long long)st.nested);
	for (nr = 0; nr < MAX_NR; nr++) {
		const struct iot_syscall *sc;

		if (!st.fast[nr] && !st.slow[nr])
			continue;
		sc = iot_syscall_by_nr(nr);
		fprintf(out, "  %-18s %3d fast %8llu slow %8llu\n", sc ? sc->name : "?", nr,
			(unsigned long long)st.fast[nr], (unsigned long long)st.slow[nr]);
	}
}

static int trace_loop(pid_t root)
{
	int status, code = 0, live = 1;
	unsigned long msg;
	pid_t pid;

	while (live > 0) {
		pid = waitpid(-1, &status, __WALL);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			release_tid(pid);
			live--;
			if (pid == root)
				code = WIFEXITED(status) ? WEXITSTATUS(status)
							 : 128 + WTERMSIG(status);
			continue;
		}
		if (!WIFSTOPPED(status))
			continue;
		if (pid < MAX_PID && !(seen[pid / 8] & (1u << (pid % 8)))) {
			/* first stop of a new tracee is its attach SIGSTOP */
			seen[pid / 8] |= (uint8_t)(1u << (pid % 8));
			if (pid != root) {
				live++;
				ptrace(PTRACE_CONT, pid, 0, 0);
				continue;
			}
		}
		switch (status >> 8) {
		case SIGTRAP | (PTRACE_EVENT_SECCOMP << 8):
			on_seccomp_stop(pid);
			ptrace(PTRACE_SYSCALL, pid, 0, 0);
			continue;
		case SIGTRAP | 0x80: {
			struct __ptrace_syscall_info si;

			st.stops++;
			ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(si), &si);
			ptrace(PTRACE_CONT, pid, 0, 0);
			continue;
		}
		case SIGTRAP | (PTRACE_EVENT_VFORK << 8):
			/* the child shares our TLS until it execs or exits */
			drain_all();
			set_paused(pid, 1);
			ptrace(PTRACE_CONT, pid, 0, 0);
			continue;
		case SIGTRAP | (PTRACE_EVENT_VFORK_DONE << 8):
			set_paused(pid, 0);
			ptrace(PTRACE_CONT, pid, 0, 0);
			continue;
		case SIGTRAP | (PTRACE_EVENT_FORK << 8):
		case SIGTRAP | (PTRACE_EVENT_CLONE << 8):
			drain_all();
			ptrace(PTRACE_CONT, pid, 0, 0);
			continue;
		case SIGTRAP | (PTRACE_EVENT_EXEC << 8):
			/* the old image's rings end here; the new one claims afresh */
			if (ptrace(PTRACE_GETEVENTMSG, pid, 0, &msg) == 0 &&
			    (pid_t)msg != pid)
				release_tid((pid_t)msg);
			release_tid(pid);
			ptrace(PTRACE_CONT, pid, 0, 0);
			continue;
		case SIGTRAP | (PTRACE_EVENT_EXIT << 8):
			release_tid(pid);
			ptrace(PTRACE_CONT, pid, 0, 0);
			continue;
		default:
			break;
		}
		if (pid == root && WSTOPSIG(status) == SIGSTOP &&
		    !(seen[0] & 1)) {
			/* the root's SIGSTOP before exec: set the options now */
			seen[0] |= 1;
			ptrace(PTRACE_SETOPTIONS, pid, 0,
			       PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACESECCOMP |
			       PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
			       PTRACE_O_TRACEVFORKDONE | PTRACE_O_TRACECLONE |
			       PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT |
			       PTRACE_O_EXITKILL);
			ptrace(PTRACE_CONT, pid, 0, 0);
			continue;
		}
		/* a real signal: deliver it (group-stops are not modelled here) */
		ptrace(PTRACE_CONT, pid, 0, WSTOPSIG(status));
	}
	drain_all();
	return code;
}

int main(int argc, char **argv)
{
	const char *stats = NULL;
	char lib[PATH_MAX + 32], self[PATH_MAX], *slash;
	int fast = 1, fd = -1, opt, code;
	FILE *out = stderr;
	ssize_t n;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+ns:")) != -1) {
		if (opt == 'n')
			fast = 0;
		else if (opt == 's')
			stats = optarg;
		else
			return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: fptrace [-n] [-s FILE] -- PROG ARGS...\n");
		return 2;
	}
	/* the preload library sits next to this binary */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return 1;
	self[n] = 0;
	slash = strrchr(self, '/');
	*slash = 0;
	snprintf(lib, sizeof(lib), "%s/libiotape-fast.so", self);
	if (fast && setup_shm(&fd) < 0) {
		fprintf(stderr, "fptrace: memfd: %s\n", strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		child(argv + optind, fast, fd, lib);
	code = trace_loop(pid);
	if (stats)
		out = fopen(stats, "w");
	if (out) {
		print_stats(out);
		if (out != stderr)
			fclose(out);
	}
	return code;
}
