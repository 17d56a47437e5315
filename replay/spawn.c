/*
 * spawn.c - process starts in a replay.
 *
 * Starting a program is the workload's own time: the kernel's execve (the
 * old image torn down, the new one mapped) and the exit, besides what the
 * trace holds of it (the dynamic loader's opens and reads of its
 * libraries, replayed as the file calls they are, and the gaps between
 * them, think time).  The replay runs no recorded program, and the
 * trace's durations of execve cannot stand in for that cost: recorded at
 * ptrace stops, they hold the tracer's latency (250 us where the kernel
 * takes ~120).  So each successful execve execs a program here, natively,
 * on the machine and under the load of the replay, and the replay thread
 * waits until it has ended: a static program of one instruction that
 * exits (no loader: the recorded loader's calls and gaps are replayed on
 * their own), kept in a memfd.  Not replayed: the fork of a process that
 * makes no exec (a shell's subshell), and the page faults of a large
 * program's text beyond what its gaps hold.
 *
 * The start is made as cheap as the kernel's part of it allows, for the
 * replay's own part is not the workload's: a clone that shares the
 * replayer's memory and stops this thread until the exec (posix_spawn
 * also maps and unmaps a stack each time, an unmap that in a process of
 * many running threads interrupts them all to flush their TLBs, and its
 * child resets every signal's handler), and the program exec'd through
 * its descriptor (execveat: no /proc lookup).  The clone copies this
 * thread's descriptor table, as posix_spawn's did: a replay thread's own
 * table holds a few (exec_thread.c closes the rest); sharing it (CLONE_FILES,
 * then close_range(CLOSE_RANGE_UNSHARE) down to the program's) would
 * spare a replayer of one table with thousands open their copy and close
 * (280 against 75 us a start with 2,000), but valgrind refuses that
 * clone, and the unit tests run under it.  Measured on make -j2's 171
 * starts: docs/VALIDATION.md.  While a start is under way the threads
 * that spend think time as CPU time yield (spin.c): a start needs two
 * tasks run that an execve does not (the program, then this thread at
 * its end), and queued behind spinning threads each waited up to a
 * scheduler slice.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rpl.h"

#define START_BASE 0x400000ULL
/* the stack the clone runs on until its exec: a few frames of raw calls */
#define START_STACK 16384

/* exit(0): xor %edi,%edi; mov $60,%eax; syscall */
static const unsigned char start_code[] = {
	0x31, 0xff, 0xb8, 0x3c, 0x00, 0x00, 0x00, 0x0f, 0x05,
};

/* The smallest static ELF program: its header, one loadable segment, the
 * code. */
static int start_program(void)
{
	struct {
		Elf64_Ehdr eh;
		Elf64_Phdr ph;
		unsigned char code[sizeof(start_code)];
	} __attribute__((packed)) img;
	int fd;

	memset(&img, 0, sizeof(img));
	memcpy(img.eh.e_ident, ELFMAG, SELFMAG);
	img.eh.e_ident[EI_CLASS] = ELFCLASS64;
	img.eh.e_ident[EI_DATA] = ELFDATA2LSB;
	img.eh.e_ident[EI_VERSION] = EV_CURRENT;
	img.eh.e_type = ET_EXEC;
	img.eh.e_machine = EM_X86_64;
	img.eh.e_version = EV_CURRENT;
	img.eh.e_entry = START_BASE + offsetof(__typeof__(img), code);
	img.eh.e_phoff = offsetof(__typeof__(img), ph);
	img.eh.e_ehsize = sizeof(img.eh);
	img.eh.e_phentsize = sizeof(img.ph);
	img.eh.e_phnum = 1;
	img.ph.p_type = PT_LOAD;
	img.ph.p_flags = PF_R | PF_X;
	img.ph.p_vaddr = img.ph.p_paddr = START_BASE;
	img.ph.p_filesz = img.ph.p_memsz = sizeof(img);
	img.ph.p_align = 0x1000;
	memcpy(img.code, start_code, sizeof(start_code));
	fd = memfd_create("iotape-start", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, &img, sizeof(img)) != (ssize_t)sizeof(img)) {
		close(fd);
		return -EIO;
	}
	return fd;
}

void rpl_starts_open(struct rpl_plan *p)
{
	p->start_fd = start_program();
}

void rpl_starts_close(struct rpl_plan *p)
{
	if (p->start_fd >= 0)
		close(p->start_fd);
	p->start_fd = -EBADF;
}

/* What the clone needs, in memory it shares with this thread. */
struct start_args {
	int fd;
	int err;		/* -errno of the exec, if it failed */
	char *const *argv, *const *envp;
	char path[32];		/* the descriptor under /proc, for a kernel
				 * (or valgrind) without execveat of "" */
};

/* The clone, on its own stack, in the replayer's memory, until its exec.
 * Raw calls only, and nothing instrumented (a sanitizer's bookkeeping on
 * this stack would be the replayer's); errno is this thread's, which the
 * parent does not read until the child is gone. */
__attribute__((no_sanitize("address", "undefined")))
static int start_child(void *arg)
{
	struct start_args *a = arg;

	syscall(SYS_execveat, a->fd, "", a->argv, a->envp, AT_EMPTY_PATH);
	syscall(SYS_execve, a->path, a->argv, a->envp);
	a->err = -errno;
	syscall(SYS_exit, 127);
	return 0;
}

int64_t rpl_start_process(struct rpl_plan *p)
{
	char arg0[] = "iotape-start";
	char *argv[] = { arg0, NULL }, *envp[] = { NULL };
	struct start_args a = { .fd = p->start_fd, .err = 0, .argv = argv, .envp = envp };
	sigset_t all, old;
	char *stack = NULL;
	int64_t r;
	pid_t pid;
	int st;

	if (p->start_fd < 0)
		return p->start_fd;
	snprintf(a.path, sizeof(a.path), "/proc/self/fd/%d", p->start_fd);
	atomic_fetch_add(&p->handovers, 1);
	r = -ENOMEM;
	stack = aligned_alloc(64, START_STACK);
	if (!stack)
		goto out;
	/* No signal handler of the replayer may run in the clone, on its
	 * memory (one that stops the replay would stop it from there); the
	 * program inherits the mask and exits at once. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = clone(start_child, stack + START_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
	r = pid < 0 ? -errno : 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r < 0)
		goto out;
	/* a signal that stops the replay interrupts the wait, not the start */
	while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	if (r < 0)
		r = -errno;
	else if (a.err)
		r = a.err;
	else
		r = WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -ECHILD;
out:
	atomic_fetch_sub(&p->handovers, 1);
	free(stack);
	return r;
}
