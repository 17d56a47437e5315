/*
 * test_syscalls.c - format/syscalls.def is the one place that says what a
 * syscall does: every row must be recorded (the seccomp filter stops the
 * tracee at it, and the decoder takes it) and replayed (a handler, which
 * may skip the call with a reason), and what the rows say must hold
 * together.  A row added without its handler fails here, not in a replay.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "rec.h"
#include "rpl.h"

#define MAX_INSNS 512

/* Run the classic BPF program @f (the few instructions the recorder's
 * filter uses) on @d.  @return : what it returns. */
static uint32_t run_filter(const struct sock_filter *f, int n, const struct seccomp_data *d)
{
	uint32_t a = 0;
	int pc = 0;

	while (pc >= 0 && pc < n) {
		const struct sock_filter *in = &f[pc++];

		switch (in->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			assert_true(in->k + 4 <= sizeof(*d));
			memcpy(&a, (const char *)d + in->k, 4);
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == in->k ? in->jt : in->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += (a & in->k) ? in->jt : in->jf;
			break;
		case BPF_RET | BPF_K:
			return in->k;
		default:
			fail_msg("instruction %#x at %d: not one the filter uses", in->code, pc - 1);
		}
	}
	fail_msg("the filter ran off its end at %d", pc);
	return 0;
}

static uint32_t filter_says(const struct sock_filter *f, int n, int nr, uint64_t ip)
{
	struct seccomp_data d;

	memset(&d, 0, sizeof(d));
	d.nr = nr;
	d.arch = AUDIT_ARCH_X86_64;
	d.instruction_pointer = ip;
	d.args[3] = MAP_PRIVATE;	/* mmap: a file mapping */
	return run_filter(f, n, &d);
}

/* Every row stops the tracee, with and without the fast path's stub; a
 * call from the stub, and one the table does not hold, run on. */
static void every_row_recorded(void **state)
{
	static struct sock_filter f[MAX_INSNS];
	const uint64_t stub = 0x7f0012345678ULL;
	const struct iot_syscall *tab;
	size_t n, i;
	int len, fast;

	tab = iot_syscall_table(&n);
	assert_true(n > 0);
	for (fast = 0; fast < 2; fast++) {
		len = rec_seccomp_filter(f, MAX_INSNS, fast ? stub : 0);
		assert_true(len > 0);
		for (i = 0; i < n; i++) {
			if (filter_says(f, len, tab[i].nr, 0x1000) != SECCOMP_RET_TRACE)
				fail_msg("%s: the recorder's filter lets it run unrecorded",
					 tab[i].name);
			/* the decoder takes the row by its number */
			assert_ptr_equal(iot_syscall_by_nr(tab[i].nr), &tab[i]);
			assert_ptr_equal(iot_syscall_by_name(tab[i].name), &tab[i]);
		}
		assert_int_equal(filter_says(f, len, SYS_getpid, 0x1000), SECCOMP_RET_ALLOW);
		if (fast)
			assert_int_equal(filter_says(f, len, SYS_openat, stub), SECCOMP_RET_ALLOW);
	}
}

/* Every row has a replay handler (one that skips says why in the
 * profile: mmap's is RPL_SKIP_MMAP). */
static void every_row_replayed(void **state)
{
	const struct iot_syscall *tab;
	size_t n, i;

	tab = iot_syscall_table(&n);
	for (i = 0; i < n; i++) {
		assert_true(tab[i].nr >= 0 && tab[i].nr < RPL_MAX_NR);
		if (!rpl_handler_for(tab[i].nr))
			fail_msg("%s: no replay handler (replay/ops_*.c)", tab[i].name);
	}
}

/* What the flags say holds together with the argument kinds. */
static void rows_agree(void **state)
{
	const struct iot_syscall *tab;
	size_t n, i;

	tab = iot_syscall_table(&n);
	for (i = 0; i < n; i++) {
		const struct iot_syscall *sc = &tab[i];
		int fd = iot_syscall_arg(sc, IOT_ARG_FD);

		assert_string_not_equal(iot_class_name(sc->cls), "?");
		/* a count of bytes, or data into a pipe, moves through a descriptor */
		if (sc->flags & (IOT_SCF_COUNT | IOT_SCF_PIPE | IOT_SCF_CLOSE))
			assert_true(fd >= 0);
		/* a name is made or removed at a path (bind: a socket's) */
		if (sc->flags & IOT_SCF_NAMES)
			assert_true(iot_syscall_path_arg(sc) >= 0);
		/* a second name only comes with the calls that make one */
		if (iot_syscall_arg(sc, IOT_ARG_PATH2) >= 0)
			assert_true(sc->flags & IOT_SCF_NAMES);
		/* a call that only looks changes nothing */
		if (sc->flags & IOT_SCF_LOOK)
			assert_false(sc->flags & (IOT_SCF_NAMES | IOT_SCF_WRITE | IOT_SCF_PIPE));
	}
	/* the planner's pipe edges: pwritev2 (offset -1) writes a pipe too */
	assert_true(iot_syscall_by_name("pwritev2")->flags & IOT_SCF_PIPE);
	assert_false(iot_syscall_by_name("pwrite64")->flags & IOT_SCF_PIPE);
	assert_true(iot_syscall_by_name("close")->flags & IOT_SCF_CLOSE);
	assert_int_equal(iot_syscall_arg(iot_syscall_by_name("openat"), IOT_ARG_OPEN_FLAGS), 2);
	assert_int_equal(iot_syscall_arg(iot_syscall_by_name("read"), IOT_ARG_PATH), -1);
	/* the event's path: a PATH's, else a socket address's */
	assert_int_equal(iot_syscall_path_arg(iot_syscall_by_name("openat")), 1);
	assert_int_equal(iot_syscall_path_arg(iot_syscall_by_name("bind")), 1);
	assert_int_equal(iot_syscall_path_arg(iot_syscall_by_name("connect")), 1);
	assert_int_equal(iot_syscall_path_arg(iot_syscall_by_name("read")), -1);
	assert_true(iot_syscall_by_name("bind")->flags & IOT_SCF_NAMES);
	assert_true(iot_syscall_by_name("connect")->flags & IOT_SCF_LOOK);
	/* the decoder, planner and replayer find a pair's descriptors by kind */
	assert_int_equal(iot_syscall_arg(iot_syscall_by_name("socketpair"), IOT_ARG_FDPAIR), 3);
	assert_int_equal(iot_syscall_arg(iot_syscall_by_name("pipe2"), IOT_ARG_FDPAIR), 0);
	/* where the write family's bytes are, for the zeros test of the
	 * recorder (its own and the fast path's); copies write no bytes of
	 * the program's */
	assert_int_equal(iot_syscall_wbuf(iot_syscall_by_name("write")), 1);
	assert_int_equal(iot_syscall_wbuf(iot_syscall_by_name("pwritev2")), 1);
	assert_int_equal(iot_syscall_wbuf(iot_syscall_by_name("read")), -1);
	assert_int_equal(iot_syscall_wbuf(iot_syscall_by_name("copy_file_range")), -1);
	assert_int_equal(iot_syscall_wbuf(iot_syscall_by_name("fsetxattr")), -1);
	assert_int_equal(iot_syscall_wbuf(NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_row_recorded),
		cmocka_unit_test(every_row_replayed),
		cmocka_unit_test(rows_agree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
