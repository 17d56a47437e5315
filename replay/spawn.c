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
 * their own), kept in a memfd, started with posix_spawn (vfork + exec:
 * the replayer's large address space is not copied).  Not replayed: the
 * fork of a process that makes no exec (a shell's subshell), and the
 * page faults of a large program's text beyond what its gaps hold.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rpl.h"

#define START_BASE 0x400000ULL

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

int64_t rpl_start_process(struct rpl_plan *p)
{
	char path[64], arg0[] = "iotape-start";
	char *argv[] = { arg0, NULL }, *envp[] = { NULL };
	pid_t pid;
	int st, r;

	if (p->start_fd < 0)
		return p->start_fd;
	/* the child's /proc/self/fd is a copy of this thread's table: the
	 * memfd is there until the exec (close-on-exec) */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p->start_fd);
	r = posix_spawn(&pid, path, NULL, NULL, argv, envp);
	if (r)
		return -r;
	/* a signal that stops the replay interrupts the wait, not the start */
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -ECHILD;
}
